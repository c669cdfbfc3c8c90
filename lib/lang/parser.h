// Recursive-descent parser of Triton-C: preprocessed tokens to an AST.
#pragma once
#include "lang/ast.h"
#include "lang/token.h"

namespace tritonc::lang {

// Throws UserError at the first syntax error, naming what was expected.
TranslationUnit parse(const Tokens& tokens);

// The precedence of a binary operator (higher binds tighter; `||` is 0), or
// -1 for a token that is none.
int binaryPrecedence(const std::string& op);

// Scalar type keywords (`float`, `half`, `int64`, ...); nullopt otherwise.
std::optional<ir::Scalar> scalarTypeKeyword(const std::string& word);

}  // namespace tritonc::lang
