#include "onnx_attributes.h"
#include "passes.h"
#include "pattern_helpers.h"

namespace npuvp::compiler {
namespace {

// ReduceMean over the last axis only, keepdims = 1.
bool reduces_last_axis(const Graph& graph, const Node& node) {
  if (node.op() != "ReduceMean" || attribute_int(node, "keepdims", 1) != 1) return false;
  std::vector<std::int64_t> axes = attribute_ints(node, "axes", {});
  if (node.inputs.size() > 1 && node.inputs[1] >= 0) {
    const Value& v = graph.values[node.inputs[1]];
    if (!v.is_constant()) return false;
    axes.clear();
    for (std::int64_t k = 0; k < v.constant->size(); ++k) axes.push_back(std::int64_t(v.constant->at(k)));
  }
  const auto rank = std::int64_t(graph.values[node.inputs[0]].shape.size());
  return axes.size() == 1 && (axes[0] == -1 || axes[0] == rank - 1);
}

// A constant holding one value per element of the last axis (or a scalar).
bool last_axis_constant(const Graph& graph, int value, std::int64_t cols) {
  if (value < 0 || !graph.values[value].is_constant()) return false;
  const auto& t = *graph.values[value].constant;
  if (t.size() == 1) return true;
  return t.size() == cols && (t.shape.empty() || t.shape.back() == cols);
}

}  // namespace

int match_layernorms(Graph& graph) {
  int matched = 0;
  for (auto& div : graph.nodes) {
    if (div.removed || div.op() != "Div") continue;
    const int d = div.inputs[0];
    Node* sqrt = producer_of(graph, div.inputs[1], "Sqrt");
    Node* add_eps = sqrt ? producer_of(graph, sqrt->inputs[0], "Add") : nullptr;
    if (!add_eps) continue;
    int var = add_eps->inputs[0], eps = add_eps->inputs[1];
    if (graph.values[var].is_constant()) std::swap(var, eps);
    if (!graph.values[eps].is_constant() || graph.values[eps].constant->size() != 1) continue;
    Node* mean_sq = producer_of(graph, var, "ReduceMean");
    if (!mean_sq || !reduces_last_axis(graph, *mean_sq)) continue;
    Node* square = producer_of(graph, mean_sq->inputs[0], "Pow");
    if (square && !is_scalar(graph, square->inputs[1], 2.0)) square = nullptr;
    if (!square) {
      square = producer_of(graph, mean_sq->inputs[0], "Mul");
      if (square && square->inputs[0] != square->inputs[1]) square = nullptr;
    }
    if (!square || square->inputs[0] != d) continue;
    Node* sub = producer_of(graph, d, "Sub");
    if (!sub) continue;
    const int x = sub->inputs[0];
    Node* mean = producer_of(graph, sub->inputs[1], "ReduceMean");
    if (!mean || mean->inputs[0] != x || !reduces_last_axis(graph, *mean)) continue;
    // The intermediates must feed only the pattern.
    if (graph.consumers(d).size() != 2 || !only_consumer(graph, sub->inputs[1]) || !only_consumer(graph, var) ||
        !only_consumer(graph, mean_sq->inputs[0]) || !only_consumer(graph, add_eps->outputs[0]) ||
        !only_consumer(graph, sqrt->outputs[0]))
      continue;
    const std::int64_t cols = graph.values[x].shape.back();
    // Optional affine tail: Mul gamma, Add beta.
    Node* last = &div;
    Node* scale_node = nullptr;
    int gamma = -1, beta = -1;
    if (Node* mul = only_consumer(graph, div.outputs[0]); mul && mul->op() == "Mul") {
      const int g = other_input(*mul, div.outputs[0]);
      if (last_axis_constant(graph, g, cols)) {
        gamma = g;
        last = scale_node = mul;
        if (Node* add = only_consumer(graph, mul->outputs[0]); add && add->op() == "Add") {
          const int b = other_input(*add, mul->outputs[0]);
          if (last_axis_constant(graph, b, cols)) { beta = b; last = add; }
        }
      }
    }
    if (gamma < 0) {
      std::vector<float> ones(cols, 1.f);
      gamma = graph.add_constant(graph.unique_name("layernorm_ones"), HostTensor::floats({cols}, ones));
    }
    const float epsilon = float(graph.values[eps].constant->at(0));
    const std::string name = mean->name();
    for (Node* n : {mean, sub, square, mean_sq, add_eps, sqrt, &div, scale_node})
      if (n) n->removed = true;
    Node layernorm;
    layernorm.proto.set_op_type("LayerNormalization");
    layernorm.proto.set_name(name);
    set_attribute_int(layernorm, "axis", -1);
    set_attribute_float(layernorm, "epsilon", epsilon);
    layernorm.inputs = {x, gamma};
    if (beta >= 0) layernorm.inputs.push_back(beta);
    layernorm.outputs = {last->outputs[0]};
    layernorm.fused_ops = {"(ReduceMean..Div" + std::string(last != &div ? "+Mul" : "") +
                           std::string(beta >= 0 ? "+Add" : "") + ")"};
    last->removed = true;
    *last = std::move(layernorm);  // takes the last node's place in the order
    ++matched;
  }
  graph.compact();
  return matched;
}

}  // namespace npuvp::compiler
