#include <map>
#include <set>

#include "onnx_attributes.h"
#include "passes.h"
#include "pattern_helpers.h"

namespace npuvp::compiler {
namespace {

bool is_window_op(const std::string& op) {
  return op == "Conv" || op == "MaxPool" || op == "AveragePool" || op == "GlobalAveragePool" || op == "GlobalMaxPool";
}

// Ops that run on [N, C, 1, L] exactly as on [N, C, L] when their tensor inputs do.
bool follows_its_inputs(const std::string& op) {
  static const std::set<std::string> ops = {"Relu", "Clip", "Sigmoid", "Tanh", "Erf", "Gelu", "Exp", "Sqrt",
                                            "Reciprocal", "Neg", "BatchNormalization", "Add", "Sub", "Mul",
                                            "Div", "Max", "Min"};
  return ops.count(op) > 0;
}

Node reshape_node(Graph& graph, const std::string& name, int in, int out) {
  Node node;
  node.proto.set_op_type("Reshape");
  node.proto.set_name(name);
  const Shape& shape = graph.values[out].shape;
  node.inputs = {in, graph.add_constant(graph.unique_name(name + "_shape"),
                                        HostTensor::ints({std::int64_t(shape.size())}, shape))};
  node.outputs = {out};
  return node;
}

Shape with_unit_height(const Shape& s) { return {s[0], s[1], 1, s[2]}; }

// The 2-D form of a 1-D window's attributes: H gets kernel 1, stride 1, no padding.
void widen_attributes(Node& node) {
  auto widen = [&](const char* name, std::int64_t unit) {
    if (!has_attribute(node, name)) return;
    const auto v = attribute_ints(node, name, {});
    if (v.size() == 1) set_attribute_ints(node, name, {unit, v[0]});
  };
  widen("kernel_shape", 1);
  widen("strides", 1);
  widen("dilations", 1);
  if (has_attribute(node, "pads")) {
    const auto p = attribute_ints(node, "pads", {});
    if (p.size() == 2) set_attribute_ints(node, "pads", {0, p[0], 0, p[1]});
  }
}

// A 1-D window op: 3-D activation input (and 3-D constant weights for Conv).
bool is_one_dimensional(const Graph& graph, const Node& node) {
  if (node.removed || !is_window_op(node.op()) || node.inputs.empty() || node.inputs[0] < 0) return false;
  const Value& x = graph.values[node.inputs[0]];
  if (x.is_constant() || x.shape.size() != 3) return false;
  if (node.op() != "Conv") return true;
  if (node.inputs.size() < 2 || node.inputs[1] < 0) return false;
  const Value& w = graph.values[node.inputs[1]];
  return w.is_constant() && w.shape.size() == 3;
}

// An op on 3-D values that can run on their [N, C, 1, L] forms instead: its data input
// is such a value, and every other input is another one or a constant that does not
// broadcast by position (a scalar; BatchNormalization's per-channel parameters; Clip's bounds).
bool can_follow(const Graph& graph, const Node& node, const std::map<int, int>& widened) {
  if (node.removed || !follows_its_inputs(node.op()) || node.inputs.empty() || node.outputs.size() != 1) return false;
  const bool binary = node.op() == "Add" || node.op() == "Sub" || node.op() == "Mul" || node.op() == "Div" ||
                      node.op() == "Max" || node.op() == "Min";
  bool any = false;
  for (size_t k = 0; k < node.inputs.size(); ++k) {
    const int in = node.inputs[k];
    if (in < 0) continue;
    if (widened.count(in)) {
      any = true;
      continue;
    }
    if (!binary && k == 0) return false;
    const Value& v = graph.values[in];
    if (!v.is_constant() || (binary && v.constant->size() != 1)) return false;
  }
  return any;
}

}  // namespace

int convs_1d_as_2d(Graph& graph) {
  std::map<int, int> widened;  // a 3-D value -> its [N, C, 1, L] form
  std::vector<Node> result;
  int rewritten = 0;
  auto widen_output = [&](Node& node, std::vector<Node>& after) {
    const int out = node.outputs[0];
    const int out4 = add_activation(graph, graph.values[out].name + "_2d", with_unit_height(graph.values[out].shape));
    node.outputs[0] = out4;
    widened[out] = out4;
    after.push_back(reshape_node(graph, node.name() + "_to_1d", out4, out));
  };
  for (auto& node : graph.nodes) {
    const bool window = is_one_dimensional(graph, node);
    if (!window && !can_follow(graph, node, widened)) {
      result.push_back(std::move(node));
      continue;
    }
    if (window) {
      const int x = node.inputs[0];
      if (!widened.count(x)) {
        const int x4 = add_activation(graph, graph.values[x].name + "_2d", with_unit_height(graph.values[x].shape));
        result.push_back(reshape_node(graph, node.name() + "_to_2d", x, x4));
        widened[x] = x4;
      }
      if (node.op() == "Conv") {
        const Value& w = graph.values[node.inputs[1]];
        HostTensor w4 = *w.constant;
        w4.shape = with_unit_height(w.shape);
        node.inputs[1] = graph.add_constant(graph.unique_name(w.name + "_2d"), std::move(w4));
      }
      widen_attributes(node);
    }
    for (auto& in : node.inputs)
      if (in >= 0 && widened.count(in)) in = widened[in];
    std::vector<Node> after;
    widen_output(node, after);
    result.push_back(std::move(node));
    for (auto& n : after) result.push_back(std::move(n));
    ++rewritten;
  }
  graph.nodes = std::move(result);
  graph.compact();
  // The Reshapes back to 3-D that nothing reads (the next op took the 2-D form).
  for (auto& node : graph.nodes) {
    if (node.op() != "Reshape" || graph.is_graph_output(node.outputs[0])) continue;
    bool inserted = false;
    for (const auto& [three, four] : widened) inserted = inserted || (node.outputs[0] == three && node.inputs[0] == four);
    if (inserted && graph.consumers(node.outputs[0]).empty()) node.removed = true;
  }
  graph.compact();
  return rewritten;
}

}  // namespace npuvp::compiler
