// PTX lowering of histogram %x[, %mask] : i32<B> (tl.histogram): the B bins
// live in the instruction's scratch (4 bytes each). The program's threads
// zero them, a barrier; each element's first owner (replicated threads hold
// copies that must not count twice) adds 1 to its bin with red.shared.add
// where its value is below B (read unsigned: negative values count nowhere)
// and its mask is on; a barrier; each thread reads the bins its result
// registers hold.
#include "target/nvptx/lowering.h"

namespace tritonc::nvptx {

using ir::Scalar;

void FunctionLowering::lowerHistogram(const ir::Instruction& h) {
  if (h.smem < 0)
    throw UserError(h.loc, "'histogram' counts in shared memory: it needs its scratch there ({smem = OFFSET}, as "
                           "gpu-allocate-shared places it)");
  const ir::Value* x = h.operand(0);
  const ir::Value* mask = h.numOperands() == 2 ? h.operand(1) : nullptr;
  const ir::Type& t = h.type();
  const int64_t bins = t.shape.at(0);
  const int64_t threads = 32 * int64_t(opts().numWarps);
  const std::string base = sharedAddress(h.smem);
  // 1. The bins zeroed, thread by thread.
  for (int64_t first = 0; first < bins; first += threads) {
    std::string addr = newReg(RegClass::B32);
    emit("add.s32 " + addr + ", " + tid() + ", " + std::to_string(first) + ";");
    std::string in = "";
    if (bins - first < threads) {
      in = newReg(RegClass::Pred);
      emit("setp.lt.u32 " + in + ", " + addr + ", " + std::to_string(bins) + ";");
    }
    emit("mad.lo.s32 " + addr + ", " + addr + ", 4, " + base + ";");
    emit((in.empty() ? "" : "@" + in + " ") + "st.shared.u32 [" + addr + "], 0;");
  }
  barrier();
  // 2. Each element counted once, by its first owner.
  const std::string& owner = placement(x->type()).owner;
  const bool wide = ir::bitWidth(x->type().kind) == 64;
  for (size_t r : distinctElements(x->type())) {
    const std::string v = elem(x, r);
    std::string counts = newReg(RegClass::Pred), index = newReg(RegClass::B32);
    emit(std::string("setp.lt.u") + (wide ? "64 " : "32 ") + counts + ", " + v + ", " + std::to_string(bins) + ";");
    if (wide) emit("cvt.u32.u64 " + index + ", " + v + ";");
    else emit("mov.b32 " + index + ", " + v + ";");
    if (!owner.empty()) emit("and.pred " + counts + ", " + counts + ", " + owner + ";");
    if (mask) emit("and.pred " + counts + ", " + counts + ", " + elem(mask, r) + ";");
    std::string addr = newReg(RegClass::B32);
    emit("mad.lo.s32 " + addr + ", " + index + ", 4, " + base + ";");
    emit("@" + counts + " red.shared.add.u32 [" + addr + "], 1;");
  }
  barrier();
  // 3. The counts in the result's layout.
  std::vector<std::string> out;
  for (size_t r = 0; r < numRegs(t); ++r) {
    std::string addr = newReg(RegClass::B32), count = newReg(RegClass::B32);
    emit("mad.lo.s32 " + addr + ", " + indexRegs(t, r)[0] + ", 4, " + base + ";");
    emit("ld.shared.u32 " + count + ", [" + addr + "];");
    out.push_back(count);
  }
  define(&h, out);
}

}  // namespace tritonc::nvptx
