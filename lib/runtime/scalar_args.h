// Whether an integer given for a kernel's scalar parameter fits it: every
// launch path (the CLI, the C API, Python) refuses one that does not rather
// than cutting it to the parameter's width.
#pragma once
#include <cstdint>
#include <string>

#include "ir/type.h"

namespace tritonc::runtime {

// Signed values and unsigned bit patterns of the width both fit (an i32
// takes -2^31 .. 2^32 - 1); 64-bit parameters take any int64.
bool intFits(ir::Scalar kind, int64_t v);

// "99999999999 does not fit in i32 (32 bits, signed or unsigned)", or ""
// when it fits.
std::string intMisfit(ir::Scalar kind, int64_t v);

}  // namespace tritonc::runtime
