#include <memory>

#include "host_eval.h"
#include "passes.h"
#include "pattern_helpers.h"

namespace npuvp::compiler {
namespace {

// Where(c, a, b) evaluated on the host (broadcasting as ONNX does).
HostTensor host_where(const Node& where, const HostTensor& c, const HostTensor& a, const HostTensor& b,
                      std::int64_t opset) {
  return evaluate_on_host(where, {&c, &a, &b}, {c.shape, a.shape, b.shape}, opset).at(0);
}

}  // namespace

int where_with_constant_conditions(Graph& graph) {
  std::vector<Node> result;
  int rewritten = 0;
  for (auto& node : graph.nodes) {
    const bool candidate = !node.removed && node.op() == "Where" && node.inputs.size() == 3 && node.outputs.size() == 1 &&
                           graph.values[node.inputs[0]].is_constant() &&
                           (!graph.values[node.inputs[1]].is_constant() || !graph.values[node.inputs[2]].is_constant());
    if (!candidate) {
      result.push_back(std::move(node));
      continue;
    }
    // out = term(a, where c) + term(b, where not c): a constant branch's term is computed
    // here (where(c, a, 0): an infinite fill stays exact, no inf * 0), an activation's is
    // the activation times the 0/1 mask (exact for finite values).
    const HostTensor c = *graph.values[node.inputs[0]].constant;
    const HostTensor one = HostTensor::floats({}, {1.f}), zero = HostTensor::floats({}, {0.f});
    const std::string name = node.name();
    int terms[2];
    for (int k = 0; k < 2; ++k) {
      const int branch = node.inputs[1 + k];
      // copies: adding values below may move graph.values
      const std::shared_ptr<const HostTensor> constant = graph.values[branch].constant;
      const Shape shape = graph.values[branch].shape;
      if (constant) {
        const HostTensor t = k == 0 ? host_where(node, c, *constant, zero, graph.opset)
                                    : host_where(node, c, zero, *constant, graph.opset);
        terms[k] = graph.add_constant(graph.unique_name(name + (k == 0 ? "_then" : "_else")), t);
        continue;
      }
      const HostTensor mask = k == 0 ? host_where(node, c, one, zero, graph.opset) : host_where(node, c, zero, one, graph.opset);
      const int mask_id = graph.add_constant(graph.unique_name(name + (k == 0 ? "_then_mask" : "_else_mask")), mask);
      Value term;
      term.name = graph.unique_name(name + (k == 0 ? "_then" : "_else"));
      term.shape = broadcast_shapes(node, shape, mask.shape);
      term.shape_known = true;
      terms[k] = graph.add_value(std::move(term));
      result.push_back(new_node("Mul", name + (k == 0 ? "_select_then" : "_select_else"), {branch, mask_id}, terms[k]));
    }
    result.push_back(new_node("Add", name, {terms[0], terms[1]}, node.outputs[0]));
    ++rewritten;
  }
  graph.nodes = std::move(result);
  graph.compact();
  return rewritten;
}

}  // namespace npuvp::compiler
