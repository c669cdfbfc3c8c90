// The interpreter's address space: buffer k lives at the fake base address
// (k + 1) << 40, so that any address tells which buffer it points into and
// at what byte offset. Address 0 (null) and addresses made up from integers
// fall in no buffer. Every access is checked: inside one buffer, in bounds,
// aligned to the access size, and not a store into a read-only buffer.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "target/interp/interpreter.h"

namespace tritonc::interp::detail {

class AddressSpace {
 public:
  static constexpr int kBufferShift = 40;
  static constexpr uint64_t kOffsetMask = (uint64_t(1) << kBufferShift) - 1;
  // Offsets up to 2^39 are attributed to a buffer in reports (see nearestBuffer).
  static constexpr size_t kMaxBufferBytes = (size_t(1) << (kBufferShift - 1)) - 1;

  // Registers `buffer` (once; passing it again returns the same base) and
  // returns the address of its first byte. `fallbackName` names it in
  // reports when buffer->name is empty. A buffer stays writable if any
  // registration says so.
  uint64_t add(Buffer* buffer, const std::string& fallbackName, bool writable);

  // The host bytes [addr, addr + size) if reading (or writing, when
  // `forWrite`) them is valid; nullptr otherwise (then ask `diagnose`).
  uint8_t* resolve(uint64_t addr, int size, bool forWrite) const {
    uint64_t index = (addr >> kBufferShift) - 1;  // wraps for addresses below 1 << 40
    if (index >= slots_.size()) return nullptr;
    const Slot& s = slots_[index];
    uint64_t offset = addr & kOffsetMask;
    if ((offset & uint64_t(size - 1)) != 0 || offset + uint64_t(size) > s.buffer->data.size()) return nullptr;
    if (forWrite && !s.writable) return nullptr;
    return s.buffer->data.data() + offset;
  }

  enum class Fault { NoBuffer, OutOfBounds, Misaligned, ReadOnly, None };
  struct Diagnosis {
    Fault fault = Fault::None;
    std::string detail;  // e.g. "address = 'a' + 4128 bytes, but 'a' holds 4096 bytes (1024 x f32)"
  };
  // Why an access of `size` bytes of kind `kind` at `addr` is not valid.
  Diagnosis diagnose(uint64_t addr, int size, ir::Scalar kind, bool forWrite) const;

  // "'a' + 16 bytes", or "0x..." for an address in no buffer.
  std::string describeAddress(uint64_t addr) const;

 private:
  struct Slot {
    Buffer* buffer;
    std::string name;
    bool writable;
  };
  // The buffer an address is attributed to in reports: the nearest base, so
  // that a small negative offset is shown as "'a' - 4 bytes"; -1 for none.
  int64_t nearestBuffer(uint64_t addr, int64_t* offset) const;

  std::vector<Slot> slots_;
};

}  // namespace tritonc::interp::detail
