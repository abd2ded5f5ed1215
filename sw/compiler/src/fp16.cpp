#include "fp16.h"

#include <cstring>

namespace npuvp::compiler {

std::uint32_t float_bits(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return bits;
}

std::uint16_t float_to_half(float value) {
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

float half_to_float(std::uint16_t h) {
  std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
  std::uint32_t exponent = (h >> 10) & 0x1fu;
  std::uint32_t mantissa = h & 0x3ffu;
  std::uint32_t bits;
  if (exponent == 0) {
    if (mantissa == 0) {
      bits = sign;
    } else {
      int e = -1;
      do { ++e; mantissa <<= 1; } while (!(mantissa & 0x400u));
      bits = sign | (std::uint32_t(127 - 15 - e) << 23) | ((mantissa & 0x3ffu) << 13);
    }
  } else if (exponent == 31) {
    bits = sign | 0x7f800000u | (mantissa << 13);
  } else {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  }
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}

}  // namespace npuvp::compiler
