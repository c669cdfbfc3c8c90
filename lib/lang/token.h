// Tokens of Triton-C, shared by the lexer, the preprocessor and the parser.
#pragma once
#include <string>
#include <vector>

#include "support/diagnostic.h"

namespace tritonc::lang {

enum class TokKind { Ident, Int, Float, String, Punct, End };

struct Token {
  TokKind kind = TokKind::End;
  std::string text;
  SourceLoc loc;
  bool lineStart = false;    // first token on its line (for # directives)
  bool spaceBefore = false;  // whitespace precedes it (for printing macro bodies)

  bool is(const char* p) const { return (kind == TokKind::Punct || kind == TokKind::Ident) && text == p; }
  bool isPunct(const char* p) const { return kind == TokKind::Punct && text == p; }
};

using Tokens = std::vector<Token>;

// Splits `source` into tokens; comments and whitespace are dropped. Throws
// UserError on an unterminated comment or string, a stray character, or a
// malformed number. The last token is always End.
Tokens lex(const std::string& source);

// Lexes a -D value (no directives, locations point at `loc`).
Tokens lexFragment(const std::string& text, SourceLoc loc);

}  // namespace tritonc::lang
