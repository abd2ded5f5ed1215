// numerics: binary16 <-> binary32 and integer conversions, checked against an
// independent reference that works on exact double values: it finds the two
// representable candidates around a value and chooses one per rounding mode.
#include "npu/numerics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace npuvp::numerics {
namespace {

constexpr Rounding kModes[] = {Rounding::kNearestEven, Rounding::kTowardZero, Rounding::kDown, Rounding::kUp,
                               Rounding::kNearestAway};

const char* mode_name(Rounding r) {
  switch (r) {
    case Rounding::kNearestEven: return "nearest-even";
    case Rounding::kTowardZero: return "toward-zero";
    case Rounding::kDown: return "down";
    case Rounding::kUp: return "up";
    case Rounding::kNearestAway: return "nearest-away";
  }
  return "?";
}

std::uint32_t bits(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
float from_bits(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

// Independent binary16 decoding: sign * fraction * 2^exponent with ldexp.
double half_value(std::uint16_t h) {
  const int e = (h >> 10) & 0x1f;
  const int m = h & 0x3ff;
  double v = e == 0 ? std::ldexp(m, -24) : std::ldexp(1024 + m, e - 25);
  if (e == 31) v = m == 0 ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  return (h & 0x8000) ? -v : v;
}

// Values of the positive finite halves 0x0000..0x7bff, increasing.
const std::vector<double>& half_table() {
  static const std::vector<double> table = [] {
    std::vector<double> t(0x7c00);
    for (unsigned h = 0; h < 0x7c00; ++h) t[h] = half_value(static_cast<std::uint16_t>(h));
    return t;
  }();
  return table;
}

// Chooses between the candidates lo < |value| < hi (magnitudes, with their
// encodings) for a value of the given sign.
std::uint64_t choose(double magnitude, double lo, std::uint64_t lo_bits, double hi, std::uint64_t hi_bits,
                     bool negative, Rounding mode) {
  const double mid = (lo + hi) / 2;  // exact: both have few significant bits
  switch (mode) {
    case Rounding::kTowardZero: return lo_bits;
    case Rounding::kDown: return negative ? hi_bits : lo_bits;
    case Rounding::kUp: return negative ? lo_bits : hi_bits;
    case Rounding::kNearestAway:
      return magnitude >= mid ? hi_bits : lo_bits;
    case Rounding::kNearestEven:
      if (magnitude < mid) return lo_bits;
      if (magnitude > mid) return hi_bits;
      return (lo_bits & 1) == 0 ? lo_bits : hi_bits;
  }
  return lo_bits;
}

// Reference: a finite or infinite (not NaN) exact value -> binary16.
std::uint16_t reference_half(double value, Rounding mode) {
  const bool negative = std::signbit(value);
  const std::uint16_t sign = negative ? 0x8000 : 0;
  const double magnitude = std::fabs(value);
  if (std::isinf(magnitude)) return sign | 0x7c00;
  const auto& table = half_table();
  // First half strictly greater than the magnitude.
  const auto above = std::upper_bound(table.begin(), table.end(), magnitude);
  const auto lo_bits = static_cast<std::uint16_t>((above - table.begin()) - 1);
  if (table[lo_bits] == magnitude) return sign | lo_bits;
  // Beyond 65504 the next candidate is infinity, placed at 2^16 (IEEE: the
  // value with unbounded exponent) so that 65520 is the nearest-mode tie.
  const std::uint16_t hi_bits = static_cast<std::uint16_t>(lo_bits + 1);
  const double hi = hi_bits == 0x7c00 ? 65536.0 : table[hi_bits];
  return static_cast<std::uint16_t>(sign | choose(magnitude, table[lo_bits], lo_bits, hi, hi_bits, negative, mode));
}

// Reference: an exact value (|v| < 2^31 + ...) -> binary32, by candidates.
float reference_float(double value, Rounding mode) {
  const bool negative = value < 0;
  const double magnitude = std::fabs(value);
  float lo = static_cast<float>(magnitude);  // some float next to it
  while (static_cast<double>(lo) > magnitude) lo = std::nextafter(lo, 0.0f);
  while (static_cast<double>(std::nextafter(lo, INFINITY)) <= magnitude) lo = std::nextafter(lo, INFINITY);
  if (static_cast<double>(lo) == magnitude) return negative ? -lo : lo;
  const float hi = std::nextafter(lo, INFINITY);
  const float r = from_bits(static_cast<std::uint32_t>(choose(magnitude, lo, bits(lo), hi, bits(hi), negative, mode)));
  return negative ? -r : r;
}

// Reference: round a float to an integral value (magnitudes via floor/ceil).
double reference_integral(float f, Rounding mode) {
  const double magnitude = std::fabs(static_cast<double>(f));
  const double lo = std::floor(magnitude), hi = std::ceil(magnitude);
  if (lo == hi) return f;
  const double m = static_cast<double>(choose(magnitude, lo, static_cast<std::uint64_t>(lo), hi,
                                              static_cast<std::uint64_t>(hi), std::signbit(f), mode));
  return std::signbit(f) ? -m : m;
}

// ---- binary16 -> binary32 ---------------------------------------------------

TEST(NpuNumerics, EveryHalfConvertsToFloatExactlyAndBack) {
  unsigned nans = 0;
  for (unsigned h = 0; h < 0x10000; ++h) {
    const auto half = static_cast<std::uint16_t>(h);
    const float f = half_to_float(half);
    if ((h & 0x7fff) > 0x7c00) {
      ++nans;
      ASSERT_TRUE(std::isnan(f)) << std::hex << h;
      EXPECT_EQ(std::signbit(f), (h & 0x8000) != 0) << std::hex << h;
      EXPECT_EQ(bits(f) & 0x00400000u, 0x00400000u) << "quiet " << std::hex << h;
      for (Rounding mode : kModes) EXPECT_EQ(float_to_half(f, mode), h | 0x0200) << std::hex << h;
      continue;
    }
    ASSERT_EQ(static_cast<double>(f), half_value(half)) << std::hex << h;
    ASSERT_EQ(std::signbit(f), (h & 0x8000) != 0) << std::hex << h;
    for (Rounding mode : kModes) ASSERT_EQ(float_to_half(f, mode), half) << std::hex << h << " " << mode_name(mode);
  }
  EXPECT_EQ(nans, 2u * 1023u);
}

TEST(NpuNumerics, HalfSpecialValues) {
  EXPECT_EQ(bits(half_to_float(0x0000)), 0x00000000u);
  EXPECT_EQ(bits(half_to_float(0x8000)), 0x80000000u);
  EXPECT_EQ(bits(half_to_float(0x0001)), 0x33800000u);  // 2^-24
  EXPECT_EQ(bits(half_to_float(0x03ff)), 0x387fc000u);  // largest subnormal
  EXPECT_EQ(bits(half_to_float(0x0400)), 0x38800000u);  // 2^-14
  EXPECT_EQ(half_to_float(0x3c00), 1.0f);
  EXPECT_EQ(half_to_float(0x7bff), 65504.0f);
  EXPECT_EQ(half_to_float(0xc000), -2.0f);
  EXPECT_EQ(bits(half_to_float(0x7c00)), 0x7f800000u);
  EXPECT_EQ(bits(half_to_float(0xfc00)), 0xff800000u);
  EXPECT_EQ(bits(half_to_float(0x7e00)), 0x7fc00000u);
  EXPECT_EQ(bits(half_to_float(0xfd01)), 0xffe02000u);  // sNaN: quietened, sign and payload kept
}

// ---- binary32 -> binary16 ---------------------------------------------------

void check_float(float f, Rounding mode) {
  if (std::isnan(f)) {  // a quiet NaN with the sign and the top payload bits
    const std::uint16_t h = float_to_half(f, mode);
    ASSERT_EQ(h & 0x7e00, 0x7e00) << std::hex << bits(f);
    ASSERT_EQ((h & 0x8000) != 0, std::signbit(f)) << std::hex << bits(f);
    ASSERT_EQ(h & 0x01ff, (bits(f) >> 13) & 0x01ff) << std::hex << bits(f);
    return;
  }
  const std::uint16_t expected = reference_half(static_cast<double>(f), mode);
  const std::uint16_t actual = float_to_half(f, mode);
  ASSERT_EQ(actual, expected) << "float " << std::hexfloat << f << " (0x" << std::hex << bits(f) << ") "
                              << mode_name(mode);
}

TEST(NpuNumerics, ReferenceSelfCheck) {
  // The reference itself on values whose answers are known by hand.
  EXPECT_EQ(reference_half(1.0, Rounding::kNearestEven), 0x3c00);
  EXPECT_EQ(reference_half(65520.0, Rounding::kNearestEven), 0x7c00);
  EXPECT_EQ(reference_half(65519.0, Rounding::kNearestEven), 0x7bff);
  EXPECT_EQ(reference_half(std::ldexp(1.0, -25), Rounding::kNearestEven), 0x0000);
  EXPECT_EQ(reference_half(std::ldexp(3.0, -25), Rounding::kNearestEven), 0x0002);
  EXPECT_EQ(reference_half(-1e9, Rounding::kTowardZero), 0xfbff);
  EXPECT_EQ(reference_float(16777217.0, Rounding::kNearestEven), 16777216.0f);
  EXPECT_EQ(reference_float(16777217.0, Rounding::kUp), 16777218.0f);
  EXPECT_EQ(reference_integral(-2.5f, Rounding::kNearestEven), -2.0);
}

TEST(NpuNumerics, FloatToHalfBoundariesAllModes) {
  // Every positive finite half, the midpoints to its neighbours and the floats
  // just around those midpoints, with both signs, in every mode: halfway
  // cases, the subnormal/normal boundary and the top of the range.
  const auto& table = half_table();
  for (unsigned h = 0; h < 0x7c00; ++h) {
    const double v = table[h];
    const double next = h + 1 < 0x7c00 ? table[h + 1] : 65536.0;
    const float mid = static_cast<float>((v + next) / 2);  // exact in float
    ASSERT_EQ(static_cast<double>(mid), (v + next) / 2);
    const float values[] = {static_cast<float>(v), std::nextafter(static_cast<float>(v), INFINITY), mid,
                            std::nextafter(mid, 0.0f), std::nextafter(mid, INFINITY)};
    for (float f : values)
      for (Rounding mode : kModes) {
        check_float(f, mode);
        check_float(-f, mode);
      }
  }
}

TEST(NpuNumerics, FloatToHalfRandomNearestEven) {
  std::mt19937 rng(12345);
  std::uniform_int_distribution<std::uint32_t> any;
  std::uniform_int_distribution<std::uint32_t> exponent(127 - 27, 127 + 17);  // around the half range
  for (int i = 0; i < 2'000'000; ++i) check_float(from_bits(any(rng)) /* may be NaN */, Rounding::kNearestEven);
  for (int i = 0; i < 2'000'000; ++i) {
    const std::uint32_t b = (any(rng) & 0x807fffffu) | (exponent(rng) << 23);
    check_float(from_bits(b), Rounding::kNearestEven);
  }
}

TEST(NpuNumerics, FloatToHalfRandomOtherModes) {
  std::mt19937 rng(777);
  std::uniform_int_distribution<std::uint32_t> any;
  std::uniform_int_distribution<std::uint32_t> exponent(127 - 27, 127 + 17);
  for (Rounding mode : kModes)
    for (int i = 0; i < 1'000'000; ++i) {
      const std::uint32_t b = (i & 1) ? any(rng) : ((any(rng) & 0x807fffffu) | (exponent(rng) << 23));
      check_float(from_bits(b), mode);
    }
}

TEST(NpuNumerics, FloatToHalfHandPicked) {
  using R = Rounding;
  struct Case {
    float value;
    std::uint16_t even, zero, down, up, away;
  };
  const float tie1 = 1.0f + std::ldexp(1.0f, -11);      // between 0x3c00 and 0x3c01
  const float tie2 = 1.0f + 3 * std::ldexp(1.0f, -11);  // between 0x3c01 and 0x3c02
  const float tiny = std::ldexp(1.0f, -25);             // half of the smallest subnormal
  const Case cases[] = {
      {1.0f, 0x3c00, 0x3c00, 0x3c00, 0x3c00, 0x3c00},
      {tie1, 0x3c00, 0x3c00, 0x3c00, 0x3c01, 0x3c01},
      {-tie1, 0xbc00, 0xbc00, 0xbc01, 0xbc00, 0xbc01},
      {tie2, 0x3c02, 0x3c01, 0x3c01, 0x3c02, 0x3c02},
      {0.1f, 0x2e66, 0x2e66, 0x2e66, 0x2e67, 0x2e66},
      {-0.1f, 0xae66, 0xae66, 0xae67, 0xae66, 0xae66},
      {65504.0f, 0x7bff, 0x7bff, 0x7bff, 0x7bff, 0x7bff},
      {65519.0f, 0x7bff, 0x7bff, 0x7bff, 0x7c00, 0x7bff},
      {65520.0f, 0x7c00, 0x7bff, 0x7bff, 0x7c00, 0x7c00},
      {-65520.0f, 0xfc00, 0xfbff, 0xfc00, 0xfbff, 0xfc00},
      {1e6f, 0x7c00, 0x7bff, 0x7bff, 0x7c00, 0x7c00},
      {-1e6f, 0xfc00, 0xfbff, 0xfc00, 0xfbff, 0xfc00},
      {std::numeric_limits<float>::max(), 0x7c00, 0x7bff, 0x7bff, 0x7c00, 0x7c00},
      {INFINITY, 0x7c00, 0x7c00, 0x7c00, 0x7c00, 0x7c00},
      {-INFINITY, 0xfc00, 0xfc00, 0xfc00, 0xfc00, 0xfc00},
      {0.0f, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000},
      {-0.0f, 0x8000, 0x8000, 0x8000, 0x8000, 0x8000},
      {tiny, 0x0000, 0x0000, 0x0000, 0x0001, 0x0001},
      {std::nextafter(tiny, 1.0f), 0x0001, 0x0000, 0x0000, 0x0001, 0x0001},
      {3 * tiny, 0x0002, 0x0001, 0x0001, 0x0002, 0x0002},
      {-tiny, 0x8000, 0x8000, 0x8001, 0x8000, 0x8001},
      {1e-30f, 0x0000, 0x0000, 0x0000, 0x0001, 0x0000},
      {-1e-30f, 0x8000, 0x8000, 0x8001, 0x8000, 0x8000},
      {std::numeric_limits<float>::denorm_min(), 0x0000, 0x0000, 0x0000, 0x0001, 0x0000},
      {std::ldexp(1023.5f, -24), 0x0400, 0x03ff, 0x03ff, 0x0400, 0x0400},  // largest subnormal + 1/2 ulp
      {std::ldexp(1.0f, -14), 0x0400, 0x0400, 0x0400, 0x0400, 0x0400},
      {2049.0f, 0x6800, 0x6800, 0x6800, 0x6801, 0x6801},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.value);
    EXPECT_EQ(float_to_half(c.value, R::kNearestEven), c.even);
    EXPECT_EQ(float_to_half(c.value), c.even);  // the default
    EXPECT_EQ(float_to_half(c.value, R::kTowardZero), c.zero);
    EXPECT_EQ(float_to_half(c.value, R::kDown), c.down);
    EXPECT_EQ(float_to_half(c.value, R::kUp), c.up);
    EXPECT_EQ(float_to_half(c.value, R::kNearestAway), c.away);
  }
}

TEST(NpuNumerics, FloatToHalfNaNStaysQuietWithSign) {
  for (Rounding mode : kModes) {
    EXPECT_EQ(float_to_half(from_bits(0x7fc00000), mode), 0x7e00);
    EXPECT_EQ(float_to_half(from_bits(0xffc00000), mode), 0xfe00);
    EXPECT_EQ(float_to_half(from_bits(0x7f802000), mode), 0x7e01);  // signalling: quietened, payload top bits kept
    EXPECT_EQ(float_to_half(from_bits(0x7f800001), mode), 0x7e00);  // payload below binary16 precision
    EXPECT_EQ(float_to_half(from_bits(0xffffffff), mode), 0xffff);
  }
}

// ---- integers ---------------------------------------------------------------

TEST(NpuNumerics, FloatToInt32HandPicked) {
  using R = Rounding;
  struct Case {
    float value;
    std::int32_t even, zero, down, up, away;
  };
  const std::int32_t kMax = std::numeric_limits<std::int32_t>::max(), kMin = std::numeric_limits<std::int32_t>::min();
  const Case cases[] = {
      {2.5f, 2, 2, 2, 3, 3},
      {-2.5f, -2, -2, -3, -2, -3},
      {3.5f, 4, 3, 3, 4, 4},
      {0.5f, 0, 0, 0, 1, 1},
      {-0.5f, 0, 0, -1, 0, -1},
      {2.25f, 2, 2, 2, 3, 2},
      {-2.75f, -3, -2, -3, -2, -3},
      {1e-40f, 0, 0, 0, 1, 0},
      {-1e-40f, 0, 0, -1, 0, 0},
      {2147483520.0f, 2147483520, 2147483520, 2147483520, 2147483520, 2147483520},
      {2147483648.0f, kMax, kMax, kMax, kMax, kMax},
      {-2147483648.0f, kMin, kMin, kMin, kMin, kMin},
      {1e10f, kMax, kMax, kMax, kMax, kMax},
      {-1e10f, kMin, kMin, kMin, kMin, kMin},
      {INFINITY, kMax, kMax, kMax, kMax, kMax},
      {-INFINITY, kMin, kMin, kMin, kMin, kMin},
      {NAN, 0, 0, 0, 0, 0},
      {-NAN, 0, 0, 0, 0, 0},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.value);
    EXPECT_EQ(float_to_int32(c.value, R::kNearestEven), c.even);
    EXPECT_EQ(float_to_int32(c.value, R::kTowardZero), c.zero);
    EXPECT_EQ(float_to_int32(c.value, R::kDown), c.down);
    EXPECT_EQ(float_to_int32(c.value, R::kUp), c.up);
    EXPECT_EQ(float_to_int32(c.value, R::kNearestAway), c.away);
  }
}

TEST(NpuNumerics, FloatToInt8Saturates) {
  using R = Rounding;
  EXPECT_EQ(float_to_int8(127.4f, R::kNearestEven), 127);
  EXPECT_EQ(float_to_int8(127.5f, R::kNearestEven), 127);  // rounds to 128, saturates
  EXPECT_EQ(float_to_int8(127.5f, R::kTowardZero), 127);
  EXPECT_EQ(float_to_int8(126.5f, R::kNearestEven), 126);
  EXPECT_EQ(float_to_int8(126.5f, R::kNearestAway), 127);
  EXPECT_EQ(float_to_int8(-128.0f, R::kNearestEven), -128);
  EXPECT_EQ(float_to_int8(-128.5f, R::kNearestAway), -128);
  EXPECT_EQ(float_to_int8(-127.5f, R::kNearestEven), -128);
  EXPECT_EQ(float_to_int8(-127.5f, R::kUp), -127);
  EXPECT_EQ(float_to_int8(300.0f, R::kNearestEven), 127);
  EXPECT_EQ(float_to_int8(-300.0f, R::kUp), -128);
  EXPECT_EQ(float_to_int8(1e30f, R::kDown), 127);
  EXPECT_EQ(float_to_int8(-INFINITY, R::kNearestEven), -128);
  EXPECT_EQ(float_to_int8(NAN, R::kUp), 0);
  EXPECT_EQ(float_to_int8(-0.5f, R::kDown), -1);
  EXPECT_EQ(float_to_int8(0.25f, R::kUp), 1);
  EXPECT_EQ(float_to_int8(-5.5f, R::kNearestEven), -6);
}

TEST(NpuNumerics, RoundToIntegralMatchesReference) {
  std::mt19937 rng(99);
  std::uniform_int_distribution<std::uint32_t> any;
  std::uniform_int_distribution<std::uint32_t> exponent(127 - 3, 127 + 24);
  for (Rounding mode : kModes)
    for (int i = 0; i < 300'000; ++i) {
      const std::uint32_t b = (i & 1) ? any(rng) : ((any(rng) & 0x807fffffu) | (exponent(rng) << 23));
      const float f = from_bits(b);
      if (std::isnan(f)) continue;
      const float r = round_to_integral(f, mode);
      const double expected = reference_integral(f, mode);
      ASSERT_EQ(static_cast<double>(r), expected) << std::hexfloat << f << " " << mode_name(mode);
      ASSERT_EQ(std::signbit(r), std::signbit(f)) << std::hexfloat << f << " " << mode_name(mode);
      // float_to_int32 is round-then-saturate.
      const std::int32_t i32 = float_to_int32(f, mode);
      const std::int32_t e32 = expected >= 2147483647.0   ? std::numeric_limits<std::int32_t>::max()
                               : expected <= -2147483648.0 ? std::numeric_limits<std::int32_t>::min()
                                                           : static_cast<std::int32_t>(expected);
      ASSERT_EQ(i32, e32) << std::hexfloat << f << " " << mode_name(mode);
      const std::int8_t i8 = float_to_int8(f, mode);
      const int e8 = static_cast<int>(std::max(-128.0, std::min(127.0, expected)));
      ASSERT_EQ(i8, e8) << std::hexfloat << f << " " << mode_name(mode);
    }
  EXPECT_TRUE(std::isnan(round_to_integral(NAN, Rounding::kUp)));
  EXPECT_EQ(round_to_integral(INFINITY, Rounding::kDown), INFINITY);
  EXPECT_EQ(bits(round_to_integral(-0.25f, Rounding::kNearestEven)), 0x80000000u);  // -0
  EXPECT_EQ(round_to_integral(-0.25f, Rounding::kDown), -1.0f);
  EXPECT_EQ(round_to_integral(8388607.5f, Rounding::kNearestEven), 8388608.0f);
}

TEST(NpuNumerics, Int32ToHalfMatchesReference) {
  // Exhaustive over the interesting range (65504 and the 65520 overflow
  // boundary included), random beyond.
  for (Rounding mode : kModes) {
    for (std::int32_t v = -70000; v <= 70000; ++v)
      ASSERT_EQ(int32_to_half(v, mode), reference_half(static_cast<double>(v), mode)) << v << " " << mode_name(mode);
    std::mt19937 rng(5);
    std::uniform_int_distribution<std::int32_t> any(std::numeric_limits<std::int32_t>::min(),
                                                    std::numeric_limits<std::int32_t>::max());
    for (int i = 0; i < 20000; ++i) {
      const std::int32_t v = any(rng);
      ASSERT_EQ(int32_to_half(v, mode), reference_half(static_cast<double>(v), mode)) << v << " " << mode_name(mode);
    }
  }
  using R = Rounding;
  EXPECT_EQ(int32_to_half(2049, R::kNearestEven), 0x6800);
  EXPECT_EQ(int32_to_half(2049, R::kNearestAway), 0x6801);
  EXPECT_EQ(int32_to_half(-2049, R::kDown), 0xe801);
  EXPECT_EQ(int32_to_half(-2049, R::kUp), 0xe800);
  EXPECT_EQ(int32_to_half(65519, R::kNearestEven), 0x7bff);
  EXPECT_EQ(int32_to_half(65520, R::kNearestEven), 0x7c00);
  EXPECT_EQ(int32_to_half(65520, R::kTowardZero), 0x7bff);
  EXPECT_EQ(int32_to_half(std::numeric_limits<std::int32_t>::max(), R::kDown), 0x7bff);
  EXPECT_EQ(int32_to_half(std::numeric_limits<std::int32_t>::min(), R::kNearestEven), 0xfc00);
  EXPECT_EQ(int32_to_half(std::numeric_limits<std::int32_t>::min(), R::kUp), 0xfbff);
  EXPECT_EQ(int32_to_half(0, R::kDown), 0x0000);
}

TEST(NpuNumerics, Int32ToFloatMatchesReference) {
  using R = Rounding;
  std::mt19937 rng(6);
  std::uniform_int_distribution<std::int32_t> any(std::numeric_limits<std::int32_t>::min(),
                                                  std::numeric_limits<std::int32_t>::max());
  for (Rounding mode : kModes) {
    for (int i = 0; i < 200000; ++i) {
      const std::int32_t v = any(rng);
      ASSERT_EQ(bits(int32_to_float(v, mode)), bits(reference_float(v, mode))) << v << " " << mode_name(mode);
    }
    for (std::int32_t v : {0, 1, -1, 16777216, 16777217, 16777218, 16777219, -16777217, 2147483647, -2147483647,
                           std::numeric_limits<std::int32_t>::min()})
      EXPECT_EQ(bits(int32_to_float(v, mode)), bits(reference_float(v, mode))) << v << " " << mode_name(mode);
  }
  EXPECT_EQ(int32_to_float(16777217, R::kNearestEven), 16777216.0f);
  EXPECT_EQ(int32_to_float(16777219, R::kNearestEven), 16777220.0f);
  EXPECT_EQ(int32_to_float(16777217, R::kUp), 16777218.0f);
  EXPECT_EQ(int32_to_float(16777217, R::kNearestAway), 16777218.0f);
  EXPECT_EQ(int32_to_float(-16777217, R::kDown), -16777218.0f);
  EXPECT_EQ(int32_to_float(-16777217, R::kTowardZero), -16777216.0f);
  EXPECT_EQ(int32_to_float(2147483647, R::kTowardZero), 2147483520.0f);
  EXPECT_EQ(int32_to_float(2147483647, R::kNearestEven), 2147483648.0f);
}

}  // namespace
}  // namespace npuvp::numerics
