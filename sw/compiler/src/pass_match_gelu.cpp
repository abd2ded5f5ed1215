#include <cmath>

#include "passes.h"
#include "pattern_helpers.h"

namespace npuvp::compiler {

int match_gelus(Graph& graph) {
  int matched = 0;
  const double inv_sqrt2 = 1 / std::sqrt(2.0);
  for (auto& erf : graph.nodes) {
    if (erf.removed || erf.op() != "Erf") continue;
    // a = x / sqrt 2 (Div) or x * (1 / sqrt 2) (Mul)
    int x = -1;
    Node* scale = producer_of(graph, erf.inputs[0], "Div");
    if (scale && is_scalar(graph, scale->inputs[1], std::sqrt(2.0))) x = scale->inputs[0];
    if (x < 0 && (scale = producer_of(graph, erf.inputs[0], "Mul"))) {
      if (is_scalar(graph, scale->inputs[1], inv_sqrt2)) x = scale->inputs[0];
      else if (is_scalar(graph, scale->inputs[0], inv_sqrt2)) x = scale->inputs[1];
    }
    if (x < 0 || !only_consumer(graph, erf.inputs[0])) continue;
    Node* plus_one = only_consumer(graph, erf.outputs[0]);
    if (!plus_one || plus_one->op() != "Add" || !is_scalar(graph, other_input(*plus_one, erf.outputs[0]), 1.0)) continue;
    Node* product = only_consumer(graph, plus_one->outputs[0]);
    if (!product || product->op() != "Mul") continue;
    const int other = other_input(*product, plus_one->outputs[0]);
    Node* last = nullptr;
    Node* half = nullptr;  // Mul by 0.5 before (of x) or after (of the product)
    if (other == x) {
      Node* after = only_consumer(graph, product->outputs[0]);
      if (after && after->op() == "Mul" && is_scalar(graph, other_input(*after, product->outputs[0]), 0.5)) {
        half = after;
        last = after;
      }
    } else if (Node* before = producer_of(graph, other, "Mul")) {
      const int xx = other_input(*before, x);
      if (xx >= 0 && is_scalar(graph, xx, 0.5) && only_consumer(graph, other)) {
        half = before;
        last = product;
      }
    }
    if (!last) continue;
    const std::string name = scale->name();
    for (Node* n : {scale, &erf, plus_one, product, half}) n->removed = true;
    Node gelu;
    gelu.proto.set_op_type("Gelu");
    gelu.proto.set_name(name);
    gelu.inputs = {x};
    gelu.outputs = {last->outputs[0]};
    gelu.fused_ops = {"(Div+Erf+Add+Mul+Mul)"};
    *last = std::move(gelu);
    ++matched;
  }
  graph.compact();
  return matched;
}

}  // namespace npuvp::compiler
