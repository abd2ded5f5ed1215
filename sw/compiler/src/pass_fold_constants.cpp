#include "host_eval.h"
#include "passes.h"

namespace npuvp::compiler {

int fold_constants(Graph& graph) {
  int folded = 0;
  for (auto& node : graph.nodes) {
    if (node.removed || !can_evaluate_on_host(node.op())) continue;
    const bool shape_only = node.op() == "Shape" || node.op() == "Size";
    std::vector<const HostTensor*> inputs;
    std::vector<Shape> shapes;
    bool ready = !node.inputs.empty();
    for (int in : node.inputs) {
      if (in < 0) { inputs.push_back(nullptr); shapes.emplace_back(); continue; }
      const Value& value = graph.values[in];
      inputs.push_back(value.constant.get());
      shapes.push_back(value.shape);
      if (shape_only ? !value.shape_known : !value.is_constant()) ready = false;
      if (shape_only) break;  // only the data input matters
    }
    // A graph output folded too: require_computed_output then names it (a node left for it
    // would meet the lowering's "unsupported op" for host-only ops such as ConstantOfShape).
    if (!ready) continue;
    auto results = evaluate_on_host(node, inputs, shapes, graph.opset);
    for (size_t k = 0; k < node.outputs.size() && k < results.size(); ++k) {
      const int out = node.outputs[k];
      if (out < 0) continue;
      graph.values[out].shape = results[k].shape;
      graph.values[out].shape_known = true;
      graph.values[out].constant = std::make_shared<const HostTensor>(std::move(results[k]));
      graph.values[out].producer = -1;
    }
    node.removed = true;
    ++folded;
  }
  graph.compact();
  return folded;
}

}  // namespace npuvp::compiler
