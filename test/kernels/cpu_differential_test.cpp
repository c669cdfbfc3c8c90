// Differential test of the CPU back end, and of the GPU where there is one,
// against the interpreter on the fuzzer's programs: every file of the fuzzer corpus (fuzz/corpus), the
// fuzzer's regressions (test/lang/fuzz_regressions) and the language cases
// (test/lang/cases) that compiles (with a few common macros defined:
// TYPE, TM, TN, TK, BLOCK, SIZE) and whose parameters are all numbers or
// pointers runs, kernel by kernel, on both from the same random inputs; the
// CPU must leave every buffer with the interpreter's bytes (NaN: any NaN).
// Inputs come in up to three draws (integer arguments and pointed-to data
// of different ranges, multiples of what a parameter promises); a draw the
// interpreter refuses (an out-of-bounds access: it checks what compiled code
// does not) is skipped, the next is tried.
// Programs over 20,000 tokens after preprocessing (the front end's scaling
// regressions: 100,000-term chains, 10,000 loops) are left out, so the test
// stays within a few seconds. The CPU runs programs on one thread, in the
// interpreter's order, so that programs racing through atomics end alike.
// The GPU runs one program (the random sizes make programs overlap, which
// the interpreter orders and the GPU does not), with its own math
// (ex2.approx, div.full, contracted fmas): floats agree within a tolerance;
// kernels whose result depends on the order of their accesses (exchanges,
// compare-and-swaps) are left out, named.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <random>
#include <sstream>

#include "lang/compile.h"
#include "lang/preprocessor.h"
#include "lang/token.h"
#include "runtime/optimize_for_launch.h"
#include "runtime/specialize.h"
#include "target/cpu/cpu_backend.h"
#include "target/interp/interpreter.h"
#include "target/nvptx/codegen.h"
#include "target/nvptx/gpu_runner.h"

namespace {

using namespace tritonc;
namespace fs = std::filesystem;

constexpr size_t kMaxTokens = 20000;
constexpr int64_t kBufferElements = 4096;

const std::vector<lang::Define> kMacros = {{"TYPE", "float"}, {"TM", "16"}, {"TN", "16"},
                                           {"TK", "16"},      {"BLOCK", "64"}, {"SIZE", "64"}};

std::string readFile(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<fs::path> corpus() {
  std::vector<fs::path> files;
  for (const char* dir : {"fuzz/corpus", "test/lang/fuzz_regressions", "test/lang/cases"})
    for (const auto& e : fs::directory_iterator(fs::path(TRITONC_SOURCE_DIR) / dir))
      if (e.path().extension() == ".tc") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

size_t preprocessedTokens(const std::string& source) {
  std::map<std::string, std::string> defines;
  for (const lang::Define& d : kMacros) defines[d.name] = d.value;
  return lang::preprocess(lang::lex(source), defines).size();
}

bool runnable(const ir::Function& fn) {
  for (const auto& a : fn.arguments()) {
    const ir::Type& t = a->type();
    if (t.isTile()) return false;
    if (!t.isPtr() && !ir::isIntKind(t.kind) && !ir::isFloatKind(t.kind)) return false;
  }
  return true;
}

// One draw of inputs: a buffer per pointer parameter, a number per scalar.
struct Inputs {
  std::vector<std::unique_ptr<interp::Buffer>> buffers;
  std::vector<interp::KernelArg> args;
};

// `atLeast`: integers from there up (the GPU's draws: strides of a tile's
// rows no narrower than the macros' tiles, so that no two elements of one
// store share an address, which the interpreter orders and the GPU does not).
Inputs draw(const ir::Function& fn, int attempt, std::mt19937_64& rng, int64_t atLeast = 0) {
  Inputs in;
  const double hi = attempt == 0 ? 16 : attempt == 1 ? 4 : 1;  // smaller each time: indices stay in bounds
  for (const auto& a : fn.arguments()) {
    const ir::Type& t = a->type();
    if (t.isPtr()) {
      auto b = std::make_unique<interp::Buffer>();
      b->name = a->name();
      b->elem = t.pointee;
      b->shape = {kBufferElements};
      b->data.resize(size_t(kBufferElements) * size_t(ir::byteSize(t.pointee)));
      std::uniform_real_distribution<double> d(ir::isFloatKind(t.pointee) ? -hi : 0, hi);
      for (int64_t i = 0; i < kBufferElements; ++i) {
        const double v = d(rng);
        interp::writeElement(*b, i, ir::isFloatKind(t.pointee) ? v : std::floor(v));
      }
      in.args.push_back(interp::KernelArg::ofBuffer(b.get()));
      in.buffers.push_back(std::move(b));
    } else if (ir::isFloatKind(t.kind)) {
      in.args.push_back(interp::KernelArg::ofFloat(std::uniform_real_distribution<double>(-hi, hi)(rng)));
    } else {
      const int64_t step = std::max<int64_t>(a->attrs.multipleOf, 1);
      int64_t v = step * int64_t(1 + rng() % uint64_t(std::max<double>(hi / double(step), 1)));
      if (atLeast) v += (atLeast + step - 1) / step * step;
      in.args.push_back(interp::KernelArg::ofInt(t.kind == ir::Scalar::I1 ? v % 2 : v));
    }
  }
  return in;
}

Inputs copyOf(const Inputs& from) {
  Inputs out;
  std::map<const interp::Buffer*, interp::Buffer*> copies;  // one per buffer; arguments keep their offsets
  for (const interp::KernelArg& a : from.args) {
    interp::KernelArg c = a;
    if (a.kind == interp::KernelArg::Kind::Buffer) {
      interp::Buffer*& copy = copies[a.buffer];
      if (!copy) {
        out.buffers.push_back(std::make_unique<interp::Buffer>(*a.buffer));
        copy = out.buffers.back().get();
      }
      c.buffer = copy;
    }
    out.args.push_back(c);
  }
  return out;
}

// "" when every buffer holds what the interpreter left, else the first
// difference: the same bytes (NaN: any NaN), or for floats within `tol`
// (relative, and absolute near zero) when it is not 0.
std::string difference(const Inputs& got, const Inputs& interp, const char* who, double tol = 0) {
  for (size_t k = 0; k < got.buffers.size(); ++k) {
    const interp::Buffer &x = *got.buffers[k], &y = *interp.buffers[k];
    const int size = ir::byteSize(x.elem);
    for (int64_t i = 0; i < x.numElements(); ++i) {
      if (std::memcmp(x.data.data() + i * size, y.data.data() + i * size, size_t(size)) == 0) continue;
      const double a = interp::readElement(x, i), b = interp::readElement(y, i);
      if (ir::isFloatKind(x.elem) && std::isnan(a) && std::isnan(b)) continue;
      if (tol > 0 && ir::isFloatKind(x.elem) && std::fabs(a - b) <= tol * std::max(1.0, std::fabs(b))) continue;
      if (tol > 0 && ir::isFloatKind(x.elem) && std::isinf(a) && a == b) continue;
      return x.name + "[" + std::to_string(i) + "]: " + std::to_string(a) + " on " + who + ", " + std::to_string(b) +
             " on the interpreter";
    }
  }
  return "";
}

// A back end to compare with the interpreter: how it runs a kernel that
// was specialized for the draw and optimized (for the GPU when `gpu`).
struct Backend {
  const char* who = "";
  bool gpu = false;
  interp::Grid grid{3, 2, 1};
  int64_t intsFrom = 0;  // draw()'s atLeast
  double tolerance = 0;  // difference()'s tol
  std::function<void(ir::Module&, const ir::Function&, const interp::Grid&, Inputs&)> run;
  std::function<bool(const ir::Function&)> leaveOut;  // kernels not compared, named
};

// Every runnable kernel of the corpus on `b` and on the interpreter, from
// the same inputs: each buffer must end alike. Prints what was compared and
// what was left out, and why.
void compareWithInterpreter(const Backend& b) {
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("random seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const auto t0 = std::chrono::steady_clock::now();
  int compared = 0, tooLarge = 0, notCompiled = 0, notRunnable = 0, refused = 0;
  std::vector<std::string> leftOut;
  for (const fs::path& file : corpus()) {
    const std::string source = readFile(file);
    const std::string name = file.parent_path().filename().string() + "/" + file.filename().string();
    try {
      if (preprocessedTokens(source) > kMaxTokens) {
        ++tooLarge;
        continue;
      }
    } catch (const std::exception&) {
      ++notCompiled;  // a preprocessor error: a case that must fail
      continue;
    }
    lang::CompileOptions options;
    options.filename = file.string();
    options.defines = kMacros;
    lang::CompileResult compiled;
    try {
      compiled = lang::compileSource(source, options);
    } catch (const std::exception&) {
      ++notCompiled;
      continue;
    }
    for (auto& owned : compiled.module->functions()) {
      ir::Function& fn = *owned;
      SCOPED_TRACE(name + ", kernel " + fn.name());
      if (!runnable(fn)) {
        ++notRunnable;
        continue;
      }
      if (b.leaveOut && b.leaveOut(fn)) {
        leftOut.push_back(name + ":" + fn.name());
        continue;
      }
      bool ran = false;
      for (int attempt = 0; attempt < 3 && !ran; ++attempt) {
        Inputs onBackend = draw(fn, attempt, rng, b.intsFrom);
        // Specialized for this draw, then optimized, as a launch compiles it.
        lang::CompileResult fresh = lang::compileSource(source, options);
        ir::Function* f = fresh.module->function(fn.name());
        runtime::specializeAndOptimize(*fresh.module, *f, runtime::factsOf(onBackend.args, runtime::parameterKinds(*f)),
                                       b.gpu ? 3 : 1, b.gpu);
        Inputs onInterp = copyOf(onBackend);
        try {
          interp::runKernel(*f, b.grid, onInterp.args);
        } catch (const UserError&) {
          continue;  // a draw the program cannot take
        }
        try {
          b.run(*fresh.module, *f, b.grid, onBackend);
        } catch (const std::exception& e) {
          ADD_FAILURE() << b.who << " failed where the interpreter ran: " << e.what();
          break;
        }
        EXPECT_EQ(difference(onBackend, onInterp, b.who, b.tolerance), "");
        ran = true;
        ++compared;
      }
      if (!ran) ++refused;
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << b.who << ": compared " << compared << " kernels; left out: " << tooLarge << " over " << kMaxTokens
            << " tokens, " << notCompiled << " that do not compile (cases that must fail), " << notRunnable
            << " with parameters of other kinds, " << leftOut.size() << " on purpose (";
  for (size_t k = 0; k < leftOut.size(); ++k) std::cout << (k ? ", " : "") << leftOut[k];
  std::cout << "), " << refused << " no draw of inputs could run; " << seconds << " s\n";
  EXPECT_GE(compared, 20) << "too few programs ran: the corpus or the inputs changed";
}

TEST(CpuDifferential, FuzzerProgramsAgreeWithTheInterpreter) {
  if (!cpu::available()) GTEST_SKIP() << "built without the CPU back end";
  Backend b;
  b.who = "the CPU";
  // One thread, in the interpreter's order: programs racing through
  // atomics end alike.
  b.run = [](ir::Module&, const ir::Function& f, const interp::Grid& grid, Inputs& in) {
    cpu::RunOptions one;
    one.threads = 1;
    cpu::CompileOptions exact;  // the interpreter's exp, bit for bit
    exact.exactMath = true;
    cpu::CpuKernel::compile(f, exact)->run(grid, in.args, one);
  };
  compareWithInterpreter(b);
}

// Whether the result may depend on the order of the kernel's atomics (an
// exchange or a compare-and-swap), which the interpreter runs element by
// element and the GPU does not.
bool orderDependent(const ir::Function& fn) {
  for (const auto& bb : fn.blocks())
    for (const auto& inst : bb->instructions()) {
      if (inst->opcode() == ir::Opcode::AtomicCas) return true;
      if (inst->opcode() == ir::Opcode::AtomicRmw && ir::AtomicKind(inst->sub) == ir::AtomicKind::Xchg) return true;
    }
  return false;
}

TEST(GpuDifferential, FuzzerProgramsAgreeWithTheInterpreter) {
  std::string why;
  const std::string arch = nvptx::gpuArch(&why);
  if (arch.empty()) GTEST_SKIP() << "no GPU: " << why;
  Backend b;
  b.who = "the GPU";
  b.gpu = true;
  // One program: the fuzzer's random sizes make programs overlap (in-place
  // updates, stores to the same rows), which the interpreter orders and the
  // GPU does not; integers from 16 up, so that no store overlaps itself.
  b.grid = interp::Grid{1, 1, 1};
  b.intsFrom = 16;
  b.tolerance = 1e-3;  // ex2.approx, div.full, contracted fmas
  b.leaveOut = orderDependent;
  b.run = [&](ir::Module& m, const ir::Function& f, const interp::Grid& grid, Inputs& in) {
    nvptx::TargetOptions to;
    to.arch = arch;
    nvptx::runOnGpu(nvptx::emitPtx(m, to), f, grid, in.args, nvptx::GpuLaunchOptions{});
  };
  compareWithInterpreter(b);
}

}  // namespace
