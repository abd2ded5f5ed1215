#include <map>

#include "op_classes.h"
#include "passes.h"

namespace npuvp::compiler {

bool is_spatial_op(const std::string& op) {
  return op == "Conv" || op == kWindowFold || op == "MaxPool" || op == "AveragePool" || op == "GlobalAveragePool" ||
         op == "GlobalMaxPool" || op == "BatchNormalization";
}

bool is_layout_agnostic_eltwise(const std::string& op) {
  return op == "Relu" || op == "Clip" || op == "Sigmoid" || op == "Tanh" || op == "Erf" || op == "Gelu" ||
         op == "Add" || op == "Sub" || op == "Mul" || op == "Max" || op == "Min" || op == "Div";
}

bool is_view_op(const std::string& op) {
  // Identity: only the one remove_identities keeps, the graph output being the input.
  return op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze" || op == "Identity";
}

namespace {

// A constant operand an NC1HWC0 elementwise op can read: a scalar or a
// per-channel vector ([C,1,1] or [1,C,1,1]) of the output's channel count.
bool channel_constant(const Value& value, const Shape& out) {
  const auto& shape = value.shape;
  if (element_count(shape) == 1) return true;
  if (out.size() != 4) return false;
  Shape padded(4 - std::min<size_t>(4, shape.size()), 1);
  padded.insert(padded.end(), shape.begin(), shape.end());
  return padded.size() == 4 && padded[0] == 1 && padded[1] == out[1] && padded[2] == 1 && padded[3] == 1;
}

Layout wanted_layout(const Graph& graph, const Node& node) {
  const std::string& op = node.op();
  const Value& out = graph.values[node.outputs[0]];
  if (is_spatial_op(op)) {
    // Standalone BN of non-4-D data stays ND (lowered as elementwise).
    return graph.values[node.inputs[0]].shape.size() == 4 ? Layout::NC1HWC0 : Layout::ND;
  }
  if (!is_layout_agnostic_eltwise(op) || out.shape.size() != 4) return Layout::ND;
  bool any_nc1hwc0 = false;
  for (size_t k = 0; k < node.inputs.size(); ++k) {
    const int in = node.inputs[k];
    if (in < 0) continue;
    const Value& value = graph.values[in];
    if (value.is_constant()) {
      if (op == "Clip" && k > 0) continue;  // bounds
      if (!channel_constant(value, out.shape)) return Layout::ND;
      if (op == "Div" && k == 0) return Layout::ND;  // c / x: 0 / 0 in the padded channels
      continue;
    }
    if (value.shape != out.shape) return Layout::ND;
    if (op == "Div" && k == 1) return Layout::ND;
    any_nc1hwc0 = any_nc1hwc0 || value.layout == Layout::NC1HWC0;
  }
  return any_nc1hwc0 ? Layout::NC1HWC0 : Layout::ND;
}

}  // namespace

int assign_layouts(Graph& graph) {
  std::map<std::pair<int, Layout>, int> converted;  // (value, layout) -> converted value
  std::vector<Node> result;
  int conversions = 0;
  auto convert = [&](int id, Layout layout) {
    auto key = std::make_pair(id, layout);
    auto it = converted.find(key);
    if (it != converted.end()) return it->second;
    Value value = graph.values[id];
    value.name = graph.unique_name(value.name + (layout == Layout::ND ? "_nd" : "_5hd"));
    value.layout = layout;
    value.producer = -1;
    value.constant.reset();
    const int out = graph.add_value(std::move(value));
    Node node;
    node.proto.set_op_type(layout == Layout::ND ? kToND : kToNC1HWC0);
    node.proto.set_name(graph.values[out].name);
    node.inputs = {id};
    node.outputs = {out};
    result.push_back(std::move(node));
    ++conversions;
    converted[key] = out;
    return out;
  };
  for (auto& value : graph.values) value.layout = Layout::ND;
  for (auto& node : graph.nodes) {
    const Layout layout = wanted_layout(graph, node);
    for (size_t k = 0; k < node.inputs.size(); ++k) {
      const int in = node.inputs[k];
      if (in < 0 || graph.values[in].is_constant()) continue;
      // Spatial ops read only their data input as a feature map.
      if (is_spatial_op(node.op()) && k > 0) continue;
      if (graph.values[in].layout != layout) node.inputs[k] = convert(in, layout);
    }
    if (node.epilogue.residual >= 0 && graph.values[node.epilogue.residual].layout != layout)
      node.epilogue.residual = convert(node.epilogue.residual, layout);
    for (int out : node.outputs)
      if (out >= 0) graph.values[out].layout = layout;
    result.push_back(std::move(node));
  }
  // The model output is ND in the ONNX shape.
  if (graph.values[graph.output].layout != Layout::ND) {
    const int original = graph.output;
    const int nd = convert(original, Layout::ND);
    std::swap(graph.values[original].name, graph.values[nd].name);
    graph.output = nd;
  }
  graph.nodes = std::move(result);
  graph.compact();
  return conversions;
}

}  // namespace npuvp::compiler
