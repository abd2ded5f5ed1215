// A Conv with few input channels wastes most of the Cube: NC1HWC0 pads its C
// channels to 16, and img2col's K has 16 lanes per kernel tap (ResNet-50's stem,
// 3 channels 7 x 7: K = 784 for 147 real products, utilisation <= 0.19). Real
// chips fold kernel taps into the reduction dimension (a small-channel layout
// for the first layer); here the planner's cost model may split such a Conv in two:
//
//   WindowFold: a Conv with 0/1 selection weights, kernel kh x f, stride sh x f,
//               the original pads, that moves the window's kh rows (and f = 1 or
//               the horizontal stride columns) into channels:
//               y[(r * f + t) * C + c, oh, w'] = x[c, oh * sh - pt + r * dh, w' * f + t - pl]
//               (exact: one product with 1.0 per element, accumulated in f32);
//   the Conv:   on that map, kernel 1 x ceil(kw / f), stride 1 x sw / f, the weights
//               rearranged: W'[co, (r * f + t) * C + c, 0, j'] = W[co, c, r, j' * f + t].
//
// Its K is ceil16(C * kh * f) * ceil(kw / f) (the stem with f = 2: 192, utilisation
// <= 0.77). The fold is data movement (the report gives it no MACs). Chosen per
// Conv when the planner's modelled cycles of the two launches, plus one launch's
// fixed cost, beat the Conv's own. docs/compiler.md "Small-channel windows".
#include <algorithm>

#include "compile_error.h"
#include "conv_window.h"
#include "onnx_attributes.h"
#include "op_classes.h"
#include "passes.h"
#include "soc_buffers.h"
#include "tiling_planner.h"

namespace npuvp::compiler {
namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// The window of a Conv as the fold needs it (auto_pad resolved).
struct ConvWindow {
  std::int64_t n, c, h, w, cout, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr, ho, wo;
};

bool window_of_conv(const Graph& graph, const Node& node, ConvWindow& v) {
  if (node.op() != "Conv" || node.inputs.size() < 2 || node.inputs[1] < 0) return false;
  const Value& x = graph.values[node.inputs[0]];
  const Value& weights = graph.values[node.inputs[1]];
  if (!weights.is_constant() || weights.shape.size() != 4 || x.shape.size() != 4) return false;
  if (attribute_int(node, "group", 1) != 1 || weights.shape[1] != x.shape[1]) return false;
  std::string why;
  const std::optional<Window> w = conv_window(node, x.shape, weights.shape[2], weights.shape[3], why);
  if (!w) return false;  // the lowering reports it
  v = {x.shape[0], x.shape[1], x.shape[2], x.shape[3], weights.shape[0], w->kh, w->kw, w->stride_h, w->stride_w,
       w->dilation_h, w->dilation_w, w->pad_top, w->pad_left, w->pad_bottom, w->pad_right, w->ho, w->wo};
  return true;
}

// One way to fold: f columns of the window beside its rows (1, or the horizontal stride).
struct Fold {
  std::int64_t f = 0, channels = 0, kernel_w = 0, fold_pad_right = 0, fold_w = 0;
  double cycles = 0;
};

Fold fold_of(const ConvWindow& v, std::int64_t f) {
  Fold fold;
  fold.f = f;
  fold.channels = v.c * v.kh * f;
  fold.kernel_w = ceil_div(v.kw, f);
  if (f == 1) {
    fold.fold_w = v.w;  // the Conv pads and strides horizontally itself
    return fold;
  }
  // The folded map has the columns the Conv's wo outputs read: w' in [0, wo + kernel_w - 1).
  fold.fold_w = v.wo + fold.kernel_w - 1;
  fold.fold_pad_right = fold.fold_w * f - v.w - v.pl;
  return fold;
}

// The launch's fixed cost the fold adds (dispatch, kernel start, the first load before the
// Cube, the completion): measured 5-7 k AI Core cycles per layer (docs/networks.md).
constexpr double kLaunchCycles = 6000;

// A fold pays for a few channels and a small window; beyond this many folded channels (32
// channel groups) it never would, and its selection weights (channels^2 x f / C values) grow
// quadratically with a tall kernel.
constexpr std::int64_t kMaxFoldedChannels = 512;

double planned_cycles(const SocBuffers& soc, const ConvProblem& p, bool double_buffering) {
  const ConvTiling t = plan_conv(soc, p, double_buffering);
  return t.tile_ho ? t.cycles : -1;
}

// The cheapest fold by the planner's model, or f = 0 when the Conv as it is wins.
Fold choose_fold(const SocBuffers& soc, const ConvWindow& v, bool double_buffering) {
  const std::int64_t c1 = ceil_div(v.c, 16);
  const double as_is =
      planned_cycles(soc, {v.n, c1, v.h, v.w, v.cout, v.kh, v.kw, v.ho, v.wo, v.sh, v.dh}, double_buffering);
  Fold best;
  if (as_is < 0) return best;
  for (const std::int64_t f : {std::int64_t(1), v.sw}) {
    if (f > 1 && v.dw != 1) continue;  // the Conv would need dilated folded columns
    Fold fold = fold_of(v, f);
    if (fold.fold_pad_right < 0 || fold.fold_pad_right > 255 || fold.channels > kMaxFoldedChannels) continue;
    const double fold_cycles = planned_cycles(
        soc, {v.n, c1, v.h, v.w, fold.channels, v.kh, f, v.ho, fold.fold_w, v.sh, v.dh}, double_buffering);
    const double conv_cycles = planned_cycles(soc,
                                              {v.n, ceil_div(fold.channels, 16), v.ho, fold.fold_w, v.cout, 1,
                                               fold.kernel_w, v.ho, v.wo, 1, 1},
                                              double_buffering);
    if (fold_cycles < 0 || conv_cycles < 0) continue;
    fold.cycles = fold_cycles + conv_cycles + kLaunchCycles;
    if (fold.cycles < as_is && (best.f == 0 || fold.cycles < best.cycles)) best = fold;
  }
  return best;
}

// y[(r * f + t) * C + c] = x[c] at kernel row r, column t.
HostTensor selection_weights(const ConvWindow& v, const Fold& fold) {
  std::vector<float> w(std::size_t(fold.channels * v.c * v.kh * fold.f), 0.f);
  for (std::int64_t r = 0; r < v.kh; ++r)
    for (std::int64_t t = 0; t < fold.f; ++t)
      for (std::int64_t c = 0; c < v.c; ++c) {
        const std::int64_t q = (r * fold.f + t) * v.c + c;
        w[std::size_t(((q * v.c + c) * v.kh + r) * fold.f + t)] = 1.f;
      }
  return HostTensor::floats({fold.channels, v.c, v.kh, fold.f}, w);
}

// W'[co, (r * f + t) * C + c, 0, j'] = W[co, c, r, j' * f + t] (0 past the kernel).
HostTensor folded_weights(const HostTensor& weights, const ConvWindow& v, const Fold& fold) {
  std::vector<float> w(std::size_t(v.cout * fold.channels * fold.kernel_w), 0.f);
  for (std::int64_t co = 0; co < v.cout; ++co)
    for (std::int64_t c = 0; c < v.c; ++c)
      for (std::int64_t r = 0; r < v.kh; ++r)
        for (std::int64_t j = 0; j < v.kw; ++j) {
          const std::int64_t q = (r * fold.f + j % fold.f) * v.c + c, jf = j / fold.f;
          w[std::size_t((co * fold.channels + q) * fold.kernel_w + jf)] =
              float(weights.at(((co * v.c + c) * v.kh + r) * v.kw + j));
        }
  return HostTensor::floats({v.cout, fold.channels, 1, fold.kernel_w}, w);
}

Node fold_node(Graph& graph, Node& conv, const ConvWindow& v, const Fold& fold, int folded) {
  Node node;
  node.proto.set_op_type(kWindowFold);
  node.proto.set_name(conv.name() + "_window_fold");
  set_attribute_ints(node, "kernel_shape", {v.kh, fold.f});
  set_attribute_ints(node, "strides", {v.sh, fold.f});
  set_attribute_ints(node, "dilations", {v.dh, 1});
  set_attribute_ints(node, "pads", {v.pt, fold.f == 1 ? 0 : v.pl, v.pb, fold.f == 1 ? 0 : fold.fold_pad_right});
  const int selection = graph.add_constant(graph.unique_name(conv.name() + "_fold_selection"), selection_weights(v, fold));
  node.inputs = {conv.inputs[0], selection};
  node.outputs = {folded};
  return node;
}

void rewrite_conv(Graph& graph, Node& conv, const ConvWindow& v, const Fold& fold, int folded) {
  const Value& weights = graph.values[conv.inputs[1]];
  const std::string name = weights.name;
  conv.inputs[1] = graph.add_constant(graph.unique_name(name + "_folded"), folded_weights(*weights.constant, v, fold));
  conv.inputs[0] = folded;
  conv.window_products = v.c * v.kh * v.kw;
  auto* attributes = conv.proto.mutable_attribute();
  for (int k = attributes->size() - 1; k >= 0; --k)
    if (attributes->Get(k).name() == "auto_pad") attributes->DeleteSubrange(k, 1);
  set_attribute_ints(conv, "kernel_shape", {1, fold.kernel_w});
  set_attribute_ints(conv, "strides", {1, v.sw / fold.f});
  set_attribute_ints(conv, "dilations", {1, fold.f == 1 ? v.dw : 1});
  set_attribute_ints(conv, "pads", {0, fold.f == 1 ? v.pl : 0, 0, fold.f == 1 ? v.pr : 0});
}

}  // namespace

int fold_conv_windows(Graph& graph, const CompileOptions& options) {
  const SocBuffers soc = build_soc_buffers(options.soc);
  std::vector<Node> result;
  result.reserve(graph.nodes.size());
  int folds = 0;
  for (auto& node : graph.nodes) {
    ConvWindow v;
    // Only channels that leave most of a 16-lane group empty can gain (and a window to fold).
    if (node.removed || !window_of_conv(graph, node, v) || v.c >= 16 || v.kh * v.kw == 1) {
      result.push_back(std::move(node));
      continue;
    }
    const Fold fold = choose_fold(soc, v, options.double_buffering);
    if (fold.f == 0) {
      result.push_back(std::move(node));
      continue;
    }
    Value folded;
    folded.name = graph.unique_name(node.name() + "_window");
    folded.shape = {v.n, fold.channels, v.ho, fold.fold_w};
    folded.shape_known = true;
    const int folded_id = graph.add_value(std::move(folded));
    result.push_back(fold_node(graph, node, v, fold, folded_id));
    rewrite_conv(graph, node, v, fold, folded_id);
    result.push_back(std::move(node));
    ++folds;
  }
  graph.nodes = std::move(result);
  graph.compact();
  return folds;
}

}  // namespace npuvp::compiler
