// Grid limits, shared by every back end (interpreter.h).
#include "target/interp/interpreter.h"

namespace tritonc::interp {

std::string gridProblem(const Grid& g) {
  bool empty = g.x < 1 || g.y < 1 || g.z < 1;
  bool tooLarge = g.x > kMaxGridX || g.y > kMaxGridYZ || g.z > kMaxGridYZ;
  if (!empty && !tooLarge) return "";  // every launch asks: no text unless there is a problem
  std::string shown = "(" + std::to_string(g.x) + ", " + std::to_string(g.y) + ", " + std::to_string(g.z) + ")";
  if (empty) return "grid dimensions must be >= 1, got " + shown;
  return "grid " + shown + " is beyond the GPU's limits (x < 2^31, y and z <= " + std::to_string(kMaxGridYZ) +
         " programs)";
}

}  // namespace tritonc::interp
