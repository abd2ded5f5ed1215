// The spatial operator kernels of sw/kernels (op_copy, op_pool, op_dwconv;
// argument words in sw/include/npuvp/operator_kernels.h) end to end on the
// SoC against independent C++ references. One KernelRun per TEST:
// gtest_discover_tests runs each TEST in its own process.
//
// References: the copy is a nested loop over the index space applied to a
// copy of the whole pre-filled output area (so bytes outside the
// destination elements, e.g. a Concat neighbour, must stay as they were);
// max pooling is exact; average pooling and the depthwise convolution are
// computed in double and rounded to f16, and the kernel (f32 accumulation)
// must be within one f16 ulp plus the f32 rounding of the sum.
#include "integration/kernel_harness.h"
#include "integration/kernel_test_support.h"
#include "npu/numerics.h"
#include "../../sw/include/npuvp/operator_kernels.h"  // sw/include is not on the tests' include path

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
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

std::vector<std::uint8_t> random_bytes(std::size_t count, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint8_t> bytes(count);
  for (auto& b : bytes) b = static_cast<std::uint8_t>(rng());
  return bytes;
}

// f16 values within one ulp (of the larger magnitude) plus `slack`.
bool close_halves(std::uint16_t got, double expected, double slack) {
  const double g = half_to_float(got);
  if (std::isnan(g)) return false;
  return std::fabs(g - expected) <= ulp16(std::max(std::fabs(g), std::fabs(expected))) + slack;
}

// ---- op_copy --------------------------------------------------------------

struct CopyCase {
  std::string name;
  std::uint64_t element_bytes = 2;
  std::array<std::uint64_t, 6> dims{1, 1, 1, 1, 1, 1};
  std::array<std::uint64_t, 6> in_strides{0, 0, 0, 0, 0, 0};
  std::array<std::uint64_t, 6> out_strides{0, 0, 0, 0, 0, 0};
  std::uint64_t out_offset = 0;  // elements from the start of the output area to out
  unsigned cores = 2;
  std::uint64_t blocks = 0;
};

// Elements spanned by a strided index space (1 + the largest offset).
std::uint64_t span_of(const std::array<std::uint64_t, 6>& dims, const std::array<std::uint64_t, 6>& strides) {
  std::uint64_t last = 0;
  for (int d = 0; d < 6; ++d) last += (dims[d] - 1) * strides[d];
  return last + 1;
}

void copy_reference(const CopyCase& c, const std::vector<std::uint8_t>& in, std::vector<std::uint8_t>& out) {
  const auto& n = c.dims;
  const std::uint64_t e = c.element_bytes;
  for (std::uint64_t i0 = 0; i0 < n[0]; ++i0)
    for (std::uint64_t i1 = 0; i1 < n[1]; ++i1)
      for (std::uint64_t i2 = 0; i2 < n[2]; ++i2)
        for (std::uint64_t i3 = 0; i3 < n[3]; ++i3)
          for (std::uint64_t i4 = 0; i4 < n[4]; ++i4)
            for (std::uint64_t i5 = 0; i5 < n[5]; ++i5) {
              const std::array<std::uint64_t, 6> i{i0, i1, i2, i3, i4, i5};
              std::uint64_t src = 0, dst = c.out_offset;
              for (int d = 0; d < 6; ++d) {
                src += i[d] * c.in_strides[d];
                dst += i[d] * c.out_strides[d];
              }
              std::memcpy(&out[dst * e], &in[src * e], e);
            }
}

double run_copy(const CopyCase& c) {
  KernelRun run("op_copy", cores_parameters(c.cores));
  const std::uint64_t e = c.element_bytes;
  const std::uint64_t in_bytes = span_of(c.dims, c.in_strides) * e;
  const std::uint64_t out_bytes = (c.out_offset + span_of(c.dims, c.out_strides)) * e + 64;  // + a guard band
  const auto in = random_bytes(in_bytes, 11);
  const auto before = random_bytes(out_bytes, 12);  // existing data around (and under) the destination
  const std::uint64_t in_addr = kDdrData + 8, out_area = align_up(kDdrData + in_bytes + 4096, 4096) + 6;
  run.write(in_addr, in);
  run.write(out_area, before);
  std::vector<std::uint64_t> args(NPUVP_COPY_ARG_COUNT, 0);
  args[NPUVP_COPY_OUT] = out_area + c.out_offset * e;
  args[NPUVP_COPY_IN] = in_addr;
  args[NPUVP_COPY_ELEMENT_BYTES] = e;
  for (int d = 0; d < 6; ++d) {
    args[NPUVP_COPY_DIM0 + d] = c.dims[d];
    args[NPUVP_COPY_IN_STRIDE0 + d] = c.in_strides[d];
    args[NPUVP_COPY_OUT_STRIDE0 + d] = c.out_strides[d];
  }
  run.set_args(args);
  const int status = run.run(c.cores, c.blocks);
  EXPECT_EQ(status, 0) << run.reason();
  if (status != 0) return 0;

  auto expected = before;
  copy_reference(c, in, expected);
  const auto got = run.read<std::uint8_t>(out_area, out_bytes);
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i] != expected[i] && ++mismatches <= 8)
      ADD_FAILURE() << c.name << ": output byte " << i << " (element " << i / e - c.out_offset << "): got "
                    << int(got[i]) << ", expected " << int(expected[i])
                    << (expected[i] == before[i] ? " (untouched)" : "");
  EXPECT_EQ(mismatches, 0u) << "of " << got.size() << " bytes";
  const double cycles = launch_cycles(run, c.cores);
  std::uint64_t elements = 1;
  for (auto d : c.dims) elements *= d;
  std::printf("op_copy %s: %llu elements of %llu bytes, %.0f cycles, %.2f bytes/cycle\n", c.name.c_str(),
              static_cast<unsigned long long>(elements), static_cast<unsigned long long>(e), cycles,
              cycles > 0 ? static_cast<double>(elements * e) / cycles : 0.0);
  return cycles;
}

// Dims in output order with dense output strides; in_strides given.
CopyCase dense_out(std::string name, std::vector<std::uint64_t> dims, std::vector<std::uint64_t> in_strides) {
  CopyCase c;
  c.name = std::move(name);
  const std::size_t pad = 6 - dims.size();
  std::uint64_t stride = 1;
  for (std::size_t k = dims.size(); k-- > 0;) {
    c.dims[pad + k] = dims[k];
    c.in_strides[pad + k] = in_strides[k];
    c.out_strides[pad + k] = stride;
    stride *= dims[k];
  }
  return c;
}

TEST(OperatorCopy, Transpose37x45) { run_copy(dense_out("transpose 37x45", {45, 37}, {1, 45})); }

TEST(OperatorCopy, Transpose37x45FourCoresSevenBlocks) {
  CopyCase c = dense_out("transpose 37x45 (4 cores)", {45, 37}, {1, 45});
  c.cores = 4;
  c.blocks = 7;
  run_copy(c);
}

// BERT's head split: [1,128,12,64] -> (0,2,1,3) -> [1,12,128,64]; rows of 64
// elements contiguous on both sides (the row path).
TEST(OperatorCopy, BertHeadSplit) {
  run_copy(dense_out("bert head split [1,128,12,64] perm (0,2,1,3)", {1, 12, 128, 64},
                     {128 * 768, 64, 768, 1}));
}

// BERT's K^T: [12,128,64] -> [12,64,128] (the transpose path, large tiles).
TEST(OperatorCopy, BertKeyTranspose) {
  run_copy(dense_out("bert key transpose [12,128,64] -> [12,64,128]", {12, 64, 128}, {128 * 64, 1, 64}));
}

TEST(OperatorCopy, Rank6Permutation) {
  // in [2,3,4,5,6,7] dense, out = permutation (5,1,3,0,4,2).
  const std::vector<std::uint64_t> shape{2, 3, 4, 5, 6, 7};
  std::vector<std::uint64_t> in_strides(6);
  std::uint64_t s = 1;
  for (int d = 5; d >= 0; --d) {
    in_strides[d] = s;
    s *= shape[d];
  }
  const std::vector<int> perm{5, 1, 3, 0, 4, 2};
  std::vector<std::uint64_t> dims, strides;
  for (int p : perm) {
    dims.push_back(shape[p]);
    strides.push_back(in_strides[p]);
  }
  run_copy(dense_out("rank-6 permutation (5,1,3,0,4,2)", dims, strides));
}

// NCHW -> 5HD (N x C1 x H x W x 16) for channels [c_begin, c_end) of one
// channel group range: dims (groups, H*W, channels per group) in output order.
CopyCase nchw_to_5hd(std::string name, std::uint64_t channels, std::uint64_t hw, std::uint64_t c_begin,
                     std::uint64_t c_end) {
  CopyCase c;
  c.name = std::move(name);
  const std::uint64_t groups = (c_end - c_begin + 15) / 16, per_group = std::min<std::uint64_t>(16, c_end - c_begin);
  c.dims = {1, 1, 1, groups, hw, per_group};
  c.in_strides = {0, 0, 0, 16 * hw, 1, hw};
  c.out_strides = {0, 0, 0, 16 * hw, 16, 1};
  c.out_offset = c_begin / 16 * 16 * hw;
  (void)channels;
  return c;
}
CopyCase from_5hd(std::string name, std::uint64_t hw, std::uint64_t c_begin, std::uint64_t c_end) {
  CopyCase c;
  c.name = std::move(name);
  const std::uint64_t groups = (c_end - c_begin + 15) / 16, per_group = std::min<std::uint64_t>(16, c_end - c_begin);
  c.dims = {1, 1, 1, groups, per_group, hw};
  c.in_strides = {0, 0, 0, 16 * hw, 1, 16};
  c.out_strides = {0, 0, 0, 16 * hw, hw, 1};
  c.out_offset = c_begin * hw;
  return c;
}
// The input of these copies starts at the first channel of the range; the
// reference reads from index 0 of the given input, as the kernel does.

TEST(OperatorCopy, NchwTo5hdC3At224) { run_copy(nchw_to_5hd("NCHW 3x224x224 -> 5HD", 3, 224 * 224, 0, 3)); }
TEST(OperatorCopy, NchwTo5hdC64At56FiveBlocks) {
  CopyCase c = nchw_to_5hd("NCHW 64x56x56 -> 5HD", 64, 56 * 56, 0, 64);
  c.blocks = 5;
  run_copy(c);
}
// C = 17: the full first group is the C = 64 case; this is the ragged last
// group (channel 16 alone) next to existing data.
TEST(OperatorCopy, NchwTo5hdC17LastGroup) { run_copy(nchw_to_5hd("NCHW 17x15x13 -> 5HD, c 16", 17, 15 * 13, 16, 17)); }
TEST(OperatorCopy, NchwTo5hdC17FirstGroup) { run_copy(nchw_to_5hd("NCHW 17x15x13 -> 5HD, c 0-15", 17, 15 * 13, 0, 16)); }
TEST(OperatorCopy, FiveHdToNchwC3At224) { run_copy(from_5hd("5HD -> NCHW 3x224x224", 224 * 224, 0, 3)); }
TEST(OperatorCopy, FiveHdToNchwC17) { run_copy(from_5hd("5HD -> NCHW 17x15x13, c 16", 15 * 13, 16, 17)); }
TEST(OperatorCopy, FiveHdToNchwC64At56FourCores) {
  CopyCase c = from_5hd("5HD -> NCHW 64x56x56 (4 cores)", 56 * 56, 0, 64);
  c.cores = 4;
  c.blocks = 8;
  run_copy(c);
}

// Concat: [2,3,7] into the middle slice [:, 1:4, :] of a [2,5,7] tensor; the
// other slices hold existing data that must stay.
TEST(OperatorCopy, ConcatSliceNextToExistingData) {
  CopyCase c;
  c.name = "concat slice [2,3,7] into [2,5,7] at 1";
  c.dims = {1, 1, 1, 2, 3, 7};
  c.in_strides = {0, 0, 0, 21, 7, 1};
  c.out_strides = {0, 0, 0, 35, 7, 1};
  c.out_offset = 7;
  run_copy(c);
}
// Concat along the last axis: rows of 5 elements next to rows of another input.
TEST(OperatorCopy, ConcatLastAxisOddRows) {
  CopyCase c;
  c.name = "concat [300,5] into [300,12] at column 4";
  c.dims = {1, 1, 1, 1, 300, 5};
  c.in_strides = {0, 0, 0, 0, 5, 1};
  c.out_strides = {0, 0, 0, 0, 12, 1};
  c.out_offset = 4;
  c.blocks = 3;
  run_copy(c);
}
// A row longer than a UB half (pieces) split over blocks.
TEST(OperatorCopy, LongContiguousRow) {
  run_copy(dense_out("contiguous 300001 elements", {300001}, {1}));
}
TEST(OperatorCopy, OneElement) { run_copy(dense_out("one element", {1}, {1})); }
TEST(OperatorCopy, OneByteElementsContiguous) {
  CopyCase c = dense_out("1-byte rows [37,29] slice", {37, 29}, {31, 1});
  c.element_bytes = 1;
  run_copy(c);
}
TEST(OperatorCopy, OneByteElementsTranspose) {
  CopyCase c = dense_out("1-byte transpose 19x23", {23, 19}, {1, 23});
  c.element_bytes = 1;
  run_copy(c);
}
TEST(OperatorCopy, OneByteOneElement) {
  CopyCase c = dense_out("1-byte one element", {1}, {1});
  c.element_bytes = 1;
  run_copy(c);
}
TEST(OperatorCopy, FourByteTranspose) {
  CopyCase c = dense_out("4-byte transpose 70x130", {130, 70}, {1, 130});
  c.element_bytes = 4;
  run_copy(c);
}
// A strided gather (Slice with step 3) and a broadcast (input stride 0).
TEST(OperatorCopy, StridedGather) { run_copy(dense_out("slice step 3 [50,40]", {50, 40}, {200, 3})); }
TEST(OperatorCopy, Broadcast) { run_copy(dense_out("broadcast [9] -> [33,9]", {33, 9}, {0, 1})); }
TEST(OperatorCopy, BroadcastColumn) { run_copy(dense_out("broadcast [33,1] -> [33,9]", {33, 9}, {1, 0})); }

// ---- 5HD helpers ------------------------------------------------------------

// Random 5HD tensor with the padded channels (C .. C1*16) zero.
std::vector<std::uint16_t> random_5hd(std::uint64_t n, std::uint64_t channels, std::uint64_t h, std::uint64_t w,
                                      std::uint32_t seed, float low = -1.0f, float high = 1.0f) {
  const std::uint64_t c1 = (channels + 15) / 16;
  auto values = random_halves(n * c1 * h * w * 16, seed, low, high);
  for (std::uint64_t i = 0; i < values.size(); ++i) {
    const std::uint64_t c = (i / (h * w * 16)) % c1 * 16 + i % 16;
    if (c >= channels) values[i] = 0;
  }
  return values;
}

void expect_close(const std::vector<std::uint16_t>& got, const std::vector<double>& expected,
                  const std::vector<double>& slack, const std::string& what) {
  ASSERT_EQ(got.size(), expected.size());
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!close_halves(got[i], expected[i], slack[i]) && ++mismatches <= 8)
      ADD_FAILURE() << what << ": element " << i << " (pixel " << i / 16 << ", c0 " << i % 16 << "): got "
                    << half_to_float(got[i]) << ", expected " << expected[i];
  EXPECT_EQ(mismatches, 0u) << "of " << got.size() << " elements";
}

// A column strip of a window layer, as the compiler runs maps wider than the kernels' unified
// buffer holds (window_plan.h): output columns [col, col + cols) from input columns
// [in_col, in_col + in_cols) with the strip's own padding, rows the whole map's apart in memory
// (the kernels' *_ROW_PITCH words). Worked out here from the window's definition, independently
// of the compiler's code.
struct Strip {
  std::uint64_t col = 0, cols = 0;  // cols 0: the whole map, dense
  std::uint64_t in_col = 0, in_cols = 0, pad_left = 0, pad_right = 0;
};
Strip strip_of(std::uint64_t col, std::uint64_t cols, std::uint64_t w, std::uint64_t kw, std::uint64_t sw,
               std::uint64_t dw, std::uint64_t pl) {
  Strip s{col, cols};
  const std::int64_t first = std::int64_t(col * sw) - std::int64_t(pl);          // its first window's first column
  const std::int64_t last = first + std::int64_t((cols - 1) * sw + (kw - 1) * dw);  // its last window's last
  s.in_col = std::uint64_t(std::max<std::int64_t>(first, 0));
  s.in_cols = std::uint64_t(std::min<std::int64_t>(last, std::int64_t(w) - 1)) - s.in_col + 1;
  s.pad_left = first < 0 ? std::uint64_t(-first) : 0;
  s.pad_right = std::uint64_t(last - std::int64_t(s.in_col + s.in_cols - 1));
  return s;
}
// Output elements (5HD, wo columns) the strip writes; the others must keep the sentinel.
bool in_strip(const Strip& s, std::uint64_t element, std::uint64_t wo) {
  const std::uint64_t ow = element / 16 % wo;
  return s.cols == 0 || (ow >= s.col && ow < s.col + s.cols);
}
// Outside the strip the output is untouched (the sentinel); those elements then compare equal
// (0 against 0), so that the caller's comparison judges the strip's.
void expect_only_strip_written(const Strip& s, std::uint64_t wo, std::vector<std::uint16_t>& got,
                               std::vector<double>& expected, std::vector<double>& slack) {
  std::size_t written = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (in_strip(s, i, wo)) continue;
    if (got[i] != kSentinel && ++written <= 8) ADD_FAILURE() << "element " << i << " outside the strip written";
    got[i] = 0;
    expected[i] = slack[i] = 0;
  }
  EXPECT_EQ(written, 0u);
}

// ---- op_pool ----------------------------------------------------------------

struct PoolCase {
  std::string name;
  std::uint64_t mode = NPUVP_POOL_MAX;
  std::uint64_t n = 1, channels = 16, h = 8, w = 8, kh = 3, kw = 3, sh = 1, sw = 1, pt = 0, pb = 0, pl = 0,
                pr = 0, dh = 1, dw = 1;
  unsigned cores = 2;
  std::uint64_t blocks = 0;
  std::uint64_t strip_col = 0, strip_cols = 0;  // a launch over output columns [col, col + cols) only
};

double run_pool(const PoolCase& c) {
  KernelRun run("op_pool", cores_parameters(c.cores));
  const std::uint64_t c1 = (c.channels + 15) / 16;
  const std::uint64_t ho = window_output_size(c.h, c.pt, c.pb, c.dh, c.kh, c.sh);
  const std::uint64_t wo = window_output_size(c.w, c.pl, c.pr, c.dw, c.kw, c.sw);
  const auto in = random_5hd(c.n, c.channels, c.h, c.w, 21, -4.0f, 4.0f);
  const std::uint64_t out_count = c.n * c1 * ho * wo * 16;
  const std::uint64_t in_addr = kDdrData, out_addr = align_up(in_addr + in.size() * 2 + 4096, 4096);
  run.write(in_addr, in);
  prefill_output(run, out_addr, out_count);
  std::vector<std::uint64_t> args(NPUVP_POOL_ARG_COUNT, 0);
  args[NPUVP_POOL_IN] = in_addr;
  args[NPUVP_POOL_OUT] = out_addr;
  args[NPUVP_POOL_MODE] = c.mode;
  args[NPUVP_POOL_N] = c.n;
  args[NPUVP_POOL_C1] = c1;
  args[NPUVP_POOL_H] = c.h;
  args[NPUVP_POOL_W] = c.w;
  args[NPUVP_POOL_HO] = ho;
  args[NPUVP_POOL_WO] = wo;
  args[NPUVP_POOL_KH] = c.kh;
  args[NPUVP_POOL_KW] = c.kw;
  args[NPUVP_POOL_STRIDE_H] = c.sh;
  args[NPUVP_POOL_STRIDE_W] = c.sw;
  args[NPUVP_POOL_PAD_TOP] = c.pt;
  args[NPUVP_POOL_PAD_LEFT] = c.pl;
  args[NPUVP_POOL_DILATION_H] = c.dh;
  args[NPUVP_POOL_DILATION_W] = c.dw;
  const Strip strip = c.strip_cols ? strip_of(c.strip_col, c.strip_cols, c.w, c.kw, c.sw, c.dw, c.pl) : Strip{};
  if (c.strip_cols) {
    args[NPUVP_POOL_IN] = in_addr + strip.in_col * 32;
    args[NPUVP_POOL_OUT] = out_addr + strip.col * 32;
    args[NPUVP_POOL_W] = strip.in_cols;
    args[NPUVP_POOL_WO] = strip.cols;
    args[NPUVP_POOL_PAD_LEFT] = strip.pad_left;
    args[NPUVP_POOL_IN_ROW_PITCH] = c.w;
    args[NPUVP_POOL_OUT_ROW_PITCH] = wo;
  }
  run.set_args(args);
  const int status = run.run(c.cores, c.blocks);
  EXPECT_EQ(status, 0) << run.reason();
  if (status != 0) return 0;

  // Reference: every window directly, in double.
  std::vector<double> expected(out_count), slack(out_count, 0.0);
  for (std::uint64_t plane = 0; plane < c.n * c1; ++plane)
    for (std::uint64_t oh = 0; oh < ho; ++oh)
      for (std::uint64_t ow = 0; ow < wo; ++ow)
        for (std::uint64_t c0 = 0; c0 < 16; ++c0) {
          double max = -INFINITY, sum = 0, abs_sum = 0;
          std::uint64_t count = 0;
          for (std::uint64_t i = 0; i < c.kh; ++i)
            for (std::uint64_t j = 0; j < c.kw; ++j) {
              std::uint64_t ih, iw;
              if (!window_input(oh, i, c.sh, c.dh, c.pt, c.h, ih) || !window_input(ow, j, c.sw, c.dw, c.pl, c.w, iw))
                continue;
              const double x = half_to_float(in[((plane * c.h + ih) * c.w + iw) * 16 + c0]);
              max = std::max(max, x);
              sum += x;
              abs_sum += std::fabs(x);
              count++;
            }
          const std::uint64_t o = ((plane * ho + oh) * wo + ow) * 16 + c0;
          if (c.mode == NPUVP_POOL_MAX) {
            expected[o] = max;
          } else {
            const double divisor = c.mode == NPUVP_POOL_AVERAGE ? static_cast<double>(count)
                                                               : static_cast<double>(c.kh * c.kw);
            expected[o] = sum / divisor;
            slack[o] = 1e-6 * abs_sum / divisor;  // f32 accumulation
          }
        }
  auto got = run.read<std::uint16_t>(out_addr, out_count);
  expect_only_strip_written(strip, wo, got, expected, slack);
  if (c.mode == NPUVP_POOL_MAX) {  // exact
    std::size_t mismatches = 0;
    for (std::uint64_t i = 0; i < out_count; ++i)
      if (half_to_float(got[i]) != expected[i] && ++mismatches <= 8)
        ADD_FAILURE() << "element " << i << ": got " << half_to_float(got[i]) << ", expected " << expected[i];
    EXPECT_EQ(mismatches, 0u);
  } else {
    expect_close(got, expected, slack, c.name);
  }
  expect_guard_intact(run, out_addr, out_count);
  const double cycles = launch_cycles(run, c.cores);
  std::printf("op_pool %s: %.0f cycles, %.2f input bytes/cycle\n", c.name.c_str(), cycles,
              cycles > 0 ? in.size() * 2.0 / cycles : 0.0);
  return cycles;
}

// ResNet's stem max pool: 3x3, stride 2, pad 1 on 64 x 112 x 112.
TEST(OperatorPool, ResNetMaxPool3x3Stride2) {
  PoolCase c{"resnet maxpool 64x112x112 3x3/2 pad 1"};
  c.channels = 64;
  c.h = c.w = 112;
  c.sh = c.sw = 2;
  c.pt = c.pb = c.pl = c.pr = 1;
  c.blocks = 6;
  run_pool(c);
}
TEST(OperatorPool, MaxPoolOddShapeDilatedFourCores) {
  PoolCase c{"maxpool 2x20x17x23 3x2 dilation 2x3 stride 1x2"};
  c.n = 2;
  c.channels = 20;
  c.h = 17;
  c.w = 23;
  c.kh = 3;
  c.kw = 2;
  c.dh = 2;
  c.dw = 3;
  c.sw = 2;
  c.pt = 2;
  c.pl = 1;
  c.cores = 4;
  c.blocks = 9;
  run_pool(c);
}
// Average pooling 3x3/2 pad 1 on 20x17x13, without and with the padding counted.
PoolCase average_pool_padded(std::uint64_t mode) {
  PoolCase c{std::string("avgpool 20x17x13 3x3/2 pad 1, count_include_pad ") +
             (mode == NPUVP_POOL_AVERAGE_INCLUDE_PAD ? "1" : "0")};
  c.mode = mode;
  c.channels = 20;
  c.h = 17;
  c.w = 13;
  c.sh = c.sw = 2;
  c.pt = c.pb = c.pl = c.pr = 1;
  c.blocks = 3;
  return c;
}
TEST(OperatorPool, AveragePoolExcludePad) { run_pool(average_pool_padded(NPUVP_POOL_AVERAGE)); }
TEST(OperatorPool, AveragePoolIncludePad) { run_pool(average_pool_padded(NPUVP_POOL_AVERAGE_INCLUDE_PAD)); }
TEST(OperatorPool, AveragePool5x5Stride1Pad2TwoImages) {
  PoolCase c{"avgpool 2x48x28x28 5x5/1 pad 2"};
  c.mode = NPUVP_POOL_AVERAGE;
  c.n = 2;
  c.channels = 48;
  c.h = c.w = 28;
  c.kh = c.kw = 5;
  c.pt = c.pb = c.pl = c.pr = 2;
  c.blocks = 4;
  run_pool(c);
}
// Different strides (row by row), unit column stride: whole-pixel taps.
TEST(OperatorPool, AveragePoolStride2x1Dilated) {
  PoolCase c{"avgpool 24x19x21 3x2/(2,1) dilation 1x2 pad 1,1"};
  c.mode = NPUVP_POOL_AVERAGE;
  c.channels = 24;
  c.h = 19;
  c.w = 21;
  c.kh = 3;
  c.kw = 2;
  c.sh = 2;
  c.dw = 2;
  c.pt = c.pl = 1;
  c.blocks = 3;
  run_pool(c);
}
// GlobalAveragePool = the window of the whole map.
TEST(OperatorPool, GlobalAverage7x7x2048) {
  PoolCase c{"global average 2048x7x7"};
  c.mode = NPUVP_POOL_AVERAGE;
  c.channels = 2048;
  c.h = c.w = c.kh = c.kw = 7;
  c.blocks = 4;
  run_pool(c);
}
// Column strips of a 700-column map (rows the map's apart): max with padding (the first
// strip's is -inf), average not counting it (the last strip's divisors at the map's edge), and
// average counting it; nothing outside the strip is written.
PoolCase pool_strip(std::uint64_t mode, std::uint64_t col, std::uint64_t cols) {
  PoolCase c{"pool 32x9x700 3x3 s2 strip " + std::to_string(col) + "+" + std::to_string(cols)};
  c.mode = mode;
  c.channels = 32;
  c.h = 9;
  c.w = 700;
  c.sh = c.sw = 2;
  c.pt = c.pb = c.pl = c.pr = 1;
  c.blocks = 3;
  c.strip_col = col;
  c.strip_cols = cols;
  return c;
}
TEST(OperatorPool, ColumnStripMaxFirst) { run_pool(pool_strip(NPUVP_POOL_MAX, 0, 160)); }
TEST(OperatorPool, ColumnStripMaxMiddle) { run_pool(pool_strip(NPUVP_POOL_MAX, 160, 160)); }
TEST(OperatorPool, ColumnStripAverageLast) { run_pool(pool_strip(NPUVP_POOL_AVERAGE, 320, 30)); }
TEST(OperatorPool, ColumnStripAverageIncludePadFirst) { run_pool(pool_strip(NPUVP_POOL_AVERAGE_INCLUDE_PAD, 0, 64)); }

TEST(OperatorPool, GlobalAverage56x56) {
  PoolCase c{"global average 2x40x56x56"};
  c.mode = NPUVP_POOL_AVERAGE;
  c.n = 2;
  c.channels = 40;
  c.h = c.w = c.kh = c.kw = 56;
  c.cores = 4;
  c.blocks = 5;
  run_pool(c);
}
// Planes larger than one chunk (1024 pixels): pieces folded in turn.
TEST(OperatorPool, GlobalMax41x37ThreeBlocks) {
  PoolCase c{"global max 2x20x41x37"};
  c.n = 2;
  c.channels = 20;
  c.h = c.kh = 41;
  c.w = c.kw = 37;
  c.blocks = 3;
  run_pool(c);
}
TEST(OperatorPool, GlobalMax13x11) {
  PoolCase c{"global max 40x13x11"};
  c.channels = 40;
  c.h = c.kh = 13;
  c.w = c.kw = 11;
  run_pool(c);
}

// ---- op_dwconv --------------------------------------------------------------

struct DwCase {
  std::string name;
  std::uint64_t n = 1, channels = 32, h = 16, w = 16, kh = 3, kw = 3, sh = 1, sw = 1, pt = 1, pb = 1, pl = 1,
                pr = 1, dh = 1, dw = 1;
  bool bias = true, residual = false;
  std::uint64_t act = NPUVP_ACT_CLIP;
  float clip_min = 0.0f, clip_max = 6.0f;
  unsigned cores = 2;
  std::uint64_t blocks = 0;
  std::uint64_t strip_col = 0, strip_cols = 0;  // a launch over output columns [col, col + cols) only
  bool residual_in_place = false;  // the residual is the output buffer (the compiler's kernel-column groups)
};

double run_dwconv(const DwCase& c) {
  KernelRun run("op_dwconv", cores_parameters(c.cores));
  const std::uint64_t c1 = (c.channels + 15) / 16;
  const std::uint64_t ho = window_output_size(c.h, c.pt, c.pb, c.dh, c.kh, c.sh);
  const std::uint64_t wo = window_output_size(c.w, c.pl, c.pr, c.dw, c.kw, c.sw);
  const auto in = random_5hd(c.n, c.channels, c.h, c.w, 31, -2.0f, 2.0f);
  // Weights [C1][KH][KW][16], zero for padded channels.
  auto weights = random_halves(c1 * c.kh * c.kw * 16, 32, -1.0f, 1.0f);
  for (std::uint64_t i = 0; i < weights.size(); ++i)
    if (i / (c.kh * c.kw * 16) * 16 + i % 16 >= c.channels) weights[i] = 0;
  auto bias = random_floats(c.channels, 33, -0.5f, 0.5f);
  bias.resize(c1 * 16, 0.0f);
  const std::uint64_t out_count = c.n * c1 * ho * wo * 16;
  const auto residual = random_5hd(c.n, c.channels, ho, wo, 34);

  const std::uint64_t in_addr = kDdrData, w_addr = align_up(in_addr + in.size() * 2 + 64, 4096);
  const std::uint64_t b_addr = align_up(w_addr + weights.size() * 2 + 64, 4096);
  const std::uint64_t r_addr = align_up(b_addr + bias.size() * 4 + 64, 4096);
  const std::uint64_t out_addr = align_up(r_addr + residual.size() * 2 + 64, 4096);
  run.write(in_addr, in);
  run.write(w_addr, weights);
  run.write(b_addr, bias);
  run.write(r_addr, residual);
  prefill_output(run, out_addr, out_count);
  if (c.residual_in_place) run.write(out_addr, residual);  // the output so far, added to in place
  std::vector<std::uint64_t> args(NPUVP_DWCONV_ARG_COUNT, 0);
  args[NPUVP_DWCONV_IN] = in_addr;
  args[NPUVP_DWCONV_WEIGHTS] = w_addr;
  args[NPUVP_DWCONV_BIAS] = c.bias ? b_addr : 0;
  args[NPUVP_DWCONV_RESIDUAL] = c.residual ? (c.residual_in_place ? out_addr : r_addr) : 0;
  args[NPUVP_DWCONV_OUT] = out_addr;
  args[NPUVP_DWCONV_N] = c.n;
  args[NPUVP_DWCONV_C] = c.channels;
  args[NPUVP_DWCONV_H] = c.h;
  args[NPUVP_DWCONV_W] = c.w;
  args[NPUVP_DWCONV_KH] = c.kh;
  args[NPUVP_DWCONV_KW] = c.kw;
  args[NPUVP_DWCONV_STRIDE_H] = c.sh;
  args[NPUVP_DWCONV_STRIDE_W] = c.sw;
  args[NPUVP_DWCONV_PAD_TOP] = c.pt;
  args[NPUVP_DWCONV_PAD_BOTTOM] = c.pb;
  args[NPUVP_DWCONV_PAD_LEFT] = c.pl;
  args[NPUVP_DWCONV_PAD_RIGHT] = c.pr;
  args[NPUVP_DWCONV_DILATION_H] = c.dh;
  args[NPUVP_DWCONV_DILATION_W] = c.dw;
  args[NPUVP_DWCONV_ACT] = c.act;
  args[NPUVP_DWCONV_CLIP_MIN] = f32_bits(c.clip_min);
  args[NPUVP_DWCONV_CLIP_MAX] = f32_bits(c.clip_max);
  const Strip strip = c.strip_cols ? strip_of(c.strip_col, c.strip_cols, c.w, c.kw, c.sw, c.dw, c.pl) : Strip{};
  if (c.strip_cols) {
    args[NPUVP_DWCONV_IN] = in_addr + strip.in_col * 32;
    args[NPUVP_DWCONV_OUT] = out_addr + strip.col * 32;
    if (c.residual) args[NPUVP_DWCONV_RESIDUAL] = r_addr + strip.col * 32;
    args[NPUVP_DWCONV_W] = strip.in_cols;
    args[NPUVP_DWCONV_PAD_LEFT] = strip.pad_left;
    args[NPUVP_DWCONV_PAD_RIGHT] = strip.pad_right;
    args[NPUVP_DWCONV_IN_ROW_PITCH] = c.w;
    args[NPUVP_DWCONV_OUT_ROW_PITCH] = wo;
  }
  run.set_args(args);
  const int status = run.run(c.cores, c.blocks);
  EXPECT_EQ(status, 0) << run.reason();
  if (status != 0) return 0;

  std::vector<double> expected(out_count), slack(out_count, 0.0);
  for (std::uint64_t plane = 0; plane < c.n * c1; ++plane)
    for (std::uint64_t oh = 0; oh < ho; ++oh)
      for (std::uint64_t ow = 0; ow < wo; ++ow)
        for (std::uint64_t c0 = 0; c0 < 16; ++c0) {
          const std::uint64_t g = plane % c1, ch = g * 16 + c0;
          const std::uint64_t o = ((plane * ho + oh) * wo + ow) * 16 + c0;
          if (ch >= c.channels) {
            expected[o] = 0;
            continue;
          }
          double sum = 0, abs_sum = 0;
          for (std::uint64_t i = 0; i < c.kh; ++i)
            for (std::uint64_t j = 0; j < c.kw; ++j) {
              std::uint64_t ih, iw;
              if (!window_input(oh, i, c.sh, c.dh, c.pt, c.h, ih) || !window_input(ow, j, c.sw, c.dw, c.pl, c.w, iw))
                continue;
              const double term = static_cast<double>(half_to_float(in[((plane * c.h + ih) * c.w + iw) * 16 + c0])) *
                                  half_to_float(weights[((g * c.kh + i) * c.kw + j) * 16 + c0]);
              sum += term;
              abs_sum += std::fabs(term);
            }
          if (c.bias) sum += bias[ch];
          if (c.residual) sum += half_to_float(residual[o]);
          if (c.act == NPUVP_ACT_RELU) sum = std::max(sum, 0.0);
          if (c.act == NPUVP_ACT_CLIP) sum = std::min(std::max(sum, static_cast<double>(c.clip_min)),
                                                      static_cast<double>(c.clip_max));
          expected[o] = sum;
          slack[o] = 1e-6 * (abs_sum + 4);
        }
  auto got = run.read<std::uint16_t>(out_addr, out_count);
  expect_only_strip_written(strip, wo, got, expected, slack);
  expect_close(got, expected, slack, c.name);
  expect_guard_intact(run, out_addr, out_count);
  const double cycles = launch_cycles(run, c.cores);
  std::printf("op_dwconv %s: %.0f cycles, %.0f MACs/cycle\n", c.name.c_str(), cycles,
              cycles > 0 ? static_cast<double>(c.n * c.channels * ho * wo * c.kh * c.kw) / cycles : 0.0);
  return cycles;
}

// MobileNetV2's depthwise layers (3x3, pad 1, bias, ReLU6).
TEST(OperatorDwConv, MobileNetV2C32At112Stride1) {
  DwCase c{"mobilenetv2 dw 32x112x112 s1"};
  c.channels = 32;
  c.h = c.w = 112;
  c.blocks = 4;
  run_dwconv(c);
}
TEST(OperatorDwConv, MobileNetV2C144At56Stride2) {
  DwCase c{"mobilenetv2 dw 144x56x56 s2"};
  c.channels = 144;
  c.h = c.w = 56;
  c.sh = c.sw = 2;
  c.pt = c.pl = 1;
  c.pb = c.pr = 1;
  c.blocks = 6;
  run_dwconv(c);
}
TEST(OperatorDwConv, MobileNetV2C960At7FourCores) {
  DwCase c{"mobilenetv2 dw 960x7x7 s1"};
  c.channels = 960;
  c.h = c.w = 7;
  c.cores = 4;
  c.blocks = 8;
  run_dwconv(c);
}
// Residual, ReLU, padded channels (C = 20), several blocks.
TEST(OperatorDwConv, ResidualReluPaddedChannels) {
  DwCase c{"dw 2x20x19x17 s1 residual relu"};
  c.n = 2;
  c.channels = 20;
  c.h = 19;
  c.w = 17;
  c.residual = true;
  c.act = NPUVP_ACT_RELU;
  c.blocks = 5;
  run_dwconv(c);
}
// A clip whose lower bound is above 0: padded channels must still be 0.
TEST(OperatorDwConv, ClipAboveZeroKeepsPaddedChannelsZero) {
  DwCase c{"dw 20x9x11 clip 0.25..1"};
  c.channels = 20;
  c.h = 9;
  c.w = 11;
  c.clip_min = 0.25f;
  c.clip_max = 1.0f;
  c.bias = false;
  run_dwconv(c);
}
// Rows too wide for flat groups (a 4-row ring, one output row at a time).
TEST(OperatorDwConv, WideRows280) {
  DwCase c{"dw 16x9x280 s1"};
  c.channels = 16;
  c.h = 9;
  c.w = 280;
  c.blocks = 3;
  run_dwconv(c);
}
// Column strips of a 600-column map (rows the map's apart): the first (its left padding), a
// middle one (neighbours' columns, no padding) and the last (its right padding, fewer columns),
// with a residual read at the strip's columns; nothing outside the strip is written.
DwCase dw_strip(std::uint64_t col, std::uint64_t cols) {
  DwCase c{"dw 20x7x600 s1 strip " + std::to_string(col) + "+" + std::to_string(cols)};
  c.channels = 20;
  c.h = 7;
  c.w = 600;
  c.residual = true;
  c.act = NPUVP_ACT_RELU;
  c.blocks = 3;
  c.strip_col = col;
  c.strip_cols = cols;
  return c;
}
TEST(OperatorDwConv, ColumnStripFirst) { run_dwconv(dw_strip(0, 200)); }
TEST(OperatorDwConv, ColumnStripMiddle) { run_dwconv(dw_strip(200, 200)); }
TEST(OperatorDwConv, ColumnStripLast) { run_dwconv(dw_strip(400, 200)); }
// The residual read from the output buffer itself, as the compiler chains the launches of a
// depthwise kernel's column groups: each output row's residual is loaded before the row is stored.
TEST(OperatorDwConv, ResidualInPlace) {
  DwCase c{"dw 40x33x29 s1 residual in place"};
  c.channels = 40;
  c.h = 33;
  c.w = 29;
  c.residual = true;
  c.residual_in_place = true;
  c.act = NPUVP_ACT_NONE;
  c.blocks = 5;
  run_dwconv(c);
}
// Stride 2 and dilation 2 (5 x 5; its 9 f32 ring rows hold strips of at most ~30 columns): the
// strip starts on an odd output column.
TEST(OperatorDwConv, ColumnStripStride2Dilation2) {
  DwCase c = dw_strip(57, 29);
  c.name = "dw 20x7x600 5x5 dilation 2 stride 2 strip 57+29";
  c.kh = c.kw = 5;
  c.dh = c.dw = 2;
  c.sh = c.sw = 2;
  c.pt = c.pb = c.pl = c.pr = 4;
  run_dwconv(c);
}

// Dilation, asymmetric pads and strides, 5x5 kernel, no activation.
TEST(OperatorDwConv, Dilated5x5AsymmetricStrides) {
  DwCase c{"dw 24x23x29 5x5 dilation 2 stride 2x1 pads 3,1,2,4"};
  c.channels = 24;
  c.h = 23;
  c.w = 29;
  c.kh = c.kw = 5;
  c.dh = c.dw = 2;
  c.sh = 2;
  c.pt = 3;
  c.pb = 1;
  c.pl = 2;
  c.pr = 4;
  c.act = NPUVP_ACT_NONE;
  c.residual = true;
  c.cores = 4;
  c.blocks = 4;
  run_dwconv(c);
}

}  // namespace
}  // namespace npuvp
