// Builder: creates instructions at an insertion point, computing result types.
// Callers (IR generation, passes) are responsible for passing operands whose
// types fit; the verifier checks the result.
#pragma once
#include "ir/ir.h"

namespace tritonc::ir {

class Builder {
 public:
  explicit Builder(Module& m) : module_(m) {}

  Module& module() { return module_; }
  void setInsertPoint(BasicBlock* bb) { block_ = bb; pos_ = SIZE_MAX; }
  void setInsertPoint(BasicBlock* bb, size_t pos) { block_ = bb; pos_ = pos; }
  BasicBlock* block() const { return block_; }
  void setLoc(SourceLoc l) { loc_ = l; }
  SourceLoc loc() const { return loc_; }

  // Inserts a fully specified instruction.
  Instruction* create(Opcode op, Type t, std::vector<Value*> ops);

  Value* binary(Opcode op, Value* a, Value* b);
  Value* unary(Opcode op, Value* a);
  Value* cmp(CmpPred p, Value* a, Value* b);
  Value* cast(Value* v, const Type& to);
  Value* unsignedCast(Value* v, const Type& to);  // ucast
  Value* bitcast(Value* v, const Type& to);
  Value* select(Value* c, Value* a, Value* b);
  Value* fma(Value* a, Value* b, Value* c);  // a * b + c rounded once (floats)
  Value* splat(Value* v, const Shape& s);
  Value* reshape(Value* v, const Shape& s);
  Value* broadcast(Value* v, const Shape& s);
  Value* trans(Value* v);
  // Result dimension d is v's dimension perm[d] (a `trans` of any rank).
  Value* permute(Value* v, const std::vector<int>& perm);
  // v[..., offset : offset + length, ...] along `axis`.
  Value* extractSlice(Value* v, size_t axis, int64_t offset, int64_t length);
  // r[..., i, ...] = src[..., index[..., i, ...], ...] along `axis`: the shape of `index`.
  Value* gather(Value* src, Value* index, size_t axis);
  Value* range(int64_t start, int64_t n);
  Value* programId(int axis);
  Value* numPrograms(int axis);
  Value* gep(Value* ptr, Value* offset);
  Value* load(Value* ptr, Value* mask = nullptr, Value* other = nullptr);
  Instruction* store(Value* ptr, Value* v, Value* mask = nullptr);
  Value* dot(Value* a, Value* b, Value* acc);
  Value* reduce(ReduceKind k, int axis, Value* v);
  // The inclusive prefix of `v` along `axis` under k (its type).
  Value* scan(ReduceKind k, int axis, Value* v);
  // Element `result` of the inclusive prefix of the tuples of `tiles` along
  // `axis` under the module's combine function `combiner` (scan_fn).
  Value* scanFn(const std::string& combiner, size_t result, int axis, const std::vector<Value*>& tiles);
  // Element `result` of the tuples of `tiles` reduced along `axis` under
  // `combiner` (reduce_fn; a 1-D tile reduces to a scalar).
  Value* reduceFn(const std::string& combiner, size_t result, int axis, const std::vector<Value*>& tiles);
  // `v` sorted along `axis` (its type; SortOrder says the order); with
  // `indices` (argsort), the positions along the axis the sorted elements
  // come from (i32). `keep` > 0: only the first `keep` of them (a top-k).
  // (argsort takes elements of up to 32 bits: those of 64 are sorted in
  // two passes, by the halves of their keys.)
  Value* sort(SortOrder o, int axis, Value* v, bool indices = false, int64_t keep = 0);
  // How many of the elements of `v` (a 1-D integer tile; where `mask`) are
  // each of 0 .. bins - 1 (i32<bins>).
  Value* histogram(Value* v, int64_t bins, Value* mask = nullptr);
  Value* atomicRmw(AtomicKind k, Value* ptr, Value* v, Value* mask = nullptr);
  Value* atomicCas(Value* ptr, Value* cmp, Value* v, Value* mask = nullptr);
  Value* multipleOf(Value* v, int64_t n);
  // Promises runs of n consecutive values along `axis` (Triton's max_contiguous).
  Value* maxContiguous(Value* v, size_t axis, int64_t n);
  // Prints `values` (scalars or tiles) after `prefix`, line by line (docs/IR.md).
  Instruction* print(const std::string& prefix, const std::vector<Value*>& values, bool hex = false);
  // The user's PTX `assembly` element by element ($0 the result, $1... the inputs).
  Instruction* inlineAsm(const std::string& assembly, const std::vector<Value*>& inputs, const Type& result, bool pure);
  // Fails the launch, naming `message`, where an element of `cond` (i1) is false.
  Instruction* assertTrue(Value* cond, const std::string& message);
  Instruction* phi(const Type& t);
  Instruction* br(BasicBlock* dest);
  Instruction* condBr(Value* c, BasicBlock* t, BasicBlock* f);
  // A kernel's ret, or with `values` a combine function's.
  Instruction* ret(const std::vector<Value*>& values = {});

  Constant* i32(int64_t v) { return module_.constInt(Scalar::I32, v); }
  Constant* i64(int64_t v) { return module_.constInt(Scalar::I64, v); }
  Constant* boolean(bool v) { return module_.constBool(v); }
  // A constant of `t`'s element kind, splatted to its shape if it is a tile.
  Value* constant(const Type& t, double v);

 private:
  Value* wideArgsort(SortOrder o, int axis, Value* v, int64_t keep);
  Module& module_;
  BasicBlock* block_ = nullptr;
  size_t pos_ = SIZE_MAX;
  SourceLoc loc_;
};

}  // namespace tritonc::ir
