// Helpers shared by the kernel tests: the example table as gtest parameters,
// fresh seeds, and compilation whose errors read like the CLI's.
#pragma once
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "cases.h"
#include "support/diagnostic.h"

namespace kernel_test {

using namespace tritonc;
using namespace tritonc::examples;

inline std::vector<const Case*> casePointers() {
  std::vector<const Case*> v;
  for (const Case& c : allCases()) v.push_back(&c);
  return v;
}

inline std::string caseTestName(const ::testing::TestParamInfo<const Case*>& info) { return info.param->name; }

inline const Case& findCase(const std::string& name) {
  for (const Case& c : allCases())
    if (c.name == name) return c;
  throw std::invalid_argument("no example case named '" + name + "'");
}

// A fresh 64-bit seed for every run; tests print it with any failure.
inline uint64_t freshSeed() {
  std::random_device rd;
  return (uint64_t(rd()) << 32) ^ rd();
}

inline std::string seedTrace(const std::string& caseName, uint64_t seed) {
  return "case " + caseName + ", seed " + std::to_string(seed) + " (reproduce the data with: tritonc-examples --seed " +
         std::to_string(seed) + " --filter " + caseName + ")";
}

// compileCase, with a UserError rethrown as a runtime_error holding the
// rendered diagnostic (file:line:col, source line, caret).
inline lang::CompileResult compileOrThrow(const Case& c) {
  try {
    return compileCase(c, TRITONC_SOURCE_DIR);
  } catch (const UserError& e) {
    throw std::runtime_error(
        formatDiagnostic(c.file, readTextFile(std::string(TRITONC_SOURCE_DIR) + "/" + c.file), e.loc(), e.what()));
  }
}

// Runs a kernel; a UserError becomes a runtime_error with its location.
inline void runOrThrow(const ir::Function& fn, const Launch& launch) {
  try {
    interp::runKernel(fn, launch.grid, launch.args);
  } catch (const UserError& e) {
    throw std::runtime_error(std::to_string(e.loc().line) + ":" + std::to_string(e.loc().col) + ": " + e.what());
  }
}

}  // namespace kernel_test
