// 8-bit floating-point formats of Hopper's tensor cores (and Triton's
// tl.float8e4nv / tl.float8e5), stored as their bit patterns in uint8_t:
//   e4m3 ("e4m3fn", torch.float8_e4m3fn): 1 sign, 4 exponent (bias 7),
//     3 fraction bits; no infinities, S.1111.111 is NaN, largest 448;
//   e5m2 (torch.float8_e5m2): 1 sign, 5 exponent (bias 15), 2 fraction bits,
//     IEEE-like with infinities and NaNs, largest finite 57344.
// Conversions to 8 bits round to nearest, ties to even, and saturate to the
// largest finite value (infinities included) as PTX's cvt.rn.satfinite
// does; a NaN becomes the format's NaN (0x7f, its sign kept). Conversions
// from 8 bits are exact.
#pragma once
#include <cstdint>

namespace tritonc {

uint8_t doubleToE4m3(double d);
uint8_t doubleToE5m2(double d);
double e4m3ToDouble(uint8_t b);
double e5m2ToDouble(uint8_t b);

}  // namespace tritonc
