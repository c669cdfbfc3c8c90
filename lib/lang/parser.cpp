#include "lang/parser.h"

#include <cstdlib>
#include <cstring>
#include <optional>

namespace tritonc::lang {

namespace {

// Deeper input is an error, not a stack overflow: the parser, the AST's
// walks and IR generation recurse once per level. Left-associative chains
// (`a + b + c ...`) are no nesting: they are parsed, walked and generated
// by loops, whatever their length.
constexpr int kMaxNesting = 200;

bool isQualifier(const std::string& w) {
  static const char* const q[] = {"const", "restrict", "__restrict", "__restrict__", "read_only",
                                  "__readonly", "__constant__", "tunable", "volatile", "static",
                                  "__global__", "kernel", "extern", "inline", "__device__",
                                  "__noalias", "unsigned", "signed"};
  for (const char* s : q)
    if (w == s) return true;
  return false;
}

class Parser {
 public:
  explicit Parser(const Tokens& t) : toks_(t) {}

  TranslationUnit unit() {
    TranslationUnit tu;
    while (at().kind != TokKind::End) {
      if (at().isPunct(";")) { ++pos_; continue; }
      if (!startsDeclaration()) throw error(at(), "expected a function or a declaration at top level");
      // Look past the specifiers: `name (` starts a function definition.
      size_t save = pos_;
      typeSpec();
      bool isFunction = at().kind == TokKind::Ident && peek(1).isPunct("(");
      pos_ = save;
      if (isFunction) tu.functions.push_back(function());
      else tu.globals.push_back(declaration());
    }
    return tu;
  }

 private:
  // ---- token helpers ------------------------------------------------------
  const Token& at() const { return toks_[pos_]; }
  const Token& peek(size_t k) const { return toks_[std::min(pos_ + k, toks_.size() - 1)]; }
  static std::string describe(const Token& t) {
    if (t.kind == TokKind::End) return "end of input";
    return "'" + t.text + "'";
  }
  UserError error(const Token& t, const std::string& msg) const {
    return UserError(t.loc, msg + ", found " + describe(t));
  }
  bool accept(const char* p) {
    if (at().is(p)) { ++pos_; return true; }
    return false;
  }
  const Token& expect(const char* p, const char* context) {
    if (!at().is(p)) {
      // Something missing at the end of a line is reported there, not at the
      // start of the next line.
      if (pos_ > 0 && at().loc.line > toks_[pos_ - 1].loc.line) {
        const Token& prev = toks_[pos_ - 1];
        SourceLoc after{prev.loc.line, prev.loc.col + uint32_t(prev.text.size())};
        throw UserError(after, std::string("expected '") + p + "' " + context);
      }
      throw error(at(), std::string("expected '") + p + "' " + context);
    }
    return toks_[pos_++];
  }
  // One level of nesting, counted from the top of the function: a statement
  // inside another; an expression inside parentheses, a prefix operator, a
  // call, an arm of `?:`, the right side of `=`, a postfix operator.
  // (Binary operators nest only as far as their precedence levels go.)
  struct DepthGuard {
    int& d;
    DepthGuard(int& depth, const Token& t, const char* what = "expression") : d(depth) {
      if (++d > kMaxNesting) throw tooDeep(t, what);
    }
    ~DepthGuard() { --d; }
  };
  static UserError tooDeep(const Token& t, const char* what) {
    return UserError(t.loc, std::string(what) + " nested deeper than " + std::to_string(kMaxNesting) + " levels");
  }

  // ---- types --------------------------------------------------------------
  bool isTypeWord(const Token& t) const {
    return t.kind == TokKind::Ident && (scalarTypeKeyword(t.text) || isQualifier(t.text) ||
                                        t.text == "void");
  }
  bool startsDeclaration() const { return isTypeWord(at()) || at().text == "__multipleof" || at().text == "__aligned"; }

  TypeSpec typeSpec() {
    TypeSpec ts;
    ts.loc = at().loc;
    bool haveScalar = false;
    for (;;) {
      const Token& t = at();
      if (t.kind != TokKind::Ident) break;
      if (auto s = scalarTypeKeyword(t.text)) {
        if (haveScalar) {
          // `long long` and `long int` are one type
          if ((ts.scalar == ir::Scalar::I64 && (t.text == "long" || t.text == "int")) ||
              (ts.scalar == ir::Scalar::I16 && t.text == "int")) { ++pos_; continue; }
          throw UserError(t.loc, "two types in one declaration ('" + t.text + "')");
        }
        ts.scalar = *s;
        haveScalar = true;
        ++pos_;
        continue;
      }
      if (t.text == "void") {
        if (haveScalar) throw UserError(t.loc, "two types in one declaration ('void')");
        ts.scalar = ir::Scalar::Void;
        haveScalar = true;
        ++pos_;
        continue;
      }
      if (!isQualifier(t.text)) break;
      if (t.text == "unsigned") throw UserError(t.loc, "unsigned types are not supported in Triton-C");
      if (t.text == "const") ts.isConst = true;
      if (t.text == "tunable") ts.tunable = true;
      if (t.text == "__constant__") ts.constantSpace = true;
      if (t.text == "restrict" || t.text == "__restrict" || t.text == "__restrict__") ts.restrict = true;
      if (t.text == "read_only" || t.text == "__readonly") ts.readonly = true, ts.readonlyWord = t.text;
      ++pos_;
    }
    if (!haveScalar) throw error(at(), "expected a type name");
    while (at().isPunct("*")) {
      ++ts.pointerDepth;
      ++pos_;
      while (at().kind == TokKind::Ident && isQualifier(at().text) && at().text != "tunable") {
        if (at().text == "restrict" || at().text == "__restrict" || at().text == "__restrict__") ts.restrict = true;
        if (at().text == "read_only" || at().text == "__readonly") ts.readonly = true, ts.readonlyWord = at().text;
        ++pos_;
      }
    }
    return ts;
  }

  void attributes(Attrs& a) {
    for (;;) {
      const Token& t = at();
      if (t.is("__multipleof") || t.is("__aligned")) {
        ++pos_;
        expect("(", ("after " + t.text).c_str());
        ExprPtr e = assignment();
        expect(")", ("to close " + t.text + "(").c_str());
        (t.text == "__multipleof" ? a.multipleOf : a.aligned) = std::move(e);
      } else if (t.is("__readonly") || t.is("read_only")) {
        ++pos_;
        a.readonly = true;
        a.readonlyWord = t.text;
      } else if (t.is("__noalias") || t.is("restrict") || t.is("__restrict")) {
        ++pos_;
        a.noalias = true;
      } else if (t.is("__retune")) {
        ++pos_;
      } else {
        return;
      }
    }
  }

  Declarator declarator(bool allowInit) {
    Declarator d;
    while (at().isPunct("*")) { ++d.extraPointer; ++pos_; }
    attributes(d.attrs);
    if (at().kind != TokKind::Ident || isTypeWord(at())) throw error(at(), "expected a variable name");
    d.name = at().text;
    d.loc = at().loc;
    ++pos_;
    if (accept("[")) {
      if (at().isPunct("]")) throw error(at(), "expected a tile shape");
      for (;;) {
        d.shape.push_back(conditional());
        if (accept(",")) continue;
        expect("]", "to close the tile shape");
        break;
      }
      if (at().isPunct("["))
        throw UserError(at().loc, "multi-dimensional tiles are written [M, N], not [M][N]");
    }
    attributes(d.attrs);
    if (allowInit && accept("=")) {
      if (at().isPunct("{")) {
        d.init = initList();
      } else {
        d.init = assignment();
      }
    }
    return d;
  }

  ExprPtr initList() {
    auto e = std::make_unique<Expr>(ExprKind::InitList, at().loc);
    expect("{", "");
    if (!at().isPunct("}")) {
      for (;;) {
        e->args.push_back(assignment());
        if (!accept(",")) break;
        if (at().isPunct("}")) break;
      }
    }
    expect("}", "to close the initializer list");
    return e;
  }

  // ---- top level ----------------------------------------------------------
  FunctionDef function() {
    FunctionDef f;
    for (size_t k = pos_; toks_[k].kind == TokKind::Ident && !toks_[k + 1].isPunct("("); ++k)
      if (toks_[k].text == "__global__" || toks_[k].text == "kernel") f.isKernel = true;
    f.returnType = typeSpec();
    f.name = at().text;
    f.loc = at().loc;
    ++pos_;
    expect("(", "after the function name");
    if (!at().isPunct(")")) {
      if (at().is("void") && peek(1).isPunct(")")) {
        ++pos_;
      } else {
        for (;;) {
          Param p;
          if (!isTypeWord(at())) throw error(at(), "expected a parameter type");
          p.type = typeSpec();
          p.decl = declarator(false);
          f.params.push_back(std::move(p));
          if (accept(",")) continue;
          break;
        }
      }
    }
    expect(")", "to close the parameter list");
    if (!at().isPunct("{")) throw error(at(), "expected '{' to begin the body of '" + f.name + "'");
    f.body = block();
    return f;
  }

  // ---- statements ---------------------------------------------------------
  StmtPtr block() {
    auto s = std::make_unique<Stmt>(StmtKind::Block, at().loc);
    expect("{", "");
    while (!at().isPunct("}")) {
      if (at().kind == TokKind::End) throw UserError(s->loc, "unterminated block: missing '}' for this '{'");
      s->body.push_back(statement());
    }
    ++pos_;
    return s;
  }

  StmtPtr declaration() {
    auto s = std::make_unique<Stmt>(StmtKind::Decl, at().loc);
    s->declType = typeSpec();
    for (;;) {
      s->decls.push_back(declarator(true));
      if (!accept(",")) break;
    }
    expect(";", "after the declaration");
    return s;
  }

  StmtPtr statement() {
    DepthGuard g(depth_, at(), "statement");
    const Token& t = at();
    SourceLoc loc = t.loc;
    if (t.isPunct("{")) return block();
    if (t.isPunct(";")) { ++pos_; return std::make_unique<Stmt>(StmtKind::Empty, loc); }
    if (t.isPunct("@")) {
      ++pos_;
      auto s = std::make_unique<Stmt>(StmtKind::Predicated, loc);
      s->expr = unary();
      s->body.push_back(statement());
      return s;
    }
    if (t.kind == TokKind::Ident) {
      if (t.text == "if") {
        ++pos_;
        auto s = std::make_unique<Stmt>(StmtKind::If, loc);
        expect("(", "after 'if'");
        s->expr = expression();
        expect(")", "to close the 'if' condition");
        s->body.push_back(statement());
        if (accept("else")) s->body.push_back(statement());
        return s;
      }
      if (t.text == "while") {
        ++pos_;
        auto s = std::make_unique<Stmt>(StmtKind::While, loc);
        expect("(", "after 'while'");
        s->expr = expression();
        expect(")", "to close the 'while' condition");
        s->body.push_back(statement());
        return s;
      }
      if (t.text == "do") {
        ++pos_;
        auto s = std::make_unique<Stmt>(StmtKind::DoWhile, loc);
        s->body.push_back(statement());
        expect("while", "after the body of 'do'");
        expect("(", "after 'while'");
        s->expr = expression();
        expect(")", "to close the 'while' condition");
        expect(";", "after 'do ... while (...)'");
        return s;
      }
      if (t.text == "for") {
        ++pos_;
        auto s = std::make_unique<Stmt>(StmtKind::For, loc);
        expect("(", "after 'for'");
        if (accept(";")) {
        } else if (startsDeclaration()) {
          s->init = declaration();
        } else {
          auto e = std::make_unique<Stmt>(StmtKind::Expr, at().loc);
          e->expr = expression();
          s->init = std::move(e);
          expect(";", "after the 'for' initializer");
        }
        if (!at().isPunct(";")) s->expr = expression();
        expect(";", "after the 'for' condition");
        if (!at().isPunct(")")) s->step = expression();
        expect(")", "to close the 'for' header");
        s->body.push_back(statement());
        return s;
      }
      if (t.text == "return") {
        ++pos_;
        auto s = std::make_unique<Stmt>(StmtKind::Return, loc);
        if (!at().isPunct(";")) s->expr = expression();
        expect(";", "after 'return'");
        return s;
      }
      if (t.text == "break" || t.text == "continue") {
        ++pos_;
        auto s = std::make_unique<Stmt>(t.text == "break" ? StmtKind::Break : StmtKind::Continue, loc);
        expect(";", ("after '" + t.text + "'").c_str());
        return s;
      }
      if (t.text == "else") throw UserError(t.loc, "'else' without a matching 'if'");
      if (startsDeclaration()) return declaration();
      // `floot x = ...`: two names in a row start a declaration of an unknown type.
      if (peek(1).kind == TokKind::Ident && !isTypeWord(peek(1)))
        throw UserError(t.loc, "unknown type name '" + t.text + "'");
    }
    auto s = std::make_unique<Stmt>(StmtKind::Expr, loc);
    s->expr = expression();
    expect(";", "after the expression");
    return s;
  }

  // ---- expressions --------------------------------------------------------
  ExprPtr expression() { return assignment(); }

  ExprPtr assignment() {
    ExprPtr lhs = conditional();
    static const char* const ops[] = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="};
    for (const char* op : ops) {
      if (at().isPunct(op)) {
        auto e = std::make_unique<Expr>(ExprKind::Assign, at().loc);
        e->op = op;
        DepthGuard g(depth_, at());  // `a = b = c ...` nests to the right
        ++pos_;
        e->args.push_back(std::move(lhs));
        e->args.push_back(assignment());
        return e;
      }
    }
    return lhs;
  }

  ExprPtr conditional() {
    ExprPtr c = binary(0);
    if (!at().isPunct("?")) return c;
    auto e = std::make_unique<Expr>(ExprKind::Ternary, at().loc);
    DepthGuard g(depth_, at());  // `a ? b : c ? d : ...` nests to the right
    ++pos_;
    e->args.push_back(std::move(c));
    e->args.push_back(assignment());
    expect(":", "in the conditional expression");
    e->args.push_back(conditional());
    return e;
  }

  static int precedence(const Token& t) { return t.kind == TokKind::Punct ? binaryPrecedence(t.text) : -1; }

  ExprPtr binary(int minPrec) {
    ExprPtr lhs = unary();
    for (;;) {
      int p = precedence(at());
      if (p < 0 || p < minPrec) return lhs;
      const Token& op = at();
      ++pos_;
      ExprPtr rhs = binary(p + 1);
      auto e = std::make_unique<Expr>(op.text == "..." ? ExprKind::Range : ExprKind::Binary, op.loc);
      e->op = op.text;
      e->args.push_back(std::move(lhs));
      e->args.push_back(std::move(rhs));
      lhs = std::move(e);
    }
  }

  bool startsCast() const {
    return at().isPunct("(") && isTypeWord(peek(1));
  }

  ExprPtr unary() {
    const Token& t = at();
    if (t.kind == TokKind::Punct) {
      // Prefix operators and casts recurse into their operand.
      static const char* const prefix[] = {"*", "-", "+", "!", "~", "^", "++", "--"};
      std::optional<DepthGuard> g;
      for (const char* p : prefix)
        if (t.text == p) g.emplace(depth_, t);
      if (!g && startsCast()) g.emplace(depth_, t);
      if (t.text == "*" && peek(1).isPunct("?")) {
        auto e = std::make_unique<Expr>(ExprKind::Deref, t.loc);
        pos_ += 2;
        e->masked = true;
        expect("(", "after '*?' (conditional dereference is written *?(mask) pointer)");
        e->args.push_back(expression());
        expect(")", "to close the mask of '*?('");
        e->args.push_back(unary());
        return e;
      }
      if (t.text == "*") {
        auto e = std::make_unique<Expr>(ExprKind::Deref, t.loc);
        ++pos_;
        e->args.push_back(unary());
        return e;
      }
      if (t.text == "-" || t.text == "+" || t.text == "!" || t.text == "~" || t.text == "^") {
        auto e = std::make_unique<Expr>(ExprKind::Unary, t.loc);
        e->op = t.text;
        ++pos_;
        e->args.push_back(unary());
        return e;
      }
      if (t.text == "++" || t.text == "--") {
        auto e = std::make_unique<Expr>(ExprKind::IncDec, t.loc);
        e->op = t.text;
        e->prefix = true;
        ++pos_;
        e->args.push_back(unary());
        return e;
      }
      if (t.text == "&") throw UserError(t.loc, "taking the address of a value ('&') is not supported in Triton-C");
      if (startsCast()) {
        auto e = std::make_unique<Expr>(ExprKind::Cast, t.loc);
        ++pos_;
        e->castType = typeSpec();
        if (accept("[")) {
          for (;;) {
            e->castShape.push_back(conditional());
            if (accept(",")) continue;
            expect("]", "to close the tile shape of the cast");
            break;
          }
        }
        expect(")", "to close the cast");
        e->args.push_back(unary());
        return e;
      }
    }
    return postfix();
  }

  ExprPtr postfix() {
    ExprPtr e = primary();
    // `x[:][:]...` and `x++++` are parsed by this loop but nest in the AST:
    // each counts as a level.
    int levels = 0;
    auto nest = [&](const Token& t) {
      if (depth_ + ++levels > kMaxNesting) throw tooDeep(t, "expression");
    };
    for (;;) {
      const Token& t = at();
      if (t.isPunct("[")) {
        nest(t);
        ++pos_;
        auto s = std::make_unique<Expr>(ExprKind::Subscript, t.loc);
        s->args.push_back(std::move(e));
        for (;;) {
          SliceItem item;
          item.loc = at().loc;
          const Token& n = peek(1);
          bool ends = n.isPunct(",") || n.isPunct("]");
          auto bound = [&]() {  // an index or bound: an expression among the args
            s->args.push_back(conditional());
            return int(s->args.size()) - 1;
          };
          auto itemEnds = [&]() { return at().isPunct(",") || at().isPunct("]"); };
          if (at().isPunct(":")) {
            ++pos_;
            item.kind = ends ? SliceItem::All : SliceItem::Bounds;  // `:` or `:HI`
            if (!ends) item.last = bound();
          } else if (at().is("newaxis")) {
            item.kind = SliceItem::NewAxis;
            ++pos_;
          } else if (ends && (at().isPunct("+") || at().is("max") || at().is("min"))) {
            item.kind = SliceItem::Reduce;
            item.reduceOp = at().text;
            ++pos_;
          } else {
            item.first = bound();  // `I`, `LO:` or `LO:HI`
            item.kind = SliceItem::Index;
            if (accept(":")) {
              item.kind = SliceItem::Bounds;
              if (!itemEnds()) item.last = bound();
            }
          }
          s->slices.push_back(item);
          if (accept(",")) continue;
          expect("]", "to close the subscript");
          break;
        }
        e = std::move(s);
        continue;
      }
      if (t.isPunct("++") || t.isPunct("--")) {
        nest(t);
        auto x = std::make_unique<Expr>(ExprKind::IncDec, t.loc);
        x->op = t.text;
        ++pos_;
        x->args.push_back(std::move(e));
        e = std::move(x);
        continue;
      }
      if (t.isPunct("(")) throw UserError(t.loc, "only named built-in functions can be called");
      return e;
    }
  }

  static int hexDigit(char h) {
    if (h >= '0' && h <= '9') return h - '0';
    if (h >= 'a' && h <= 'f') return h - 'a' + 10;
    if (h >= 'A' && h <= 'F') return h - 'A' + 10;
    return -1;
  }

  // The text of a string literal token ("..." as written): C's escapes
  // \n \t \\ \" \' \0 and \xHH.
  static std::string stringContents(const Token& t) {
    std::string out;
    const std::string& s = t.text;
    for (size_t i = 1; i + 1 < s.size(); ++i) {
      if (s[i] != '\\') {
        out += s[i];
        continue;
      }
      char c = s[++i];
      if (c == 'n') out += '\n';
      else if (c == 't') out += '\t';
      else if (c == '0') out += '\0';
      else if (c == '\\' || c == '"' || c == '\'') out += c;
      else if (c == 'x' && i + 3 < s.size() && hexDigit(s[i + 1]) >= 0 && hexDigit(s[i + 2]) >= 0) {
        out += char(hexDigit(s[i + 1]) * 16 + hexDigit(s[i + 2]));
        i += 2;
      } else {
        throw UserError(t.loc, std::string("unknown escape sequence '\\") + c + "' in a string");
      }
    }
    return out;
  }

  ExprPtr primary() {
    const Token& t = at();
    switch (t.kind) {
      case TokKind::Int: {
        auto e = std::make_unique<Expr>(ExprKind::IntLit, t.loc);
        errno = 0;
        char* end = nullptr;
        unsigned long long v = std::strtoull(t.text.c_str(), &end, 0);
        if (errno == ERANGE || v > uint64_t(INT64_MAX))
          throw UserError(t.loc, "integer literal '" + t.text + "' is too large");
        if (end && *end && !std::strchr("uUlL", *end))
          throw UserError(t.loc, "malformed integer literal '" + t.text + "'");
        e->intValue = int64_t(v);
        ++pos_;
        return e;
      }
      case TokKind::Float: {
        auto e = std::make_unique<Expr>(ExprKind::FloatLit, t.loc);
        e->floatValue = std::strtod(t.text.c_str(), nullptr);
        e->op = t.text;
        ++pos_;
        return e;
      }
      case TokKind::String: {
        // Only __debug_print's prefix and __debug_assert's message (IR generation checks).
        auto e = std::make_unique<Expr>(ExprKind::StringLit, t.loc);
        e->op = stringContents(t);
        ++pos_;
        return e;
      }
      case TokKind::Ident: {
        if (isTypeWord(t)) throw error(t, "expected an expression");
        if (t.text == "alloc_const") {
          auto e = std::make_unique<Expr>(ExprKind::AllocConst, t.loc);
          DepthGuard g(depth_, t);
          ++pos_;
          e->castType = typeSpec();
          expect("[", "after the type of alloc_const");
          e->castShape.push_back(conditional());
          expect("]", "to close the size of alloc_const");
          return e;
        }
        ++pos_;
        if (at().isPunct("[") && t.text == "get_global_range") {
          auto e = std::make_unique<Expr>(ExprKind::Call, t.loc);
          e->op = t.text;
          ++pos_;
          DepthGuard g(depth_, t);
          e->sizeArg = conditional();
          expect("]", "to close the size of get_global_range[...]");
          if (!at().isPunct("(")) throw error(at(), "expected '(' after get_global_range[...]");
          callArgs(*e);
          return e;
        }
        if (at().isPunct("(")) {
          auto e = std::make_unique<Expr>(ExprKind::Call, t.loc);
          e->op = t.text;
          callArgs(*e);
          return e;
        }
        auto e = std::make_unique<Expr>(ExprKind::Ident, t.loc);
        e->op = t.text;
        return e;
      }
      case TokKind::Punct:
        if (t.text == "(") {
          DepthGuard g(depth_, t);
          ++pos_;
          ExprPtr e = expression();
          expect(")", "to close the parenthesized expression");
          e->parenthesized = true;
          return e;
        }
        if (t.text == "{") throw UserError(t.loc, "an initializer list '{...}' is only allowed in a declaration");
        break;
      default:
        break;
    }
    throw error(t, "expected an expression");
  }

  void callArgs(Expr& call) {
    DepthGuard g(depth_, at());
    expect("(", "");
    if (accept(")")) return;
    for (;;) {
      call.args.push_back(assignment());
      if (accept(",")) continue;
      expect(")", ("to close the call of '" + call.op + "'").c_str());
      return;
    }
  }

  const Tokens& toks_;
  size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

int binaryPrecedence(const std::string& op) {
  static const std::pair<const char*, int> table[] = {
      {"||", 0}, {"&&", 1}, {"|", 2},  {"^", 3},  {"&", 4},  {"==", 5},  {"!=", 5},
      {"<", 6},  {">", 6},  {"<=", 6}, {">=", 6}, {"<<", 7}, {">>", 7},  {"+", 8},
      {"-", 8},  {"...", 9}, {"*", 10}, {"/", 10}, {"%", 10}, {"@", 10}};
  for (auto& [s, p] : table)
    if (op == s) return p;
  return -1;
}

std::optional<ir::Scalar> scalarTypeKeyword(const std::string& w) {
  using ir::Scalar;
  static const std::pair<const char*, Scalar> table[] = {
      {"bool", Scalar::I1},     {"char", Scalar::I8},     {"int8", Scalar::I8},
      {"short", Scalar::I16},   {"int16", Scalar::I16},   {"int", Scalar::I32},
      {"int32", Scalar::I32},   {"long", Scalar::I64},    {"int64", Scalar::I64},
      {"half", Scalar::F16},    {"float16", Scalar::F16}, {"fp16", Scalar::F16},
      {"bf16", Scalar::BF16},   {"bfloat16", Scalar::BF16}, {"float", Scalar::F32},
      {"float32", Scalar::F32}, {"double", Scalar::F64},  {"float64", Scalar::F64}};
  for (auto& [s, k] : table)
    if (w == s) return k;
  return std::nullopt;
}

TranslationUnit parse(const Tokens& tokens) { return Parser(tokens).unit(); }

}  // namespace tritonc::lang
