// The check every fuzzer input goes through (R22: bad input never crashes
// the compiler). An input is Triton-C source, compiled with fixed -D options
// plus any `// define: NAME=VALUE` lines at its top (the format of
// test/lang/cases, so those files are useful seeds and findings replay in the
// regression test). A UserError is the expected outcome for garbage;
// anything else is a bug: another exception, a crash, a sanitizer report, or
// front-end output that fails the IR verifier or the print/parse round trip.
// On a bug it prints what went wrong and aborts (a crash for the fuzzer).
#pragma once
#include <string>

namespace tritonc::fuzz {

// Compiles `source` and checks the result; returns what happened, in a form
// that tells kinds of outcomes apart without the input's details: "error:
// <the diagnostic, numbers and quoted names blanked>", or "ok:" and the
// opcodes of the IR made. (bounded_fuzzer.cpp keeps inputs with new outcomes.)
std::string checkFrontEnd(const std::string& source);

}  // namespace tritonc::fuzz
