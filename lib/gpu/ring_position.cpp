#include "gpu/ring_position.h"

namespace tritonc::gpu {

std::pair<ir::Value*, ir::Value*> ringPositionAfter(ir::Builder& b, ir::Value* slot, ir::Value* phase, int64_t k,
                                                    int64_t stages) {
  if (k == 0) return {slot, phase};
  ir::Value* step = b.binary(ir::Opcode::Add, slot, b.i32(k));
  ir::Value* wraps = b.cmp(ir::CmpPred::Ge, step, b.i32(stages));
  return {b.select(wraps, b.binary(ir::Opcode::Sub, step, b.i32(stages)), step),
          b.select(wraps, b.binary(ir::Opcode::Xor, phase, b.i32(1)), phase)};
}

}  // namespace tritonc::gpu
