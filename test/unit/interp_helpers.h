// Helpers for the interpreter tests: a kernel under construction, host
// buffers of C++ values, poisoning, and seeded randomness. Kernel::run also
// checks the CPU back end against the interpreter, bit for bit.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "ir/builder.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "target/cpu/cpu_backend.h"
#include "target/interp/interpreter.h"

namespace interp_test {

using namespace tritonc;
using ir::Opcode;
using ir::Scalar;
using ir::Type;

// Declares `seed` (fresh each run) and `rng`, and prints the seed with any failure.
#define INTERP_TEST_RNG()                                     \
  const unsigned seed = std::random_device{}();               \
  SCOPED_TRACE("random seed " + std::to_string(seed));        \
  std::mt19937 rng(seed)

// A module with one kernel and a builder at the end of its entry block.
struct Kernel {
  ir::Module module;
  ir::Function* fn;
  ir::Builder b{module};

  explicit Kernel(const std::string& name) {
    fn = module.addFunction(name);
    b.setInsertPoint(fn->addBlock("entry"));
  }
  ir::Argument* param(const Type& t, const std::string& name) { return fn->addArgument(t, name); }
  ir::Argument* ptrParam(Scalar elem, const std::string& name) { return param(Type::pointer(elem), name); }
  ir::Argument* intParam(const std::string& name) { return param(Type::scalar(Scalar::I32), name); }

  // program_id(axis) * block + range(0, block)
  ir::Value* blockOffsets(int64_t block, int axis = 0) {
    ir::Value* start = b.binary(Opcode::Mul, b.programId(axis), b.i32(block));
    return b.binary(Opcode::Add, b.splat(start, {block}), b.range(0, block));
  }
  // base + offsets, as a tile of pointers of the offsets' shape.
  ir::Value* pointers(ir::Value* base, ir::Value* offsets) {
    return b.gep(b.splat(base, offsets->type().shape), offsets);
  }
  ir::Value* at(ir::Value* base, int64_t index) { return b.gep(base, b.i32(index)); }
  ir::Value* f32(double v) { return module.constFloat(Scalar::F32, v); }

  // Checks the kernel with the project's verifier, then interprets it. When
  // the interpreter succeeds (so every access was in bounds), the CPU back
  // end (when built) runs the kernel too, from the same inputs, on one
  // thread in the interpreter's program order, and must write the same bytes.
  void run(interp::Grid grid, const std::vector<interp::KernelArg>& args, const interp::RunOptions& options = {}) {
    const std::string problems = ir::verifyFunction(*fn);
    if (!problems.empty())
      throw std::logic_error("test kernel is not valid IR:\n" + problems + "\n" + ir::printFunction(*fn));
    const bool alsoOnCpu = cpu::available() && !module.isGpu() && options.checkMultipleOf &&
                           options.maxStepsPerProgram == interp::RunOptions{}.maxStepsPerProgram;
    std::vector<std::pair<interp::Buffer*, interp::Buffer>> inputs;  // each buffer once, as it was
    if (alsoOnCpu)
      for (const interp::KernelArg& a : args)
        if (a.kind == interp::KernelArg::Kind::Buffer && a.buffer) {
          bool seen = false;
          for (auto& [b, copy] : inputs) seen = seen || b == a.buffer;
          if (!seen) inputs.push_back({a.buffer, *a.buffer});
        }
    interp::runKernel(*fn, grid, args, options);
    if (!alsoOnCpu) return;
    std::vector<interp::KernelArg> cpuArgs = args;
    for (interp::KernelArg& a : cpuArgs)
      for (auto& [b, copy] : inputs)
        if (a.kind == interp::KernelArg::Kind::Buffer && a.buffer == b) a.buffer = &copy;
    cpu::RunOptions one;
    one.threads = 1;
    cpu::CompileOptions exact;  // the interpreter's exp too: every byte must agree
    exact.exactMath = true;
    cpu::CpuKernel::compile(*fn, exact)->run(grid, cpuArgs, one);
    for (auto& [b, copy] : inputs) {
      const int size = ir::byteSize(b->elem);
      for (size_t i = 0; i < b->data.size(); i += size_t(size)) {
        if (std::memcmp(b->data.data() + i, copy.data.data() + i, size_t(size)) == 0) continue;
        // NaNs match whatever their sign and payload (which constant folding may choose).
        if (ir::isFloatKind(b->elem) && std::isnan(interp::readElement(copy, int64_t(i) / size)) &&
            std::isnan(interp::readElement(*b, int64_t(i) / size)))
          continue;
        ADD_FAILURE() << "the CPU back end wrote " << b->name << "[" << i / size_t(size) << "] = "
                      << interp::readElement(copy, int64_t(i) / size) << ", the interpreter "
                      << interp::readElement(*b, int64_t(i) / size) << "\n" << ir::printFunction(*fn);
        break;
      }
    }
  }
};

template <class T>
constexpr Scalar kindOf() {
  if constexpr (std::is_same_v<T, float>) return Scalar::F32;
  else if constexpr (std::is_same_v<T, double>) return Scalar::F64;
  else if constexpr (std::is_same_v<T, int8_t>) return Scalar::I8;
  else if constexpr (std::is_same_v<T, int16_t>) return Scalar::I16;
  else if constexpr (std::is_same_v<T, int32_t>) return Scalar::I32;
  else if constexpr (std::is_same_v<T, int64_t>) return Scalar::I64;
  else if constexpr (std::is_same_v<T, uint16_t>) return Scalar::F16;  // raw half bits (or pass BF16)
  else if constexpr (std::is_same_v<T, bool>) return Scalar::I1;
  else static_assert(sizeof(T) == 0, "no element kind for this C++ type");
}

// Host memory of x86 is little endian like the interpreter's buffers.
template <class T>
interp::Buffer makeBuffer(const std::string& name, const std::vector<T>& values, Scalar kind = kindOf<T>()) {
  interp::Buffer b;
  b.name = name;
  b.elem = kind;
  b.shape = {int64_t(values.size())};
  b.data.resize(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(b.data.data(), values.data(), b.data.size());
  return b;
}

// A buffer of `count` elements whose bytes are all 0xAB, so that anything
// the kernel fails to write stands out.
inline interp::Buffer poisoned(const std::string& name, Scalar kind, size_t count) {
  interp::Buffer b;
  b.name = name;
  b.elem = kind;
  b.shape = {int64_t(count)};
  b.data.assign(count * size_t(ir::byteSize(kind)), 0xAB);
  return b;
}

template <class T>
std::vector<T> contents(const interp::Buffer& b) {
  std::vector<T> v(b.data.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), b.data.data(), v.size() * sizeof(T));
  return v;
}

inline std::vector<float> randomFloats(std::mt19937& rng, size_t n, float lo = -4, float hi = 4) {
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

template <class T>
std::vector<T> randomInts(std::mt19937& rng, size_t n, int64_t lo, int64_t hi) {
  std::uniform_int_distribution<int64_t> dist(lo, hi);
  std::vector<T> v(n);
  for (T& x : v) x = T(dist(rng));
  return v;
}

inline interp::KernelArg buf(interp::Buffer& b) { return interp::KernelArg::ofBuffer(&b); }
inline interp::KernelArg num(int64_t v) { return interp::KernelArg::ofInt(v); }

// Runs `run` and returns the UserError it must throw.
template <class F>
UserError expectUserError(F run) {
  try {
    run();
  } catch (const UserError& e) {
    return e;
  }
  ADD_FAILURE() << "expected a UserError";
  return UserError({}, "");
}

// Every piece must occur in `message`.
inline void expectMentions(const std::string& message, const std::vector<std::string>& pieces) {
  for (const std::string& p : pieces) EXPECT_NE(message.find(p), std::string::npos) << "'" << p << "' missing in: " << message;
}

}  // namespace interp_test
