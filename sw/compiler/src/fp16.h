// IEEE binary16 conversion (round to nearest even), for weights and the
// f32-bits arguments of the kernels.
#pragma once

#include <cstdint>
#include <cstring>

namespace npuvp::compiler {

float half_to_float(std::uint16_t half);

// Inline: the lowering converts every weight (ResNet-50: 25 M of them, once per lowering), and
// a call per element was a fifth of the compile time.
inline std::uint32_t float_bits(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return bits;
}

inline std::uint16_t float_to_half(float value) {
  std::uint32_t x = float_bits(value);
  std::uint32_t sign = (x >> 16) & 0x8000u;
  std::uint32_t exponent = (x >> 23) & 0xffu;
  std::uint32_t mantissa = x & 0x7fffffu;
  if (exponent == 0xff)  // inf / NaN (keep NaN quiet)
    return std::uint16_t(sign | 0x7c00u | (mantissa ? 0x200u : 0));
  int e = int(exponent) - 127 + 15;
  if (e >= 31) return std::uint16_t(sign | 0x7c00u);  // overflow -> inf
  if (e <= 0) {                                       // subnormal or zero
    if (e < -10) return std::uint16_t(sign);
    mantissa |= 0x800000u;
    int shift = 14 - e;
    std::uint32_t half = mantissa >> shift;
    std::uint32_t rest = mantissa & ((1u << shift) - 1);
    std::uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1))) ++half;
    return std::uint16_t(sign | half);
  }
  std::uint32_t half = (std::uint32_t(e) << 10) | (mantissa >> 13);
  std::uint32_t rest = mantissa & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1))) ++half;  // may carry into the exponent: right
  return std::uint16_t(sign | half);
}

}  // namespace npuvp::compiler
