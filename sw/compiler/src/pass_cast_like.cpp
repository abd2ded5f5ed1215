#include "onnx_attributes.h"
#include "passes.h"

namespace npuvp::compiler {

int casts_like_as_casts(Graph& graph) {
  int rewritten = 0;
  for (auto& node : graph.nodes) {
    if (node.removed || node.op() != "CastLike" || node.inputs.size() != 2 || node.inputs[1] < 0) continue;
    // The target's type: a constant's own (integer or float), else an activation's (float).
    const Value& like = graph.values[node.inputs[1]];
    const bool to_int = like.is_constant() && like.constant->is_int();
    node.proto.set_op_type("Cast");
    node.proto.clear_attribute();
    set_attribute_int(node, "to", to_int ? onnx::TensorProto::INT64 : onnx::TensorProto::FLOAT);
    node.inputs.resize(1);
    ++rewritten;
  }
  return rewritten;
}

}  // namespace npuvp::compiler
