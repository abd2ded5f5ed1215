#include <cmath>

#include "onnx_attributes.h"
#include "passes.h"
#include "pattern_helpers.h"

namespace npuvp::compiler {
namespace {

int scalar(Graph& graph, const std::string& name, float value) {
  return graph.add_constant(graph.unique_name(name), HostTensor::floats({}, {value}));
}

// Clip to [lo, hi] in the form the model's opset reads (bounds as inputs from opset 11).
Node clip(Graph& graph, const std::string& name, int in, int out, float lo, float hi) {
  if (graph.opset >= 11)
    return new_node("Clip", name, {in, scalar(graph, name + "_min", lo), scalar(graph, name + "_max", hi)}, out);
  Node node = new_node("Clip", name, {in}, out);
  set_attribute_float(node, "min", lo);
  set_attribute_float(node, "max", hi);
  return node;
}

// clip(alpha x + beta, 0, 1) into `out`.
void hard_sigmoid(Graph& graph, const std::string& name, int x, int out, float alpha, float beta,
                  std::vector<Node>& result) {
  const Shape shape = graph.values[x].shape;  // a copy: adding values may move graph.values
  const int scaled = add_activation(graph, name + "_scaled", shape);
  const int shifted = add_activation(graph, name + "_shifted", shape);
  result.push_back(new_node("Mul", name + "_scale", {x, scalar(graph, name + "_alpha", alpha)}, scaled));
  result.push_back(new_node("Add", name + "_shift", {scaled, scalar(graph, name + "_beta", beta)}, shifted));
  result.push_back(clip(graph, name, shifted, out, 0.f, 1.f));
}

}  // namespace

int decompose_activations(Graph& graph) {
  std::vector<Node> result;
  int decomposed = 0;
  for (auto& node : graph.nodes) {
    const std::string& op = node.op();
    const bool known = op == "HardSigmoid" || op == "HardSwish" || op == "LeakyRelu" || op == "Abs" ||
                       (op == "Gelu" && attribute_string(node, "approximate", "none") == "tanh") ||
                       (op == "PRelu" && node.inputs.size() == 2 && node.inputs[1] >= 0 &&
                        graph.values[node.inputs[1]].is_constant());
    if (node.removed || !known || node.inputs.empty() || node.inputs[0] < 0 || node.outputs.size() != 1 ||
        graph.values[node.inputs[0]].is_constant()) {
      result.push_back(std::move(node));
      continue;
    }
    const int x = node.inputs[0], out = node.outputs[0];
    const std::string name = node.name();
    if (op == "HardSigmoid") {
      hard_sigmoid(graph, name, x, out, attribute_float(node, "alpha", 0.2f), attribute_float(node, "beta", 0.5f), result);
    } else if (op == "HardSwish") {  // x * hard_sigmoid(x) with alpha 1/6, beta 1/2
      const int gate = add_activation(graph, name + "_gate", graph.values[x].shape);
      hard_sigmoid(graph, name + "_gate", x, gate, 1.f / 6.f, 0.5f, result);
      result.push_back(new_node("Mul", name, {x, gate}, out));
    } else if (op == "Abs") {  // max(x, -x)
      const int negated = add_activation(graph, name + "_negated", graph.values[x].shape);
      result.push_back(new_node("Neg", name + "_neg", {x}, negated));
      result.push_back(new_node("Max", name, {x, negated}, out));
    } else if (op == "Gelu") {  // tanh approximation: x / 2 (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))
      const Shape shape = graph.values[x].shape;
      const auto step = [&](const std::string& suffix, const std::string& step_op, std::vector<int> inputs) {
        const int value = add_activation(graph, name + suffix, shape);
        result.push_back(new_node(step_op, name + suffix, std::move(inputs), value));
        return value;
      };
      const int square = step("_square", "Mul", {x, x});
      const int cube = step("_cube", "Mul", {square, x});
      const int cubic = step("_cubic", "Mul", {cube, scalar(graph, name + "_k", 0.044715f)});
      const int inner = step("_inner", "Add", {x, cubic});
      const int scaled = step("_scaled", "Mul", {inner, scalar(graph, name + "_c", float(std::sqrt(2.0 / M_PI)))});
      const int gate = step("_tanh", "Tanh", {scaled});
      const int gate_plus_one = step("_plus_one", "Add", {gate, scalar(graph, name + "_one", 1.f)});
      const int half = step("_half", "Mul", {x, scalar(graph, name + "_half_k", 0.5f)});
      result.push_back(new_node("Mul", name, {half, gate_plus_one}, out));
    } else if (op == "PRelu") {  // relu(x) + slope * min(x, 0), the slope a constant
      const int positive = add_activation(graph, name + "_positive", graph.values[x].shape);
      const int negative = add_activation(graph, name + "_negative", graph.values[x].shape);
      const int scaled = add_activation(graph, name + "_scaled", graph.values[x].shape);
      result.push_back(new_node("Relu", name + "_relu", {x}, positive));
      result.push_back(new_node("Min", name + "_min", {x, scalar(graph, name + "_zero", 0.f)}, negative));
      result.push_back(new_node("Mul", name + "_slope", {negative, node.inputs[1]}, scaled));
      result.push_back(new_node("Add", name, {positive, scaled}, out));
    } else {  // LeakyRelu: max(x, alpha x), or min for alpha > 1
      const float alpha = attribute_float(node, "alpha", 0.01f);
      const int scaled = add_activation(graph, name + "_scaled", graph.values[x].shape);
      result.push_back(new_node("Mul", name + "_scale", {x, scalar(graph, name + "_alpha", alpha)}, scaled));
      result.push_back(new_node(alpha <= 1.f ? "Max" : "Min", name, {x, scaled}, out));
    }
    ++decomposed;
  }
  graph.nodes = std::move(result);
  graph.compact();
  return decomposed;
}

}  // namespace npuvp::compiler
