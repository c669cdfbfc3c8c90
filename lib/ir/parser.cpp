// A hand-written recursive-descent parser for the Triton-IR text form
// (docs/IR.md). The grammar is flat (no nesting beyond a function body), so
// the parser never recurses on its input. Instructions are not separated by
// newlines: each starts with `%name =`, a void opcode, or `label:`.
#include "ir/parser.h"

#include <charconv>
#include <cmath>
#include <deque>
#include <limits>
#include <optional>
#include <unordered_map>

#include "ir/ir_lexer.h"
#include "ir/loop_hints.h"
#include "ir/memory_hints.h"
#include "ir/op_rules.h"

namespace tritonc::ir {

namespace {

bool allDigits(const std::string& s) {
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return !s.empty();
}

class Parser {
 public:
  explicit Parser(const std::string& text) : module_(std::make_unique<Module>()), lexer_(text) {}
  std::unique_ptr<Module> run();

 private:
  // ---- tokens
  const Token& peek(size_t ahead = 0);
  Token take();
  bool accept(char punct);
  void expect(char punct, const std::string& context);
  [[noreturn]] void failAt(SourceLoc loc, const std::string& message) { throw UserError(loc, message); }
  // For "expected X" errors: when the token that is there starts a new line,
  // the missing X belongs at the end of the previous line, so point there.
  [[noreturn]] void failExpected(const std::string& message);
  int64_t intValue(const Token& t);
  int64_t expectInt(const std::string& what);
  double floatValue(const Token& t);

  // ---- grammar
  void parseTarget();
  void parseLayoutDefinition();
  const Layout* parseLayoutRef();
  std::vector<int64_t> parseIntList(const std::string& what);
  void parseAttributes(Instruction* inst);
  void parseFunction();
  void parseParam();
  void parseParamAttr(ParamAttrs& attrs);
  Type parseType();
  void parseInstruction(BasicBlock* bb);
  void parseOperands(Instruction* inst);
  void parsePhiIncoming(Instruction* inst);
  Value* parseOperand();
  Value* parseConstant();
  void parseLabelRef(Instruction* inst);
  SourceLoc parseOptionalLoc();
  template <typename Kind>
  uint8_t parseSubKind(bool (*fromName)(const std::string&, Kind*), const char* what);
  // The tile axis written after `op` (max_contiguous, extract_slice, gather).
  uint8_t parseTileAxis(const std::string& op);

  // ---- names of the function being parsed
  Value* useValue(const Token& name);
  void defineValue(const Token& name, Value* v);
  void checkNotDefined(const Token& name);
  BasicBlock* defineBlock(const Token& label);
  void finishFunction();

  struct ValueEntry {
    Value* value;
    bool defined;
    SourceLoc firstUse;
  };
  // Uses of a label not defined yet: filled in when the label appears.
  struct PendingBlock {
    std::vector<std::pair<Instruction*, size_t>> slots;
    SourceLoc firstUse;
  };

  // Stand-ins for values used before their definition (phi operands in
  // loops); declared before module_ so that they outlive its instructions.
  std::vector<std::unique_ptr<Value>> placeholders_;
  std::unique_ptr<Module> module_;
  Lexer lexer_;
  std::deque<Token> lookahead_;
  SourceLoc prevEnd_;
  Function* func_ = nullptr;
  std::unordered_map<std::string, ValueEntry> values_;
  std::unordered_map<std::string, BasicBlock*> blocks_;
  std::unordered_map<std::string, PendingBlock> pendingBlocks_;
  std::unordered_map<std::string, const Layout*> layouts_;  // #name -> layout
};

// ---- tokens -----------------------------------------------------------------

const Token& Parser::peek(size_t ahead) {
  while (lookahead_.size() <= ahead) lookahead_.push_back(lexer_.next());
  return lookahead_[ahead];
}

Token Parser::take() {
  peek();
  Token t = std::move(lookahead_.front());
  lookahead_.pop_front();
  prevEnd_ = t.end;
  return t;
}

bool Parser::accept(char punct) {
  if (!peek().is(punct)) return false;
  take();
  return true;
}

void Parser::expect(char punct, const std::string& context) {
  if (!accept(punct)) failExpected(std::string("expected '") + punct + "' " + context);
}

void Parser::failExpected(const std::string& message) {
  const Token& t = peek();
  bool onLaterLine = t.kind == TokKind::Eof || t.loc.line > prevEnd_.line;
  failAt(prevEnd_.known() && onLaterLine ? prevEnd_ : t.loc, message);
}

int64_t Parser::intValue(const Token& t) {
  int64_t v = 0;
  auto [end, err] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
  if (err != std::errc() || end != t.text.data() + t.text.size())
    failAt(t.loc, "integer literal " + t.text + " out of range");
  return v;
}

int64_t Parser::expectInt(const std::string& what) {
  if (peek().kind != TokKind::Int) failExpected("expected " + what);
  return intValue(take());
}

double Parser::floatValue(const Token& t) {
  const std::string& s = t.text;
  if (s == "inf") return std::numeric_limits<double>::infinity();
  if (s == "-inf") return -std::numeric_limits<double>::infinity();
  if (s == "nan" || s == "-nan") return std::numeric_limits<double>::quiet_NaN();
  double v = 0;
  auto [end, err] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (err != std::errc() || end != s.data() + s.size())
    failAt(t.loc, "float literal " + s + " out of range");
  return v;
}

// ---- module and functions ---------------------------------------------------

std::unique_ptr<Module> Parser::run() {
  if (peek().isWord("source")) {
    take();
    if (peek().kind != TokKind::String) failExpected("expected a file name string after 'source'");
    module_->sourceFile = take().text;
  }
  if (peek().isWord("target")) parseTarget();
  while (peek().kind == TokKind::Hash) parseLayoutDefinition();
  while (peek().kind != TokKind::Eof) {
    if (peek().isWord("kernel") || peek().isWord("combine")) {
      parseFunction();
    } else if (peek().kind == TokKind::Hash) {
      failAt(peek().loc, "layouts must be defined before the first kernel");
    } else if (peek().isWord("source")) {
      failAt(peek().loc, "'source' must come before the first kernel");
    } else {
      failAt(peek().loc, "expected 'kernel', found " + describe(peek()));
    }
  }
  return std::move(module_);
}

void Parser::parseTarget() {
  take();  // target
  if (peek().kind != TokKind::String) failExpected("expected a GPU target string such as \"sm_90a\" after 'target'");
  Token target = take();
  if (target.text.empty()) failAt(target.loc, "the target must not be empty");
  module_->target = target.text;
  if (!peek().isWord("num_warps")) failExpected("expected 'num_warps(N)' after the target");
  take();
  expect('(', "after 'num_warps'");
  Token n = peek();
  int64_t warps = expectInt("the number of warps");
  if (warps < 1 || warps > 32 || (warps & (warps - 1))) failAt(n.loc, "num_warps must be a power of two up to 32");
  module_->numWarps = int(warps);
  expect(')', "after the number of warps");
}

std::vector<int64_t> Parser::parseIntList(const std::string& what) {
  expect('[', "to start " + what);
  std::vector<int64_t> out;
  if (accept(']')) return out;
  do {
    if (out.size() == kMaxTileRank) failAt(peek().loc, what + " has too many entries");
    out.push_back(expectInt("an integer in " + what));
  } while (accept(','));
  expect(']', "to end " + what);
  return out;
}

const Layout* Parser::parseLayoutRef() {
  if (peek().kind != TokKind::Hash) failExpected("expected a layout such as '#blocked0'");
  Token name = take();
  auto it = layouts_.find(name.text);
  if (it == layouts_.end()) failAt(name.loc, "use of undefined layout '#" + name.text + "'");
  return it->second;
}

void Parser::parseLayoutDefinition() {
  Token name = take();
  if (layouts_.count(name.text)) failAt(name.loc, "redefinition of layout '#" + name.text + "'");
  expect('=', "after the layout name");
  if (peek().kind != TokKind::Word) failExpected("expected a layout kind (blocked, slice, mma, dot_operand, shared)");
  Token kindTok = take();
  Layout l;
  if (kindTok.text == "blocked") l.kind = LayoutKind::Blocked;
  else if (kindTok.text == "slice") l.kind = LayoutKind::Slice;
  else if (kindTok.text == "mma") l.kind = LayoutKind::Mma;
  else if (kindTok.text == "dot_operand") l.kind = LayoutKind::DotOperand;
  else if (kindTok.text == "shared") l.kind = LayoutKind::Shared;
  else failAt(kindTok.loc, "unknown layout kind '" + kindTok.text + "'");
  expect('<', "after the layout kind");
  auto order = [](const std::vector<int64_t>& v) { return std::vector<int>(v.begin(), v.end()); };
  if (!peek().is('>')) {
    do {
      if (peek().kind != TokKind::Word) failExpected("expected a layout parameter such as 'order=[1, 0]'");
      Token key = take();
      expect('=', "after '" + key.text + "'");
      const std::string& k = key.text;
      bool ok = true;
      switch (l.kind) {
        case LayoutKind::Blocked:
          if (k == "spt") l.sizePerThread = parseIntList("spt");
          else if (k == "tpw") l.threadsPerWarp = parseIntList("tpw");
          else if (k == "wpc") l.warpsPerCta = parseIntList("wpc");
          else if (k == "order") l.order = order(parseIntList("order"));
          else ok = false;
          break;
        case LayoutKind::Slice:
          if (k == "dim") l.dim = int(expectInt("a dimension"));
          else if (k == "parent") l.parent = parseLayoutRef();
          else ok = false;
          break;
        case LayoutKind::Mma:
          if (k == "v") l.version = int(expectInt("an mma version"));
          else if (k == "wpc") l.warpsPerCta = parseIntList("wpc");
          else if (k == "transposed") {
            int64_t t = expectInt("0 or 1");
            if (t != 0 && t != 1) failAt(key.loc, "transposed must be 0 or 1");
            l.transposed = t == 1;
          } else ok = false;
          break;
        case LayoutKind::DotOperand:
          if (k == "op") l.opIdx = int(expectInt("an operand index"));
          else if (k == "parent") l.parent = parseLayoutRef();
          else ok = false;
          break;
        case LayoutKind::Shared:
          if (k == "order") l.order = order(parseIntList("order"));
          else if (k == "pad") l.pad = expectInt("a padding");
          else if (k == "swizzle") l.swizzle = expectInt("a swizzle width");
          else ok = false;
          break;
      }
      if (!ok) failAt(key.loc, "unknown parameter '" + k + "' of a " + kindTok.text + " layout");
    } while (accept(','));
  }
  expect('>', "to end the layout");
  std::string problem = l.check();
  if (!problem.empty()) failAt(kindTok.loc, "invalid " + kindTok.text + " layout: " + problem);
  layouts_[name.text] = module_->layout(l);
}

void Parser::parseAttributes(Instruction* inst) {
  if (!accept('{')) return;
  do {
    if (peek().kind != TokKind::Word) failExpected("expected an attribute such as 'vec = 8'");
    Token key = take();
    expect('=', "after '" + key.text + "'");
    Token v = peek();
    if (key.text == "role") {  // which warps of a warp-specialized function run it
      if (v.kind != TokKind::Word || (v.text != "producer" && v.text != "both"))
        failExpected("expected 'producer' or 'both' after 'role =' (the consumers' instructions have no role)");
      take();
      inst->role = v.text == "producer" ? Role::Producer : Role::Both;
      continue;
    }
    if (key.text == "cluster" && v.kind == TokKind::Word) {  // a barrier over the cluster split in two
      if (inst->opcode() != Opcode::Barrier || (v.text != "arrive" && v.text != "wait"))
        failAt(v.loc, "'cluster = arrive' and 'cluster = wait' mark the halves of a barrier over the cluster");
      take();
      inst->imm = v.text == "arrive" ? kBarrierClusterArrive : kBarrierClusterWait;
      continue;
    }
    if (key.text == "along") {  // the grid axis of a multicast copy's pair
      if (inst->opcode() != Opcode::TmaCopy || (v.text != "x" && v.text != "y"))
        failAt(v.loc, "'along = x' or 'along = y' gives the axis of the pair a multicast tma_copy is shared by");
      take();
      inst->sub = v.text == "y";
      continue;
    }
    if (key.text == "cache") {  // a load's or store's cache operator, by name
      CacheOp c;
      if (v.kind != TokKind::Word || !cacheOpFromName(v.text, &c) || !cacheOpAllowed(inst->opcode(), c))
        failAt(v.loc, "'cache' is an attribute of load (ca, cg, cv) and store (wb, cg, cs, wt)");
      take();
      inst->sub = uint8_t((inst->sub & ~kLoadCacheMask) | uint8_t(c));
      continue;
    }
    if (key.text == "evict") {  // a load's or store's eviction priority, by name
      Evict e;
      if (v.kind != TokKind::Word || !evictFromName(v.text, &e) ||
          (inst->opcode() != Opcode::Load && inst->opcode() != Opcode::Store))
        failAt(v.loc, "'evict' is an attribute of load and store (first, last, normal)");
      take();
      inst->sub = uint8_t((inst->sub & ~kEvictMask) | evictBits(e));
      continue;
    }
    if (key.text == "sem" || key.text == "scope") {  // an atomic's memory order, by name
      if (inst->opcode() != Opcode::AtomicRmw && inst->opcode() != Opcode::AtomicCas)
        failAt(key.loc, "'" + key.text + "' is an attribute of atomic_rmw and atomic_cas");
      if (v.kind != TokKind::Word) failExpected("expected a name after '" + key.text + " ='");
      take();
      MemSem sem;
      MemScope scope;
      if (key.text == "sem") {
        if (!memSemFromName(v.text, &sem)) failAt(v.loc, "unknown sem '" + v.text + "' (relaxed, acquire, release, acq_rel)");
        inst->imm = (inst->imm & ~int64_t(3)) | int64_t(sem);
      } else {
        if (!memScopeFromName(v.text, &scope)) failAt(v.loc, "unknown scope '" + v.text + "' (gpu, cta, sys)");
        inst->imm = (inst->imm & 3) | int64_t(scope) << 2;
      }
      continue;
    }
    int64_t value = expectInt("the value of '" + key.text + "'");
    if (key.text == "vec") {
      if (value < 1 || value > 16) failAt(v.loc, "'vec' must be between 1 and 16");
      inst->vec = int(value);
    } else if (key.text == "smem") {
      if (value < 0 || value > (int64_t(1) << 30)) failAt(v.loc, "'smem' must be a byte offset");
      inst->smem = value;
    } else if (key.text == "guard") {
      if (inst->opcode() != Opcode::Splat || value != 1)
        failAt(v.loc, "'guard = 1' marks a splat (a pre-fetch's iteration guard)");
      inst->sub = kSplatIterationGuard;
    } else if (key.text == "num_stages") {
      if (inst->opcode() != Opcode::CondBr || value < 1 || value > kMaxLoopStages)
        failAt(v.loc, "'num_stages = N' (1 to 8) marks the cond_br of a loop's header (its own pipelining depth)");
      inst->imm = value;
    } else if (key.text == "volatile") {
      if (inst->opcode() != Opcode::Load || value != 1) failAt(v.loc, "'volatile = 1' marks a load");
      inst->sub |= kLoadVolatile;
    } else if (key.text == "multicast") {
      if (inst->opcode() != Opcode::TmaCopy || value != 2) failAt(v.loc, "'multicast = 2' marks a tma_copy shared by a pair of programs");
      inst->imm = value;
    } else if (key.text == "cluster") {
      bool stage = inst->opcode() == Opcode::StageInit || inst->opcode() == Opcode::StageRelease;
      if ((inst->opcode() != Opcode::Barrier && inst->opcode() != Opcode::TmaInit && !stage) || value != 1)
        failAt(v.loc, "'cluster = 1' marks a barrier or tma_init that synchronizes the cluster, or a stage_init or "
                      "stage_release whose stages the pair's programs free together");
      if (stage) inst->sub = 1;
      else inst->imm = value;
    } else {
      failAt(key.loc, "unknown attribute '" + key.text + "' (known: vec, smem, guard, multicast, along, cluster, sem, scope, role, cache, evict, volatile, num_stages)");
    }
  } while (accept(','));
  expect('}', "to end the attributes");
}

void Parser::parseFunction() {
  const bool combiner = take().text == "combine";  // else kernel
  if (peek().kind != TokKind::Global)
    failExpected(std::string("expected a function name such as '@add' after '") + (combiner ? "combine" : "kernel") + "'");
  Token name = take();
  if (module_->function(name.text) || module_->combiner(name.text))
    failAt(name.loc, "redefinition of function '@" + name.text + "'");
  func_ = combiner ? module_->addCombiner(name.text) : module_->addFunction(name.text);
  values_.clear();
  blocks_.clear();
  pendingBlocks_.clear();

  expect('(', "after the function name");
  if (!peek().is(')')) {
    do parseParam();
    while (accept(','));
  }
  expect(')', "after the parameter list");
  if (peek().isWord("shared") && peek(1).is('(')) {
    take();
    take();
    Token n = peek();
    int64_t bytes = expectInt("the shared memory size in bytes");
    if (bytes < 0 || bytes > (int64_t(1) << 30)) failAt(n.loc, "shared memory size out of range");
    func_->sharedBytes = bytes;
    expect(')', "after the shared memory size");
  }
  if (peek().isWord("producer_warps") && peek(1).is('(')) {
    take();
    take();
    Token n = peek();
    int64_t warps = expectInt("the number of producer warps");
    if (warps != 1) failAt(n.loc, "a warp-specialized function has one producer warp");
    func_->producerWarps = int(warps);
    expect(')', "after the number of producer warps");
  }
  if (peek().isWord("grouped_programs") && peek(1).is('(')) {
    take();
    take();
    Token n = peek();
    int64_t rows = expectInt("the rows of tiles per group");
    if (rows < 1 || rows > 1024) failAt(n.loc, "the rows of tiles per group must be between 1 and 1024");
    func_->groupedPrograms = int(rows);
    expect(')', "after the rows of tiles per group");
  }
  func_->loc = parseOptionalLoc();
  expect('{', "to open the function body");

  BasicBlock* bb = nullptr;
  for (;;) {
    const Token& t = peek();
    if (t.is('}')) break;
    if (t.kind == TokKind::Eof) failExpected("expected '}' at the end of '@" + name.text + "'");
    if (t.kind == TokKind::Word && peek(1).is(':')) {
      bb = defineBlock(take());
      take();  // ':'
      continue;
    }
    if (!bb) failAt(t.loc, "expected a block label (such as 'entry:') before the first instruction");
    parseInstruction(bb);
  }
  take();  // '}'
  finishFunction();
}

void Parser::parseParam() {
  if (peek().kind != TokKind::Local) failExpected("expected a parameter such as '%x: i32'");
  Token name = take();
  checkNotDefined(name);
  expect(':', "after the parameter name");
  Type t = parseType();
  Argument* arg = func_->addArgument(t, "");
  while (peek().kind == TokKind::Word) parseParamAttr(arg->attrs);
  defineValue(name, arg);
}

void Parser::parseParamAttr(ParamAttrs& attrs) {
  Token attr = take();
  auto positiveArg = [&]() {
    expect('(', "after '" + attr.text + "'");
    Token n = peek();
    int64_t v = expectInt("a number in '" + attr.text + "(N)'");
    if (v < 1) failAt(n.loc, "'" + attr.text + "' needs a positive number");
    expect(')', "after the number of '" + attr.text + "'");
    return v;
  };
  if (attr.text == "multipleof") attrs.multipleOf = positiveArg();
  else if (attr.text == "aligned") {
    Token n = peek(1);
    attrs.aligned = positiveArg();
    // (an alignment is a power of two: the vector widths are derived from it)
    if (attrs.aligned & (attrs.aligned - 1)) failAt(n.loc, "'aligned' needs a power of two");
  }
  else if (attr.text == "constant") attrs.constantTable = positiveArg();
  else if (attr.text == "nonneg") attrs.nonNegative = true;
  else if (attr.text == "one") attrs.one = true;
  else if (attr.text == "readonly") attrs.readonly = true;
  else if (attr.text == "noalias") attrs.noalias = true;
  else failAt(attr.loc, "unknown parameter attribute '" + attr.text + "'");
}

void Parser::finishFunction() {
  // Report the earliest dangling use, so the error does not depend on hashing.
  const std::string* undefinedName = nullptr;
  SourceLoc first;
  auto earlier = [&](SourceLoc a) {
    return !undefinedName || a.line < first.line || (a.line == first.line && a.col < first.col);
  };
  for (auto& [name, entry] : values_) {
    if (entry.defined || !earlier(entry.firstUse)) continue;
    undefinedName = &name;
    first = entry.firstUse;
  }
  if (undefinedName) failAt(first, "use of undefined value '%" + *undefinedName + "'");
  for (auto& [name, pending] : pendingBlocks_) {
    if (!earlier(pending.firstUse)) continue;
    undefinedName = &name;
    first = pending.firstUse;
  }
  if (undefinedName) failAt(first, "use of undefined block '" + *undefinedName + "'");
  func_ = nullptr;
}

// ---- names ------------------------------------------------------------------

Value* Parser::useValue(const Token& name) {
  auto it = values_.find(name.text);
  if (it != values_.end()) return it->second.value;
  placeholders_.push_back(std::make_unique<Value>(ValueKind::Argument, Type::voidTy()));
  values_[name.text] = ValueEntry{placeholders_.back().get(), false, name.loc};
  return placeholders_.back().get();
}

void Parser::checkNotDefined(const Token& name) {
  auto it = values_.find(name.text);
  if (it != values_.end() && it->second.defined)
    failAt(name.loc, "redefinition of '%" + name.text + "'");
}

void Parser::defineValue(const Token& name, Value* v) {
  // Numbers are what the printer gives unnamed values: keep no hint for them.
  v->setName(allDigits(name.text) ? "" : name.text);
  auto it = values_.find(name.text);
  if (it == values_.end()) {
    values_[name.text] = ValueEntry{v, true, name.loc};
    return;
  }
  it->second.value->replaceAllUsesWith(v);
  it->second = ValueEntry{v, true, name.loc};
}

BasicBlock* Parser::defineBlock(const Token& label) {
  if (blocks_.count(label.text)) failAt(label.loc, "redefinition of block '" + label.text + "'");
  BasicBlock* bb = func_->addBlock(label.text);
  blocks_[label.text] = bb;
  auto pending = pendingBlocks_.find(label.text);
  if (pending != pendingBlocks_.end()) {
    for (auto [inst, slot] : pending->second.slots) inst->blocks[slot] = bb;
    pendingBlocks_.erase(pending);
  }
  return bb;
}

void Parser::parseLabelRef(Instruction* inst) {
  if (peek().kind != TokKind::Word) failExpected("expected a block label");
  Token label = take();
  auto it = blocks_.find(label.text);
  if (it != blocks_.end()) {
    inst->blocks.push_back(it->second);
    return;
  }
  auto [pending, isNew] = pendingBlocks_.try_emplace(label.text);
  if (isNew) pending->second.firstUse = label.loc;
  pending->second.slots.emplace_back(inst, inst->blocks.size());
  inst->blocks.push_back(nullptr);
}

// ---- types and constants ----------------------------------------------------

Type Parser::parseType() {
  if (peek().kind != TokKind::Word) failExpected("expected a type");
  Token name = take();
  std::optional<Scalar> kind = scalarFromName(name.text);
  if (!kind) failAt(name.loc, "unknown type '" + name.text + "'");
  Type t = Type::scalar(*kind);
  if (peek().is('*')) {
    if (*kind == Scalar::Void) failAt(peek().loc, "'void*' is not a type");
    take();
    t = Type::pointer(*kind);
    if (peek().is('*')) failAt(peek().loc, "pointers to pointers are not supported");
  }
  if (!peek().is('<')) return t;
  if (*kind == Scalar::Void) failAt(peek().loc, "a tile of 'void' is not a type");
  take();
  int64_t elements = 1;
  for (;;) {
    if (peek().kind != TokKind::Int) failExpected("expected a tile dimension");
    Token dim = take();
    if (t.shape.size() == kMaxTileRank)
      failAt(dim.loc, "tiles have at most " + std::to_string(kMaxTileRank) + " dimensions");
    int64_t n = intValue(dim);
    if (n < 1 || n > kMaxTileElements)
      failAt(dim.loc, "tile dimension must be between 1 and " + std::to_string(kMaxTileElements));
    elements *= n;  // both factors <= 2^24: no overflow
    if (elements > kMaxTileElements)
      failAt(dim.loc, "tile has more than " + std::to_string(kMaxTileElements) + " elements");
    t.shape.push_back(n);
    if (accept(',')) {
      if (peek().kind == TokKind::Hash) {
        t.layout = parseLayoutRef();
        expect('>', "after the tile's layout");
        return t;
      }
      continue;
    }
    if (accept('>')) return t;
    failExpected("expected ',' or '>' in the tile shape");
  }
}

Value* Parser::parseOperand() {
  const Token& t = peek();
  if (t.kind == TokKind::Local) return useValue(take());
  if (t.kind == TokKind::Word) {
    const Token& after = peek(1);
    bool looksLikeConstant = after.kind == TokKind::Int || after.kind == TokKind::Float ||
                             after.isWord("inf") || after.isWord("nan");
    if (scalarFromName(peek().text) || looksLikeConstant) return parseConstant();
  }
  failExpected("expected an operand ('%name' or a constant such as 'i32 4'), found " + describe(peek()));
}

Value* Parser::parseConstant() {
  Token typeTok = peek();
  Type t = parseType();
  if (!t.isInt() && !t.isFloat())
    failAt(typeTok.loc, "a constant must have a scalar integer or float type, not '" + typeToString(t) + "'");
  if (t.isTile())
    failAt(typeTok.loc, "a constant must be a scalar; use 'splat' to make a tile");
  const Token& lit = peek();
  if (t.isFloat()) {
    if (lit.kind != TokKind::Int && lit.kind != TokKind::Float && !lit.isWord("inf") && !lit.isWord("nan"))
      failExpected("expected a number after '" + typeToString(t) + "'");
    return module_->constFloat(t.kind, floatValue(take()));
  }
  if (lit.kind != TokKind::Int) failExpected("expected an integer after '" + typeToString(t) + "'");
  Token litTok = take();
  int64_t v = intValue(litTok);
  bool fits = t.kind == Scalar::I1 ? (v == 0 || v == 1) : wrapInt(t.kind, v) == v;
  if (!fits) failAt(litTok.loc, "integer constant " + litTok.text + " does not fit in " + typeToString(t));
  return module_->constInt(t.kind, v);
}

// ---- instructions -----------------------------------------------------------

template <typename Kind>
uint8_t Parser::parseSubKind(bool (*fromName)(const std::string&, Kind*), const char* what) {
  if (peek().kind != TokKind::Word) failExpected(std::string("expected a ") + what);
  Token name = take();
  Kind k;
  if (!fromName(name.text, &k)) failAt(name.loc, std::string("unknown ") + what + " '" + name.text + "'");
  return uint8_t(k);
}

uint8_t Parser::parseTileAxis(const std::string& op) {
  Token axis = peek();
  int64_t a = expectInt("an axis after '" + op + "'");
  if (a < 0 || a >= int64_t(kMaxTileRank))
    failAt(axis.loc, "'" + op + "' axis must be below " + std::to_string(kMaxTileRank));
  return uint8_t(a);
}

void Parser::parseInstruction(BasicBlock* bb) {
  std::optional<Token> result;
  if (peek().kind == TokKind::Local) {
    result = take();
    checkNotDefined(*result);
    expect('=', "after the result name");
  }
  if (peek().kind != TokKind::Word)
    failAt(peek().loc, result ? "expected an opcode after '='"
                              : "expected an instruction, a block label or '}', found " + describe(peek()));
  Token opTok = take();
  Opcode op;
  if (!opcodeFromName(opTok.text, &op)) failAt(opTok.loc, "unknown opcode '" + opTok.text + "'");
  if (result && !producesValue(op)) failAt(opTok.loc, "'" + opTok.text + "' does not produce a value");
  if (!result && producesValue(op))
    failAt(opTok.loc, "'" + opTok.text + "' produces a value: expected '%name = " + opTok.text + " ...'");

  auto owned = std::make_unique<Instruction>(op, Type::voidTy(), std::vector<Value*>{}, SourceLoc{});
  Instruction* inst = owned.get();
  switch (op) {
    case Opcode::Cmp: inst->sub = parseSubKind(cmpPredFromName, "comparison predicate"); break;
    case Opcode::AtomicRmw: inst->sub = parseSubKind(atomicKindFromName, "atomic kind"); break;
    case Opcode::Reduce:
    case Opcode::Scan:
      inst->sub = parseSubKind(reduceKindFromName, "reduction kind");
      inst->imm = expectInt(op == Opcode::Scan ? "a scan axis" : "a reduction axis");
      break;
    case Opcode::MultipleOf: inst->imm = expectInt("a divisor after 'multiple_of'"); break;
    case Opcode::MaxContiguous:
      inst->sub = parseTileAxis("max_contiguous");
      inst->imm = expectInt("a run length after the axis of 'max_contiguous'");
      break;
    case Opcode::ExtractSlice:
      inst->sub = parseTileAxis("extract_slice");
      inst->imm = expectInt("the offset along the axis after the axis of 'extract_slice'");
      break;
    case Opcode::Gather: inst->sub = parseTileAxis("gather"); break;
    case Opcode::ScanFn: case Opcode::ReduceFn: {
      // scan_fn @COMBINE RESULT AXIS %a, ... (reduce_fn likewise)
      if (peek().kind != TokKind::Global)
        failExpected("expected the combine function (such as '@add') after '" + opTok.text + "'");
      inst->text = take().text;
      Token r = peek();
      int64_t result = expectInt("the result's position in the tuple after the combine function");
      if (result < 0 || result > 255) failAt(r.loc, "a " + opTok.text + " result position must be between 0 and 255");
      inst->sub = uint8_t(result);
      inst->imm = expectInt(op == Opcode::ScanFn ? "a scan axis" : "a reduction axis");
      break;
    }
    case Opcode::Sort: case Opcode::ArgSort:
      inst->sub = parseSubKind(sortOrderFromName, "sort order ('ascending' or 'descending')");
      inst->imm = expectInt("a sort axis");
      break;
    case Opcode::Range: inst->imm = expectInt("a start value after 'range'"); break;
    case Opcode::Trans:
      // trans [p0, p1, ...]: result dimension d is operand dimension pd (the
      // verifier checks it against the operand); none: the 2-D swap.
      if (peek().is('[')) {
        Token at = peek();
        std::vector<int> perm;
        for (int64_t p : parseIntList("a permutation")) {
          if (p < 0 || p >= int64_t(kMaxTileRank))
            failAt(at.loc, "a permutation entry must be below " + std::to_string(kMaxTileRank));
          perm.push_back(int(p));
        }
        inst->imm = packTransPermutation(perm);
      }
      break;
    case Opcode::ProgramId:
    case Opcode::NumPrograms: inst->imm = expectInt("an axis after '" + opTok.text + "'"); break;
    case Opcode::AsyncWait:
    case Opcode::DotWait: inst->imm = expectInt("the number of groups left pending after '" + opTok.text + "'"); break;
    case Opcode::StageInit: {
      Token n = peek();
      inst->imm = expectInt("the number of arrivals per phase after 'stage_init'");
      if (inst->imm < 1 || inst->imm > 1024) failAt(n.loc, "'stage_init' needs between 1 and 1024 arrivals per phase");
      break;
    }
    default: break;
  }

  if (op == Opcode::Print) {
    // print [hex] "PREFIX"[, %v, ...]: values follow a comma (line breaks
    // are not significant, so nothing else could end the list).
    if (peek().isWord("hex")) {
      take();
      inst->sub = kPrintHex;
    }
    if (peek().kind != TokKind::String) failExpected("expected the prefix string of 'print' (\"\" for none)");
    inst->text = take().text;
    while (accept(',')) inst->addOperand(parseOperand());
  } else if (op == Opcode::InlineAsm) {
    // inline_asm [pure] "ASSEMBLY"[, %v, ...]
    if (peek().isWord("pure")) {
      take();
      inst->sub = kInlineAsmPure;
    }
    if (peek().kind != TokKind::String) failExpected("expected the assembly string of 'inline_asm'");
    inst->text = take().text;
    while (accept(',')) inst->addOperand(parseOperand());
  } else if (op == Opcode::Assert) {
    inst->addOperand(parseOperand());
    expect(',', "after the condition of 'assert'");
    if (peek().kind != TokKind::String) failExpected("expected the message string of 'assert'");
    inst->text = take().text;
  } else if (op == Opcode::Phi) {
    parsePhiIncoming(inst);
  } else if (op == Opcode::Br) {
    parseLabelRef(inst);
  } else if (op == Opcode::CondBr) {
    inst->addOperand(parseOperand());
    expect(',', "after the branch condition");
    parseLabelRef(inst);
    expect(',', "between the branch targets");
    parseLabelRef(inst);
  } else if (op == Opcode::ScanFn || op == Opcode::ReduceFn) {
    parseOperands(inst);
  } else if (op == Opcode::Ret) {
    // A combine function's `ret %a, %b` (a kernel's ret has none): values
    // start with '%' or a constant's type; `%x =` is the next instruction
    // (a terminator in the middle of a block, which the verifier reports),
    // `bb:` the next block.
    if ((peek().kind == TokKind::Local && !peek(1).is('=')) ||
        (peek().kind == TokKind::Word && scalarFromName(peek().text) && !peek(1).is(':')))
      parseOperands(inst);
  } else if (operandCount(op).most > 0 && !(operandCount(op).fewest == 0 && peek().is(':'))) {
    parseOperands(inst);
  }

  if (producesValue(op)) {
    bool hasOperands = op == Opcode::Phi || op == Opcode::ScanFn || op == Opcode::ReduceFn || operandCount(op).most > 0;
    expect(':', hasOperands ? "after operand list" : "before the result type");
    inst->setType(parseType());
  } else if (peek().is(':')) {
    failAt(peek().loc, "'" + opTok.text + "' has no result type");
  }
  parseAttributes(inst);
  inst->loc = parseOptionalLoc();
  bb->append(std::move(owned));
  if (result) defineValue(*result, inst);
}

void Parser::parseOperands(Instruction* inst) {
  std::vector<SourceLoc> locs;
  do {
    locs.push_back(peek().loc);
    inst->addOperand(parseOperand());
  } while (accept(','));
  OperandCount count = operandCount(inst->opcode());
  if (count.accepts(locs.size())) return;
  std::string message = std::string("'") + opcodeName(inst->opcode()) + "' expects " +
                        operandCountText(inst->opcode()) + " operands, got " +
                        std::to_string(locs.size());
  if (locs.size() > count.most) failAt(locs[count.most], message);
  if (peek().kind == TokKind::Local) failAt(peek().loc, "expected ',' between operands");
  failExpected(message);
}

void Parser::parsePhiIncoming(Instruction* inst) {
  if (!peek().is('[')) return;  // a phi without incoming values
  do {
    expect('[', "to start a phi incoming value such as '[%v, label]'");
    inst->addOperand(parseOperand());
    expect(',', "between the phi value and its block");
    parseLabelRef(inst);
    expect(']', "after the phi incoming block");
  } while (accept(','));
}

SourceLoc Parser::parseOptionalLoc() {
  if (!peek().isWord("loc") || !peek(1).is('(')) return SourceLoc{};
  take();
  take();
  auto component = [&](const char* what) {
    Token t = peek();
    int64_t v = expectInt(std::string("a ") + what + " number in 'loc(LINE:COL)'");
    if (v < 0 || v > int64_t(std::numeric_limits<uint32_t>::max()))
      failAt(t.loc, std::string(what) + " number out of range");
    return uint32_t(v);
  };
  SourceLoc loc;
  loc.line = component("line");
  expect(':', "between line and column in 'loc(LINE:COL)'");
  loc.col = component("column");
  expect(')', "after 'loc(LINE:COL'");
  return loc;
}

}  // namespace

std::unique_ptr<Module> parseModule(const std::string& text) { return Parser(text).run(); }

}  // namespace tritonc::ir
