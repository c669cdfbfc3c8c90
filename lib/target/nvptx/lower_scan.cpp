// PTX lowering of scans (inclusive prefixes along an axis: tl.cumsum),
// through the instruction's scratch as gpu::scanPlan lays it out:
//   1. every element stored once at its row-major place, in the combine
//      kind (f32 for f16/bf16, 32 bits for narrow integers);
//   2. each thread scans its runs of `segment` consecutive elements along
//      the axis in place, sequentially, and stores each run's total;
//   3. the totals of each row are scanned (Hillis and Steele: log2 of the
//      runs per row rounds, each read, barrier, write, barrier);
//   4. each run but a row's first combines the total before it into its
//      elements;
//   5. each thread reads the elements it holds in the result's layout.
// Threads past the last run go through the same instructions, predicated
// off where they would touch another thread's run (no divergence around
// the barriers). The order of the additions
// differs from the interpreter's sequential one (as reductions'); f16/bf16
// round once, at the end.
#include "gpu/scratch.h"
#include "target/nvptx/lowering.h"

namespace tritonc::nvptx {

using ir::Scalar;

namespace {

int64_t log2Of(int64_t v) {
  int64_t r = 0;
  while ((int64_t(1) << r) < v) ++r;
  return r;
}

}  // namespace

void FunctionLowering::lowerScan(const ir::Instruction& scan) {
  const ir::Value* src = scan.operand(0);
  const ir::Type& t = scan.type();
  const Scalar k = t.kind;
  if (k == Scalar::I1 || k == Scalar::Ptr) throw UserError(scan.loc, "scans of booleans or pointers are not supported");
  const gpu::ScanPlan p = gpu::scanPlan(scan);
  if (scan.smem < 0)
    throw UserError(scan.loc, "'scan' runs through shared memory: it needs its scratch there ({smem = OFFSET}, as "
                              "gpu-allocate-shared places it)");
  const auto kind = ir::ReduceKind(scan.sub);
  const Scalar ck = p.kind;
  const bool half = k == Scalar::F16 || k == Scalar::BF16;
  const int64_t esize = ir::byteSize(ck);
  const std::string esz = std::to_string(esize);
  const std::string base = sharedAddress(scan.smem);
  const std::string totals = sharedAddress(scan.smem + p.tileBytes);
  const char* selType = ck == Scalar::F32 ? "f32" : ck == Scalar::F64 ? "f64" : ir::bitWidth(ck) == 64 ? "b64" : "b32";
  auto addressOf = [&](const std::string& b, const std::string& index) {
    std::string a = newReg(RegClass::B32);
    emit("mad.lo.s32 " + a + ", " + index + ", " + esz + ", " + b + ";");
    return a;
  };
  auto rowMajor = [&](const std::vector<std::string>& idx) {
    std::string lin = newReg(RegClass::B32);
    emit("mov.s32 " + lin + ", 0;");
    for (size_t d = 0; d < t.shape.size(); ++d)
      emit("mad.lo.s32 " + lin + ", " + lin + ", " + std::to_string(t.shape[d]) + ", " + idx[d] + ";");
    return lin;
  };

  // 1. The tile, row-major, in the combine kind (one copy of each element).
  const Placement& sp = placement(src->type());
  for (size_t r = 0; r < sp.ll.numRegs(); ++r) {
    std::string v = elem(src, r);
    if (half) v = toF32(k, v);
    storeSharedVector(addressOf(base, rowMajor(indexRegs(src->type(), r))), ck, {v}, sp.owner);
  }
  barrier();

  // This thread's runs: g = thread + s * threads (clamped to the last run;
  // `valid` says whether it is one of its own).
  const int64_t perRow = p.n / p.segment;
  const int64_t rounds = (p.segments + p.threads - 1) / p.threads;
  std::string thread = newReg(RegClass::B32);
  emit("mad.lo.u32 " + thread + ", " + warpId() + ", 32, " + laneId() + ";");
  struct Run {
    std::string g, valid, column, first;  // run index, owned, index along the row's runs, first element's address
  };
  std::vector<Run> runs;
  for (int64_t s = 0; s < rounds; ++s) {
    Run run;
    std::string g = newReg(RegClass::B32);
    emit("add.u32 " + g + ", " + thread + ", " + std::to_string(s * p.threads) + ";");
    run.valid = newReg(RegClass::Pred);
    emit("setp.lt.u32 " + run.valid + ", " + g + ", " + std::to_string(p.segments) + ";");
    run.g = newReg(RegClass::B32);
    emit("min.u32 " + run.g + ", " + g + ", " + std::to_string(p.segments - 1) + ";");
    // Row r = g / perRow (o = r / inner, q = r % inner), run c = g % perRow;
    // its first element: (o * n + c * segment) * inner + q.
    std::string row = newReg(RegClass::B32), o = newReg(RegClass::B32), q = newReg(RegClass::B32),
                at = newReg(RegClass::B32);
    run.column = newReg(RegClass::B32);
    emit("shr.u32 " + row + ", " + run.g + ", " + std::to_string(log2Of(perRow)) + ";");
    emit("and.b32 " + run.column + ", " + run.g + ", " + std::to_string(perRow - 1) + ";");
    emit("shr.u32 " + o + ", " + row + ", " + std::to_string(log2Of(p.inner)) + ";");
    emit("and.b32 " + q + ", " + row + ", " + std::to_string(p.inner - 1) + ";");
    emit("mul.lo.u32 " + at + ", " + o + ", " + std::to_string(p.n) + ";");
    emit("mad.lo.u32 " + at + ", " + run.column + ", " + std::to_string(p.segment) + ", " + at + ";");
    emit("mad.lo.u32 " + at + ", " + at + ", " + std::to_string(p.inner) + ", " + q + ";");
    run.first = addressOf(base, at);
    runs.push_back(run);
  }
  auto element = [&](const Run& run, int64_t j) {  // the run's element j (an address operand)
    return j == 0 ? run.first : run.first + "+" + std::to_string(j * p.inner * esize);
  };
  // A load only where the run is this thread's (another thread writes it).
  auto loadIf = [&](const std::string& addr, const std::string& pred) {
    std::string r = newReg(regClassOf(ck));
    emit("@" + pred + " ld.shared." + memoryType(ck) + " " + r + ", [" + addr + "];");
    return r;
  };

  // 2. Each run scanned in place; its total after the tile.
  for (const Run& run : runs) {
    std::string acc = loadIf(element(run, 0), run.valid);
    for (int64_t j = 1; j < p.segment; ++j) {
      std::string x = loadIf(element(run, j), run.valid);
      emitCombine(kind, ck, acc, x);
      storeSharedVector(element(run, j), ck, {acc}, run.valid);
    }
    storeSharedVector(addressOf(totals, run.g), ck, {acc}, run.valid);
  }
  barrier();

  // 3. The totals of each row scanned: round d combines the total d runs back.
  for (int64_t d = 1; d < perRow; d *= 2) {
    std::vector<std::string> next;
    for (const Run& run : runs) {
      std::string has = newReg(RegClass::Pred), back = newReg(RegClass::B32);
      emit("setp.ge.u32 " + has + ", " + run.column + ", " + std::to_string(d) + ";");
      emit("sub.u32 " + back + ", " + run.g + ", " + std::to_string(d) + ";");
      emit("selp.b32 " + back + ", " + back + ", " + run.g + ", " + has + ";");
      std::string v = loadSharedVector(addressOf(totals, run.g), ck, 1)[0];
      std::string before = loadSharedVector(addressOf(totals, back), ck, 1)[0];
      std::string sum = newReg(regClassOf(ck));
      emit(std::string("mov.") + selType + " " + sum + ", " + before + ";");
      emitCombine(kind, ck, sum, v);
      std::string out = newReg(regClassOf(ck));
      emit(std::string("selp.") + selType + " " + out + ", " + sum + ", " + v + ", " + has + ";");
      next.push_back(out);
    }
    barrier();
    for (size_t s = 0; s < runs.size(); ++s)
      storeSharedVector(addressOf(totals, runs[s].g), ck, {next[s]}, runs[s].valid);
    barrier();
  }

  // 4. The total of the runs before it into each run but a row's first.
  if (perRow > 1) {
    for (const Run& run : runs) {
      std::string has = newReg(RegClass::Pred), store = newReg(RegClass::Pred), back = newReg(RegClass::B32);
      emit("setp.ne.u32 " + has + ", " + run.column + ", 0;");
      emit("and.pred " + store + ", " + has + ", " + run.valid + ";");
      emit("sub.u32 " + back + ", " + run.g + ", 1;");
      emit("selp.b32 " + back + ", " + back + ", " + run.g + ", " + has + ";");
      std::string before = loadSharedVector(addressOf(totals, back), ck, 1)[0];
      for (int64_t j = 0; j < p.segment; ++j) {
        std::string x = loadIf(element(run, j), store);
        std::string sum = newReg(regClassOf(ck));
        emit(std::string("mov.") + selType + " " + sum + ", " + before + ";");
        emitCombine(kind, ck, sum, x);
        storeSharedVector(element(run, j), ck, {sum}, store);
      }
    }
    barrier();
  }

  // 5. The result in the operand's layout, back in its kind.
  std::vector<std::string> out;
  for (size_t r = 0; r < numRegs(t); ++r) {
    std::string v = loadSharedVector(addressOf(base, rowMajor(indexRegs(t, r))), ck, 1)[0];
    if (half) v = fromF32(k, v);
    if (k == Scalar::I8) emit("cvt.s32.s8 " + v + ", " + v + ";");
    if (k == Scalar::I16) emit("cvt.s32.s16 " + v + ", " + v + ";");
    out.push_back(v);
  }
  define(&scan, out);
}

}  // namespace tritonc::nvptx
