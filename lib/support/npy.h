// NumPy .npy files: the launch inputs and outputs of the CLI and the tests.
//
// Reads format versions 1.0, 2.0 (and 3.0, which only differs in the header's
// text encoding); writes 1.0. Only little-endian, C-order arrays of the dtypes
// the IR has are supported:
//   '|b1' i1 (bool)   '|i1' i8   '<i2' i16   '<i4' i32   '<i8' i64
//   '<f2' f16   '<f4' f32   '<f8' f64   '<u2' bf16 (raw bits; NumPy has no bf16)
// Any malformed or unsupported file is reported with std::runtime_error whose
// message starts with the file's path; reading never trusts sizes in the file.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/type.h"

namespace tritonc {

struct NpyArray {
  std::string descr;            // canonical form, one of those listed above
  std::vector<int64_t> shape;   // empty: a 0-d array (one element)
  std::vector<uint8_t> data;    // numElements() * itemSize() bytes, C order

  int64_t numElements() const;  // product of shape
  int itemSize() const;         // bytes per element of `descr` (0 if unsupported)
};

NpyArray readNpy(const std::string& path);
void writeNpy(const std::string& path, const NpyArray& array);

// Parses from / serializes to memory; `name` is used in error messages.
NpyArray parseNpy(const std::vector<uint8_t>& bytes, const std::string& name);
std::vector<uint8_t> serializeNpy(const NpyArray& array, const std::string& name);

// The element kind stored under `descr` ('<u2' is bf16); nullopt if unsupported.
// One-byte dtypes may also be spelled with '<' ('<b1', '<i1').
std::optional<ir::Scalar> scalarFromNpyDescr(const std::string& descr);
// The canonical descr of `kind`; throws std::invalid_argument for void/ptr.
std::string npyDescrOf(ir::Scalar kind);

}  // namespace tritonc
