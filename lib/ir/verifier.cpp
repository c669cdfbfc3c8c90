// The verifier (docs/IR.md, "Verifier"): block structure, per-instruction
// type rules (verifier_rules.cpp), operands that belong to the function, phis
// against predecessors, and dominance of every use by its definition.
#include "ir/verifier.h"

#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "ir/dominators.h"
#include "ir/op_rules.h"
#include "ir/pointer_index.h"
#include "ir/print_names.h"

namespace tritonc::ir {

namespace {

class FunctionVerifier {
 public:
  FunctionVerifier(const Function& f, std::vector<std::string>& errors)
      : f_(f), errors_(errors), dom_(f), gpu_(f.parent() && f.parent()->isGpu()) {}
  void run();

 private:
  void report(const std::string& problem) { errors_.push_back("in @" + f_.name() + ": " + problem); }
  void report(const BasicBlock* bb, const std::string& problem) {
    errors_.push_back("in @" + f_.name() + ", block " + names().block(bb) + ": " + problem);
  }
  void report(const BasicBlock* bb, const Instruction* inst, const std::string& problem) {
    report(bb, "'" + printInstructionWith(*inst, names(), false) + "': " + problem);
  }

  void indexFunction();
  void checkParams();
  void checkCombiner();
  void checkBlockLayout(const BasicBlock* bb);
  // Returns false when an operand is foreign, so dominance is not checked.
  bool checkOperandsBelong(const BasicBlock* bb, const Instruction* inst);
  std::string checkRole(const Instruction& inst) const;
  void checkPhiIncoming(const BasicBlock* bb, const Instruction* phi);
  void checkDominance(const BasicBlock* bb, size_t index, const Instruction* inst);

  // The printed names, only for messages: made on the first problem (naming
  // every value costs more than checking a valid function).
  const NameTable& names() {
    if (!names_) names_.emplace(&f_);
    return *names_;
  }

  const Function& f_;
  std::optional<NameTable> names_;
  std::vector<std::string>& errors_;
  DominatorTree dom_;
  bool gpu_;  // the GPU IR's rules apply
  struct Position {
    const BasicBlock* block;
    size_t index;
  };
  PointerIndex<Instruction, Position> positions_;
  PointerIndex<BasicBlock, size_t> blocks_;  // position in the function
  std::unordered_set<const Value*> params_;
  // Predecessors by block position, as one array: those of the block at
  // position b are preds_[predBegin_[b] .. predBegin_[b + 1]).
  std::vector<size_t> predBegin_;
  std::vector<const BasicBlock*> preds_;
};

void FunctionVerifier::run() {
  if (f_.blocks().empty()) {
    report("function has no blocks");
    return;
  }
  indexFunction();
  checkParams();
  if (f_.isCombiner()) checkCombiner();
  for (auto& bb : f_.blocks()) {
    checkBlockLayout(bb.get());
    const auto& insts = bb->instructions();
    for (size_t i = 0; i < insts.size(); ++i) {
      const Instruction* inst = insts[i].get();
      std::string problem = checkInstructionTypes(*inst);
      if (problem.empty() && gpu_) problem = checkGpuInstruction(*inst);
      // `barrier` is the one GPU IR instruction that Triton-IR has too (the
      // front end's __debug_barrier()).
      const bool barrier = inst->opcode() == Opcode::Barrier;
      if (problem.empty() && !gpu_ && opcodeCategory(inst->opcode()) == OpCategory::Gpu && !barrier)
        problem = "a GPU IR instruction in a module without a GPU target";
      if (problem.empty() && !gpu_ && barrier && (inst->numOperands() != 0 || !inst->type().isVoid()))
        problem = "barrier takes no operands and has no result";
      if (problem.empty() && !gpu_)
        for (size_t k = 0; k <= inst->numOperands() && problem.empty(); ++k)
          if ((k < inst->numOperands() ? inst->operand(k)->type() : inst->type()).layout)
            problem = "a layout in a module without a GPU target";
      if (problem.empty()) problem = checkRole(*inst);
      if (!problem.empty()) report(bb.get(), inst, problem);
      if (!checkOperandsBelong(bb.get(), inst)) continue;
      if (inst->opcode() == Opcode::Phi) checkPhiIncoming(bb.get(), inst);
      checkDominance(bb.get(), i, inst);
    }
  }
}

// Warp specialization (gpu/warp_specialize.cpp): the producer warp runs the
// {role = producer} and {role = both} instructions, the consumers all the
// others, so each may use only values that its own warps computed; the
// producer is one warp, so it computes no distributed tile, and the
// consumers' barriers are theirs alone.
std::string FunctionVerifier::checkRole(const Instruction& inst) const {
  auto name = [](Role r) { return r == Role::Producer ? "producer" : r == Role::Both ? "both" : "consumer"; };
  if (!f_.producerWarps) return inst.role == Role::Consumer ? "" : "a role in a function without producer warps";
  if (inst.role == Role::Consumer) {
    if (inst.opcode() == Opcode::StageInit || inst.opcode() == Opcode::TmaInit ||
        (inst.opcode() == Opcode::Barrier && inst.imm))
      return std::string("'") + opcodeName(inst.opcode()) + "'" + (inst.opcode() == Opcode::Barrier ? " {cluster = 1}" : "") +
             " of a warp-specialized function runs in every warp (role = both)";
  } else {
    if (inst.type().isTile() && !inst.type().isShared()) return "the producer warp computes no distributed tile";
    if (inst.opcode() == Opcode::Barrier && (inst.role == Role::Producer || !inst.imm))
      return "a barrier of a warp-specialized function is the consumers' own, or (cluster = 1) every warp's";
  }
  for (const Value* v : inst.operands()) {
    if (v->valueKind() != ValueKind::Instruction) continue;
    Role r = static_cast<const Instruction*>(v)->role;
    if (r != Role::Both && r != inst.role)
      return std::string("a ") + name(inst.role) + " instruction uses a value that only the " + name(r) + " computes";
  }
  return "";
}

void FunctionVerifier::indexFunction() {
  size_t numInsts = 0;
  for (auto& bb : f_.blocks()) numInsts += bb->instructions().size();
  positions_.reserve(numInsts);
  blocks_.reserve(f_.blocks().size());
  for (auto& arg : f_.arguments()) params_.insert(arg.get());
  for (size_t b = 0; b < f_.blocks().size(); ++b) blocks_.add(f_.blocks()[b].get(), b);
  blocks_.seal();
  for (auto& bb : f_.blocks()) {
    if (bb->parent() != &f_) report(bb.get(), "block's parent is another function");
    const auto& insts = bb->instructions();
    for (size_t i = 0; i < insts.size(); ++i) {
      positions_.add(insts[i].get(), Position{bb.get(), i});
      if (insts[i]->parent != bb.get())
        report(bb.get(), insts[i].get(), "instruction's parent is not the block that holds it");
    }
  }
  positions_.seal();
  // Each predecessor once per block (cond_br x, b, b is one edge), in block order.
  const size_t n = f_.blocks().size();
  std::vector<size_t> edges;  // targets' positions, edge by edge in block order
  std::vector<size_t> sources;
  for (size_t b = 0; b < n; ++b) {
    const Instruction* t = f_.blocks()[b]->terminator();
    if (!t) continue;
    for (size_t k = 0; k < t->blocks.size(); ++k) {
      const size_t* at = blocks_.find(t->blocks[k]);
      if (!at || (k > 0 && t->blocks[k] == t->blocks[k - 1])) continue;
      edges.push_back(*at);
      sources.push_back(b);
    }
  }
  predBegin_.assign(n + 1, 0);
  for (size_t e : edges) ++predBegin_[e + 1];
  for (size_t b = 0; b < n; ++b) predBegin_[b + 1] += predBegin_[b];
  preds_.resize(edges.size());
  std::vector<size_t> fill(predBegin_.begin(), predBegin_.end() - 1);
  for (size_t i = 0; i < edges.size(); ++i) preds_[fill[edges[i]]++] = f_.blocks()[sources[i]].get();
}

void FunctionVerifier::checkParams() {
  for (auto& arg : f_.arguments()) {
    const Type& t = arg->type();
    // (A lambda: naming needs the name table, made only for problems.)
    auto param = [&] { return "parameter " + names().value(arg.get()); };
    std::string problem = checkTypeWellFormed(t);
    if (!problem.empty()) report(param() + ": " + problem);
    else if (t.isVoid()) report(param() + " has type void");
    else if (t.isTile()) report(param() + " must be a scalar or a pointer, not " + typeToString(t));
    const ParamAttrs& a = arg->attrs;
    if (a.multipleOf < 0 || a.aligned < 0 || a.constantTable < 0)
      report(param() + ": attribute values must not be negative");
    if (a.multipleOf > 0 && !t.isInt())
      report(param() + ": multipleof(" + std::to_string(a.multipleOf) + ") applies to integers, not " +
             typeToString(t));
    if (a.nonNegative && !t.isInt()) report(param() + ": nonneg applies to integers, not " + typeToString(t));
    if (a.one && !t.isInt()) report(param() + ": one applies to integers, not " + typeToString(t));
    if (a.aligned > 0 && !t.isPtr())
      report(param() + ": aligned(" + std::to_string(a.aligned) + ") applies to pointers, not " + typeToString(t));
    if (a.constantTable > 0 && !t.isPtr())
      report(param() + ": constant(" + std::to_string(a.constantTable) + ") applies to pointers, not " +
             typeToString(t));
  }
}

// A combine function: scalar arguments in two halves of one type each
// (the value so far, the next element), one block of element-wise
// instructions (no memory, no control flow, nothing with an effect).
void FunctionVerifier::checkCombiner() {
  const size_t n = f_.arguments().size();
  if (n == 0 || n % 2) report("a combine function takes two of each tuple element, not " + std::to_string(n) + " arguments");
  for (size_t i = 0; i < n; ++i) {
    const Type& t = f_.argument(i)->type();
    if (t.isTile() || t.isPtr()) report("a combine function's arguments are scalars, not " + typeToString(t));
    if (n % 2 == 0 && t != f_.argument((i + n / 2) % n)->type())
      report("argument " + std::to_string(i) + " and argument " + std::to_string((i + n / 2) % n) +
             " of a combine function must have one type");
  }
  if (f_.blocks().size() != 1) report("a combine function has one block (no control flow: select instead)");
  for (auto& bb : f_.blocks())
    for (auto& inst : bb->instructions()) {
      const Opcode op = inst->opcode();
      const OpCategory c = opcodeCategory(op);
      const bool elementwise = c == OpCategory::Binary || c == OpCategory::Unary || op == Opcode::Cmp ||
                               op == Opcode::Select || op == Opcode::Cast || op == Opcode::UCast ||
                               op == Opcode::Bitcast || op == Opcode::Fma || op == Opcode::Ret;
      if (!elementwise) report(bb.get(), inst.get(), "a combine function computes element-wise only");
      else if (inst->type().isTile()) report(bb.get(), inst.get(), "a combine function computes on scalars");
    }
}

void FunctionVerifier::checkBlockLayout(const BasicBlock* bb) {
  const auto& insts = bb->instructions();
  if (insts.empty()) {
    report(bb, "block is empty; it must end with a terminator (br, cond_br or ret)");
    return;
  }
  if (!insts.back()->isTerminator())
    report(bb, "block does not end with a terminator (br, cond_br or ret)");
  bool seenNonPhi = false;
  for (size_t i = 0; i < insts.size(); ++i) {
    const Instruction* inst = insts[i].get();
    if (inst->isTerminator() && i + 1 != insts.size())
      report(bb, inst, "terminator in the middle of the block");
    if (inst->opcode() != Opcode::Phi) seenNonPhi = true;
    else if (seenNonPhi) report(bb, inst, "phi after a non-phi instruction; phis must come first");
  }
}

bool FunctionVerifier::checkOperandsBelong(const BasicBlock* bb, const Instruction* inst) {
  bool ok = true;
  for (const Value* v : inst->operands()) {
    if (v->valueKind() == ValueKind::Argument && !params_.count(v)) {
      report(bb, inst, "operand " + names().value(v) + " is not a parameter of this function");
      ok = false;
    } else if (v->valueKind() == ValueKind::Instruction &&
               !positions_.contains(static_cast<const Instruction*>(v))) {
      report(bb, inst, "operand " + names().value(v) + " is not an instruction of this function");
      ok = false;
    }
  }
  for (const BasicBlock* target : inst->blocks) {
    if (!target) {
      report(bb, inst, "block operand is missing");
      ok = false;
    } else if (!blocks_.contains(target)) {
      report(bb, inst, "block '" + names().block(target) + "' is not a block of this function");
      ok = false;
    }
  }
  return ok;
}

void FunctionVerifier::checkPhiIncoming(const BasicBlock* bb, const Instruction* phi) {
  size_t at = *blocks_.find(bb);
  std::vector<const BasicBlock*> preds(preds_.begin() + long(predBegin_[at]), preds_.begin() + long(predBegin_[at + 1]));
  for (const BasicBlock* p : preds) {
    size_t count = 0;
    for (const BasicBlock* b : phi->blocks) count += b == p;
    if (count == 0) report(bb, phi, "no incoming value for predecessor '" + names().block(p) + "'");
    if (count > 1) report(bb, phi, "more than one incoming value for predecessor '" + names().block(p) + "'");
  }
  for (const BasicBlock* b : phi->blocks) {
    bool isPred = false;
    for (const BasicBlock* p : preds) isPred = isPred || p == b;
    if (!isPred) report(bb, phi, "incoming block '" + names().block(b) + "' is not a predecessor");
  }
}

void FunctionVerifier::checkDominance(const BasicBlock* bb, size_t index, const Instruction* inst) {
  bool isPhi = inst->opcode() == Opcode::Phi;
  for (size_t k = 0; k < inst->numOperands(); ++k) {
    const Value* v = inst->operand(k);
    if (v->valueKind() != ValueKind::Instruction) continue;
    Position def = *positions_.find(static_cast<const Instruction*>(v));
    auto name = [&] { return names().value(v); };
    if (isPhi) {
      // A phi's operand must be available at the end of its incoming block.
      const BasicBlock* from = k < inst->blocks.size() ? inst->blocks[k] : nullptr;
      if (!from || !dom_.isReachable(from) || dom_.dominates(def.block, from)) continue;
      report(bb, inst, name() + " is defined in block " + names().block(def.block) +
                           ", which does not dominate incoming block " + names().block(from));
    } else if (def.block == bb) {
      if (def.index == index) report(bb, inst, "instruction uses its own result");
      else if (def.index > index) report(bb, inst, name() + " is used before its definition");
    } else if (dom_.isReachable(bb) && !dom_.dominates(def.block, bb)) {
      report(bb, inst, name() + " is defined in block " + names().block(def.block) +
                           ", which does not dominate this use");
    }
  }
}

std::string joinLines(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += (out.empty() ? "" : "\n") + l;
  return out;
}

}  // namespace

std::string verifyFunction(const Function& f) {
  std::vector<std::string> errors;
  FunctionVerifier(f, errors).run();
  return joinLines(errors);
}

std::string verifyModule(const Module& m) {
  std::vector<std::string> errors;
  std::unordered_set<std::string> names;
  for (auto* list : {&m.combiners(), &m.functions()})
    for (auto& f : *list) {
      if (!names.insert(f->name()).second) errors.push_back("more than one function is named @" + f->name());
      FunctionVerifier(*f, errors).run();
    }
  return joinLines(errors);
}

}  // namespace tritonc::ir
