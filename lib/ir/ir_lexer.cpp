#include "ir/ir_lexer.h"

#include <cctype>
#include <cstring>

namespace tritonc::ir {

namespace {

bool isDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool isNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}
bool isWordStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}

std::string describeChar(char c) {
  auto u = static_cast<unsigned char>(c);
  if (u > 0x20 && u < 0x7f) return std::string("'") + c + "'";
  static const char kHex[] = "0123456789abcdef";
  return std::string("byte 0x") + kHex[u >> 4] + kHex[u & 15];
}

int hexValue(char c) {
  if (isDigit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string describe(const Token& t) {
  switch (t.kind) {
    case TokKind::Eof: return "end of input";
    case TokKind::Local: return "'%" + t.text + "'";
    case TokKind::Global: return "'@" + t.text + "'";
    case TokKind::Hash: return "'#" + t.text + "'";
    case TokKind::String: return "a string";
    default: return "'" + t.text + "'";
  }
}

void Lexer::advance() {
  if (pos_ >= text_.size()) return;
  if (text_[pos_] == '\n') {
    ++line_;
    col_ = 1;
  } else {
    ++col_;
  }
  ++pos_;
}

void Lexer::skipSpaceAndComments() {
  for (;;) {
    char c = at(0);
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      advance();
    } else if (c == ';') {
      while (pos_ < text_.size() && at(0) != '\n') advance();
    } else {
      return;
    }
  }
}

std::string Lexer::readNameChars() {
  size_t start = pos_;
  while (isNameChar(at(0))) advance();
  return text_.substr(start, pos_ - start);
}

Token Lexer::next() {
  skipSpaceAndComments();
  Token t;
  t.loc = here();
  char c = at(0);
  if (pos_ >= text_.size()) {
    t.kind = TokKind::Eof;
  } else if (c == '%' || c == '@' || c == '#') {
    advance();
    t.kind = c == '%' ? TokKind::Local : c == '@' ? TokKind::Global : TokKind::Hash;
    t.text = readNameChars();
    if (t.text.empty())
      throw UserError(t.loc, std::string("expected a name after '") + c + "'");
  } else if (isWordStart(c)) {
    t.kind = TokKind::Word;
    t.text = readNameChars();
  } else if (isDigit(c) || c == '-') {
    return lexNumber(t);
  } else if (c == '"') {
    return lexString(t);
  } else if (c != '\0' && std::strchr("(){}[]<>,:=*", c)) {
    t.kind = TokKind::Punct;
    t.text = std::string(1, c);
    advance();
  } else {
    throw UserError(t.loc, "unexpected character " + describeChar(c));
  }
  t.end = here();
  return t;
}

Token Lexer::lexNumber(Token t) {
  size_t start = pos_;
  if (at(0) == '-') {
    advance();
    if (!isDigit(at(0))) {
      std::string word = readNameChars();
      if (word != "inf" && word != "nan") throw UserError(t.loc, "unexpected character '-'");
      t.kind = TokKind::Float;
      t.text = "-" + word;
      t.end = here();
      return t;
    }
  }
  t.kind = TokKind::Int;
  while (isDigit(at(0))) advance();
  if (at(0) == '.') {
    t.kind = TokKind::Float;
    advance();
    while (isDigit(at(0))) advance();
  }
  bool signedExponent = (at(1) == '+' || at(1) == '-') && isDigit(at(2));
  if ((at(0) == 'e' || at(0) == 'E') && (isDigit(at(1)) || signedExponent)) {
    t.kind = TokKind::Float;
    advance();
    if (!isDigit(at(0))) advance();
    while (isDigit(at(0))) advance();
  }
  // `8x` or `1.5.2` is one malformed token, not two tokens.
  if (isNameChar(at(0))) throw UserError(t.loc, "malformed number");
  t.text = text_.substr(start, pos_ - start);
  t.end = here();
  return t;
}

Token Lexer::lexString(Token t) {
  t.kind = TokKind::String;
  advance();  // the opening quote
  for (;;) {
    char c = at(0);
    if (pos_ >= text_.size() || c == '\n') throw UserError(t.loc, "unterminated string");
    if (c == '"') break;
    if (c != '\\') {
      t.text += c;
      advance();
      continue;
    }
    SourceLoc escapeLoc = here();
    char e = at(1);
    if (e == '\\' || e == '"') {
      t.text += e;
    } else if (e == 'n') {
      t.text += '\n';
    } else if (e == 't') {
      t.text += '\t';
    } else if (e == 'x' && hexValue(at(2)) >= 0 && hexValue(at(3)) >= 0) {
      t.text += char(hexValue(at(2)) * 16 + hexValue(at(3)));
      advance();
      advance();
    } else {
      throw UserError(escapeLoc, "invalid escape sequence in string");
    }
    advance();
    advance();
  }
  advance();  // the closing quote
  t.end = here();
  return t;
}

}  // namespace tritonc::ir
