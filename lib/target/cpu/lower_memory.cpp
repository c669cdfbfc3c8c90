// Pointer arithmetic and memory: gep, load, store. Lanes run in row-major
// order; a lane whose mask is 0 does not touch memory (a branch around its
// access, which the loop vectorizer may turn into a masked gather/scatter).
// A masked access first reads its mask: when every lane is on (the common
// case of `cols < N` in a row of N), it runs as an unmasked one, since
// masked vector loads cost far more than plain ones. Accesses are not
// checked: that is the interpreter's job.
#include <set>

#include "target/cpu/lowering.h"

namespace tritonc::cpu::detail {

using ir::Opcode;

namespace {
llvm::Align alignOf(ir::Scalar k) { return llvm::Align(uint64_t(ir::byteSize(k))); }
}  // namespace

void Lowering::lowerGep(const ir::Instruction& inst) {
  const ir::Type& t = inst.type();
  Tile p = get(inst.operand(0)), off = get(inst.operand(1));
  llvm::Type* elem = storageType(t.pointee);
  auto lane = [&](llvm::Value* ptr, llvm::Value* o) {
    // Wrapping address arithmetic (no inbounds): the interpreter's too.
    return b_.CreateGEP(elem, ptr, convert(off.kind, ir::Scalar::I64, o));
  };
  if (!p.hasBase() && !off.hasBase()) {
    set(&inst, uniformTile(t, lane(p.scalar, off.scalar)));
    return;
  }
  // A uniform or affine base plus uniform or affine offsets: affine, so
  // accesses through it see consecutive addresses where the offsets are.
  // (The offsets' strides are used as i64: they differ from the interpreter's
  // wrapping 32-bit index arithmetic only where that overflows.)
  if (t.isTile() && !p.inMemory() && !off.inMemory()) {
    Tile r;
    r.kind = ir::Scalar::Ptr;
    r.pointee = t.pointee;
    r.shape = t.shape;
    r.affine = true;
    llvm::Value* offBase = off.affine ? off.base : off.scalar;
    r.base = lane(p.affine ? p.base : p.scalar, offBase);
    for (size_t d = 0; d < t.shape.size(); ++d)
      r.strides.push_back(addStride(p.affine ? p.strides[d] : Stride(0), off.affine ? off.strides[d] : Stride(0)));
    set(&inst, r);
    return;
  }
  Tile out = newTile(t);
  forEach(t.shape, {out.strides, p.strides, off.strides}, [&](const std::vector<llvm::Value*>& o) {
    storeElement(out, o[0], lane(loadElement(p, o[1]), loadElement(off, o[2])));
  });
  set(&inst, out);
}

// Whether a load may stay in memory, read where it is used (through the
// pointers' strides) instead of being copied into the frame first: when
// its users are element-wise operations and reductions, which each read it
// once into a result of their own, later in the same block, and nothing
// between the load and the last of them writes memory. (Another program
// writing that memory meanwhile would be a data race.) A vector add then
// reads its operands from memory in the pass that adds them.
bool Lowering::readInPlace(const ir::Instruction& load) {
  std::set<const ir::Instruction*> users(load.users().begin(), load.users().end());
  for (const ir::Instruction* u : users) {
    const ir::OpCategory cat = ir::opcodeCategory(u->opcode());
    const bool elementwise = cat == ir::OpCategory::Binary || cat == ir::OpCategory::Unary ||
                             u->opcode() == Opcode::Cmp || u->opcode() == Opcode::Cast ||
                             u->opcode() == Opcode::UCast || u->opcode() == Opcode::Bitcast ||
                             u->opcode() == Opcode::Select || u->opcode() == Opcode::Fma ||
                             u->opcode() == Opcode::Reduce;
    if (!elementwise || u->parent != load.parent || u->type().isPtr()) return false;
  }
  bool after = false;
  for (const auto& i : load.parent->instructions()) {
    if (!after) {
      if (users.count(i.get())) return false;  // a use before the load: a loop around the block
      after = i.get() == &load;
      continue;
    }
    if (users.empty()) break;
    users.erase(i.get());
    if (users.empty()) break;
    const Opcode op = i->opcode();
    if (op == Opcode::Store || op == Opcode::AtomicRmw || op == Opcode::AtomicCas || op == Opcode::Barrier) return false;
  }
  return users.empty();
}

void Lowering::lowerLoad(const ir::Instruction& inst) {
  const ir::Type& t = inst.type();
  const ir::Scalar kind = t.kind;
  Tile p = get(inst.operand(0));
  const bool masked = inst.numOperands() >= 2;
  Tile mask, other;
  if (masked) mask = getMask(inst.operand(1));  // a predicate is read lane by lane, where needed
  if (inst.numOperands() >= 3) other = get(inst.operand(2));
  else other = uniformTile(t, zero(kind));
  // A volatile load (a flag another program writes) reads memory each time
  // it runs, element by element: never in place, never merged or hoisted.
  const bool isVolatile = inst.sub & ir::kLoadVolatile;
  auto lane = [&](llvm::Value* ptr, llvm::Value* m, llvm::Value* otherValue) -> llvm::Value* {
    auto access = [&]() -> llvm::Value* {
      llvm::LoadInst* load = b_.CreateAlignedLoad(storageType(kind), ptr, alignOf(kind));
      load->setVolatile(isVolatile);
      llvm::Value* v = load;
      return kind == ir::Scalar::I1 ? b_.CreateICmpNE(v, b_.getInt8(0)) : v;  // a byte: != 0
    };
    if (!m) return access();
    if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(m)) return c->isOne() ? access() : otherValue;
    llvm::BasicBlock* from = b_.GetInsertBlock();
    llvm::BasicBlock* then = llvm::BasicBlock::Create(ctx_, "load.on", program_);
    llvm::BasicBlock* join = llvm::BasicBlock::Create(ctx_, "load.join", program_);
    b_.CreateCondBr(m, then, join);
    b_.SetInsertPoint(then);
    llvm::Value* v = access();
    llvm::BasicBlock* thenEnd = b_.GetInsertBlock();
    b_.CreateBr(join);
    b_.SetInsertPoint(join);
    llvm::PHINode* phi = b_.CreatePHI(v->getType(), 2);
    phi->addIncoming(v, thenEnd);
    phi->addIncoming(otherValue, from);
    return phi;
  };
  if (!masked && t.isTile() && p.affine && !isVolatile && readInPlace(inst)) {
    Tile view;  // the elements where they are
    view.kind = kind;
    view.shape = t.shape;
    view.base = p.base;
    view.strides = p.strides;
    set(&inst, view);
    return;
  }
  const bool maskUniform = !masked || (!mask.hasBase() && !mask.predicate);
  const bool uniform = !p.hasBase() && maskUniform && !other.hasBase();
  if (!t.isTile() || uniform) {
    Tile r = uniformTile(t, lane(p.scalar, masked ? mask.scalar : nullptr, other.scalar));
    if (!t.isTile()) r.strides.clear();
    set(&inst, r);
    return;
  }
  Tile out = newTile(t);
  // Lanes in any order (loads have no effect): along the pointers' unit
  // stride, or in transposed blocks when the tile's runs the other way.
  auto lanes = [&](bool useMask) {
    if (!useMask && p.affine && !isVolatile &&
        blockTransposeCopy(kind, t.shape, out.base, out.strides, p.base, p.strides))
      return;
    std::vector<Strides> strides{out.strides, p.strides, other.strides};
    if (useMask) elementStrides(mask, strides);
    forEach(
        t.shape, strides,
        [&](const std::vector<llvm::Value*>& o) {
          llvm::Value* m = useMask ? readElement(mask, o, 3) : nullptr;
          storeElement(out, o[0], lane(loadElement(p, o[1]), m, loadElement(other, o[2])));
        },
        p.affine ? 1 : -1);
  };
  if (maskUniform) {
    lanes(masked);
    set(&inst, out);
    return;
  }
  llvm::Value* all = allSet(mask);
  // Read in place where every lane is on, as an unmasked load may be (the
  // tile is then the source's elements or the buffer's, with equal strides).
  if (p.affine && kind != ir::Scalar::I1 && p.strides == out.strides && !isVolatile && readInPlace(inst)) {
    eitherWay(all, [] {}, [&] { lanes(true); });
    Tile view = out;
    view.base = b_.CreateSelect(all, p.base, out.base);
    set(&inst, view);
    return;
  }
  eitherWay(all, [&] { lanes(false); }, [&] { lanes(true); });
  set(&inst, out);
}

void Lowering::lowerStore(const ir::Instruction& inst) {
  Tile p = get(inst.operand(0)), v = getLazy(inst.operand(1));  // a deferred value is computed lane by lane
  const ir::Scalar kind = p.pointee;
  const bool masked = inst.numOperands() >= 3;
  Tile mask;
  if (masked) mask = getMask(inst.operand(2));
  const bool maskUniform = !masked || (!mask.hasBase() && !mask.predicate);
  auto lane = [&](llvm::Value* ptr, llvm::Value* value, llvm::Value* m) {
    auto access = [&] {
      if (kind == ir::Scalar::I1) value = b_.CreateZExt(value, b_.getInt8Ty());
      b_.CreateAlignedStore(value, ptr, alignOf(kind));
    };
    if (!m) return access();
    if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(m)) {
      if (c->isOne()) access();
      return;
    }
    llvm::BasicBlock* then = llvm::BasicBlock::Create(ctx_, "store.on", program_);
    llvm::BasicBlock* join = llvm::BasicBlock::Create(ctx_, "store.join", program_);
    b_.CreateCondBr(m, then, join);
    b_.SetInsertPoint(then);
    access();
    b_.CreateBr(join);
    b_.SetInsertPoint(join);
  };
  if (!p.isScalar() && !p.hasBase() && v.isUniform() && maskUniform) {
    lane(p.scalar, v.scalar, masked ? mask.scalar : nullptr);  // every lane stores the same value at one address
    return;
  }
  if (p.isScalar()) {
    lane(p.scalar, v.scalar, masked ? mask.scalar : nullptr);
    return;
  }
  auto lanes = [&](bool useMask, bool alongUnitStride) {
    if (!useMask && alongUnitStride && v.inMemory() &&
        blockTransposeCopy(kind, p.shape, p.base, p.strides, v.base, v.strides))
      return;
    std::vector<Strides> strides{p.strides, v.strides};
    if (useMask) elementStrides(mask, strides);
    forEach(
        p.shape, strides,
        [&](const std::vector<llvm::Value*>& o) {
          lane(loadElement(p, o[0]), loadElement(v, o[1]), useMask ? readElement(mask, o, 2) : nullptr);
        },
        alongUnitStride ? 0 : -1);
  };
  // Lanes in row-major order, which decides what two lanes storing to one
  // address leave there; along the pointers' unit stride (a transposed
  // store) when no two lanes can share an address.
  auto inOrder = [&](bool useMask) {
    llvm::Value* distinct = p.affine ? lanesApart(p) : nullptr;
    if (!distinct) return lanes(useMask, false);
    if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(distinct)) return lanes(useMask, c->isOne());
    eitherWay(distinct, [&] { lanes(useMask, true); }, [&] { lanes(useMask, false); });
  };
  if (!maskUniform) eitherWay(allSet(mask), [&] { inOrder(false); }, [&] { inOrder(true); });
  else inOrder(masked);
}

// For a 2-D affine pointer tile whose unit stride is not along its last
// dimension (a transposed store), whether no two lanes share an address:
// the other stride's magnitude at least the unit dimension's extent (an i1,
// constant where the stride is). Null for other tiles.
llvm::Value* Lowering::lanesApart(const Tile& p) {
  std::vector<size_t> dims;
  for (size_t d = 0; d < p.shape.size(); ++d)
    if (p.shape[d] > 1) dims.push_back(d);
  if (dims.size() != 2 || !p.strides[dims[0]].is(1)) return nullptr;
  const Stride& other = p.strides[dims[1]];
  const int64_t extent = p.shape[dims[0]];
  if (other.isConst()) return b_.getInt1(other.c >= extent || other.c <= -extent);
  llvm::Value* s = other.v;
  return b_.CreateOr(b_.CreateICmpSGE(s, i64(extent)), b_.CreateICmpSLE(s, i64(-extent)));
}

}  // namespace tritonc::cpu::detail
