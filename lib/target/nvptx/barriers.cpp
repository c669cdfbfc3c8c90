// Removal of barriers that order nothing. The lowering brackets each use of
// shared memory with barriers (before: the previous readers are done, WAR;
// after: the writes are visible, RAW). Two such brackets in a row leave a
// barrier with no shared-memory access since the one before it; the RAW/WAR
// equations give it nothing to order, since everything before the earlier
// barrier is ordered by that one already. Within a block the analysis is
// exact for "any access may alias any other"; at a label, where other paths
// join, an access is assumed.
#include <sstream>

#include "target/nvptx/lowering.h"

namespace tritonc::nvptx {

namespace {

bool touchesShared(const std::string& line) {
  return line.find(".shared") != std::string::npos || line.find("ldmatrix") != std::string::npos ||
         line.find("cp.async") != std::string::npos || line.find("wgmma") != std::string::npos;
}

}  // namespace

std::string removeRedundantBarriers(const std::string& body, int* removed) {
  std::istringstream in(body);
  std::string out, line;
  bool accessSinceBarrier = true;  // conservatively, at entry and at every label
  int count = 0;
  while (std::getline(in, line)) {
    bool isLabel = !line.empty() && line[0] != ' ' && line.back() == ':';
    if (isLabel) {
      accessSinceBarrier = true;
    } else if (line == "  bar.sync 0;") {
      if (!accessSinceBarrier) {
        ++count;
        continue;
      }
      accessSinceBarrier = false;
    } else if (touchesShared(line)) {
      accessSinceBarrier = true;
    }
    out += line;
    out += '\n';
  }
  if (removed) *removed = count;
  return out;
}

}  // namespace tritonc::nvptx
