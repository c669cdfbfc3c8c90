// The interpreter's print and assert: lines to stdout in the format of
// ir/debug_output.h (flushed, so that they come before anything the caller
// prints next), and a failed assertion as a UserError at the instruction.
#include <cstdio>

#include "ir/debug_output.h"
#include "target/interp/executor.h"

namespace tritonc::interp::detail {

void Executor::execPrint(const Step& s) {
  const ir::Instruction& inst = *s.inst;
  const int n = int(inst.numOperands());
  std::string text;
  if (n == 0) text = ir::printLine(inst.text, false, -1, 0, ir::Type::voidTy(), programId_, {}, {});
  for (int k = 0; k < n; ++k) {
    const ir::Type& t = inType(s, size_t(k));
    const Tile& values = in(s, size_t(k));
    const bool isFloat = t.isFloat();
    for (size_t e = 0; e < values.size(); ++e) {
      ir::PrintedElement v;
      if (isFloat) v.f = values[e].f;
      else v.i = values[e].i;
      text += ir::printLine(inst.text, inst.sub == ir::kPrintHex, k, n, t, programId_, ir::elementIndex(t.shape, int64_t(e)), v);
    }
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

void Executor::execAssert(const Step& s) {
  const Tile& cond = in(s, 0);
  for (size_t e = 0; e < cond.size(); ++e) {
    if (cond[e].i) continue;
    const ir::Shape& shape = inType(s, 0).shape;
    fail(s.inst, ir::assertionFailure(s.inst->text, fn_.name(), programId_, ir::elementIndex(shape, int64_t(e))));
  }
}

}  // namespace tritonc::interp::detail
