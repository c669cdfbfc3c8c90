// Recursive-descent parser of Triton-C: preprocessed tokens to an AST.
#pragma once
#include "lang/ast.h"
#include "lang/token.h"

namespace tritonc::lang {

// Throws UserError at the first syntax error, naming what was expected.
TranslationUnit parse(const Tokens& tokens);

// Scalar type keywords (`float`, `half`, `int64`, ...); nullopt otherwise.
std::optional<ir::Scalar> scalarTypeKeyword(const std::string& word);

}  // namespace tritonc::lang
