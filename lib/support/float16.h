// 16-bit floating-point formats, stored as their bit patterns in uint16_t:
//   half (IEEE 754 binary16): 1 sign, 5 exponent, 10 fraction bits;
//   bfloat16:                 1 sign, 8 exponent,  7 fraction bits.
// Conversions to 16 bits round to nearest, ties to even; subnormals, signed
// zeros and infinities are exact; a NaN stays a NaN (quiet, sign and top
// payload bits kept). Conversions from 16 bits are exact.
#pragma once
#include <cstdint>

namespace tritonc {

uint16_t floatToHalf(float f);
uint16_t doubleToHalf(double d);  // one rounding, not double -> float -> half
float halfToFloat(uint16_t h);

uint16_t floatToBf16(float f);
uint16_t doubleToBf16(double d);
float bf16ToFloat(uint16_t b);

}  // namespace tritonc
