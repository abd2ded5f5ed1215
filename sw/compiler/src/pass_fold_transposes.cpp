#include "onnx_attributes.h"
#include "passes.h"
#include "pattern_helpers.h"

namespace npuvp::compiler {
namespace {

std::vector<std::int64_t> perm_of(const Graph& graph, const Node& transpose) {
  const auto rank = std::int64_t(graph.values[transpose.inputs[0]].shape.size());
  auto perm = attribute_ints(transpose, "perm", {});
  if (perm.empty())
    for (auto d = rank - 1; d >= 0; --d) perm.push_back(d);
  for (auto& p : perm)
    if (p < 0) p += rank;
  return perm;
}

void drop_if_unused(Graph& graph, Node& transpose) {
  if (graph.consumers(transpose.outputs[0]).empty() && !graph.is_graph_output(transpose.outputs[0]))
    transpose.removed = true;
}

// Transpose(Transpose(x, p1), p2) = Transpose(x, p1[p2]).
int compose(Graph& graph) {
  int removed = 0;
  for (auto& outer : graph.nodes) {
    if (outer.removed || outer.op() != "Transpose") continue;
    Node* inner = producer_of(graph, outer.inputs[0], "Transpose");
    if (!inner || !only_consumer(graph, outer.inputs[0])) continue;
    const auto p1 = perm_of(graph, *inner), p2 = perm_of(graph, outer);
    std::vector<std::int64_t> perm;
    for (auto d : p2) perm.push_back(p1[d]);
    set_attribute_ints(outer, "perm", perm);
    outer.inputs[0] = inner->inputs[0];
    inner->removed = true;
    ++removed;
  }
  return removed;
}

// A Transpose that moves only size-1 axes keeps the memory order: a Reshape (a free view).
int transposes_to_reshapes(Graph& graph) {
  int changed = 0;
  for (auto& node : graph.nodes) {
    if (node.removed || node.op() != "Transpose") continue;
    const Shape& in = graph.values[node.inputs[0]].shape;
    const auto perm = perm_of(graph, node);
    std::int64_t last = -1;
    bool ordered = true;
    for (auto p : perm) {
      if (in[p] == 1) continue;
      ordered = ordered && p > last;
      last = p;
    }
    if (!ordered) continue;
    const Shape& out = graph.values[node.outputs[0]].shape;
    const int shape = graph.add_constant(graph.unique_name(node.name() + "_shape"),
                                         HostTensor::ints({std::int64_t(out.size())}, out));
    node.proto.set_op_type("Reshape");
    node.proto.clear_attribute();
    node.inputs = {node.inputs[0], shape};
    ++changed;
  }
  return changed;
}

}  // namespace

int fold_transposes(Graph& graph) {
  int removed = compose(graph) + transposes_to_reshapes(graph);
  for (int index = 0; index < int(graph.nodes.size()); ++index) {
    Node& node = graph.nodes[index];
    if (node.removed || node.op() != "MatMul") continue;
    // Operands: a view is possible when the operand's last axis stays one of the last two.
    for (int k = 0; k < 2; ++k) {
      Node* transpose = producer_of(graph, node.inputs[k], "Transpose");
      if (!transpose) continue;
      const auto perm = perm_of(graph, *transpose);
      const auto rank = std::int64_t(perm.size());
      if (rank < 2 || (perm[rank - 1] != rank - 1 && perm[rank - 2] != rank - 1)) continue;
      set_attribute_ints(node, k == 0 ? "npuvp_perm_a" : "npuvp_perm_b", perm);
      node.inputs[k] = transpose->inputs[0];
      node.fused_ops.insert(node.fused_ops.begin(), "Transpose");
      drop_if_unused(graph, *transpose);
      ++removed;
    }
    // The result written through a permutation that keeps the last axis (not with a
    // residual: it is read with C's strides).
    if (node.epilogue.residual >= 0 || graph.values[node.inputs[0]].shape.size() < 2 ||
        graph.values[node.inputs[1]].shape.size() < 2)
      continue;
    Node* transpose = only_consumer(graph, node.outputs[0]);
    if (!transpose || transpose->op() != "Transpose") continue;
    const auto perm = perm_of(graph, *transpose);
    const auto rank = std::int64_t(perm.size());
    if (rank < 2 || perm[rank - 1] != rank - 1) continue;
    set_attribute_ints(node, "npuvp_perm_c", perm);
    node.outputs[0] = transpose->outputs[0];
    node.fused_ops.push_back("Transpose");
    transpose->removed = true;
    ++removed;
  }
  graph.compact();
  return removed;
}

}  // namespace npuvp::compiler
