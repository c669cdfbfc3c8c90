// libFuzzer's LLVMFuzzerMutate for builds without libFuzzer (the bounded
// fuzzer of CI, bounded_fuzzer.cpp): byte-level mutations of an input, with
// the dictionary's tokens and splices of other corpus inputs, so that the
// custom mutator (long_program_mutator.cpp) runs unchanged.
#pragma once
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace tritonc::fuzz {

// What the mutations draw on; set by the driver before mutating.
struct MutationSources {
  std::vector<std::string> dictionary;       // tokens (fuzz/triton-c.dict)
  const std::vector<std::string>* corpus = nullptr;  // inputs to splice from
  std::mt19937_64 rng{1};
};
MutationSources& mutationSources();

// The tokens of a libFuzzer dictionary file (`name="token"` lines, with \" \\ \xNN escapes).
std::vector<std::string> readDictionary(const std::string& path);

}  // namespace tritonc::fuzz

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t maxSize);
