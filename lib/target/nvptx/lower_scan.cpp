// PTX lowering of scans (inclusive prefixes along an axis: tl.cumsum, and
// tl.associative_scan with the user's combine function), as
// gpu::scanPlan lays them out:
//   1. in registers: each thread scans its runs of consecutive elements
//      along the axis (scan: in the combine kind, f32 for f16/bf16, 32 bits
//      for narrow integers; scan_fn: the combine function's instructions,
//      written inline on the tuple's registers);
//   2. each run's total goes to the scratch at (row, run along the row),
//      stored by the run's first owner (replicated threads hold copies);
//      a tuple's elements each in their section;
//   3. the totals of each row are scanned there (Hillis and Steele: log2
//      of the runs per row rounds, each read, barrier, write, barrier),
//      each run's total updated by the threads that hold it;
//   4. each run but a row's first combines the total of the runs before it
//      into its registers.
// The result has the operand's layout; nothing but the totals moves. The
// order of the combinations differs from the interpreter's sequential one
// (as reductions'; the same for an associative function); f16/bf16 round
// once, at the end, in a scan. A scan_fn computes every element of its
// tuple: the scan_fn of the tuple's other positions later in the block
// take their registers.
#include <algorithm>
#include <map>

#include "gpu/layouts.h"
#include "gpu/scratch.h"
#include "target/nvptx/lowering.h"

namespace tritonc::nvptx {

using ir::Scalar;

std::vector<std::vector<std::string>> FunctionLowering::scanTuple(const ir::Instruction& scan,
                                                                  std::vector<std::vector<std::string>> value,
                                                                  const std::vector<Scalar>& kinds,
                                                                  const TupleCombine& combine) {
  const ir::Type& t = scan.type();
  const gpu::ScanPlan p = gpu::scanPlan(scan);
  if (scan.smem < 0 && p.perRow > 1)
    throw UserError(scan.loc, std::string("'") + ir::opcodeName(scan.opcode()) +
                                  "' hands totals between threads through shared memory: it needs its scratch "
                                  "there ({smem = OFFSET}, as gpu-allocate-shared places it)");
  const size_t axis = size_t(scan.imm);
  const size_t k = value.size();
  const std::string totals = p.perRow > 1 ? sharedAddress(scan.smem) : "";
  const Placement& sp = placement(t);
  const gpu::LinearLayout& ll = sp.ll;

  // The runs: registers grouped by their index with the position along the
  // axis rounded down to the run, in order along the axis. A register
  // holding a copy of another's element (a tile smaller than its layout)
  // takes that one's result.
  std::map<gpu::Index, std::vector<size_t>> byRun;
  std::map<gpu::Index, size_t> firstWith;
  std::vector<std::pair<size_t, size_t>> copies;  // (register, the one whose element it holds)
  for (size_t r = 0; r < ll.numRegs(); ++r) {
    gpu::Index idx = ll.regIndex(r);
    auto [it, fresh] = firstWith.emplace(idx, r);
    if (!fresh) {
      copies.push_back({r, it->second});
      continue;
    }
    idx[axis] &= ~(p.runLength - 1);
    byRun[idx].push_back(r);
  }
  auto pick = [&](size_t r) {
    std::vector<std::string> v(k);
    for (size_t j = 0; j < k; ++j) v[j] = value[j][r];
    return v;
  };
  auto put = [&](size_t r, const std::vector<std::string>& v) {
    for (size_t j = 0; j < k; ++j) value[j][r] = v[j];
  };
  // Each element of `sum` where `has`, else of `own`.
  auto choose = [&](const std::string& has, const std::vector<std::string>& sum, const std::vector<std::string>& own) {
    std::vector<std::string> out(k);
    for (size_t j = 0; j < k; ++j) {
      out[j] = newReg(regClassOf(kinds[j]));
      emit(std::string("selp.") + movType(regClassOf(kinds[j])) + " " + out[j] + ", " + sum[j] + ", " + own[j] +
           ", " + has + ";");
    }
    return out;
  };

  struct Run {
    std::vector<size_t> regs;  // along the axis
    std::string g, column;     // its total's slot (row * perRow + column), its place among the row's runs
  };
  std::vector<Run> runs;
  // Row-major strides of the other dimensions: a row's number.
  std::vector<int64_t> rowStride(t.shape.size(), 0);
  for (int64_t s = 1, d = int64_t(t.shape.size()) - 1; d >= 0; --d) {
    if (size_t(d) == axis) continue;
    rowStride[size_t(d)] = s;
    s *= t.shape[size_t(d)];
  }
  for (auto& [key, regs] : byRun) {
    Run run;
    run.regs = regs;
    std::sort(run.regs.begin(), run.regs.end(),
              [&](size_t a, size_t b) { return ll.regIndex(a)[axis] < ll.regIndex(b)[axis]; });
    // 1. The run scanned in its registers.
    std::vector<std::string> acc = pick(run.regs[0]);
    for (size_t j = 1; j < run.regs.size(); ++j) {
      acc = combine(acc, pick(run.regs[j]));
      put(run.regs[j], acc);
    }
    runs.push_back(run);
  }
  // Each run's slot, from where its first element is.
  for (Run& run : runs) {
    if (p.perRow == 1) break;
    const std::vector<std::string> at = indexRegs(t, run.regs[0]);
    run.column = newReg(RegClass::B32);
    emit("shr.u32 " + run.column + ", " + at[axis] + ", " + std::to_string(log2Of(p.runLength)) + ";");
    run.g = newReg(RegClass::B32);
    emit("mov.u32 " + run.g + ", " + run.column + ";");
    for (size_t d = 0; d < t.shape.size(); ++d)
      if (d != axis)
        emit("mad.lo.u32 " + run.g + ", " + at[d] + ", " + std::to_string(rowStride[d] * p.perRow) + ", " + run.g + ";");
  }
  auto slot = [&](const std::string& g, size_t j) {
    std::string a = newReg(RegClass::B32);
    emit("mad.lo.s32 " + a + ", " + g + ", " + std::to_string(ir::byteSize(kinds[j])) + ", " + totals + ";");
    if (p.sections[j]) emit("add.s32 " + a + ", " + a + ", " + std::to_string(p.sections[j]) + ";");
    return a;
  };
  auto loadTotals = [&](const std::string& g) {
    std::vector<std::string> v(k);
    for (size_t j = 0; j < k; ++j) v[j] = loadSharedVector(slot(g, j), kinds[j], 1)[0];
    return v;
  };
  auto storeTotals = [&](const std::string& g, const std::vector<std::string>& v) {
    for (size_t j = 0; j < k; ++j) storeSharedVector(slot(g, j), kinds[j], {v[j]}, sp.owner);
  };

  if (p.perRow > 1) {
    // 2. The runs' totals.
    for (const Run& run : runs) storeTotals(run.g, pick(run.regs.back()));
    barrier();
    // 3. Round d combines the total d runs back into each run's.
    for (int64_t d = 1; d < p.perRow; d *= 2) {
      std::vector<std::vector<std::string>> next;
      for (const Run& run : runs) {
        std::string has = newReg(RegClass::Pred), back = newReg(RegClass::B32);
        emit("setp.ge.u32 " + has + ", " + run.column + ", " + std::to_string(d) + ";");
        emit("sub.u32 " + back + ", " + run.g + ", " + std::to_string(d) + ";");
        emit("selp.b32 " + back + ", " + back + ", " + run.g + ", " + has + ";");
        std::vector<std::string> before = loadTotals(back), own = loadTotals(run.g);
        next.push_back(choose(has, combine(before, own), own));
      }
      barrier();
      for (size_t s = 0; s < runs.size(); ++s) storeTotals(runs[s].g, next[s]);
      barrier();
    }
    // 4. The total of the runs before it into each run but a row's first.
    for (const Run& run : runs) {
      std::string has = newReg(RegClass::Pred), back = newReg(RegClass::B32);
      emit("setp.ne.u32 " + has + ", " + run.column + ", 0;");
      emit("sub.u32 " + back + ", " + run.g + ", 1;");
      emit("selp.b32 " + back + ", " + back + ", " + run.g + ", " + has + ";");
      std::vector<std::string> before = loadTotals(back);
      for (size_t r : run.regs) put(r, choose(has, combine(before, pick(r)), pick(r)));
    }
  }
  for (auto [r, first] : copies) put(r, pick(first));
  return value;
}

void FunctionLowering::lowerScan(const ir::Instruction& scan) {
  const ir::Value* src = scan.operand(0);
  const Scalar k = scan.type().kind;
  if (k == Scalar::I1 || k == Scalar::Ptr) throw UserError(scan.loc, "scans of booleans or pointers are not supported");
  const auto kind = ir::ReduceKind(scan.sub);
  const Scalar ck = gpu::reduceCombineKind(k);
  const bool half = k == Scalar::F16 || k == Scalar::BF16;
  std::vector<std::string> value(placement(src->type()).ll.numRegs());
  for (size_t r = 0; r < value.size(); ++r) value[r] = half ? toF32(k, elem(src, r)) : elem(src, r);
  auto combine = [&](const std::vector<std::string>& acc, const std::vector<std::string>& x) {
    std::string next = newReg(regClassOf(ck));
    emit(std::string("mov.") + movType(regClassOf(ck)) + " " + next + ", " + acc[0] + ";");
    emitCombine(kind, ck, next, x[0]);
    return std::vector<std::string>{next};
  };
  value = scanTuple(scan, {value}, {ck}, combine)[0];
  // The result in the operand's layout, back in its kind.
  for (std::string& v : value) {
    if (half) v = fromF32(k, v);
    if (k == Scalar::I8) emit("cvt.s32.s8 " + v + ", " + v + ";");
    if (k == Scalar::I16) emit("cvt.s32.s16 " + v + ", " + v + ";");
  }
  define(&scan, value);
}

std::vector<std::string> FunctionLowering::applyCombiner(const ir::Function& f, const std::vector<std::string>& args) {
  for (size_t i = 0; i < args.size(); ++i) define(f.argument(i), {args[i]});
  for (const auto& inst : f.entry()->instructions()) {
    if (inst->opcode() != ir::Opcode::Ret) {
      lowerInstruction(*inst);
      continue;
    }
    std::vector<std::string> out;
    for (const ir::Value* v : inst->operands()) out.push_back(elem(v, 0));
    return out;
  }
  throw InternalError("combine function '" + f.name() + "' has no 'ret'");
}

void FunctionLowering::lowerScanFn(const ir::Instruction& scan) {
  const ir::Instruction* leader = ir::tupleLeader(scan);
  if (leader != &scan) {
    define(&scan, combineResults_.at(leader).at(scan.sub));
    return;
  }
  const ir::Function* f = ir::combinerOf(scan);
  if (!f) throw InternalError("scan_fn names no combine function '" + scan.text + "'");
  std::vector<std::vector<std::string>> value;
  std::vector<Scalar> kinds;
  const size_t n = placement(scan.type()).ll.numRegs();
  for (const ir::Value* v : scan.operands()) {
    kinds.push_back(v->type().kind);
    value.emplace_back();
    for (size_t r = 0; r < n; ++r) value.back().push_back(elem(v, r));
  }
  auto combine = [&](const std::vector<std::string>& acc, const std::vector<std::string>& x) {
    std::vector<std::string> args = acc;
    args.insert(args.end(), x.begin(), x.end());
    return applyCombiner(*f, args);
  };
  combineResults_[&scan] = scanTuple(scan, value, kinds, combine);
  define(&scan, combineResults_[&scan].at(scan.sub));
}

}  // namespace tritonc::nvptx
