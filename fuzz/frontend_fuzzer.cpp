// libFuzzer target over the whole front end (frontend_check.h says what is a
// bug). Mutations: libFuzzer's, and long and deep programs
// (long_program_mutator.cpp). scripts/fuzz.sh builds and runs it; without
// clang, bounded_fuzzer.cpp runs the same check and mutator in CI.
#include <cstddef>
#include <cstdint>
#include <string>

#include "frontend_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tritonc::fuzz::checkFrontEnd(std::string(reinterpret_cast<const char*>(data), size));
  return 0;
}
