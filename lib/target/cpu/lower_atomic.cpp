// Atomics: atomic_rmw and atomic_cas, one lane at a time in row-major order
// (lanes hitting one address see each other, as in the interpreter). Integer
// kinds and f32/f64 add use LLVM's atomicrmw; the rest (f16/bf16, i1) a
// compare-exchange loop around the element semantics of binary(), float
// max/min one around integer max/min of the bits (docs/IR.md: the value's
// sign bit picks signed max or unsigned min, as Triton's and the GPU's).
// CAS compares memory formats bit for bit.
// Masked-off lanes touch nothing and return 0. Everything is seq_cst.
#include <optional>

#include "target/cpu/lowering.h"

namespace tritonc::cpu::detail {

namespace {

llvm::Type* bitsType(llvm::IRBuilder<>& b, ir::Scalar k) { return b.getIntNTy(unsigned(8 * ir::byteSize(k))); }

llvm::Value* toBits(llvm::IRBuilder<>& b, ir::Scalar k, llvm::Value* v) {
  if (k == ir::Scalar::I1) return b.CreateZExt(v, b.getInt8Ty());
  if (k == ir::Scalar::Ptr) return b.CreatePtrToInt(v, b.getInt64Ty());
  return b.CreateBitCast(v, bitsType(b, k));
}

llvm::Value* fromBits(llvm::IRBuilder<>& b, ir::Scalar k, llvm::Type* valueType, llvm::Value* v) {
  if (k == ir::Scalar::I1) return b.CreateICmpNE(v, b.getInt8(0));
  if (k == ir::Scalar::Ptr) return b.CreateIntToPtr(v, valueType);
  return b.CreateBitCast(v, valueType);
}

ir::Opcode binaryOf(ir::AtomicKind k) {
  switch (k) {
    case ir::AtomicKind::Add: return ir::Opcode::Add;
    case ir::AtomicKind::Max: return ir::Opcode::Max;
    case ir::AtomicKind::Min: return ir::Opcode::Min;
    case ir::AtomicKind::And: return ir::Opcode::And;
    case ir::AtomicKind::Or: return ir::Opcode::Or;
    case ir::AtomicKind::UMax: return ir::Opcode::UMax;
    case ir::AtomicKind::UMin: return ir::Opcode::UMin;
    case ir::AtomicKind::Xor: return ir::Opcode::Xor;
    case ir::AtomicKind::Xchg: break;
  }
  throw InternalError("xchg has no binary operation");
}

}  // namespace

llvm::Value* Lowering::atomicLane(const ir::Instruction& inst, llvm::Value* ptr, llvm::Value* a, llvm::Value* b) {
  const ir::Scalar k = inst.operand(0)->type().pointee;
  const llvm::Align align(uint64_t(ir::byteSize(k)));
  const auto order = llvm::AtomicOrdering::SequentiallyConsistent;
  if (inst.opcode() == ir::Opcode::AtomicCas) {
    llvm::Value* pair = b_.CreateAtomicCmpXchg(ptr, toBits(b_, k, a), toBits(b_, k, b), align, order, order);
    return fromBits(b_, k, valueType(k), b_.CreateExtractValue(pair, 0));
  }
  const auto kind = ir::AtomicKind(inst.sub);
  using RMW = llvm::AtomicRMWInst::BinOp;
  const bool plainInt = ir::isIntKind(k) && k != ir::Scalar::I1;
  const bool wideFloat = k == ir::Scalar::F32 || k == ir::Scalar::F64;
  std::optional<RMW> native;
  switch (kind) {
    case ir::AtomicKind::Add: if (plainInt) native = RMW::Add; else if (wideFloat) native = RMW::FAdd; break;
    case ir::AtomicKind::Xchg: if (plainInt || wideFloat) native = RMW::Xchg; break;
    case ir::AtomicKind::Max: if (plainInt) native = RMW::Max; break;
    case ir::AtomicKind::Min: if (plainInt) native = RMW::Min; break;
    case ir::AtomicKind::And: if (plainInt) native = RMW::And; break;
    case ir::AtomicKind::Or: if (plainInt) native = RMW::Or; break;
    case ir::AtomicKind::UMax: if (plainInt) native = RMW::UMax; break;
    case ir::AtomicKind::UMin: if (plainInt) native = RMW::UMin; break;
    case ir::AtomicKind::Xor: if (plainInt) native = RMW::Xor; break;
  }
  if (native) return b_.CreateAtomicRMW(*native, ptr, a, align, order);
  // old = *ptr; do { new = old op a } while (!cas(ptr, old, new))
  llvm::Type* bt = bitsType(b_, k);
  llvm::LoadInst* first = b_.CreateAlignedLoad(bt, ptr, align);
  first->setAtomic(llvm::AtomicOrdering::Monotonic);
  llvm::BasicBlock* pre = b_.GetInsertBlock();
  llvm::BasicBlock* retry = llvm::BasicBlock::Create(ctx_, "atomic.retry", program_);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "atomic.done", program_);
  b_.CreateBr(retry);
  b_.SetInsertPoint(retry);
  llvm::PHINode* old = b_.CreatePHI(bt, 2);
  old->addIncoming(first, pre);
  llvm::Value* oldValue = fromBits(b_, k, valueType(k), old);
  llvm::Value* newBits = nullptr;
  if (ir::isFloatKind(k) && (kind == ir::AtomicKind::Max || kind == ir::AtomicKind::Min)) {
    const bool isMax = kind == ir::AtomicKind::Max;
    llvm::Value* v = toBits(b_, k, a);
    llvm::Value* negative = b_.CreateICmpSLT(v, llvm::ConstantInt::get(bt, 0));
    llvm::Value* asSigned = b_.CreateBinaryIntrinsic(isMax ? llvm::Intrinsic::smax : llvm::Intrinsic::smin, old, v);
    llvm::Value* asUnsigned = b_.CreateBinaryIntrinsic(isMax ? llvm::Intrinsic::umin : llvm::Intrinsic::umax, old, v);
    newBits = b_.CreateSelect(negative, asUnsigned, asSigned);
  } else {
    newBits = toBits(b_, k, kind == ir::AtomicKind::Xchg ? a : binary(binaryOf(kind), k, oldValue, a));
  }
  llvm::Value* pair = b_.CreateAtomicCmpXchg(ptr, old, newBits, align, order, order);
  old->addIncoming(b_.CreateExtractValue(pair, 0), b_.GetInsertBlock());
  b_.CreateCondBr(b_.CreateExtractValue(pair, 1), done, retry);
  b_.SetInsertPoint(done);
  return oldValue;
}

void Lowering::lowerAtomic(const ir::Instruction& inst) {
  const bool cas = inst.opcode() == ir::Opcode::AtomicCas;
  const ir::Type& t = inst.type();
  Tile p = get(inst.operand(0)), a = get(inst.operand(1));
  Tile b = cas ? get(inst.operand(2)) : Tile();
  const size_t maskIndex = cas ? 3 : 2;
  const bool masked = inst.numOperands() > maskIndex;
  Tile mask = masked ? get(inst.operand(maskIndex)) : Tile();
  auto lane = [&](llvm::Value* ptr, llvm::Value* x, llvm::Value* y, llvm::Value* m) -> llvm::Value* {
    if (!m) return atomicLane(inst, ptr, x, y);
    llvm::BasicBlock* from = b_.GetInsertBlock();
    llvm::BasicBlock* then = llvm::BasicBlock::Create(ctx_, "atomic.on", program_);
    llvm::BasicBlock* join = llvm::BasicBlock::Create(ctx_, "atomic.join", program_);
    b_.CreateCondBr(m, then, join);
    b_.SetInsertPoint(then);
    llvm::Value* old = atomicLane(inst, ptr, x, y);
    llvm::BasicBlock* thenEnd = b_.GetInsertBlock();
    b_.CreateBr(join);
    b_.SetInsertPoint(join);
    llvm::PHINode* phi = b_.CreatePHI(old->getType(), 2);
    phi->addIncoming(old, thenEnd);
    phi->addIncoming(zero(t.kind), from);
    return phi;
  };
  if (!t.isTile()) {
    Tile r;
    r.kind = t.kind;
    r.scalar = lane(p.scalar, a.scalar, cas ? b.scalar : nullptr, masked ? mask.scalar : nullptr);
    set(&inst, r);
    return;
  }
  Tile out = newTile(t);
  forEach(t.shape,
          {out.strides, p.strides, a.strides, cas ? b.strides : Strides{},
           masked ? mask.strides : Strides{}},
          [&](const std::vector<llvm::Value*>& o) {
            llvm::Value* y = cas ? loadElement(b, o[3]) : nullptr;
            llvm::Value* m = masked ? loadElement(mask, o[4]) : nullptr;
            storeElement(out, o[0], lane(loadElement(p, o[1]), loadElement(a, o[2]), y, m));
          });
  set(&inst, out);
}

}  // namespace tritonc::cpu::detail
