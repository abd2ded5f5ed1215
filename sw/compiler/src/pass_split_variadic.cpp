#include "passes.h"
#include "pattern_helpers.h"

namespace npuvp::compiler {
namespace {

bool is_variadic_max_min(const Node& node) {
  return (node.op() == "Max" || node.op() == "Min") && node.inputs.size() != 2;
}

// Max/Min of x0 .. xn-1 as a chain of two-input nodes: the last one writes the output.
void split_into_pairs(Graph& graph, const Node& node, std::vector<Node>& result) {
  const std::string& name = node.name();
  int folded = node.inputs[0];
  for (size_t k = 1; k < node.inputs.size(); ++k) {
    const bool last = k + 1 == node.inputs.size();
    // Shapes are left to infer_missing_shapes (the inputs' may not be known yet).
    Value partial;
    partial.name = graph.unique_name(name + "_partial");
    const int out = last ? node.outputs[0] : graph.add_value(std::move(partial));
    result.push_back(new_node(node.op(), last ? name : name + "_" + std::to_string(k), {folded, node.inputs[k]}, out));
    folded = out;
  }
}

}  // namespace

int split_variadic_max_min(Graph& graph) {
  std::vector<Node> result;
  int split = 0;
  for (auto& node : graph.nodes) {
    if (node.removed || !is_variadic_max_min(node) || node.inputs.empty() || node.outputs.size() != 1) {
      result.push_back(std::move(node));
      continue;
    }
    if (node.inputs.size() == 1) {
      // The maximum of one tensor is that tensor: remove_identities takes it.
      node.proto.set_op_type("Identity");
      result.push_back(std::move(node));
    } else {
      split_into_pairs(graph, node, result);
    }
    ++split;
  }
  graph.nodes = std::move(result);
  graph.compact();
  return split;
}

}  // namespace npuvp::compiler
