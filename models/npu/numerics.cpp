// Bit-exact binary16 / binary32 / integer conversions (see numerics.h).
//
// Everything is integer arithmetic on the encodings; the host's fp16 support
// and its floating-point rounding mode are never used. The one core routine,
// round_pack(), rounds a value mag * 2^exp2 (mag an unsigned integer) to a
// binary format with a given rounding mode; float -> half, int -> half,
// int -> float and round-to-integral are all expressed through it.
//
// Conventions (IEEE 754 unless noted):
// - Overflow: the result is infinity when the rounding mode rounds away from
//   zero for the value's sign (nearest-even, nearest-away, up for positive,
//   down for negative values); otherwise it is the largest finite value with
//   the value's sign (0x7bff / 0xfbff for binary16).
// - Subnormal results are produced exactly (gradual underflow, no flush).
// - NaN: half_to_float and float_to_half return a quiet NaN with the input's
//   sign and the top bits of its payload (binary16 payload bits 8..0 <-> the
//   binary32 payload bits 21..13), with the quiet bit set. So quiet NaNs
//   round-trip exactly and a signalling NaN comes back quieted (h | 0x0200),
//   as x86 F16C does.
// - Float -> integer: the value is first rounded to an integral value with
//   the mode, then saturated to the destination range; NaN converts to 0,
//   +/-inf to the maximum / minimum.
#include "npu/numerics.h"

#include <cstring>

namespace npuvp::numerics {
namespace {

std::uint32_t float_bits(float f) {
  std::uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return bits;
}

float bits_float(std::uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

unsigned bit_width(std::uint64_t value) { return value == 0 ? 0 : 64 - static_cast<unsigned>(__builtin_clzll(value)); }

// Rounds mag / 2^shift to an integer with `rounding` for a value of sign
// `negative`; shift may be 0 or larger than 64.
std::uint64_t shift_round(std::uint64_t mag, unsigned shift, bool negative, Rounding rounding) {
  if (shift == 0) return mag;
  std::uint64_t q;
  bool round_bit, sticky;
  if (shift < 64) {
    q = mag >> shift;
    const std::uint64_t rem = mag & ((std::uint64_t{1} << shift) - 1);
    const std::uint64_t half = std::uint64_t{1} << (shift - 1);
    round_bit = (rem & half) != 0;
    sticky = (rem & (half - 1)) != 0;
  } else {
    q = 0;
    round_bit = shift == 64 && (mag >> 63) != 0;
    sticky = shift == 64 ? (mag & ~(std::uint64_t{1} << 63)) != 0 : mag != 0;
  }
  bool increment = false;
  switch (rounding) {
    case Rounding::kNearestEven: increment = round_bit && (sticky || (q & 1)); break;
    case Rounding::kTowardZero: break;
    case Rounding::kDown: increment = negative && (round_bit || sticky); break;
    case Rounding::kUp: increment = !negative && (round_bit || sticky); break;
    case Rounding::kNearestAway: increment = round_bit; break;
  }
  return q + (increment ? 1 : 0);
}

// Whether overflow of a value with this sign goes to infinity (else to the
// largest finite value).
bool overflow_to_infinity(bool negative, Rounding rounding) {
  switch (rounding) {
    case Rounding::kNearestEven:
    case Rounding::kNearestAway: return true;
    case Rounding::kTowardZero: return false;
    case Rounding::kDown: return negative;
    case Rounding::kUp: return !negative;
  }
  return true;
}

// A binary interchange format: mant_bits fraction bits, exp_bits exponent bits.
struct Format {
  unsigned mant_bits, exp_bits;
  int emin() const { return 2 - (1 << (exp_bits - 1)); }  // 1 - bias
  std::uint64_t infinity() const { return ((std::uint64_t{1} << exp_bits) - 1) << mant_bits; }
  std::uint64_t sign() const { return std::uint64_t{1} << (mant_bits + exp_bits); }
};
constexpr Format kHalf{10, 5};
constexpr Format kSingle{23, 8};

// Encoding of (negative ? -1 : 1) * mag * 2^exp2 in `format`, rounded.
std::uint64_t round_pack(bool negative, std::uint64_t mag, int exp2, Format format, Rounding rounding) {
  const std::uint64_t sign = negative ? format.sign() : 0;
  if (mag == 0) return sign;
  const int exponent = static_cast<int>(bit_width(mag)) - 1 + exp2;  // value in [2^e, 2^(e+1))
  const int emin = format.emin();
  const int m = static_cast<int>(format.mant_bits);
  const int quantum = (exponent > emin ? exponent : emin) - m;  // ulp at this exponent
  std::uint64_t q;
  if (quantum >= exp2)
    q = shift_round(mag, static_cast<unsigned>(quantum - exp2), negative, rounding);
  else
    q = mag << (exp2 - quantum);  // exact; q < 2^(m+1)
  // q includes the hidden bit: a carry out of rounding lands in the exponent,
  // and subnormals (quantum == emin - m) encode as q itself.
  const std::uint64_t bits = (static_cast<std::uint64_t>(quantum + m - emin) << m) + q;
  if (bits >= format.infinity())
    return sign | (overflow_to_infinity(negative, rounding) ? format.infinity() : format.infinity() - 1);
  return sign | bits;
}

}  // namespace

float half_to_float(Half h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000) << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1f;
  const std::uint32_t mant = h & 0x3ff;
  if (exponent == 0x1f) {
    if (mant == 0) return bits_float(sign | 0x7f800000);
    return bits_float(sign | 0x7fc00000 | (mant << 13));  // quiet NaN, payload kept
  }
  if (exponent != 0) return bits_float(sign | ((exponent + 112) << 23) | (mant << 13));
  if (mant == 0) return bits_float(sign);
  // Subnormal: mant * 2^-24, normalised for binary32.
  const unsigned width = bit_width(mant);  // 1..10
  const std::uint32_t fraction = (mant << (24 - width)) & 0x7fffff;
  return bits_float(sign | ((width + 102) << 23) | fraction);  // 2^(width-1-24) -> biased width + 102
}

Half float_to_half(float f, Rounding rounding) {
  const std::uint32_t x = float_bits(f);
  const std::uint32_t sign = (x >> 16) & 0x8000;
  const std::uint32_t magnitude = x & 0x7fffffff;
  if (magnitude >= 0x7f800000) {
    if (magnitude == 0x7f800000) return static_cast<Half>(sign | 0x7c00);
    return static_cast<Half>(sign | 0x7e00 | ((magnitude >> 13) & 0x3ff));  // quiet NaN
  }
  // Fast path: nearest-even with a normal binary16 result, [2^-14, 65520).
  if (rounding == Rounding::kNearestEven && magnitude >= 0x38800000 && magnitude < 0x477ff000) {
    const std::uint32_t odd = (magnitude >> 13) & 1;
    return static_cast<Half>(sign | ((magnitude - 0x38000000 + 0xfff + odd) >> 13));
  }
  const std::uint32_t exponent = magnitude >> 23;
  const std::uint32_t fraction = magnitude & 0x7fffff;
  const std::uint64_t mag = exponent == 0 ? fraction : (fraction | 0x800000);
  const int exp2 = exponent == 0 ? -149 : static_cast<int>(exponent) - 150;
  return static_cast<Half>(round_pack(sign != 0, mag, exp2, kHalf, rounding));
}

float round_to_integral(float f, Rounding rounding) {
  const std::uint32_t x = float_bits(f);
  const std::uint32_t magnitude = x & 0x7fffffff;
  if (magnitude >= 0x7f800000) return f + f;    // inf stays, NaN quietened
  if (magnitude >= 0x4b000000) return f;        // >= 2^23: already integral
  const bool negative = (x >> 31) != 0;
  const std::uint32_t exponent = magnitude >> 23;
  const std::uint64_t mag = exponent == 0 ? (magnitude & 0x7fffff) : ((magnitude & 0x7fffff) | 0x800000);
  const unsigned shift = exponent == 0 ? 149u : 150u - exponent;  // exponent <= 150 here
  const std::uint64_t q = shift_round(mag, shift, negative, rounding);  // <= 2^23, exact in float
  const float result = static_cast<float>(q);
  return negative ? -result : result;  // keeps the sign of zero
}

std::int32_t float_to_int32(float f, Rounding rounding) {
  if (f != f) return 0;
  const float r = round_to_integral(f, rounding);
  if (r >= 2147483648.0f) return 2147483647;
  if (r <= -2147483648.0f) return -2147483647 - 1;
  return static_cast<std::int32_t>(r);
}

std::int8_t float_to_int8(float f, Rounding rounding) {
  if (f != f) return 0;
  const float r = round_to_integral(f, rounding);
  if (r >= 127.0f) return 127;
  if (r <= -128.0f) return -128;
  return static_cast<std::int8_t>(static_cast<int>(r));
}

Half int32_to_half(std::int32_t value, Rounding rounding) {
  const bool negative = value < 0;
  const std::uint64_t mag = negative ? std::uint64_t{0} - static_cast<std::uint64_t>(static_cast<std::int64_t>(value))
                                     : static_cast<std::uint64_t>(value);
  return static_cast<Half>(round_pack(negative, mag, 0, kHalf, rounding));
}

float int32_to_float(std::int32_t value, Rounding rounding) {
  const bool negative = value < 0;
  const std::uint64_t mag = negative ? std::uint64_t{0} - static_cast<std::uint64_t>(static_cast<std::int64_t>(value))
                                     : static_cast<std::uint64_t>(value);
  return bits_float(static_cast<std::uint32_t>(round_pack(negative, mag, 0, kSingle, rounding)));
}

}  // namespace npuvp::numerics
