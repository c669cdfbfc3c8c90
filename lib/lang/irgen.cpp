// IR generation: declarations, statements, control flow.
#include "lang/irgen.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "ir/cfg.h"

namespace tritonc::lang {

using ir::Scalar;

// ---- symbols ---------------------------------------------------------------

IRGen::Symbol* IRGen::lookup(const std::string& name) {
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    auto f = it->find(name);
    if (f != it->end()) return &f->second;
  }
  return nullptr;
}

void IRGen::declare(const std::string& name, Symbol s, SourceLoc loc) {
  auto& scope = scopes_.back();
  auto it = scope.find(name);
  if (it != scope.end())
    throw UserError(loc, "redefinition of '" + name + "' (first defined at line " +
                             std::to_string(it->second.loc.line) + ")");
  s.loc = loc;
  scope[name] = std::move(s);
}

ir::Type IRGen::declaredType(const TypeSpec& ts, int extraPointer, const std::vector<ExprPtr>& shape,
                             SourceLoc loc) {
  int depth = ts.pointerDepth + extraPointer;
  if (depth > 1) throw UserError(loc, "pointers to pointers are not supported in Triton-C");
  if (ts.scalar == Scalar::Void && depth == 0) throw UserError(loc, "a variable cannot have type void");
  if (ts.scalar == Scalar::Void) throw UserError(loc, "void pointers are not supported; use a typed pointer");
  ir::Shape s;
  int64_t elems = 1;
  for (auto& d : shape) {
    s.push_back(shapeDim(*d));
    // Checked before multiplying, so that huge dimensions cannot overflow.
    if (s.back() > kMaxTileElements / elems)
      throw UserError(d->loc, "tile of shape " + ir::shapeToString(s) + "... is too large (more than " +
                                  std::to_string(kMaxTileElements) + " elements)");
    elems *= s.back();
  }
  if (s.size() > 4) throw UserError(loc, "tiles have at most 4 dimensions");
  return depth ? ir::Type::pointer(ts.scalar, s) : ir::Type::scalar(ts.scalar).withShape(s);
}

// ---- translation unit --------------------------------------------------------

void IRGen::translationUnit(const TranslationUnit& tu) {
  pushScope();  // globals
  for (auto& g : tu.globals) globalDecl(*g);
  if (tu.functions.empty()) throw UserError(SourceLoc{1, 1}, "no kernel function in this file");
  for (auto& f : tu.functions) function(f);
  popScope();
}

void IRGen::globalDecl(const Stmt& s) {
  for (auto& d : s.decls) {
    if (d.init && d.init->kind == ExprKind::AllocConst) {
      // `__constant__ int* delta = alloc_const int[512];` : a constant look-up
      // table that the launch fills; it becomes a kernel parameter.
      ir::Type t = declaredType(s.declType, d.extraPointer, d.shape, d.loc);
      const Expr& a = *d.init;
      if (!t.isPtr() || t.isTile() || t.pointee != a.castType.scalar || a.castType.pointerDepth)
        throw UserError(d.loc, "alloc_const " + std::string(ir::scalarName(a.castType.scalar)) +
                                   "[...] must initialize a pointer to " + ir::scalarName(a.castType.scalar));
      int64_t n = requireConst(*a.castShape[0], "the size of alloc_const");
      if (n <= 0 || n > (int64_t(1) << 30)) throw UserError(a.castShape[0]->loc, "bad alloc_const size " + std::to_string(n));
      Symbol sym;
      sym.kind = Symbol::Table;
      sym.type = t;
      sym.tableSize = n;
      declare(d.name, sym, d.loc);
      continue;
    }
    if (!s.declType.isConst && !s.declType.tunable)
      throw UserError(d.loc, "global variable '" + d.name +
                                 "' must be a constant ('const int', 'const tunable int') or a "
                                 "'__constant__' table");
    if (!d.init) throw UserError(d.loc, "constant '" + d.name + "' needs a value");
    if (s.declType.pointerDepth || !ir::isIntKind(s.declType.scalar) || !d.shape.empty())
      throw UserError(d.loc, "global constant '" + d.name + "' must be a scalar integer");
    declaration(s);
    return;
  }
}

void IRGen::function(const FunctionDef& f) {
  if (f.returnType.scalar != Scalar::Void || f.returnType.pointerDepth)
    throw UserError(f.loc, "kernel '" + f.name + "' must return void");
  if (module_.function(f.name)) throw UserError(f.loc, "redefinition of function '" + f.name + "'");
  fn_ = module_.addFunction(f.name);
  fn_->loc = f.loc;
  pushScope();
  ir::BasicBlock* entry = newBlock("entry");
  startBlock(entry);
  ssa_.seal(entry);
  b_.setLoc(f.loc);
  for (auto& p : f.params) {
    ir::Type t = declaredType(p.type, p.decl.extraPointer, p.decl.shape, p.decl.loc);
    if (t.isTile()) throw UserError(p.decl.loc, "kernel parameter '" + p.decl.name + "' cannot be a tile");
    ir::Argument* arg = fn_->addArgument(t, p.decl.name);
    const Attrs& a = p.decl.attrs;
    if (a.multipleOf) {
      int64_t m = requireConst(*a.multipleOf, "__multipleof");
      if (m <= 0 || m > (int64_t(1) << 30))
        throw UserError(a.multipleOf->loc, "__multipleof needs a positive value up to 2^30, got " + std::to_string(m));
      if (!t.isPtr() && !t.isInt())
        throw UserError(a.multipleOf->loc, "__multipleof applies to integer and pointer parameters, not " + typeName(t));
      if (t.isPtr()) {
        // N elements of the pointee: the address is aligned to the largest
        // power of two dividing N * sizeof(T).
        int64_t bytes = m * ir::byteSize(t.pointee);
        arg->attrs.aligned = bytes & -bytes;
      } else {
        arg->attrs.multipleOf = m;
      }
    }
    if (a.aligned) {
      int64_t al = requireConst(*a.aligned, "__aligned");
      if (al <= 0 || (al & (al - 1))) throw UserError(a.aligned->loc, "__aligned needs a power of two");
      if (!t.isPtr()) throw UserError(a.aligned->loc, "__aligned applies to pointer parameters");
      arg->attrs.aligned = al;
    }
    arg->attrs.readonly = a.readonly || p.type.readonly || (p.type.isConst && t.isPtr());
    if (arg->attrs.readonly)
      readonlyOrigins_[arg] = {a.readonly ? a.readonlyWord : p.type.readonly ? p.type.readonlyWord : "const", p.decl.loc};
    arg->attrs.noalias = a.noalias || p.type.restrict;
    Symbol sym;
    sym.type = t;
    sym.var = ssa_.newVariable(t, p.decl.name);
    ssa_.write(sym.var, b_.block(), arg);
    declare(p.decl.name, sym, p.decl.loc);
  }
  // Look-up tables declared at global scope are trailing parameters.
  for (auto& [name, sym] : scopes_.front())
    if (sym.kind == Symbol::Table) {
      ir::Argument* arg = fn_->addArgument(sym.type, name);
      arg->attrs.constantTable = sym.tableSize;
      arg->attrs.readonly = true;
      Symbol local;
      local.type = sym.type;
      local.var = ssa_.newVariable(sym.type, name);
      ssa_.write(local.var, b_.block(), arg);
      declare(name, local, sym.loc);
    }
  statement(*f.body);
  if (b_.block() && !b_.block()->terminator()) {
    b_.setLoc(f.body->loc);
    b_.ret();
  }
  ssa_.finalize();
  // Blocks that nothing reaches (code after a return) are dropped.
  ir::removeUnreachableBlocks(*fn_);
  for (Warning& w : dropBrokenReadonly(*fn_, readonlyOrigins_)) warnings_.push_back(std::move(w));
  readonlyOrigins_.clear();
  popScope();
  fn_ = nullptr;
}

// ---- blocks -----------------------------------------------------------------

ir::BasicBlock* IRGen::newBlock(const std::string& name) { return fn_->addBlock(name); }

void IRGen::startBlock(ir::BasicBlock* bb) { b_.setInsertPoint(bb); }

void IRGen::branch(ir::BasicBlock* to) {
  b_.br(to);
  ssa_.addEdge(b_.block(), to);
}

void IRGen::condBranch(ir::Value* c, ir::BasicBlock* t, ir::BasicBlock* f) {
  b_.condBr(c, t, f);
  ssa_.addEdge(b_.block(), t);
  ssa_.addEdge(b_.block(), f);
}

ir::Value* IRGen::scalarCondition(const Expr& e, const char* what) {
  ir::Value* c = expr(e);
  if (c->type().isTile())
    throw UserError(leftmost(e), std::string("the condition of '") + what + "' must be a scalar, not a tile of shape " +
                               ir::shapeToString(c->type().shape) + "; use '@mask' or '?:' for tiles");
  b_.setLoc(e.loc);
  return toBool(c, e.loc);
}

// ---- statements ---------------------------------------------------------------

void IRGen::statement(const Stmt& s) {
  b_.setLoc(s.loc);
  switch (s.kind) {
    case StmtKind::Block:
      pushScope();
      for (auto& st : s.body) statement(*st);
      popScope();
      return;
    case StmtKind::Decl: return declaration(s);
    case StmtKind::Expr:
      statementExpr_ = s.expr.get();  // the one place a void call may stand
      expr(*s.expr);
      statementExpr_ = nullptr;
      return;
    case StmtKind::Empty: return;
    case StmtKind::If: return ifStmt(s);
    case StmtKind::For:
    case StmtKind::While:
    case StmtKind::DoWhile: return loop(s);
    case StmtKind::Predicated: {
      ir::Value* m = expr(*s.expr);
      b_.setLoc(s.expr->loc);
      m = toBool(m, s.expr->loc);
      pushMask(m, s.expr->loc);
      statement(*s.body[0]);
      popMask();
      return;
    }
    case StmtKind::Return: {
      if (s.expr) throw UserError(s.expr->loc, "a kernel returns no value");
      if (!masks_.empty()) throw UserError(s.loc, "'return' cannot be predicated");
      b_.ret();
      startBlock(newBlock("after.return"));
      ssa_.seal(b_.block());
      return;
    }
    case StmtKind::Break:
    case StmtKind::Continue: {
      bool isBreak = s.kind == StmtKind::Break;
      if (loops_.empty())
        throw UserError(s.loc, std::string("'") + (isBreak ? "break" : "continue") + "' outside of a loop");
      if (!masks_.empty()) throw UserError(s.loc, "'break' and 'continue' cannot be predicated");
      branch(isBreak ? loops_.back().breakTo : loops_.back().continueTo);
      startBlock(newBlock(isBreak ? "after.break" : "after.continue"));
      ssa_.seal(b_.block());
      return;
    }
  }
}

void IRGen::declaration(const Stmt& s) {
  const TypeSpec& ts = s.declType;
  for (auto& d : s.decls) {
    b_.setLoc(d.loc);
    if (d.init && d.init->kind == ExprKind::AllocConst)
      throw UserError(d.loc, "alloc_const tables must be declared at global scope");
    ir::Type t = declaredType(ts, d.extraPointer, d.shape, d.loc);
    Symbol sym;
    sym.type = t;
    sym.isConst = ts.isConst || ts.tunable;
    // Integer constants with constant values are compile-time constants:
    // they can size tiles (`const tunable int TM = {16, 32};`).
    if (d.init && d.init->kind == ExprKind::InitList) {
      if (!ts.tunable) throw UserError(d.init->loc, "an initializer list '{...}' declares a 'tunable' constant; add 'tunable'");
      if (t.isTile() || t.isPtr() || !t.isInt())
        throw UserError(d.loc, "tunable '" + d.name + "' must be a scalar integer");
      if (d.init->args.empty()) throw UserError(d.init->loc, "tunable '" + d.name + "' has no values");
      TuningParam tp;
      tp.name = d.name;
      tp.fromSource = true;
      for (auto& v : d.init->args) tp.values.push_back(std::to_string(requireConst(*v, "a tunable value")));
      auto over = tunableOverrides_.find(d.name);
      if (over != tunableOverrides_.end()) {
        tp.values = over->second;
        tp.fromSource = false;
      }
      char* end = nullptr;
      errno = 0;
      long long first = std::strtoll(tp.values[0].c_str(), &end, 0);
      if (tp.values[0].empty() || *end || errno == ERANGE)
        throw UserError(d.loc, "-D" + d.name + "=" + tp.values[0] + " must be an integer: '" + d.name +
                                   "' is declared tunable int here");
      sym.kind = Symbol::Constant;
      sym.value = ir::wrapInt(t.kind, first);
      if (tp.values.size() > 1) {
        std::string list;
        for (auto& v : tp.values) list += (list.empty() ? "" : ", ") + v;
        notes_.push_back("'" + d.name + "' is tunable over {" + list +
                         "}; this compile uses " + tp.values[0] + " (a tuned launch or `tritonc tune` tries each)");
      }
      tuning_.push_back(tp);
      declare(d.name, sym, d.loc);
      continue;
    }
    if (ts.tunable) throw UserError(d.loc, "tunable '" + d.name + "' needs a list of values '{...}'");
    if (sym.isConst && d.init && t.isInt() && !t.isTile() && !t.isPtr()) {
      if (auto v = constEval(*d.init)) {
        sym.kind = Symbol::Constant;
        sym.value = ir::wrapInt(t.kind, *v);
        declare(d.name, sym, d.loc);
        continue;
      }
    }
    if (!fn_) throw UserError(d.loc, "global constant '" + d.name + "' needs a compile-time value");
    ir::Value* v;
    if (d.init) {
      rangeHint_ = t.shape.size() == 1 ? std::optional<ir::Shape>(t.shape) : std::nullopt;
      v = expr(*d.init);
      rangeHint_.reset();
      b_.setLoc(d.loc);
      v = convertForAssign(v, t, leftmost(*d.init), "'" + d.name + "'");
    } else {
      v = t.isPtr() ? b_.cast(b_.i64(0), t.element()) : zero(t.element());
      if (t.isTile()) v = b_.splat(v, t.shape);
    }
    if (d.attrs.multipleOf) {
      int64_t m = requireConst(*d.attrs.multipleOf, "__multipleof");
      if (m <= 0) throw UserError(d.attrs.multipleOf->loc, "__multipleof needs a positive value");
      if (!t.isInt()) throw UserError(d.attrs.multipleOf->loc, "__multipleof applies to integers");
      v = b_.multipleOf(v, m);
      sym.multipleOf = m;
    }
    if (d.attrs.aligned) throw UserError(d.attrs.aligned->loc, "__aligned applies to pointer parameters");
    if (v->valueKind() == ir::ValueKind::Instruction && v->name().empty()) v->setName(d.name);
    sym.var = ssa_.newVariable(t, d.name);
    ssa_.write(sym.var, b_.block(), v);
    declare(d.name, sym, d.loc);
  }
}

void IRGen::ifStmt(const Stmt& s) {
  ir::Value* c = scalarCondition(*s.expr, "if");
  ir::BasicBlock* thenBB = newBlock("if.then");
  ir::BasicBlock* elseBB = s.body.size() > 1 ? newBlock("if.else") : nullptr;
  ir::BasicBlock* endBB = newBlock("if.end");
  condBranch(c, thenBB, elseBB ? elseBB : endBB);
  ssa_.seal(thenBB);
  startBlock(thenBB);
  statement(*s.body[0]);
  branch(endBB);
  if (elseBB) {
    ssa_.seal(elseBB);
    startBlock(elseBB);
    statement(*s.body[1]);
    branch(endBB);
  }
  ssa_.seal(endBB);
  startBlock(endBB);
}

void IRGen::loop(const Stmt& s) {
  // for:   init; br cond; cond: c ? body : exit; body: ...; br step; step: ...; br cond
  // while: the same without init and step; do-while enters the body first.
  pushScope();
  if (s.init) statement(*s.init);
  const char* kw = s.kind == StmtKind::For ? "for" : s.kind == StmtKind::While ? "while" : "do";
  ir::BasicBlock* condBB = newBlock(std::string(kw) + ".cond");
  ir::BasicBlock* bodyBB = newBlock(std::string(kw) + ".body");
  ir::BasicBlock* stepBB = s.kind == StmtKind::For ? newBlock("for.step") : condBB;
  ir::BasicBlock* exitBB = newBlock(std::string(kw) + ".end");
  branch(s.kind == StmtKind::DoWhile ? bodyBB : condBB);

  if (s.kind != StmtKind::DoWhile) {
    startBlock(condBB);
    ir::Value* c = s.expr ? scalarCondition(*s.expr, kw) : b_.boolean(true);
    condBranch(c, bodyBB, exitBB);
    ssa_.seal(bodyBB);
  }
  startBlock(bodyBB);
  loops_.push_back({stepBB, exitBB});
  statement(*s.body[0]);
  loops_.pop_back();
  branch(stepBB);
  if (s.kind == StmtKind::For) {
    ssa_.seal(stepBB);
    startBlock(stepBB);
    if (s.step) expr(*s.step);
    branch(condBB);
  }
  if (s.kind == StmtKind::DoWhile) {
    ssa_.seal(condBB);
    startBlock(condBB);
    ir::Value* c = scalarCondition(*s.expr, "while");
    condBranch(c, bodyBB, exitBB);
    ssa_.seal(bodyBB);
  } else {
    ssa_.seal(condBB);
  }
  ssa_.seal(exitBB);
  startBlock(exitBB);
  popScope();
}

}  // namespace tritonc::lang
