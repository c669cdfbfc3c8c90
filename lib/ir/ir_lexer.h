// Tokens of the Triton-IR text form (docs/IR.md), for the parser.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "support/diagnostic.h"

namespace tritonc::ir {

enum class TokKind : uint8_t {
  Eof,
  Word,    // opcodes, types, labels, keywords: [A-Za-z_.][A-Za-z0-9_.]*
  Local,   // %name (text holds the name without '%')
  Global,  // @name (text holds the name without '@')
  Hash,    // #name, a layout of the GPU IR (text holds the name without '#')
  Int,     // -?[0-9]+
  Float,   // -?[0-9]+(.[0-9]*)?([eE][+-]?[0-9]+)? with '.' or exponent, or -inf / -nan
  String,  // "..." (text holds the decoded contents)
  Punct,   // one of ( ) { } [ ] < > , : = *
};

struct Token {
  TokKind kind = TokKind::Eof;
  std::string text;
  SourceLoc loc;  // first character
  SourceLoc end;  // just past the last character

  bool is(char punct) const { return kind == TokKind::Punct && text[0] == punct; }
  bool isWord(const char* w) const { return kind == TokKind::Word && text == w; }
};

// Describes a token for error messages: "'foo'", "'%x'", "end of input".
std::string describe(const Token& t);

class Lexer {
 public:
  explicit Lexer(const std::string& text) : text_(text) {}
  // The next token; throws UserError on a character or literal that is not
  // part of the language.
  Token next();

 private:
  char at(size_t ahead) const { return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0'; }
  void advance();
  SourceLoc here() const { return SourceLoc{line_, col_}; }
  void skipSpaceAndComments();
  std::string readNameChars();
  Token lexNumber(Token t);
  Token lexString(Token t);

  const std::string& text_;
  size_t pos_ = 0;
  uint32_t line_ = 1, col_ = 1;
};

}  // namespace tritonc::ir
