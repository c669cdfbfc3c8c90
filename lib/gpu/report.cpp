#include "gpu/report.h"

#include <algorithm>
#include <map>
#include <set>

#include "analysis/axis_info.h"
#include "gpu/scratch.h"
#include "gpu/shared_memory.h"

namespace tritonc::gpu {

namespace {

using ir::Opcode;

// How a wgmma runs on: a dot_async of the pipeliner, whose sum returns to
// its loop's phi, is left in flight across iterations (its dot_wait 1
// right after it); one of gpu-defer-dot-waits is waited for where its
// result is first read.
std::string asyncText(const ir::Instruction& i) {
  if (i.opcode() != Opcode::DotAsync) return "";
  for (const ir::Instruction* w : i.users())
    if (w->opcode() == Opcode::DotWait && w->parent == i.parent &&
        w->parent->indexOf(w) == i.parent->indexOf(&i) + 1 && w->imm >= 1)
      for (const ir::Instruction* u : w->users())
        if (u->opcode() == Opcode::Phi) return ", asynchronous across iterations";
  return ", asynchronous until its result is read";
}

// A ring whose loop copies come after a dot_wait of their block (the one
// that retires the previous wgmma: gpu-pipeline's reused stage) refills the
// stage that wgmma read; one whose copies come after the loads of the stage
// into registers (mma.sync's, when asked) refills the stage this iteration
// read. `copy` is any copy into the ring.
std::string refillText(const ir::Instruction& copy) {
  const ir::Instruction* stage = copy.operand(0)->valueKind() == ir::ValueKind::Instruction
                                     ? static_cast<const ir::Instruction*>(copy.operand(0)) : nullptr;
  if (!stage || stage->opcode() != Opcode::MemIndex) return "";
  for (const ir::Instruction* s : stage->operand(0)->users())
    for (const ir::Instruction* c : s->users()) {
      if ((c->opcode() != Opcode::AsyncCopy && c->opcode() != Opcode::TmaCopy) || c->operand(0) != s) continue;
      const ir::BasicBlock* bb = c->parent;
      for (size_t k = bb->indexOf(c); k-- > 0;) {
        const ir::Instruction* p = bb->instructions()[k].get();
        if (p->opcode() == Opcode::AsyncCommit || p->opcode() == Opcode::AsyncWait) break;
        if (p->opcode() == Opcode::DotWait)
          return "; refills the stage the previous iteration's wgmma read, once that wgmma is retired";
        const ir::Instruction* from = p->opcode() == Opcode::LocalLoad && p->operand(0)->valueKind() ==
                                      ir::ValueKind::Instruction ? static_cast<const ir::Instruction*>(p->operand(0)) : nullptr;
        if (from && from->opcode() == Opcode::MemIndex)
          return "; refills the stage this iteration read, once every warp has loaded it";
      }
    }
  return "";
}

std::string shapeText(const ir::Shape& s) {
  std::string out;
  for (size_t k = 0; k < s.size(); ++k) out += (k ? "x" : "") + std::to_string(s[k]);
  return out;
}

const ir::Instruction* asInst(const ir::Value* v) {
  return v->valueKind() == ir::ValueKind::Instruction ? static_cast<const ir::Instruction*>(v) : nullptr;
}

std::string accessText(int vec, ir::Scalar k) {
  int64_t bytes = int64_t(std::max(vec, 1)) * ir::byteSize(k);
  return std::to_string(bytes) + " B (" + std::to_string(std::max(vec, 1)) + " x " + ir::scalarName(k) + ")";
}

// The integer parameters that an address is computed from and that do not
// promise the divisibility a 16-byte vector needs: where a user can add
// __multipleof (or what the launch saw instead).
std::vector<std::string> weakIntegers(const ir::Value* ptr, const analysis::AxisInfoAnalysis& ax, int64_t want) {
  std::vector<std::string> out;
  std::set<const ir::Value*> seen;
  std::vector<const ir::Value*> work{ptr};
  while (!work.empty() && seen.size() < 256) {
    const ir::Value* v = work.back();
    work.pop_back();
    if (!seen.insert(v).second) continue;
    if (v->valueKind() == ir::ValueKind::Argument) {
      if (v->type().isInt() && ax.get(v).divisibility[0] < want) out.push_back(v->name());
      continue;
    }
    const ir::Instruction* i = asInst(v);
    if (!i) continue;
    switch (i->opcode()) {
      case Opcode::Gep: case Opcode::Add: case Opcode::Sub: case Opcode::Mul: case Opcode::Splat:
      case Opcode::Broadcast: case Opcode::Reshape: case Opcode::ConvertLayout: case Opcode::Phi:
      case Opcode::Cast: case Opcode::Trans: case Opcode::ExtractSlice:
        for (const ir::Value* op : i->operands()) work.push_back(op);
        break;
      default:
        break;
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

KernelFacts describeGpuFunction(const ir::Function& f) {
  KernelFacts kf;
  kf.kernel = f.name();
  kf.target = f.parent()->target;
  kf.numWarps = f.parent()->numWarps;
  kf.producerWarps = f.producerWarps;
  kf.sharedBytes = std::max<int64_t>(0, f.sharedBytes);
  analysis::AxisInfoAnalysis ax(f);
  // One fact per (position, kind): the copies of a pre-fetched load (the
  // first stages before the loop, the one in it) are one source load.
  // (Facts of other widths at one place stay apart.)
  std::map<std::tuple<uint32_t, uint32_t, std::string, int>, LineFact> byPlace;
  auto add = [&](const ir::Instruction& i, LineFact fact) {
    fact.line = i.loc.line;
    fact.col = i.loc.col;
    byPlace.emplace(std::make_tuple(fact.line, fact.col, fact.kind, fact.vec), fact);
  };
  for (auto& bb : f.blocks())
    for (auto& owned : bb->instructions()) {
      const ir::Instruction& i = *owned;
      const ir::Type& t = i.type();
      switch (i.opcode()) {
        case Opcode::Load: {
          if (!t.isTile()) break;
          LineFact fact;
          fact.kind = "load";
          fact.vec = std::max(i.vec, 1);
          fact.accessBytes = int64_t(fact.vec) * ir::byteSize(t.kind);
          fact.tile = shapeText(t.shape);
          fact.instruction = "ld.global";
          fact.text = "load " + fact.tile + " " + ir::scalarName(t.kind) + ": " + accessText(i.vec, t.kind) +
                      " per access" + (i.numOperands() > 1 ? ", masked" : "");
          // Staged for a dot through registers: read by a local_alloc, maybe
          // through the phis that carry pre-fetched tiles.
          bool staged = false;
          std::vector<const ir::Instruction*> readers(i.users().begin(), i.users().end());
          for (size_t r = 0; r < readers.size() && r < 64; ++r) {
            staged = staged || readers[r]->opcode() == Opcode::LocalAlloc;
            if (readers[r]->opcode() == Opcode::Phi)
              for (const ir::Instruction* u : readers[r]->users()) readers.push_back(u);
          }
          if (staged) fact.text += "; staged in shared memory through registers (not asynchronous)";
          const int64_t aligned = ax.vectorWidth(i.operand(0), 16);
          if (aligned > fact.vec)  // gpu-assign-layouts' choice, not the alignment's
            fact.text += "; " + std::to_string(aligned * ir::byteSize(t.kind)) +
                         " B would do, narrowed to the wider stores of its values";
          else if (fact.accessBytes < 16 && ir::byteSize(t.kind) < 16) {
            analysis::AxisInfo a = ax.get(i.operand(0));
            int64_t contiguous = *std::max_element(a.contiguity.begin(), a.contiguity.end());
            int64_t want = 16 / ir::byteSize(t.kind);
            if (contiguous > fact.vec) {
              std::vector<std::string> weak = weakIntegers(i.operand(0), ax, want);
              std::string w = "load at line " + std::to_string(i.loc.line) + " moves " + std::to_string(fact.accessBytes) +
                              " B per access though " + std::to_string(contiguous) +
                              " elements are contiguous: the alignment of its rows is not known to be 16 bytes";
              if (!weak.empty()) {
                w += " (its address uses";
                for (size_t k = 0; k < weak.size(); ++k) w += (k ? ", `" : " `") + weak[k] + "`";
                w += ", not known to be multiples of " + std::to_string(want) + "): add __multipleof(" +
                     std::to_string(want) + ") where that holds, or pad the rows";
              }
              if (std::find(kf.warnings.begin(), kf.warnings.end(), w) == kf.warnings.end()) kf.warnings.push_back(w);
            }
          }
          add(i, fact);
          break;
        }
        case Opcode::AsyncCopy: {
          const ir::Type& dst = i.operand(0)->type();
          const ir::Instruction* stage = asInst(i.operand(0));
          const ir::Instruction* ring = stage && stage->opcode() == Opcode::MemIndex ? asInst(stage->operand(0)) : nullptr;
          LineFact fact;
          fact.kind = "copy";
          fact.instruction = "cp.async";
          fact.vec = std::max(i.vec, 1);
          fact.accessBytes = int64_t(fact.vec) * ir::byteSize(dst.kind);
          fact.tile = shapeText(dst.shape);
          fact.stages = ring ? int(ring->type().shape[0]) : 1;
          fact.text = "cp.async " + fact.tile + " " + ir::scalarName(dst.kind) + ": " + accessText(i.vec, dst.kind) +
                      " per copy into a " + std::to_string(fact.stages) + "-stage ring in shared memory" +
                      (i.numOperands() > 2 ? ", zero-filled where masked" : "") + refillText(i);
          add(i, fact);
          break;
        }
        case Opcode::TmaCopy: {
          const ir::Type& dst = i.operand(0)->type();
          const ir::Instruction* ring = asInst(i.operand(1));
          const ir::Type* ringType = ring ? &ring->type() : nullptr;
          auto extent = [](const ir::Value* v) {
            return v->valueKind() == ir::ValueKind::Constant ? std::to_string(static_cast<const ir::Constant*>(v)->i)
                                                              : "`" + v->name() + "`";
          };
          LineFact fact;
          fact.kind = "copy";
          fact.instruction = "cp.async.bulk.tensor";
          fact.vec = 1;
          fact.accessBytes = sharedStageBytes(dst);
          fact.tile = shapeText(dst.shape);
          fact.stages = ringType ? int(ringType->shape[0]) : 1;
          fact.text = "TMA " + fact.tile + " " + ir::scalarName(dst.kind) + " box into a " +
                      std::to_string(fact.stages) + "-stage ring in shared memory, zero-filled outside " +
                      extent(i.operand(5)) + " rows x " + extent(i.operand(6)) + " columns";
          if (i.imm)  // gpu-multicast
            fact.text += std::string("; multicast: programs launched in pairs along ") + (i.sub ? "y" : "x") +
                         " each copy half into both";
          if (i.role == ir::Role::Producer)  // gpu-warp-specialize
            fact.text += "; issued by a producer warp added to the program's, which waits for the stage to be freed";
          else
            fact.text += refillText(i);
          add(i, fact);
          break;
        }
        case Opcode::Store: case Opcode::AtomicRmw: {
          const ir::Type& vt = i.operand(1)->type();
          if (!vt.isTile()) break;
          LineFact fact;
          fact.kind = i.opcode() == Opcode::Store ? "store" : "atomic";
          // (acquire and acq_rel atomics return a value, used or not: one element each)
          const bool red = ir::isReduction(i);
          const int vec = i.opcode() == Opcode::Store || red ? i.vec : 1;
          fact.vec = std::max(vec, 1);
          fact.accessBytes = int64_t(fact.vec) * ir::byteSize(vt.kind);
          fact.tile = shapeText(vt.shape);
          fact.instruction = i.opcode() == Opcode::Store ? "st.global" : red ? "red.global" : "atom.global";
          fact.text = (i.opcode() == Opcode::Store ? "store " : fact.instruction + " ") + fact.tile + " " +
                      ir::scalarName(vt.kind) + ": " + accessText(vec, vt.kind) + " per access";
          if (i.opcode() != Opcode::Store && i.imm)
            fact.text += std::string(" (") + ir::memSemName(ir::MemSem(i.imm & 3)) + ", " +
                         ir::memScopeName(ir::MemScope(i.imm >> 2)) + " scope)";
          add(i, fact);
          break;
        }
        case Opcode::Dot: case Opcode::DotAsync: {
          const ir::Layout* l = t.layout;
          LineFact fact;
          fact.kind = "dot";
          int64_t K = i.operand(0)->type().shape.back();
          fact.tile = std::to_string(t.shape[0]) + "x" + std::to_string(t.shape[1]) + "x" + std::to_string(K);
          const char* in = ir::scalarName(i.operand(0)->type().kind);
          if (l && l->kind == ir::LayoutKind::Mma && l->version == 3) {
            // (transposed: wgmma's N is the tile's M)
            int64_t n = t.shape[l->transposed ? 0 : 1] / l->warpsPerCta[1];
            fact.instruction = "wgmma";
            // k steps of 32 bytes: 16 f16/bf16, 32 fp8, 8 f32 (as tf32) elements.
            ir::Scalar ak = i.operand(0)->type().kind;
            // (registers a phi carries from a load of the next stage: loaded
            // one iteration ahead, gpu-pipeline under TRITONC_REGISTER_PREFETCH)
            auto from = [&](size_t k) -> std::string {
              const ir::Value* v = i.operand(k);
              if (v->type().isShared()) return "shared memory";
              const ir::Instruction* p = asInst(v);
              if (p && p->opcode() == Opcode::Phi)
                for (const ir::Value* in : p->operands())
                  if (asInst(in) && asInst(in)->opcode() == Opcode::LocalLoad)
                    return "registers, loaded one iteration ahead";
              return "registers";
            };
            fact.text = "wgmma m64n" + std::to_string(n) + "k" + std::to_string(32 / ir::byteSize(ak)) + " (" + in +
                        (ak == ir::Scalar::F32 ? " as tf32" : "") + "), tile " + fact.tile + asyncText(i) +
                        (l->transposed ? "; computed as C^T = B^T A^T" : "") + "; A from " + from(0) + ", B from " +
                        from(1);
          } else if (l && l->kind == ir::LayoutKind::Mma) {
            fact.instruction = "mma.sync";
            const ir::Scalar ak = i.operand(0)->type().kind;
            fact.text = std::string("mma.sync m16n8k") +
                        (ak == ir::Scalar::F32 ? "8 (tf32)" : ak == ir::Scalar::I8 ? "32" : "16") + " (" + in +
                        "), tile " + fact.tile;
          } else {
            fact.instruction = "fma";
            fact.text = std::string("FMA on the cores (") + in + "), tile " + fact.tile;
          }
          add(i, fact);
          break;
        }
        case Opcode::Reduce:
          if (i.smem >= 0) {
            LineFact fact;
            fact.kind = "reduce";
            fact.instruction = "shared";
            fact.text = "reduction across warps through shared memory";
            add(i, fact);
          }
          break;
        case Opcode::ConvertLayout: case Opcode::Trans: case Opcode::Reshape: case Opcode::Broadcast:
        case Opcode::ExtractSlice:
          if (i.smem >= 0 && t.isTile() && !t.isShared()) {
            LineFact fact;
            fact.kind = "convert";
            fact.instruction = "shared";
            fact.tile = shapeText(t.shape);
            fact.text = std::string(i.opcode() == Opcode::ConvertLayout ? "layout conversion" : ir::opcodeName(i.opcode())) +
                        " of " + fact.tile + " " + ir::scalarName(t.kind) + " through shared memory";
            add(i, fact);
          }
          break;
        case Opcode::Scan: case Opcode::ScanFn:
          if (i.smem >= 0) {
            const ScanPlan p = scanPlan(i);
            LineFact fact;
            fact.kind = "reduce";
            fact.instruction = "shared";
            fact.tile = shapeText(t.shape);
            const std::string what = i.opcode() == Opcode::Scan
                                         ? std::string(ir::scalarName(t.kind))
                                         : "tuple of " + std::to_string(i.numOperands()) + " under @" + i.text;
            fact.text = "scan of " + fact.tile + " " + what + ": runs of " +
                        std::to_string(p.runLength) + " in registers, their " + std::to_string(p.perRow) +
                        " totals per row scanned through shared memory (" + std::to_string(p.bytes) + " bytes)";
            add(i, fact);
          }
          break;
        case Opcode::Sort: case Opcode::ArgSort:
          if (i.smem >= 0) {
            const SortPlan p = sortPlan(i);
            const ir::Type& from = i.operand(0)->type();
            LineFact fact;
            fact.kind = "convert";
            fact.instruction = "shared";
            fact.tile = shapeText(t.shape);
            fact.text = std::string(ir::opcodeName(i.opcode())) + " of " + shapeText(from.shape) + " " +
                        ir::scalarName(from.kind) + " (" + ir::scalarName(p.key) + " keys" +
                        (p.keep < p.n ? ", the first " + std::to_string(p.keep) + " kept" : std::string()) +
                        "): chunks of " + std::to_string(p.chunk) +
                        (p.partial ? (p.chunk > p.keep ? " cut to their first " + std::to_string(p.keep) : std::string(" sorted")) +
                                         " in registers, the lists of " + std::to_string(p.perRow) +
                                         " threads per row halved pairwise"
                                   : " sorted in registers, merged across " + std::to_string(p.perRow) +
                                         " threads per row") +
                        " (keys through shared memory, " + std::to_string(p.bytes) + " bytes)";
            add(i, fact);
          }
          break;
        case Opcode::Gather:
          if (i.smem >= 0) {
            const ir::Type& from = i.operand(0)->type();
            LineFact fact;
            fact.kind = "convert";
            fact.instruction = "shared";
            fact.tile = shapeText(t.shape);
            fact.text = "gather from " + shapeText(from.shape) + " " + ir::scalarName(from.kind) +
                        " staged in shared memory (" + std::to_string(from.numElements() * ir::byteSize(from.kind)) +
                        " bytes)";
            add(i, fact);
          }
          break;
        case Opcode::ProgramId:
          // gpu-program-order's launch index (the user's program_id line).
          if (f.groupedPrograms && i.imm == 0) {
            LineFact fact;
            fact.kind = "program";
            fact.text = "programs in groups of " + std::to_string(f.groupedPrograms) +
                        " rows of tiles along x, sweeping y, where x has more (grouped launch order: the programs "
                        "running at once share their operands in L2)";
            add(i, fact);
          }
          break;
        default:
          break;
      }
    }
  for (auto& [place, fact] : byPlace) kf.facts.push_back(fact);
  if (kf.target.rfind("sm_90", 0) == 0)
    for (const LineFact& fact : kf.facts)
      if (fact.kind == "dot" && fact.instruction == "fma")
        kf.warnings.push_back("dot at line " + std::to_string(fact.line) +
                              " runs on the cores (FMA): f32 operands reach the tensor cores with tf32 (allow_tf32), "
                              "f16/bf16 with M a multiple of 64 per warpgroup");
  return kf;
}

}  // namespace tritonc::gpu
