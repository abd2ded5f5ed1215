#include <utility>

#include "onnx_attributes.h"
#include "passes.h"
#include "pattern_helpers.h"

namespace npuvp::compiler {
namespace {

Node transpose_node(const std::string& name, int in, int out, const std::vector<std::int64_t>& perm) {
  Node node;
  node.proto.set_op_type("Transpose");
  node.proto.set_name(name);
  set_attribute_ints(node, "perm", perm);
  node.inputs = {in};
  node.outputs = {out};
  return node;
}

// The axis a Softmax (opset >= 13: one axis) must be moved from, or -1 when the kernel
// runs it as it is (the last axis, or one followed only by 1s).
std::int64_t axis_to_move(const Graph& graph, const Node& node) {
  if (graph.opset < 13 || node.inputs.empty() || node.inputs[0] < 0) return -1;
  const Shape& in = graph.values[node.inputs[0]].shape;
  const auto rank = std::int64_t(in.size());
  std::int64_t axis = attribute_int(node, "axis", -1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return -1;  // the lowering names the attribute
  for (std::int64_t d = axis + 1; d < rank; ++d)
    if (in[d] != 1) return axis;
  return -1;
}

}  // namespace

int move_softmax_axes_last(Graph& graph) {
  std::vector<Node> result;
  int moved = 0;
  for (auto& node : graph.nodes) {
    const std::int64_t axis = node.removed || node.op() != "Softmax" ? -1 : axis_to_move(graph, node);
    if (axis < 0) {
      result.push_back(std::move(node));
      continue;
    }
    const Shape in = graph.values[node.inputs[0]].shape;
    const auto last = std::int64_t(in.size()) - 1;
    std::vector<std::int64_t> perm(in.size());
    for (size_t d = 0; d < perm.size(); ++d) perm[d] = std::int64_t(d);
    std::swap(perm[axis], perm[last]);  // its own inverse
    Shape swapped = in;
    std::swap(swapped[axis], swapped[last]);
    const int x = node.inputs[0], out = node.outputs[0];
    const int moved_in = add_activation(graph, node.name() + "_axis_last", swapped);
    const int moved_out = add_activation(graph, node.name() + "_result", swapped);
    result.push_back(transpose_node(node.name() + "_to_last_axis", x, moved_in, perm));
    node.inputs[0] = moved_in;
    node.outputs[0] = moved_out;
    set_attribute_int(node, "axis", -1);
    const std::string name = node.name();
    result.push_back(std::move(node));
    result.push_back(transpose_node(name + "_from_last_axis", moved_out, out, perm));
    ++moved;
  }
  graph.nodes = std::move(result);
  graph.compact();
  return moved;
}

}  // namespace npuvp::compiler
