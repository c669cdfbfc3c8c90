#include "ir/printer.h"

#include <algorithm>

#include "ir/memory_hints.h"
#include "ir/op_rules.h"
#include "ir/print_names.h"

namespace tritonc::ir {

namespace {

// Sub-kind names, guarded so that a malformed instruction still prints.
std::string subKindName(const Instruction& inst) {
  switch (inst.opcode()) {
    case Opcode::Cmp: return inst.sub < kNumCmpPreds ? cmpPredName(CmpPred(inst.sub)) : "?";
    case Opcode::Reduce: case Opcode::Scan:
      return inst.sub < kNumReduceKinds ? reduceKindName(ReduceKind(inst.sub)) : "?";
    case Opcode::Sort: case Opcode::ArgSort: return inst.sub < kNumSortOrders ? sortOrderName(SortOrder(inst.sub)) : "?";
    case Opcode::AtomicRmw: return inst.sub < kNumAtomicKinds ? atomicKindName(AtomicKind(inst.sub)) : "?";
    case Opcode::MaxContiguous: case Opcode::ExtractSlice: case Opcode::Gather:
      return std::to_string(inst.sub);  // the axis
    case Opcode::ScanFn: case Opcode::ReduceFn: return "@" + sanitizeName(inst.text) + " " + std::to_string(inst.sub);  // function, result
    default: return "";
  }
}

std::string printLoc(SourceLoc loc) {
  return "loc(" + std::to_string(loc.line) + ":" + std::to_string(loc.col) + ")";
}

std::string quote(const std::string& s) {
  static const char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u == 0x7f) {
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string printParamAttrs(const ParamAttrs& a) {
  std::string out;
  if (a.multipleOf) out += " multipleof(" + std::to_string(a.multipleOf) + ")";
  if (a.nonNegative) out += " nonneg";
  if (a.one) out += " one";
  if (a.aligned) out += " aligned(" + std::to_string(a.aligned) + ")";
  if (a.readonly) out += " readonly";
  if (a.noalias) out += " noalias";
  if (a.constantTable) out += " constant(" + std::to_string(a.constantTable) + ")";
  return out;
}

std::string printFunctionWith(const Function& f, const NameTable& names, PrintOptions opts) {
  std::string name = sanitizeName(f.name());
  std::string out = (f.isCombiner() ? "combine @" : "kernel @") + (name.empty() ? "_" : name) + "(";
  for (auto& arg : f.arguments()) {
    if (arg->index() != 0) out += ", ";
    out += names.value(arg.get()) + ": " + names.type(arg->type()) + printParamAttrs(arg->attrs);
  }
  out += ")";
  if (f.sharedBytes >= 0) out += " shared(" + std::to_string(f.sharedBytes) + ")";
  if (f.producerWarps) out += " producer_warps(" + std::to_string(f.producerWarps) + ")";
  if (f.groupedPrograms) out += " grouped_programs(" + std::to_string(f.groupedPrograms) + ")";
  if (opts.locations && f.loc.known()) out += " " + printLoc(f.loc);
  out += " {\n";
  bool first = true;
  for (auto& bb : f.blocks()) {
    if (!first) out += "\n";  // a blank line between blocks
    first = false;
    out += names.block(bb.get()) + ":\n";
    for (auto& inst : bb->instructions())
      out += "  " + printInstructionWith(*inst, names, opts.locations) + "\n";
  }
  return out + "}\n";
}

}  // namespace

std::string printInstructionWith(const Instruction& inst, const NameTable& names,
                                 bool withLocation) {
  Opcode op = inst.opcode();
  std::string out;
  if (printsResult(inst)) out += names.value(&inst) + " = ";
  out += opcodeName(op);
  std::string sub = subKindName(inst);
  if (!sub.empty()) out += " " + sub;
  if (hasImmediate(op)) out += " " + std::to_string(inst.imm);
  if (op == Opcode::Trans && inst.imm != 0) {
    // The permutation's entries (packed in imm with their count).
    size_t rank = std::min<size_t>(size_t((inst.imm >> 32) & 15), 8);
    out += " [";
    for (size_t d = 0; d < rank; ++d) out += (d ? ", " : "") + std::to_string((inst.imm >> (4 * d)) & 15);
    out += "]";
  }

  std::string operands;
  auto add = [&](const std::string& item) { operands += (operands.empty() ? "" : ", ") + item; };
  if (op == Opcode::Print) {
    // `print [hex] "PREFIX"[, %v, ...]`: the comma says that values follow.
    if (inst.sub == kPrintHex) out += " hex";
    out += " " + quote(inst.text);
    for (Value* v : inst.operands()) out += ", " + names.value(v);
  } else if (op == Opcode::InlineAsm) {
    // `inline_asm [pure] "ASSEMBLY"[, %v, ...]`
    if (inst.sub == kInlineAsmPure) out += " pure";
    out += " " + quote(inst.text);
    for (Value* v : inst.operands()) out += ", " + names.value(v);
  } else if (op == Opcode::Assert) {
    // `assert %cond, "MESSAGE"`
    for (Value* v : inst.operands()) add(names.value(v));
    add(quote(inst.text));
  } else if (op == Opcode::Phi) {
    // [value, label] pairs; a missing half (malformed phi) prints as '?'.
    size_t n = std::max(inst.numOperands(), inst.blocks.size());
    for (size_t i = 0; i < n; ++i) {
      std::string v = i < inst.numOperands() ? names.value(inst.operand(i)) : "?";
      std::string b = i < inst.blocks.size() ? names.block(inst.blocks[i]) : "?";
      add("[" + v + ", " + b + "]");
    }
  } else {
    for (Value* v : inst.operands()) add(names.value(v));
    for (BasicBlock* bb : inst.blocks) add(names.block(bb));
  }
  if (!operands.empty()) out += " " + operands;

  if (printsResult(inst)) out += " : " + names.type(inst.type());
  std::string attrs;
  if (inst.vec) attrs += "vec = " + std::to_string(inst.vec);
  if (inst.smem >= 0) attrs += (attrs.empty() ? "" : ", ") + std::string("smem = ") + std::to_string(inst.smem);
  if (inst.opcode() == Opcode::Splat && inst.sub == kSplatIterationGuard)
    attrs += (attrs.empty() ? "" : ", ") + std::string("guard = 1");
  if (inst.opcode() == Opcode::TmaCopy && inst.imm) attrs += (attrs.empty() ? "" : ", ") + std::string("multicast = ") + std::to_string(inst.imm);
  if (inst.opcode() == Opcode::TmaCopy && inst.sub) attrs += (attrs.empty() ? "" : ", ") + std::string("along = y");
  if (inst.opcode() == Opcode::Barrier && (inst.imm == kBarrierClusterArrive || inst.imm == kBarrierClusterWait))
    attrs += (attrs.empty() ? "" : ", ") + std::string("cluster = ") + (inst.imm == kBarrierClusterArrive ? "arrive" : "wait");
  else if ((inst.opcode() == Opcode::Barrier || inst.opcode() == Opcode::TmaInit) && inst.imm)
    attrs += (attrs.empty() ? "" : ", ") + std::string("cluster = 1");
  if ((inst.opcode() == Opcode::StageInit || inst.opcode() == Opcode::StageRelease) && inst.sub)
    attrs += (attrs.empty() ? "" : ", ") + std::string("cluster = 1");
  if ((inst.opcode() == Opcode::Load || inst.opcode() == Opcode::Store) && (inst.sub & kLoadCacheMask))
    attrs += (attrs.empty() ? "" : ", ") + std::string("cache = ") + cacheOpName(CacheOp(inst.sub & kLoadCacheMask));
  if ((inst.opcode() == Opcode::Load || inst.opcode() == Opcode::Store) && evictOf(inst.sub) != Evict::Normal)
    attrs += (attrs.empty() ? "" : ", ") + std::string("evict = ") + evictName(evictOf(inst.sub));
  if (inst.opcode() == Opcode::CondBr && inst.imm)
    attrs += (attrs.empty() ? "" : ", ") + std::string("num_stages = ") + std::to_string(inst.imm);
  if (inst.opcode() == Opcode::Load && (inst.sub & kLoadVolatile))
    attrs += (attrs.empty() ? "" : ", ") + std::string("volatile = 1");
  if (inst.role != Role::Consumer)
    attrs += (attrs.empty() ? "" : ", ") + std::string("role = ") + (inst.role == Role::Producer ? "producer" : "both");
  if ((inst.opcode() == Opcode::AtomicRmw || inst.opcode() == Opcode::AtomicCas) && inst.imm) {
    if (inst.imm & 3) attrs += (attrs.empty() ? "" : ", ") + std::string("sem = ") + memSemName(MemSem(inst.imm & 3));
    if (inst.imm >> 2)
      attrs += (attrs.empty() ? "" : ", ") + std::string("scope = ") + memScopeName(MemScope((inst.imm >> 2) & 3));
  }
  if (!attrs.empty()) out += " {" + attrs + "}";
  if (withLocation && inst.loc.known()) out += " " + printLoc(inst.loc);
  return out;
}

std::string printModule(const Module& m, PrintOptions opts) {
  std::string out;
  if (!m.sourceFile.empty()) out += "source " + quote(m.sourceFile) + "\n";
  if (m.isGpu()) out += "target " + quote(m.target) + " num_warps(" + std::to_string(m.numWarps) + ")\n";
  LayoutNames layouts(&m);
  if (!layouts.ordered().empty()) {
    if (!out.empty()) out += "\n";
    for (const Layout* l : layouts.ordered())
      out += layouts.name(l) + " = " + l->body(l->parent ? layouts.name(l->parent) : "") + "\n";
  }
  // Combine functions first: the kernels' scan_fn name them.
  for (auto* list : {&m.combiners(), &m.functions()})
    for (auto& f : *list) {
      if (!out.empty()) out += "\n";  // a blank line between top-level entities
      out += printFunctionWith(*f, NameTable(f.get()), opts);
    }
  return out;
}

std::string printFunction(const Function& f, PrintOptions opts) {
  return printFunctionWith(f, NameTable(&f), opts);
}

std::string printInstruction(const Instruction& inst) {
  const Function* f = inst.parent ? inst.parent->parent() : nullptr;
  return printInstructionWith(inst, NameTable(f), false);
}

}  // namespace tritonc::ir
