// Helpers of the CPU back end's tests: compile Triton-C as a launch would,
// poisoned buffers, random fills, and running a kernel on the CPU and on the
// interpreter from the same inputs, where every output byte must agree.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "lang/compile.h"
#include "runtime/optimize_for_launch.h"
#include "runtime/specialize.h"
#include "target/cpu/cpu_backend.h"
#include "target/interp/interpreter.h"

namespace tritonc::cpu_test {

using ir::Scalar;

#define REQUIRE_CPU() \
  if (!cpu::available()) GTEST_SKIP() << "built without the CPU back end (TRITONC_CPU needs LLVM 19)"

#define FRESH_RNG()                                      \
  const unsigned seed = std::random_device{}();          \
  SCOPED_TRACE("random seed " + std::to_string(seed));   \
  std::mt19937_64 rng(seed)

// A Triton-C kernel, compiled, specialized for `args` and optimized as a launch would.
struct Compiled {
  lang::CompileResult result;
  ir::Function* fn = nullptr;
};

inline Compiled compile(const std::string& source, const std::vector<interp::KernelArg>& args,
                        std::vector<lang::Define> defines = {}, int numStages = 3,
                        lang::Language language = lang::Language::TritonC) {
  lang::CompileOptions o;
  o.filename = language == lang::Language::TritonC ? "test.tc" : "test.tir";
  o.language = language;
  o.defines = std::move(defines);
  Compiled c{lang::compileSource(source, o), nullptr};
  c.fn = c.result.module->functions()[0].get();
  runtime::specializeAndOptimize(*c.result.module, *c.fn, runtime::factsOf(args), numStages, false);
  return c;
}

// The distance in units in the last place between two finite floats of one
// sign (or both zero).
inline int64_t ulps(float a, float b) {
  int32_t x, y;
  std::memcpy(&x, &a, 4);
  std::memcpy(&y, &b, 4);
  return x > y ? int64_t(x) - y : int64_t(y) - x;
}

inline interp::Buffer buffer(const std::string& name, Scalar k, size_t n) {
  interp::Buffer b;
  b.name = name;
  b.elem = k;
  b.shape = {int64_t(n)};
  b.data.assign(n * size_t(ir::byteSize(k)), 0xAB);  // poison
  return b;
}

inline void fillUniform(interp::Buffer& b, std::mt19937_64& rng, double lo, double hi) {
  std::uniform_real_distribution<double> d(lo, hi);
  for (int64_t i = 0; i < b.numElements(); ++i) interp::writeElement(b, i, ir::isFloatKind(b.elem) ? d(rng) : std::floor(d(rng)));
}

inline interp::KernelArg buf(interp::Buffer& b) { return interp::KernelArg::ofBuffer(&b); }
inline interp::KernelArg num(int64_t v) { return interp::KernelArg::ofInt(v); }

// Runs `fn` on the CPU (exact math), and on the interpreter from copies of
// the inputs; every buffer must come out with the same bytes (NaNs: any NaN).
inline void runBoth(const ir::Function& fn, interp::Grid grid, const std::vector<interp::KernelArg>& args) {
  std::vector<std::pair<interp::Buffer*, std::unique_ptr<interp::Buffer>>> copies;
  std::vector<interp::KernelArg> interpArgs = args;
  for (interp::KernelArg& a : interpArgs) {
    if (a.kind != interp::KernelArg::Kind::Buffer) continue;
    interp::Buffer* original = a.buffer;
    auto it = std::find_if(copies.begin(), copies.end(), [&](auto& p) { return p.first == original; });
    if (it == copies.end()) {
      copies.push_back({original, std::make_unique<interp::Buffer>(*original)});
      it = copies.end() - 1;
    }
    a.buffer = it->second.get();
  }
  cpu::CompileOptions exact;  // exp as the interpreter computes it: every byte must agree
  exact.exactMath = true;
  cpu::CpuKernel::compile(fn, exact)->run(grid, args);
  interp::runKernel(fn, grid, interpArgs);
  for (auto& [onCpu, onInterp] : copies) {
    const int size = ir::byteSize(onCpu->elem);
    for (int64_t i = 0; i < onCpu->numElements(); ++i) {
      if (std::memcmp(onCpu->data.data() + i * size, onInterp->data.data() + i * size, size_t(size)) == 0) continue;
      const double x = interp::readElement(*onCpu, i), y = interp::readElement(*onInterp, i);
      if (ir::isFloatKind(onCpu->elem) && std::isnan(x) && std::isnan(y)) continue;
      ADD_FAILURE() << onCpu->name << "[" << i << "]: " << x << " on the CPU, " << y << " on the interpreter";
      return;
    }
  }
}

}  // namespace tritonc::cpu_test
