// IR generation with semantic analysis: one walk over the AST that checks
// types and tile shapes and builds SSA Triton-IR as it goes (every check needs
// exactly the information that building the IR computes). Internal to lib/lang;
// the public entry point is compileSource in compile.h.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ir/builder.h"
#include "lang/ast.h"
#include "lang/compile.h"
#include "lang/readonly_stores.h"
#include "lang/ssa_builder.h"

namespace tritonc::lang {

class IRGen {
 public:
  IRGen(ir::Module& m, std::vector<TuningParam>& tuning, std::vector<std::string>& notes,
        std::vector<Warning>& warnings)
      : module_(m), b_(m), ssa_(m), tuning_(tuning), notes_(notes), warnings_(warnings) {}

  void translationUnit(const TranslationUnit& tu);
  // -D values given for names the source declares `tunable`: they replace the
  // declaration's list (the caller's choice wins over the source's).
  void setTunableOverrides(std::map<std::string, std::vector<std::string>> o) { tunableOverrides_ = std::move(o); }

 private:
  // ---- symbols (irgen.cpp) -------------------------------------------------
  struct Symbol {
    enum Kind { Variable, Constant, Table } kind = Variable;
    ir::Type type;
    int var = -1;          // SSA variable (Variable)
    int64_t value = 0;     // compile-time value (Constant)
    bool isConst = false;  // declared const: assignments are errors
    int64_t multipleOf = 0;
    SourceLoc loc;
    int64_t tableSize = 0;  // Table: __constant__ look-up table size
  };
  void pushScope() { scopes_.emplace_back(); }
  void popScope() { scopes_.pop_back(); }
  Symbol* lookup(const std::string& name);
  void declare(const std::string& name, Symbol s, SourceLoc loc);

  // ---- declarations and statements (irgen.cpp) ----------------------------
  void globalDecl(const Stmt& s);
  void function(const FunctionDef& f);
  void statement(const Stmt& s);
  void declaration(const Stmt& s);
  void ifStmt(const Stmt& s);
  void loop(const Stmt& s);
  ir::Type declaredType(const TypeSpec& ts, int extraPointer, const std::vector<ExprPtr>& shape,
                        SourceLoc loc);
  ir::BasicBlock* newBlock(const std::string& name);
  void branch(ir::BasicBlock* to);
  void condBranch(ir::Value* c, ir::BasicBlock* t, ir::BasicBlock* f);
  void startBlock(ir::BasicBlock* bb);
  ir::Value* scalarCondition(const Expr& e, const char* what);

  // ---- expressions (irgen_expr.cpp) ---------------------------------------
  ir::Value* expr(const Expr& e);
  ir::Value* binaryChain(const Expr& e);
  // One operator of a chain, its left operand `a` already evaluated.
  ir::Value* binary(const Expr& e, ir::Value* a);
  ir::Value* arith(const std::string& op, ir::Value* a, ir::Value* b, const Expr* ea, const Expr* eb,
                   SourceLoc loc);
  // Converts two operands to their common kind and broadcast shape.
  std::pair<ir::Value*, ir::Value*> unifyOperands(ir::Value* a, ir::Value* b, const Expr* ea, const Expr* eb,
                                                  SourceLoc loc, const std::string& op, bool bitwise = false);
  ir::Value* logical(const Expr& e, ir::Value* left);
  ir::Value* unary(const Expr& e);
  ir::Value* ternary(const Expr& e);
  ir::Value* subscript(const Expr& e);
  ir::Value* range(const Expr& e);
  ir::Value* cast(const Expr& e);
  ir::Value* deref(const Expr& e);
  ir::Value* assign(const Expr& e);
  ir::Value* incDec(const Expr& e);
  ir::Value* identifier(const Expr& e);
  ir::Value* matmul(ir::Value* a, ir::Value* b, ir::Value* acc, SourceLoc loc);
  void storeTo(const Expr& target, ir::Value* v, SourceLoc loc);
  void writeVariable(const Expr& target, ir::Value* v, SourceLoc loc);

  // ---- built-in calls (irgen_call.cpp) ------------------------------------
  ir::Value* call(const Expr& e);

  // ---- tile algorithms (irgen_tiles.cpp) ----------------------------------
  // `v` without its `axis` of length 1 (a 1-D tile: its one element).
  ir::Value* dropUnitAxis(ir::Value* v, size_t axis);
  ir::Value* indexAxis(ir::Value* v, size_t axis, int64_t i);
  ir::Value* sliceAxis(ir::Value* v, size_t axis, int64_t start, int64_t length);
  ir::Value* tileAlgorithm(const Expr& e);  // sort, topk, topk_indices

  // ---- types and shapes (irgen_types.cpp) ---------------------------------
  ir::Scalar commonKind(ir::Scalar a, ir::Scalar b) const;
  ir::Shape broadcastShapes(const ir::Shape& a, const ir::Shape& b, SourceLoc loc, const char* what) const;
  ir::Value* convertKind(ir::Value* v, ir::Scalar k);
  ir::Value* broadcastTo(ir::Value* v, const ir::Shape& s, SourceLoc loc);
  // Converts `v` for assignment to something of type `t` (kind and shape).
  ir::Value* convertForAssign(ir::Value* v, const ir::Type& t, SourceLoc loc, const std::string& what);
  ir::Value* toBool(ir::Value* v, SourceLoc loc);
  ir::Value* zero(const ir::Type& t);
  std::optional<int64_t> constEval(const Expr& e);
  std::optional<int64_t> constBinary(const Expr& e, int64_t a, int64_t b);
  int64_t requireConst(const Expr& e, const char* what);
  int64_t shapeDim(const Expr& e);
  // Tiles have at most 4 dimensions and 2^20 elements: no program can make
  // the compiler (or the interpreter) allocate without bound.
  static constexpr int64_t kMaxTileElements = int64_t(1) << 20;
  void checkTileSize(const ir::Shape& s, SourceLoc loc) const;
  std::string typeName(const ir::Type& t) const;
  // Where a whole expression starts (its leftmost token), for errors about
  // the expression as a whole rather than about its operator.
  static SourceLoc leftmost(const Expr& e);

  // ---- predication --------------------------------------------------------
  // Masks that guard memory accesses and assignments: `@m stmt`, the arms of
  // `c ? a : b`, the right operand of && and ||.
  ir::Value* currentMask() const { return masks_.empty() ? nullptr : masks_.back(); }
  void pushMask(ir::Value* m, SourceLoc loc);
  void popMask() { masks_.pop_back(); }
  ir::Value* maskFor(const ir::Type& access, ir::Value* extra, SourceLoc loc);

  ir::Module& module_;
  ir::Builder b_;
  SsaBuilder ssa_;
  std::vector<TuningParam>& tuning_;
  std::vector<std::string>& notes_;
  std::vector<Warning>& warnings_;
  std::map<const ir::Argument*, ReadonlyOrigin> readonlyOrigins_;  // of the current function
  std::vector<std::map<std::string, Symbol>> scopes_;
  std::vector<ir::Value*> masks_;
  ir::Function* fn_ = nullptr;
  struct LoopTargets {
    ir::BasicBlock* continueTo;
    ir::BasicBlock* breakTo;
  };
  std::vector<LoopTargets> loops_;
  std::optional<ir::Shape> rangeHint_;
  const Expr* statementExpr_ = nullptr;  // the expression of the statement being generated  // declared 1-D shape, for get_global_range(axis)
  std::map<std::string, std::vector<std::string>> tunableOverrides_;
};

}  // namespace tritonc::lang
