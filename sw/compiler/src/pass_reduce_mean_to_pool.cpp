#include <algorithm>

#include "onnx_attributes.h"
#include "passes.h"

namespace npuvp::compiler {
namespace {

// The node's reduced axes, normalised to 0 .. rank-1 and sorted (opset 18 moved them
// from the attribute to a constant second input); empty when they are not static.
std::vector<std::int64_t> reduced_axes(const Graph& graph, const Node& node, std::int64_t rank) {
  std::vector<std::int64_t> axes;
  if (graph.opset >= 18) {
    if (node.inputs.size() < 2 || node.inputs[1] < 0) return {};
    const Value& v = graph.values[node.inputs[1]];
    if (!v.is_constant() || !v.constant->is_int()) return {};
    axes = v.constant->i;
  } else {
    axes = attribute_ints(node, "axes", {});
  }
  for (auto& a : axes) a = a < 0 ? a + rank : a;
  std::sort(axes.begin(), axes.end());
  return axes;
}

// ReduceMean of a 4-D map over H and W (x.mean([2, 3]))?
bool is_spatial_mean(const Graph& graph, const Node& node) {
  if (node.removed || node.op() != "ReduceMean" || node.inputs.empty() || node.inputs[0] < 0) return false;
  const Value& x = graph.values[node.inputs[0]];
  if (x.is_constant() || x.shape.size() != 4) return false;
  return reduced_axes(graph, node, 4) == std::vector<std::int64_t>{2, 3};
}

// "2, 3" or "[1]": the axes as the node gives them, for the error.
std::string axes_text(const Graph& graph, const Node& node) {
  const auto rank = std::int64_t(graph.values[node.inputs[0]].shape.size());
  std::string text;
  for (auto a : reduced_axes(graph, node, rank)) text += (text.empty() ? "" : ",") + std::to_string(a);
  return text.empty() ? "all" : text;
}

}  // namespace

int reduce_means_to_pools(Graph& graph) {
  // match_layernorms took the ReduceMeans of LayerNorm patterns: the spatial mean is
  // the only other form the kernels run.
  for (const auto& node : graph.nodes)
    if (!node.removed && node.op() == "ReduceMean" && !is_spatial_mean(graph, node))
      fail(node, "unsupported attribute axes=" + axes_text(graph, node) +
                     " (a ReduceMean runs over H and W of a 4-D map, or in a LayerNorm pattern)");
  std::vector<Node> result;
  int rewritten = 0;
  for (auto& node : graph.nodes) {
    if (!is_spatial_mean(graph, node)) {
      result.push_back(std::move(node));
      continue;
    }
    const bool keepdims = attribute_int(node, "keepdims", 1) != 0;
    const int x = node.inputs[0], out = node.outputs[0];
    node.proto.set_op_type("GlobalAveragePool");
    node.proto.clear_attribute();
    node.inputs = {x};
    ++rewritten;
    if (keepdims) {
      result.push_back(std::move(node));
      continue;
    }
    // [N, C, 1, 1] from the pool, then a view without the 1s as the node's output.
    const Shape& in = graph.values[x].shape;
    Value pooled;
    pooled.name = graph.unique_name(node.name() + "_pooled");
    pooled.shape = {in[0], in[1], 1, 1};
    pooled.shape_known = true;
    const int pooled_id = graph.add_value(std::move(pooled));
    node.outputs = {pooled_id};
    Node view;
    view.proto.set_op_type("Reshape");
    view.proto.set_name(node.name() + "_squeeze");
    const Shape& out_shape = graph.values[out].shape;
    const int target = graph.add_constant(graph.unique_name(node.name() + "_shape"),
                                          HostTensor::ints({std::int64_t(out_shape.size())}, out_shape));
    view.inputs = {pooled_id, target};
    view.outputs = {out};
    result.push_back(std::move(node));
    result.push_back(std::move(view));
  }
  graph.nodes = std::move(result);
  graph.compact();
  return rewritten;
}

}  // namespace npuvp::compiler
