#include "onnx_attributes.h"
#include "passes.h"

namespace npuvp::compiler {
namespace {

bool is_identity(const Graph& graph, const Node& node) {
  const std::string& op = node.op();
  if (op == "Identity") return true;
  if (op == "Dropout") {  // inference: the mask output must be unused
    check_inference_dropout(graph, node);
    return node.outputs.size() < 2 || node.outputs[1] < 0 || graph.consumers(node.outputs[1]).empty();
  }
  if (op == "Cast") {  // to a float type: activations are float whatever the model says (f16 inside)
    const auto to = attribute_int(node, "to", 0);
    return to == onnx::TensorProto::FLOAT || to == onnx::TensorProto::FLOAT16 || to == onnx::TensorProto::DOUBLE ||
           to == onnx::TensorProto::BFLOAT16;
  }
  return false;
}

}  // namespace

int remove_identities(Graph& graph) {
  int removed = 0;
  for (auto& node : graph.nodes) {
    if (node.removed || !is_identity(graph, node) || node.inputs.empty() || node.inputs[0] < 0) continue;
    const int from = node.outputs[0], to = node.inputs[0];
    if (graph.is_graph_output(from) && to == graph.input) {
      // Kept: the output must be a distinct tensor. As a plain Identity (a view the
      // lowering turns into the input's copy), whether it was an Identity, Dropout or Cast.
      node.proto.set_op_type("Identity");
      node.proto.clear_attribute();
      node.inputs.resize(1);
      node.outputs.resize(1);
      continue;
    }
    node.removed = true;
    graph.replace_uses(from, to);
    if (graph.output == to) {
      // The graph output keeps its ONNX name.
      graph.values[to].name = graph.values[from].name;
    }
    ++removed;
  }
  graph.compact();
  return removed;
}

}  // namespace npuvp::compiler
