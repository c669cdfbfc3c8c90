#include <cctype>
#include <cstring>

#include "lang/token.h"

namespace tritonc::lang {

namespace {

// Longest first, so that "<<=" wins over "<<" and "<".
const char* const kPuncts[] = {
    "...", "<<=", ">>=", "->", "++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=",
    "<<",  ">>",  "<=",  ">=", "==", "!=", "&&", "||", "##", "(",  ")",  "[",  "]",  "{",
    "}",   ",",   ";",   ":",  "?",  ".",  "+",  "-",  "*",  "/",  "%",  "&",  "|",  "^",
    "~",   "!",   "<",   ">",  "=",  "@",  "#"};

bool isIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool isIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool isDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)); }

class Lexer {
 public:
  Lexer(const std::string& src, SourceLoc base, bool fragment)
      : src_(src), line_(base.known() ? base.line : 1), col_(base.known() ? base.col : 1),
        fragment_(fragment), fixedLoc_(fragment ? base : SourceLoc{}) {}

  Tokens run() {
    Tokens out;
    bool lineStart = true, space = false;
    while (pos_ < src_.size()) {
      char c = src_[pos_];
      if (c == '\n') { advance(); lineStart = true; space = true; continue; }
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') { advance(); space = true; continue; }
      if (c == '\\' && peek(1) == '\n') { advance(); advance(); space = true; continue; }  // line splice
      if (c == '/' && peek(1) == '/') {
        while (pos_ < src_.size() && src_[pos_] != '\n') advance();
        space = true;
        continue;
      }
      if (c == '/' && peek(1) == '*') { blockComment(); space = true; continue; }
      Token t;
      t.loc = here();
      t.lineStart = lineStart;
      t.spaceBefore = space;
      lineStart = space = false;
      if (isIdentStart(c)) {
        size_t s = pos_;
        while (pos_ < src_.size() && isIdentChar(src_[pos_])) advance();
        t.kind = TokKind::Ident;
        t.text = src_.substr(s, pos_ - s);
      } else if (isDigit(c) || (c == '.' && isDigit(peek(1)))) {
        number(t);
      } else if (c == '"') {
        string(t);
      } else {
        punct(t);
      }
      out.push_back(std::move(t));
    }
    Token end;
    end.kind = TokKind::End;
    end.loc = here();
    end.lineStart = true;
    out.push_back(end);
    return out;
  }

 private:
  char peek(size_t k) const { return pos_ + k < src_.size() ? src_[pos_ + k] : '\0'; }
  SourceLoc here() const { return fragment_ ? fixedLoc_ : SourceLoc{line_, col_}; }
  void advance() {
    if (src_[pos_] == '\n') { ++line_; col_ = 1; } else { ++col_; }
    ++pos_;
  }

  void blockComment() {
    SourceLoc start = here();
    advance(); advance();
    while (pos_ < src_.size() && !(src_[pos_] == '*' && peek(1) == '/')) advance();
    if (pos_ >= src_.size()) throw UserError(start, "unterminated comment: '/*' has no matching '*/'");
    advance(); advance();
  }

  void number(Token& t) {
    size_t s = pos_;
    bool isFloat = false;
    if (src_[pos_] == '0' && (peek(1) == 'x' || peek(1) == 'X')) {
      advance(); advance();
      size_t digits = pos_;
      while (pos_ < src_.size() && std::isxdigit(static_cast<unsigned char>(src_[pos_]))) advance();
      if (pos_ == digits) throw UserError(t.loc, "malformed hexadecimal literal");
    } else {
      while (pos_ < src_.size() && isDigit(src_[pos_])) advance();
      // "0 ... 32": a '.' followed by '..' is the range operator, not a decimal point.
      if (pos_ < src_.size() && src_[pos_] == '.' && !(peek(1) == '.' && peek(2) == '.')) {
        isFloat = true;
        advance();
        while (pos_ < src_.size() && isDigit(src_[pos_])) advance();
      }
      if (pos_ < src_.size() && (src_[pos_] == 'e' || src_[pos_] == 'E')) {
        size_t save = pos_;
        uint32_t saveCol = col_;
        advance();
        if (pos_ < src_.size() && (src_[pos_] == '+' || src_[pos_] == '-')) advance();
        if (pos_ < src_.size() && isDigit(src_[pos_])) {
          isFloat = true;
          while (pos_ < src_.size() && isDigit(src_[pos_])) advance();
        } else {
          pos_ = save;
          col_ = saveCol;
        }
      }
    }
    // Suffixes: f/F (float), l/L, u/U (accepted, ignored).
    while (pos_ < src_.size() && std::strchr("fFlLuU", src_[pos_])) {
      if (src_[pos_] == 'f' || src_[pos_] == 'F') {
        if (!isFloat && !(src_.compare(s, 2, "0x") == 0 || src_.compare(s, 2, "0X") == 0)) isFloat = true;
      }
      advance();
    }
    if (pos_ < src_.size() && isIdentChar(src_[pos_]))
      throw UserError(t.loc, "malformed number '" + src_.substr(s, pos_ - s + 1) + "'");
    t.kind = isFloat ? TokKind::Float : TokKind::Int;
    t.text = src_.substr(s, pos_ - s);
  }

  void string(Token& t) {
    size_t s = pos_;
    advance();
    while (pos_ < src_.size() && src_[pos_] != '"' && src_[pos_] != '\n') {
      if (src_[pos_] == '\\' && pos_ + 1 < src_.size()) advance();
      advance();
    }
    if (pos_ >= src_.size() || src_[pos_] != '"') throw UserError(t.loc, "unterminated string literal");
    advance();
    t.kind = TokKind::String;
    t.text = src_.substr(s, pos_ - s);
  }

  void punct(Token& t) {
    for (const char* p : kPuncts) {
      size_t n = std::strlen(p);
      if (src_.compare(pos_, n, p) == 0) {
        for (size_t i = 0; i < n; ++i) advance();
        t.kind = TokKind::Punct;
        t.text = p;
        return;
      }
    }
    unsigned char c = static_cast<unsigned char>(src_[pos_]);
    std::string shown = std::isprint(c) ? std::string("'") + char(c) + "'" : "byte " + std::to_string(int(c));
    throw UserError(t.loc, "unexpected character " + shown);
  }

  const std::string& src_;
  size_t pos_ = 0;
  uint32_t line_, col_;
  bool fragment_;
  SourceLoc fixedLoc_;
};

}  // namespace

Tokens lex(const std::string& source) { return Lexer(source, SourceLoc{1, 1}, false).run(); }

Tokens lexFragment(const std::string& text, SourceLoc loc) { return Lexer(text, loc, true).run(); }

}  // namespace tritonc::lang
