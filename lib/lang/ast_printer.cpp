// Prints the AST as an indented tree, one node per line (`tritonc emit --stage ast`).
#include <sstream>

#include "lang/compile.h"
#include "lang/parser.h"

namespace tritonc::lang {

namespace {

class AstPrinter {
 public:
  std::string run(const TranslationUnit& tu) {
    for (auto& g : tu.globals) stmt(*g, 0);
    for (auto& f : tu.functions) function(f);
    return out_.str();
  }

 private:
  void line(int depth, const std::string& text, SourceLoc loc) {
    out_ << std::string(size_t(depth) * 2, ' ') << text;
    if (loc.known()) out_ << "  <" << loc.line << ":" << loc.col << ">";
    out_ << "\n";
  }

  static std::string type(const TypeSpec& t, int extraPointer = 0) {
    std::string s;
    if (t.isConst) s += "const ";
    if (t.tunable) s += "tunable ";
    if (t.constantSpace) s += "__constant__ ";
    if (t.restrict) s += "restrict ";
    if (t.readonly) s += "readonly ";
    s += t.scalar == ir::Scalar::Void ? "void" : ir::scalarName(t.scalar);
    s += std::string(size_t(t.pointerDepth + extraPointer), '*');
    return s;
  }

  void function(const FunctionDef& f) {
    line(0, std::string(f.isKernel ? "Kernel " : "Function ") + f.name, f.loc);
    for (auto& p : f.params) declarator("Param", p.type, p.decl, 1);
    stmt(*f.body, 1);
  }

  void declarator(const char* what, const TypeSpec& t, const Declarator& d, int depth) {
    std::string s = std::string(what) + " " + type(t, d.extraPointer) + " " + d.name;
    line(depth, s, d.loc);
    if (!d.shape.empty()) {
      line(depth + 1, "Shape", SourceLoc{});
      for (auto& e : d.shape) expr(*e, depth + 2);
    }
    if (d.attrs.multipleOf) { line(depth + 1, "MultipleOf", SourceLoc{}); expr(*d.attrs.multipleOf, depth + 2); }
    if (d.attrs.aligned) { line(depth + 1, "Aligned", SourceLoc{}); expr(*d.attrs.aligned, depth + 2); }
    if (d.attrs.readonly) line(depth + 1, "ReadOnly", SourceLoc{});
    if (d.attrs.noalias) line(depth + 1, "NoAlias", SourceLoc{});
    if (d.init) { line(depth + 1, "Init", SourceLoc{}); expr(*d.init, depth + 2); }
  }

  void stmt(const Stmt& s, int depth) {
    static const char* const names[] = {"Block", "Decl", "ExprStmt", "If", "For", "While", "DoWhile",
                                        "Return", "Break", "Continue", "Predicated", "Empty"};
    if (s.kind == StmtKind::Decl) {
      for (auto& d : s.decls) declarator("Decl", s.declType, d, depth);
      return;
    }
    line(depth, names[int(s.kind)], s.loc);
    if (s.init) stmt(*s.init, depth + 1);
    if (s.expr) expr(*s.expr, depth + 1);
    if (s.step) expr(*s.step, depth + 1);
    for (auto& b : s.body) stmt(*b, depth + 1);
  }

  // A chain `a + b - c` (operators of one precedence, as written without
  // parentheses) prints as one node, `Binary + -`, over its operands: a tree
  // printed level by level would be as deep as the chain is long.
  void chain(const Expr& e, int depth) {
    std::vector<const Expr*> links{&e};
    for (const Expr* x = &e; x->args[0]->kind == ExprKind::Binary && !x->args[0]->parenthesized &&
                             binaryPrecedence(x->args[0]->op) == binaryPrecedence(e.op);) {
      x = x->args[0].get();
      links.push_back(x);
    }
    std::string ops = "Binary";
    for (auto it = links.rbegin(); it != links.rend(); ++it) ops += " " + (*it)->op;
    line(depth, ops, links.back()->loc);
    expr(*links.back()->args[0], depth + 1);
    for (auto it = links.rbegin(); it != links.rend(); ++it) expr(*(*it)->args[1], depth + 1);
  }

  void expr(const Expr& e, int depth) {
    if (e.kind == ExprKind::Binary) return chain(e, depth);
    std::string s;
    switch (e.kind) {
      case ExprKind::IntLit: s = "Int " + std::to_string(e.intValue); break;
      case ExprKind::FloatLit: s = "Float " + e.op; break;
      case ExprKind::StringLit: s = "String \"" + e.op + "\""; break;
      case ExprKind::Ident: s = "Ident " + e.op; break;
      case ExprKind::Unary: s = "Unary " + e.op; break;
      case ExprKind::Binary: break;  // chain()
      case ExprKind::Assign: s = "Assign " + e.op; break;
      case ExprKind::Ternary: s = "Ternary"; break;
      case ExprKind::Call: s = "Call " + e.op; break;
      case ExprKind::Subscript: {
        s = "Subscript [";
        for (size_t i = 0; i < e.slices.size(); ++i) {
          const SliceItem& it = e.slices[i];
          std::string item;
          switch (it.kind) {
            case SliceItem::All: item = ":"; break;
            case SliceItem::NewAxis: item = "newaxis"; break;
            case SliceItem::Reduce: item = it.reduceOp; break;
            case SliceItem::Index: item = "index"; break;  // the expressions follow the value, in order
            case SliceItem::Bounds: item = std::string(it.first >= 0 ? "lo" : "") + ":" + (it.last >= 0 ? "hi" : ""); break;
          }
          s += (i ? ", " : "") + item;
        }
        s += "]";
        break;
      }
      case ExprKind::Cast: s = "Cast " + type(e.castType); break;
      case ExprKind::Range: s = "Range ..."; break;
      case ExprKind::Deref: s = e.masked ? "MaskedDeref" : "Deref"; break;
      case ExprKind::IncDec: s = std::string(e.prefix ? "Pre" : "Post") + e.op; break;
      case ExprKind::InitList: s = "InitList"; break;
      case ExprKind::AllocConst: s = "AllocConst " + type(e.castType); break;
    }
    line(depth, s, e.loc);
    if (e.sizeArg) expr(*e.sizeArg, depth + 1);
    for (auto& d : e.castShape) expr(*d, depth + 1);
    for (auto& a : e.args) expr(*a, depth + 1);
  }

  std::ostringstream out_;
};

}  // namespace

std::string printAst(const TranslationUnit& tu) { return AstPrinter().run(tu); }

}  // namespace tritonc::lang
