#include "host_eval.h"
#include "onnx_attributes.h"
#include "passes.h"

namespace npuvp::compiler {
namespace {

void check_node(const Graph& graph, const Node& node) {
  if (node.inputs.empty() || node.inputs[0] < 0) return;
  const Shape& in = graph.values[node.inputs[0]].shape;
  if (node.op() == "Transpose") transpose_perm(node, in.size());
  if (node.op() == "Flatten") flatten_axis(node, std::int64_t(in.size()));
  // Opsets below 9: spatial 0 normalises each activation with its own statistics, which
  // the per-channel lowering would misread as per-channel ones.
  if (node.op() == "BatchNormalization" && attribute_int(node, "spatial", 1) == 0)
    fail_attribute(node, "spatial", "0");
  // A Cast of an activation to a float type is gone (remove_identities); to another type it
  // would make integer activations, which no kernel reads.
  if (node.op() == "Cast" && !graph.values[node.inputs[0]].is_constant())
    fail(node, "a Cast of an activation to data type " + std::to_string(attribute_int(node, "to", 0)) +
                   " is not supported (activations are float; integer values only as constants)");
}

}  // namespace

void check_attributes(const Graph& graph) {
  for (const auto& node : graph.nodes)
    if (!node.removed) check_node(graph, node);
}

// An inference Dropout is the identity; a training one (opset 12+: the training_mode input
// true; before opset 7: is_test 0, its default) drops values at random.
void check_inference_dropout(const Graph& graph, const Node& node) {
  if (graph.opset < 7 && attribute_int(node, "is_test", 0) == 0) fail_attribute(node, "is_test", "0");
  if (node.inputs.size() < 3 || node.inputs[2] < 0) return;
  const Value& training_mode = graph.values[node.inputs[2]];
  if (!training_mode.is_constant()) fail(node, "input training_mode must be a constant (false: inference)");
  if (training_mode.constant->size() != 1 || training_mode.constant->at(0) != 0)
    fail(node, "input training_mode is true: a training-mode Dropout is not supported");
}

}  // namespace npuvp::compiler
