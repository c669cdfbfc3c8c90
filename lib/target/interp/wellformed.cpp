#include "target/interp/wellformed.h"

namespace tritonc::interp::detail {

namespace {

class Checker {
 public:
  explicit Checker(const ir::Instruction& inst) : inst_(inst) {}

  void check() {
    using Op = ir::Opcode;
    const ir::Type& t = inst_.type();
    const Op op = inst_.opcode();
    switch (ir::opcodeCategory(op)) {
      case ir::OpCategory::Binary:
        operands(2, 2);
        for (size_t i = 0; i < 2; ++i) sameKindElementwise(i);
        if (op == Op::And || op == Op::Or || op == Op::Xor || op == Op::Shl || op == Op::Shr || op == Op::UDiv ||
            op == Op::URem || op == Op::UShr || op == Op::UMax || op == Op::UMin)
          require(t.isInt(), "bitwise and unsigned operations need integers");
        require(t.isInt() || t.isFloat() || t.isPtr(), "needs numbers");
        if (op == Op::MaxNum || op == Op::MinNum) require(t.isFloat(), "maxnum/minnum need floats");
        return;
      case ir::OpCategory::Unary:
        operands(1, 1);
        sameKindElementwise(0);
        if (op == Op::Not) require(t.isInt(), "'not' needs integers");
        else if (op != Op::Neg && op != Op::Abs) require(t.isFloat(), "needs floats");
        else require(t.isInt() || t.isFloat(), "needs numbers");
        return;
      case ir::OpCategory::Other: case ir::OpCategory::Gpu: break;
    }
    switch (op) {
      case Op::Cmp:
        operands(2, 2);
        require(t.kind == ir::Scalar::I1 && inst_.sub < ir::kNumCmpPreds, "bad result or predicate");
        require(!ir::isUnsignedPred(ir::CmpPred(inst_.sub)) || ir::isIntKind(kindOf(0)),
                "unsigned comparisons need integers");
        require(kindOf(0) == kindOf(1), "operands of different kinds");
        elementwise(0);
        elementwise(1);
        return;
      case Op::Cast:
        operands(1, 1);
        elementwise(0);
        require(!t.isVoid() && kindOf(0) != ir::Scalar::Void, "void cast");
        require(!(t.isPtr() && ir::isFloatKind(kindOf(0))) && !(t.isFloat() && kindOf(0) == ir::Scalar::Ptr),
                "no pointer <-> float casts");
        return;
      case Op::UCast:
        operands(1, 1);
        elementwise(0);
        require((t.isInt() && (ir::isIntKind(kindOf(0)) || ir::isFloatKind(kindOf(0)))) ||
                    (t.isFloat() && ir::isIntKind(kindOf(0))),
                "ucast converts integers");
        return;
      case Op::Bitcast:
        operands(1, 1);
        elementwise(0);
        require((t.isInt() || t.isFloat()) && (ir::isIntKind(kindOf(0)) || ir::isFloatKind(kindOf(0))) &&
                    t.kind != ir::Scalar::I1 && kindOf(0) != ir::Scalar::I1 &&
                    ir::bitWidth(t.kind) == ir::bitWidth(kindOf(0)),
                "bitcast keeps the bit width of numbers");
        return;
      case Op::Fma:
        operands(3, 3);
        require(t.isFloat(), "fma takes floats");
        sameKindElementwise(0);
        sameKindElementwise(1);
        sameKindElementwise(2);
        return;
      case Op::Select:
        operands(3, 3);
        require(kindOf(0) == ir::Scalar::I1, "the condition must be i1");
        elementwise(0);
        sameKindElementwise(1);
        sameKindElementwise(2);
        return;
      case Op::Splat:
        operands(1, 1);
        require(count(0) == 1 && kindOf(0) == t.kind, "splat needs a scalar of the element kind");
        return;
      case Op::Reshape:
      case Op::MultipleOf:
      case Op::MaxContiguous:
        operands(1, 1);
        require(count(0) == t.numElements() && kindOf(0) == t.kind, "element counts or kinds differ");
        return;
      case Op::Broadcast: {
        operands(1, 1);
        const ir::Shape& from = shapeOf(0);
        require(kindOf(0) == t.kind, "kinds differ");
        if (from.empty()) return;
        require(from.size() == t.shape.size(), "ranks differ");
        for (size_t d = 0; d < from.size(); ++d)
          require(from[d] == t.shape[d] || from[d] == 1, "a dimension that is not 1 changes");
        return;
      }
      case Op::ExtractSlice: {
        operands(1, 1);
        const ir::Shape& from = shapeOf(0);
        const size_t axis = inst_.sub;
        bool fits = axis < from.size() && from.size() == t.shape.size() && kindOf(0) == t.kind && inst_.imm >= 0 &&
                    inst_.imm + t.shape[axis] <= from[axis];
        for (size_t d = 0; fits && d < from.size(); ++d) fits = d == axis || from[d] == t.shape[d];
        require(fits, "the slice is not inside the operand");
        return;
      }
      case Op::Histogram: {
        operands(1, 2);
        require(shapeOf(0).size() == 1 && t.shape.size() == 1 && t.kind == ir::Scalar::I32 &&
                    (inst_.numOperands() == 1 || shapeOf(1) == shapeOf(0)),
                "histogram counts a 1-D tile into a 1-D i32 tile");
        return;
      }
      case Op::Gather: {
        operands(2, 2);
        const ir::Shape& from = shapeOf(0);
        const ir::Shape& index = shapeOf(1);
        const size_t axis = inst_.sub;
        bool fits = axis < from.size() && from.size() == index.size() && index == t.shape && kindOf(0) == t.kind;
        for (size_t d = 0; fits && d < from.size(); ++d) fits = d == axis || from[d] == index[d];
        require(fits, "the index does not fit the source");
        return;
      }
      case Op::Trans: {
        operands(1, 1);
        const std::vector<int> perm = ir::transPermutation(inst_.imm, shapeOf(0).size());
        require(!perm.empty(), "the permutation is not one of the operand's dimensions");
        ir::Shape permuted(perm.size());
        for (size_t d = 0; d < perm.size(); ++d) permuted[d] = shapeOf(0)[size_t(perm[d])];
        require(permuted == t.shape && kindOf(0) == t.kind, "the shape is not the operand's permuted");
        return;
      }
      case Op::Range:
        operands(0, 0);
        require(t.shape.size() == 1 && t.isInt(), "range makes a 1-D integer tile");
        return;
      case Op::ProgramId:
      case Op::NumPrograms:
        operands(0, 0);
        require(inst_.imm >= 0 && inst_.imm <= 2 && !t.isTile() && t.isInt(), "axis must be 0, 1 or 2");
        return;
      case Op::Gep:
        operands(2, 2);
        require(t.isPtr() && kindOf(0) == ir::Scalar::Ptr && ir::isIntKind(kindOf(1)), "gep needs ptr + int");
        elementwise(0);
        elementwise(1);
        return;
      case Op::Load:
        operands(1, 3);
        require(kindOf(0) == ir::Scalar::Ptr && inst_.operand(0)->type().pointee == t.kind,
                "the result is not the pointee");
        require(count(0) == t.numElements(), "element counts differ");
        if (inst_.numOperands() >= 2) {
          require(kindOf(1) == ir::Scalar::I1, "the mask must be i1");
          elementwise(1);
        }
        if (inst_.numOperands() >= 3) sameKindElementwise(2);
        return;
      case Op::Store:
        memoryAccess(2, 3, 1);
        return;
      case Op::AtomicRmw:
        memoryAccess(2, 3, 1);
        require(inst_.sub < ir::kNumAtomicKinds, "bad atomic kind");
        if (inst_.sub >= uint8_t(ir::AtomicKind::And)) require(t.isInt(), "and/or/umax/umin need integers");
        return;
      case Op::AtomicCas:
        memoryAccess(3, 4, 2);
        return;
      case Op::Dot: {
        operands(3, 3);
        const ir::Shape &a = shapeOf(0), &b = shapeOf(1), &c = shapeOf(2);
        require(a.size() == 2 && b.size() == 2 && c.size() == 2 && a[1] == b[0] && a[0] == c[0] &&
                    b[1] == c[1] && t.shape == c && t.kind == kindOf(2),
                "dot shapes do not fit");
        require(t.isFloat() || t.isInt(), "dot results are numbers");
        require(kindOf(0) != ir::Scalar::Ptr && kindOf(1) != ir::Scalar::Ptr, "dot of pointers");
        return;
      }
      case Op::Scan: {
        operands(1, 1);
        const ir::Shape& s = shapeOf(0);
        require(inst_.imm >= 0 && size_t(inst_.imm) < s.size(), "bad axis");
        require(s == t.shape && kindOf(0) == t.kind && inst_.sub < ir::kNumReduceKinds, "bad result type or kind");
        require(inst_.sub <= uint8_t(ir::ReduceKind::Min) || inst_.sub == uint8_t(ir::ReduceKind::Mul) ||
                    t.isInt() == (inst_.sub <= uint8_t(ir::ReduceKind::UMin)),
                "umax/umin need integers, maxnum/minnum floats");
        require(t.kind != ir::Scalar::I1 && (t.isInt() || t.isFloat()), "scan needs numbers");
        return;
      }
      case Op::ScanFn: case Op::ReduceFn: {
        // tiles of one shape, one picked; a reduction's result without the axis
        require(inst_.numOperands() >= 1 && inst_.sub < inst_.numOperands(), "a tuple's op takes tiles and picks one");
        const ir::Shape& s = shapeOf(0);
        require(inst_.imm >= 0 && size_t(inst_.imm) < s.size(), "bad axis");
        for (size_t i = 0; i < inst_.numOperands(); ++i) require(shapeOf(i) == s, "a tuple's tiles have one shape");
        ir::Shape want = s;
        if (inst_.opcode() == Op::ReduceFn && inst_.imm >= 0 && size_t(inst_.imm) < want.size())
          want.erase(want.begin() + inst_.imm);
        require(want == t.shape && kindOf(inst_.sub) == t.kind, "bad result type");
        require(ir::combinerOf(inst_) != nullptr, "names no combine function");
        return;
      }
      case Op::Sort: case Op::ArgSort: {
        operands(1, 1);
        const bool indices = inst_.opcode() == Op::ArgSort;
        require(inst_.imm >= 0 && size_t(inst_.imm) < shapeOf(0).size(), "bad axis");
        ir::Shape kept = shapeOf(0);
        if (inst_.imm >= 0 && size_t(inst_.imm) < kept.size() && t.shape.size() == kept.size())
          kept[size_t(inst_.imm)] = t.shape[size_t(inst_.imm)];
        require(kept == t.shape && (indices ? t.kind == ir::Scalar::I32 : kindOf(0) == t.kind) &&
                    inst_.sub < ir::kNumSortOrders,
                "bad result type or order");
        require(kindOf(0) != ir::Scalar::I1 && (ir::isFloatKind(kindOf(0)) || ir::isIntKind(kindOf(0))),
                "sort needs numbers");
        return;
      }
      case Op::Reduce: {
        operands(1, 1);
        ir::Shape s = shapeOf(0);
        require(inst_.imm >= 0 && size_t(inst_.imm) < s.size() && s[size_t(inst_.imm)] > 0, "bad axis");
        s.erase(s.begin() + inst_.imm);
        require(s == t.shape && kindOf(0) == t.kind && inst_.sub < ir::kNumReduceKinds, "bad result type or kind");
        require(inst_.sub != uint8_t(ir::ReduceKind::Mul), "no reduce mul");
        require(inst_.sub <= uint8_t(ir::ReduceKind::Min) || t.isInt() == (inst_.sub <= uint8_t(ir::ReduceKind::UMin)),
                "umax/umin need integers, maxnum/minnum floats");
        require(t.isInt() || t.isFloat(), "reduce needs numbers");
        return;
      }
      case Op::InlineAsm:
        for (size_t i = 0; i < inst_.numOperands(); ++i) elementwise(i);
        return;
      case Op::Print:
        for (size_t i = 0; i < inst_.numOperands(); ++i)
          require(kindOf(i) != ir::Scalar::Void && !inst_.operand(i)->type().isShared(), "prints values");
        return;
      case Op::Assert:
        operands(1, 1);
        require(kindOf(0) == ir::Scalar::I1, "the condition must be i1");
        return;
      case Op::Phi:
        require(inst_.numOperands() == inst_.blocks.size(), "one block per incoming value");
        for (size_t i = 0; i < inst_.numOperands(); ++i)
          require(inst_.operand(i)->type() == t, "incoming value of another type");
        return;
      case Op::Br:
        require(inst_.numOperands() == 0 && inst_.blocks.size() == 1, "br has one successor");
        return;
      case Op::CondBr:
        operands(1, 1);
        require(inst_.blocks.size() == 2 && count(0) == 1 && kindOf(0) == ir::Scalar::I1,
                "cond_br takes a scalar i1 and two successors");
        return;
      case Op::Ret: return;
      case Op::ConvertLayout: case Op::DotWait:
        operands(1, 1);
        require(count(0) == t.numElements() && kindOf(0) == t.kind, "a copy changes the elements");
        return;
      case Op::DotAsync:
        operands(3, 3);
        require(t.shape == shapeOf(2) && t.kind == kindOf(2), "dot shapes do not fit");
        return;
      case Op::LocalAlloc:
        operands(0, 1);
        require(t.isShared(), "a buffer needs a shared layout");
        return;
      case Op::MemIndex:
        operands(2, 2);
        require(inst_.operand(0)->type().isShared() && t.isShared() && !inst_.operand(1)->type().isTile(),
                "mem_index selects a stage of a buffer");
        return;
      case Op::LocalLoad:
        operands(1, 1);
        require(inst_.operand(0)->type().isShared() && kindOf(0) == t.kind, "local_load reads a buffer");
        return;
      case Op::LocalStore:
        operands(2, 2);
        require(inst_.operand(0)->type().isShared() && kindOf(0) == kindOf(1), "local_store writes a buffer");
        return;
      case Op::AsyncCopy:
        operands(2, 3);
        require(inst_.operand(0)->type().isShared() && kindOf(1) == ir::Scalar::Ptr &&
                    inst_.operand(1)->type().pointee == kindOf(0),
                "async_copy copies through pointers into a buffer");
        return;
      case Op::AsyncCommit: case Op::AsyncWait: case Op::Barrier: case Op::FenceAsyncShared:
        operands(0, 0);
        return;
      case Op::TmaInit:
        operands(1, 1);
        require(inst_.operand(0)->type().isShared(), "tma_init initializes a buffer of barriers");
        return;
      case Op::TmaWait:
        operands(3, 3);
        require(inst_.operand(0)->type().isShared(), "tma_wait waits on a buffer of barriers");
        return;
      case Op::StageInit:
        operands(1, 1);
        require(inst_.operand(0)->type().isShared(), "stage_init initializes a buffer of barriers");
        return;
      case Op::StageRelease:
        operands(3, 3);
        require(inst_.operand(0)->type().isShared() && count(2) == 1 && kindOf(2) == ir::Scalar::I1,
                "stage_release arrives on a buffer of barriers under a scalar predicate");
        return;
      case Op::TmaCopy:
        operands(10, 11);
        require(inst_.operand(0)->type().isShared() && kindOf(3) == ir::Scalar::Ptr &&
                    inst_.operand(3)->type().pointee == kindOf(0),
                "tma_copy copies from a pointer into a buffer");
        return;
      default: require(false, "unknown opcode");
    }
  }

 private:
  void require(bool ok, const char* why) const {
    if (ok) return;
    const ir::Function* fn = inst_.parent ? inst_.parent->parent() : nullptr;
    throw InternalError(std::string("malformed '") + ir::opcodeName(inst_.opcode()) + "' in kernel '" +
                        (fn ? fn->name() : std::string("?")) + "': " + why + " (the verifier should have said so)");
  }
  void operands(size_t lo, size_t hi) const {
    require(inst_.numOperands() >= lo && inst_.numOperands() <= hi, "wrong number of operands");
  }
  ir::Scalar kindOf(size_t i) const { return inst_.operand(i)->type().kind; }
  const ir::Shape& shapeOf(size_t i) const { return inst_.operand(i)->type().shape; }
  int64_t count(size_t i) const { return inst_.operand(i)->type().numElements(); }
  // Operand i has the result's element count, or is a scalar used on every element.
  void elementwise(size_t i) const {
    require(count(i) == 1 || count(i) == inst_.type().numElements(), "element counts differ");
  }
  void sameKindElementwise(size_t i) const {
    elementwise(i);
    require(kindOf(i) == inst_.type().kind && inst_.operand(i)->type().pointee == inst_.type().pointee,
            "operand and result kinds differ");
  }
  // store / atomics: (ptr, values..., [mask]); `values` operands after ptr.
  void memoryAccess(size_t lo, size_t hi, size_t values) const {
    operands(lo, hi);
    require(kindOf(0) == ir::Scalar::Ptr, "needs a pointer");
    const ir::Scalar pointee = inst_.operand(0)->type().pointee;
    const int64_t lanes = count(0);
    for (size_t i = 1; i <= values; ++i)
      require(kindOf(i) == pointee && (count(i) == 1 || count(i) == lanes), "the value does not fit the pointer");
    if (inst_.numOperands() == hi)
      require(kindOf(hi - 1) == ir::Scalar::I1 && (count(hi - 1) == 1 || count(hi - 1) == lanes), "bad mask");
    if (inst_.opcode() != ir::Opcode::Store)
      require(inst_.type().kind == pointee && inst_.type().numElements() == lanes, "the result is not the pointee");
  }

  const ir::Instruction& inst_;
};

}  // namespace

void checkWellFormed(const ir::Instruction& inst) { Checker(inst).check(); }

}  // namespace tritonc::interp::detail
