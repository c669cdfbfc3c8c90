// The table of example kernels: every examples/*.tc file and each variant of
// its macros, with sizes, random inputs, a grid, and a reference computed by
// plain C++ loops. Shared by the `tritonc-examples` runner and the tests.
//
// Error metric (one number per launch): for each output buffer,
//   max_i |out[i] - ref[i]| / max(1, max_i |ref[i]|)
// and the largest over the outputs; a NaN or infinite output where a finite
// value is expected counts as an infinite error. Elements that the kernel must
// not write (padding between rows, slack) keep their poison, which is checked
// bit for bit; a written one is also an infinite error.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "lang/compile.h"
#include "target/interp/interpreter.h"

namespace tritonc::examples {

enum class Preset { Test, Demo };  // "test": small and quick; "demo": a bit bigger
const char* presetName(Preset p);
std::optional<Preset> presetFromName(const std::string& s);

// Named integers: problem sizes (M, N, K, ...) and tile sizes (TM, TN, ...).
struct Params {
  std::map<std::string, int64_t> values;
  // Throws std::out_of_range naming the parameter when it is missing.
  int64_t operator()(const std::string& name) const;
  int64_t get(const std::string& name, int64_t fallback) const;
};

// An output compared after the launch. ref[i] is NaN for elements the kernel
// must leave alone (they keep their poison).
struct Expected {
  interp::Buffer* buffer = nullptr;
  std::vector<double> ref;
};

// Everything for one launch of a case: owned buffers, the arguments in
// parameter order, the grid, and the expected outputs.
struct Launch {
  std::vector<std::unique_ptr<interp::Buffer>> buffers;
  std::vector<interp::KernelArg> args;
  interp::Grid grid;
  std::string sizes;  // for display, e.g. "M=64 N=64 K=64"
  std::vector<Expected> expected;
  double tolerance = 1e-4;

  // A zero-filled buffer owned by this launch (not yet an argument).
  interp::Buffer* newBuffer(const std::string& name, ir::Scalar elem, int64_t elements);
  bool isOutput(const interp::Buffer* b) const;
  // A deep copy whose arguments and expectations point at the copy's buffers.
  Launch clone() const;
};

// Builds a launch from the sizes and tile parameters: inputs filled from
// `rng`, outputs poisoned, the reference computed from the same inputs.
using LaunchBuilder = std::function<Launch(const Params&, std::mt19937_64&)>;

struct Case {
  std::string name;  // a valid gtest name: letters, digits, '_'
  std::string file;  // relative to the repository root
  std::vector<lang::Define> defines;
  std::map<std::string, int64_t> testSizes, demoSizes;
  LaunchBuilder build;
  int numWarps = 4;  // on the GPU (the interpreter ignores it)
  bool tf32 = false;  // f32 dots on tensor cores with tf32 inputs (GPU)
};

// Every case, in a stable order.
const std::vector<Case>& allCases();

// The sizes of `preset` plus the integer tile parameters: the -D values (the
// first of a list) and the values the compiler chose for tuning parameters.
Params paramsFor(const Case& c, Preset preset, const lang::CompileResult& compiled);

// Reads `root`/`c.file` and compiles it with the case's defines; the file
// name in diagnostics is c.file. Throws UserError as compileSource does.
lang::CompileResult compileCase(const Case& c, const std::string& root);
std::string readTextFile(const std::string& path);  // throws std::runtime_error

// The kernel to launch: the module's only function.
const ir::Function& kernelOf(const ir::Module& m);

struct Comparison {
  double maxError = 0;  // see the metric at the top of this file
  std::string worst;    // the worst element, e.g. "c[17] = nan, expected 0.25"
  bool passed(double tolerance) const { return maxError <= tolerance; }
};
Comparison compareOutputs(const Launch& launch);

// Element access: interp::readElement / interp::writeElement (found by ADL).
using interp::readElement;
using interp::writeElement;
// Uniform values in [lo, hi), rounded to the element type (integers: floor).
void fillRandom(interp::Buffer& b, std::mt19937_64& rng, double lo = -1, double hi = 1);
// Floats become NaN, integers 0x5A bytes: a result nobody wrote stands out.
void poison(interp::Buffer& b);
bool isPoison(const interp::Buffer& b, int64_t i);

// A stable per-case seed: the run's seed mixed with the case name, so that
// --filter does not change a case's data.
uint64_t caseSeed(uint64_t seed, const std::string& caseName);

int64_t cdiv(int64_t a, int64_t b);

// The matrix product C[m, n] = sum_k A[a(m, k)] * B[b(k, n)] in double, at
// ref[c(m, n)] of a vector of `size` elements (NaN elsewhere: padding that
// must keep its poison). The index maps give each case its layouts.
using Index2 = std::function<int64_t(int64_t, int64_t)>;
std::vector<double> referenceProduct(const interp::Buffer& A, const interp::Buffer& B, int64_t M, int64_t N, int64_t K,
                                     const Index2& a, const Index2& b, const Index2& c, int64_t size);
// Short names for launch arguments in the case builders.
inline interp::KernelArg I(int64_t v) { return interp::KernelArg::ofInt(v); }
inline interp::KernelArg P(interp::Buffer* b) { return interp::KernelArg::ofBuffer(b); }
// The tolerance on the error metric for an output of kind `k`:
// 1e-4 for f32/f64 outputs, 1e-2 for f16/bf16 outputs.
double toleranceFor(ir::Scalar k);
// `"TYPE" -> ir::Scalar` for the macro values used by the table ("float", "half").
ir::Scalar scalarOfType(const std::string& typeMacro);

// The macros of examples/matmul_fused.tc for one operand layout (A or B
// transposed or not; see its header).
std::vector<lang::Define> fusedMacros(bool transA, bool transB);

// The families, each in its own file; allCases() concatenates them.
void addBasicCases(std::vector<Case>& out);   // vector add, transpose, relu, softmax, layernorm
void addMatmulCases(std::vector<Case>& out);  // matmul*.tc
void addConvCases(std::vector<Case>& out);    // shift_conv, conv_implicit_gemm
void addMaskedCases(std::vector<Case>& out);  // masked matmuls, split-K, conv_nhwc, attention
void addTileCases(std::vector<Case>& out);    // rope (tile slices), topk_gating (top-k, element indexing)

}  // namespace tritonc::examples
