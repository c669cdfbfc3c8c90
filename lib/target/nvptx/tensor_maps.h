// The tensor maps (CUtensorMap) of a kernel's TMA copies: the PTX names each
// in a line `// tritonc: tensor_map K dtype=f16 base=A ld=L rows=R cols=C
// box=I,O swizzle=B` (lower_tma.cpp), where A and L are parameter indices
// and R, C a parameter index or `#constant`; the launch encodes each from the
// arguments into an extra 128-byte parameter after the user's.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace tritonc::nvptx {

struct TensorMapSpec {
  std::string dtype;           // f16, bf16, f32, f8e4m3, f8e5m2, i8
  int base = -1, ld = -1;      // parameter indices (pointer; i32 elements between rows)
  int rowsArg = -1, colsArg = -1;  // parameter indices, or -1 for the constants below
  int64_t rows = 0, cols = 0;
  unsigned boxInner = 0, boxOuter = 0;  // elements along the rows, rows
  int swizzle = 0;             // bytes: 32, 64, 128
};

// The specs of kernel `name` in `ptx`, in parameter order; throws on a malformed line.
std::vector<TensorMapSpec> parseTensorMaps(const std::string& ptx, const std::string& name);

using TensorMapBytes = std::array<uint64_t, 16>;
// Encodes `spec` for one launch; `slots` holds the parameters as the launch
// passes them (8 bytes each). Extents below 1 are encoded as 1: the kernel
// reads nothing of an empty tensor (lower_tma.cpp).
TensorMapBytes encodeTensorMap(const TensorMapSpec& spec, const uint64_t* slots, const std::string& kernel);

}  // namespace tritonc::nvptx
