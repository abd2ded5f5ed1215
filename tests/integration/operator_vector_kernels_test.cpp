// The Vector-unit operator kernels (sw/kernels/op_eltwise.c, op_softmax.c,
// op_layernorm.c) end to end on the SoC against independent double-precision
// references computed from the same f16 inputs (std::exp, std::erf,
// std::tanh, ...). One KernelRun per TEST (SystemC elaborates once).
//
// Tolerances. Ops the Vector unit computes exactly rounded (add, sub, mul,
// div, max, min, relu, neg, clip, sqrt, reciprocal: one f32 operation
// rounded once to f16, which for f16 operands is the correctly rounded
// result) must match the reference rounded to f16 bit for bit. Every other
// result must lie within one f16 ulp of the exact (double) value: a
// correctly rounded result is within half an ulp, and the kernels' f32
// arithmetic and approximations (erf / erfc relative error below 5e-6,
// docs/kernels.md) add far less than the other half. Layer norm adds an
// absolute 1e-5 times the size of its terms for results that cancel to
// near zero (f32 statistics: relative error ~1e-6 on terms of magnitude up
// to ~10).
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
#include <functional>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace npuvp {
namespace {

using numerics::float_to_half;
using numerics::half_to_float;
using namespace test_support;

constexpr std::uint64_t kDdr = 0x9000'0000;
constexpr std::uint64_t kL2 = 0x3000'0000;  // the on-chip L2 buffer (8 MiB, 64 GB/s)

// Where the tensors go: correctness tests use addresses that are not 32-byte
// aligned (GM copies are byte-exact); throughput tests align them, as the
// compiler's memory plan does (an unaligned tensor costs extra DDR transactions).
struct Placement {
  std::uint64_t base = kDdr;
  bool aligned = false;
};
constexpr Placement kUnaligned{kDdr, false}, kDdrAligned{kDdr, true}, kL2Aligned{kL2, true};
// Lays out inputs and a sentinel-guarded output in DDR and runs a kernel.
class OperatorRun {
 public:
  OperatorRun(const std::string& kernel, unsigned cores, Placement placement = kUnaligned)
      : run_(kernel, cores_parameters(cores)), cores_(cores), next_(placement.base), skew_(placement.aligned ? 64 : 66) {}

  std::uint64_t place(const std::vector<std::uint16_t>& values) {
    const std::uint64_t address = next_;
    if (!values.empty()) run_.write(address, values);
    next_ = align_up(address + values.size() * 2 + 2, 4096) + skew_ * (++placed_);
    return address;
  }
  std::uint64_t place_output(std::size_t count) {
    const std::uint64_t address = next_;
    prefill_output(run_, address, count);
    next_ = align_up(address + (count + kGuardHalves) * 2, 4096) + skew_ * (++placed_);
    return address;
  }
  // Runs with the argument words (the tag word set to a recognisable value).
  bool run(std::vector<std::uint64_t> args, std::uint64_t blocks) {
    args.resize(NPUVP_OP_ARG_TAG + 1, 0);
    args[NPUVP_OP_ARG_TAG] = 0x7a9;
    run_.set_args(args);
    const int status = run_.run(cores_, blocks);
    EXPECT_EQ(status, 0) << run_.reason();
    cycles_ = run_.stat("soc.aicore0.kernel_cycles");
    if (std::getenv("NPUVP_KERNEL_TEST_STATS")) StatisticsRegistry::instance().print_table(std::cout);
    return status == 0;
  }
  // Runs arguments the kernel must reject; returns the fault report.
  std::string run_invalid(std::vector<std::uint64_t> args) {
    args.resize(NPUVP_OP_ARG_TAG + 1, 0);
    run_.set_args(args);
    EXPECT_NE(run_.run(cores_, cores_), 0) << "the kernel accepted invalid arguments";
    return run_.reason();
  }
  std::vector<std::uint16_t> output(std::uint64_t address, std::size_t count) {
    expect_guard_intact(run_, address, count);
    return run_.read<std::uint16_t>(address, count);
  }
  double cycles() const { return cycles_; }

 private:
  KernelRun run_;
  unsigned cores_;
  std::uint64_t next_;
  std::uint64_t skew_;  // between tensors: 64 keeps 32-byte alignment, 66 breaks it
  unsigned placed_ = 0;
  double cycles_ = 0;
};

// Compares against exact values: bit-exact (`exact`: the result rounded to
// f16) or within one f16 ulp plus `absolute(i)`. Reports the first few.
void expect_close(const std::vector<std::uint16_t>& got, const std::vector<double>& want, bool exact,
                  const std::function<double(std::size_t)>& absolute = nullptr) {
  ASSERT_EQ(got.size(), want.size());
  std::size_t bad = 0;
  double worst = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double g = half_to_float(got[i]), w = want[i];
    bool ok;
    if (std::isnan(w)) ok = std::isnan(g);
    else if (exact) ok = got[i] == float_to_half(static_cast<float>(w));
    else if (std::isinf(w) || std::fabs(w) > 65520) ok = g == float_to_half(static_cast<float>(w)) || std::isinf(g) || std::fabs(g) == 65504;
    else {
      const double error = std::fabs(g - w), allowed = ulp16(w) + (absolute ? absolute(i) : 0.0);
      ok = error <= allowed;
      worst = std::max(worst, error / ulp16(w));
    }
    if (!ok && ++bad <= 8)
      ADD_FAILURE() << "element " << i << ": got " << g << " (0x" << std::hex << got[i] << std::dec << "), want " << w;
  }
  EXPECT_EQ(bad, 0u) << "of " << got.size() << " elements";
  if (!exact) std::printf("max error %.3f f16 ulp over %zu elements\n", worst, got.size());
}

// ---- Elementwise -------------------------------------------------------

struct EltCase {
  npuvp_eltwise_op op;
  std::vector<std::uint64_t> dims;           // outermost first
  std::vector<std::uint64_t> a_strides = {};  // empty: dense
  std::vector<std::uint64_t> b_strides = {};
  float scalar0 = 0, scalar1 = 0;
  double low = -4, high = 4;    // a's range
  double b_low = -4, b_high = 4;
  unsigned cores = 1;
  std::uint64_t blocks = 0;
  bool specials = false;  // append extreme values to a
  Placement placement = kUnaligned;
};

std::vector<std::uint64_t> dense_strides(const std::vector<std::uint64_t>& dims) {
  std::vector<std::uint64_t> strides(dims.size());
  std::uint64_t s = 1;
  for (std::size_t d = dims.size(); d-- > 0;) {
    strides[d] = s;
    s *= dims[d];
  }
  return strides;
}

double erf_reference(double x) { return std::erf(x); }

// The exact result of the op on f16 operands (double precision).
double eltwise_reference(npuvp_eltwise_op op, double a, double b, double s0, double s1) {
  switch (op) {
    case NPUVP_ELT_ADD: return a + b;
    case NPUVP_ELT_SUB: return a - b;
    case NPUVP_ELT_MUL: return a * b;
    case NPUVP_ELT_DIV: return a / b;
    case NPUVP_ELT_MAX: return std::max(a, b);
    case NPUVP_ELT_MIN: return std::min(a, b);
    case NPUVP_ELT_RELU: return a > 0 ? a : 0.0;
    case NPUVP_ELT_CLIP: return std::min(std::max(a, s0), s1);
    case NPUVP_ELT_SIGMOID: return 1 / (1 + std::exp(-a));
    case NPUVP_ELT_TANH: return std::tanh(a);
    case NPUVP_ELT_ERF: return erf_reference(a);
    case NPUVP_ELT_GELU: return a * 0.5 * (1 + std::erf(a / std::sqrt(2.0)));
    case NPUVP_ELT_EXP: return std::exp(a);
    case NPUVP_ELT_SQRT: return std::sqrt(a);
    case NPUVP_ELT_RECIPROCAL: return 1 / a;
    case NPUVP_ELT_NEG: return -a;
    case NPUVP_ELT_ADD_SCALAR: return a + s0;
    case NPUVP_ELT_MUL_SCALAR: return a * s0;
    case NPUVP_ELT_POW_SCALAR: return s0 == 0.5 ? std::sqrt(a) : std::pow(a, s0);
    case NPUVP_ELT_FILL: return s0;
    default: return NAN;
  }
}

bool exactly_rounded(npuvp_eltwise_op op) {
  switch (op) {
    case NPUVP_ELT_ADD: case NPUVP_ELT_SUB: case NPUVP_ELT_MUL: case NPUVP_ELT_DIV: case NPUVP_ELT_MAX:
    case NPUVP_ELT_MIN: case NPUVP_ELT_RELU: case NPUVP_ELT_NEG: case NPUVP_ELT_CLIP: case NPUVP_ELT_SQRT:
    case NPUVP_ELT_RECIPROCAL:
      return true;
    default:
      return false;
  }
}

// Runs the eltwise kernel on the case and checks every output element.
double run_eltwise(const EltCase& c) {
  const std::size_t rank = c.dims.size();
  const auto a_strides = c.a_strides.empty() ? dense_strides(c.dims) : c.a_strides;
  const auto b_strides = c.b_strides.empty() ? dense_strides(c.dims) : c.b_strides;
  std::size_t count = 1, a_count = 1, b_count = 1;
  for (std::size_t d = 0; d < rank; ++d) {
    count *= c.dims[d];
    a_count += (c.dims[d] - 1) * a_strides[d];
    b_count += (c.dims[d] - 1) * b_strides[d];
  }
  auto a = random_halves<double>(a_count, 11 + static_cast<std::uint32_t>(count), c.low, c.high);
  if (c.specials) {
    const float specials[] = {0.0f, -0.0f, 1e-5f, -1e-5f, 3e-8f, -3e-8f, 2e-4f, -2e-4f, 0.3f, -0.3f,
                              100.0f, -100.0f, 1000.0f, -1000.0f, 65504.0f, -65504.0f, 9.0f, -9.0f};
    for (std::size_t i = 0; i < std::size(specials) && i < a.size(); ++i) a[i * 7 % a.size()] = float_to_half(specials[i]);
  }
  auto b = random_halves<double>(b_count, 23 + static_cast<std::uint32_t>(count), c.b_low, c.b_high);

  OperatorRun run("op_eltwise", c.cores, c.placement);
  const std::uint64_t a_addr = run.place(a), b_addr = run.place(b), out_addr = run.place_output(count);
  std::vector<std::uint64_t> args(NPUVP_ELT_ARG_COUNT, 0);
  args[NPUVP_ELT_OUT] = out_addr;
  args[NPUVP_ELT_A] = a_addr;
  args[NPUVP_ELT_B] = b_addr;
  args[NPUVP_ELT_OPCODE] = c.op;
  args[NPUVP_ELT_RANK] = rank;
  for (std::size_t d = 0; d < rank; ++d) {
    args[NPUVP_ELT_DIM0 + d] = c.dims[d];
    args[NPUVP_ELT_A_STRIDE0 + d] = a_strides[d];
    args[NPUVP_ELT_B_STRIDE0 + d] = b_strides[d];
  }
  args[NPUVP_ELT_SCALAR0] = f32_bits(c.scalar0);
  args[NPUVP_ELT_SCALAR1] = f32_bits(c.scalar1);
  if (!run.run(args, c.blocks ? c.blocks : c.cores)) return 0;

  std::vector<double> want(count);
  std::vector<std::size_t> index(rank, 0);
  for (std::size_t i = 0; i < count; ++i) {
    std::size_t ai = 0, bi = 0, rest = i;
    for (std::size_t d = rank; d-- > 0;) {
      const std::size_t id = rest % c.dims[d];
      rest /= c.dims[d];
      ai += id * a_strides[d];
      bi += id * b_strides[d];
    }
    want[i] = eltwise_reference(c.op, half_to_float(a[ai]), half_to_float(b[bi]), c.scalar0, c.scalar1);
  }
  expect_close(run.output(out_addr, count), want, exactly_rounded(c.op));
  const double per_element = run.cycles() / static_cast<double>(count);
  std::printf("eltwise op %d, %zu elements, %u core(s): %.0f cycles on core 0, %.4f cycles/element\n", c.op, count,
              c.cores, run.cycles(), per_element);
  return per_element;
}

// An op on 1000 elements of a in [low, high), with a scalar.
EltCase ranged(npuvp_eltwise_op op, double low, double high, float scalar0 = 0) {
  EltCase c{op, {1000}};
  c.low = low;
  c.high = high;
  c.scalar0 = scalar0;
  return c;
}

// Every op on 1000 elements (7 whole repeats and a partial one).
TEST(OperatorEltwise, Add) { run_eltwise({NPUVP_ELT_ADD, {1000}}); }
TEST(OperatorEltwise, Sub) { run_eltwise({NPUVP_ELT_SUB, {1000}}); }
TEST(OperatorEltwise, Mul) { run_eltwise({NPUVP_ELT_MUL, {1000}}); }
TEST(OperatorEltwise, Div) {
  EltCase c{NPUVP_ELT_DIV, {1000}};
  c.b_low = 0.25;  // |b| away from 0
  run_eltwise(c);
}
TEST(OperatorEltwise, Max) { run_eltwise({NPUVP_ELT_MAX, {1000}}); }
TEST(OperatorEltwise, Min) { run_eltwise({NPUVP_ELT_MIN, {1000}}); }
TEST(OperatorEltwise, Relu) { run_eltwise({NPUVP_ELT_RELU, {1000}}); }
TEST(OperatorEltwise, Clip) {
  EltCase c = ranged(NPUVP_ELT_CLIP, -8, 8, 0);
  c.scalar1 = 6;
  run_eltwise(c);
}
TEST(OperatorEltwise, Sigmoid) {
  EltCase c = ranged(NPUVP_ELT_SIGMOID, -12, 12);
  c.specials = true;
  run_eltwise(c);
}
TEST(OperatorEltwise, Tanh) {
  EltCase c{NPUVP_ELT_TANH, {1000}};
  c.specials = true;
  run_eltwise(c);
}
TEST(OperatorEltwise, Erf) {
  EltCase c{NPUVP_ELT_ERF, {4000}};
  c.specials = true;
  run_eltwise(c);
}
TEST(OperatorEltwise, Gelu) {
  EltCase c{NPUVP_ELT_GELU, {4000}};
  c.low = -8;
  c.high = 8;
  c.specials = true;
  run_eltwise(c);
}
TEST(OperatorEltwise, Exp) { run_eltwise(ranged(NPUVP_ELT_EXP, -12, 10)); }
TEST(OperatorEltwise, Sqrt) { run_eltwise(ranged(NPUVP_ELT_SQRT, 0, 1000)); }
TEST(OperatorEltwise, Reciprocal) { run_eltwise(ranged(NPUVP_ELT_RECIPROCAL, 0.01, 100)); }
TEST(OperatorEltwise, Neg) { run_eltwise({NPUVP_ELT_NEG, {1000}}); }
// 0.1 is not an f16: added in f32, rounded once.
TEST(OperatorEltwise, AddScalar) { run_eltwise(ranged(NPUVP_ELT_ADD_SCALAR, -4, 4, 0.1f)); }
TEST(OperatorEltwise, MulScalar) { run_eltwise(ranged(NPUVP_ELT_MUL_SCALAR, -4, 4, 1.0f / 3.0f)); }
TEST(OperatorEltwise, PowSquare) { run_eltwise(ranged(NPUVP_ELT_POW_SCALAR, -4, 4, 2)); }
TEST(OperatorEltwise, PowFive) { run_eltwise(ranged(NPUVP_ELT_POW_SCALAR, -3, 3, 5)); }
TEST(OperatorEltwise, PowZero) { run_eltwise(ranged(NPUVP_ELT_POW_SCALAR, -4, 4, 0)); }
TEST(OperatorEltwise, PowHalf) { run_eltwise(ranged(NPUVP_ELT_POW_SCALAR, 0, 50, 0.5f)); }
TEST(OperatorEltwise, Fill) {
  EltCase c{NPUVP_ELT_FILL, {3, 7, 33}};
  c.scalar0 = -2.5f;
  run_eltwise(c);
}

// Broadcasting: a scalar b, a row b (stride 0 over rows), a column b
// (stride 0 along the row), the middle-axis pattern [2,1,5] + [2,3,1], a
// broadcast a with a non-commutative op, and a transposed (strided) b.
TEST(OperatorEltwise, BroadcastScalar) { run_eltwise({NPUVP_ELT_MUL, {37, 129}, {}, {0, 0}}); }
TEST(OperatorEltwise, BroadcastRow) { run_eltwise({NPUVP_ELT_ADD, {300, 768}, {}, {0, 1}, 0, 0, -4, 4, -4, 4, 2, 0}); }
TEST(OperatorEltwise, BroadcastRowLong) { run_eltwise({NPUVP_ELT_SUB, {5, 20000}, {}, {0, 1}}); }
TEST(OperatorEltwise, BroadcastColumn) { run_eltwise({NPUVP_ELT_DIV, {45, 70}, {}, {1, 0}, 0, 0, -4, 4, 0.5, 4}); }
// A per-channel scale of an N x C x H x W tensor (N = 2, C = 512, 7 x 7).
TEST(OperatorEltwise, BroadcastPerChannel) { run_eltwise({NPUVP_ELT_MUL, {2, 512, 49}, {}, {0, 1, 0}}); }
// A per-row scalar A over short rows: each row's vdup writes whole 128-lane repeats,
// and those of a full tile's last rows once ran past A's tile into B's first rows
// (a squeeze-excite block's scale * x: 480 channels of 6 x 6 in EfficientNet-B0, tiles of
// 170 rows of 48; 672 channels of 3 x 3, a tile of 512 rows of 16).
TEST(OperatorEltwise, BroadcastColumnAShortRows) { run_eltwise({NPUVP_ELT_MUL, {480, 36}, {1, 0}, {}}); }
TEST(OperatorEltwise, BroadcastColumnAFullTileOfShortRows) { run_eltwise({NPUVP_ELT_MUL, {672, 9}, {1, 0}, {}}); }
TEST(OperatorEltwise, BroadcastMiddleAxis) { run_eltwise({NPUVP_ELT_SUB, {2, 3, 5}, {5, 0, 1}, {3, 1, 0}}); }
TEST(OperatorEltwise, BroadcastA) { run_eltwise({NPUVP_ELT_DIV, {6, 4, 100}, {0, 100, 1}, {}, 0, 0, -4, 4, 0.5, 4}); }
TEST(OperatorEltwise, BroadcastRank4) {
  run_eltwise({NPUVP_ELT_MAX, {2, 3, 4, 5}, {60, 20, 5, 1}, {0, 4, 1, 0}, 0, 0, -4, 4, -4, 4, 2, 3});
}
// Rows of 4096 (256 blocks: the row-by-row path of a shared row), 4000
// (250 blocks: one instruction per 128 columns), 8192 and 8193 (one tile;
// two pieces of a row).
TEST(OperatorEltwise, BroadcastRow4096) { run_eltwise({NPUVP_ELT_MUL, {5, 4096}, {}, {0, 1}}); }
TEST(OperatorEltwise, BroadcastRow4000) { run_eltwise({NPUVP_ELT_MIN, {5, 4000}, {}, {0, 1}}); }
TEST(OperatorEltwise, BroadcastColumnRows8192) { run_eltwise({NPUVP_ELT_ADD, {3, 8192}, {}, {1, 0}}); }
TEST(OperatorEltwise, BroadcastScalarRows8193) { run_eltwise({NPUVP_ELT_SUB, {3, 8193}, {0, 1}, {0, 0}}); }
// Rows of a and b that are not dense (a slice of wider matrices).
TEST(OperatorEltwise, StridedRows) { run_eltwise({NPUVP_ELT_DIV, {9, 33}, {40, 1}, {35, 1}, 0, 0, -4, 4, 0.5, 4}); }
TEST(OperatorEltwise, StridedTransposedB) { run_eltwise({NPUVP_ELT_ADD, {33, 17}, {}, {1, 33}}); }
TEST(OperatorEltwise, UnaryBroadcastA) { run_eltwise({NPUVP_ELT_SIGMOID, {9, 40}, {0, 1}}); }

// Odd sizes and several blocks on 2 and 4 AI Cores.
TEST(OperatorEltwise, OneElement) { run_eltwise({NPUVP_ELT_ADD, {1}}); }
TEST(OperatorEltwise, SevenElementsFourBlocks) { run_eltwise({NPUVP_ELT_GELU, {7}, {}, {}, 0, 0, -4, 4, -4, 4, 2, 4}); }
TEST(OperatorEltwise, ThirtyThreeElements) { run_eltwise({NPUVP_ELT_TANH, {33}}); }
TEST(OperatorEltwise, MillionAndThreeTwoCoresFiveBlocks) {
  run_eltwise({NPUVP_ELT_ADD, {1000003}, {}, {}, 0, 0, -4, 4, -4, 4, 2, 5});
}
TEST(OperatorEltwise, GeluFourCoresSevenBlocks) {
  run_eltwise({NPUVP_ELT_GELU, {128, 3072}, {}, {}, 0, 0, -6, 6, -4, 4, 4, 7});
}

// Throughput figures for docs/kernels.md (the assertions are loose bounds
// that catch a lost pipeline, not benchmarks). A large add is DDR-bound: 6
// bytes per element at the default DDR's ~12.7 GB/s is 0.47 cycles per
// element (1 GHz), measured 0.474 on 2 cores.
TEST(OperatorEltwise, AddThroughput) {
  EltCase c{NPUVP_ELT_ADD, {1 << 20}, {}, {}, 0, 0, -4, 4, -4, 4, 2, 2};
  c.placement = kDdrAligned;
  EXPECT_LT(run_eltwise(c), 0.55);
}
TEST(OperatorEltwise, GeluThroughput) {
  EltCase c{NPUVP_ELT_GELU, {128 * 3072}, {}, {}, 0, 0, -6, 6, -4, 4, 2, 2};
  c.placement = kDdrAligned;
  EXPECT_LT(run_eltwise(c), 1.0);
}
// The same with the tensors in the L2 buffer: compute-bound.
TEST(OperatorEltwise, AddThroughputL2) {
  EltCase c{NPUVP_ELT_ADD, {1 << 20}, {}, {}, 0, 0, -4, 4, -4, 4, 2, 2};
  c.placement = kL2Aligned;
  EXPECT_LT(run_eltwise(c), 0.55);
}
TEST(OperatorEltwise, GeluThroughputL2) {
  EltCase c{NPUVP_ELT_GELU, {128 * 3072}, {}, {}, 0, 0, -6, 6, -4, 4, 2, 2};
  c.placement = kL2Aligned;
  EXPECT_LT(run_eltwise(c), 1.0);
}

// Invalid arguments: a kernel fault (scalar trap) at the named function,
// before any output is written.
void expect_eltwise_rejects(std::uint64_t opcode, std::uint64_t rank, float scalar0) {
  OperatorRun run("op_eltwise", 1);
  const std::uint64_t a = run.place(random_halves<double>(64, 1, -1, 1)), out = run.place_output(64);
  std::vector<std::uint64_t> args(NPUVP_ELT_ARG_COUNT, 0);
  args[NPUVP_ELT_OUT] = out;
  args[NPUVP_ELT_A] = a;
  args[NPUVP_ELT_B] = a;
  args[NPUVP_ELT_OPCODE] = opcode;
  args[NPUVP_ELT_RANK] = rank;
  args[NPUVP_ELT_DIM0] = 64;
  args[NPUVP_ELT_A_STRIDE0] = args[NPUVP_ELT_B_STRIDE0] = 1;
  args[NPUVP_ELT_SCALAR0] = f32_bits(scalar0);
  const std::string reason = run.run_invalid(args);
  EXPECT_NE(reason.find("scalar trap"), std::string::npos) << reason;
  EXPECT_NE(reason.find("eltwise_invalid_argument"), std::string::npos) << reason;
  const auto untouched = run.output(out, 64);
  EXPECT_EQ(std::count(untouched.begin(), untouched.end(), kSentinel), 64);
}
TEST(OperatorEltwise, RejectsUnknownOpcode) { expect_eltwise_rejects(NPUVP_ELT_OP_COUNT, 1, 0); }
TEST(OperatorEltwise, RejectsRankFive) { expect_eltwise_rejects(NPUVP_ELT_ADD, 5, 0); }
TEST(OperatorEltwise, RejectsFractionalPower) { expect_eltwise_rejects(NPUVP_ELT_POW_SCALAR, 1, 1.5f); }

// ---- Softmax -----------------------------------------------------------

double run_softmax(std::size_t rows, std::size_t cols, double magnitude, unsigned cores = 1, std::uint64_t blocks = 0,
                   Placement placement = kUnaligned, double offset = 0,
                   const std::function<void(std::vector<std::uint16_t>&)>& shape_input = nullptr) {
  auto x = random_halves<double>(rows * cols, 31 + static_cast<std::uint32_t>(cols), offset - magnitude, offset + magnitude);
  if (shape_input) shape_input(x);
  OperatorRun run("op_softmax", cores, placement);
  const std::uint64_t in = run.place(x), out = run.place_output(rows * cols);
  std::vector<std::uint64_t> args(NPUVP_SOFTMAX_ARG_COUNT, 0);
  args[NPUVP_SOFTMAX_IN] = in;
  args[NPUVP_SOFTMAX_OUT] = out;
  args[NPUVP_SOFTMAX_ROWS] = rows;
  args[NPUVP_SOFTMAX_COLS] = cols;
  if (!run.run(args, blocks ? blocks : cores)) return 0;
  std::vector<double> want(rows * cols);
  for (std::size_t r = 0; r < rows; ++r) {
    double max = -INFINITY, sum = 0;
    for (std::size_t c = 0; c < cols; ++c) max = std::max(max, static_cast<double>(half_to_float(x[r * cols + c])));
    for (std::size_t c = 0; c < cols; ++c) sum += std::exp(half_to_float(x[r * cols + c]) - max);
    for (std::size_t c = 0; c < cols; ++c) want[r * cols + c] = std::exp(half_to_float(x[r * cols + c]) - max) / sum;
  }
  expect_close(run.output(out, rows * cols), want, false);
  const double per_element = run.cycles() / static_cast<double>(rows * cols);
  std::printf("softmax %zu x %zu, %u core(s): %.0f cycles on core 0, %.4f cycles/element\n", rows, cols, cores,
              run.cycles(), per_element);
  return per_element;
}

TEST(OperatorSoftmax, OneColumn) { run_softmax(50, 1, 4); }
TEST(OperatorSoftmax, Cols128) { run_softmax(300, 128, 4, 2, 3); }
TEST(OperatorSoftmax, Cols1000LargeMagnitude) { run_softmax(20, 1000, 60); }
TEST(OperatorSoftmax, Cols30000LargeMagnitude) { run_softmax(3, 30000, 60, 2, 2); }
// Row maxima beyond +-60 need the shift by the maximum (exp would overflow
// or every term underflow); within, the kernel skips it.
TEST(OperatorSoftmax, Cols300AroundPlus200) { run_softmax(40, 300, 30, 1, 0, kUnaligned, 200); }
TEST(OperatorSoftmax, Cols300AroundMinus200) { run_softmax(40, 300, 30, 1, 0, kUnaligned, -200); }
TEST(OperatorSoftmax, Cols128AroundMinus70) { run_softmax(40, 128, 8, 1, 0, kUnaligned, -70); }
TEST(OperatorSoftmax, Cols8192) { run_softmax(3, 8192, 20); }
TEST(OperatorSoftmax, Cols8193) { run_softmax(3, 8193, 20, 2, 3); }
TEST(OperatorSoftmax, Cols4000) { run_softmax(5, 4000, 20); }
// Long rows (two passes, the maximum found chunk by chunk): a row whose
// maximum grows from chunk to chunk (the running sum rescaled each time),
// and rows whose first chunks are all -inf (masked: nothing to sum yet).
TEST(OperatorSoftmax, Cols30000RisingMaximum) {
  run_softmax(2, 30000, 1, 1, 0, kUnaligned, 0, [](std::vector<std::uint16_t>& x) {
    for (std::size_t i = 0; i < x.size(); ++i)
      x[i] = float_to_half(static_cast<float>(-40.0 + 80.0 * static_cast<double>(i % 30000) / 30000.0));
  });
}
TEST(OperatorSoftmax, Cols20000MaskedStart) {
  run_softmax(3, 20000, 10, 1, 0, kUnaligned, 0, [](std::vector<std::uint16_t>& x) {
    for (std::size_t r = 0; r < 3; ++r)
      for (std::size_t c = 0; c < 9000 + 4000 * r; ++c) x[r * 20000 + c] = 0xfc00;  // -inf
  });
}
TEST(OperatorSoftmax, Cols32768) { run_softmax(2, 32768, 8); }
TEST(OperatorSoftmax, OddCols77FourCores) { run_softmax(333, 77, 10, 4, 4); }
// BERT-base attention: 12 heads x 128 queries, rows of 128, on 2 cores.
TEST(OperatorSoftmax, BertAttentionThroughput) { EXPECT_LT(run_softmax(12 * 128, 128, 6, 2, 2, kDdrAligned), 1.0); }
TEST(OperatorSoftmax, BertAttentionThroughputL2) { EXPECT_LT(run_softmax(12 * 128, 128, 6, 2, 2, kL2Aligned), 1.0); }

// ---- Layer norm --------------------------------------------------------

double run_layernorm(std::size_t rows, std::size_t cols, bool residual, bool beta, unsigned cores = 1,
                     std::uint64_t blocks = 0, double offset = 0, Placement placement = kUnaligned) {
  const std::uint32_t seed = static_cast<std::uint32_t>(rows * 7 + cols);
  const auto x = random_halves<double>(rows * cols, seed, -3 + offset, 3 + offset);
  const auto r = random_halves<double>(rows * cols, seed + 1, -1, 1);
  const auto g = random_halves<double>(cols, seed + 2, 0.5, 1.5);
  const auto b = random_halves<double>(cols, seed + 3, -0.5, 0.5);
  const float eps = 1e-5f;
  OperatorRun run("op_layernorm", cores, placement);
  const std::uint64_t in = run.place(x), res = run.place(r), gamma = run.place(g), bet = run.place(b),
                      out = run.place_output(rows * cols);
  std::vector<std::uint64_t> args(NPUVP_LAYERNORM_ARG_COUNT, 0);
  args[NPUVP_LAYERNORM_IN] = in;
  args[NPUVP_LAYERNORM_RESIDUAL] = residual ? res : 0;
  args[NPUVP_LAYERNORM_GAMMA] = gamma;
  args[NPUVP_LAYERNORM_BETA] = beta ? bet : 0;
  args[NPUVP_LAYERNORM_OUT] = out;
  args[NPUVP_LAYERNORM_ROWS] = rows;
  args[NPUVP_LAYERNORM_COLS] = cols;
  args[NPUVP_LAYERNORM_EPS] = f32_bits(eps);
  if (!run.run(args, blocks ? blocks : cores)) return 0;
  std::vector<double> want(rows * cols), scale(rows * cols);
  for (std::size_t i = 0; i < rows; ++i) {
    std::vector<double> v(cols);
    double mean = 0, var = 0;
    for (std::size_t c = 0; c < cols; ++c) {
      v[c] = half_to_float(x[i * cols + c]) + (residual ? half_to_float(r[i * cols + c]) : 0.0);
      mean += v[c];
    }
    mean /= cols;
    for (std::size_t c = 0; c < cols; ++c) var += (v[c] - mean) * (v[c] - mean);
    var /= cols;
    const double rstd = 1 / std::sqrt(var + static_cast<double>(eps));
    for (std::size_t c = 0; c < cols; ++c) {
      const double normalised = (v[c] - mean) * rstd * half_to_float(g[c]);
      const double shift = beta ? half_to_float(b[c]) : 0.0;
      want[i * cols + c] = normalised + shift;
      scale[i * cols + c] = std::fabs(normalised) + std::fabs(shift) + 1;
    }
  }
  expect_close(run.output(out, rows * cols), want, false, [&](std::size_t i) { return 1e-5 * scale[i]; });
  const double per_element = run.cycles() / static_cast<double>(rows * cols);
  std::printf("layernorm %zu x %zu%s%s, %u core(s): %.0f cycles on core 0, %.4f cycles/element\n", rows, cols,
              residual ? " +residual" : "", beta ? " +beta" : "", cores, run.cycles(), per_element);
  return per_element;
}

TEST(OperatorLayerNorm, Cols768ResidualBeta) { run_layernorm(40, 768, true, true); }
TEST(OperatorLayerNorm, Cols768NoResidualNoBeta) { run_layernorm(40, 768, false, false); }
TEST(OperatorLayerNorm, Cols3072Beta) { run_layernorm(9, 3072, false, true, 2, 3); }
TEST(OperatorLayerNorm, OddCols37Residual) { run_layernorm(101, 37, true, false, 4, 5); }
TEST(OperatorLayerNorm, Cols8192OffsetMean) { run_layernorm(3, 8192, true, true, 1, 0, 50); }
TEST(OperatorLayerNorm, OneColumn) { run_layernorm(10, 1, false, true); }
// Rows longer than 8192 columns: three streamed passes.
TEST(OperatorLayerNorm, Cols8193ResidualBeta) { run_layernorm(3, 8193, true, true, 2, 2); }
TEST(OperatorLayerNorm, Cols20000Beta) { run_layernorm(2, 20000, false, true, 1, 0, 20); }
TEST(OperatorLayerNorm, RejectsMissingGamma) {
  OperatorRun run("op_layernorm", 1);
  const std::uint64_t x = run.place(random_halves<double>(64, 1, -1, 1)), out = run.place_output(64);
  std::vector<std::uint64_t> args(NPUVP_LAYERNORM_ARG_COUNT, 0);
  args[NPUVP_LAYERNORM_IN] = x;
  args[NPUVP_LAYERNORM_OUT] = out;
  args[NPUVP_LAYERNORM_ROWS] = 1;
  args[NPUVP_LAYERNORM_COLS] = 64;
  const std::string reason = run.run_invalid(args);
  EXPECT_NE(reason.find("layernorm_invalid_argument"), std::string::npos) << reason;
}
// BERT-base: 128 tokens of 768 on 2 cores.
TEST(OperatorLayerNorm, BertThroughput) { EXPECT_LT(run_layernorm(128, 768, true, true, 2, 2, 0, kDdrAligned), 1.0); }
TEST(OperatorLayerNorm, BertNoResidualThroughput) {
  EXPECT_LT(run_layernorm(128, 768, false, true, 2, 2, 0, kDdrAligned), 1.0);
}
TEST(OperatorLayerNorm, BertThroughputL2) { EXPECT_LT(run_layernorm(128, 768, true, true, 2, 2, 0, kL2Aligned), 1.0); }

}  // namespace
}  // namespace npuvp
