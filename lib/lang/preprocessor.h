// The Triton-C preprocessor: #define (object- and function-like), #undef,
// #if / #ifdef / #ifndef / #elif / #else / #endif, #error, #pragma (ignored),
// and -D definitions from the caller. Works on tokens: expanded tokens carry
// the location of the macro use, so diagnostics point into the user's file.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "lang/token.h"

namespace tritonc::lang {

// `defines` maps a name to its value text ("" for a plain -DNAME). Lists such
// as "[32, 64]" must have been resolved to one value by the caller.
Tokens preprocess(const Tokens& input, const std::map<std::string, std::string>& defines);

}  // namespace tritonc::lang
