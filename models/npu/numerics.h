// Numerics of the AI Core: IEEE-754 binary16 <-> binary32 conversions with
// explicit rounding modes, and saturating integer conversions. Pure functions,
// bit-exact and host-independent (no reliance on the host's fp16 support or
// rounding mode), shared by the Cube, the Vector unit, the MTE's cc->ub path
// and the C++ references in the tests.
#pragma once

#include <cstdint>

namespace npuvp::numerics {

enum class Rounding : std::uint8_t { kNearestEven = 0, kTowardZero = 1, kDown = 2, kUp = 3, kNearestAway = 4 };

using Half = std::uint16_t;  // binary16 bits

float half_to_float(Half h);  // exact
Half float_to_half(float f, Rounding rounding = Rounding::kNearestEven);  // overflow -> inf or max per mode; NaN kept quiet

// Float -> integer with rounding; NaN -> 0; out of range saturates.
std::int32_t float_to_int32(float f, Rounding rounding);
std::int8_t float_to_int8(float f, Rounding rounding);  // saturates to [-128, 127]
// Integer -> half with rounding (s32 may exceed the half range: inf / max).
Half int32_to_half(std::int32_t value, Rounding rounding);
float int32_to_float(std::int32_t value, Rounding rounding);

// Round a float to an integral float value with the given mode.
float round_to_integral(float f, Rounding rounding);

}  // namespace npuvp::numerics
