// End-to-end numerics of compiled packages: small ONNX graphs compiled, run on
// the host emulator of the kernel contract (compiler_package_emulator.h), and
// compared with plain f32 references (compiler_reference_ops.h).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "compiler_package_emulator.h"
#include "compiler_reference_ops.h"
#include "compiler_test_support.h"

namespace npuvp::compiler::test {
namespace {

using ref::Tensor;

void expect_close(const std::vector<float>& got, const Tensor& expected, double tolerance = 2e-2) {
  expect_close_to_reference(got, expected, tolerance);
}

// An N x C x H x W tensor with zero rows and columns added around each map (the reference
// convolution then runs without pads).
Tensor zero_padded(const Tensor& x, std::int64_t top, std::int64_t left, std::int64_t bottom, std::int64_t right) {
  const std::int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], w = x.shape[3];
  const std::int64_t ph = h + top + bottom, pw = w + left + right;
  Tensor padded{{n, c, ph, pw}, std::vector<float>(std::size_t(n * c * ph * pw), 0.f)};
  for (std::int64_t i = 0; i < n * c; ++i)
    for (std::int64_t y = 0; y < h; ++y)
      for (std::int64_t z = 0; z < w; ++z)
        padded.data[std::size_t((i * ph + y + top) * pw + z + left)] = x.data[std::size_t((i * h + y) * w + z)];
  return padded;
}

// The graph compiled for HBM-class memory (512 GB/s: with the default DDR a small-channel stem is
// memory-bound and the fold's extra traffic would cost more than the Cube time it saves),
// expecting fold_conv_windows to have split one Conv.
CompiledModel compile_with_one_window_fold(const OnnxBuilder& b) {
  CompileOptions hbm;
  hbm.soc.ddr_bytes_per_second = hbm.soc.l2_bytes_per_second = 512e9;
  CompiledModel model = compile_onnx_bytes(b.bytes(), hbm);
  int folds = 0;
  for (const auto& layer : model.layers) folds += layer.op == "WindowFold";
  EXPECT_EQ(folds, 1);
  return model;
}

std::vector<float> compile_and_run(const OnnxBuilder& b, const std::vector<float>& input, CompileOptions options = {}) {
  const CompiledModel model = compile_onnx_bytes(b.bytes(), options);
  PackageEmulator emulator(model.package);
  return emulator.run(input);
}

TEST(CompilerNumerics, LeNetClass) {
  OnnxBuilder b;
  b.input("x", {1, 1, 28, 28});
  auto w1 = b.random_constant("w1", {6, 1, 5, 5}, 0.4f), b1 = b.random_constant("b1", {6}, 0.1f);
  auto w2 = b.random_constant("w2", {16, 6, 5, 5}, 0.15f), b2 = b.random_constant("b2", {16}, 0.1f);
  auto f1 = b.random_constant("f1", {120, 400}, 0.08f), fb1 = b.random_constant("fb1", {120}, 0.1f);
  auto f2 = b.random_constant("f2", {10, 120}, 0.15f), fb2 = b.random_constant("fb2", {10}, 0.1f);
  auto& c1 = b.node("Conv", {"x", "w1", "b1"}, {"c1"}, "conv1");
  OnnxBuilder::attr(c1, "pads", Dims{2, 2, 2, 2});
  b.node("Relu", {"c1"}, {"r1"});
  auto& p1 = b.node("MaxPool", {"r1"}, {"p1"}, "pool1");
  OnnxBuilder::attr(p1, "kernel_shape", Dims{2, 2});
  OnnxBuilder::attr(p1, "strides", Dims{2, 2});
  b.node("Conv", {"p1", "w2", "b2"}, {"c2"}, "conv2");
  b.node("Relu", {"c2"}, {"r2"});
  auto& p2 = b.node("MaxPool", {"r2"}, {"p2"}, "pool2");
  OnnxBuilder::attr(p2, "kernel_shape", Dims{2, 2});
  OnnxBuilder::attr(p2, "strides", Dims{2, 2});
  b.node("Flatten", {"p2"}, {"flat"});
  auto& g1 = b.node("Gemm", {"flat", "f1", "fb1"}, {"g1"}, "fc1");
  OnnxBuilder::attr(g1, "transB", std::int64_t(1));
  b.node("Relu", {"g1"}, {"h1"});
  auto& g2 = b.node("Gemm", {"h1", "f2", "fb2"}, {"y"}, "fc2");
  OnnxBuilder::attr(g2, "transB", std::int64_t(1));
  b.output("y", {1, 10});
  const auto x = b.random({1, 1, 28, 28});

  auto relu = [](float v) { return std::max(v, 0.f); };
  Tensor t{{1, 1, 28, 28}, x};
  t = ref::pool2d(ref::map(ref::conv2d(t, w1, b1, 6, 5, 5, 1, 2), relu), 2, 2, 0, true);
  t = ref::pool2d(ref::map(ref::conv2d(t, w2, b2, 16, 5, 5, 1, 0), relu), 2, 2, 0, true);
  t.shape = {1, 400};
  auto transposed = [](const std::vector<float>& w, std::int64_t rows, std::int64_t cols) {
    std::vector<float> r(w.size());
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < cols; ++j) r[j * rows + i] = w[i * cols + j];
    return r;
  };
  t = ref::map(ref::matmul(t, transposed(f1, 120, 400), 120, fb1), relu);
  t = ref::matmul(t, transposed(f2, 10, 120), 10, fb2);
  expect_close(compile_and_run(b, x), t);
  CompileOptions serial;
  serial.double_buffering = false;
  serial.soc.ai_cores = 8;
  expect_close(compile_and_run(b, x, serial), t);
}

// Few input channels: fold_conv_windows splits the Conv into a WindowFold (kernel rows, and a
// stride's columns, moved into channels) and a Conv with a 1-row kernel when the planner's model
// says so: ResNet's 7x7 stride-2 stem (columns folded too, f = 2) and a 9x9 stride-2 window with
// dilation 2 on one channel (rows only, f = 1). The pair must compute the same Conv.
TEST(CompilerNumerics, SmallChannelConvWindowsFoldIntoChannels) {
  struct Case {
    std::int64_t c, h, cout, k, stride, pad, dilation;
  };
  // With HBM-class memory (docs/networks.md): with the default DDR these layers are
  // memory-bound and the fold's extra traffic would cost more than the Cube time it saves.
  CompileOptions hbm;
  hbm.soc.ddr_bytes_per_second = hbm.soc.l2_bytes_per_second = 512e9;
  for (const Case& k : {Case{3, 128, 64, 7, 2, 3, 1}, Case{1, 128, 64, 9, 2, 8, 2}}) {
    SCOPED_TRACE(std::to_string(k.c) + " channels, " + std::to_string(k.k) + "x" + std::to_string(k.k));
    OnnxBuilder b;
    b.input("x", {1, k.c, k.h, k.h});
    auto w = b.random_constant("w", {k.cout, k.c, k.k, k.k}, 0.2f), bias = b.random_constant("b", {k.cout}, 0.1f);
    auto& conv = b.node("Conv", {"x", "w", "b"}, {"c"}, "stem");
    OnnxBuilder::attr(conv, "strides", Dims{k.stride, k.stride});
    OnnxBuilder::attr(conv, "pads", Dims{k.pad, k.pad, k.pad, k.pad});
    OnnxBuilder::attr(conv, "dilations", Dims{k.dilation, k.dilation});
    b.node("Relu", {"c"}, {"y"});
    const std::int64_t ho = (k.h + 2 * k.pad - k.dilation * (k.k - 1) - 1) / k.stride + 1;
    b.output("y", {1, k.cout, ho, ho});
    const auto x = b.random({1, k.c, k.h, k.h});

    const CompiledModel model = compile_onnx_bytes(b.bytes(), hbm);
    int folds = 0;
    for (const auto& layer : model.layers) folds += layer.op == "WindowFold";
    EXPECT_EQ(folds, 1);
    // The Conv still reports the model's MACs (not the folded weights' zero taps).
    for (const auto& layer : model.layers) {
      if (layer.op == "Conv+Relu") {
        EXPECT_EQ(layer.macs, std::uint64_t(k.cout * ho * ho * k.c * k.k * k.k));
      }
    }
    const Tensor expected = ref::map(ref::conv2d({{1, k.c, k.h, k.h}, x}, w, bias, k.cout, k.k, k.k, k.stride, k.pad,
                                                 1, k.dilation),
                                     [](float v) { return std::max(v, 0.f); });
    PackageEmulator emulator(model.package);
    expect_close(emulator.run(x), expected);
  }
}

// The fold with two images and asymmetric pads (top 3, left 2, bottom 1, right 4; stride 2): the
// folded map's rows come from the top and bottom pads and its columns from the left pad and the
// right pad the fold computes. Against the reference on the input padded by hand.
TEST(CompilerNumerics, SmallChannelConvFoldWithAsymmetricPadsAndTwoImages) {
  const std::int64_t n = 2, c = 3, h = 128, w = 120, cout = 64, k = 7;
  const std::int64_t pt = 3, pl = 2, pb = 1, pr = 4;
  OnnxBuilder b;
  b.input("x", {n, c, h, w});
  auto weights = b.random_constant("w", {cout, c, k, k}, 0.2f);
  auto& conv = b.node("Conv", {"x", "w"}, {"y"}, "stem");
  OnnxBuilder::attr(conv, "strides", Dims{2, 2});
  OnnxBuilder::attr(conv, "pads", Dims{pt, pl, pb, pr});
  const std::int64_t ho = (h + pt + pb - k) / 2 + 1, wo = (w + pl + pr - k) / 2 + 1;
  b.output("y", {n, cout, ho, wo});
  const auto x = b.random({n, c, h, w});
  const CompiledModel model = compile_with_one_window_fold(b);
  PackageEmulator emulator(model.package);
  expect_close(emulator.run(x), ref::conv2d(zero_padded({{n, c, h, w}, x}, pt, pl, pb, pr), weights, {}, cout, k, k, 2, 0));
}

// A stem written with auto_pad SAME_UPPER / SAME_LOWER (no pads attribute) folds like one with
// explicit pads (the same window reading as the lowering's, conv_window.h): 128 / 2 outputs
// need 5 rows of padding, 2 before and 3 after (UPPER) or 3 before and 2 after (LOWER).
TEST(CompilerNumerics, SmallChannelConvFoldWithSamePads) {
  const std::int64_t c = 3, h = 128, cout = 64, k = 7, ho = h / 2;
  for (const std::string auto_pad : {"SAME_UPPER", "SAME_LOWER"}) {
    SCOPED_TRACE(auto_pad);
    const std::int64_t before = auto_pad == "SAME_UPPER" ? 2 : 3, after = 5 - before;
    OnnxBuilder b;
    b.input("x", {1, c, h, h});
    auto weights = b.random_constant("w", {cout, c, k, k}, 0.2f);
    auto& conv = b.node("Conv", {"x", "w"}, {"y"}, "stem");
    OnnxBuilder::attr(conv, "strides", Dims{2, 2});
    OnnxBuilder::attr(conv, "auto_pad", auto_pad);
    b.output("y", {1, cout, ho, ho});
    const auto x = b.random({1, c, h, h});
    const CompiledModel model = compile_with_one_window_fold(b);
    PackageEmulator emulator(model.package);
    const Tensor padded = zero_padded({{1, c, h, h}, x}, before, before, after, after);
    expect_close(emulator.run(x), ref::conv2d(padded, weights, {}, cout, k, k, 2, 0));
  }
}

// Conv-BN-Relu-Conv-BN + identity, Relu, GlobalAveragePool, Flatten, Gemm; 20 channels (padded C1).
TEST(CompilerNumerics, ResidualBlockWithBatchNorm) {
  OnnxBuilder b;
  const std::int64_t c = 20;
  b.input("x", {1, c, 9, 9});
  auto w1 = b.random_constant("w1", {c, c, 3, 3}, 0.1f), w2 = b.random_constant("w2", {c, c, 3, 3}, 0.1f);
  std::vector<std::vector<float>> bn(8);
  const char* names[] = {"g1", "be1", "m1", "v1", "g2", "be2", "m2", "v2"};
  for (int k = 0; k < 8; ++k) {
    bn[k] = b.random({c}, 0.5f);
    if (k % 4 == 0 || k % 4 == 3) for (auto& v : bn[k]) v = 1.f + v * 0.5f;  // scale, variance > 0
    b.constant(names[k], {c}, bn[k]);
  }
  auto fw = b.random_constant("fw", {c, 7}, 0.3f);
  auto& c1 = b.node("Conv", {"x", "w1"}, {"c1"}, "conv1");
  OnnxBuilder::attr(c1, "pads", Dims{1, 1, 1, 1});
  b.node("BatchNormalization", {"c1", "g1", "be1", "m1", "v1"}, {"n1"}, "bn1");
  b.node("Relu", {"n1"}, {"r1"});
  auto& c2 = b.node("Conv", {"r1", "w2"}, {"c2"}, "conv2");
  OnnxBuilder::attr(c2, "pads", Dims{1, 1, 1, 1});
  b.node("BatchNormalization", {"c2", "g2", "be2", "m2", "v2"}, {"n2"}, "bn2");
  b.node("Add", {"n2", "x"}, {"s"}, "residual");
  b.node("Relu", {"s"}, {"r2"});
  b.node("GlobalAveragePool", {"r2"}, {"gap"});
  b.node("Flatten", {"gap"}, {"flat"});
  b.node("MatMul", {"flat", "fw"}, {"y"}, "fc");
  b.output("y", {1, 7});
  const auto x = b.random({1, c, 9, 9});

  auto batchnorm = [&](const Tensor& t, int k) {
    std::vector<float> scale(c), shift(c);
    for (std::int64_t ch = 0; ch < c; ++ch) {
      scale[ch] = bn[k][ch] / std::sqrt(bn[k + 3][ch] + 1e-5f);
      shift[ch] = bn[k + 1][ch] - bn[k + 2][ch] * scale[ch];
    }
    return ref::channel_affine(t, scale, shift);
  };
  auto relu = [](float v) { return std::max(v, 0.f); };
  Tensor in{{1, c, 9, 9}, x};
  Tensor t = ref::map(batchnorm(ref::conv2d(in, w1, {}, c, 3, 3, 1, 1), 0), relu);
  t = batchnorm(ref::conv2d(t, w2, {}, c, 3, 3, 1, 1), 4);
  t = ref::map(ref::zip(t, in, [](float a, float b) { return a + b; }), relu);
  t = ref::global_average(t);
  t.shape = {1, c};
  t = ref::matmul(t, fw, 7);
  const CompiledModel model = compile_onnx_bytes(b.bytes(), {});
  // BN folded, Add + Relu fused: conv1, conv2 (+Add+Relu), pool, fc and two layout conversions.
  ASSERT_EQ(model.layers.size(), 6u);
  EXPECT_EQ(model.layers[2].op, "Conv+Add+Relu");
  EXPECT_EQ(model.layout_conversions, 2u);
  expect_close(PackageEmulator(model.package).run(x), t);
}

// A classifier head over 32 channels: the pooled N x 32 x 1 x 1 features are the same bytes in
// NC1HWC0 and ND, so the conversion before the MatMul is a view, not a launch; two images.
TEST(CompilerNumerics, PooledFeaturesReachTheClassifierWithoutAConversion) {
  const std::int64_t c = 32;
  OnnxBuilder b;
  b.input("x", {2, c, 5, 6});
  auto fw = b.random_constant("fw", {c, 7}, 0.3f);
  b.node("Relu", {"x"}, {"r"});
  b.node("GlobalAveragePool", {"r"}, {"gap"});
  b.node("Flatten", {"gap"}, {"flat"});
  b.node("MatMul", {"flat", "fw"}, {"y"}, "fc");
  b.output("y", {2, 7});
  const auto x = b.random({2, c, 5, 6});
  Tensor t = ref::global_average(ref::map(Tensor{{2, c, 5, 6}, x}, [](float v) { return std::max(v, 0.f); }));
  t.shape = {2, c};
  t = ref::matmul(t, fw, 7);
  const CompiledModel model = compile_onnx_bytes(b.bytes(), {});
  EXPECT_EQ(model.layout_conversions, 1u);  // the input's only
  for (const auto& layer : model.layers) EXPECT_NE(layer.op, "ToND") << layer.name;
  expect_close(PackageEmulator(model.package).run(x), t);
}

// MobileNet-style: 1x1 expansion + BN + ReLU6, depthwise 3x3 stride 2 + ReLU6,
// grouped conv (groups 2), average pool with padding, standalone BN, Sigmoid.
TEST(CompilerNumerics, DepthwiseGroupedPoolsAndStandaloneBatchNorm) {
  OnnxBuilder b;
  b.input("x", {1, 8, 10, 10});
  auto we = b.random_constant("we", {24, 8, 1, 1}, 0.3f);
  auto wd = b.random_constant("wd", {24, 1, 3, 3}, 0.3f), bd = b.random_constant("bd", {24}, 0.1f);
  auto wg = b.random_constant("wg", {18, 12, 3, 3}, 0.1f);
  std::vector<float> gamma(18, 1.5f), beta(18, 0.25f), mean(18, 0.1f), var(18, 2.f);
  b.constant("six", {}, {6.f});
  b.constant("zero", {}, {0.f});
  b.constant("g", {18}, gamma); b.constant("be", {18}, beta); b.constant("m", {18}, mean); b.constant("v", {18}, var);
  b.node("Conv", {"x", "we"}, {"e"}, "expand");
  b.node("Clip", {"e", "zero", "six"}, {"e6"}, "relu6a");
  auto& d = b.node("Conv", {"e6", "wd", "bd"}, {"dw"}, "depthwise");
  OnnxBuilder::attr(d, "group", std::int64_t(24));
  OnnxBuilder::attr(d, "strides", Dims{2, 2});
  OnnxBuilder::attr(d, "pads", Dims{1, 1, 1, 1});
  b.node("Clip", {"dw", "zero", "six"}, {"d6"}, "relu6b");
  auto& g = b.node("Conv", {"d6", "wg"}, {"gc"}, "grouped");
  OnnxBuilder::attr(g, "group", std::int64_t(2));
  OnnxBuilder::attr(g, "pads", Dims{1, 1, 1, 1});
  auto& ap = b.node("AveragePool", {"gc"}, {"ap"}, "avg");
  OnnxBuilder::attr(ap, "kernel_shape", Dims{3, 3});
  OnnxBuilder::attr(ap, "strides", Dims{2, 2});
  OnnxBuilder::attr(ap, "pads", Dims{1, 1, 1, 1});
  b.node("BatchNormalization", {"ap", "g", "be", "m", "v"}, {"bn"}, "bn");
  b.node("Sigmoid", {"bn"}, {"y"}, "sig");
  b.output("y", {1, 18, 3, 3});
  const auto x = b.random({1, 8, 10, 10});

  auto relu6 = [](float v) { return std::min(std::max(v, 0.f), 6.f); };
  Tensor t{{1, 8, 10, 10}, x};
  t = ref::map(ref::conv2d(t, we, {}, 24, 1, 1, 1, 0), relu6);
  t = ref::map(ref::conv2d(t, wd, bd, 24, 3, 3, 2, 1, 24), relu6);
  t = ref::conv2d(t, wg, {}, 18, 3, 3, 1, 1, 2);
  t = ref::pool2d(t, 3, 2, 1, false);
  std::vector<float> scale(18), shift(18);
  for (int k = 0; k < 18; ++k) { scale[k] = gamma[k] / std::sqrt(var[k] + 1e-5f); shift[k] = beta[k] - mean[k] * scale[k]; }
  t = ref::map(ref::channel_affine(t, scale, shift), [](float v) { return 1 / (1 + std::exp(-v)); });
  const CompiledModel model = compile_onnx_bytes(b.bytes(), {});
  PackageView view(model.package);
  EXPECT_EQ(view.launches_of(NPUVP_OP_KERNEL_DWCONV).size(), 2u);  // depthwise and the standalone BN
  EXPECT_EQ(model.layout_conversions, 2u);                          // in and out only
  expect_close(PackageEmulator(model.package).run(x), t);
}

// ceil_mode = 1 (SqueezeNet's and GoogLeNet's max pools): the last window of a row or
// column hangs over the map's end and pools only what is inside.
TEST(CompilerNumerics, PoolsWithCeilMode) {
  OnnxBuilder b;
  b.input("x", {2, 20, 9, 10});
  auto& mp = b.node("MaxPool", {"x"}, {"m"}, "max_ceil");
  OnnxBuilder::attr(mp, "kernel_shape", Dims{3, 3});
  OnnxBuilder::attr(mp, "strides", Dims{2, 2});
  OnnxBuilder::attr(mp, "ceil_mode", std::int64_t(1));             // 9 x 10 -> 4 x 5 (floor: 4 x 4)
  auto& ap = b.node("AveragePool", {"m"}, {"y"}, "average_ceil");
  OnnxBuilder::attr(ap, "kernel_shape", Dims{3, 3});
  OnnxBuilder::attr(ap, "strides", Dims{2, 2});
  OnnxBuilder::attr(ap, "pads", Dims{1, 1, 1, 1});
  OnnxBuilder::attr(ap, "ceil_mode", std::int64_t(1));             // 4 x 5 -> 3 x 3 (floor: 2 x 3)
  b.output("y", {2, 20, 3, 3});
  const auto x = b.random({2, 20, 9, 10});
  Tensor t{{2, 20, 9, 10}, x};
  t = ref::pool2d(t, 3, 2, 0, true, false, true);
  t = ref::pool2d(t, 3, 2, 1, false, false, true);
  const CompiledModel model = compile_onnx_bytes(b.bytes(), {});
  expect_close(PackageEmulator(model.package).run(x), t);
}

// Maps wider than the window kernels' unified buffer holds a row of (window_plan.h: about 500
// f16 pixels, fewer for an f32 ring): each layer runs in column strips, one launch per strip,
// whose rows are the whole map's apart in memory; the first and last strips keep the map's
// padding, the others read their neighbours' columns. A max pool with padding, an average pool
// that does not count it (its divisors differ at the map's edges only), and a depthwise 3 x 3
// with a bias, a residual (the max pool's output) and ReLU.
TEST(CompilerNumerics, WideMapsRunInColumnStrips) {
  OnnxBuilder b;
  b.input("x", {1, 20, 5, 1100});
  auto wd = b.random_constant("wd", {20, 1, 3, 3}, 0.3f), bd = b.random_constant("bd", {20}, 0.1f);
  auto& mp = b.node("MaxPool", {"x"}, {"m"}, "max");
  OnnxBuilder::attr(mp, "kernel_shape", Dims{3, 3});
  OnnxBuilder::attr(mp, "pads", Dims{1, 1, 1, 1});
  auto& d = b.node("Conv", {"m", "wd", "bd"}, {"dw"}, "depthwise");
  OnnxBuilder::attr(d, "group", std::int64_t(20));
  OnnxBuilder::attr(d, "pads", Dims{1, 1, 1, 1});
  b.node("Add", {"dw", "m"}, {"sum"}, "residual");
  b.node("Relu", {"sum"}, {"r"}, "relu");
  auto& ap = b.node("AveragePool", {"r"}, {"y"}, "average");
  OnnxBuilder::attr(ap, "kernel_shape", Dims{3, 3});
  OnnxBuilder::attr(ap, "strides", Dims{2, 2});
  OnnxBuilder::attr(ap, "pads", Dims{1, 1, 1, 1});
  b.output("y", {1, 20, 3, 550});
  const auto x = b.random({1, 20, 5, 1100});
  Tensor t{{1, 20, 5, 1100}, x};
  const Tensor m = ref::pool2d(t, 3, 1, 1, true);
  Tensor r = ref::conv2d(m, wd, bd, 20, 3, 3, 1, 1, 20);
  for (std::size_t k = 0; k < r.data.size(); ++k) r.data[k] = std::max(r.data[k] + m.data[k], 0.f);
  const Tensor y = ref::pool2d(r, 3, 2, 1, false);
  const CompiledModel model = compile_onnx_bytes(b.bytes(), {});
  PackageView view(model.package);
  EXPECT_GE(view.launches_of(NPUVP_OP_KERNEL_POOL).size(), 5u);    // 1100 and 550 columns in strips
  EXPECT_GE(view.launches_of(NPUVP_OP_KERNEL_DWCONV).size(), 3u);  // an f32 ring: narrower strips
  int striped = 0;
  for (const auto& layer : model.layers) striped += layer.tiling.find(" strips=") != std::string::npos;
  EXPECT_EQ(striped, 3);  // the three window layers, their tiling "blocks=B strips=NxWcols"
  expect_close(PackageEmulator(model.package).run(x), y);
}

// A depthwise kernel of more taps than op_dwconv holds (13 x 13 = 169 > 126, RepLKNet's) runs as
// launches over groups of kernel columns (9 + 4), each adding to the output so far; the bias and
// the fused residual come with the first. The second group's columns lie in the padding for the
// last 3 output columns, which it leaves as they are, so ReLU comes with a third launch of one
// zero tap over every column.
TEST(CompilerNumerics, LargeDepthwiseKernelInColumnGroups) {
  OnnxBuilder b;
  b.input("x", {1, 20, 17, 19});
  auto wd = b.random_constant("wd", {20, 1, 13, 13}, 0.1f), bd = b.random_constant("bd", {20}, 0.1f);
  auto& d = b.node("Conv", {"x", "wd", "bd"}, {"dw"}, "large_kernel");
  OnnxBuilder::attr(d, "group", std::int64_t(20));
  OnnxBuilder::attr(d, "pads", Dims{6, 6, 6, 6});
  b.node("Add", {"dw", "x"}, {"sum"}, "residual");
  b.node("Relu", {"sum"}, {"y"}, "relu");
  b.output("y", {1, 20, 17, 19});
  const auto x = b.random({1, 20, 17, 19});
  Tensor t{{1, 20, 17, 19}, x};
  Tensor y = ref::conv2d(t, wd, bd, 20, 13, 13, 1, 6, 20);
  for (std::size_t k = 0; k < y.data.size(); ++k) y.data[k] = std::max(y.data[k] + x[k], 0.f);
  const CompiledModel model = compile_onnx_bytes(b.bytes(), {});
  PackageView view(model.package);
  EXPECT_EQ(view.launches_of(NPUVP_OP_KERNEL_DWCONV).size(), 3u);
  expect_close(PackageEmulator(model.package).run(x), y);
}

// x.mean([2, 3]) in both forms (keepdim, as a squeeze-excite block scales x by it, and
// without, as MnasNet's and ShuffleNet's classifiers pool): each a GlobalAveragePool.
TEST(CompilerNumerics, SpatialReduceMeanIsAGlobalAveragePool) {
  OnnxBuilder b;
  b.input("x", {2, 20, 5, 7});
  auto& keep = b.node("ReduceMean", {"x"}, {"m"}, "mean_keepdims");
  OnnxBuilder::attr(keep, "axes", Dims{-1, -2});
  b.node("Mul", {"x", "m"}, {"s"}, "scale");
  auto& drop = b.node("ReduceMean", {"s"}, {"y"}, "mean_squeezed");
  OnnxBuilder::attr(drop, "axes", Dims{2, 3});
  OnnxBuilder::attr(drop, "keepdims", std::int64_t(0));
  b.output("y", {2, 20});
  const auto x = b.random({2, 20, 5, 7});
  Tensor y{{2, 20}, std::vector<float>(40)};
  for (int p = 0; p < 40; ++p) {
    float mean = 0, scaled = 0;
    for (int k = 0; k < 35; ++k) mean += x[p * 35 + k] / 35.f;
    for (int k = 0; k < 35; ++k) scaled += x[p * 35 + k] * mean / 35.f;
    y.data[p] = scaled;
  }
  const CompiledModel model = compile_onnx_bytes(b.bytes(), {});
  EXPECT_EQ(PackageView(model.package).launches_of(NPUVP_OP_KERNEL_POOL).size(), 2u);
  expect_close(PackageEmulator(model.package).run(x), y, 5e-3);
}

// Means over other axes (the tokens of a ViT, x.mean(dim=1); several axes, one of them
// not the last): the reduced axes moved last, times a constant column of 1 / n.
TEST(CompilerNumerics, ReduceMeanOverOtherAxes) {
  OnnxBuilder b;
  b.input("x", {2, 3, 4, 5});
  auto& channels = b.node("ReduceMean", {"x"}, {"m"}, "mean_channels");
  OnnxBuilder::attr(channels, "axes", Dims{1});                  // [2, 1, 4, 5]
  b.node("Sub", {"x", "m"}, {"d"}, "centre");
  auto& outer = b.node("ReduceMean", {"d"}, {"y"}, "mean_batch_and_width");
  OnnxBuilder::attr(outer, "axes", Dims{0, -1});
  OnnxBuilder::attr(outer, "keepdims", std::int64_t(0));         // [3, 4]
  b.output("y", {3, 4});
  const auto x = b.random({2, 3, 4, 5});
  auto at = [&](int n, int c, int h, int w) { return x[((n * 3 + c) * 4 + h) * 5 + w]; };
  Tensor y{{3, 4}, std::vector<float>(12, 0.f)};
  for (int c = 0; c < 3; ++c)
    for (int h = 0; h < 4; ++h)
      for (int n = 0; n < 2; ++n)
        for (int w = 0; w < 5; ++w) {
          const float mean = (at(n, 0, h, w) + at(n, 1, h, w) + at(n, 2, h, w)) / 3.f;
          y.data[c * 4 + h] += (at(n, c, h, w) - mean) / 10.f;
        }
  const CompiledModel model = compile_onnx_bytes(b.bytes(), {});
  expect_close(PackageEmulator(model.package).run(x), y, 5e-3);
}

// Softmax over an inner axis (opset 13: that axis alone), here the channels of a 4-D map
// and the first axis: transposed to the last axis and back around the row kernel.
TEST(CompilerNumerics, SoftmaxOverInnerAxes) {
  OnnxBuilder b;
  b.input("x", {2, 5, 3, 4});
  auto& channels = b.node("Softmax", {"x"}, {"s"}, "softmax_channels");
  OnnxBuilder::attr(channels, "axis", std::int64_t(1));
  auto& first = b.node("Softmax", {"s"}, {"y"}, "softmax_batch");
  OnnxBuilder::attr(first, "axis", std::int64_t(-4));
  b.output("y", {2, 5, 3, 4});
  const auto x = b.random({2, 5, 3, 4}, 3.f);
  // softmax over axis `axis` of [2, 5, 12] viewed as (outer, axis, inner)
  auto softmax_axis = [](const std::vector<float>& v, int outer, int n, int inner) {
    std::vector<float> y(v.size());
    for (int o = 0; o < outer; ++o)
      for (int i = 0; i < inner; ++i) {
        float m = -INFINITY, sum = 0;
        for (int k = 0; k < n; ++k) m = std::max(m, v[(o * n + k) * inner + i]);
        for (int k = 0; k < n; ++k) sum += std::exp(v[(o * n + k) * inner + i] - m);
        for (int k = 0; k < n; ++k) y[(o * n + k) * inner + i] = std::exp(v[(o * n + k) * inner + i] - m) / sum;
      }
    return y;
  };
  const Tensor y{{2, 5, 3, 4}, softmax_axis(softmax_axis(x, 2, 5, 12), 1, 2, 60)};
  const CompiledModel model = compile_onnx_bytes(b.bytes(), {});
  EXPECT_EQ(PackageView(model.package).launches_of(NPUVP_OP_KERNEL_SOFTMAX).size(), 2u);
  expect_close(PackageEmulator(model.package).run(x), y, 2e-3);
}

// A 2-head attention block with decomposed LayerNorm and GELU (opset 13 export style).
TEST(CompilerNumerics, TransformerEncoderBlock) {
  OnnxBuilder b(13);
  const std::int64_t s = 8, d = 32, heads = 2, dh = 16, ff = 48;
  b.input("x", {1, s, d});
  auto wq = b.random_constant("wq", {d, d}, 0.2f), bq = b.random_constant("bq", {d}, 0.1f);
  auto wk = b.random_constant("wk", {d, d}, 0.2f), bk = b.random_constant("bk", {d}, 0.1f);
  auto wv = b.random_constant("wv", {d, d}, 0.2f), bv = b.random_constant("bv", {d}, 0.1f);
  auto wo = b.random_constant("wo", {d, d}, 0.2f), bo = b.random_constant("bo", {d}, 0.1f);
  auto w1 = b.random_constant("w1", {d, ff}, 0.2f), b1 = b.random_constant("b1", {ff}, 0.1f);
  auto w2 = b.random_constant("w2", {ff, d}, 0.2f), b2 = b.random_constant("b2", {d}, 0.1f);
  auto gamma = b.random_constant("gamma", {d}, 1.f), beta = b.random_constant("beta", {d}, 0.2f);
  b.constant_ints("heads_shape", {4}, {1, s, heads, dh});
  b.constant_ints("merged_shape", {3}, {1, s, d});
  b.constant("scale", {}, {std::sqrt(float(dh))});
  b.constant("two", {}, {2.f}); b.constant("eps", {}, {1e-5f});
  b.constant("sqrt2", {}, {std::sqrt(2.f)}); b.constant("one", {}, {1.f}); b.constant("half", {}, {0.5f});
  auto project = [&](const std::string& w, const std::string& bias, const std::string& out) {
    b.node("MatMul", {"x", w}, {out + "_mm"});
    b.node("Add", {out + "_mm", bias}, {out});
  };
  project("wq", "bq", "q"); project("wk", "bk", "k"); project("wv", "bv", "v");
  for (const char* t : {"q", "k", "v"}) {
    b.node("Reshape", {t, "heads_shape"}, {std::string(t) + "_h"});
    auto& tr = b.node("Transpose", {std::string(t) + "_h"}, {std::string(t) + "_t"});
    OnnxBuilder::attr(tr, "perm", Dims{0, 2, 1, 3});
  }
  auto& kt = b.node("Transpose", {"k_t"}, {"k_tt"}, "k_transpose");
  OnnxBuilder::attr(kt, "perm", Dims{0, 1, 3, 2});
  b.node("MatMul", {"q_t", "k_tt"}, {"scores"}, "qk");
  b.node("Div", {"scores", "scale"}, {"scaled"});
  auto& sm = b.node("Softmax", {"scaled"}, {"probs"}, "softmax");
  OnnxBuilder::attr(sm, "axis", std::int64_t(-1));
  b.node("MatMul", {"probs", "v_t"}, {"ctx"}, "pv");
  auto& back = b.node("Transpose", {"ctx"}, {"ctx_t"});
  OnnxBuilder::attr(back, "perm", Dims{0, 2, 1, 3});
  b.node("Reshape", {"ctx_t", "merged_shape"}, {"ctx_m"});
  b.node("MatMul", {"ctx_m", "wo"}, {"o_mm"});
  b.node("Add", {"o_mm", "bo"}, {"o"});
  b.node("Add", {"o", "x"}, {"res1"}, "residual1");
  // LayerNorm, decomposed.
  auto& m1 = b.node("ReduceMean", {"res1"}, {"mu"}, "ln_mean");
  OnnxBuilder::attr(m1, "axes", Dims{-1});
  b.node("Sub", {"res1", "mu"}, {"dev"});
  b.node("Pow", {"dev", "two"}, {"sq"});
  auto& m2 = b.node("ReduceMean", {"sq"}, {"var"});
  OnnxBuilder::attr(m2, "axes", Dims{-1});
  b.node("Add", {"var", "eps"}, {"var_eps"});
  b.node("Sqrt", {"var_eps"}, {"std"});
  b.node("Div", {"dev", "std"}, {"normed"});
  b.node("Mul", {"normed", "gamma"}, {"scaled_ln"});
  b.node("Add", {"scaled_ln", "beta"}, {"ln"});
  // FFN with GELU as exported by torch: x * 0.5 * (1 + erf(x / sqrt 2)).
  b.node("MatMul", {"ln", "w1"}, {"f_mm"});
  b.node("Add", {"f_mm", "b1"}, {"f"});
  b.node("Div", {"f", "sqrt2"}, {"f_s"}, "gelu_div");
  b.node("Erf", {"f_s"}, {"f_e"});
  b.node("Add", {"f_e", "one"}, {"f_1"});
  b.node("Mul", {"f", "f_1"}, {"f_m"});
  b.node("Mul", {"f_m", "half"}, {"g"});
  b.node("MatMul", {"g", "w2"}, {"f2_mm"});
  b.node("Add", {"f2_mm", "b2"}, {"f2"});
  b.node("Add", {"f2", "ln"}, {"y"}, "residual2");
  b.output("y", {1, s, d});
  const auto x = b.random({1, s, d});

  Tensor in{{1, s, d}, x};
  auto heads_of = [&](const Tensor& t) {  // [1, s, d] -> [heads, s, dh]
    Tensor r = ref::transpose(Tensor{{s, heads, dh}, t.data}, {1, 0, 2});
    return r;
  };
  Tensor q = heads_of(ref::matmul(in, wq, d, bq)), k = heads_of(ref::matmul(in, wk, d, bk)),
         v = heads_of(ref::matmul(in, wv, d, bv));
  Tensor scores = ref::batched_matmul(q, ref::transpose(k, {0, 2, 1}));
  scores = ref::softmax_rows(ref::map(scores, [&](float t) { return t / std::sqrt(float(dh)); }));
  Tensor ctx = ref::transpose(ref::batched_matmul(scores, v), {1, 0, 2});
  ctx.shape = {1, s, d};
  Tensor o = ref::zip(ref::matmul(ctx, wo, d, bo), in, [](float a, float c) { return a + c; });
  Tensor ln = ref::layernorm_rows(o, gamma, beta, 1e-5f);
  Tensor f = ref::map(ref::matmul(ln, w1, ff, b1), ref::gelu);
  Tensor y = ref::zip(ref::matmul(f, w2, d, b2), ln, [](float a, float c) { return a + c; });

  const CompiledModel model = compile_onnx_bytes(b.bytes(), {});
  std::map<std::string, int> ops;
  std::string listing;
  for (const auto& layer : model.layers) {
    ++ops[layer.op];
    listing += layer.op + "; ";
  }
  SCOPED_TRACE(listing);
  EXPECT_EQ(ops["LayerNormalization+(ReduceMean..Div+Mul+Add)"], 1);
  EXPECT_EQ(ops["Gelu+(Div+Erf+Add+Mul+Mul)"], 1);
  // The head transposes are strided operand views: Q and K^T read in place (1/sqrt(dh) as
  // ALPHA), V read in place and the context written straight into [1, s, heads, dh].
  EXPECT_EQ(ops["MatMul+Transpose+Transpose+Div"], 1);
  EXPECT_EQ(ops["MatMul+Transpose+Transpose"], 1);
  EXPECT_EQ(ops["Transpose"], 0);
  EXPECT_EQ(ops["MatMul+Add+Add"], 2);        // bias and residual fused
  EXPECT_EQ(model.layout_conversions, 0u);
  expect_close(PackageEmulator(model.package).run(x), y);
}

// The packed-projection form of attention scores (torch's nn.MultiheadAttention export):
// Q and K are Slices of one projection, split into heads by Reshape + Transpose.
TEST(CompilerNumerics, SlicedHeadsMatMul) {
  OnnxBuilder b;
  const std::int64_t s = 5, heads = 3, dh = 4, d = heads * dh;
  b.input("x", {s, 1, 2 * d});
  b.constant_ints("q_start", {1}, {0}); b.constant_ints("k_start", {1}, {d});
  b.constant_ints("q_end", {1}, {d}); b.constant_ints("k_end", {1}, {2 * d});
  b.constant_ints("last", {1}, {-1});
  b.constant_ints("split", {3}, {s, heads, dh});
  b.node("Slice", {"x", "q_start", "q_end", "last"}, {"q"});
  b.node("Slice", {"x", "k_start", "k_end", "last"}, {"k"});
  b.node("Reshape", {"q", "split"}, {"qh"});
  b.node("Reshape", {"k", "split"}, {"kh"});
  auto& qt = b.node("Transpose", {"qh"}, {"qt"});
  OnnxBuilder::attr(qt, "perm", Dims{1, 0, 2});
  auto& kt = b.node("Transpose", {"kh"}, {"kt"});
  OnnxBuilder::attr(kt, "perm", Dims{1, 2, 0});
  b.node("MatMul", {"qt", "kt"}, {"y"});
  b.output("y", {heads, s, s});
  const auto x = b.random({s, 1, 2 * d});
  Tensor y{{heads, s, s}, std::vector<float>(heads * s * s)};
  for (std::int64_t h = 0; h < heads; ++h)
    for (std::int64_t i = 0; i < s; ++i)
      for (std::int64_t j = 0; j < s; ++j) {
        float acc = 0;
        for (std::int64_t e = 0; e < dh; ++e) acc += x[i * 2 * d + h * dh + e] * x[j * 2 * d + d + h * dh + e];
        y.data[(h * s + i) * s + j] = acc;
      }
  const CompiledModel model = compile_onnx_bytes(b.bytes(), {});
  ASSERT_EQ(model.layers.size(), 1u);
  expect_close(PackageEmulator(model.package).run(x), y);
}

// MatMul batch broadcasting the kernel's single batch stride cannot express: outer
// batch axes become separate launches; a shared B folds A's batch into M.
TEST(CompilerNumerics, MatMulBatchBroadcasting) {
  OnnxBuilder b;
  b.input("x", {2, 1, 4, 8});
  auto w = b.random_constant("w", {1, 3, 8, 5}, 0.5f);
  auto w2 = b.random_constant("w2", {5, 6}, 0.5f);
  b.node("MatMul", {"x", "w"}, {"h"}, "broadcast");   // [2, 3, 4, 5]
  b.node("MatMul", {"h", "w2"}, {"y"}, "shared");     // [2, 3, 4, 6]: M = 24
  b.output("y", {2, 3, 4, 6});
  const auto x = b.random({2, 1, 4, 8});
  Tensor y{{2, 3, 4, 6}, {}};
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) {
      Tensor xi{{4, 8}, std::vector<float>(x.begin() + i * 32, x.begin() + i * 32 + 32)};
      Tensor h = ref::matmul(xi, std::vector<float>(w.begin() + j * 40, w.begin() + j * 40 + 40), 5);
      Tensor yij = ref::matmul(h, w2, 6);
      y.data.insert(y.data.end(), yij.data.begin(), yij.data.end());
    }
  const CompiledModel model = compile_onnx_bytes(b.bytes(), {});
  ASSERT_EQ(model.layers.size(), 2u);
  EXPECT_EQ(model.layers[0].launches, 2u);  // batch 3 per launch, 2 launches
  EXPECT_EQ(model.layers[1].launches, 1u);
  PackageView view(model.package);
  const auto shared = view.launch(2);
  EXPECT_EQ(shared.args[NPUVP_MATMUL_M], 24u);
  EXPECT_EQ(shared.args[NPUVP_MATMUL_BATCH], 1u);
  expect_close(PackageEmulator(model.package).run(x), y);
}

// Shape arithmetic folded away; Concat, Pad, Slice, Gather, Split, Transpose, broadcasting.
TEST(CompilerNumerics, DataMovementAndBroadcasting) {
  OnnxBuilder b(13);
  b.input("x", {2, 3, 4});
  auto c = b.random_constant("c", {3, 1}, 1.f);
  b.constant_ints("zero", {}, {0});
  b.constant_ints("pads", {6}, {0, 1, 0, 0, 0, 2});
  b.constant_ints("starts", {1}, {1}); b.constant_ints("ends", {1}, {100}); b.constant_ints("axes", {1}, {2});
  b.constant_ints("gather_index", {1}, {2});
  b.constant_ints("minus_one", {1}, {-1});
  b.node("Shape", {"x"}, {"shape"});
  b.node("Gather", {"shape", "zero"}, {"batch"});                 // 2
  b.node("Unsqueeze", {"batch", "zero"}, {"batch1"});             // [2]
  auto& shape_concat = b.node("Concat", {"batch1", "minus_one"}, {"flat_shape"}, "shape_concat");  // [2, -1]
  OnnxBuilder::attr(shape_concat, "axis", std::int64_t(0));
  b.node("Mul", {"x", "c"}, {"xc"}, "broadcast_mul");            // [2,3,4] * [3,1]
  auto& t = b.node("Transpose", {"xc"}, {"xt"});                  // [4, 3, 2]
  OnnxBuilder::attr(t, "perm", Dims{2, 1, 0});
  b.node("Pad", {"xt", "pads"}, {"xp"}, "pad");                  // [4, 4, 4]
  b.node("Slice", {"xp", "starts", "ends", "axes"}, {"xs"});      // [4, 4, 3]
  auto& g = b.node("Gather", {"xs", "gather_index"}, {"xg"}, "gather");  // axis 1 -> [4, 1, 3]
  OnnxBuilder::attr(g, "axis", std::int64_t(1));
  auto& cat = b.node("Concat", {"xg", "xs"}, {"xcat"}, "concat");  // [4, 5, 3]
  OnnxBuilder::attr(cat, "axis", std::int64_t(1));
  auto& sp = b.node("Split", {"xcat"}, {"s0", "s1"}, "split");  // axis 2: [4,5,1], [4,5,2]
  OnnxBuilder::attr(sp, "axis", std::int64_t(2));
  b.constant_ints("split_sizes", {2}, {1, 2});
  sp.add_input("split_sizes");
  b.node("Sub", {"s1", "s0"}, {"d"}, "broadcast_sub");           // [4,5,2]
  b.node("Identity", {"d"}, {"d2"});
  b.node("Reshape", {"d2", "flat_shape"}, {"y"}, "reshape");      // [2, 20]
  b.output("y", {2, 20});
  const auto x = b.random({2, 3, 4});

  // Reference, step by step on plain arrays.
  std::vector<float> xc(24);
  for (int i = 0; i < 2; ++i) for (int j = 0; j < 3; ++j) for (int k = 0; k < 4; ++k) xc[(i * 3 + j) * 4 + k] = x[(i * 3 + j) * 4 + k] * c[j];
  Tensor xt = ref::transpose(Tensor{{2, 3, 4}, xc}, {2, 1, 0});  // [4,3,2]
  std::vector<float> xp(4 * 4 * 4, 0.f);                          // pad axis1 front 1, axis2 back 2
  for (int i = 0; i < 4; ++i) for (int j = 0; j < 3; ++j) for (int k = 0; k < 2; ++k) xp[(i * 4 + j + 1) * 4 + k] = xt.data[(i * 3 + j) * 2 + k];
  std::vector<float> xs(4 * 4 * 3);
  for (int i = 0; i < 4; ++i) for (int j = 0; j < 4; ++j) for (int k = 0; k < 3; ++k) xs[(i * 4 + j) * 3 + k] = xp[(i * 4 + j) * 4 + k + 1];
  std::vector<float> xcat(4 * 5 * 3);
  for (int i = 0; i < 4; ++i) for (int k = 0; k < 3; ++k) {
    xcat[(i * 5 + 0) * 3 + k] = xs[(i * 4 + 2) * 3 + k];
    for (int j = 0; j < 4; ++j) xcat[(i * 5 + j + 1) * 3 + k] = xs[(i * 4 + j) * 3 + k];
  }
  Tensor y{{2, 20}, std::vector<float>(40)};
  for (int i = 0; i < 4; ++i) for (int j = 0; j < 5; ++j) for (int k = 0; k < 2; ++k)
    y.data[(i * 5 + j) * 2 + k] = xcat[(i * 5 + j) * 3 + 1 + k] - xcat[(i * 5 + j) * 3];

  const CompiledModel model = compile_onnx_bytes(b.bytes(), {});
  for (const auto& layer : model.layers) {
    EXPECT_NE(layer.op, "Shape");  // folded
    EXPECT_NE(layer.op, "Identity");
    EXPECT_NE(layer.op, "Reshape");  // a view
  }
  expect_close(PackageEmulator(model.package).run(x), y, 5e-3);
}

// A constant first operand (W @ x, batched and broadcast over x's batch, and Gemm's A with
// transB): stored in the constants region like a constant B.
TEST(CompilerNumerics, ConstantFirstOperand) {
  OnnxBuilder b;
  b.input("x", {2, 7, 9});
  const auto w = b.random_constant("w", {5, 7}, 0.5f);
  const auto g = b.random_constant("g", {4, 9}, 0.5f);
  b.node("MatMul", {"w", "x"}, {"wx"}, "w_times_x");       // [2, 5, 9]
  b.constant_ints("rows", {2}, {10, 9});
  b.node("Reshape", {"wx", "rows"}, {"flat"}, "flatten");  // [10, 9]
  auto& gemm = b.node("Gemm", {"g", "flat"}, {"y"}, "g_times_flat_t");  // [4, 10]
  OnnxBuilder::attr(gemm, "transB", std::int64_t(1));
  b.output("y", {4, 10});
  const auto x = b.random({2, 7, 9});
  std::vector<float> wx(2 * 5 * 9, 0.f);
  for (int n = 0; n < 2; ++n)
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 9; ++j)
        for (int k = 0; k < 7; ++k) wx[(n * 5 + i) * 9 + j] += w[i * 7 + k] * x[(n * 7 + k) * 9 + j];
  Tensor y{{4, 10}, std::vector<float>(40, 0.f)};
  for (int i = 0; i < 4; ++i)
    for (int r = 0; r < 10; ++r)
      for (int k = 0; k < 9; ++k) y.data[i * 10 + r] += g[i * 9 + k] * wx[r * 9 + k];
  const CompiledModel model = compile_onnx_bytes(b.bytes(), {});
  expect_close(PackageEmulator(model.package).run(x), y, 1e-2);
}

// Conv1d with BatchNorm and ReLU, then MaxPool1d: run as 2-D windows of height 1, the
// BatchNorm folded and the ReLU fused as in 2-D (no conversion between them).
TEST(CompilerNumerics, OneDimensionalConvAndPool) {
  OnnxBuilder b;
  b.input("x", {2, 5, 20});
  const auto w = b.random_constant("w", {8, 5, 3}, 0.4f);
  std::vector<float> gamma(8, 1.25f), beta(8, 0.5f), mean(8, 0.1f), var(8, 0.5f);
  b.constant("g", {8}, gamma); b.constant("be", {8}, beta); b.constant("m", {8}, mean); b.constant("v", {8}, var);
  auto& conv = b.node("Conv", {"x", "w"}, {"c"}, "conv1d");
  OnnxBuilder::attr(conv, "kernel_shape", Dims{3});
  OnnxBuilder::attr(conv, "strides", Dims{2});
  OnnxBuilder::attr(conv, "pads", Dims{1, 2});                    // 20 -> 11
  b.node("BatchNormalization", {"c", "g", "be", "m", "v"}, {"bn"}, "bn");
  b.node("Relu", {"bn"}, {"r"}, "relu");
  auto& pool = b.node("MaxPool", {"r"}, {"y"}, "pool1d");
  OnnxBuilder::attr(pool, "kernel_shape", Dims{2});
  OnnxBuilder::attr(pool, "strides", Dims{2});                    // 11 -> 5
  b.output("y", {2, 8, 5});
  const auto x = b.random({2, 5, 20});
  Tensor y{{2, 8, 5}, std::vector<float>(80)};
  for (int n = 0; n < 2; ++n)
    for (int co = 0; co < 8; ++co) {
      std::vector<float> r(11);
      for (int o = 0; o < 11; ++o) {
        float acc = 0;
        for (int ci = 0; ci < 5; ++ci)
          for (int k = 0; k < 3; ++k) {
            const int i = o * 2 - 1 + k;
            if (i >= 0 && i < 20) acc += w[(co * 5 + ci) * 3 + k] * x[(n * 5 + ci) * 20 + i];
          }
        const float bn = (acc - mean[co]) / std::sqrt(var[co] + 1e-5f) * gamma[co] + beta[co];
        r[o] = std::max(bn, 0.f);
      }
      for (int o = 0; o < 5; ++o) y.data[(n * 8 + co) * 5 + o] = std::max(r[2 * o], r[2 * o + 1]);
    }
  const CompiledModel model = compile_onnx_bytes(b.bytes(), {});
  EXPECT_EQ(model.layout_conversions, 2u);  // in and out only
  expect_close(PackageEmulator(model.package).run(x), y, 5e-3);
}

// HardSwish and HardSigmoid (MobileNetV3), LeakyRelu with a slope below and above 1, PRelu
// with per-channel slopes, Abs: decomposed into the elementwise ops the kernels have, on a Conv's
// NC1HWC0 output.
TEST(CompilerNumerics, DecomposedActivations) {
  OnnxBuilder b(14);
  b.input("x", {1, 3, 6, 7});
  const auto w = b.random_constant("w", {20, 3, 1, 1}, 1.f);
  b.node("Conv", {"x", "w"}, {"c"}, "conv");
  b.node("HardSwish", {"c"}, {"hs"}, "hard_swish");
  auto& sigmoid = b.node("HardSigmoid", {"hs"}, {"hg"}, "hard_sigmoid");
  OnnxBuilder::attr(sigmoid, "alpha", 0.3f);
  OnnxBuilder::attr(sigmoid, "beta", 0.4f);
  auto& leaky = b.node("LeakyRelu", {"c"}, {"l1"}, "leaky");
  OnnxBuilder::attr(leaky, "alpha", 0.1f);
  auto& steep = b.node("LeakyRelu", {"l1"}, {"l2"}, "leaky_steep");
  OnnxBuilder::attr(steep, "alpha", 1.5f);
  std::vector<float> slope(20);
  for (int k = 0; k < 20; ++k) slope[k] = 0.05f * float(k) - 0.3f;
  b.constant("slope", {20, 1, 1}, slope);
  b.node("PRelu", {"l2", "slope"}, {"p"}, "prelu");
  b.node("Abs", {"p"}, {"a"}, "absolute");
  b.node("Add", {"hg", "a"}, {"y"}, "sum");
  b.output("y", {1, 20, 6, 7});
  const auto x = b.random({1, 3, 6, 7}, 3.f);
  Tensor y{{1, 20, 6, 7}, std::vector<float>(20 * 42)};
  for (int co = 0; co < 20; ++co)
    for (int p = 0; p < 42; ++p) {
      float c = 0;
      for (int ci = 0; ci < 3; ++ci) c += w[co * 3 + ci] * x[ci * 42 + p];
      const float hs = c * std::min(std::max(c / 6.f + 0.5f, 0.f), 1.f);
      const float hg = std::min(std::max(0.3f * hs + 0.4f, 0.f), 1.f);
      const float l1 = c > 0 ? c : 0.1f * c;
      const float l2 = l1 > 0 ? l1 : 1.5f * l1;
      y.data[co * 42 + p] = hg + std::fabs(l2 > 0 ? l2 : slope[co] * l2);
    }
  const CompiledModel model = compile_onnx_bytes(b.bytes(), {});
  expect_close(PackageEmulator(model.package).run(x), y, 5e-3);
}

// Nearest Resize by integer factors (nn.Upsample, F.interpolate): 2 x 3 from scales with
// asymmetric/floor on a Conv's output, then x2 from sizes with the default half_pixel and
// round_prefer_floor; both read input index floor(x / factor).
TEST(CompilerNumerics, NearestResizeByIntegerFactors) {
  OnnxBuilder b;
  b.input("x", {1, 3, 4, 5});
  const auto w = b.random_constant("w", {18, 3, 1, 1}, 1.f);
  b.constant("roi", {0}, {});
  b.constant("scales", {4}, {1.f, 1.f, 2.f, 3.f});
  b.constant_ints("sizes", {4}, {1, 18, 16, 30});
  b.node("Conv", {"x", "w"}, {"c"}, "conv");
  auto& first = b.node("Resize", {"c", "roi", "scales"}, {"r"}, "resize_scales");
  OnnxBuilder::attr(first, "coordinate_transformation_mode", std::string("asymmetric"));
  OnnxBuilder::attr(first, "nearest_mode", std::string("floor"));
  b.node("Resize", {"r", "roi", "", "sizes"}, {"y"}, "resize_sizes");
  b.output("y", {1, 18, 16, 30});
  const auto x = b.random({1, 3, 4, 5});
  Tensor y{{1, 18, 16, 30}, std::vector<float>(18 * 16 * 30)};
  for (int co = 0; co < 18; ++co)
    for (int h = 0; h < 16; ++h)
      for (int v = 0; v < 30; ++v) {
        const int ih = h / 2 / 2, iw = v / 2 / 3;
        float acc = 0;
        for (int ci = 0; ci < 3; ++ci) acc += w[co * 3 + ci] * x[(ci * 4 + ih) * 5 + iw];
        y.data[(co * 16 + h) * 30 + v] = acc;
      }
  const CompiledModel model = compile_onnx_bytes(b.bytes(), {});
  expect_close(PackageEmulator(model.package).run(x), y, 5e-3);
}

// Where with a constant condition (masked_fill with a registered causal mask): an infinite
// fill in the else branch before a Softmax, a constant else branch, a constant then branch.
TEST(CompilerNumerics, WhereWithAConstantCondition) {
  OnnxBuilder b;
  b.input("x", {2, 3, 4});
  const std::vector<int> keep = {1, 1, 0, 1};
  auto* mask = b.model().mutable_graph()->add_initializer();
  mask->set_name("keep");
  mask->set_data_type(onnx::TensorProto::BOOL);
  mask->add_dims(1);
  mask->add_dims(4);
  for (int k : keep) mask->add_int32_data(k);
  b.constant("minus_infinity", {}, {-INFINITY});
  b.constant("half", {}, {0.5f});
  b.constant("zero", {}, {0.f});
  b.node("Where", {"keep", "x", "minus_infinity"}, {"masked"}, "mask_fill");
  b.node("Softmax", {"masked"}, {"s"}, "softmax");
  b.node("Where", {"keep", "s", "half"}, {"kept"}, "constant_else");
  b.node("Where", {"keep", "zero", "x"}, {"dropped"}, "constant_then");
  b.node("Add", {"kept", "dropped"}, {"y"}, "sum");
  b.output("y", {2, 3, 4});
  const auto x = b.random({2, 3, 4}, 2.f);
  Tensor y{{2, 3, 4}, std::vector<float>(24)};
  for (int r = 0; r < 6; ++r) {
    float sum = 0;
    for (int k = 0; k < 4; ++k) sum += keep[k] ? std::exp(x[r * 4 + k]) : 0.f;
    for (int k = 0; k < 4; ++k) y.data[r * 4 + k] = keep[k] ? std::exp(x[r * 4 + k]) / sum : 0.5f + x[r * 4 + k];
  }
  const CompiledModel model = compile_onnx_bytes(b.bytes(), {});
  expect_close(PackageEmulator(model.package).run(x), y, 5e-3);
}

// Pad with negative pads crops (ONNX allows them): rows cropped at the front and padded
// at the back, columns padded at the front and cropped at the back.
TEST(CompilerNumerics, PadWithNegativePads) {
  OnnxBuilder b;
  b.input("x", {2, 5, 6});
  b.constant_ints("pads", {6}, {0, -1, 2, 0, 1, -3});  // -> [2, 5, 5]
  b.constant("value", {}, {0.25f});
  b.node("Pad", {"x", "pads", "value"}, {"y"}, "crop_and_pad");
  b.output("y", {2, 5, 5});
  const auto x = b.random({2, 5, 6});
  Tensor y{{2, 5, 5}, std::vector<float>(50, 0.25f)};
  for (int n = 0; n < 2; ++n)
    for (int r = 0; r < 4; ++r)        // input rows 1..4 -> output rows 0..3
      for (int c = 0; c < 3; ++c)      // input columns 0..2 -> output columns 2..4
        y.data[(n * 5 + r) * 5 + c + 2] = x[(n * 5 + r + 1) * 6 + c];
  const CompiledModel model = compile_onnx_bytes(b.bytes(), {});
  expect_close(PackageEmulator(model.package).run(x), y, 1e-3);
}

// The output is the input itself (an Identity, as an inference Dropout would leave it):
// the one node left is a view, and the output gets the input's copy.
TEST(CompilerNumerics, OutputIsTheInput) {
  OnnxBuilder b;
  b.input("x", {2, 3, 5});
  b.node("Dropout", {"x"}, {"y"}, "dropout");
  b.output("y", {2, 3, 5});
  const auto x = b.random({2, 3, 5});
  const CompiledModel model = compile_onnx_bytes(b.bytes(), {});
  ASSERT_EQ(model.layers.size(), 1u);
  EXPECT_EQ(model.layers[0].op, "Copy");
  expect_close(PackageEmulator(model.package).run(x), Tensor{{2, 3, 5}, x}, 1e-3);
}

// Open slice ends as PyTorch exports x[:, 1:] and shape[2:]: INT64_MAX, which once came back
// from a double as INT64_MIN (an empty slice: "internal: slice shape mismatch").
TEST(CompilerNumerics, SlicesWithOpenEndsAndSteps) {
  OnnxBuilder b(13);
  b.input("x", {2, 3, 4, 5});
  const std::int64_t open = std::numeric_limits<std::int64_t>::max();
  b.constant_ints("two", {1}, {2});
  b.constant_ints("open", {1}, {open});
  b.constant_ints("minus_one", {1}, {-1});
  b.constant_ints("starts", {2}, {0, 1});
  b.constant_ints("ends", {2}, {open, open});
  b.constant_ints("axes", {2}, {1, 2});
  b.constant_ints("steps", {2}, {2, 3});
  b.node("Shape", {"x"}, {"x_shape"});
  b.node("Slice", {"x_shape", "two", "open"}, {"trailing"});  // [4, 5]
  auto& target = b.node("Concat", {"minus_one", "trailing"}, {"target"});
  OnnxBuilder::attr(target, "axis", std::int64_t(0));
  b.node("Reshape", {"x", "target"}, {"r"}, "merge");           // [6, 4, 5]
  b.node("Slice", {"r", "starts", "ends", "axes", "steps"}, {"y"}, "strided");  // [6, 2, 2]
  b.output("y", {6, 2, 2});
  const auto x = b.random({2, 3, 4, 5});
  Tensor y{{6, 2, 2}, std::vector<float>(24)};
  for (int p = 0; p < 6; ++p)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) y.data[(p * 2 + i) * 2 + j] = x[(p * 4 + 2 * i) * 5 + 1 + 3 * j];
  const CompiledModel model = compile_onnx_bytes(b.bytes(), {});
  expect_close(PackageEmulator(model.package).run(x), y, 1e-3);
}

// A shape chain that only becomes static after another one folded: the Reshape target
// x.flatten(2) computes (Shape, Slice, Concat) has no static output shape at import, so
// the Shape of what follows it folds only after shapes are inferred again (PyTorch's
// nn.MultiheadAttention after a patch embedding's flatten, exported at opset 13).
TEST(CompilerNumerics, ShapeChainAfterAFoldedReshape) {
  OnnxBuilder b(13);
  b.input("x", {1, 6, 2, 3});
  b.constant_ints("zero", {1}, {0});
  b.constant_ints("two", {1}, {2});
  b.constant_ints("minus_one", {1}, {-1});
  b.constant_ints("half", {1}, {2});
  b.node("Shape", {"x"}, {"x_shape"});
  b.node("Slice", {"x_shape", "zero", "two", "zero"}, {"leading"});  // [1, 6]
  auto& target = b.node("Concat", {"leading", "minus_one"}, {"flat_target"});
  OnnxBuilder::attr(target, "axis", std::int64_t(0));
  b.node("Reshape", {"x", "flat_target"}, {"flat"}, "flatten");       // [1, 6, 6]
  b.node("Relu", {"flat"}, {"r"}, "relu");
  b.node("Shape", {"r"}, {"r_shape"});
  b.node("Gather", {"r_shape", "minus_one"}, {"last"});               // [6]
  b.node("Div", {"last", "half"}, {"end"});                           // [3]
  b.node("Slice", {"r", "zero", "end", "minus_one"}, {"y"}, "first_half");
  b.output("y", {1, 6, 3});
  const auto x = b.random({1, 6, 2, 3});
  Tensor y{{1, 6, 3}, std::vector<float>(18)};
  for (int c = 0; c < 6; ++c)
    for (int k = 0; k < 3; ++k) y.data[c * 3 + k] = std::max(x[c * 6 + k], 0.f);
  const CompiledModel model = compile_onnx_bytes(b.bytes(), {});
  expect_close(PackageEmulator(model.package).run(x), y, 5e-3);
}

}  // namespace
}  // namespace npuvp::compiler::test
