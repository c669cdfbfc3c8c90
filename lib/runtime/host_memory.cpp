#include "runtime/host_memory.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "support/diagnostic.h"

namespace tritonc::runtime {

std::vector<interp::KernelArg> HostMemory::bind(const std::vector<HostRange>& ranges) {
  std::vector<interp::KernelArg> args(ranges.size());
  std::vector<size_t> order(ranges.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::sort(order.begin(), order.end(), [&](size_t x, size_t y) { return ranges[x].address < ranges[y].address; });
  for (size_t g = 0; g < order.size();) {
    // The group from order[g]: every range overlapping the ones before it.
    const uint64_t lo = ranges[order[g]].address;
    uint64_t hi = lo + ranges[order[g]].bytes;
    size_t end = g + 1;
    while (end < order.size() && ranges[order[end]].bytes > 0 && ranges[order[end]].address < hi) {
      hi = std::max(hi, ranges[order[end]].address + ranges[order[end]].bytes);
      ++end;
    }
    const bool shared = end - g > 1;
    // A shared buffer starts 16-byte aligned below its lowest range (the same
    // 16 bytes, so the same page: readable), so that each range's offset has
    // its address's alignment, which the kernel may be specialized on.
    const uint64_t base = shared ? lo & ~uint64_t(15) : lo;
    Copy c;
    c.buffer = std::make_unique<interp::Buffer>();
    const HostRange& first = ranges[order[g]];
    c.buffer->elem = first.elem;
    c.buffer->name = first.name;
    for (size_t m = g + 1; m < end; ++m) c.buffer->name += (m + 1 == end ? " and " : ", ") + ranges[order[m]].name;
    if (shared) c.buffer->name = "the memory of " + c.buffer->name;
    else if (int64_t size = ir::byteSize(first.elem)) c.buffer->shape = {int64_t(first.bytes) / size};
    c.buffer->data.resize(hi - base);
    if (hi > base) std::memcpy(c.buffer->data.data(), reinterpret_cast<const void*>(base), hi - base);
    c.host = reinterpret_cast<uint8_t*>(base);
    bool keep = shared;
    for (size_t m = g; m < end; ++m) {
      const HostRange& r = ranges[order[m]];
      const uint64_t offset = r.address - base;
      args[order[m]] = interp::KernelArg::ofBuffer(c.buffer.get(), offset);
      c.members.push_back({offset, offset + r.bytes, r.readOnly, r.who});
      keep = keep || r.view;
    }
    if (keep) c.original = c.buffer->data;
    copies_.push_back(std::move(c));
    g = end;
  }
  return args;
}

void HostMemory::copyBack() {
  std::string refused;
  for (const Copy& c : copies_) {
    const uint8_t* now = c.buffer->data.data();
    const size_t n = c.buffer->data.size();
    if (c.original.empty()) {  // one whole argument
      if (n == 0 || std::memcmp(c.host, now, n) == 0) continue;
      if (!c.members[0].readOnly) std::memcpy(c.host, now, n);
      else if (refused.empty()) refused = c.members[0].who;
      continue;
    }
    for (size_t i = 0; i < n; ++i) {
      if (now[i] == c.original[i]) continue;
      const Member* owner = nullptr;  // a writable argument over this byte, else a read-only one
      for (const Member& m : c.members)
        if (m.begin <= i && i < m.end && (!owner || owner->readOnly)) owner = &m;
      if (!owner) continue;  // the alignment's bytes below the lowest argument
      if (!owner->readOnly) c.host[i] = now[i];
      else if (refused.empty()) refused = owner->who;
    }
  }
  if (!refused.empty())
    throw UserError(SourceLoc{}, refused + " is read-only memory (a numpy array that is not writeable, such as a "
                                           "memmap opened with mode 'r'), and the kernel stored to it: pass a "
                                           "writable array (a copy)");
}

}  // namespace tritonc::runtime
