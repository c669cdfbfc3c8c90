#include "target/interp/memory.h"

#include <cstdio>

namespace tritonc::interp::detail {

uint64_t AddressSpace::add(Buffer* buffer, const std::string& fallbackName, bool writable) {
  for (size_t k = 0; k < slots_.size(); ++k) {
    if (slots_[k].buffer == buffer) {
      slots_[k].writable = slots_[k].writable || writable;
      return uint64_t(k + 1) << kBufferShift;
    }
  }
  TRITONC_CHECK(buffer->data.size() <= kMaxBufferBytes, "buffer too large for the address space");
  TRITONC_CHECK(slots_.size() + 2 < (size_t(1) << (63 - kBufferShift)), "too many buffers");
  std::string name = buffer->name.empty() ? fallbackName : buffer->name;
  slots_.push_back(Slot{buffer, name, writable});
  return uint64_t(slots_.size()) << kBufferShift;
}

int64_t AddressSpace::nearestBuffer(uint64_t addr, int64_t* offset) const {
  const uint64_t half = uint64_t(1) << (kBufferShift - 1);
  if (addr > UINT64_MAX - half) return -1;
  uint64_t index = ((addr + half) >> kBufferShift) - 1;
  if (index >= slots_.size()) return -1;
  *offset = int64_t(addr - (uint64_t(index + 1) << kBufferShift));  // within +-2^39
  return int64_t(index);
}

std::string AddressSpace::describeAddress(uint64_t addr) const {
  int64_t offset = 0;
  int64_t k = nearestBuffer(addr, &offset);
  if (k < 0) {
    char hex[32];
    std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(addr));
    return hex;
  }
  const std::string& name = slots_[size_t(k)].name;
  if (offset < 0) return "'" + name + "' - " + std::to_string(-offset) + " bytes";
  return "'" + name + "' + " + std::to_string(offset) + " bytes";
}

AddressSpace::Diagnosis AddressSpace::diagnose(uint64_t addr, int size, ir::Scalar kind,
                                               bool forWrite) const {
  Diagnosis d;
  int64_t offset = 0;
  int64_t k = nearestBuffer(addr, &offset);
  if (k < 0) {
    d.fault = Fault::NoBuffer;
    // (Triton's grouped GEMM loads its operands' addresses from a tensor:
    // those are the host's, which the interpreter's address space lacks.)
    d.detail = "address " + describeAddress(addr) +
               " is in no buffer (the interpreter knows the buffers passed to the kernel only; a pointer made "
               "from an integer, such as an address loaded from a tensor, runs on the CPU back end or the GPU)";
    return d;
  }
  const Slot& s = slots_[size_t(k)];
  const int64_t bytes = int64_t(s.buffer->data.size());
  const std::string where = "address = " + describeAddress(addr);
  if (offset < 0 || offset + size > bytes) {
    d.fault = Fault::OutOfBounds;
    d.detail = where + ", but '" + s.name + "' holds " + std::to_string(bytes) + " bytes (" +
               std::to_string(s.buffer->numElements()) + " x " + ir::scalarName(s.buffer->elem) + ")";
  } else if (offset % size != 0) {
    d.fault = Fault::Misaligned;
    d.detail = where + " is not a multiple of " + std::to_string(size) + " bytes (the size of " +
               ir::scalarName(kind) + ")";
  } else if (forWrite && !s.writable) {
    d.fault = Fault::ReadOnly;
    d.detail = where + ", but '" + s.name + "' is only passed to readonly parameters";
  }
  return d;
}

}  // namespace tritonc::interp::detail
