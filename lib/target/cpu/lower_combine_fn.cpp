// The ops with a combine function of the module, in the interpreter's
// order: scan_fn @F R AXIS (tl.associative_scan with the user's function):
// element i along the axis is F of element i - 1's results and the
// operands' element i; reduce_fn (tl.reduce): F folds the axis from its
// first element on. F's instructions are written inline (LLVM sees through
// them). All the tuple's results are computed once, into a buffer each;
// the instructions of the other positions of the same tuple in the block
// take theirs.
#include "target/cpu/lowering.h"

namespace tritonc::cpu::detail {

std::vector<llvm::Value*> Lowering::applyCombiner(const ir::Function& f, const std::vector<llvm::Value*>& args) {
  std::unordered_map<const ir::Value*, llvm::Value*> value;
  for (size_t i = 0; i < args.size(); ++i) value[f.argument(i)] = args[i];
  auto of = [&](const ir::Value* v) {
    if (v->valueKind() == ir::ValueKind::Constant) return constant(*static_cast<const ir::Constant*>(v));
    return value.at(v);
  };
  for (const auto& inst : f.entry()->instructions()) {
    std::vector<llvm::Value*> operands;
    for (const ir::Value* v : inst->operands()) operands.push_back(of(v));
    if (inst->opcode() == ir::Opcode::Ret) return operands;
    std::vector<Tile> kinds;  // scalars: elementwiseValue reads their kinds
    for (const ir::Value* v : inst->operands()) {
      Tile t;
      t.kind = v->type().kind;
      kinds.push_back(t);
    }
    value[inst.get()] = elementwiseValue(*inst, kinds, operands);
  }
  throw InternalError("combine function '" + f.name() + "' has no 'ret'");
}

void Lowering::lowerCombining(const ir::Instruction& inst) {
  const ir::Instruction* leader = ir::tupleLeader(inst);
  if (leader == &inst) {
    const ir::Function* f = ir::combinerOf(inst);
    if (!f) throw InternalError(std::string(ir::opcodeName(inst.opcode())) + " names no combine function '" + inst.text + "'");
    std::vector<Tile> in;
    for (const ir::Value* v : inst.operands()) {
      Tile a = get(v);
      in.push_back(a.hasBase() ? a : contiguous(a));  // a uniform tile (rare): combined like any other
    }
    combineResults_[&inst] = combineTuple(inst, *f, in);
  }
  set(&inst, combineResults_.at(leader).at(inst.sub));
}

std::vector<Tile> Lowering::combineTuple(const ir::Instruction& inst, const ir::Function& f,
                                         const std::vector<Tile>& in) {
  const bool scan = inst.opcode() == ir::Opcode::ScanFn;
  const size_t k = in.size();
  const ir::Shape& shape = inst.operand(0)->type().shape;
  const size_t axis = size_t(inst.imm);
  const int64_t n = shape.at(axis);
  ir::Shape kept = shape;
  kept.erase(kept.begin() + long(axis));
  // The results, and the same buffers seen along the axis: a scan's are
  // the results themselves; a reduction's repeat each row's one slot
  // (stride 0), so that both fold `slot(i + 1) = F(slot(i), in(i + 1))`.
  std::vector<Tile> out, along;
  for (const ir::Value* v : inst.operands()) {
    if (scan) {
      out.push_back(newTile(v->type()));
      along.push_back(out.back());
      continue;
    }
    out.push_back(newTile(ir::Type::scalar(v->type().kind).withShape(kept.empty() ? ir::Shape{1} : kept)));
    Tile a = out.back();
    a.shape = shape;
    if (kept.empty()) a.strides = {Stride(0)};
    else a.strides.insert(a.strides.begin() + long(axis), Stride(0));
    along.push_back(a);
  }
  // The other dimensions (one of size 1 where the tile has no other), with
  // the strides of each buffer: along 0, in 0, along 1, in 1, ...
  std::vector<Strides> strides;
  for (size_t j = 0; j < k; ++j)
    for (const Tile* t : {static_cast<const Tile*>(&along[j]), &in[j]}) {
      Strides s = t->strides;
      s.erase(s.begin() + long(axis));
      strides.push_back(kept.empty() ? Strides{Stride(0)} : s);
    }
  if (kept.empty()) kept = {1};
  forEach(kept, strides, [&](const std::vector<llvm::Value*>& o) {
    for (size_t j = 0; j < k; ++j) storeElement(along[j], o[2 * j], loadElement(in[j], o[2 * j + 1]));
  });
  if (n > 1)
    loop(n - 1, [&](llvm::Value* i) {
      llvm::Value* next = b_.CreateAdd(i, i64(1));
      forEach(kept, strides, [&](const std::vector<llvm::Value*>& o) {
        std::vector<llvm::Value*> args(2 * k);
        for (size_t j = 0; j < k; ++j) {
          args[j] = loadElement(along[j], b_.CreateAdd(o[2 * j], scaled(i, along[j].strides[axis])));
          args[k + j] = loadElement(in[j], b_.CreateAdd(o[2 * j + 1], scaled(next, in[j].strides[axis])));
        }
        std::vector<llvm::Value*> r = applyCombiner(f, args);
        for (size_t j = 0; j < k; ++j)
          storeElement(along[j], b_.CreateAdd(o[2 * j], scaled(next, along[j].strides[axis])), r[j]);
      });
    });
  if (!scan && inst.type().shape.empty())  // reduced to scalars
    for (Tile& t : out) {
      Tile s;
      s.kind = t.kind;
      s.scalar = loadElement(t, i64(0));
      t = s;
    }
  return out;
}

}  // namespace tritonc::cpu::detail
