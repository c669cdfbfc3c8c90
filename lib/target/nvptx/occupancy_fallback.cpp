#include "target/nvptx/occupancy_fallback.h"

namespace tritonc::nvptx {

namespace {

// `ptx` with kernel's `.minnctapersm` set to the count after `marker` in its
// entry, or "".
std::string withOccupancyNamedBy(const std::string& ptx, const std::string& kernel, const std::string& marker) {
  const size_t entry = ptx.find(".entry " + kernel + "(");
  if (entry == std::string::npos) return "";
  const size_t next = ptx.find(".entry ", entry + 1);
  const size_t at = ptx.find(marker, entry);
  const std::string directive = ".minnctapersm ";
  const size_t asked = ptx.find(directive, entry);
  if (at == std::string::npos || asked == std::string::npos || (next != std::string::npos && at > next) || asked > at)
    return "";
  const size_t value = at + marker.size(), end = ptx.find('\n', value);
  const size_t oldValue = asked + directive.size(), oldEnd = ptx.find('\n', oldValue);
  std::string out = ptx;
  out.replace(oldValue, oldEnd - oldValue, ptx.substr(value, end - value));
  return out;
}

}  // namespace

std::string withFallbackOccupancy(const std::string& ptx, const std::string& kernel) {
  return withOccupancyNamedBy(ptx, kernel, "// tritonc: occupancy_fallback ");
}

std::string withMoreOccupancy(const std::string& ptx, const std::string& kernel) {
  return withOccupancyNamedBy(ptx, kernel, "// tritonc: occupancy_more ");
}

std::string withHalfwayOccupancy(const std::string& ptx, const std::string& kernel) {
  return withOccupancyNamedBy(ptx, kernel, "// tritonc: occupancy_halfway ");
}

}  // namespace tritonc::nvptx
