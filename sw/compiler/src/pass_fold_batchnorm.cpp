#include <cmath>

#include "onnx_attributes.h"
#include "passes.h"
#include "pattern_helpers.h"

namespace npuvp::compiler {
namespace {

bool constant_inputs(const Graph& graph, const Node& node, size_t from) {
  for (size_t k = from; k < node.inputs.size(); ++k)
    if (node.inputs[k] < 0 || !graph.values[node.inputs[k]].is_constant()) return false;
  return node.inputs.size() >= 5;
}

// W'[co] = W[co] * s[co], b'[co] = (b[co] - mean[co]) * s[co] + beta[co], s = gamma / sqrt(var + eps).
void fold_into_conv(Graph& graph, Node& conv, const Node& bn) {
  const auto& w = *graph.values[conv.inputs[1]].constant;
  const auto& gamma = *graph.values[bn.inputs[1]].constant;
  const auto& beta = *graph.values[bn.inputs[2]].constant;
  const auto& mean = *graph.values[bn.inputs[3]].constant;
  const auto& var = *graph.values[bn.inputs[4]].constant;
  const double eps = attribute_float(bn, "epsilon", 1e-5f);
  const std::int64_t cout = w.shape[0], per_channel = w.size() / cout;
  const bool has_bias = conv.inputs.size() > 2 && conv.inputs[2] >= 0;
  std::vector<float> weights(w.size()), bias(cout);
  for (std::int64_t co = 0; co < cout; ++co) {
    const double scale = gamma.at(co) / std::sqrt(var.at(co) + eps);
    for (std::int64_t k = 0; k < per_channel; ++k)
      weights[co * per_channel + k] = float(w.at(co * per_channel + k) * scale);
    const double b = has_bias ? graph.values[conv.inputs[2]].constant->at(co) : 0.0;
    bias[co] = float((b - mean.at(co)) * scale + beta.at(co));
  }
  const std::string name = graph.values[conv.inputs[1]].name;
  conv.inputs[1] = graph.add_constant(graph.unique_name(name + "_bn"), HostTensor::floats(w.shape, weights));
  const int bias_id = graph.add_constant(graph.unique_name(name + "_bn_bias"), HostTensor::floats({cout}, bias));
  if (conv.inputs.size() < 3) conv.inputs.resize(3, -1);
  conv.inputs[2] = bias_id;
}

}  // namespace

int fold_batchnorms(Graph& graph) {
  int folded = 0;
  for (auto& bn : graph.nodes) {
    if (bn.removed || bn.op() != "BatchNormalization" || !constant_inputs(graph, bn, 1)) continue;
    if (attribute_int(bn, "training_mode", 0) != 0) continue;  // lowering names the error
    Node* conv = producer_of(graph, bn.inputs[0], "Conv");
    if (!conv || only_consumer(graph, bn.inputs[0]) != &bn) continue;
    if (conv->inputs.size() < 2 || !graph.values[conv->inputs[1]].is_constant()) continue;
    if (conv->inputs.size() > 2 && conv->inputs[2] >= 0 && !graph.values[conv->inputs[2]].is_constant()) continue;
    fold_into_conv(graph, *conv, bn);
    const int conv_out = conv->outputs[0], bn_out = bn.outputs[0];
    bn.removed = true;
    conv->outputs[0] = bn_out;  // the Conv now produces the BN's output
    graph.values[conv_out].producer = -1;
    ++folded;
  }
  graph.compact();
  return folded;
}

}  // namespace npuvp::compiler
