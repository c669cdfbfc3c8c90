// The abstract syntax tree of Triton-C. Plain structs; ownership by unique_ptr.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "ir/type.h"
#include "support/diagnostic.h"

namespace tritonc::lang {

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

// Attributes on parameters and variables: __multipleof(N), __aligned(N), ...
struct Attrs {
  ExprPtr multipleOf;  // constant expression
  ExprPtr aligned;     // constant expression
  bool readonly = false;
  std::string readonlyWord;  // "__readonly" or "read_only", as written
  bool noalias = false;
};

// A type as written: `const float*`, `int`, `TYPE` (after preprocessing).
struct TypeSpec {
  ir::Scalar scalar = ir::Scalar::Void;
  int pointerDepth = 0;
  bool isConst = false;
  bool tunable = false;
  bool constantSpace = false;  // __constant__
  bool restrict = false;
  bool readonly = false;       // read_only / __readonly
  std::string readonlyWord;    // which of the two, as written
  SourceLoc loc;
};

enum class ExprKind {
  IntLit, FloatLit, StringLit, Ident, Unary, Binary, Assign, Ternary, Call, Subscript, Cast, Range, Deref,
  IncDec, InitList, AllocConst
};

// One item of a subscript: `:`, `newaxis`, a reduction `+`, `max`, `min`,
// an element index `3` (the axis dropped), or a slice `16:48`, `:8`, `8:`.
// The index and bounds are expressions among the Subscript's args (args[0]
// is the subscripted value), named by their position there.
struct SliceItem {
  enum Kind { All, NewAxis, Reduce, Index, Bounds } kind = All;
  std::string reduceOp;  // "+", "max", "min"
  int first = -1;        // Index: the index; Bounds: the lower bound (-1: 0)
  int last = -1;         // Bounds: the upper bound (-1: the dimension's end)
  SourceLoc loc;
};

struct Expr {
  ExprKind kind;
  SourceLoc loc;
  std::string op;                 // operator text, identifier name, callee, or a string's contents
  int64_t intValue = 0;           // IntLit
  double floatValue = 0;          // FloatLit
  std::vector<ExprPtr> args;      // operands / call arguments / list elements
  std::vector<SliceItem> slices;  // Subscript
  TypeSpec castType;              // Cast, AllocConst
  std::vector<ExprPtr> castShape; // Cast to a tile type `(float[TN])x`; AllocConst size
  ExprPtr sizeArg;                // get_global_range[TM](0)
  bool prefix = false;            // IncDec: ++x vs x++
  bool parenthesized = false;
  bool masked = false;            // Deref: *?(mask) p  (args[0] = mask, args[1] = ptr)

  Expr(ExprKind k, SourceLoc l) : kind(k), loc(l) {}
  // Not recursive: a chain `a + b + c ...` is a tree as deep as it is long.
  ~Expr();
  Expr(const Expr&) = delete;
  Expr& operator=(const Expr&) = delete;
};

// The left spine of a binary chain: `e`, its left operand while that is a
// Binary too, and so on (top first; the last one's left operand is not a
// Binary; empty when `e` is not a Binary). Walks of the AST go down a chain with this loop instead of
// recursing once per operator.
std::vector<const Expr*> binarySpine(const Expr& e);

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;

struct Declarator {
  std::string name;
  SourceLoc loc;
  int extraPointer = 0;            // `int *p` binds the * to the declarator
  std::vector<ExprPtr> shape;      // empty: not a tile
  Attrs attrs;
  ExprPtr init;                    // may be null
};

enum class StmtKind { Block, Decl, Expr, If, For, While, DoWhile, Return, Break, Continue, Predicated, Empty };

struct Stmt {
  StmtKind kind;
  SourceLoc loc;
  std::vector<StmtPtr> body;       // Block; If: [then, else?]; loops: [body]; Predicated: [stmt]; For: [init?]
  TypeSpec declType;               // Decl
  std::vector<Declarator> decls;   // Decl
  ExprPtr expr;                    // Expr, If/While/DoWhile condition, For condition, Predicated mask
  ExprPtr step;                    // For increment
  StmtPtr init;                    // For init (a Decl or Expr statement), may be null

  Stmt(StmtKind k, SourceLoc l) : kind(k), loc(l) {}
};

struct Param {
  TypeSpec type;
  Declarator decl;
};

struct FunctionDef {
  std::string name;
  SourceLoc loc;
  bool isKernel = false;  // __global__ or kernel
  TypeSpec returnType;
  std::vector<Param> params;
  StmtPtr body;
};

// A translation unit: global declarations (tunable constants, __constant__
// tables) and function definitions, in source order.
struct TranslationUnit {
  std::vector<StmtPtr> globals;      // Decl statements
  std::vector<FunctionDef> functions;
};

}  // namespace tritonc::lang
