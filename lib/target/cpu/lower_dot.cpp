// dot a, b, acc: r = acc + a @ b with the operands converted to the result's
// element type T and every product and sum rounded to T (no FMA), each r[i][j]
// accumulated in k order: the interpreter's i-k-j loop nest, whose inner loop
// over j vectorizes without reassociating anything. (A register-blocked
// micro-kernel is a later step.) Transposed operands are strided views.
#include "target/cpu/lowering.h"

namespace tritonc::cpu::detail {

void Lowering::lowerDot(const ir::Instruction& inst) {
  const ir::Type& t = inst.type();
  const ir::Scalar k = t.kind;
  Tile a = get(inst.operand(0)), b = get(inst.operand(1)), acc = get(inst.operand(2));
  const int64_t M = a.shape.at(0), K = a.shape.at(1), N = t.shape.at(1);
  Tile out = newTile(t);
  copyInto(out, acc);
  const Stride as0 = a.strides[0], as1 = a.strides[1], bs0 = b.strides[0], bs1 = b.strides[1];
  loop(M, [&](llvm::Value* i) {
    llvm::Value* row = b_.CreateMul(i, i64(N));
    llvm::Value* aRow = scaled(i, as0);
    loop(K, [&](llvm::Value* kk) {
      llvm::Value* x = convert(a.kind, k, loadElement(a, b_.CreateAdd(aRow, scaled(kk, as1))));
      llvm::Value* bRow = scaled(kk, bs0);
      loop(N, [&](llvm::Value* j) {
        llvm::Value* y = convert(b.kind, k, loadElement(b, b_.CreateAdd(bRow, scaled(j, bs1))));
        llvm::Value* o = b_.CreateAdd(row, j);
        storeElement(out, o, binary(ir::Opcode::Add, k, loadElement(out, o), binary(ir::Opcode::Mul, k, x, y)));
      });
    });
  });
  set(&inst, out);
}

}  // namespace tritonc::cpu::detail
