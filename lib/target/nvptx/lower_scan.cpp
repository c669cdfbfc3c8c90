// PTX lowering of scans (inclusive prefixes along an axis: tl.cumsum), as
// gpu::scanPlan lays them out:
//   1. in registers: each thread scans its runs of consecutive elements
//      along the axis (in the combine kind: f32 for f16/bf16, 32 bits for
//      narrow integers);
//   2. each run's total goes to the scratch at (row, run along the row),
//      stored by the run's first owner (replicated threads hold copies);
//   3. the totals of each row are scanned there (Hillis and Steele: log2
//      of the runs per row rounds, each read, barrier, write, barrier),
//      each run's total updated by the threads that hold it;
//   4. each run but a row's first combines the total of the runs before it
//      into its registers.
// The result has the operand's layout; nothing but the totals moves. The
// order of the additions differs from the interpreter's sequential one (as
// reductions'); f16/bf16 round once, at the end.
#include <algorithm>
#include <map>

#include "gpu/layouts.h"
#include "gpu/scratch.h"
#include "target/nvptx/lowering.h"

namespace tritonc::nvptx {

using ir::Scalar;

void FunctionLowering::lowerScan(const ir::Instruction& scan) {
  const ir::Value* src = scan.operand(0);
  const ir::Type& t = scan.type();
  const Scalar k = t.kind;
  if (k == Scalar::I1 || k == Scalar::Ptr) throw UserError(scan.loc, "scans of booleans or pointers are not supported");
  const gpu::ScanPlan p = gpu::scanPlan(scan);
  if (scan.smem < 0 && p.perRow > 1)
    throw UserError(scan.loc, "'scan' hands totals between threads through shared memory: it needs its scratch "
                              "there ({smem = OFFSET}, as gpu-allocate-shared places it)");
  const auto kind = ir::ReduceKind(scan.sub);
  const Scalar ck = p.kind;
  const bool half = k == Scalar::F16 || k == Scalar::BF16;
  const size_t axis = size_t(scan.imm);
  const std::string esz = std::to_string(ir::byteSize(ck));
  const std::string totals = p.perRow > 1 ? sharedAddress(scan.smem) : "";
  const char* word = ck == Scalar::F32 ? "f32" : ck == Scalar::F64 ? "f64" : ir::bitWidth(ck) == 64 ? "b64" : "b32";
  const Placement& sp = placement(src->type());
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
  std::vector<std::string> value(ll.numRegs());
  for (size_t r = 0; r < ll.numRegs(); ++r) value[r] = half ? toF32(k, elem(src, r)) : elem(src, r);
  auto copyOf = [&](const std::string& x) {
    std::string c = newReg(regClassOf(ck));
    emit(std::string("mov.") + word + " " + c + ", " + x + ";");
    return c;
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
    std::string acc = value[run.regs[0]];
    for (size_t j = 1; j < run.regs.size(); ++j) {
      std::string next = copyOf(acc);
      emitCombine(kind, ck, next, value[run.regs[j]]);
      value[run.regs[j]] = acc = next;
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
  auto slot = [&](const std::string& g) {
    std::string a = newReg(RegClass::B32);
    emit("mad.lo.s32 " + a + ", " + g + ", " + esz + ", " + totals + ";");
    return a;
  };

  if (p.perRow > 1) {
    // 2. The runs' totals.
    for (const Run& run : runs) storeSharedVector(slot(run.g), ck, {value[run.regs.back()]}, sp.owner);
    barrier();
    // 3. Round d combines the total d runs back into each run's.
    for (int64_t d = 1; d < p.perRow; d *= 2) {
      std::vector<std::string> next;
      for (const Run& run : runs) {
        std::string has = newReg(RegClass::Pred), back = newReg(RegClass::B32);
        emit("setp.ge.u32 " + has + ", " + run.column + ", " + std::to_string(d) + ";");
        emit("sub.u32 " + back + ", " + run.g + ", " + std::to_string(d) + ";");
        emit("selp.b32 " + back + ", " + back + ", " + run.g + ", " + has + ";");
        std::string sum = copyOf(loadSharedVector(slot(back), ck, 1)[0]);
        std::string own = loadSharedVector(slot(run.g), ck, 1)[0];
        emitCombine(kind, ck, sum, own);
        std::string out = newReg(regClassOf(ck));
        emit(std::string("selp.") + word + " " + out + ", " + sum + ", " + own + ", " + has + ";");
        next.push_back(out);
      }
      barrier();
      for (size_t s = 0; s < runs.size(); ++s) storeSharedVector(slot(runs[s].g), ck, {next[s]}, sp.owner);
      barrier();
    }
    // 4. The total of the runs before it into each run but a row's first.
    for (const Run& run : runs) {
      std::string has = newReg(RegClass::Pred), back = newReg(RegClass::B32);
      emit("setp.ne.u32 " + has + ", " + run.column + ", 0;");
      emit("sub.u32 " + back + ", " + run.g + ", 1;");
      emit("selp.b32 " + back + ", " + back + ", " + run.g + ", " + has + ";");
      std::string before = loadSharedVector(slot(back), ck, 1)[0];
      for (size_t r : run.regs) {
        std::string sum = copyOf(before);
        emitCombine(kind, ck, sum, value[r]);
        std::string out = newReg(regClassOf(ck));
        emit(std::string("selp.") + word + " " + out + ", " + sum + ", " + value[r] + ", " + has + ";");
        value[r] = out;
      }
    }
  }

  // The result in the operand's layout, back in its kind.
  for (auto [r, first] : copies) value[r] = value[first];
  for (std::string& v : value) {
    if (half) v = fromF32(k, v);
    if (k == Scalar::I8) emit("cvt.s32.s8 " + v + ", " + v + ";");
    if (k == Scalar::I16) emit("cvt.s32.s16 " + v + ", " + v + ";");
  }
  define(&scan, value);
}

}  // namespace tritonc::nvptx
