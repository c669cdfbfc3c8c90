#include "runtime/host_memory.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "support/diagnostic.h"

namespace tritonc::runtime {

std::vector<interp::KernelArg> HostMemory::bind(const std::vector<HostRange>& ranges) {
  std::vector<interp::KernelArg> args(ranges.size());
  // Empty ranges overlap nothing (and must not split a group that spans their address).
  std::vector<size_t> order;
  for (size_t k = 0; k < ranges.size(); ++k) {
    if (ranges[k].bytes > 0) {
      order.push_back(k);
      continue;
    }
    Copy c;
    c.buffer = std::make_unique<interp::Buffer>();
    c.buffer->elem = ranges[k].elem;
    c.buffer->name = ranges[k].name;
    c.buffer->shape = {0};
    c.host = reinterpret_cast<uint8_t*>(ranges[k].address);
    c.members.push_back({0, 0, ranges[k].readOnly, ranges[k].who});
    args[k] = interp::KernelArg::ofBuffer(c.buffer.get());
    copies_.push_back(std::move(c));
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t x, size_t y) { return ranges[x].address < ranges[y].address; });
  for (size_t g = 0; g < order.size();) {
    // The group from order[g]: every range overlapping the ones before it.
    // Its buffer starts at the lowest (like a buffer of one range, freshly
    // allocated: aligned), the others at their distance from it.
    const uint64_t lo = ranges[order[g]].address;
    uint64_t hi = lo + ranges[order[g]].bytes;
    size_t end = g + 1;
    while (end < order.size() && ranges[order[end]].address < hi) {
      hi = std::max(hi, ranges[order[end]].address + ranges[order[end]].bytes);
      ++end;
    }
    Copy c;
    c.buffer = std::make_unique<interp::Buffer>();
    const HostRange& first = ranges[order[g]];
    c.buffer->elem = first.elem;
    c.buffer->name = first.name;
    for (size_t m = g + 1; m < end; ++m) c.buffer->name += (m + 1 == end ? " and " : ", ") + ranges[order[m]].name;
    if (end - g > 1) c.buffer->name = "the memory of " + c.buffer->name;
    else if (int64_t size = ir::byteSize(first.elem)) c.buffer->shape = {int64_t(first.bytes) / size};
    c.buffer->data.assign(reinterpret_cast<const uint8_t*>(lo), reinterpret_cast<const uint8_t*>(hi));
    c.host = reinterpret_cast<uint8_t*>(lo);
    // Ranges that each cover the whole buffer (one array passed twice) go
    // back whole; others keep the contents at the launch to compare with.
    bool partial = false;
    for (size_t m = g; m < end; ++m) {
      const HostRange& r = ranges[order[m]];
      const uint64_t offset = r.address - lo;
      args[order[m]] = interp::KernelArg::ofBuffer(c.buffer.get(), offset);
      args[order[m]].bytes = r.bytes;
      c.members.push_back({offset, offset + r.bytes, r.readOnly, r.who});
      partial = partial || r.view || offset != 0 || r.bytes != hi - lo;
    }
    if (partial) c.original = c.buffer->data;
    copies_.push_back(std::move(c));
    g = end;
  }
  return args;
}

void HostMemory::copyBack() {
  std::string refused;
  // A changed byte goes back where a writable argument covers it; one that
  // a read-only argument covers is an error (after the others got theirs),
  // whether or not a writable one covers it too.
  auto refuse = [&](const Member& m) {
    if (refused.empty()) refused = m.who;
  };
  for (const Copy& c : copies_) {
    const uint8_t* now = c.buffer->data.data();
    const size_t n = c.buffer->data.size();
    if (n == 0) continue;
    if (c.original.empty()) {  // whole arguments, all over the whole buffer
      if (std::memcmp(c.host, now, n) == 0) continue;
      bool writable = false;
      for (const Member& m : c.members) {
        writable = writable || !m.readOnly;
        if (m.readOnly) refuse(m);
      }
      if (writable) std::memcpy(c.host, now, n);
      continue;
    }
    for (size_t i = 0; i < n; ++i) {
      if (now[i] == c.original[i]) continue;
      bool writable = false;
      for (const Member& m : c.members) {
        if (i < m.begin || i >= m.end) continue;
        writable = writable || !m.readOnly;
        if (m.readOnly) refuse(m);
      }
      if (writable) c.host[i] = now[i];
    }
  }
  if (!refused.empty())
    throw UserError(SourceLoc{}, refused + " is read-only memory (a numpy array that is not writeable, such as a "
                                           "memmap opened with mode 'r'), and the kernel stored to it: pass a "
                                           "writable array (a copy)");
}

}  // namespace tritonc::runtime
