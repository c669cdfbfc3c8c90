#include "lang/preprocessor.h"

#include <functional>
#include <set>

namespace tritonc::lang {

namespace {

// Every token produced, nested expansions included, counts against one budget:
// a few nested macros must not be able to expand exponentially.
constexpr size_t kMaxExpandedTokens = 1u << 20;
constexpr int kMaxExpansionDepth = 128;

struct Macro {
  bool functionLike = false;
  std::vector<std::string> params;
  Tokens body;
};

class Preprocessor {
 public:
  explicit Preprocessor(const std::map<std::string, std::string>& defines) {
    for (auto& [name, value] : defines) {
      Macro m;
      try {
        m.body = lexFragment(value, SourceLoc{});
      } catch (const UserError& e) {
        throw UserError(SourceLoc{}, "in -D" + name + "=" + value + ": " + e.what());
      }
      m.body.pop_back();  // End
      macros_[name] = std::move(m);
    }
  }

  Tokens run(const Tokens& in) {
    Tokens out;
    size_t i = 0;
    while (in[i].kind != TokKind::End) {
      if (in[i].lineStart && in[i].isPunct("#")) {
        size_t end = i + 1;
        while (in[end].kind != TokKind::End && !in[end].lineStart) ++end;
        directive(in, i, end);
        i = end;
        continue;
      }
      size_t end = i + 1;
      while (in[end].kind != TokKind::End && !(in[end].lineStart && in[end].isPunct("#"))) ++end;
      if (active()) {
        Tokens chunk(in.begin() + i, in.begin() + end);
        expandInto(chunk, out, 0);
      }
      i = end;
    }
    if (!conds_.empty()) throw UserError(conds_.back().loc, "unterminated '#" + conds_.back().what + "': missing '#endif'");
    Token endTok = in[i];
    out.push_back(endTok);
    return out;
  }

 private:
  struct Cond {
    bool active;      // this branch's tokens are kept
    bool taken;       // some branch of this #if was taken
    bool parentActive;
    bool seenElse;
    SourceLoc loc;
    std::string what;
  };

  bool active() const { return conds_.empty() || conds_.back().active; }

  void directive(const Tokens& in, size_t hash, size_t end) {
    if (hash + 1 == end) return;  // a lone '#' is a null directive
    const Token& name = in[hash + 1];
    std::string d = name.text;
    Tokens rest(in.begin() + hash + 2, in.begin() + end);
    if (d == "if" || d == "ifdef" || d == "ifndef") {
      bool parent = active();
      bool value = false;
      if (parent) {
        if (d == "if") {
          value = evalCondition(rest, name.loc);
        } else {
          if (rest.empty() || rest[0].kind != TokKind::Ident)
            throw UserError(name.loc, "'#" + d + "' expects a macro name");
          value = macros_.count(rest[0].text) != 0;
          if (d == "ifndef") value = !value;
        }
      }
      conds_.push_back({parent && value, value, parent, false, name.loc, d});
      return;
    }
    if (d == "elif" || d == "else" || d == "endif") {
      if (conds_.empty()) throw UserError(name.loc, "'#" + d + "' without a matching '#if'");
      Cond& c = conds_.back();
      if (d == "endif") { conds_.pop_back(); return; }
      if (c.seenElse) throw UserError(name.loc, "'#" + d + "' after '#else'");
      if (d == "else") {
        c.seenElse = true;
        c.active = c.parentActive && !c.taken;
        c.taken = true;
        return;
      }
      bool value = c.parentActive && !c.taken && evalCondition(rest, name.loc);
      c.active = value;
      c.taken = c.taken || value;
      return;
    }
    if (!active()) return;  // other directives in skipped branches are ignored
    if (d == "define") return define(rest, name.loc);
    if (d == "undef") {
      if (rest.empty() || rest[0].kind != TokKind::Ident) throw UserError(name.loc, "'#undef' expects a macro name");
      macros_.erase(rest[0].text);
      return;
    }
    if (d == "error") {
      std::string msg;
      for (auto& t : rest) msg += (msg.empty() ? "" : " ") + t.text;
      throw UserError(name.loc, "#error " + msg);
    }
    if (d == "pragma" || d == "line") return;
    if (d == "include") throw UserError(name.loc, "'#include' is not supported: Triton-C kernels are single files");
    throw UserError(name.loc, "unknown preprocessor directive '#" + d + "'");
  }

  void define(const Tokens& rest, SourceLoc loc) {
    if (rest.empty() || rest[0].kind != TokKind::Ident) throw UserError(loc, "'#define' expects a macro name");
    Macro m;
    size_t i = 1;
    if (i < rest.size() && rest[i].isPunct("(") && !rest[i].spaceBefore) {
      m.functionLike = true;
      ++i;
      while (i < rest.size() && !rest[i].isPunct(")")) {
        if (rest[i].kind != TokKind::Ident) throw UserError(rest[i].loc, "expected a macro parameter name");
        m.params.push_back(rest[i].text);
        ++i;
        if (i < rest.size() && rest[i].isPunct(",")) ++i;
        else if (i < rest.size() && !rest[i].isPunct(")"))
          throw UserError(rest[i].loc, "expected ',' or ')' in macro parameter list");
      }
      if (i >= rest.size()) throw UserError(rest[0].loc, "missing ')' in macro parameter list");
      ++i;
    }
    m.body.assign(rest.begin() + i, rest.end());
    macros_[rest[0].text] = std::move(m);
  }

  // Expands macros of `in` into `out`; `depth` bounds recursive expansion.
  void expandInto(const Tokens& in, Tokens& out, int depth) {
    if (depth > kMaxExpansionDepth)
      throw UserError(in.empty() ? SourceLoc{} : in[0].loc, "macro expansion nested too deeply");
    for (size_t i = 0; i < in.size(); ++i) {
      const Token& t = in[i];
      auto it = t.kind == TokKind::Ident && !expanding_.count(t.text) ? macros_.find(t.text) : macros_.end();
      if (it == macros_.end()) {
        out.push_back(t);
        if (++produced_ > kMaxExpandedTokens)
          throw UserError(t.loc, "macro expansion is too large (more than " + std::to_string(kMaxExpandedTokens) +
                                     " tokens)");
        continue;
      }
      const Macro& m = it->second;
      Tokens body;
      if (m.functionLike) {
        if (i + 1 >= in.size() || !in[i + 1].isPunct("(")) { out.push_back(t); continue; }
        std::vector<Tokens> args = collectArgs(in, i, t);
        if (args.size() == 1 && args[0].empty() && m.params.empty()) args.clear();
        if (args.size() != m.params.size())
          throw UserError(t.loc, "macro '" + t.text + "' takes " + std::to_string(m.params.size()) +
                                     " argument(s), " + std::to_string(args.size()) + " given");
        // Each argument is expanded once, however often the body uses it.
        std::vector<Tokens> expanded(args.size());
        std::vector<bool> done(args.size(), false);
        for (const Token& b : m.body) {
          size_t p = 0;
          while (p < m.params.size() && !(b.kind == TokKind::Ident && b.text == m.params[p])) ++p;
          if (p < m.params.size()) {
            if (!done[p]) {
              expandInto(args[p], expanded[p], depth + 1);
              done[p] = true;
            }
            body.insert(body.end(), expanded[p].begin(), expanded[p].end());
            produced_ += expanded[p].size();
            if (produced_ > kMaxExpandedTokens)
              throw UserError(t.loc, "macro expansion is too large (more than " + std::to_string(kMaxExpandedTokens) +
                                         " tokens)");
          } else {
            body.push_back(b);
          }
        }
      } else {
        body = m.body;
      }
      for (Token& b : body) { b.loc = t.loc; b.lineStart = false; }
      expanding_.insert(t.text);
      expandInto(body, out, depth + 1);
      expanding_.erase(t.text);
    }
  }

  // Collects the arguments of a function-like macro call starting at in[i]
  // (the name); leaves i on the closing ')'.
  std::vector<Tokens> collectArgs(const Tokens& in, size_t& i, const Token& name) {
    std::vector<Tokens> args(1);
    int level = 0;
    for (i += 2; i < in.size(); ++i) {
      const Token& a = in[i];
      if (a.isPunct("(")) ++level;
      if (a.isPunct(")")) {
        if (level == 0) return args;
        --level;
      }
      if (a.isPunct(",") && level == 0) { args.emplace_back(); continue; }
      args.back().push_back(a);
    }
    throw UserError(name.loc, "unterminated call of macro '" + name.text + "'");
  }

  bool evalCondition(const Tokens& rest, SourceLoc loc) {
    // Replace `defined X` / `defined(X)` before expansion, as C does.
    Tokens pre;
    for (size_t i = 0; i < rest.size(); ++i) {
      if (rest[i].kind == TokKind::Ident && rest[i].text == "defined") {
        bool paren = i + 1 < rest.size() && rest[i + 1].isPunct("(");
        size_t n = i + (paren ? 2 : 1);
        if (n >= rest.size() || rest[n].kind != TokKind::Ident)
          throw UserError(rest[i].loc, "'defined' expects a macro name");
        if (paren && (n + 1 >= rest.size() || !rest[n + 1].isPunct(")")))
          throw UserError(rest[i].loc, "missing ')' after 'defined(" + rest[n].text + "'");
        Token v = rest[i];
        v.kind = TokKind::Int;
        v.text = macros_.count(rest[n].text) ? "1" : "0";
        pre.push_back(v);
        i = paren ? n + 1 : n;
        continue;
      }
      pre.push_back(rest[i]);
    }
    Tokens expanded;
    expandInto(pre, expanded, 0);
    if (expanded.empty()) throw UserError(loc, "'#if' with no expression");
    Token end;
    end.kind = TokKind::End;
    end.loc = expanded.back().loc;
    expanded.push_back(end);
    size_t pos = 0;
    int64_t v = evalExpr(expanded, pos, 0);
    if (expanded[pos].kind != TokKind::End)
      throw UserError(expanded[pos].loc, "unexpected '" + expanded[pos].text + "' in '#if' expression");
    return v != 0;
  }

  // Precedence climbing over C's integer operators; identifiers are 0.
  int64_t evalExpr(const Tokens& t, size_t& pos, int minPrec) {
    // `a ? b : c ? d : ...` recurses here, not through evalUnary.
    Nesting level(t[pos], depth_);
    int64_t lhs = evalUnary(t, pos);
    for (;;) {
      const Token& op = t[pos];
      if (op.isPunct("?") && minPrec <= 1) {
        ++pos;
        int64_t a = evalExpr(t, pos, 0);
        if (!t[pos].isPunct(":")) throw UserError(t[pos].loc, "expected ':' in '#if' expression");
        ++pos;
        int64_t b = evalExpr(t, pos, 1);
        lhs = lhs ? a : b;
        continue;
      }
      int prec = binaryPrec(op);
      if (prec < 0 || prec < minPrec) return lhs;
      ++pos;
      int64_t rhs = evalExpr(t, pos, prec + 1);
      lhs = applyBinary(op, lhs, rhs);
    }
  }

  static int binaryPrec(const Token& op) {
    if (op.kind != TokKind::Punct) return -1;
    static const std::pair<const char*, int> table[] = {
        {"||", 2}, {"&&", 3}, {"|", 4},  {"^", 5},  {"&", 6},  {"==", 7}, {"!=", 7},
        {"<", 8},  {">", 8},  {"<=", 8}, {">=", 8}, {"<<", 9}, {">>", 9}, {"+", 10},
        {"-", 10}, {"*", 11}, {"/", 11}, {"%", 11}};
    for (auto& [s, p] : table)
      if (op.text == s) return p;
    return -1;
  }

  static int64_t applyBinary(const Token& op, int64_t a, int64_t b) {
    const std::string& o = op.text;
    auto ua = uint64_t(a), ub = uint64_t(b);
    if (o == "||") return a || b;
    if (o == "&&") return a && b;
    if (o == "|") return a | b;
    if (o == "^") return a ^ b;
    if (o == "&") return a & b;
    if (o == "==") return a == b;
    if (o == "!=") return a != b;
    if (o == "<") return a < b;
    if (o == ">") return a > b;
    if (o == "<=") return a <= b;
    if (o == ">=") return a >= b;
    if (o == "<<") return int64_t(ua << (ub & 63));
    if (o == ">>") return a >> (ub & 63);
    if (o == "+") return int64_t(ua + ub);
    if (o == "-") return int64_t(ua - ub);
    if (o == "*") return int64_t(ua * ub);
    if (b == 0) throw UserError(op.loc, "division by zero in '#if' expression");
    if (a == INT64_MIN && b == -1) return o == "/" ? a : 0;
    return o == "/" ? a / b : a % b;
  }

  int64_t evalUnary(const Tokens& t, size_t& pos) {
    const Token& tok = t[pos];
    Nesting level(tok, depth_);
    if (tok.isPunct("(")) {
      ++pos;
      int64_t v = evalExpr(t, pos, 0);
      if (!t[pos].isPunct(")")) throw UserError(t[pos].loc, "expected ')' in '#if' expression");
      ++pos;
      return v;
    }
    if (tok.isPunct("-")) { ++pos; return int64_t(0 - uint64_t(evalUnary(t, pos))); }
    if (tok.isPunct("+")) { ++pos; return evalUnary(t, pos); }
    if (tok.isPunct("!")) { ++pos; return !evalUnary(t, pos); }
    if (tok.isPunct("~")) { ++pos; return ~evalUnary(t, pos); }
    if (tok.kind == TokKind::Int) {
      ++pos;
      try {
        return int64_t(std::stoull(tok.text, nullptr, 0));
      } catch (...) {
        throw UserError(tok.loc, "integer literal '" + tok.text + "' is too large");
      }
    }
    if (tok.kind == TokKind::Ident) { ++pos; return 0; }  // undefined names are 0, as in C
    throw UserError(tok.loc, tok.kind == TokKind::End ? "'#if' expression ends unexpectedly"
                                                      : "unexpected '" + tok.text + "' in '#if' expression");
  }

  std::map<std::string, Macro> macros_;
  std::set<std::string> expanding_;
  std::vector<Cond> conds_;
  // Nesting of `#if` expressions: deeper is an error, not a stack overflow.
  static constexpr int kMaxIfNesting = 256;
  struct Nesting {
    int& d;
    Nesting(const Token& tok, int& depth) : d(depth) {
      if (++d > kMaxIfNesting)
        throw UserError(tok.loc, "'#if' expression nested deeper than " + std::to_string(kMaxIfNesting) + " levels");
    }
    ~Nesting() { --d; }
  };
  int depth_ = 0;
  size_t produced_ = 0;
};

}  // namespace

Tokens preprocess(const Tokens& input, const std::map<std::string, std::string>& defines) {
  return Preprocessor(defines).run(input);
}

}  // namespace tritonc::lang
