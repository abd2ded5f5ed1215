#include <algorithm>

#include "host_eval.h"
#include "onnx_attributes.h"
#include "passes.h"
#include "pattern_helpers.h"

namespace npuvp::compiler {
namespace {

std::vector<std::int64_t> dense_strides_of(const Shape& shape) {
  std::vector<std::int64_t> strides(shape.size(), 1);
  for (int d = int(shape.size()) - 2; d >= 0; --d) strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

std::vector<std::int64_t> perm_of(const Graph& graph, const Node& transpose) {
  return transpose_perm(transpose, graph.values[transpose.inputs[0]].shape.size());
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

// MatMul operand R = Reshape(Slice(X)) where the Slice keeps a window of X's last
// axis and the Reshape only splits that axis (and adds or drops 1s): R is a
// strided window of X, read in place (the packed Q/K/V projection of an attention).
bool fold_slice_view(Graph& graph, Node& matmul, int k) {
  const char* name = k == 0 ? "a" : "b";
  if (has_attribute(matmul, std::string("npuvp_view_shape_") + name)) return false;
  const int r = matmul.inputs[k];
  Node* reshape = producer_of(graph, r, "Reshape");
  if (!reshape) return false;
  Node* slice = producer_of(graph, reshape->inputs[0], "Slice");
  if (!slice || graph.opset < 10 || slice->inputs.size() < 3) return false;
  const int x = slice->inputs[0];
  const Shape& xs = graph.values[x].shape;
  const Shape& ss = graph.values[slice->outputs[0]].shape;
  const Shape& rs = graph.values[r].shape;
  if (xs.size() != ss.size() || xs.empty() || rs.size() < 2 || graph.values[x].is_constant()) return false;
  for (size_t d = 0; d + 1 < xs.size(); ++d)
    if (xs[d] != ss[d]) return false;  // only the last axis is sliced
  // The window's start: Slice's constant start on the last axis, step 1.
  auto ints = [&](int index) -> std::vector<std::int64_t> {
    if (index >= int(slice->inputs.size()) || slice->inputs[index] < 0) return {};
    const Value& v = graph.values[slice->inputs[index]];
    if (!v.is_constant()) return {0x7fffffff};
    std::vector<std::int64_t> out;
    for (std::int64_t j = 0; j < v.constant->size(); ++j) out.push_back(std::int64_t(v.constant->at(j)));
    return out;
  };
  const auto starts = ints(1), axes = ints(3), steps = ints(4);
  const auto rank = std::int64_t(xs.size());
  if (starts.size() != 1 || (!axes.empty() && axes.size() != 1) || (!steps.empty() && (steps.size() != 1 || steps[0] != 1)))
    return false;
  const std::int64_t axis = axes.empty() ? 0 : (axes[0] < 0 ? axes[0] + rank : axes[0]);
  if (axis != rank - 1) return false;
  std::int64_t start = starts[0] < 0 ? starts[0] + xs.back() : starts[0];
  start = std::clamp<std::int64_t>(start, 0, xs.back());
  const std::int64_t width = ss.back();
  // R's axes: the leading ones are X's (1s aside); the last one or two split the window.
  const bool split = rs[rs.size() - 2] * rs.back() == width && rs.back() != width;
  const size_t lead = rs.size() - (split ? 2 : 1);
  if (!split && rs.back() != width) return false;
  std::vector<std::int64_t> x_lead, r_lead;
  const auto x_strides = dense_strides_of(xs);
  std::vector<std::int64_t> x_lead_strides;
  for (size_t d = 0; d + 1 < xs.size(); ++d)
    if (xs[d] != 1) { x_lead.push_back(xs[d]); x_lead_strides.push_back(x_strides[d]); }
  for (size_t d = 0; d < lead; ++d)
    if (rs[d] != 1) r_lead.push_back(rs[d]);
  if (x_lead != r_lead) return false;
  std::vector<std::int64_t> strides;
  size_t next = 0;
  for (size_t d = 0; d < lead; ++d) strides.push_back(rs[d] == 1 ? 0 : x_lead_strides[next++]);
  if (split) strides.push_back(rs.back());
  strides.push_back(1);
  set_attribute_ints(matmul, std::string("npuvp_view_shape_") + name, rs);
  set_attribute_ints(matmul, std::string("npuvp_view_strides_") + name, strides);
  set_attribute_int(matmul, std::string("npuvp_view_offset_") + name, start);
  matmul.inputs[k] = x;
  matmul.fused_ops.insert(matmul.fused_ops.begin(), "Slice");
  drop_if_unused(graph, *reshape);
  if (reshape->removed) drop_if_unused(graph, *slice);
  return true;
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
    for (int k = 0; k < 2; ++k)
      if (fold_slice_view(graph, node, k)) ++removed;
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
