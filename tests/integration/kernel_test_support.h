// What the AI Core kernel tests share beside KernelRun: random f16 inputs,
// f32 argument words, the sentinel-filled guard band after an output (so a
// write past the result is caught), f16 tolerances, and address alignment.
#pragma once

#include "integration/kernel_harness.h"
#include "npu/numerics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace npuvp::test_support {

constexpr std::uint16_t kSentinel = 0x7e7e;  // a NaN no kernel produces from finite inputs
constexpr std::size_t kGuardHalves = 64;     // the guard band after every output

inline std::uint64_t align_up(std::uint64_t value, std::uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

// `count` f16 values uniform in [low, high), drawn in `Real` precision
// (float and double give different streams from the same seed).
template <typename Real = float>
std::vector<std::uint16_t> random_halves(std::size_t count, std::uint32_t seed, double low = -1.0,
                                         double high = 1.0) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<Real> dist(static_cast<Real>(low), static_cast<Real>(high));
  std::vector<std::uint16_t> values(count);
  for (auto& value : values) value = numerics::float_to_half(static_cast<float>(dist(rng)));
  return values;
}

// `count` f32 values uniform in [low, high).
inline std::vector<float> random_floats(std::size_t count, std::uint32_t seed, float low = -1.0f, float high = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(low, high);
  std::vector<float> values(count);
  for (auto& value : values) value = dist(rng);
  return values;
}

// The bits of an f32 argument word.
inline std::uint32_t f32_bits(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return bits;
}

// One f16 ulp at `value` (subnormals: 2^-24).
inline double ulp16(double value) {
  const double magnitude = std::fabs(value);
  if (magnitude < std::ldexp(1.0, -14)) return std::ldexp(1.0, -24);
  return std::ldexp(1.0, std::ilogb(magnitude) - 10);
}

// Window geometry (convolution, pooling): the output size over an input of
// `in` with pads `pad_before` / `pad_after`, and the input coordinate that
// tap `tap` of output `out` reads (false if it lies in the padding).
inline std::size_t window_output_size(std::size_t in, std::size_t pad_before, std::size_t pad_after,
                                      std::size_t dilation, std::size_t kernel, std::size_t stride) {
  return (in + pad_before + pad_after - dilation * (kernel - 1) - 1) / stride + 1;
}
inline bool window_input(std::size_t out, std::size_t tap, std::size_t stride, std::size_t dilation,
                         std::size_t pad_before, std::size_t in_size, std::size_t& in) {
  const std::int64_t at = static_cast<std::int64_t>(out * stride + tap * dilation) - static_cast<std::int64_t>(pad_before);
  if (at < 0 || at >= static_cast<std::int64_t>(in_size)) return false;
  in = static_cast<std::size_t>(at);
  return true;
}

// KernelRun parameters for a launch on `cores` AI Cores (the SoC has 2 by default).
inline std::map<std::string, std::string> cores_parameters(unsigned cores) {
  if (cores <= 2) return {};
  return {{"soc.ai_cores", std::to_string(cores)}};
}

// Output area: the result followed by a guard band, all pre-filled with the
// sentinel, so writes outside the result are caught.
inline void prefill_output(KernelRun& run, std::uint64_t address, std::size_t halves) {
  run.write(address, std::vector<std::uint16_t>(halves + kGuardHalves, kSentinel));
}

inline void expect_guard_intact(KernelRun& run, std::uint64_t address, std::size_t halves) {
  auto guard = run.read<std::uint16_t>(address + halves * 2, kGuardHalves);
  for (std::size_t i = 0; i < guard.size(); ++i)
    ASSERT_EQ(guard[i], kSentinel) << "the kernel wrote past its output, at element " << halves + i;
}

// Simulated cycles of a launch: the busiest core's kernel cycles (and no
// block faulted). NPUVP_KERNEL_TEST_STATS prints every statistic.
inline double launch_cycles(KernelRun& run, unsigned cores) {
  double cycles = 0;
  for (unsigned i = 0; i < cores; ++i) {
    const std::string core = "soc.aicore" + std::to_string(i);
    EXPECT_EQ(run.stat(core + ".blocks_faulted"), 0);
    cycles = std::max(cycles, run.stat(core + ".kernel_cycles"));
  }
  if (std::getenv("NPUVP_KERNEL_TEST_STATS")) StatisticsRegistry::instance().print_table(std::cout);
  return cycles;
}

}  // namespace npuvp::test_support
