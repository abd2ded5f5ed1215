#include <cmath>

#include "onnx_attributes.h"
#include "passes.h"
#include "pattern_helpers.h"

namespace npuvp::compiler {
namespace {

bool is_producer_op(const std::string& op) { return op == "Conv" || op == "MatMul" || op == "Gemm"; }

// A constant the kernel can add as a per-output-channel bias: per channel (axis 1)
// for Conv, per column (last axis) for MatMul / Gemm, or a scalar.
bool bias_like(const Graph& graph, const Node& node, int value, const Shape& out) {
  if (value < 0 || !graph.values[value].is_constant()) return false;
  const Shape& s = graph.values[value].shape;
  if (element_count(s) == 1) return true;
  if (s.size() > out.size()) return false;
  const size_t lead = out.size() - s.size();
  const size_t axis = node.op() == "Conv" ? 1 : out.size() - 1;
  for (size_t d = 0; d < s.size(); ++d)
    if (s[d] != (d + lead == axis ? out[axis] : 1)) return false;
  return true;
}

bool defined_before(const Graph& graph, int value, int node_index) {
  return graph.values[value].producer < node_index;  // graph input: -1
}

// Moves the consumer's output onto the producer and drops the consumer.
void absorb(Graph& graph, int producer_index, Node& consumer) {
  Node& node = graph.nodes[producer_index];
  node.fused_ops.push_back(consumer.op());
  node.outputs[0] = consumer.outputs[0];
  graph.values[node.outputs[0]].producer = producer_index;
  consumer.removed = true;
}

bool try_fuse_one(Graph& graph, int index) {
  Node& node = graph.nodes[index];
  const int out = node.outputs[0];
  Node* next = only_consumer(graph, out);
  if (!next) return false;
  Epilogue& e = node.epilogue;
  const Shape& shape = graph.values[out].shape;
  const std::string& op = next->op();
  const bool before_activation = e.activation == Activation::None;
  if (op == "Add" && before_activation) {
    const int other = other_input(*next, out);
    if (other < 0 || graph.values[next->outputs[0]].shape != shape) return false;
    if (graph.values[other].is_constant()) {
      if (!bias_like(graph, node, other, shape)) return false;
      if (e.bias >= 0) {
        // Two constant biases: add them on the host.
        const auto& a = *graph.values[e.bias].constant;
        const auto& b = *graph.values[other].constant;
        if (a.size() != b.size() && a.size() != 1 && b.size() != 1) return false;
        const std::int64_t n = std::max(a.size(), b.size());
        std::vector<float> sum(n);
        for (std::int64_t k = 0; k < n; ++k) sum[k] = float(a.at(a.size() == 1 ? 0 : k) + b.at(b.size() == 1 ? 0 : k));
        e.bias = graph.add_constant(graph.unique_name("fused_bias"), HostTensor::floats({n}, sum));
      } else {
        e.bias = other;
      }
    } else {
      if (e.residual >= 0 || graph.values[other].shape != shape || !defined_before(graph, other, index)) return false;
      e.residual = other;
    }
    absorb(graph, index, *next);
    return true;
  }
  if (op == "Relu" && before_activation) {
    e.activation = Activation::Relu;
    absorb(graph, index, *next);
    return true;
  }
  if (op == "Clip" && before_activation) {
    float lo = -INFINITY, hi = INFINITY;
    if (graph.opset >= 11) {
      for (size_t k = 1; k < next->inputs.size(); ++k) {
        const int id = next->inputs[k];
        if (id < 0) continue;
        if (!graph.values[id].is_constant() || graph.values[id].constant->size() != 1) return false;
        (k == 1 ? lo : hi) = float(graph.values[id].constant->at(0));
      }
    } else {
      lo = attribute_float(*next, "min", lo);
      hi = attribute_float(*next, "max", hi);
    }
    e.activation = Activation::Clip;
    e.clip_min = lo;
    e.clip_max = hi;
    absorb(graph, index, *next);
    return true;
  }
  // A scalar scale of a product, before anything is added: ALPHA.
  if ((op == "Mul" || op == "Div") && node.op() != "Conv" && before_activation && e.bias < 0 && e.residual < 0 &&
      !(node.inputs.size() > 2 && node.inputs[2] >= 0)) {
    const int other = other_input(*next, out);
    if (other < 0 || !graph.values[other].is_constant() || graph.values[other].constant->size() != 1) return false;
    if (op == "Div" && next->inputs[1] != other) return false;
    const double s = graph.values[other].constant->at(0);
    if (op == "Div" && s == 0) return false;
    e.alpha *= float(op == "Mul" ? s : 1.0 / s);
    absorb(graph, index, *next);
    return true;
  }
  return false;
}

// MatMul(s * a, b) = s * MatMul(a, b): a scalar Mul / Div of an operand becomes ALPHA.
bool fuse_operand_scale(Graph& graph, Node& matmul) {
  for (int k = 0; k < 2; ++k) {
    const int operand = matmul.inputs[k];
    Node* scale = producer_of(graph, operand, "Mul");
    if (!scale) scale = producer_of(graph, operand, "Div");
    if (!scale || only_consumer(graph, operand) != &matmul) continue;
    int x = scale->inputs[0], s = scale->inputs[1];
    if (scale->op() == "Mul" && graph.values[x].is_constant()) std::swap(x, s);
    if (graph.values[x].is_constant() || !graph.values[s].is_constant() || graph.values[s].constant->size() != 1) continue;
    const double value = graph.values[s].constant->at(0);
    if (scale->op() == "Div" && value == 0) continue;
    matmul.epilogue.alpha *= float(scale->op() == "Mul" ? value : 1.0 / value);
    matmul.inputs[k] = x;
    matmul.fused_ops.insert(matmul.fused_ops.begin(), scale->op());
    scale->removed = true;
    return true;
  }
  return false;
}

// LayerNormalization(a + b) reads a and adds b as its residual.
bool fuse_layernorm_residual(Graph& graph, Node& layernorm) {
  Node* add = producer_of(graph, layernorm.inputs[0], "Add");
  if (!add || !only_consumer(graph, layernorm.inputs[0]) || layernorm.epilogue.residual >= 0) return false;
  const int a = add->inputs[0], b = add->inputs[1];
  const Shape& shape = graph.values[layernorm.inputs[0]].shape;
  if (graph.values[a].is_constant() || graph.values[b].is_constant()) return false;
  if (graph.values[a].shape != shape || graph.values[b].shape != shape) return false;
  layernorm.inputs[0] = a;
  layernorm.epilogue.residual = b;
  layernorm.fused_ops.insert(layernorm.fused_ops.begin(), "Add");
  add->removed = true;
  return true;
}

}  // namespace

int fuse_epilogues(Graph& graph) {
  int fused = 0;
  for (int index = 0; index < int(graph.nodes.size()); ++index) {
    Node& node = graph.nodes[index];
    if (node.removed) continue;
    if (node.op() == "LayerNormalization" && fuse_layernorm_residual(graph, node)) ++fused;
    if (node.op() == "MatMul")
      while (fuse_operand_scale(graph, node)) ++fused;
    if (!is_producer_op(node.op())) continue;
    while (try_fuse_one(graph, index)) ++fused;
  }
  graph.compact();
  return fused;
}

}  // namespace npuvp::compiler
