// IEEE binary16 conversion (round to nearest even), for weights and the
// f32-bits arguments of the kernels.
#pragma once

#include <cstdint>

namespace npuvp::compiler {

std::uint16_t float_to_half(float value);
float half_to_float(std::uint16_t half);
std::uint32_t float_bits(float value);

}  // namespace npuvp::compiler
