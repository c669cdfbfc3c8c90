// dot a, b, acc: r = acc + a @ b with the operands converted to the result's
// element type T and every product and sum rounded to T (no FMA), each r[i][j]
// accumulated in k order, as the interpreter does.
//
// For f32, f64, i32 and i64 results the dot is lowered as a BLAS computes a
// product: B in panels of NR columns whose rows are consecutive (the tile
// itself when it is already so, else packed and converted into the frame),
// and for every MR x NR block of the result a register-blocked micro-kernel:
// MR x NR/W accumulators of W lanes live in vector registers across the
// whole k loop, and each step of k broadcasts one a[i][k] per row and loads
// one vector of b per W columns (a multiply, then an add: the order and
// rounding of each element are the interpreter's). Other kinds (f16/bf16
// results) use the i-k-j loop nest, whose inner loop the vectorizer handles.
//
// When `acc` is a loop's tile phi that only this dot reads, the result is
// written into the phi's own buffer, so that the back edge copies nothing.
#include <set>

#include "target/cpu/lowering.h"

namespace tritonc::cpu::detail {

namespace {

bool blockable(ir::Scalar k) {
  return k == ir::Scalar::F32 || k == ir::Scalar::F64 || k == ir::Scalar::I32 || k == ir::Scalar::I64;
}

// Whether `to` can run after the end of `from` before `stop` runs: a path
// from `from`'s successors to `to` that avoids `stop`.
bool reachesAvoiding(const ir::BasicBlock* from, const ir::BasicBlock* to, const ir::BasicBlock* stop) {
  std::set<const ir::BasicBlock*> seen;
  std::vector<const ir::BasicBlock*> work;
  for (const ir::BasicBlock* s : from->successors()) work.push_back(s);
  while (!work.empty()) {
    const ir::BasicBlock* b = work.back();
    work.pop_back();
    if (b == stop || !seen.insert(b).second) continue;
    if (b == to) return true;
    for (const ir::BasicBlock* s : b->successors()) work.push_back(s);
  }
  return false;
}

bool comesAfter(const ir::Instruction& later, const ir::Instruction& earlier) {
  for (const auto& i : earlier.parent->instructions()) {
    if (i.get() == &later) return false;
    if (i.get() == &earlier) return true;
  }
  return false;
}

}  // namespace

// The phi buffer the dot may accumulate into (see the file comment), or
// nullopt. The phi's block H dominates the dot's block D (the dot reads the
// phi). Writing the result over the phi's value is safe when
//   - the dot runs once per run of H (no path from D back to D avoids H),
//     so each run reads the value that H's incoming edge stored;
//   - no other reader of the phi's value runs after the dot before H runs
//     again: not later in D, not in a block reachable from D avoiding H,
//     not as another phi's incoming value on an edge leaving such a block;
//   - no other reader makes a view of it (broadcast, trans, reshape,
//     multiple_of), whose own readers could run anywhere.
// Readers of the result are fine: every path from an edge into H to one of
// them passes through the dot again (H dominates D, which dominates them).
std::optional<Tile> Lowering::dotAccumulatorInPlace(const ir::Instruction& dot, const Tile& acc) {
  const ir::Value* v = dot.operand(2);
  if (v->valueKind() != ir::ValueKind::Instruction) return std::nullopt;
  const auto* phi = static_cast<const ir::Instruction*>(v);
  if (phi->opcode() != ir::Opcode::Phi || acc.owner != phi || !acc.isContiguous()) return std::nullopt;
  if (dot.operand(0) == v || dot.operand(1) == v) return std::nullopt;
  const ir::BasicBlock *H = phi->parent, *D = dot.parent;
  if (D != H && reachesAvoiding(D, D, H)) return std::nullopt;
  for (const ir::Instruction* user : phi->users()) {
    if (user == &dot) continue;
    switch (user->opcode()) {
      case ir::Opcode::Broadcast:
      case ir::Opcode::Trans:
      case ir::Opcode::Reshape:
      case ir::Opcode::MultipleOf:
      case ir::Opcode::MaxContiguous:
      case ir::Opcode::ExtractSlice: return std::nullopt;
      default: break;
    }
    if (user->opcode() == ir::Opcode::Phi) {
      for (size_t k = 0; k < user->numOperands(); ++k) {
        if (user->operand(k) != v) continue;
        const ir::BasicBlock* from = user->blocks[k];  // read on the edge leaving `from`
        if (from == D || reachesAvoiding(D, from, H)) return std::nullopt;
      }
      continue;
    }
    if (user->parent == D ? comesAfter(*user, dot) : reachesAvoiding(D, user->parent, H)) return std::nullopt;
  }
  return acc;
}

void Lowering::lowerDot(const ir::Instruction& inst) {
  const ir::Type& t = inst.type();
  Tile a = get(inst.operand(0)), b = get(inst.operand(1)), acc = get(inst.operand(2));
  if (blockable(t.kind)) {
    std::optional<Tile> inPlace = dotAccumulatorInPlace(inst, acc);
    Tile out = inPlace ? *inPlace : newTile(t);
    dotMicroKernel(t.kind, a, b, acc, out);
    set(&inst, out);
    return;
  }
  const ir::Scalar k = t.kind;
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

Lowering::DotBlock Lowering::dotBlock(ir::Scalar k, int64_t M, int64_t N) const {
  DotBlock d;
  const int64_t elementBits = 8 * ir::byteSize(k);
  d.lanes = std::min<int64_t>(std::max<int64_t>(vectorBits_ / elementBits, 1), N);
  // Accumulators: half the vector registers (32 with AVX-512, 16 before),
  // leaving room for the b vectors, the broadcast and the products.
  const int64_t accumulators = vectorBits_ >= 512 ? 16 : 8;
  d.vectors = std::min<int64_t>(2, N / d.lanes);
  d.rows = std::min<int64_t>(accumulators / d.vectors, M);
  return d;
}

void Lowering::dotMicroKernel(ir::Scalar k, const Tile& a, const Tile& b, const Tile& acc, const Tile& out) {
  const int64_t M = a.shape.at(0), K = a.shape.at(1), N = out.shape.at(1);
  const DotBlock blk = dotBlock(k, M, N);
  const int64_t W = blk.lanes, MR = blk.rows, NV = blk.vectors, NR = W * NV;
  llvm::Type* elem = valueType(k);
  llvm::Type* vec = llvm::FixedVectorType::get(elem, unsigned(W));
  const llvm::Align elemAlign(uint64_t(ir::byteSize(k)));

  // B as panels: element (k, j) of panel p at panel + k * rowStride + j.
  // The tile itself when its rows are consecutive elements of T, else a
  // packed copy [N / NR][K][NR] (converted to T).
  llvm::Value* bBase = nullptr;
  Stride bRow, bPanel;
  if (b.inMemory() && b.kind == k && b.strides[1].is(1)) {
    bBase = b.base;
    bRow = b.strides[0];
    bPanel = Stride(NR);
  } else {
    Tile packed = newTile(ir::Type::scalar(k).withShape({N / NR, K, NR}));
    forEach(packed.shape, {packed.strides, {mulStride(b.strides[1], i64(NR)), b.strides[0], b.strides[1]}},
            [&](const std::vector<llvm::Value*>& o) {
              storeElement(packed, o[0], convert(b.kind, k, loadElement(b, o[1])));
            });
    bBase = packed.base;
    bRow = Stride(NR);
    bPanel = Stride(K * NR);
  }
  // The accumulator's starting values: a splat, or rows of consecutive elements.
  Tile start = acc;
  if (start.hasBase() && !(start.inMemory() && start.strides[1].is(1))) start = contiguous(start);

  std::vector<llvm::AllocaInst*> sums;
  for (int64_t r = 0; r < MR * NV; ++r) sums.push_back(variable(vec, "dot.acc"));
  auto vectorAt = [&](llvm::Value* base, llvm::Value* offset) {
    return b_.CreateGEP(elem, base, offset);
  };

  loop(N / NR, [&](llvm::Value* p) {
    llvm::Value* col = b_.CreateMul(p, i64(NR));
    llvm::Value* panel = vectorAt(bBase, scaled(p, bPanel));
    loop(M / MR, [&](llvm::Value* q) {
      llvm::Value* row0 = b_.CreateMul(q, i64(MR));
      for (int64_t r = 0; r < MR; ++r) {
        llvm::Value* row = b_.CreateAdd(row0, i64(r));
        for (int64_t v = 0; v < NV; ++v) {
          llvm::Value* c = b_.CreateAdd(col, i64(v * W));
          llvm::Value* init =
              start.hasBase()
                  ? b_.CreateAlignedLoad(vec, vectorAt(start.base, b_.CreateAdd(scaled(row, start.strides[0]), c)),
                                         elemAlign)
                  : b_.CreateVectorSplat(unsigned(W), start.scalar);
          b_.CreateStore(init, sums[size_t(r * NV + v)]);
        }
      }
      loop(K, [&](llvm::Value* kk) {
        llvm::Value* bAt = vectorAt(panel, scaled(kk, bRow));
        std::vector<llvm::Value*> bv;
        for (int64_t v = 0; v < NV; ++v)
          bv.push_back(b_.CreateAlignedLoad(vec, vectorAt(bAt, i64(v * W)), elemAlign));
        for (int64_t r = 0; r < MR; ++r) {
          llvm::Value* aOff = b_.CreateAdd(scaled(b_.CreateAdd(row0, i64(r)), a.strides[0]), scaled(kk, a.strides[1]));
          llvm::Value* x = b_.CreateVectorSplat(unsigned(W), convert(a.kind, k, loadElement(a, aOff)));
          for (int64_t v = 0; v < NV; ++v) {
            llvm::AllocaInst* s = sums[size_t(r * NV + v)];
            llvm::Value* product = binary(ir::Opcode::Mul, k, x, bv[size_t(v)]);
            b_.CreateStore(binary(ir::Opcode::Add, k, b_.CreateLoad(vec, s), product), s);
          }
        }
      });
      for (int64_t r = 0; r < MR; ++r) {
        llvm::Value* rowOff = b_.CreateMul(b_.CreateAdd(row0, i64(r)), i64(N));
        for (int64_t v = 0; v < NV; ++v)
          b_.CreateAlignedStore(b_.CreateLoad(vec, sums[size_t(r * NV + v)]),
                                vectorAt(out.base, b_.CreateAdd(rowOff, b_.CreateAdd(col, i64(v * W)))), elemAlign);
      }
    });
  });
}

}  // namespace tritonc::cpu::detail
