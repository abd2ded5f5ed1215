#include <algorithm>

#include "onnx_attributes.h"
#include "passes.h"
#include "pattern_helpers.h"

namespace npuvp::compiler {
namespace {

// The node's reduced axes, normalised to 0 .. rank-1 and sorted (opset 18 moved them
// from the attribute to a constant second input); empty when they are not static.
std::vector<std::int64_t> reduced_axes(const Graph& graph, const Node& node, std::int64_t rank) {
  std::vector<std::int64_t> axes;
  if (graph.opset >= 18) {
    if (node.inputs.size() >= 2 && node.inputs[1] >= 0) {  // without the input: no axes (all, below)
      const Value& v = graph.values[node.inputs[1]];
      if (!v.is_constant() || !v.constant->is_int()) return {};
      axes = v.constant->i;
    }
  } else {
    axes = attribute_ints(node, "axes", {});
  }
  if (axes.empty() && !has_attribute(node, "axes") && attribute_int(node, "noop_with_empty_axes", 0) == 0)
    for (std::int64_t a = 0; a < rank; ++a) axes.push_back(a);  // no axes: all of them
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

// A ReduceMean of an activation over static axes the general way?
bool is_general_mean(const Graph& graph, const Node& node) {
  if (node.removed || node.op() != "ReduceMean" || node.inputs.empty() || node.inputs[0] < 0) return false;
  const Value& x = graph.values[node.inputs[0]];
  if (x.is_constant() || x.shape.empty()) return false;
  const auto axes = reduced_axes(graph, node, std::int64_t(x.shape.size()));
  return !axes.empty() && std::adjacent_find(axes.begin(), axes.end()) == axes.end() && axes.front() >= 0 &&
         axes.back() < std::int64_t(x.shape.size());
}

int shape_constant(Graph& graph, const std::string& name, const Shape& shape) {
  return graph.add_constant(graph.unique_name(name), HostTensor::ints({std::int64_t(shape.size())}, shape));
}

// Any other mean: the reduced axes moved last (a Transpose, unless they are), the tensor
// viewed as [kept, reduced], times a constant column of 1 / reduced on the Cube (f32
// accumulation), the result viewed in the output's shape.
void append_general_mean(Graph& graph, Node& node, std::vector<Node>& result) {
  const int x = node.inputs[0], out = node.outputs[0];
  const Shape in = graph.values[x].shape;
  const auto axes = reduced_axes(graph, node, std::int64_t(in.size()));
  std::vector<std::int64_t> perm;
  std::int64_t kept = 1, reduced = 1;
  for (std::int64_t a = 0; a < std::int64_t(in.size()); ++a)
    if (!std::binary_search(axes.begin(), axes.end(), a)) { perm.push_back(a); kept *= in[a]; }
  for (auto a : axes) { perm.push_back(a); reduced *= in[a]; }
  const std::string name = node.name();
  int moved = x;
  if (!std::is_sorted(perm.begin(), perm.end())) {
    Shape moved_shape;
    for (auto p : perm) moved_shape.push_back(in[p]);
    moved = add_activation(graph, name + "_reduced_last", moved_shape);
    Node transpose = new_node("Transpose", name + "_move_axes", {x}, moved);
    set_attribute_ints(transpose, "perm", perm);
    result.push_back(std::move(transpose));
  }
  const int rows = add_activation(graph, name + "_rows", {kept, reduced});
  result.push_back(new_node("Reshape", name + "_as_rows", {moved, shape_constant(graph, name + "_rows_shape", {kept, reduced})}, rows));
  const int column = graph.add_constant(graph.unique_name(name + "_mean_column"),
                                        HostTensor::floats({reduced, 1}, std::vector<float>(reduced, 1.f / float(reduced))));
  const int means = add_activation(graph, name + "_means", {kept, 1});
  result.push_back(new_node("MatMul", name, {rows, column}, means));
  const Shape out_shape = graph.values[out].shape;
  result.push_back(new_node("Reshape", name + "_as_output", {means, shape_constant(graph, name + "_output_shape", out_shape)}, out));
  node.removed = true;
}

}  // namespace

int reduce_means_to_pools(Graph& graph) {
  // match_layernorms took the ReduceMeans of LayerNorm patterns; a spatial mean becomes
  // a pool, any other one a MatMul.
  std::vector<Node> result;
  int rewritten = 0;
  for (auto& node : graph.nodes) {
    if (!is_spatial_mean(graph, node)) {
      if (is_general_mean(graph, node)) {
        append_general_mean(graph, node, result);
        ++rewritten;
      } else {
        result.push_back(std::move(node));
      }
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
