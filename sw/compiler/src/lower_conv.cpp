// Conv (dense, grouped, depthwise), standalone BatchNormalization and pooling:
// the NC1HWC0 feature-map kernels.
#include <algorithm>
#include <cmath>

#include "compile_error.h"
#include "conv_window.h"
#include "lowering_context.h"
#include "onnx_attributes.h"
#include "npuvp/conv_plan.h"
#include "npuvp/window_plan.h"

namespace npuvp::compiler {
namespace {

// The window of a Conv / Pool node as the kernels run it; anything else is a CompileError.
Window window_of(const Node& node, const Shape& in, std::int64_t kh, std::int64_t kw, bool pool) {
  if (pool && attribute_int(node, "ceil_mode", 0) != 0) fail_attribute(node, "ceil_mode", "1");
  if (pool && node.op() == "MaxPool" && attribute_int(node, "storage_order", 0) != 0)
    fail_attribute(node, "storage_order", "1");
  const std::string auto_pad = attribute_string(node, "auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "VALID" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER")
    fail_attribute(node, "auto_pad", auto_pad);
  std::string why;
  const std::optional<Window> w = conv_window(node, in, kh, kw, why);
  if (!w) fail(node, why);
  return *w;
}

// NC1HWC0 bytes of the input pixels some window reads (all of them unless the
// stride skips rows or columns): the minimum the layer must load.
std::uint64_t touched_input_bytes(const Shape& in, const Window& w) {
  auto touched = [](std::int64_t size, std::int64_t out, std::int64_t k, std::int64_t stride, std::int64_t dilation,
                    std::int64_t pad) {
    std::vector<bool> used(size, false);
    for (std::int64_t o = 0; o < out; ++o)
      for (std::int64_t i = 0; i < k; ++i) {
        const std::int64_t x = o * stride - pad + i * dilation;
        if (x >= 0 && x < size) used[x] = true;
      }
    return std::int64_t(std::count(used.begin(), used.end(), true));
  };
  const std::int64_t rows = touched(in[2], w.ho, w.kh, w.stride_h, w.dilation_h, w.pad_top);
  const std::int64_t cols = touched(in[3], w.wo, w.kw, w.stride_w, w.dilation_w, w.pad_left);
  return std::uint64_t(in[0] * ceil_div(in[1], 16) * rows * cols * 32);
}

const HostTensor& constant_input(const LoweringContext& context, const Node& node, size_t k, const char* what) {
  if (k >= node.inputs.size() || node.inputs[k] < 0 || !context.value(node.inputs[k]).is_constant())
    fail(node, std::string(what) + " must be a constant (initializer)");
  return *context.value(node.inputs[k]).constant;
}

// The per-output-channel bias: the node's own bias input plus the fused one, f32[padded].
std::vector<float> channel_bias(const LoweringContext& context, const Node& node, int own_input,
                                std::int64_t channels, std::int64_t padded) {
  std::vector<float> bias(padded, 0.f);
  bool any = false;
  auto add = [&](int id) {
    const HostTensor& t = *context.value(id).constant;
    if (t.size() != channels && t.size() != 1) fail(node, "bias of " + std::to_string(t.size()) + " values for " + std::to_string(channels) + " channels");
    for (std::int64_t c = 0; c < channels; ++c) bias[c] += float(t.at(t.size() == 1 ? 0 : c));
    any = true;
  };
  if (own_input >= 0 && own_input < int(node.inputs.size()) && node.inputs[own_input] >= 0) {
    constant_input(context, node, own_input, "the bias");
    add(node.inputs[own_input]);
  }
  if (node.epilogue.bias >= 0) add(node.epilogue.bias);
  if (!any) bias.clear();
  return bias;
}

void set_activation(LoweringContext& context, KernelLaunch& l, const Epilogue& e, int act, int lo, int hi) {
  l.args[act] = LoweringContext::literal(e.activation == Activation::Relu ? NPUVP_ACT_RELU
                                         : e.activation == Activation::Clip ? NPUVP_ACT_CLIP : NPUVP_ACT_NONE);
  l.args[lo] = LoweringContext::literal_float(e.clip_min);
  l.args[hi] = LoweringContext::literal_float(e.clip_max);
}

// ---- Column strips of the window kernels (op_pool, op_dwconv; window_plan.h) -------------

// a / b rounded down and up, for any signs (b > 0).
std::int64_t floor_div_signed(std::int64_t a, std::int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
std::int64_t ceil_div_signed(std::int64_t a, std::int64_t b) { return -floor_div_signed(-a, b); }

// Output columns [out_col, out_col + out_cols) of a window layer, computed from input columns
// [in_col, in_col + in_cols) with pad_left / pad_right padding columns around them.
struct WindowStrip {
  std::int64_t out_col, out_cols, in_col, in_cols, pad_left, pad_right;
};

WindowStrip window_strip(const Window& w, std::int64_t width, std::int64_t out_col, std::int64_t out_cols) {
  const std::int64_t x0 = out_col * w.stride_w - w.pad_left;
  const std::int64_t needed = (out_cols - 1) * w.stride_w + (w.kw - 1) * w.dilation_w + 1;
  const std::int64_t lo = std::max<std::int64_t>(x0, 0), hi = std::min(width - 1, x0 + needed - 1);
  return {out_col, out_cols, lo, hi - lo + 1, lo - x0, needed - (hi - lo + 1) - (lo - x0)};
}

npuvp_window_geometry strip_geometry(const Window& w, const WindowStrip& s) {
  const auto u = [](std::int64_t v) { return std::uint64_t(v); };
  return {u(s.in_cols), u(s.out_cols), u(w.kh), u(w.kw), u(w.stride_h), u(w.stride_w), u(s.pad_left),
          u(w.dilation_h), u(w.dilation_w)};
}

// The strips a window layer runs in: one over every output column when its rows fit `fits` (the
// kernel's UB plan), else the widest strips that all fit, a multiple of 8 columns where one fits (the
// kernels compute output rows 8 pixels at a time), each its own launch. A window that does
// not fit even one output column wide is a compile error naming the node.
template <typename Fits>
std::vector<WindowStrip> window_strips(const Node& node, const Window& w, std::int64_t width, Fits fits,
                                       std::int64_t first_col = 0, std::int64_t end_col = -1) {
  if (end_col < 0) end_col = w.wo;
  const std::int64_t wo = end_col - first_col;  // the output columns [first_col, end_col) to compute
  const WindowStrip whole = window_strip(w, width, first_col, wo);
  if (whole.in_cols >= 1 && fits(strip_geometry(w, whole))) return {whole};
  const auto strips_of = [&](std::int64_t columns) {
    std::vector<WindowStrip> strips;
    for (std::int64_t c0 = first_col; c0 < end_col; c0 += columns)
      strips.push_back(window_strip(w, width, c0, std::min(columns, end_col - c0)));
    return strips;
  };
  const auto all_fit = [&](std::int64_t columns) {
    for (const WindowStrip& s : strips_of(columns))
      if (s.in_cols < 1 || !fits(strip_geometry(w, s))) return false;
    return true;
  };
  for (std::int64_t columns = wo; columns >= 8; columns = (columns - 1) / 8 * 8)  // one strip, then multiples of 8
    if (all_fit(columns)) return strips_of(columns);
  for (std::int64_t columns = std::min<std::int64_t>(wo - 1, 7); columns >= 1; --columns)
    if (all_fit(columns)) return strips_of(columns);
  fail(node, "a " + std::to_string(w.kh) + " x " + std::to_string(w.kw) + " window (stride " +
                 std::to_string(w.stride_h) + " x " + std::to_string(w.stride_w) + ", dilation " +
                 std::to_string(w.dilation_h) + " x " + std::to_string(w.dilation_w) +
                 ") does not fit the window kernels' unified buffer even one output column wide");
}

// Whether a launch over strip s reads the map's rows as the kernels do without the *_ROW_PITCH
// words (its columns are all of them: W and WO). A depthwise kernel's later column groups start
// inside the map and read fewer columns.
bool strip_is_dense(const WindowStrip& s, std::int64_t width, std::int64_t wo) {
  return s.in_col == 0 && s.in_cols == width && s.out_col == 0 && s.out_cols == wo;
}

// "blocks=B", and the strips when there are several.
std::string window_tiling(std::uint32_t blocks, const std::vector<WindowStrip>& strips) {
  std::string text = "blocks=" + std::to_string(blocks);
  if (strips.size() > 1)
    text += " strips=" + std::to_string(strips.size()) + "x" + std::to_string(strips.front().out_cols) + "cols";
  return text;
}

// Kernel columns per op_dwconv launch: all of them when the kernel's taps fit its unified buffer,
// else as many as fit (ceil(KW / that) launches).
std::int64_t depthwise_columns_per_launch(const Node& node, const Window& w) {
  if (npuvp_dwconv_taps_fit(std::uint64_t(w.kh * w.kw))) return w.kw;
  const std::int64_t columns = std::int64_t(npuvp_dwconv_max_taps()) / w.kh;
  if (columns < 1)
    fail(node, "a depthwise kernel of " + std::to_string(w.kh) + " rows: op_dwconv holds at most " +
                   std::to_string(npuvp_dwconv_max_taps()) + " taps, a column of them included");
  return columns;
}

// A depthwise Conv on op_dwconv. A kernel of more taps than its unified buffer holds (RepLKNet's
// 13 x 13, 169) runs in launches over groups of kernel columns, each adding its taps to the
// output so far (the residual word, read in place); a group's window is its columns, its left
// padding the layer's less the columns before it (negative: it starts inside the map, which the
// column strips express). The first launch writes every output column (with the bias and the
// layer's own residual), the last applies the activation to every one; a group whose columns lie
// wholly in the padding for some outputs computes only the others, and where the first or last
// group is such a one, a launch of one zero tap (a column every output reaches) does its part.
std::uint64_t lower_depthwise(LoweringContext& context, const Node& node, const Window& w, const HostTensor& weights,
                              const std::vector<float>& bias) {
  const Shape& in = context.shape(node.inputs[0]);
  const std::int64_t c = in[1], c1 = ceil_div(c, 16), width = in[3];
  const std::int64_t group_columns = depthwise_columns_per_launch(node, w);
  const ArgWord bias_words = bias.empty() ? ArgWord{} : LoweringContext::constant(context.add_f32(bias));
  // The window of kernel columns [j0, j0 + kw) and the output columns it reaches the map for.
  const auto group_window = [&](std::int64_t j0, std::int64_t kw) {
    Window group = w;
    group.kw = kw;
    group.pad_left = w.pad_left - j0 * w.dilation_w;
    return group;
  };
  const auto reached = [&](const Window& group) {
    const std::int64_t reach = (group.kw - 1) * w.dilation_w;  // a window's last column after its first
    return std::pair<std::int64_t, std::int64_t>{
        std::max<std::int64_t>(0, ceil_div_signed(group.pad_left - reach, w.stride_w)),
        std::min<std::int64_t>(w.wo, floor_div_signed(width - 1 + group.pad_left, w.stride_w) + 1)};
  };
  const auto reaches_all = [&](const Window& group) {
    return reached(group) == std::pair<std::int64_t, std::int64_t>{0, w.wo};
  };
  std::uint32_t blocks = 0;
  std::vector<WindowStrip> strips;
  // One group's launches: its columns' weights (zero: a zero tap), `init`: the bias and the
  // layer's residual instead of the output so far, `activate`: the epilogue's activation.
  const auto launch_group = [&](std::int64_t j0, std::int64_t kw, bool zero, bool init, bool activate) {
    const Window group = group_window(j0, kw);
    auto [first_col, end_col] = reached(group);
    if (init || activate) first_col = 0, end_col = w.wo;  // every output column
    if (first_col >= end_col) return;
    strips = window_strips(
        node, group, width, [](const npuvp_window_geometry& g) { return npuvp_dwconv_window_fits(&g) != 0; },
        first_col, end_col);
    std::vector<float> packed(c1 * w.kh * kw * 16, 0.f);
    if (!zero)
      for (std::int64_t ch = 0; ch < c; ++ch)
        for (std::int64_t i = 0; i < w.kh; ++i)
          for (std::int64_t j = 0; j < kw; ++j)
            packed[(((ch / 16) * w.kh + i) * kw + j) * 16 + ch % 16] =
                float(weights.at((ch * w.kh + i) * w.kw + j0 + j));
    const ArgWord weight_words = LoweringContext::constant(context.add_f16(packed));
    for (const WindowStrip& s : strips) {
      auto& l = context.launch(NPUVP_OP_KERNEL_DWCONV, NPUVP_DWCONV_ARG_COUNT,
                               balanced_blocks(context.soc, in[0] * c1 * w.ho));
      blocks = l.blocks;
      l.args[NPUVP_DWCONV_IN] = context.address(node.inputs[0], std::uint64_t(s.in_col * 32));
      l.args[NPUVP_DWCONV_WEIGHTS] = weight_words;
      if (init && !bias.empty()) l.args[NPUVP_DWCONV_BIAS] = bias_words;
      const int residual = init ? node.epilogue.residual : node.outputs[0];  // later launches add to the output
      if (residual >= 0) l.args[NPUVP_DWCONV_RESIDUAL] = context.address(residual, std::uint64_t(s.out_col * 32));
      l.args[NPUVP_DWCONV_OUT] = context.address(node.outputs[0], std::uint64_t(s.out_col * 32));
      const std::int64_t fields[] = {in[0],      c,          in[2],      s.in_cols,   w.kh,
                                     kw,         w.stride_h, w.stride_w, w.pad_top,   w.pad_bottom,
                                     s.pad_left, s.pad_right, w.dilation_h, w.dilation_w};
      for (int k = 0; k < 14; ++k) l.args[NPUVP_DWCONV_N + k] = LoweringContext::literal(std::uint64_t(fields[k]));
      if (activate)
        set_activation(context, l, node.epilogue, NPUVP_DWCONV_ACT, NPUVP_DWCONV_CLIP_MIN, NPUVP_DWCONV_CLIP_MAX);
      else
        l.args[NPUVP_DWCONV_ACT] = LoweringContext::literal(NPUVP_ACT_NONE);
      if (!strip_is_dense(s, width, w.wo)) {  // rows of the whole map in GM
        l.args[NPUVP_DWCONV_IN_ROW_PITCH] = LoweringContext::literal(std::uint64_t(width));
        l.args[NPUVP_DWCONV_OUT_ROW_PITCH] = LoweringContext::literal(std::uint64_t(w.wo));
      }
    }
  };
  if (group_columns >= w.kw) {
    launch_group(0, w.kw, false, true, true);
  } else {
    const std::int64_t last_j0 = (w.kw - 1) / group_columns * group_columns;
    const bool first_reaches = reaches_all(group_window(0, group_columns));
    const bool last_reaches = reaches_all(group_window(last_j0, w.kw - last_j0));
    const bool activation = node.epilogue.activation != Activation::None;
    std::int64_t every = -1;  // a kernel column every output reaches the map with
    for (std::int64_t j = 0; j < w.kw && every < 0; ++j)
      if (reaches_all(group_window(j, 1))) every = j;
    if ((!first_reaches || (!last_reaches && activation)) && every < 0)
      fail(node, "a depthwise kernel of " + std::to_string(w.kh * w.kw) +
                     " taps (more than op_dwconv holds at once) whose padding leaves no column every output reaches");
    if (!first_reaches) launch_group(every, 1, true, true, false);
    for (std::int64_t j0 = 0; j0 < w.kw; j0 += group_columns)
      launch_group(j0, std::min(group_columns, w.kw - j0), false, j0 == 0 && first_reaches,
                   j0 == last_j0 && last_reaches);
    if (!last_reaches && activation) launch_group(every, 1, true, false, true);
  }
  context.layer().tiling = window_tiling(blocks, strips);
  if (group_columns < w.kw) context.layer().tiling += " kernel-columns=" + std::to_string(group_columns);
  return std::uint64_t(in[0] * c * w.ho * w.wo * w.kh * w.kw);
}

// op_conv.c's plan (conv_plan.h) for the launch's blocks, in its NPUVP_CONV_PLAN_* words; a
// layer the kernel cannot run is a compile error here instead of a fault on the AI Core.
void set_conv_plan(const Node& node, KernelLaunch& l, const ConvTiling& tiling, const std::int64_t (&fields)[15],
                   std::uint64_t flags) {
  npuvp_conv_geometry g{};
  std::uint64_t* words[] = {&g.n, &g.cin, &g.h, &g.w, &g.cout, &g.kh, &g.kw, &g.sh, &g.sw,
                            &g.pt, &g.pb, &g.pl, &g.pr, &g.dh, &g.dw};
  for (int k = 0; k < 15; ++k) *words[k] = std::uint64_t(fields[k]);
  npuvp_conv_plan plan{};
  const char* reason = npuvp_conv_plan_make(&g, std::uint64_t(tiling.tile_ho), std::uint64_t(tiling.tile_cout),
                                            l.blocks, flags, &plan);
  std::uint64_t args[NPUVP_CONV_ARG_COUNT] = {};
  if (!reason) reason = npuvp_conv_plan_pack(&plan, args);
  if (reason) fail(node, std::string("the Conv kernel cannot run this layer: ") + reason);
  for (int word : {NPUVP_CONV_PLAN_ROWS, NPUVP_CONV_PLAN_COUT, NPUVP_CONV_PLAN_K, NPUVP_CONV_PLAN_L1})
    l.args[word] = LoweringContext::literal(args[word]);
}

// A Conv whose weights are in DDR is a candidate for pinning them in the L2 buffer when the
// tiling planner models it faster with them there (never with an L2 no faster than the DDR:
// the planner prices the L2 as the DDR then).
void offer_weights_for_pinning(LoweringContext& context, ConvProblem problem, const ConvTiling& in_ddr,
                               std::uint64_t weight_bytes) {
  if (!context.options.pin_weights || problem.weights_in_l2 || context.soc.l2_priced_as_ddr()) return;
  problem.weights_in_l2 = true;
  const ConvTiling in_l2 = plan_conv(context.soc, problem, context.options.double_buffering);
  // The model sees the DDR slow a layer two ways, and the layer gains what the larger saves:
  // its bandwidth (the roofline terms of `cycles`) and the waits of a block's first C tiles for
  // weights (the timeline, which the per-tile overhead of `cycles` can hide: layer1's 3 x 3 of
  // ResNet-50, modelled 37.5 k -> 37.2 k cycles, timeline 37.5 k -> 31.6 k, measured 39.0 k -> 33.5 k).
  const double saved = std::max(in_ddr.cycles - in_l2.cycles, in_ddr.timeline_cycles - in_l2.timeline_cycles);
  if (saved > 0) context.program.pinned_candidates.push_back({context.layer_index(), weight_bytes, saved});
}

}  // namespace

std::uint64_t lower_conv(LoweringContext& context, const Node& node) {
  const Shape& in = context.shape(node.inputs[0]);
  const HostTensor& weights = constant_input(context, node, 1, "the weights");
  if (weights.shape.size() != 4) fail(node, "only 2-D convolutions are supported (weights " + shape_text(weights.shape) + ")");
  const std::int64_t cout = weights.shape[0], cin_g = weights.shape[1], kh = weights.shape[2], kw = weights.shape[3];
  const std::int64_t group = attribute_int(node, "group", 1), cin = in[1];
  if (group < 1 || cin % group || cout % group || cin_g * group != cin)
    fail_attribute(node, "group", std::to_string(group));
  const Window w = window_of(node, in, kh, kw, false);
  const std::int64_t cout16 = ceil_div(cout, 16) * 16;
  const std::int64_t products = node.window_products ? node.window_products : cin_g * kh * kw;
  const std::uint64_t macs = std::uint64_t(in[0] * cout * w.ho * w.wo * products);
  context.set_bytes_read(touched_input_bytes(in, w));
  if (group > 1 && group == cin && cout == cin) {
    return lower_depthwise(context, node, w, weights, channel_bias(context, node, 2, cout, cout16)), macs;
  }
  // Dense (or block-diagonal for groups > 1) GEMM B matrix, Kc x Cout16.
  const std::int64_t c1in = ceil_div(cin, 16), kc = c1in * kh * kw * 16;
  const std::int64_t cout_g = cout / group;
  std::vector<float> b(kc * cout16, 0.f);
  for (std::int64_t co = 0; co < cout; ++co) {
    const std::int64_t g = co / cout_g;
    for (std::int64_t ci = 0; ci < cin_g; ++ci) {
      const std::int64_t c = g * cin_g + ci;
      for (std::int64_t i = 0; i < kh; ++i)
        for (std::int64_t j = 0; j < kw; ++j) {
          const std::int64_t row = (((c / 16) * kh + i) * kw + j) * 16 + c % 16;
          b[row * cout16 + co] = float(weights.at(((co * cin_g + ci) * kh + i) * kw + j));
        }
    }
  }
  ConvProblem problem{in[0], c1in, in[2], in[3], cout, kh, kw, w.ho, w.wo, w.stride_h, w.dilation_h,
                      context.in_l2(node.inputs[0]), context.in_l2(node.outputs[0])};
  problem.weights_in_l2 = context.weights_pinned();
  problem.residual = node.epilogue.residual >= 0;
  const ConvTiling tiling = plan_conv(context.soc, problem, context.options.double_buffering);
  offer_weights_for_pinning(context, problem, tiling, std::uint64_t(b.size()) * 2);
  auto& l = context.launch(NPUVP_OP_KERNEL_CONV, NPUVP_CONV_ARG_COUNT, tiling.blocks);
  const auto bias = channel_bias(context, node, 2, cout, cout16);
  l.args[NPUVP_CONV_IN] = context.address(node.inputs[0]);
  l.args[NPUVP_CONV_WEIGHTS] = context.add_weights_f16(b);
  if (!bias.empty()) l.args[NPUVP_CONV_BIAS] = LoweringContext::constant(context.add_f32(bias));
  if (node.epilogue.residual >= 0) l.args[NPUVP_CONV_RESIDUAL] = context.address(node.epilogue.residual);
  l.args[NPUVP_CONV_OUT] = context.address(node.outputs[0]);
  const std::int64_t fields[] = {in[0], cin, in[2], in[3], cout, kh, kw, w.stride_h, w.stride_w,
                                 w.pad_top, w.pad_bottom, w.pad_left, w.pad_right, w.dilation_h, w.dilation_w};
  for (int k = 0; k < 15; ++k) l.args[NPUVP_CONV_N + k] = LoweringContext::literal(std::uint64_t(fields[k]));
  set_activation(context, l, node.epilogue, NPUVP_CONV_ACT, NPUVP_CONV_CLIP_MIN, NPUVP_CONV_CLIP_MAX);
  l.args[NPUVP_CONV_TILE_HO] = LoweringContext::literal(std::uint64_t(tiling.tile_ho));
  l.args[NPUVP_CONV_TILE_COUT] = LoweringContext::literal(std::uint64_t(tiling.tile_cout));
  const std::uint64_t flags = (context.options.double_buffering ? NPUVP_CONV_FLAG_DOUBLE_BUFFERING : 0) |
                              std::uint64_t(tiling.tall) << NPUVP_CONV_FLAG_TALL_SHIFT |
                              (tiling.whole_l0c ? NPUVP_CONV_FLAG_WHOLE_L0C : 0);
  l.args[NPUVP_CONV_FLAGS] = LoweringContext::literal(flags);
  set_conv_plan(node, l, tiling, fields, flags);
  context.layer().tiling = tiling.text() + (problem.weights_in_l2 ? " weights-in-L2" : "") +
                           (group > 1 ? " block-diagonal groups=" + std::to_string(group) : "");
  return macs;
}

// The selection Conv of fold_conv_windows: a CONV launch that moves data (exact products with
// 1.0), so the layer has no MACs of the model's and its roofline bound is its bytes.
std::uint64_t lower_window_fold(LoweringContext& context, const Node& node) {
  lower_conv(context, node);
  return 0;
}

std::uint64_t lower_batchnorm(LoweringContext& context, const Node& node) {
  const Shape& in = context.shape(node.inputs[0]);
  if (attribute_int(node, "training_mode", 0) != 0) fail_attribute(node, "training_mode", "1");
  const HostTensor& gamma = constant_input(context, node, 1, "scale");
  const HostTensor& beta = constant_input(context, node, 2, "B");
  const HostTensor& mean = constant_input(context, node, 3, "input_mean");
  const HostTensor& var = constant_input(context, node, 4, "input_var");
  const float eps = attribute_float(node, "epsilon", 1e-5f);
  const std::int64_t c = in.size() > 1 ? in[1] : 1;
  std::vector<float> scale(c), shift(c);
  for (std::int64_t k = 0; k < c; ++k) {
    scale[k] = float(gamma.at(k) / std::sqrt(var.at(k) + eps));
    shift[k] = float(beta.at(k) - mean.at(k) * scale[k]);
  }
  if (in.size() == 4) {
    // A 1x1 depthwise conv: y = x * scale + shift per channel.
    HostTensor weights = HostTensor::floats({c, 1, 1, 1}, scale);
    const std::int64_t c16 = ceil_div(c, 16) * 16;
    std::vector<float> bias(c16, 0.f);
    std::copy(shift.begin(), shift.end(), bias.begin());
    Window w{1, 1, 1, 1, 1, 1, 0, 0, 0, 0, in[2], in[3]};
    lower_depthwise(context, node, w, weights, bias);
    return std::uint64_t(element_count(in));
  }
  // Other ranks (N x C x ...): two elementwise launches with per-channel constants.
  Shape channel_shape(in.size(), 1);
  channel_shape[1] = c;
  const auto per_channel = broadcast_strides(channel_shape, in);
  const ArgWord out = context.address(node.outputs[0]);
  context.emit_eltwise(NPUVP_ELT_MUL, out, in, {context.address(node.inputs[0]), dense_strides(in)},
                       {LoweringContext::constant(context.add_f16(scale)), per_channel});
  context.emit_eltwise(NPUVP_ELT_ADD, out, in, {out, dense_strides(in)},
                       {LoweringContext::constant(context.add_f16(shift)), per_channel});
  return 0;
}

std::uint64_t lower_pool(LoweringContext& context, const Node& node) {
  const Shape& in = context.shape(node.inputs[0]);
  const bool global = node.op() == "GlobalAveragePool" || node.op() == "GlobalMaxPool";
  for (size_t k = 1; k < node.outputs.size(); ++k)
    if (node.outputs[k] >= 0 && !context.graph.consumers(node.outputs[k]).empty())
      fail(node, "the Indices output is not supported");
  Window w{};
  if (global) {
    if (in.size() != 4) fail(node, "only 2-D (N x C x H x W) inputs are supported, got " + shape_text(in));
    w = {in[2], in[3], 1, 1, 1, 1, 0, 0, 0, 0, 1, 1};
  } else {
    auto kernel = attribute_ints(node, "kernel_shape", {});
    if (kernel.size() != 2) fail(node, "only 2-D pooling is supported");
    w = window_of(node, in, kernel[0], kernel[1], true);
  }
  context.set_bytes_read(touched_input_bytes(in, w));
  std::uint32_t mode = NPUVP_POOL_MAX;
  if (node.op() == "AveragePool" || node.op() == "GlobalAveragePool")
    mode = attribute_int(node, "count_include_pad", 0) ? NPUVP_POOL_AVERAGE_INCLUDE_PAD : NPUVP_POOL_AVERAGE;
  const std::int64_t c1 = ceil_div(in[1], 16);
  const bool average = mode != NPUVP_POOL_MAX;
  // a global pool streams its planes (op_pool.c): no rows to fit
  const std::vector<WindowStrip> strips =
      global ? std::vector<WindowStrip>{{0, w.wo, 0, in[3], w.pad_left, w.pad_right}}
             : window_strips(node, w, in[3], [average](const npuvp_window_geometry& g) {
                 return npuvp_pool_window_fits(&g, average) != 0;
               });
  std::uint32_t blocks = 0;
  for (const WindowStrip& s : strips) {
    auto& l =
        context.launch(NPUVP_OP_KERNEL_POOL, NPUVP_POOL_ARG_COUNT, balanced_blocks(context.soc, in[0] * c1 * w.ho));
    blocks = l.blocks;
    l.args[NPUVP_POOL_IN] = context.address(node.inputs[0], std::uint64_t(s.in_col * 32));
    l.args[NPUVP_POOL_OUT] = context.address(node.outputs[0], std::uint64_t(s.out_col * 32));
    l.args[NPUVP_POOL_MODE] = LoweringContext::literal(mode);
    const std::int64_t fields[] = {in[0], c1, in[2], s.in_cols, w.ho, s.out_cols, w.kh, w.kw, w.stride_h, w.stride_w,
                                   w.pad_top, s.pad_left, w.dilation_h, w.dilation_w};
    for (int k = 0; k < 14; ++k) l.args[NPUVP_POOL_N + k] = LoweringContext::literal(std::uint64_t(fields[k]));
    if (!strip_is_dense(s, in[3], w.wo)) {  // rows of the whole map in GM
      l.args[NPUVP_POOL_IN_ROW_PITCH] = LoweringContext::literal(std::uint64_t(in[3]));
      l.args[NPUVP_POOL_OUT_ROW_PITCH] = LoweringContext::literal(std::uint64_t(w.wo));
    }
  }
  context.layer().tiling = window_tiling(blocks, strips);
  return 0;
}

}  // namespace npuvp::compiler
