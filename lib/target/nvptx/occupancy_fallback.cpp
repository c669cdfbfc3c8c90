#include "target/nvptx/occupancy_fallback.h"

#include <algorithm>
#include <cstdlib>

namespace tritonc::nvptx {

namespace {

const char kDirective[] = ".minnctapersm ";

// Where `kernel`'s `.minnctapersm` starts in `ptx` when its entry names
// `marker` after it, else npos; `at` is where the marker starts.
size_t directiveMarked(const std::string& ptx, const std::string& kernel, const std::string& marker, size_t& at) {
  const size_t entry = ptx.find(".entry " + kernel + "(");
  if (entry == std::string::npos) return std::string::npos;
  const size_t next = ptx.find(".entry ", entry + 1);
  at = ptx.find(marker, entry);
  const size_t asked = ptx.find(kDirective, entry);
  if (at == std::string::npos || asked == std::string::npos || (next != std::string::npos && at > next) || asked > at)
    return std::string::npos;
  return asked;
}

// `ptx` with kernel's `.minnctapersm` set to the count after `marker` in its
// entry, or "".
std::string withOccupancyNamedBy(const std::string& ptx, const std::string& kernel, const std::string& marker) {
  size_t at = 0;
  const size_t asked = directiveMarked(ptx, kernel, marker, at);
  if (asked == std::string::npos) return "";
  const size_t value = at + marker.size(), end = ptx.find('\n', value);
  const size_t oldValue = asked + sizeof kDirective - 1, oldEnd = ptx.find('\n', oldValue);
  std::string out = ptx;
  out.replace(oldValue, oldEnd - oldValue, ptx.substr(value, end - value));
  return out;
}

}  // namespace

std::string withFallbackOccupancy(const std::string& ptx, const std::string& kernel) {
  return withOccupancyNamedBy(ptx, kernel, "// tritonc: occupancy_fallback ");
}

std::string withHalfwayOccupancy(const std::string& ptx, const std::string& kernel) {
  return withOccupancyNamedBy(ptx, kernel, "// tritonc: occupancy_halfway ");
}

std::string withoutOccupancyDirective(const std::string& ptx, const std::string& kernel) {
  size_t at = 0;
  const size_t asked = directiveMarked(ptx, kernel, "// tritonc: occupancy_natural", at);
  if (asked == std::string::npos) return "";
  std::string out = ptx;
  out.erase(asked, ptx.find('\n', asked) + 1 - asked);
  return out;
}

int programsByRegisters(int registers, int threads) {
  if (registers <= 0 || threads <= 0) return 0;
  const int warps = (threads + 31) / 32, perWarp = (registers * 32 + 255) / 256 * 256;
  return std::min({65536 / (perWarp * warps), 32, 2048 / threads});
}

int threadsOf(const std::string& ptx, const std::string& kernel) {
  const size_t entry = ptx.find(".entry " + kernel + "(");
  const size_t at = entry == std::string::npos ? entry : ptx.find(".maxntid ", entry);
  return at == std::string::npos ? 0 : std::atoi(ptx.c_str() + at + 9);
}

}  // namespace tritonc::nvptx
