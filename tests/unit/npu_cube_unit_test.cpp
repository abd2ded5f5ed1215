// CubeUnit: mmad against the naive references of npu_layout_reference.h
// (f16 with sequential-k f32 accumulation, s8 with wrapping s32), operand
// layouts, init/accumulate/bias, whole-fractal semantics, timing and faults.
#include "npu/cube_unit.h"
#include "unit/npu_layout_reference.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace npuvp {
namespace {

using test_support::from_fractal_nz;
using test_support::pack;
using test_support::to_fractal_nz;
using test_support::to_fractal_zn;
using test_support::to_fractal_zz;
using xdavinci::Op;
namespace mm = xdavinci::mmad;

constexpr std::size_t kL0aSize = 64 * 1024, kL0bSize = 64 * 1024, kL0cSize = 256 * 1024, kUbSize = 256 * 1024;

struct CubeBench {
  LocalBuffers buffers{1024 * 1024, kL0aSize, kL0bSize, kL0cSize, kUbSize};
  CubeTiming timing;
  CubeUnit cube{buffers, timing};
};

std::uint64_t mmad_xt(std::uint64_t m, std::uint64_t k, std::uint64_t n, std::uint64_t type, bool init,
                      bool bias = false, std::uint64_t bias_block = 0) {
  return pack({{mm::m, m}, {mm::k, k}, {mm::n, n}, {mm::type, type}, {mm::init, init ? 1u : 0u},
               {mm::bias, bias ? 1u : 0u}, {mm::bias_block, bias_block}});
}

NpuInstruction mmad(std::uint64_t c, std::uint64_t a, std::uint64_t b, std::uint64_t xt) {
  NpuInstruction instruction;
  instruction.op = Op::kMmad;
  instruction.xd = c;
  instruction.xn = a;
  instruction.xm = b;
  instruction.xt = xt;
  return instruction;
}

std::vector<std::uint16_t> random_halves(std::size_t count, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  std::vector<float> values(count);
  for (float& v : values) v = dist(rng);
  return test_support::to_halves(values);
}

std::vector<std::int8_t> random_s8(std::size_t count, std::mt19937& rng) {
  std::uniform_int_distribution<int> dist(-128, 127);
  std::vector<std::int8_t> values(count);
  for (auto& v : values) v = static_cast<std::int8_t>(dist(rng));
  return values;
}

template <typename T>
void put(LocalBuffer& buffer, std::uint64_t offset, const std::vector<T>& values) {
  std::memcpy(buffer.data() + offset, values.data(), values.size() * sizeof(T));
}

std::size_t ceil16(std::size_t v) { return (v + 15) / 16 * 16; }

// Bit-exact comparison of float matrices (a mismatch names the element).
void expect_bits_equal(const std::vector<float>& actual, const std::vector<float>& expected, std::size_t cols) {
  ASSERT_EQ(actual.size(), expected.size());
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < actual.size() && mismatches < 8; ++i) {
    std::uint32_t x, y;
    std::memcpy(&x, &actual[i], 4);
    std::memcpy(&y, &expected[i], 4);
    if (x != y) {
      ADD_FAILURE() << "C[" << i / cols << "][" << i % cols << "] = " << actual[i] << " expected " << expected[i];
      ++mismatches;
    }
  }
}

// Loads A (M x K) and B (K x N) f16 at the given offsets, runs one mmad into
// C at c_off and returns C read back as M x N.
struct F16Case {
  std::size_t m, k, n;
  std::vector<std::uint16_t> a, b;
};

F16Case make_f16_case(std::size_t m, std::size_t k, std::size_t n, std::mt19937& rng) {
  return F16Case{m, k, n, random_halves(m * k, rng), random_halves(k * n, rng)};
}

void load_f16(CubeBench& bench, const F16Case& c, std::uint64_t a_off, std::uint64_t b_off) {
  put(bench.buffers.l0a, a_off, to_fractal_zz(c.a, c.m, c.k, 16));
  put(bench.buffers.l0b, b_off, to_fractal_zn(c.b, c.k, c.n, 16));
}

std::vector<float> read_c_f32(CubeBench& bench, std::uint64_t c_off, std::size_t m, std::size_t n) {
  return from_fractal_nz(reinterpret_cast<const float*>(bench.buffers.l0c.data() + c_off), m, n, 16, ceil16(m));
}

std::vector<std::int32_t> read_c_s32(CubeBench& bench, std::uint64_t c_off, std::size_t m, std::size_t n) {
  return from_fractal_nz(reinterpret_cast<const std::int32_t*>(bench.buffers.l0c.data() + c_off), m, n, 16,
                         ceil16(m));
}

class CubeF16Shapes : public ::testing::TestWithParam<std::tuple<int, int, int>> {};

TEST_P(CubeF16Shapes, InitMatchesSequentialReference) {
  const auto [m, k, n] = GetParam();
  std::mt19937 rng(1234 + m * 7 + k * 13 + n);
  CubeBench bench;
  const F16Case c = make_f16_case(m, k, n, rng);
  load_f16(bench, c, 512, 1024);
  std::memset(bench.buffers.l0c.data(), 0x7f, kL0cSize);  // garbage that init must overwrite
  const UnitResult result = bench.cube.execute(mmad(2048, 512, 1024, mmad_xt(m, k, n, 0, true)));
  EXPECT_EQ(result.macs, static_cast<std::uint64_t>(m) * k * n);
  expect_bits_equal(read_c_f32(bench, 2048, m, n), test_support::gemm_f16(c.a, c.b, m, k, n), n);
}

TEST_P(CubeF16Shapes, AccumulatesOntoExistingC) {
  const auto [m, k, n] = GetParam();
  std::mt19937 rng(99 + m + k + n);
  CubeBench bench;
  const F16Case c = make_f16_case(m, k, n, rng);
  load_f16(bench, c, 0, 0);
  std::vector<float> initial(m * n);
  std::uniform_real_distribution<float> dist(-100.0f, 100.0f);
  for (float& v : initial) v = dist(rng);
  put(bench.buffers.l0c, 0, to_fractal_nz(initial, m, n, 16, ceil16(m)));
  bench.cube.execute(mmad(0, 0, 0, mmad_xt(m, k, n, 0, false)));
  expect_bits_equal(read_c_f32(bench, 0, m, n), test_support::gemm_f16(c.a, c.b, m, k, n, initial), n);
}

TEST_P(CubeF16Shapes, StartsFromTheBiasRow) {
  const auto [m, k, n] = GetParam();
  std::mt19937 rng(5 + m * k * n);
  CubeBench bench;
  const F16Case c = make_f16_case(m, k, n, rng);
  load_f16(bench, c, 0, 0);
  std::vector<float> bias(ceil16(n));
  std::uniform_real_distribution<float> dist(-10.0f, 10.0f);
  for (float& v : bias) v = dist(rng);
  const std::uint64_t bias_block = 37;
  put(bench.buffers.ub, bias_block * 32, bias);
  std::vector<float> initial(m * n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) initial[i * n + j] = bias[j];
  bench.cube.execute(mmad(0, 0, 0, mmad_xt(m, k, n, 0, true, true, bias_block)));
  expect_bits_equal(read_c_f32(bench, 0, m, n), test_support::gemm_f16(c.a, c.b, m, k, n, initial), n);
}

INSTANTIATE_TEST_SUITE_P(Shapes, CubeF16Shapes,
                         ::testing::Values(std::make_tuple(16, 16, 16), std::make_tuple(17, 33, 5),
                                           std::make_tuple(48, 64, 32), std::make_tuple(1, 1, 1),
                                           std::make_tuple(33, 100, 47)));

TEST(CubeUnit, KSplitAcrossInstructionsEqualsOneInstruction) {
  // Accumulation is sequential in k with f32 rounding per addition, so
  // C = A1*B1 then C += A2*B2 is bit-identical to one mmad over K1 + K2.
  std::mt19937 rng(77);
  const std::size_t m = 32, n = 48, k1 = 32, k2 = 64, k = k1 + k2;
  const F16Case whole = make_f16_case(m, k, n, rng);
  F16Case first{m, k1, n, {}, {}}, second{m, k2, n, {}, {}};
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t kk = 0; kk < k; ++kk) (kk < k1 ? first.a : second.a).push_back(whole.a[i * k + kk]);
  for (std::size_t kk = 0; kk < k; ++kk)
    for (std::size_t j = 0; j < n; ++j) (kk < k1 ? first.b : second.b).push_back(whole.b[kk * n + j]);

  CubeBench one, two;
  load_f16(one, whole, 0, 0);
  one.cube.execute(mmad(0, 0, 0, mmad_xt(m, k, n, 0, true)));
  load_f16(two, first, 0, 0);
  two.cube.execute(mmad(0, 0, 0, mmad_xt(m, k1, n, 0, true)));
  load_f16(two, second, 0, 0);
  two.cube.execute(mmad(0, 0, 0, mmad_xt(m, k2, n, 0, false)));
  expect_bits_equal(read_c_f32(two, 0, m, n), read_c_f32(one, 0, m, n), n);
  expect_bits_equal(read_c_f32(one, 0, m, n), test_support::gemm_f16(whole.a, whole.b, m, k, n), n);
}

TEST(CubeUnit, AdditionOrderIsIncreasingK) {
  // 2^24 + 1 + 1: adding the ones one at a time loses both (ties to even),
  // whereas summing the products first would give 2^24 + 2.
  CubeBench bench;
  const std::uint16_t one = numerics::float_to_half(1.0f), big = numerics::float_to_half(4096.0f);
  std::vector<std::uint16_t> a = {big, one, one}, b = {big, one, one};  // 1 x 3 and 3 x 1
  put(bench.buffers.l0a, 0, to_fractal_zz(a, 1, 3));
  put(bench.buffers.l0b, 0, to_fractal_zn(b, 3, 1));
  bench.cube.execute(mmad(0, 0, 0, mmad_xt(1, 3, 1, 0, true)));
  float c;
  std::memcpy(&c, bench.buffers.l0c.data(), 4);
  EXPECT_EQ(c, 16777216.0f);
}

TEST(CubeUnit, ComputesWholeFractalsButCountsUsefulMacs) {
  // Lanes beyond K inside a fractal are used as they are (kernels zero them);
  // rows beyond M are computed too.
  CubeBench bench;
  const std::uint16_t one = numerics::float_to_half(1.0f), two = numerics::float_to_half(2.0f);
  std::vector<std::uint16_t> a_frac(256, 0), b_frac(256, 0);
  a_frac[0 * 16 + 0] = one;   // A[0][0] = 1 (inside M=1, K=1)
  a_frac[0 * 16 + 5] = two;   // A[0][5] = 2 (padding column k = 5)
  a_frac[3 * 16 + 0] = two;   // A[3][0] = 2 (padding row)
  b_frac[0 * 16 + 0] = one;   // B[0][0] = 1
  b_frac[0 * 16 + 5] = two;   // B[5][0] = 2 (padding row k = 5, column n = 0)
  put(bench.buffers.l0a, 0, a_frac);
  put(bench.buffers.l0b, 0, b_frac);
  const UnitResult result = bench.cube.execute(mmad(0, 0, 0, mmad_xt(1, 1, 1, 0, true)));
  EXPECT_EQ(result.macs, 1u);
  const float* c = reinterpret_cast<const float*>(bench.buffers.l0c.data());
  EXPECT_EQ(c[0], 1.0f + 4.0f);
  EXPECT_EQ(c[3 * 16 + 0], 2.0f);
}

TEST(CubeUnit, BiasIsIgnoredWhenAccumulating) {
  CubeBench bench;
  std::mt19937 rng(3);
  const F16Case c = make_f16_case(16, 16, 16, rng);
  load_f16(bench, c, 0, 0);
  std::vector<float> bias(16, 1000.0f), initial(256, 0.5f);
  put(bench.buffers.ub, 0, bias);
  put(bench.buffers.l0c, 0, initial);
  bench.cube.execute(mmad(0, 0, 0, mmad_xt(16, 16, 16, 0, false, true, 0)));
  expect_bits_equal(read_c_f32(bench, 0, 16, 16), test_support::gemm_f16(c.a, c.b, 16, 16, 16, initial), 16);
}

class CubeS8Shapes : public ::testing::TestWithParam<std::tuple<int, int, int>> {};

TEST_P(CubeS8Shapes, InitAccumulateAndBiasMatchReference) {
  const auto [m, k, n] = GetParam();
  std::mt19937 rng(4321 + m + k + n);
  CubeBench bench;
  const auto a = random_s8(m * k, rng), b = random_s8(k * n, rng);
  put(bench.buffers.l0a, 1536, to_fractal_zz(a, m, k, 32));
  put(bench.buffers.l0b, 512, to_fractal_zn(b, k, n, 32));

  // init
  const UnitResult result = bench.cube.execute(mmad(1024, 1536, 512, mmad_xt(m, k, n, 3, true)));
  EXPECT_EQ(result.macs, static_cast<std::uint64_t>(m) * k * n);
  const auto product = test_support::gemm_s8(a, b, m, k, n);
  EXPECT_EQ(read_c_s32(bench, 1024, m, n), product);

  // accumulate onto values near the int32 limits: wraps
  std::vector<std::int32_t> initial(m * n);
  for (std::size_t i = 0; i < initial.size(); ++i)
    initial[i] = (i % 2) ? std::numeric_limits<std::int32_t>::max() - 5 : std::numeric_limits<std::int32_t>::min() + 5;
  put(bench.buffers.l0c, 1024, to_fractal_nz(initial, m, n, 16, ceil16(m)));
  bench.cube.execute(mmad(1024, 1536, 512, mmad_xt(m, k, n, 3, false)));
  EXPECT_EQ(read_c_s32(bench, 1024, m, n), test_support::gemm_s8(a, b, m, k, n, initial));

  // bias row (s32) in UB
  std::vector<std::int32_t> bias(ceil16(n));
  for (std::size_t j = 0; j < bias.size(); ++j) bias[j] = static_cast<std::int32_t>(j * 1000) - 7000;
  put(bench.buffers.ub, 64, bias);
  std::vector<std::int32_t> from_bias(m * n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) from_bias[i * n + j] = bias[j];
  bench.cube.execute(mmad(1024, 1536, 512, mmad_xt(m, k, n, 3, true, true, 2)));
  EXPECT_EQ(read_c_s32(bench, 1024, m, n), test_support::gemm_s8(a, b, m, k, n, from_bias));
}

INSTANTIATE_TEST_SUITE_P(Shapes, CubeS8Shapes,
                         ::testing::Values(std::make_tuple(16, 32, 16), std::make_tuple(17, 33, 5),
                                           std::make_tuple(48, 64, 32), std::make_tuple(20, 100, 40)));

TEST(CubeUnit, S8ExtremesWrap) {
  // 64 products of (-128)*(-128) = 2^14 each on top of INT32_MAX - 2^20 + 1.
  CubeBench bench;
  std::vector<std::int8_t> a(64, -128), b(64, -128);
  put(bench.buffers.l0a, 0, to_fractal_zz(a, 1, 64, 32));
  put(bench.buffers.l0b, 0, to_fractal_zn(b, 64, 1, 32));
  const std::int32_t start = std::numeric_limits<std::int32_t>::max() - (1 << 20) + 1;
  std::memcpy(bench.buffers.l0c.data(), &start, 4);
  bench.cube.execute(mmad(0, 0, 0, mmad_xt(1, 64, 1, 3, false)));
  std::int32_t c;
  std::memcpy(&c, bench.buffers.l0c.data(), 4);
  EXPECT_EQ(c, std::numeric_limits<std::int32_t>::min());
}

TEST(CubeUnit, CyclesFollowTheFractalCount) {
  CubeBench bench;
  // f16 17 x 33 x 5: Mf = 2, Kf = 3, Nf = 1 -> 16 + 6 * 2.
  UnitResult r = bench.cube.execute(mmad(0, 0, 0, mmad_xt(17, 33, 5, 0, true)));
  EXPECT_EQ(r.cycles, 28u);
  EXPECT_EQ(r.macs, 17u * 33u * 5u);
  // s8 17 x 33 x 5: Kf = ceil(33 / 32) = 2 -> 16 + 4 * 2.
  r = bench.cube.execute(mmad(0, 0, 0, mmad_xt(17, 33, 5, 3, true)));
  EXPECT_EQ(r.cycles, 24u);

  CubeTiming slow;
  slow.cycles_per_fractal = 8;
  slow.startup_cycles = 5;
  CubeUnit cube(bench.buffers, slow);
  r = cube.execute(mmad(0, 0, 0, mmad_xt(48, 64, 32, 0, true)));  // 3 * 4 * 2 fractals
  EXPECT_EQ(r.cycles, 5u + 24u * 8u);
  EXPECT_DOUBLE_EQ(cube.peak_macs_per_cycle(xdavinci::DataType::kF16), 512.0);
  EXPECT_DOUBLE_EQ(cube.peak_macs_per_cycle(xdavinci::DataType::kS8), 1024.0);
  EXPECT_DOUBLE_EQ(bench.cube.peak_macs_per_cycle(xdavinci::DataType::kF16), 2048.0);
}

// ---- Faults: the cause is reported and L0C is left unchanged --------------

void expect_fault(CubeBench& bench, const NpuInstruction& instruction, KernelFaultCause cause) {
  std::memset(bench.buffers.l0c.data(), 0x5a, kL0cSize);
  try {
    bench.cube.execute(instruction);
    ADD_FAILURE() << "no fault";
  } catch (const KernelFault& fault) {
    EXPECT_EQ(fault.cause(), cause) << fault.what();
  }
  const std::vector<std::uint8_t> expected(kL0cSize, 0x5a);
  EXPECT_EQ(std::memcmp(bench.buffers.l0c.data(), expected.data(), kL0cSize), 0) << "L0C was modified";
}

TEST(CubeUnit, InvalidParametersFault) {
  CubeBench bench;
  expect_fault(bench, mmad(0, 0, 0, mmad_xt(0, 16, 16, 0, true)), KernelFaultCause::kInvalidParameter);
  expect_fault(bench, mmad(0, 0, 0, mmad_xt(16, 0, 16, 0, true)), KernelFaultCause::kInvalidParameter);
  expect_fault(bench, mmad(0, 0, 0, mmad_xt(16, 16, 0, 0, true)), KernelFaultCause::kInvalidParameter);
  expect_fault(bench, mmad(0, 0, 0, mmad_xt(16, 16, 16, 1, true)), KernelFaultCause::kInvalidParameter);
  expect_fault(bench, mmad(0, 0, 0, mmad_xt(16, 16, 16, 2, true)), KernelFaultCause::kInvalidParameter);
  NpuInstruction wrong_op = mmad(0, 0, 0, mmad_xt(16, 16, 16, 0, true));
  wrong_op.op = Op::kVadd;
  expect_fault(bench, wrong_op, KernelFaultCause::kInvalidParameter);
}

TEST(CubeUnit, MisalignedOperandsFault) {
  CubeBench bench;
  const std::uint64_t xt = mmad_xt(16, 16, 16, 0, true);
  expect_fault(bench, mmad(0, 256, 0, xt), KernelFaultCause::kMisaligned);   // A
  expect_fault(bench, mmad(0, 0, 32, xt), KernelFaultCause::kMisaligned);    // B
  expect_fault(bench, mmad(512, 0, 0, xt), KernelFaultCause::kMisaligned);   // C needs 1024
}

TEST(CubeUnit, OperandsOutsideTheirBuffersFault) {
  CubeBench bench;
  // A: 2 x 2 fractals = 2048 bytes ending past L0A.
  expect_fault(bench, mmad(0, kL0aSize - 1024, 0, mmad_xt(32, 32, 16, 0, true)), KernelFaultCause::kBufferRange);
  // B: 2 x 2 fractals past L0B.
  expect_fault(bench, mmad(0, 0, kL0bSize - 1536, mmad_xt(16, 32, 32, 0, true)), KernelFaultCause::kBufferRange);
  // C: 2 x 1 fractals of 1024 bytes past L0C.
  expect_fault(bench, mmad(kL0cSize - 1024, 0, 0, mmad_xt(32, 16, 16, 0, true)), KernelFaultCause::kBufferRange);
  // Bias: 16 f32 = 64 bytes starting in the last block of UB.
  expect_fault(bench, mmad(0, 0, 0, mmad_xt(16, 16, 16, 0, true, true, kUbSize / 32 - 1)),
               KernelFaultCause::kBufferRange);
  // The maximal shape needs far more than L0A holds.
  expect_fault(bench, mmad(0, 0, 0, mmad_xt(4095, 4095, 16, 0, true)), KernelFaultCause::kBufferRange);
}

}  // namespace
}  // namespace npuvp
