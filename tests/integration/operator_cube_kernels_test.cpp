// The Cube operator kernels of sw/include/npuvp/operator_kernels.h (op_conv,
// op_matmul) end to end on the SoC, against an independent reference: a
// direct convolution / matrix product in double from the same f16 inputs.
// One KernelRun per TEST (gtest_discover_tests runs each in its own process).
//
// Tolerance. The kernels accumulate in f32 (each addition rounded: for K
// terms the error is about sqrt(K) * 2^-24 * sum|terms| for random signs,
// K * 2^-24 * sum|terms| at worst) and round the result to f16 once (half an
// ulp: 2^-11 relative), or twice when a residual is added after the
// conversion. So |got - ref| <= 2^-10 * (|acc| + |ref|) + 2^-16 * sum|terms|
// holds with margin, while a single missing or wrong product (about
// sum|terms| / K, K >= 16 here... or more) breaks it in all but tiny cases.
// Besides, every padded output channel of a 5HD result must be zero, and the
// guard band after each output must be untouched.
#include "integration/kernel_harness.h"
#include "integration/kernel_test_support.h"
#include "npu/numerics.h"
#include "../../sw/include/npuvp/operator_kernels.h"  // sw/include is not on the tests' include path
#include "../../sw/include/npuvp/conv_plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace npuvp {
namespace {

using numerics::float_to_half;
using numerics::half_to_float;
using namespace test_support;

constexpr std::uint64_t kDdrData = 0x9000'0000;

// Bump allocator for the test's tensors in DDR (4 KiB aligned).
class Arena {
 public:
  explicit Arena(std::uint64_t base = kDdrData) : next_(base) {}
  std::uint64_t take(std::size_t bytes) {
    const std::uint64_t address = next_;
    next_ = align_up(next_ + bytes + kGuardHalves * 2, 4096);
    return address;
  }

 private:
  std::uint64_t next_;
};

double apply_activation(double value, std::uint64_t act, float clip_lo, float clip_hi) {
  if (act == NPUVP_ACT_RELU) return value > 0 ? value : 0;
  if (act == NPUVP_ACT_CLIP) return std::fmin(std::fmax(value, clip_lo), clip_hi);
  return value;
}

struct Mismatches {
  std::size_t count = 0;
  void report(const std::string& where, double got, double expected, double tolerance) {
    if (++count <= 8)
      ADD_FAILURE() << where << ": got " << got << ", expected " << expected << " (tolerance " << tolerance << ")";
  }
  // An f16 result against `value` = activation(`acc` + residual), `acc` the
  // f32-accumulated sum of terms of total magnitude `sum_abs` (the tolerance
  // of the file's header).
  void check(const std::string& where, std::uint16_t got_bits, double acc, double value, double sum_abs) {
    const double got = half_to_float(got_bits);
    const double tolerance = std::ldexp(std::fabs(acc) + std::fabs(value), -10) + std::ldexp(sum_abs, -16) + 1e-7;
    if (!(std::fabs(got - value) <= tolerance)) report(where, got, value, tolerance);
  }
};

// Sets the argument words (the tag word is never read), runs `blocks` task
// blocks on `cores` AI Cores and reads the output of `halves` f16 at `out`,
// its guard band checked. False if the run failed.
bool run_and_read(KernelRun& run, std::vector<std::uint64_t> args, unsigned cores, std::uint64_t blocks,
                  std::uint64_t out, std::size_t halves, std::vector<std::uint16_t>& result) {
  args[NPUVP_OP_ARG_TAG] = 0xdead;
  run.set_args(args);
  const int status = run.run(cores, blocks, sc_core::sc_time(5, sc_core::SC_SEC));
  EXPECT_EQ(status, 0) << run.reason();
  if (status != 0) return false;
  result = run.read<std::uint16_t>(out, halves);
  expect_guard_intact(run, out, halves);
  return true;
}

struct Totals {
  double cycles = 0, macs = 0, ddr_read = 0, ddr_written = 0;
};
// Kernel cycles of the slowest core, MACs over all cores, DDR traffic.
Totals totals(KernelRun& run, unsigned cores) {
  Totals t;
  t.cycles = launch_cycles(run, cores);
  for (unsigned i = 0; i < cores; ++i) t.macs += run.stat("soc.aicore" + std::to_string(i) + ".cube.macs");
  t.ddr_read = run.stat("soc.ddr.bytes_read");
  t.ddr_written = run.stat("soc.ddr.bytes_written");
  return t;
}

// ---- Conv ------------------------------------------------------------------

struct ConvCase {
  std::size_t n = 1, cin, h, w, cout, kh, kw;
  std::size_t stride_h = 1, stride_w = 1, pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;
  std::size_t dilation_h = 1, dilation_w = 1;
  bool bias = false, residual = false;
  std::uint64_t act = NPUVP_ACT_NONE;
  float clip_lo = 0, clip_hi = 6;
  std::uint64_t tile_ho = 0, tile_cout = 0;
  bool double_buffer = true;
  unsigned tall = 0;  // the C tiles' height (NPUVP_CONV_FLAGS bits 1-2)
  bool whole_l0c = false;  // NPUVP_CONV_FLAG_WHOLE_L0C
  unsigned cores = 1;
  std::uint64_t blocks = 0;
  std::uint64_t base = kDdrData;
  std::map<std::string, std::string> parameters{};  // more SoC parameters (e.g. HBM-class DDR)
};

// 5HD index of (image, channel, row, column).
std::size_t index_5hd(std::size_t img, std::size_t ch, std::size_t y, std::size_t x, std::size_t c1, std::size_t h,
                      std::size_t w) {
  return (((img * c1 + ch / 16) * h + y) * w + x) * 16 + ch % 16;
}

// The case's NPUVP_CONV_FLAGS.
std::uint64_t conv_flags(const ConvCase& c) {
  return (c.double_buffer ? NPUVP_CONV_FLAG_DOUBLE_BUFFERING : 0) | std::uint64_t(c.tall) << NPUVP_CONV_FLAG_TALL_SHIFT |
         (c.whole_l0c ? NPUVP_CONV_FLAG_WHOLE_L0C : 0);
}

// The kernel's plan of a case on `blocks` blocks with NPUVP_CONV_FLAGS `flags` (0: the case's own).
npuvp_conv_plan plan_of(const ConvCase& c, std::uint64_t blocks, std::uint64_t flags = 0) {
  const npuvp_conv_geometry g{c.n,          c.cin,        c.h,          c.w,           c.cout,
                              c.kh,         c.kw,         c.stride_h,   c.stride_w,    c.pad_top,
                              c.pad_bottom, c.pad_left,   c.pad_right,  c.dilation_h,  c.dilation_w};
  if (!flags) flags = conv_flags(c);
  npuvp_conv_plan plan{};
  const char* refused = npuvp_conv_plan_make(&g, c.tile_ho, c.tile_cout, blocks, flags, &plan);
  EXPECT_EQ(refused, nullptr) << refused;
  return plan;
}

// A residual, a bias and a Clip of positive lower bound [0.25, 4] (which must clear the padded
// output lanes): the epilogue's every step.
ConvCase residual_bias_clip(ConvCase c) {
  c.residual = true;
  c.bias = true;
  c.act = NPUVP_ACT_CLIP;
  c.clip_lo = 0.25f;
  c.clip_hi = 4.0f;
  return c;
}

// Returns the Cube utilisation (MACs / (cycles x 2048 x cores)).
double run_conv(const ConvCase& c) {
  const std::size_t ho = window_output_size(c.h, c.pad_top, c.pad_bottom, c.dilation_h, c.kh, c.stride_h);
  const std::size_t wo = window_output_size(c.w, c.pad_left, c.pad_right, c.dilation_w, c.kw, c.stride_w);
  const std::size_t c1in = (c.cin + 15) / 16, c1out = (c.cout + 15) / 16, cout16 = c1out * 16;
  const std::size_t kc = c1in * c.kh * c.kw * 16;

  // Inputs: NCHW activations and OIHW weights as the model has them, then the kernel's layouts.
  const auto x = random_halves(c.n * c.cin * c.h * c.w, 31);
  const auto oihw = random_halves(c.cout * c.cin * c.kh * c.kw, 32, -0.5f, 0.5f);
  const auto bias = random_floats(c.cout, 33);
  const auto residual = random_halves(c.n * c.cout * ho * wo, 34);
  std::vector<std::uint16_t> x5(c.n * c1in * c.h * c.w * 16, 0), r5(c.n * c1out * ho * wo * 16, 0);
  for (std::size_t img = 0; img < c.n; ++img)
    for (std::size_t ch = 0; ch < c.cin; ++ch)
      for (std::size_t y = 0; y < c.h; ++y)
        for (std::size_t xx = 0; xx < c.w; ++xx)
          x5[index_5hd(img, ch, y, xx, c1in, c.h, c.w)] = x[((img * c.cin + ch) * c.h + y) * c.w + xx];
  for (std::size_t img = 0; img < c.n; ++img)
    for (std::size_t ch = 0; ch < c.cout; ++ch)
      for (std::size_t y = 0; y < ho; ++y)
        for (std::size_t xx = 0; xx < wo; ++xx)
          r5[index_5hd(img, ch, y, xx, c1out, ho, wo)] = residual[((img * c.cout + ch) * ho + y) * wo + xx];
  std::vector<std::uint16_t> weights(kc * cout16, 0);  // row ((c1 * KH + i) * KW + j) * 16 + c0, column o
  for (std::size_t o = 0; o < c.cout; ++o)
    for (std::size_t ch = 0; ch < c.cin; ++ch)
      for (std::size_t i = 0; i < c.kh; ++i)
        for (std::size_t j = 0; j < c.kw; ++j)
          weights[((((ch / 16) * c.kh + i) * c.kw + j) * 16 + ch % 16) * cout16 + o] =
              oihw[((o * c.cin + ch) * c.kh + i) * c.kw + j];
  std::vector<float> bias16(cout16, 0.0f);
  std::copy(bias.begin(), bias.end(), bias16.begin());

  std::map<std::string, std::string> parameters = cores_parameters(c.cores);
  parameters.insert(c.parameters.begin(), c.parameters.end());
  KernelRun run("op_conv", parameters);
  Arena arena(c.base);
  const std::size_t out_halves = r5.size();
  const std::uint64_t x_addr = arena.take(x5.size() * 2), w_addr = arena.take(weights.size() * 2),
                      b_addr = arena.take(bias16.size() * 4), r_addr = arena.take(r5.size() * 2),
                      o_addr = arena.take(out_halves * 2);
  run.write(x_addr, x5);
  run.write(w_addr, weights);
  run.write(b_addr, bias16);
  run.write(r_addr, r5);
  prefill_output(run, o_addr, out_halves);

  std::vector<std::uint64_t> args(NPUVP_OP_ARG_TAG + 1, 0);
  args[NPUVP_CONV_IN] = x_addr;
  args[NPUVP_CONV_WEIGHTS] = w_addr;
  args[NPUVP_CONV_BIAS] = c.bias ? b_addr : 0;
  args[NPUVP_CONV_RESIDUAL] = c.residual ? r_addr : 0;
  args[NPUVP_CONV_OUT] = o_addr;
  args[NPUVP_CONV_N] = c.n;
  args[NPUVP_CONV_CIN] = c.cin;
  args[NPUVP_CONV_H] = c.h;
  args[NPUVP_CONV_W] = c.w;
  args[NPUVP_CONV_COUT] = c.cout;
  args[NPUVP_CONV_KH] = c.kh;
  args[NPUVP_CONV_KW] = c.kw;
  args[NPUVP_CONV_STRIDE_H] = c.stride_h;
  args[NPUVP_CONV_STRIDE_W] = c.stride_w;
  args[NPUVP_CONV_PAD_TOP] = c.pad_top;
  args[NPUVP_CONV_PAD_BOTTOM] = c.pad_bottom;
  args[NPUVP_CONV_PAD_LEFT] = c.pad_left;
  args[NPUVP_CONV_PAD_RIGHT] = c.pad_right;
  args[NPUVP_CONV_DILATION_H] = c.dilation_h;
  args[NPUVP_CONV_DILATION_W] = c.dilation_w;
  args[NPUVP_CONV_ACT] = c.act;
  args[NPUVP_CONV_CLIP_MIN] = f32_bits(c.clip_lo);
  args[NPUVP_CONV_CLIP_MAX] = f32_bits(c.clip_hi);
  args[NPUVP_CONV_TILE_HO] = c.tile_ho;
  args[NPUVP_CONV_TILE_COUT] = c.tile_cout;
  args[NPUVP_CONV_FLAGS] = conv_flags(c);
  const char* refused = npuvp_conv_plan_args(args.data(), c.blocks ? c.blocks : c.cores);
  EXPECT_EQ(refused, nullptr) << refused;
  if (refused) return 0;
  std::vector<std::uint16_t> out;
  if (!run_and_read(run, args, c.cores, c.blocks, o_addr, out_halves, out)) return 0;

  Mismatches bad;
  for (std::size_t img = 0; img < c.n; ++img)
    for (std::size_t o = 0; o < cout16; ++o)
      for (std::size_t y = 0; y < ho; ++y)
        for (std::size_t xx = 0; xx < wo; ++xx) {
          const std::uint16_t got_bits = out[index_5hd(img, o, y, xx, c1out, ho, wo)];
          const std::string where = "image " + std::to_string(img) + " channel " + std::to_string(o) + " at (" +
                                    std::to_string(y) + ", " + std::to_string(xx) + ")";
          if (o >= c.cout) {
            if ((got_bits & 0x7fff) != 0) bad.report(where + " (padded channel)", half_to_float(got_bits), 0, 0);
            continue;
          }
          double acc = 0, sum_abs = 0;
          for (std::size_t ch = 0; ch < c.cin; ++ch)
            for (std::size_t i = 0; i < c.kh; ++i)
              for (std::size_t j = 0; j < c.kw; ++j) {
                std::size_t iy, ix;
                if (!window_input(y, i, c.stride_h, c.dilation_h, c.pad_top, c.h, iy) ||
                    !window_input(xx, j, c.stride_w, c.dilation_w, c.pad_left, c.w, ix))
                  continue;
                const double term =
                    static_cast<double>(half_to_float(x[((img * c.cin + ch) * c.h + iy) * c.w + ix])) *
                    half_to_float(oihw[((o * c.cin + ch) * c.kh + i) * c.kw + j]);
                acc += term;
                sum_abs += std::fabs(term);
              }
          if (c.bias) acc += bias[o];
          double value = acc;
          if (c.residual) value += half_to_float(residual[((img * c.cout + o) * ho + y) * wo + xx]);
          value = apply_activation(value, c.act, c.clip_lo, c.clip_hi);
          bad.check(where, got_bits, acc, value, sum_abs);
        }
  EXPECT_EQ(bad.count, 0u) << "mismatching elements";

  const Totals t = totals(run, c.cores);
  EXPECT_EQ(t.macs, static_cast<double>(c.n * ho * wo * kc * cout16)) << "every output position x Kc x Cout16 once";
  const double bound_bytes = (x5.size() + weights.size() + out_halves * (c.residual ? 2 : 1)) * 2.0;
  // Bounds on the default SoC: 2048 MACs per cycle per core; DDR 12.8 bytes per cycle.
  const double compute_bound = static_cast<double>(c.n * ho * wo * kc * cout16) / (2048.0 * c.cores);
  const double memory_bound = bound_bytes / 12.8;
  std::printf("conv N%zu %zux%zux%zu -> %zu %zux%zu/%zu on %u cores (%s): %.0f cycles, Cube utilisation %.3f, "
              "DDR read %.0f written %.0f bytes (input + weights%s + output once: %.0f); bounds: compute %.0f, "
              "memory %.0f cycles\n",
              c.n, c.cin, c.h, c.w, c.cout, c.kh, c.kw, c.stride_h, c.cores,
              c.double_buffer ? "double-buffered" : "serial", t.cycles, t.macs / (t.cycles * 2048.0 * c.cores),
              t.ddr_read, t.ddr_written, c.residual ? " + residual" : "", bound_bytes, compute_bound, memory_bound);
  return t.macs / (t.cycles * 2048.0 * c.cores);
}

ConvCase pads(ConvCase c, std::size_t top, std::size_t bottom, std::size_t left, std::size_t right) {
  c.pad_top = top;
  c.pad_bottom = bottom;
  c.pad_left = left;
  c.pad_right = right;
  return c;
}

// Odd everything: 3 input channels (13 padding), 10 output channels (6
// padding), 13x13, stride 2, asymmetric pads, two images, bias and ReLU.
TEST(OperatorConv, OddShapeStride2AsymmetricPads) {
  ConvCase c{2, 3, 13, 13, 10, 3, 3};
  c.stride_h = c.stride_w = 2;
  c = pads(c, 0, 1, 2, 1);
  c.bias = true;
  c.act = NPUVP_ACT_RELU;
  run_conv(c);
}
// Dilation 2, non-square kernel, pads 2/1, ReLU6 (Clip 0..6), 2 cores x 3 blocks.
TEST(OperatorConv, Dilation2ClipTwoCoresThreeBlocks) {
  ConvCase c{1, 20, 13, 11, 24, 3, 2};
  c.dilation_h = c.dilation_w = 2;
  c = pads(c, 2, 2, 1, 1);
  c.act = NPUVP_ACT_CLIP;
  c.bias = true;
  c.cores = 2;
  c.blocks = 3;
  run_conv(c);
}
// Clip with a positive lower bound: the padded channels must stay zero anyway.
TEST(OperatorConv, ClipPositiveLowerBoundKeepsPaddingZero) {
  ConvCase c{1, 16, 9, 9, 10, 3, 3};
  c = pads(c, 1, 1, 1, 1);
  c.act = NPUVP_ACT_CLIP;
  c.clip_lo = 0.25f;
  c.clip_hi = 0.75f;
  run_conv(c);
}
// Bands of at most 128 positions with resident weights get C tiles 256 channels wide
// (conv_plan.h's tn): 300 output channels are a 256-wide tile and a 48-wide one whose last
// group is padded, with a residual, a bias and a Clip of positive lower bound (padded lanes
// cleared); a 3x3 window over 5 channel groups: K parts that K steps straddle; two cores,
// three blocks of three rows each.
TEST(OperatorConv, WideTilesResidualClipOddChannels) {
  ConvCase c{1, 80, 9, 9, 300, 3, 3};
  c.tile_ho = 3;
  c.tile_cout = 304;
  c = pads(c, 1, 1, 1, 1);
  c = residual_bias_clip(c);
  c.cores = 2;
  c.blocks = 3;
  EXPECT_EQ(plan_of(c, c.blocks).tn, std::uint64_t(NPUVP_CONV_WIDE_TN));
  run_conv(c);
}
// A block's last C tile column (one M chunk, resident weights, more than 64 channels) is
// computed as two tiles, the first half's write-back overlapping the second half's Cube work:
// 112 and 96 channels per block (halves 48 + 64 and 48 + 48), 200 output channels (the last
// group padded, a Clip of positive lower bound clearing it), a residual and a bias.
TEST(OperatorConv, LastColumnInTwoTilesResidualClipOddChannels) {
  ConvCase c{1, 64, 12, 12, 200, 1, 1};
  c.tile_ho = 12;
  c.tile_cout = 112;
  c = residual_bias_clip(c);
  c.cores = 2;
  const npuvp_conv_plan plan = plan_of(c, 2);
  EXPECT_EQ(plan.tn, std::uint64_t(NPUVP_CONV_MAX_TN));  // 144 positions: 128-column tiles
  EXPECT_EQ(plan.units, 2u);
  run_conv(c);
}
// The same without double buffering (one slice slot, the last tile written back whole).
TEST(OperatorConv, WideTilesResidualClipOddChannelsSerial) {
  ConvCase c{1, 80, 9, 9, 300, 3, 3};
  c = pads(c, 1, 1, 1, 1);
  c.tile_ho = 3;
  c.tile_cout = 304;
  c = residual_bias_clip(c);
  c.cores = 2;
  c.blocks = 3;
  c.double_buffer = false;
  run_conv(c);
}

// A 3 x 3 convolution keeping the map's size, with a residual, a bias and a Clip of positive
// lower bound (which must clear the padded output lanes).
ConvCase same_3x3_residual_bias_clip(std::size_t cin, std::size_t hw, std::size_t cout) {
  return residual_bias_clip(pads({1, cin, hw, hw, cout, 3, 3}, 1, 1, 1, 1));
}
// A block's last C tile ends its K loop in two column halves (the column-split tail): its last
// 128 K rows run for the first groups, then for the others, whose Cube work covers the first
// half's write-back. Resident weights: 2 M chunks per block (256 + 144 positions), the last tile
// 144 x 128 (8 groups, halves of 4; K steps of 7 fractal rows: 252 fractal products a half
// step), 120 output channels (the last group padded).
TEST(OperatorConv, LastTileColumnSplitTailResidentResidualClipOddChannels) {
  const ConvCase c = same_3x3_residual_bias_clip(64, 20, 120);
  const npuvp_conv_plan plan = plan_of(c, 1);
  EXPECT_EQ(plan.resident, 1u);
  EXPECT_EQ(plan.tn, std::uint64_t(NPUVP_CONV_MAX_TN));
  run_conv(c);
}
// The same with streamed weights (2304 x 256: 1.2 MB in K chunks of 128 rows, the tail one
// chunk): 10 x 10 positions (one M chunk), 250 channels in two 128-column tiles (the last one
// 8 groups, halves of 4, the last group padded).
TEST(OperatorConv, LastTileColumnSplitTailStreamedResidualClipOddChannels) {
  const ConvCase c = same_3x3_residual_bias_clip(256, 10, 250);
  EXPECT_EQ(plan_of(c, 1).resident, 0u);
  run_conv(c);
}

// Tall C tiles (512 positions x 64 channels): two images, 23 x 25 output positions per band (a
// full M chunk of 512 and one of 63), 200 output channels (columns of 64, 64, 64 and 8 + 8 padded:
// a Clip of positive lower bound clears the padded lanes), a residual and a bias, a 3x3 window
// over 3 channel groups; two cores, three blocks (a block starts mid-image).
// Two images of w x h, 48 -> 200 channels by a 3x3 window (pads 1), one band per image (every
// Cout group of it one span), on two cores in three blocks (a block starts mid-image).
ConvCase two_images_of_one_band_in_three_blocks(std::size_t h, std::size_t w) {
  ConvCase c{2, 48, h, w, 200, 3, 3};
  c = pads(c, 1, 1, 1, 1);
  c.tile_ho = h;
  c.tile_cout = 208;
  c.cores = 2;
  c.blocks = 3;
  return c;
}
ConvCase tall_tiles() {
  ConvCase c = residual_bias_clip(two_images_of_one_band_in_three_blocks(23, 25));
  c.tall = 1;
  return c;
}
TEST(OperatorConv, TallTilesResidualClipOddChannels) {
  const ConvCase c = tall_tiles();
  const npuvp_conv_plan plan = plan_of(c, c.blocks);
  EXPECT_EQ(plan.tn, 64u);
  EXPECT_EQ(npuvp_conv_chunk_positions(plan.tn, plan.whole_l0c), 512u);
  run_conv(c);
}
TEST(OperatorConv, TallTilesResidualClipOddChannelsSerial) {
  ConvCase c = tall_tiles();
  c.double_buffer = false;
  run_conv(c);
}
// A 3x3 case (pads 1) split into one-group Cout units (TILE_COUT 16) of `tile_ho`-row bands over
// `blocks` blocks on 2 cores: a block's consecutive units of the same rows form spans.
ConvCase narrow_cout_units(ConvCase c, std::uint64_t tile_ho, std::uint64_t blocks) {
  c = pads(c, 1, 1, 1, 1);
  c.tile_ho = tile_ho;
  c.tile_cout = 16;
  c.cores = 2;
  c.blocks = blocks;
  return c;
}
// The tallest tiles (1024 positions x 32 channels): two 28 x 28 bands (784 positions, one partial
// chunk), 96 output channels in three 32-column columns, a residual, ReLU, a bias; 2 cores.
TEST(OperatorConv, TallestTilesResidualRelu) {
  ConvCase c{1, 40, 28, 28, 96, 3, 3};
  c = pads(c, 1, 1, 1, 1);
  c.tile_ho = 28;
  c.tile_cout = 48;
  c.tall = 2;
  c.residual = true;
  c.bias = true;
  c.act = NPUVP_ACT_RELU;
  c.cores = 2;
  const npuvp_conv_plan plan = plan_of(c, 2);
  EXPECT_EQ(plan.tn, 32u);
  EXPECT_EQ(npuvp_conv_chunk_positions(plan.tn, plan.whole_l0c), 1024u);
  const npuvp_conv_geometry g{c.n, c.cin, c.h, c.w, c.cout, c.kh, c.kw, 1, 1, 1, 1, 1, 1, 1, 1};
  npuvp_conv_plan refused{};
  EXPECT_STREQ(npuvp_conv_plan_make(&g, c.tile_ho, c.tile_cout, 2, 3 << NPUVP_CONV_FLAG_TALL_SHIFT, &refused),
               "a C tile height above 2 (NPUVP_CONV_FLAGS bits 1-2)");
  run_conv(c);
}
// Tall tiles of one-group Cout units (TILE_COUT 16) in 11-row bands (11 x 30 = 330 positions, one
// partial tall chunk) over 4 blocks: spans of several 64-column columns, ReLU, no bias.
TEST(OperatorConv, TallTilesNarrowCoutUnitsSpanColumns) {
  ConvCase c = narrow_cout_units({1, 32, 22, 30, 144, 3, 3}, 11, 4);
  c.tall = 1;
  c.act = NPUVP_ACT_RELU;
  run_conv(c);
}
// Bands of at most one M chunk keep their tiles whatever the flag asks (tall would only narrow them).
TEST(OperatorConv, TallTilesOnlyWhereABandHasSeveralChunks) {
  ConvCase c{1, 64, 14, 14, 256, 1, 1};
  c.tile_ho = 14;
  c.tall = 2;
  EXPECT_EQ(plan_of(c, 2).tn, std::uint64_t(NPUVP_CONV_MAX_TN));  // 196 positions
}

// Whole-L0C tiles (512 positions x 128 channels in both L0C halves, one tile at a time): two
// images of 19 x 23 output positions (437 per band: one partial whole-L0C chunk), 200 output
// channels (a span of two columns, 128 and 72 = 80 padded, so a block's tiles follow each other
// in the one L0C), a bias and a Clip of positive lower bound (the padded lanes cleared), a 3 x 3
// window over 3 channel groups; two cores, three blocks (a block starts mid-image), the last
// tile's column-split tail with a quarter of its groups in the second pass.
ConvCase whole_l0c_tiles() {
  ConvCase c = residual_bias_clip(two_images_of_one_band_in_three_blocks(19, 23));
  c.residual = false;
  c.whole_l0c = true;
  return c;
}
TEST(OperatorConv, WholeL0cTilesClipOddChannels) {
  const ConvCase c = whole_l0c_tiles();
  const npuvp_conv_plan plan = plan_of(c, c.blocks);
  EXPECT_EQ(plan.whole_l0c, 1u);
  EXPECT_EQ(npuvp_conv_chunk_positions(plan.tn, plan.whole_l0c), 512u);
  run_conv(c);
}
// With a residual the kernel keeps half tiles (the residual's UB slot holds one): the plan's flag
// is ignored, the result the same.
TEST(OperatorConv, WholeL0cTilesAskedWithAResidualRunInHalves) {
  ConvCase c = whole_l0c_tiles();
  c.residual = true;
  c.act = NPUVP_ACT_RELU;
  run_conv(c);
}
// The plan takes whole-L0C tiles only where they differ and the kernel can: double buffered,
// resident weights in 128-column tiles, bands of 257..512 positions.
TEST(OperatorConv, WholeL0cTilesOnlyForBandsOfOneWholeChunk) {
  ConvCase c = whole_l0c_tiles();
  ConvCase serial_case = c;
  serial_case.double_buffer = false;
  EXPECT_EQ(plan_of(serial_case, c.blocks).whole_l0c, 0u);  // no double buffering: no halves to join
  c.tile_ho = 11;                                        // 253 positions: one half's chunk
  EXPECT_EQ(plan_of(c, c.blocks).whole_l0c, 0u);
  c.tile_ho = 19;
  c.w = 29;  // 19 x 29 = 551 positions: more than one whole-L0C tile
  EXPECT_EQ(plan_of(c, c.blocks).whole_l0c, 0u);
  c.w = 23;
  c.tall = 1;  // tall tiles are 64 columns wide
  EXPECT_EQ(plan_of(c, c.blocks).whole_l0c, 0u);
  c.tall = 0;
  c.cin = 512;  // 512 x 9 x 208 x 2 bytes of weights: streamed, not resident
  EXPECT_EQ(plan_of(c, c.blocks).whole_l0c, 0u);
}

// 1x1 with a residual and ReLU applied after it (ResNet's block end), odd sizes.
TEST(OperatorConv, Pointwise1x1ResidualRelu) {
  ConvCase c{1, 64, 15, 15, 40, 1, 1};
  c.residual = true;
  c.bias = true;
  c.act = NPUVP_ACT_RELU;
  c.cores = 2;
  run_conv(c);
}
// Residual without activation and without bias, 3 images over 4 cores and 7 blocks.
TEST(OperatorConv, ResidualFourCoresSevenBlocks) {
  ConvCase c{3, 48, 10, 12, 72, 3, 3};
  c = pads(c, 1, 1, 1, 1);
  c.residual = true;
  c.cores = 4;
  c.blocks = 7;
  run_conv(c);
}
// Pads larger than the kernel: border outputs see only padding (bias only).
TEST(OperatorConv, PaddingOnlyOutputRows) {
  ConvCase c{1, 16, 6, 6, 16, 1, 1};
  c = pads(c, 2, 3, 2, 1);
  c.bias = true;
  c.cores = 2;
  run_conv(c);
}
// The planner's arguments: 3 output rows per spatial tile, 32 channels per
// Cout group (5 units per image row band, slices double-buffered).
ConvCase explicit_tiles() {
  ConvCase c{2, 32, 17, 19, 80, 3, 3};
  c = pads(c, 1, 1, 1, 1);
  c.tile_ho = 3;
  c.tile_cout = 32;
  c.cores = 2;
  return c;
}
TEST(OperatorConv, ExplicitTiles) {
  ConvCase c = explicit_tiles();
  c.bias = true;
  c.act = NPUVP_ACT_RELU;
  c.blocks = 5;
  run_conv(c);
}
// One-group Cout units (TILE_COUT 16) over 3 blocks: a block's consecutive
// units of the same rows form one span of C tiles up to 128 wide, and a
// block that starts mid-row finds part of the next span's weights resident.
TEST(OperatorConv, ExplicitNarrowCoutUnitsSpanColumns) {
  ConvCase c = narrow_cout_units({1, 32, 17, 15, 80, 3, 3}, 4, 3);
  c.bias = true;
  run_conv(c);
}
TEST(OperatorConv, ExplicitTilesSerial) {
  ConvCase c = explicit_tiles();
  c.residual = true;
  c.double_buffer = false;
  run_conv(c);
}
// ResNet layers (bias and ReLU, 2 AI Cores), double-buffered and serial
// (FLAGS bit 0 clear).
ConvCase serial(ConvCase c) {
  c.double_buffer = false;
  return c;
}
ConvCase resnet_layer(ConvCase c) {
  c.bias = true;
  c.act = NPUVP_ACT_RELU;
  c.cores = 2;
  return c;
}
// The stem: 7x7 stride 2 pad 3 on 224x224 (3 channels in 16), 64 out.
ConvCase resnet_stem() {
  ConvCase c{1, 3, 224, 224, 64, 7, 7};
  c.stride_h = c.stride_w = 2;
  return resnet_layer(pads(c, 3, 3, 3, 3));
}
ConvCase resnet_3x3(std::size_t size, std::size_t channels) {
  return resnet_layer(pads(ConvCase{1, channels, size, size, channels, 3, 3}, 1, 1, 1, 1));
}
ConvCase resnet_1x1(std::size_t size, std::size_t cin, std::size_t cout) {
  return resnet_layer(ConvCase{1, cin, size, size, cout, 1, 1});
}

TEST(OperatorConv, ResNetStem7x7Stride2) { run_conv(resnet_stem()); }
// ResNet-50's 56x56 64->64 3x3 layer on 2 AI Cores.
TEST(OperatorConv, ResNet56x56x64To64) { run_conv(resnet_3x3(56, 64)); }
// 1x1 256 -> 64 at 56x56 (the first conv of a bottleneck).
TEST(OperatorConv, ResNet1x1_256To64) { run_conv(resnet_1x1(56, 256, 64)); }
// 14x14 256 -> 256 3x3: 1.2 MB of weights, streamed in panels.
TEST(OperatorConv, ResNet14x14x256To256) { run_conv(resnet_3x3(14, 256)); }
// With every tensor in the L2 buffer (64 GB/s instead of DDR's 12.8) the
// layer is compute-bound: the Cube must be kept busy (measured 0.69 on 2
// cores: 41 k cycles against the compute bound of 28 k).
TEST(OperatorConv, ResNet56x56x64To64InL2KeepsCubeBusy) {
  ConvCase c = resnet_3x3(56, 64);
  c.base = 0x3000'0000;
  EXPECT_GT(run_conv(c), 0.6);
}
// ResNet-50's 14x14 1x1 1024 -> 256 layer with HBM-class memory (512 GB/s, the configuration
// of docs/networks.md) on 2 AI Cores, tiled as the planner tiles it there (TILE_HO 8,
// TILE_COUT 96): compute-bound (12.5 k cycles of Cube work per core), and each block's first
// C tile needs all 1024 input channels of its slice and weights. Loaded whole before the
// first mmad, and the arguments read from GM word by word, the launch took 33.5 k cycles
// (utilisation 0.374); with the first tile's loads in K parts (the Cube starts after the
// first part) and the arguments through UB, 29.6 k (0.424). Both with this harness's cold
// instruction caches; in the network, with warm ones, the block's first mmad moved from
// 11.0 k to 5.2 k cycles after its start (docs/networks.md). With up to 8 parts issued as the
// Cube goes, straddling K steps and a token per 2 parts for the second C tile's weights:
// 24.9 k cycles, 0.504; 26.1 k, 0.480 after session 27 (cold-cache timing of a changed
// kernel binary; in the network, warm, the layer takes 21.4-21.6 k cycles as before). Session
// 28 (the plan from the compiler, the block's first load sooner, 256-column C tiles for this
// band of 112 positions, the last tile written back in parts): 21.5 k cycles, 0.582.
TEST(OperatorConv, ResNet14x14_1x1_1024To256HbmStartsTheCubeEarly) {
  ConvCase c = resnet_1x1(14, 1024, 256);
  c.tile_ho = 8;
  c.tile_cout = 96;
  c.parameters = {{"soc.ddr.channels", "16"},      {"soc.ddr.bus_width", "16"},   {"soc.ddr.burst_length", "4"},
                  {"soc.ddr.data_rate", "2000"},   {"soc.l2.bandwidth", "512GB/s"}, {"soc.ring.link_width", "128"}};
  EXPECT_GT(run_conv(c), 0.57);
}
// Deeper ResNet-50 layers: weights resident (28x28 3x3 128; 14x14 1x1
// 1024 -> 256: exactly 512 KiB) and streamed (7x7 3x3 512: 4.7 MB split
// over the cores by output channels; 7x7 1x1 2048 -> 512 with a residual).
TEST(OperatorConv, ResNet28x28x128To128) { run_conv(resnet_3x3(28, 128)); }
// ResNet-50's layer2.0 3x3 stride 2 (128 -> 128, 56 x 56 -> 28 x 28) with its tensors in the L2
// buffer, split by rows over 2 AI Cores as the planner splits it (14 rows, 392 positions a block).
// In half tiles a block's first tile (256 positions) needs 271 KB of its slice and all 295 KB of
// weights for 18.4 k Cube cycles, and the two cores share the L2's port: it waits for MTE2. As one
// whole-L0C tile the K parts bring the rows for all 392 positions with each weight part and the
// Cube runs from its first mmad to its last (in the network: 38.3 k -> 35.2 k cycles, 0.74 -> 0.80;
// here, with this harness's cold instruction caches: half tiles 0.705, 40.0 k cycles; whole-L0C 0.759, 37.2 k).
ConvCase resnet_3x3_stride2_in_l2() {
  ConvCase c = resnet_layer(pads(ConvCase{1, 128, 56, 56, 128, 3, 3}, 1, 1, 1, 1));
  c.stride_h = c.stride_w = 2;
  c.base = 0x3000'0000;
  c.tile_ho = 14;
  return c;
}
TEST(OperatorConv, ResNet28x28Stride2InL2) { run_conv(resnet_3x3_stride2_in_l2()); }
TEST(OperatorConv, ResNet28x28Stride2InL2WholeL0cTileKeepsTheCubeBusy) {
  ConvCase c = resnet_3x3_stride2_in_l2();
  c.whole_l0c = true;
  EXPECT_EQ(plan_of(c, 2).whole_l0c, 1u);
  EXPECT_GT(run_conv(c), 0.74);
}
TEST(OperatorConv, ResNet14x14_1x1_1024To256) { run_conv(resnet_1x1(14, 1024, 256)); }
TEST(OperatorConv, ResNet7x7x512To512) { run_conv(resnet_3x3(7, 512)); }
TEST(OperatorConv, ResNet7x7_1x1_512To2048Residual) {
  ConvCase c = resnet_1x1(7, 512, 2048);
  c.residual = true;
  run_conv(c);
}
TEST(OperatorConv, ResNetStem7x7Stride2Serial) { run_conv(serial(resnet_stem())); }
TEST(OperatorConv, ResNet56x56x64To64Serial) { run_conv(serial(resnet_3x3(56, 64))); }
TEST(OperatorConv, ResNet1x1_256To64Serial) { run_conv(serial(resnet_1x1(56, 256, 64))); }
TEST(OperatorConv, ResNet14x14x256To256Serial) { run_conv(serial(resnet_3x3(14, 256))); }

// Streamed weights (2304 x 160: 737 KB) with two M chunks per unit, odd
// output channels, a residual, 3 blocks on one core.
TEST(OperatorConv, StreamedWeightsSeveralChunks) {
  ConvCase c{1, 256, 20, 20, 150, 3, 3};
  c = pads(c, 1, 1, 1, 1);
  c.residual = true;
  c.bias = true;
  c.blocks = 3;
  run_conv(c);
}

// A 1 MiB feature map (2 x 128 x 128 x 16 f16) that cannot sit in L1 at once.
TEST(OperatorConv, FeatureMapLargerThanL1) {
  ConvCase c{1, 32, 128, 128, 32, 3, 3};
  c = pads(c, 1, 1, 1, 1);
  c.bias = true;
  run_conv(c);
}

// A geometry the hardware cannot express (a pad beyond set_fmatrix's 8 bits) has no plan
// (the compiler reports it naming the node: CompilerErrors.ConvPadBeyond255NamesTheNode),
// and a launch without the plan words stops the kernel with a fault naming the reason's
// function, instead of computing a wrong result.
TEST(OperatorConv, PadBeyond255HasNoPlanAndAPlanlessLaunchFaults) {
  KernelRun run("op_conv");
  std::vector<std::uint64_t> args(NPUVP_OP_ARG_TAG + 1, 0);
  args[NPUVP_CONV_IN] = kDdrData;
  args[NPUVP_CONV_WEIGHTS] = kDdrData + 0x10000;
  args[NPUVP_CONV_OUT] = kDdrData + 0x20000;
  args[NPUVP_CONV_N] = 1;
  args[NPUVP_CONV_CIN] = 16;
  args[NPUVP_CONV_H] = args[NPUVP_CONV_W] = 4;
  args[NPUVP_CONV_COUT] = 16;
  args[NPUVP_CONV_KH] = args[NPUVP_CONV_KW] = 1;
  args[NPUVP_CONV_STRIDE_H] = args[NPUVP_CONV_STRIDE_W] = 1;
  args[NPUVP_CONV_DILATION_H] = args[NPUVP_CONV_DILATION_W] = 1;
  args[NPUVP_CONV_PAD_TOP] = 300;
  args[NPUVP_CONV_FLAGS] = 1;
  const char* refused = npuvp_conv_plan_args(args.data(), 1);
  ASSERT_NE(refused, nullptr);
  EXPECT_THAT(refused, ::testing::HasSubstr("above 255"));
  EXPECT_EQ(args[NPUVP_CONV_PLAN_L1], 0u);
  run.set_args(args);
  EXPECT_NE(run.run(), 0);
  EXPECT_THAT(run.reason(), ::testing::HasSubstr("conv_plan_missing"));
  EXPECT_EQ(run.stat("soc.aicore0.blocks_faulted"), 1);
}

// ---- MatMul ----------------------------------------------------------------

struct MatMulCase {
  std::size_t batch = 1, m, k, n;
  bool trans_a = false, trans_b = false;
  std::size_t lda = 0, ldb = 0, ldc = 0;  // 0: dense
  bool broadcast_a = false, broadcast_b = false;
  float alpha = 1.0f;
  bool bias = false, residual = false;
  std::uint64_t act = NPUVP_ACT_NONE;
  float clip_lo = -0.5f, clip_hi = 0.5f;
  std::uint64_t tile_m = 0, tile_n = 0;
  bool double_buffer = true;
  unsigned tall = 0;  // the C tiles' height (NPUVP_CONV_FLAGS bits 1-2)
  unsigned cores = 1;
  std::uint64_t blocks = 0;
  std::uint64_t base = kDdrData;
};

// Returns the Cube utilisation (MACs / (cycles x 2048 x cores)).
double run_matmul(const MatMulCase& c) {
  // Stored shapes: A is M x K (K x M transposed), B is K x N (N x K transposed).
  const std::size_t a_rows = c.trans_a ? c.k : c.m, a_cols = c.trans_a ? c.m : c.k;
  const std::size_t b_rows = c.trans_b ? c.n : c.k, b_cols = c.trans_b ? c.k : c.n;
  const std::size_t lda = c.lda ? c.lda : a_cols, ldb = c.ldb ? c.ldb : b_cols, ldc = c.ldc ? c.ldc : c.n;
  const std::size_t a_bs = c.broadcast_a ? 0 : a_rows * lda, b_bs = c.broadcast_b ? 0 : b_rows * ldb;
  const std::size_t c_bs = c.m * ldc;
  const std::size_t a_batches = c.broadcast_a ? 1 : c.batch, b_batches = c.broadcast_b ? 1 : c.batch;
  const auto a = random_halves(a_batches * a_rows * lda, 41);
  const auto b = random_halves(b_batches * b_rows * ldb, 42);
  const auto bias = random_floats(c.n, 43);
  const auto residual = random_halves(c.batch * c_bs, 44);
  const std::size_t c_halves = c.batch * c_bs;

  KernelRun run("op_matmul", cores_parameters(c.cores));
  Arena arena(c.base);
  const std::uint64_t a_addr = arena.take(a.size() * 2), b_addr = arena.take(b.size() * 2),
                      bias_addr = c.bias ? arena.take(bias.size() * 4) : 0,
                      r_addr = c.residual ? arena.take(residual.size() * 2) : 0, c_addr = arena.take(c_halves * 2);
  run.write(a_addr, a);
  run.write(b_addr, b);
  if (c.bias) run.write(bias_addr, bias);
  if (c.residual) run.write(r_addr, residual);
  prefill_output(run, c_addr, c_halves);

  std::vector<std::uint64_t> args(NPUVP_OP_ARG_TAG + 1, 0);
  args[NPUVP_MATMUL_A] = a_addr;
  args[NPUVP_MATMUL_B] = b_addr;
  args[NPUVP_MATMUL_BIAS] = bias_addr;
  args[NPUVP_MATMUL_RESIDUAL] = r_addr;
  args[NPUVP_MATMUL_C] = c_addr;
  args[NPUVP_MATMUL_BATCH] = c.batch;
  args[NPUVP_MATMUL_M] = c.m;
  args[NPUVP_MATMUL_K] = c.k;
  args[NPUVP_MATMUL_N] = c.n;
  args[NPUVP_MATMUL_LDA] = lda;
  args[NPUVP_MATMUL_LDB] = ldb;
  args[NPUVP_MATMUL_LDC] = ldc;
  args[NPUVP_MATMUL_A_BATCH_STRIDE] = a_bs;
  args[NPUVP_MATMUL_B_BATCH_STRIDE] = b_bs;
  args[NPUVP_MATMUL_C_BATCH_STRIDE] = c_bs;
  args[NPUVP_MATMUL_TRANS_A] = c.trans_a;
  args[NPUVP_MATMUL_TRANS_B] = c.trans_b;
  args[NPUVP_MATMUL_ALPHA] = c.alpha == 1.0f ? 0 : f32_bits(c.alpha);
  args[NPUVP_MATMUL_ACT] = c.act;
  args[NPUVP_MATMUL_CLIP_MIN] = f32_bits(c.clip_lo);
  args[NPUVP_MATMUL_CLIP_MAX] = f32_bits(c.clip_hi);
  args[NPUVP_MATMUL_TILE_M] = c.tile_m;
  args[NPUVP_MATMUL_TILE_N] = c.tile_n;
  args[NPUVP_MATMUL_FLAGS] = c.double_buffer ? 1 : 0;
  std::vector<std::uint16_t> out;
  if (!run_and_read(run, args, c.cores, c.blocks, c_addr, c_halves, out)) return 0;

  Mismatches bad;
  for (std::size_t bt = 0; bt < c.batch; ++bt) {
    const std::size_t a0 = c.broadcast_a ? 0 : bt * a_bs, b0 = c.broadcast_b ? 0 : bt * b_bs;
    for (std::size_t i = 0; i < c.m; ++i)
      for (std::size_t j = 0; j < ldc; ++j) {
        const std::uint16_t got_bits = out[bt * c_bs + i * ldc + j];
        const std::string where =
            "batch " + std::to_string(bt) + " (" + std::to_string(i) + ", " + std::to_string(j) + ")";
        if (j >= c.n) {  // beyond N in a wider C: untouched
          if (got_bits != kSentinel) bad.report(where + " (outside C)", half_to_float(got_bits), kSentinel, 0);
          continue;
        }
        double acc = 0, sum_abs = 0;
        for (std::size_t kk = 0; kk < c.k; ++kk) {
          const std::uint16_t av = c.trans_a ? a[a0 + kk * lda + i] : a[a0 + i * lda + kk];
          const std::uint16_t bv = c.trans_b ? b[b0 + j * ldb + kk] : b[b0 + kk * ldb + j];
          const double term = static_cast<double>(half_to_float(av)) * half_to_float(bv);
          acc += term;
          sum_abs += std::fabs(term);
        }
        acc *= c.alpha;
        sum_abs *= std::fabs(c.alpha);
        if (c.bias) acc += bias[j];
        double value = acc;
        if (c.residual) value += half_to_float(residual[bt * c_bs + i * ldc + j]);
        value = apply_activation(value, c.act, c.clip_lo, c.clip_hi);
        bad.check(where, got_bits, acc, value, sum_abs);
      }
  }
  EXPECT_EQ(bad.count, 0u) << "mismatching elements";
  const Totals t = totals(run, c.cores);
  EXPECT_EQ(t.macs, static_cast<double>(c.batch * c.m * c.k * c.n));
  const double utilization = t.macs / (t.cycles * 2048.0 * c.cores);
  const double bytes = (c.batch * (c.m * c.k + c.n * c.m * (c.residual ? 2 : 1)) + (c.broadcast_b ? 1 : c.batch) * c.k * c.n) * 2.0;
  std::printf("matmul %zu x %zux%zux%zu on %u cores (%s): %.0f cycles, Cube utilisation %.3f; DDR read %.0f written %.0f "
              "bytes; bounds: compute %.0f, memory %.0f cycles\n",
              c.batch, c.m, c.k, c.n, c.cores, c.double_buffer ? "double-buffered" : "serial", t.cycles, utilization,
              t.ddr_read, t.ddr_written, t.macs / (2048.0 * c.cores), bytes / 12.8);
  return utilization;
}

TEST(OperatorMatMul, BatchedOddSizesBiasRelu) {
  MatMulCase c{3, 37, 45, 29};
  c.bias = true;
  c.act = NPUVP_ACT_RELU;
  run_matmul(c);
}
// B shared by every batch (batch stride 0), A transposed, on 2 cores x 5 blocks.
TEST(OperatorMatMul, BroadcastBTransposedA) {
  MatMulCase c{4, 70, 50, 33};
  c.broadcast_b = true;
  c.trans_a = true;
  c.cores = 2;
  c.blocks = 5;
  run_matmul(c);
}
// Attention scores: Q x K^T (B transposed), scaled by alpha, A broadcast.
TEST(OperatorMatMul, TransposedBAlphaBroadcastA) {
  MatMulCase c{2, 40, 64, 300};
  c.trans_b = true;
  c.broadcast_a = true;
  c.alpha = 0.125f;
  run_matmul(c);
}
// C's rows 32 bytes apart and 8 columns wide (attention's head merge, head dim 8 of 2 heads):
// the tile's store and residual load move only its 8 columns, not whole 16-column groups (the
// 5HD path wrote zeros over the other head's columns).
TEST(OperatorMatMul, EightColumnsOfRowsThirtyTwoBytesApart) {
  MatMulCase c{2, 6, 8, 8};
  c.ldc = 16;
  c.residual = true;
  run_matmul(c);
}
TEST(OperatorMatMul, BothTransposed) {
  MatMulCase c{1, 50, 140, 20};
  c.trans_a = c.trans_b = true;
  run_matmul(c);
}
// A and C are column slices of wider matrices (lda > k, ldc > n): the
// columns of C beyond N stay untouched.
TEST(OperatorMatMul, ColumnSlicesOfWiderMatrices) {
  MatMulCase c{2, 33, 45, 27};
  c.lda = 100;
  c.ldb = 40;
  c.ldc = 61;
  c.bias = true;
  c.residual = true;
  run_matmul(c);
}
// alpha with bias (scaled f32 path), residual and Clip.
TEST(OperatorMatMul, AlphaBiasResidualClip) {
  MatMulCase c{1, 70, 90, 150};
  c.alpha = -0.75f;
  c.bias = true;
  c.residual = true;
  c.act = NPUVP_ACT_CLIP;
  run_matmul(c);
}
TEST(OperatorMatMul, M1) { run_matmul(MatMulCase{1, 1, 200, 300}); }
TEST(OperatorMatMul, K1) {
  MatMulCase c{2, 20, 1, 30};
  c.bias = true;
  run_matmul(c);
}
TEST(OperatorMatMul, N1) { run_matmul(MatMulCase{1, 300, 70, 1}); }
TEST(OperatorMatMul, OneByOneByOne) {
  MatMulCase c{1, 1, 1, 1};
  c.residual = true;
  run_matmul(c);
}
// BERT's FFN down-projection shape: K = 3072 (A streams through L1), bias.
TEST(OperatorMatMul, LongK3072TwoCores) {
  MatMulCase c{1, 128, 3072, 96};
  c.bias = true;
  c.cores = 2;
  run_matmul(c);
}
// A transformer FFN's down-projection with its residual (M 250, K 2048, N 64 in 128 x 64 tiles):
// the A block of a tile row (16 stages of K) fills L1's one bank, so the next row's first load
// waits for the bank the previous row frees at its last stage. Loaded LOOKAHEAD stages early,
// that wait sat in the MTE2 queue ahead of the last tile's residual prefetch, the queue filled,
// the scalar unit stalled before issuing the set, and the kernel deadlocked (load_ready).
TEST(OperatorMatMul, OneBankOfLongKRowsWithResidual) {
  MatMulCase c{1, 250, 2048, 64};
  c.residual = true;
  c.bias = true;
  c.tile_m = 128;
  c.tile_n = 64;
  run_matmul(c);
}
TEST(OperatorMatMul, SerialResidual) {
  MatMulCase c{2, 100, 130, 70};
  c.residual = true;
  c.bias = true;
  c.double_buffer = false;
  run_matmul(c);
}
// The planner's tile sizes: tall-narrow and short-wide tiles.
// 1024^3 on one AI Core with the operands in the L2 buffer, as the gemm
// kernel's benchmark (tests/bench/gemm_bench.cpp) runs it: the automatic
// tiling must keep the Cube as busy as the hand-written kernel (docs/kernels.md).
TEST(OperatorMatMul, Square1024InL2KeepsCubeBusy) {
  MatMulCase c{1, 1024, 1024, 1024};
  c.base = 0x3000'0000;
  const double utilization = run_matmul(c);
  EXPECT_GT(utilization, 0.85);
}
// BERT-base shapes (sequence 128, d 768, 12 heads, FFN 3072) on 2 AI Cores, in DDR.
TEST(OperatorMatMul, BertFfnUp128x768x3072) {
  MatMulCase c{1, 128, 768, 3072};
  c.bias = true;
  c.cores = 2;
  run_matmul(c);
}
TEST(OperatorMatMul, BertFfnDown128x3072x768Residual) {  // A (128 x 3072) resident: 24 slots
  MatMulCase c{1, 128, 3072, 768};
  c.bias = true;
  c.residual = true;
  c.cores = 2;
  run_matmul(c);
}
TEST(OperatorMatMul, BertAttentionScores) {  // Q x K^T / sqrt(64) for 12 heads
  MatMulCase c{12, 128, 64, 128};
  c.trans_b = true;
  c.alpha = 0.125f;
  c.cores = 2;
  run_matmul(c);
}
// Overlapping rows (LDA < K) are a caller's error: a fault naming it.
TEST(OperatorMatMul, RowStrideBelowKFaults) {
  KernelRun run("op_matmul");
  std::vector<std::uint64_t> args(NPUVP_OP_ARG_TAG + 1, 0);
  args[NPUVP_MATMUL_A] = kDdrData;
  args[NPUVP_MATMUL_B] = kDdrData + 0x10000;
  args[NPUVP_MATMUL_C] = kDdrData + 0x20000;
  args[NPUVP_MATMUL_BATCH] = 1;
  args[NPUVP_MATMUL_M] = args[NPUVP_MATMUL_K] = args[NPUVP_MATMUL_N] = 32;
  args[NPUVP_MATMUL_LDA] = 16;
  args[NPUVP_MATMUL_LDB] = args[NPUVP_MATMUL_LDC] = 32;
  args[NPUVP_MATMUL_FLAGS] = 1;
  run.set_args(args);
  EXPECT_NE(run.run(), 0);
  EXPECT_THAT(run.reason(), ::testing::HasSubstr("matmul_row_stride_too_small"));
}
TEST(OperatorMatMul, ExplicitTiles512x64) {
  MatMulCase c{1, 600, 200, 150};
  c.tile_m = 512;
  c.tile_n = 64;
  c.bias = true;
  run_matmul(c);
}
TEST(OperatorMatMul, ExplicitTiles64x256FourCores) {
  MatMulCase c{3, 100, 100, 600};
  c.tile_m = 64;
  c.tile_n = 256;
  c.cores = 4;
  c.blocks = 6;
  c.act = NPUVP_ACT_RELU;
  run_matmul(c);
}

}  // namespace
}  // namespace npuvp
