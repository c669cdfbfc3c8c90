#include "ir/builder.h"

#include <limits>

namespace tritonc::ir {

Instruction* Builder::create(Opcode op, Type t, std::vector<Value*> ops) {
  TRITONC_CHECK(block_, "builder has no insertion point");
  auto inst = std::make_unique<Instruction>(op, std::move(t), std::move(ops), loc_);
  if (pos_ == SIZE_MAX) return block_->append(std::move(inst));
  return block_->insert(pos_++, std::move(inst));
}

Value* Builder::binary(Opcode op, Value* a, Value* b) { return create(op, a->type(), {a, b}); }
Value* Builder::unary(Opcode op, Value* a) { return create(op, a->type(), {a}); }

Value* Builder::cmp(CmpPred p, Value* a, Value* b) {
  Instruction* i = create(Opcode::Cmp, Type::scalar(Scalar::I1).withShape(a->type().shape), {a, b});
  i->sub = uint8_t(p);
  return i;
}

Value* Builder::cast(Value* v, const Type& to) {
  if (v->type() == to) return v;
  return create(Opcode::Cast, to, {v});
}

Value* Builder::unsignedCast(Value* v, const Type& to) {
  if (v->type() == to) return v;
  return create(Opcode::UCast, to, {v});
}

Value* Builder::bitcast(Value* v, const Type& to) {
  if (v->type() == to) return v;
  return create(Opcode::Bitcast, to, {v});
}

Value* Builder::select(Value* c, Value* a, Value* b) { return create(Opcode::Select, a->type(), {c, a, b}); }
Value* Builder::fma(Value* a, Value* b, Value* c) { return create(Opcode::Fma, a->type(), {a, b, c}); }
Value* Builder::splat(Value* v, const Shape& s) { return create(Opcode::Splat, v->type().withShape(s), {v}); }
Value* Builder::reshape(Value* v, const Shape& s) { return create(Opcode::Reshape, v->type().withShape(s), {v}); }
Value* Builder::broadcast(Value* v, const Shape& s) { return create(Opcode::Broadcast, v->type().withShape(s), {v}); }

Value* Builder::trans(Value* v) {
  Shape s = v->type().shape;
  std::swap(s[0], s[1]);
  return create(Opcode::Trans, v->type().withShape(s), {v});
}

Value* Builder::permute(Value* v, const std::vector<int>& perm) {
  const Shape& from = v->type().shape;
  Shape s(perm.size());
  for (size_t d = 0; d < perm.size(); ++d) s[d] = from.at(size_t(perm[d]));
  Instruction* i = create(Opcode::Trans, v->type().withShape(s), {v});
  i->imm = packTransPermutation(perm);
  return i;
}

Value* Builder::extractSlice(Value* v, size_t axis, int64_t offset, int64_t length) {
  Shape s = v->type().shape;
  s.at(axis) = length;
  Instruction* i = create(Opcode::ExtractSlice, v->type().withShape(s), {v});
  i->sub = uint8_t(axis);
  i->imm = offset;
  return i;
}

Value* Builder::gather(Value* src, Value* index, size_t axis) {
  Instruction* i = create(Opcode::Gather, src->type().withShape(index->type().shape), {src, index});
  i->sub = uint8_t(axis);
  return i;
}

Value* Builder::histogram(Value* v, int64_t bins, Value* mask) {
  std::vector<Value*> ops{v};
  if (mask) ops.push_back(mask);
  return create(Opcode::Histogram, Type::scalar(Scalar::I32).withShape({bins}), ops);
}

Value* Builder::range(int64_t start, int64_t n) {
  Instruction* i = create(Opcode::Range, Type::scalar(Scalar::I32).withShape({n}), {});
  i->imm = start;
  return i;
}

Value* Builder::programId(int axis) {
  Instruction* i = create(Opcode::ProgramId, Type::scalar(Scalar::I32), {});
  i->imm = axis;
  return i;
}

Value* Builder::numPrograms(int axis) {
  Instruction* i = create(Opcode::NumPrograms, Type::scalar(Scalar::I32), {});
  i->imm = axis;
  return i;
}

Value* Builder::gep(Value* ptr, Value* offset) { return create(Opcode::Gep, ptr->type(), {ptr, offset}); }

Value* Builder::load(Value* ptr, Value* mask, Value* other) {
  std::vector<Value*> ops{ptr};
  if (mask) ops.push_back(mask);
  if (other) ops.push_back(other);
  return create(Opcode::Load, ptr->type().pointeeType(), ops);
}

Instruction* Builder::store(Value* ptr, Value* v, Value* mask) {
  std::vector<Value*> ops{ptr, v};
  if (mask) ops.push_back(mask);
  return create(Opcode::Store, Type::voidTy(), ops);
}

Value* Builder::dot(Value* a, Value* b, Value* acc) { return create(Opcode::Dot, acc->type(), {a, b, acc}); }

// A tuple's result position is a byte (Instruction::sub).
static void checkTuple(const std::vector<Value*>& tiles, SourceLoc loc) {
  if (tiles.empty() || tiles.size() > 256)
    throw UserError(loc, "a scan or reduction combines tuples of 1 to 256 tensors, not " + std::to_string(tiles.size()));
}

Value* Builder::scanFn(const std::string& combiner, size_t result, int axis, const std::vector<Value*>& tiles) {
  checkTuple(tiles, loc_);
  Instruction* i = create(Opcode::ScanFn, tiles.at(result)->type(), tiles);
  i->text = combiner;
  i->sub = uint8_t(result);
  i->imm = axis;
  return i;
}

Value* Builder::reduceFn(const std::string& combiner, size_t result, int axis, const std::vector<Value*>& tiles) {
  checkTuple(tiles, loc_);
  const Type& t = tiles.at(result)->type();
  Shape s = t.shape;
  s.erase(s.begin() + axis);
  Instruction* i = create(Opcode::ReduceFn, s.empty() ? Type::scalar(t.kind) : t.withShape(s), tiles);
  i->text = combiner;
  i->sub = uint8_t(result);
  i->imm = axis;
  return i;
}

Value* Builder::scan(ReduceKind k, int axis, Value* v) {
  Instruction* i = create(Opcode::Scan, v->type(), {v});
  i->sub = uint8_t(k);
  i->imm = axis;
  return i;
}

// argsort of 64-bit elements (argsort's keys hold elements of up to 32 bits
// beside their positions): two stable argsorts, by the low half of the
// element's key (its order as sort's, read unsigned) and then by the high
// half of the keys in that order; the positions of the second are places
// in the first's order, taken back through it.
Value* Builder::wideArgsort(SortOrder o, int axis, Value* v, int64_t keep) {
  const Type& t = v->type();
  const Type i64t = t.withKind(Scalar::I64), i32t = t.withKind(Scalar::I32);
  auto splat64 = [&](int64_t c) { return splat(i64(c), t.shape); };
  Value* key = t.kind == Scalar::F64 ? bitcast(v, i64t) : v;
  if (t.kind == Scalar::F64)  // the magnitude flipped below zero
    key = binary(Opcode::Xor, key, binary(Opcode::UShr, binary(Opcode::Shr, key, splat64(63)), splat64(1)));
  if (o == SortOrder::Descending) key = binary(Opcode::Xor, key, splat64(-1));
  Value* high = cast(binary(Opcode::Shr, key, splat64(32)), i32t);
  Value* low = binary(Opcode::Xor, cast(key, i32t), splat(i32(std::numeric_limits<int32_t>::min()), t.shape));
  Value* first = sort(SortOrder::Ascending, axis, low, true);
  Value* second = sort(SortOrder::Ascending, axis, gather(high, first, size_t(axis)), true, keep);
  return gather(first, second, size_t(axis));
}

Value* Builder::sort(SortOrder o, int axis, Value* v, bool indices, int64_t keep) {
  if (indices && byteSize(v->type().kind) > 4) return wideArgsort(o, axis, v, keep);
  Type t = indices ? v->type().withKind(Scalar::I32) : v->type();
  if (keep > 0) t.shape[size_t(axis)] = keep;
  Instruction* i = create(indices ? Opcode::ArgSort : Opcode::Sort, t, {v});
  i->sub = uint8_t(o);
  i->imm = axis;
  return i;
}

Value* Builder::reduce(ReduceKind k, int axis, Value* v) {
  Shape s = v->type().shape;
  s.erase(s.begin() + axis);
  Instruction* i = create(Opcode::Reduce, v->type().withShape(s), {v});
  i->sub = uint8_t(k);
  i->imm = axis;
  return i;
}

Value* Builder::atomicRmw(AtomicKind k, Value* ptr, Value* v, Value* mask) {
  std::vector<Value*> ops{ptr, v};
  if (mask) ops.push_back(mask);
  Instruction* i = create(Opcode::AtomicRmw, v->type(), ops);
  i->sub = uint8_t(k);
  return i;
}

Value* Builder::atomicCas(Value* ptr, Value* c, Value* v, Value* mask) {
  std::vector<Value*> ops{ptr, c, v};
  if (mask) ops.push_back(mask);
  return create(Opcode::AtomicCas, v->type(), ops);
}

Value* Builder::multipleOf(Value* v, int64_t n) {
  Instruction* i = create(Opcode::MultipleOf, v->type(), {v});
  i->imm = n;
  return i;
}

Value* Builder::maxContiguous(Value* v, size_t axis, int64_t n) {
  Instruction* i = create(Opcode::MaxContiguous, v->type(), {v});
  i->sub = uint8_t(axis);
  i->imm = n;
  return i;
}

Instruction* Builder::print(const std::string& prefix, const std::vector<Value*>& values, bool hex) {
  Instruction* i = create(Opcode::Print, Type::voidTy(), values);
  i->text = prefix;
  i->sub = hex ? kPrintHex : 0;
  return i;
}

Instruction* Builder::assertTrue(Value* cond, const std::string& message) {
  Instruction* i = create(Opcode::Assert, Type::voidTy(), {cond});
  i->text = message;
  return i;
}

Instruction* Builder::phi(const Type& t) {
  // Phis go at the top of the block, after any phis already there.
  TRITONC_CHECK(block_, "builder has no insertion point");
  size_t pos = 0;
  while (pos < block_->instructions().size() &&
         block_->instructions()[pos]->opcode() == Opcode::Phi)
    ++pos;
  auto inst = std::make_unique<Instruction>(Opcode::Phi, t, std::vector<Value*>{}, loc_);
  Instruction* raw = block_->insert(pos, std::move(inst));
  if (pos_ != SIZE_MAX && pos <= pos_) ++pos_;
  return raw;
}

Instruction* Builder::br(BasicBlock* dest) {
  Instruction* i = create(Opcode::Br, Type::voidTy(), {});
  i->blocks = {dest};
  return i;
}

Instruction* Builder::condBr(Value* c, BasicBlock* t, BasicBlock* f) {
  Instruction* i = create(Opcode::CondBr, Type::voidTy(), {c});
  i->blocks = {t, f};
  return i;
}

Instruction* Builder::ret(const std::vector<Value*>& values) { return create(Opcode::Ret, Type::voidTy(), values); }

Instruction* Builder::inlineAsm(const std::string& assembly, const std::vector<Value*>& inputs, const Type& result,
                               bool pure) {
  Instruction* i = create(Opcode::InlineAsm, result, inputs);
  i->text = assembly;
  i->sub = pure ? kInlineAsmPure : 0;
  return i;
}

Value* Builder::constant(const Type& t, double v) {
  Scalar k = t.kind;
  Value* c = isFloatKind(k) ? static_cast<Value*>(module_.constFloat(k, v))
                            : module_.constInt(k, int64_t(v));
  return t.isTile() ? splat(c, t.shape) : c;
}

}  // namespace tritonc::ir
