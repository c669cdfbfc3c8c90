// Grid limits, shared by every back end (interpreter.h).
#include "target/interp/interpreter.h"

namespace tritonc::interp {

std::string gridProblem(const Grid& g) {
  std::string shown = "(" + std::to_string(g.x) + ", " + std::to_string(g.y) + ", " + std::to_string(g.z) + ")";
  if (g.x < 1 || g.y < 1 || g.z < 1) return "grid dimensions must be >= 1, got " + shown;
  if (g.x > kMaxGridX || g.y > kMaxGridYZ || g.z > kMaxGridYZ)
    return "grid " + shown + " is beyond the GPU's limits (x < 2^31, y and z <= " + std::to_string(kMaxGridYZ) +
           " programs)";
  return "";
}

}  // namespace tritonc::interp
