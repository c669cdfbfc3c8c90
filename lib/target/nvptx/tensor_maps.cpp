#include "target/nvptx/tensor_maps.h"

#include <cstring>
#include <sstream>

#include "support/diagnostic.h"
#include "target/nvptx/cuda_driver.h"

namespace tritonc::nvptx {

namespace {

// "12" -> parameter 12; "#34" -> constant 34.
void extent(const std::string& v, int* arg, int64_t* c) {
  if (!v.empty() && v[0] == '#') {
    *arg = -1;
    *c = std::stoll(v.substr(1));
  } else {
    *arg = std::stoi(v);
  }
}

}  // namespace

std::vector<TensorMapSpec> parseTensorMaps(const std::string& ptx, const std::string& name) {
  std::vector<TensorMapSpec> out;
  size_t entry = ptx.find(".entry " + name + "(");
  if (entry == std::string::npos) return out;
  size_t next = ptx.find(".entry ", entry + 1);
  const std::string mark = "// tritonc: tensor_map ";
  for (size_t at = ptx.find(mark, entry); at != std::string::npos && (next == std::string::npos || at < next);
       at = ptx.find(mark, at + 1)) {
    std::istringstream line(ptx.substr(at + mark.size(), ptx.find('\n', at) - at - mark.size()));
    TensorMapSpec s;
    size_t index = 0;
    line >> index;
    std::string field;
    try {
      while (line >> field) {
        size_t eq = field.find('=');
        std::string key = field.substr(0, eq), v = eq == std::string::npos ? "" : field.substr(eq + 1);
        if (key == "dtype") s.dtype = v;
        else if (key == "base") s.base = std::stoi(v);
        else if (key == "ld") s.ld = std::stoi(v);
        else if (key == "rows") extent(v, &s.rowsArg, &s.rows);
        else if (key == "cols") extent(v, &s.colsArg, &s.cols);
        else if (key == "box") s.boxInner = unsigned(std::stoul(v)), s.boxOuter = unsigned(std::stoul(v.substr(v.find(',') + 1)));
        else if (key == "swizzle") s.swizzle = std::stoi(v);
      }
    } catch (const std::exception&) {
      throw UserError(SourceLoc{}, "kernel '" + name + "': malformed tensor_map line in its PTX");
    }
    if (index != out.size() || s.base < 0 || s.ld < 0 || s.boxInner == 0 || s.boxOuter == 0 || s.dtype.empty())
      throw UserError(SourceLoc{}, "kernel '" + name + "': malformed tensor_map line in its PTX");
    out.push_back(s);
  }
  return out;
}

TensorMapBytes encodeTensorMap(const TensorMapSpec& s, const uint64_t* slots, const std::string& kernel) {
  CudaDriver* d = CudaDriver::get();
  if (!d || !d->cuTensorMapEncodeTiled)
    throw UserError(SourceLoc{}, "kernel '" + kernel + "' uses TMA copies, which need CUDA 12 or later (cuTensorMapEncodeTiled)");
  auto i32 = [&](int arg) {
    int32_t v = 0;
    std::memcpy(&v, &slots[arg], 4);
    return int64_t(v);
  };
  // CUtensorMapDataType: UINT8 0 (fp8 and int8: the copies move bytes), FLOAT16 6, FLOAT32 7, BFLOAT16 9.
  const bool bytes = s.dtype == "f8e4m3" || s.dtype == "f8e5m2" || s.dtype == "i8";
  int dtype = bytes ? 0 : s.dtype == "f16" ? 6 : s.dtype == "f32" ? 7 : s.dtype == "bf16" ? 9 : -1;
  int64_t esize = bytes ? 1 : s.dtype == "f32" ? 4 : 2;
  if (dtype < 0) throw InternalError("tensor map of " + s.dtype);
  uint64_t base = slots[s.base];
  int64_t ld = i32(s.ld);
  int64_t rows = s.rowsArg >= 0 ? i32(s.rowsArg) : s.rows, cols = s.colsArg >= 0 ? i32(s.colsArg) : s.cols;
  if (ld <= 0 || (ld * esize) % 16 != 0)
    throw UserError(SourceLoc{}, "kernel '" + kernel + "': its TMA copies need rows a positive multiple of 16 bytes apart, "
                                 "and the leading stride is " + std::to_string(ld) + " elements");
  if (base % 16) throw UserError(SourceLoc{}, "kernel '" + kernel + "': its TMA copies need 16-byte aligned tensors");
  uint64_t dims[2] = {uint64_t(std::max<int64_t>(cols, 1)), uint64_t(std::max<int64_t>(rows, 1))};
  uint64_t strides[1] = {uint64_t(ld * esize)};
  unsigned box[2] = {s.boxInner, s.boxOuter}, elementStrides[2] = {1, 1};
  int swizzle = s.swizzle == 128 ? 3 : s.swizzle == 64 ? 2 : s.swizzle == 32 ? 1 : 0;
  TensorMapBytes out{};
  // Interleave none, L2 promotion of 256 bytes, out-of-bounds elements zero.
  d->check(d->cuTensorMapEncodeTiled(out.data(), dtype, 2, reinterpret_cast<void*>(base), dims, strides, box,
                                     elementStrides, 0, swizzle, 3, 0),
           "encoding a tensor map", kernel);
  return out;
}

}  // namespace tritonc::nvptx
