#include "runtime/scalar_args.h"

namespace tritonc::runtime {

bool intFits(ir::Scalar kind, int64_t v) {
  int bits = ir::bitWidth(kind);
  if (bits >= 64) return true;
  int64_t lo = bits == 1 ? 0 : -(int64_t(1) << (bits - 1));
  int64_t hi = (int64_t(1) << bits) - 1;
  return v >= lo && v <= hi;
}

std::string intMisfit(ir::Scalar kind, int64_t v) {
  if (intFits(kind, v)) return "";
  // (The IR's integers are signless: the parameter takes either reading.)
  const int bits = ir::bitWidth(kind);
  return std::to_string(v) + " does not fit in " + ir::scalarName(kind) +
         (bits == 1 ? " (0 or 1)" : " (" + std::to_string(bits) + " bits, signed or unsigned)");
}

}  // namespace tritonc::runtime
