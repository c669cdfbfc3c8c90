// The lowering's driver: the program and grid functions, tiles (uniform,
// affine, in the frame), loops, blocks in reverse post-order, phis and the
// edges that set them, and dispatch to the op families (lower_*.cpp).
#include "target/cpu/lowering.h"

#include <algorithm>

namespace tritonc::cpu::detail {

using ir::Opcode;

// ---- tiles --------------------------------------------------------------

Strides rowMajorStrides(const ir::Shape& shape) {
  Strides s(shape.size(), Stride(1));
  for (size_t d = shape.size(); d-- > 1;) s[d - 1] = Stride(s[d].c * shape[d]);
  return s;
}

int64_t Tile::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

bool Tile::isContiguous() const {
  if (!inMemory()) return false;
  const Strides rm = rowMajorStrides(shape);
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] != 1 && strides[d] != rm[d]) return false;
  return true;
}

Lowering::Lowering(const ir::Function& fn, llvm::Module& module, int vectorBits, bool exactMath)
    : fn_(fn), mod_(module), vectorBits_(vectorBits), exactMath_(exactMath), ctx_(module.getContext()),
      b_(module.getContext()) {}

Tile Lowering::get(const ir::Value* v) {
  if (v->valueKind() == ir::ValueKind::Constant) {
    Tile t;
    t.kind = v->type().kind;
    t.pointee = v->type().pointee;
    t.scalar = constant(*static_cast<const ir::Constant*>(v));
    return t;
  }
  auto it = values_.find(v);
  if (it == values_.end()) throw InternalError("the CPU lowering reached a use of a value before its definition");
  if (it->second.predicate) {
    // Computed where a reader needs it in memory; kept for the readers after
    // it only in its own block (elsewhere this point need not dominate them).
    if (auto m = materialized_.find(v); m != materialized_.end()) return m->second;
    Tile out = materialize(it->second);
    const auto* inst = static_cast<const ir::Instruction*>(v);
    if (lowering_ && inst->parent == lowering_) materialized_[v] = out;
    return out;
  }
  if (!it->second.lazy) return it->second;
  // Computed here, at its first reader that needs it in memory; the readers
  // after it (in this block: findDeferrable) take the buffer.
  Tile lazy = it->second;
  Tile out = newTile(v->type());
  forEach(out.shape, {out.strides}, [&](const std::vector<llvm::Value*>& o) {
    storeElement(out, o[0], loadElement(lazy, o[0]));
  });
  values_[v] = out;
  return out;
}

Tile Lowering::getLazy(const ir::Value* v) {
  auto it = values_.find(v);
  return it != values_.end() && it->second.lazy ? it->second : get(v);
}

Tile Lowering::getMask(const ir::Value* v) {
  auto it = values_.find(v);
  return it != values_.end() && it->second.predicate ? it->second : get(v);
}

void Lowering::set(const ir::Value* v, Tile t) { values_[v] = std::move(t); }

Tile Lowering::uniformTile(const ir::Type& t, llvm::Value* scalar) {
  Tile r;
  r.kind = t.kind;
  r.pointee = t.pointee;
  r.shape = t.shape;
  r.scalar = scalar;
  r.strides.assign(t.shape.size(), Stride(0));
  return r;
}

Tile Lowering::newTile(const ir::Type& t) {
  Tile r;
  r.kind = t.kind;
  r.pointee = t.pointee;
  r.shape = t.shape;
  r.strides = rowMajorStrides(t.shape);
  const llvm::DataLayout& dl = mod_.getDataLayout();
  const uint64_t bytes = dl.getTypeAllocSize(storageType(t.kind)) * uint64_t(r.numElements());
  frameBytes_ = (frameBytes_ + 63) / 64 * 64;  // cache-line aligned buffers
  const size_t offset = frameBytes_;
  frameBytes_ += bytes;
  // The address is computed once, in the entry block, which dominates every use.
  llvm::IRBuilder<> eb(entry_->getTerminator());
  r.base = eb.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), frame_, offset);
  return r;
}

llvm::Value* Lowering::elementAddress(const Tile& t, llvm::Value* offset) {
  return b_.CreateGEP(storageType(t.kind == ir::Scalar::Ptr && t.affine ? t.pointee : t.kind), t.base, offset);
}

llvm::Value* Lowering::loadElement(const Tile& t, llvm::Value* offset) {
  if (t.lazy) {
    std::vector<llvm::Value*> v;
    for (const Tile& o : t.lazy->operands) v.push_back(loadElement(o, offset));
    return elementwiseValue(*t.lazy->inst, t.lazy->operands, v);
  }
  if (!t.base) return t.scalar;
  if (t.affine) {
    if (t.kind == ir::Scalar::Ptr) return elementAddress(t, offset);
    // Integers wrap: the i64 offset truncated is the sum in the element's width.
    return b_.CreateAdd(t.base, b_.CreateTrunc(offset, t.base->getType()));
  }
  llvm::Value* v = b_.CreateLoad(storageType(t.kind), elementAddress(t, offset));
  return t.kind == ir::Scalar::I1 ? b_.CreateTrunc(v, b_.getInt1Ty()) : v;
}

void Lowering::storeElement(const Tile& t, llvm::Value* offset, llvm::Value* v) {
  if (!t.inMemory()) throw InternalError("a store into a tile that is not in memory");
  if (t.kind == ir::Scalar::I1) v = b_.CreateZExt(v, b_.getInt8Ty());
  b_.CreateStore(v, elementAddress(t, offset));
}

Tile Lowering::contiguous(const Tile& t) {
  if (t.isContiguous()) return t;
  ir::Type type = t.kind == ir::Scalar::Ptr ? ir::Type::pointer(t.pointee, t.shape)
                                            : ir::Type::scalar(t.kind).withShape(t.shape);
  Tile r = newTile(type);
  copyInto(r, t);
  return r;
}

std::optional<Tile> Lowering::reshaped(const Tile& t, const ir::Shape& shape) {
  Tile r = t;
  r.shape = shape;
  if (!t.hasBase()) {
    r.strides.assign(shape.size(), Stride(0));
    return r;
  }
  // Only size-1 dimensions come or go: the others keep their strides.
  std::vector<size_t> from, to;
  for (size_t d = 0; d < t.shape.size(); ++d)
    if (t.shape[d] != 1) from.push_back(d);
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] != 1) to.push_back(d);
  bool same = from.size() == to.size();
  for (size_t k = 0; same && k < from.size(); ++k) same = t.shape[from[k]] == shape[to[k]];
  if (same) {
    r.strides.assign(shape.size(), Stride(0));
    for (size_t k = 0; k < from.size(); ++k) r.strides[to[k]] = t.strides[from[k]];
    return r;
  }
  // Otherwise the elements must lie in one arithmetic sequence (constant strides).
  int64_t step = 0;
  bool linear = true;
  int64_t run = 1;  // elements of the dimensions inside this one
  for (size_t k = from.size(); k-- > 0;) {
    const Stride& s = t.strides[from[k]];
    if (!s.isConst()) return std::nullopt;
    if (k + 1 == from.size()) step = s.c;
    linear = linear && s.c == step * run;
    run *= t.shape[from[k]];
  }
  if (!linear) return std::nullopt;
  const Strides rm = rowMajorStrides(shape);
  r.strides.clear();
  for (const Stride& s : rm) r.strides.push_back(Stride(s.c * step));
  return r;
}

void Lowering::copyInto(const Tile& dst, const Tile& src) {
  forEach(dst.shape, {dst.strides, src.strides}, [&](const std::vector<llvm::Value*>& o) {
    storeElement(dst, o[0], loadElement(src, o[1]));
  });
}

llvm::AllocaInst* Lowering::variable(llvm::Type* t, const std::string& name) {
  llvm::IRBuilder<> eb(entry_, entry_->begin());
  return eb.CreateAlloca(t, nullptr, name);
}

llvm::Value* Lowering::scaled(llvm::Value* i, const Stride& s) {
  if (s.is(0)) return i64(0);
  if (s.is(1)) return i;
  return b_.CreateMul(i, strideValue(s));
}

Stride Lowering::addStride(const Stride& a, const Stride& b, bool subtract) {
  if (b.is(0)) return a;
  if (a.isConst() && b.isConst()) return Stride(subtract ? a.c - b.c : a.c + b.c);
  if (a.is(0) && !subtract) return b;
  return Stride::dynamic(subtract ? b_.CreateSub(strideValue(a), strideValue(b))
                                  : b_.CreateAdd(strideValue(a), strideValue(b)));
}

Stride Lowering::mulStride(const Stride& a, llvm::Value* factor) {
  if (a.is(0)) return a;
  if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(factor); c && a.isConst())
    return Stride(int64_t(uint64_t(a.c) * c->getZExtValue()));
  if (a.is(1)) return Stride::dynamic(factor);
  return Stride::dynamic(b_.CreateMul(strideValue(a), factor));
}

// ---- loops --------------------------------------------------------------

void Lowering::loop(int64_t n, const std::function<void(llvm::Value* i)>& body) {
  if (n == 1) {
    body(i64(0));
    return;
  }
  llvm::BasicBlock* pre = b_.GetInsertBlock();
  llvm::BasicBlock* header = llvm::BasicBlock::Create(ctx_, "loop", program_);
  llvm::BasicBlock* exit = llvm::BasicBlock::Create(ctx_, "loop.end", program_);
  b_.CreateBr(header);
  b_.SetInsertPoint(header);
  llvm::PHINode* i = b_.CreatePHI(b_.getInt64Ty(), 2, "i");
  i->addIncoming(i64(0), pre);
  body(i);
  llvm::Value* next = b_.CreateAdd(i, i64(1), "i.next", /*HasNUW=*/true, /*HasNSW=*/true);
  i->addIncoming(next, b_.GetInsertBlock());
  b_.CreateCondBr(b_.CreateICmpULT(next, i64(n)), header, exit);
  b_.SetInsertPoint(exit);
}

void Lowering::forEach(const ir::Shape& shape, const std::vector<Strides>& strides,
                       const std::function<void(const std::vector<llvm::Value*>& offsets)>& body, int unitInner) {
  // The loop order: row-major, or with operand `unitInner`'s unit-stride
  // dimension moved innermost.
  std::vector<size_t> order;
  for (size_t d = 0; d < shape.size(); ++d) order.push_back(d);
  if (unitInner >= 0) {
    const Strides& lead = strides.at(size_t(unitInner));
    for (size_t d = 0; d < shape.size(); ++d)
      if (shape[d] > 1 && !lead.empty() && lead[d].is(1)) {
        order.erase(order.begin() + long(d));
        order.push_back(d);
        break;
      }
  }
  // Dimensions (outer first) with every operand's stride; size-1 ones dropped.
  struct Dim {
    int64_t size;
    Strides strides;
  };
  std::vector<Dim> dims;
  for (size_t d : order) {
    if (shape[d] == 1) continue;
    Dim dim{shape[d], {}};
    for (const auto& s : strides) dim.strides.push_back(s.empty() ? Stride(0) : s[d]);
    // Merge into the outer neighbour when every operand walks both as one
    // (known strides only).
    if (!dims.empty()) {
      Dim& outer = dims.back();
      bool merge = true;
      for (size_t k = 0; k < strides.size() && merge; ++k) {
        const Stride &o = outer.strides[k], &i = dim.strides[k];
        merge = o.isConst() && i.isConst() && o.c == i.c * dim.size;
      }
      if (merge) {
        outer.size *= dim.size;
        outer.strides = dim.strides;
        continue;
      }
    }
    dims.push_back(std::move(dim));
  }
  std::vector<llvm::Value*> offsets(strides.size(), i64(0));
  std::function<void(size_t)> level = [&](size_t d) {
    if (d == dims.size()) {
      body(offsets);
      return;
    }
    const std::vector<llvm::Value*> outer = offsets;
    loop(dims[d].size, [&](llvm::Value* i) {
      for (size_t k = 0; k < offsets.size(); ++k) {
        const Stride& s = dims[d].strides[k];
        offsets[k] = s.is(0) ? outer[k] : b_.CreateAdd(outer[k], scaled(i, s));
      }
      level(d + 1);
    });
    offsets = outer;
  };
  level(0);
}

llvm::Value* Lowering::allSet(const Tile& mask) {
  if (mask.predicate) return allSetInClosedForm(mask);
  if (!mask.hasBase()) return mask.scalar;
  llvm::AllocaInst* all = variable(b_.getInt1Ty(), "all");
  b_.CreateStore(b_.getTrue(), all);
  forEach(mask.shape, {mask.strides}, [&](const std::vector<llvm::Value*>& o) {
    b_.CreateStore(b_.CreateAnd(b_.CreateLoad(b_.getInt1Ty(), all), loadElement(mask, o[0])), all);
  });
  return b_.CreateLoad(b_.getInt1Ty(), all);
}

void Lowering::eitherWay(llvm::Value* cond, const std::function<void()>& whenTrue,
                         const std::function<void()>& whenFalse) {
  llvm::BasicBlock* yes = llvm::BasicBlock::Create(ctx_, "yes", program_);
  llvm::BasicBlock* no = llvm::BasicBlock::Create(ctx_, "no", program_);
  llvm::BasicBlock* join = llvm::BasicBlock::Create(ctx_, "join", program_);
  b_.CreateCondBr(cond, yes, no);
  b_.SetInsertPoint(yes);
  whenTrue();
  b_.CreateBr(join);
  b_.SetInsertPoint(no);
  whenFalse();
  b_.CreateBr(join);
  b_.SetInsertPoint(join);
}

// ---- errors -------------------------------------------------------------

int Lowering::addErrorSite(const ir::Instruction& inst, const std::string& what) {
  ErrorSite site;
  site.loc = inst.loc;
  site.what = what;
  errors_.push_back(std::move(site));
  return int(errors_.size());
}

void Lowering::checkStatus() {
  llvm::Value* s = b_.CreateLoad(b_.getInt32Ty(), status_);
  llvm::BasicBlock* cont = llvm::BasicBlock::Create(ctx_, "ok", program_);
  b_.CreateCondBr(b_.CreateICmpNE(s, b_.getInt32(0)), errorExit_, cont);
  b_.SetInsertPoint(cont);
}

// ---- functions and control flow ----------------------------------------

namespace {

// Blocks reachable from the entry, in reverse post-order: every block comes
// after its dominators, so operands are lowered before their uses, and a
// block's predecessors come before it except along back edges.
std::vector<const ir::BasicBlock*> reversePostOrder(const ir::Function& fn) {
  std::vector<const ir::BasicBlock*> post;
  std::set<const ir::BasicBlock*> seen;
  std::vector<std::pair<const ir::BasicBlock*, size_t>> stack;
  stack.push_back({fn.entry(), 0});
  seen.insert(fn.entry());
  while (!stack.empty()) {
    auto& [bb, next] = stack.back();
    std::vector<ir::BasicBlock*> succ = bb->successors();
    if (next < succ.size()) {
      const ir::BasicBlock* s = succ[next++];
      if (seen.insert(s).second) stack.push_back({s, 0});
      continue;
    }
    post.push_back(bb);
    stack.pop_back();
  }
  std::reverse(post.begin(), post.end());
  return post;
}

bool hasPhis(const ir::BasicBlock* bb) {
  return !bb->empty() && bb->instructions().front()->opcode() == Opcode::Phi;
}

}  // namespace

void Lowering::emitPrologue() {
  llvm::Type* i32 = b_.getInt32Ty();
  llvm::Type* ptr = b_.getPtrTy();
  auto* type = llvm::FunctionType::get(i32, {ptr, i32, i32, i32, i32, i32, i32, ptr}, false);
  program_ = llvm::Function::Create(type, llvm::Function::InternalLinkage, "program." + fn_.name(), mod_);
  program_->addFnAttr(llvm::Attribute::NoUnwind);
  for (unsigned a : {0u, 7u}) program_->addParamAttr(a, llvm::Attribute::NoAlias);
  program_->addParamAttr(7, llvm::Attribute::getWithAlignment(ctx_, llvm::Align(64)));
  llvm::Argument* args = program_->getArg(0);
  for (int d = 0; d < 3; ++d) {
    programId_[d] = program_->getArg(1 + unsigned(d));
    numPrograms_[d] = program_->getArg(4 + unsigned(d));
  }
  frame_ = program_->getArg(7);
  entry_ = llvm::BasicBlock::Create(ctx_, "prologue", program_);
  errorExit_ = llvm::BasicBlock::Create(ctx_, "error", program_);
  b_.SetInsertPoint(entry_);
  status_ = b_.CreateAlloca(i32, nullptr, "status");
  b_.CreateStore(b_.getInt32(0), status_);
  // Parameters: slot k holds parameter k in its memory format.
  for (const auto& a : fn_.arguments()) {
    const ir::Type& t = a->type();
    llvm::Value* slot = b_.CreateConstInBoundsGEP1_64(b_.getInt64Ty(), args, a->index());
    llvm::Value* v = b_.CreateLoad(storageType(t.kind), slot, a->name());
    if (t.kind == ir::Scalar::I1) v = b_.CreateTrunc(v, b_.getInt1Ty());
    Tile tile;
    tile.kind = t.kind;
    tile.pointee = t.pointee;
    tile.scalar = v;
    set(a.get(), tile);
  }
  llvm::IRBuilder<> eb(errorExit_);
  eb.CreateRet(eb.CreateLoad(i32, status_));
}

void Lowering::reset() {
  if (program_) program_->eraseFromParent();
  program_ = nullptr;
  values_.clear();
  materialized_.clear();
  blocks_.clear();
  pendingEdges_.clear();
  lowered_.clear();
  combineResults_.clear();
  errors_.clear();
  frameBytes_ = 0;
  assertElementOffset_ = -1;
}

llvm::Function* Lowering::run() {
  if (fn_.blocks().empty()) throw InternalError("kernel '" + fn_.name() + "' has no blocks");
  // A phi guessed uniform or affine that a back edge contradicts goes to
  // memory, and everything is lowered again (at most once per tile phi).
  for (;;) {
    try {
      return lowerOnce();
    } catch (const PhiMismatch& m) {
      if (!phisInMemory_.insert(m.phi).second) throw InternalError("a tile phi in memory still mismatched");
      reset();
    }
  }
}

llvm::Function* Lowering::lowerOnce() {
  emitPrologue();
  const std::vector<const ir::BasicBlock*> order = reversePostOrder(fn_);
  for (const ir::BasicBlock* bb : order)
    blocks_[bb] = llvm::BasicBlock::Create(ctx_, bb->name().empty() ? "bb" : bb->name(), program_);
  b_.CreateBr(blocks_.at(fn_.entry()));  // ends the prologue
  for (const ir::BasicBlock* bb : order) lowerBlock(*bb);
  return emitGridFunction();
}

// Phis of `bb`, decided from the incoming values of the predecessors lowered
// already (all but those of back edges): a scalar phi is an LLVM phi; a tile
// phi is uniform (an LLVM phi of the scalar) when they all are, affine (an
// LLVM phi of the base) when they all are with the same strides, and
// otherwise owns a buffer.
void Lowering::decidePhis(const ir::BasicBlock& bb) {
  llvm::IRBuilder<> pb(blocks_.at(&bb));
  for (const auto& owned : bb.instructions()) {
    const ir::Instruction* inst = owned.get();
    if (inst->opcode() != Opcode::Phi) break;
    const ir::Type& t = inst->type();
    Tile r;
    r.kind = t.kind;
    r.pointee = t.pointee;
    if (!t.isTile()) {
      r.scalar = pb.CreatePHI(valueType(t.kind), unsigned(inst->numOperands()), inst->name());
      set(inst, r);
      continue;
    }
    std::vector<Tile> known;  // (a predicate as it is: it is neither uniform nor affine)
    for (size_t k = 0; k < inst->numOperands(); ++k) {
      if (!lowered_.count(inst->blocks[k])) continue;
      auto it = values_.find(inst->operand(k));
      known.push_back(it != values_.end() && it->second.predicate ? it->second : get(inst->operand(k)));
    }
    bool uniform = !phisInMemory_.count(inst) && !known.empty();
    bool affine = uniform;
    for (const Tile& k : known) {
      uniform = uniform && k.isUniform();
      affine = affine && k.affine && k.strides == known.front().strides;
    }
    if (uniform) {
      r = uniformTile(t, pb.CreatePHI(valueType(t.kind), unsigned(inst->numOperands()), inst->name()));
    } else if (affine) {
      r = known.front();
      r.owner = nullptr;
      r.base = pb.CreatePHI(known.front().base->getType(), unsigned(inst->numOperands()), inst->name());
    } else {
      r = newTile(t);
      r.owner = inst;
    }
    set(inst, r);
  }
}

void Lowering::lowerBlock(const ir::BasicBlock& bb) {
  decidePhis(bb);
  findDeferrable(bb);
  lowered_.insert(&bb);
  for (auto& [e, from] : pendingEdges_[&bb]) fillEdge(e, from, &bb);
  pendingEdges_.erase(&bb);
  b_.SetInsertPoint(blocks_.at(&bb));
  lowering_ = &bb;
  for (const auto& inst : bb.instructions()) {
    if (inst->opcode() == Opcode::Phi) continue;  // decidePhis made them
    lowerInstruction(*inst);
  }
  lowering_ = nullptr;
}

// The block that the branch from `from` to `to` jumps to: `to` itself when
// it has no phis, else a block of this edge that sets them, filled now when
// `to` is lowered already (a back edge), else when it is.
llvm::BasicBlock* Lowering::edge(const ir::BasicBlock* from, const ir::BasicBlock* to) {
  if (!hasPhis(to)) return blocks_.at(to);
  llvm::BasicBlock* e = llvm::BasicBlock::Create(ctx_, "edge", program_);
  if (lowered_.count(to)) fillEdge(e, from, to);
  else pendingEdges_[to].push_back({e, from});
  return e;
}

// Sets the phis of `to` for the edge from `from`: incoming values of LLVM
// phis, and copies into tile phis' buffers as a parallel copy (a source that
// is a phi of `to`, or a view of one, is read before any of them is written).
void Lowering::fillEdge(llvm::BasicBlock* e, const ir::BasicBlock* from, const ir::BasicBlock* to) {
  llvm::IRBuilderBase::InsertPointGuard guard(b_);
  b_.SetInsertPoint(e);
  const ir::BasicBlock* lowering = lowering_;
  lowering_ = nullptr;  // what is computed here holds on this edge only
  std::set<const ir::Instruction*> phisOfTo;
  for (const auto& inst : to->instructions()) {
    if (inst->opcode() != Opcode::Phi) break;
    phisOfTo.insert(inst.get());
  }
  std::vector<std::pair<const ir::Instruction*, Tile>> copies;
  std::vector<std::pair<llvm::PHINode*, llvm::Value*>> incoming;
  for (const auto& owned : to->instructions()) {
    const ir::Instruction* inst = owned.get();
    if (inst->opcode() != Opcode::Phi) break;
    size_t k = 0;
    while (k < inst->blocks.size() && inst->blocks[k] != from) ++k;
    if (k == inst->blocks.size())
      throw InternalError("phi in block '" + to->name() + "' has no value for predecessor '" + from->name() + "'");
    Tile src = get(inst->operand(k));
    const Tile& dst = values_.at(inst);
    if (!inst->type().isTile() || dst.isUniform()) {
      if (!src.isScalar() && !src.isUniform()) throw PhiMismatch{inst};
      incoming.push_back({llvm::cast<llvm::PHINode>(dst.scalar), src.scalar});
      continue;
    }
    if (dst.affine) {
      if (!src.affine || src.strides != dst.strides) throw PhiMismatch{inst};
      incoming.push_back({llvm::cast<llvm::PHINode>(dst.base), src.base});
      continue;
    }
    if (src.owner == inst && src.base == dst.base && src.strides == dst.strides) continue;  // itself
    if (src.owner && phisOfTo.count(src.owner)) {
      Tile tmp = newTile(inst->type());
      copyInto(tmp, src);
      src = tmp;
    }
    copies.push_back({inst, src});
  }
  for (auto& [phi, src] : copies) copyInto(values_.at(phi), src);
  // The copies' loops may have added blocks: the edge ends in the last one.
  for (auto& [phi, v] : incoming) phi->addIncoming(v, b_.GetInsertBlock());
  b_.CreateBr(blocks_.at(to));
  lowering_ = lowering;
}

void Lowering::lowerInstruction(const ir::Instruction& inst) {
  switch (inst.opcode()) {
    case Opcode::Br:
      b_.CreateBr(edge(inst.parent, inst.blocks[0]));
      return;
    case Opcode::CondBr: {
      llvm::Value* c = get(inst.operand(0)).scalar;
      llvm::BasicBlock* t = edge(inst.parent, inst.blocks[0]);
      llvm::BasicBlock* f = edge(inst.parent, inst.blocks[1]);
      b_.CreateCondBr(c, t, f);
      return;
    }
    case Opcode::Ret:
      b_.CreateRet(b_.getInt32(0));
      return;
    case Opcode::ProgramId:
    case Opcode::NumPrograms: {
      if (inst.imm < 0 || inst.imm > 2) throw InternalError("program axis out of range");
      Tile t;
      t.kind = inst.type().kind;
      llvm::Value* v = (inst.opcode() == Opcode::ProgramId ? programId_ : numPrograms_)[inst.imm];
      t.scalar = b_.CreateSExtOrTrunc(v, valueType(t.kind));
      set(&inst, t);
      return;
    }
    case Opcode::Gep: lowerGep(inst); return;
    case Opcode::Load: lowerLoad(inst); return;
    case Opcode::Store: lowerStore(inst); return;
    case Opcode::AtomicRmw:
    case Opcode::AtomicCas: lowerAtomic(inst); return;
    case Opcode::Reduce: lowerReduce(inst); return;
    case Opcode::Scan: lowerScan(inst); return;
    case Opcode::ScanFn: case Opcode::ReduceFn: lowerCombining(inst); return;
    case Opcode::Sort: case Opcode::ArgSort: lowerSort(inst); return;
    case Opcode::Histogram: lowerHistogram(inst); return;
    case Opcode::Dot: lowerDot(inst); return;
    case Opcode::Splat:
    case Opcode::Broadcast:
    case Opcode::Reshape:
    case Opcode::Trans:
    case Opcode::Range:
    case Opcode::MultipleOf:
    case Opcode::MaxContiguous:
    case Opcode::ExtractSlice:
    case Opcode::Gather: lowerTileOp(inst); return;
    // __debug_barrier(): a program's elements are one thread's loops here,
    // in program order, so there is nothing to wait for.
    case Opcode::Barrier: return;
    case Opcode::Print: lowerPrint(inst); return;
    case Opcode::InlineAsm:
      throw UserError(inst.loc, "inline PTX (inline_asm, tl.inline_asm_elementwise) runs only on the GPU: launch the "
                                "kernel with CUDA tensors");
    case Opcode::Assert: lowerAssert(inst); return;
    default: break;
  }
  if (ir::opcodeCategory(inst.opcode()) == ir::OpCategory::Gpu)
    throw UserError(inst.loc, std::string("the CPU back end runs Triton-IR, not the GPU IR's '") +
                                  ir::opcodeName(inst.opcode()) + "'");
  lowerElementwise(inst);
}

// The grid function: programs begin..end-1, x fastest, then y, then z.
llvm::Function* Lowering::emitGridFunction() {
  llvm::Type* i32 = b_.getInt32Ty();
  llvm::Type* i64t = b_.getInt64Ty();
  llvm::Type* ptr = b_.getPtrTy();
  auto* type = llvm::FunctionType::get(i32, {ptr, i64t, i64t, i32, i32, i32, ptr, ptr}, false);
  llvm::Function* grid = llvm::Function::Create(type, llvm::Function::ExternalLinkage, kGridSymbol, mod_);
  grid->addFnAttr(llvm::Attribute::NoUnwind);
  for (unsigned a : {0u, 6u}) grid->addParamAttr(a, llvm::Attribute::NoAlias);
  program_->addDereferenceableParamAttr(7, std::max<uint64_t>(frameBytes_, 1));
  llvm::Argument *args = grid->getArg(0), *begin = grid->getArg(1), *end = grid->getArg(2);
  llvm::Argument *gx = grid->getArg(3), *gy = grid->getArg(4), *gz = grid->getArg(5);
  llvm::Argument *frame = grid->getArg(6), *failed = grid->getArg(7);
  llvm::BasicBlock* entry = llvm::BasicBlock::Create(ctx_, "entry", grid);
  llvm::BasicBlock* body = llvm::BasicBlock::Create(ctx_, "program", grid);
  llvm::BasicBlock* fail = llvm::BasicBlock::Create(ctx_, "failed", grid);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "done", grid);
  llvm::IRBuilder<> b(entry);
  llvm::Value* gx64 = b.CreateZExt(gx, i64t);
  llvm::Value* gxy = b.CreateMul(gx64, b.CreateZExt(gy, i64t));
  b.CreateBr(body);
  b.SetInsertPoint(body);
  llvm::PHINode* id = b.CreatePHI(i64t, 2, "id");
  id->addIncoming(begin, entry);
  llvm::Value* x = b.CreateTrunc(b.CreateURem(id, gx64), i32);
  llvm::Value* y = b.CreateTrunc(b.CreateUDiv(b.CreateURem(id, gxy), gx64), i32);
  llvm::Value* z = b.CreateTrunc(b.CreateUDiv(id, gxy), i32);
  llvm::Value* r = b.CreateCall(program_, {args, x, y, z, gx, gy, gz, frame});
  llvm::BasicBlock* cont = llvm::BasicBlock::Create(ctx_, "next", grid);
  b.CreateCondBr(b.CreateICmpNE(r, b.getInt32(0)), fail, cont);
  b.SetInsertPoint(cont);
  llvm::Value* next = b.CreateAdd(id, b.getInt64(1));
  id->addIncoming(next, cont);
  b.CreateCondBr(b.CreateICmpULT(next, end), body, done);
  b.SetInsertPoint(fail);
  b.CreateStore(id, failed);
  b.CreateRet(r);
  b.SetInsertPoint(done);
  b.CreateRet(b.getInt32(0));
  return grid;
}

}  // namespace tritonc::cpu::detail
