// Semantic checks of the passes: a kernel runs on the interpreter before and
// after each single pass, after its case's own RUN: passes and after the
// default pipeline, on the same fresh random inputs (outputs poisoned before
// every launch), and every buffer must come out identical, bit for bit. Only
// where `peephole` runs on a kernel with a `dot` may results differ, by
// rounding: it rewrites c + dot(a, b, 0) into dot(a, b, c), which changes the
// order of the sums.
//
// Kernels: the cases of test/ir/cases with LAUNCH: lines, and a few example
// kernels (examples/*.tc) with the inputs and sizes of their test preset.
//
// The CPU back end (when built) runs the default pipeline's result too, on
// one thread in the interpreter's program order, and must write the same
// bytes as the interpreter (NaNs: any NaN).
//
// LAUNCH: grid=X[,Y[,Z]] then one NAME=VALUE per kernel parameter:
//   in:N[:LO:HI]  a buffer of N elements of the pointee type, uniform in
//                 [LO, HI) (floats: [-1, 1), integers: [-100, 100) unless given)
//   out:N         a buffer of N poisoned elements
//   a number      a scalar argument
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <random>

#include "cases.h"
#include "gpu/passes.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "ir_case_file.h"
#include "target/cpu/cpu_backend.h"
#include "target/interp/interpreter.h"
#include "runtime/specialize.h"
#include "transform/pass_manager.h"

namespace {

using namespace tritonc;
namespace ex = tritonc::examples;
using ir_cases::IrCase;

// A kernel to check: a case with LAUNCH lines, or an example of the table.
struct Subject {
  std::string name;     // the gtest name
  bool isCase = false;
  IrCase irCase;        // when isCase
  std::string example;  // otherwise: the example case's name
};

void PrintTo(const Subject& s, std::ostream* os) { *os << s.name; }

// The examples checked (names from examples/cases*.cpp).
const char* const kExamples[] = {
    "transpose_checked_f32_16x32", "transpose_checked_f16_32x32", "matmul_f32", "matmul_f16",
    "matmul_prefetch_f32",         "matmul_nt",                   "softmax_f32", "softmax_f16",
    "layernorm_f32",
};

std::vector<Subject> allSubjects() {
  std::vector<Subject> out;
  for (IrCase& c : ir_cases::loadAllCases()) {
    if (c.launches.empty()) continue;
    Subject s;
    s.name = "case_" + c.name;
    s.isCase = true;
    s.irCase = std::move(c);
    out.push_back(std::move(s));
  }
  for (const char* e : kExamples) {
    Subject s;
    s.name = std::string("example_") + e;
    s.example = e;
    out.push_back(std::move(s));
  }
  return out;
}

uint64_t freshSeed() {
  std::random_device rd;
  return (uint64_t(rd()) << 32) ^ rd();
}

const ex::Case& findExample(const std::string& name) {
  for (const ex::Case& c : ex::allCases())
    if (c.name == name) return c;
  throw std::runtime_error("no example case named '" + name + "'");
}

std::unique_ptr<ir::Module> compileSubject(const Subject& s) {
  if (s.isCase) return ir_cases::buildModule(s.irCase);
  const ex::Case& c = findExample(s.example);
  try {
    return ex::compileCase(c, TRITONC_SOURCE_DIR).module;
  } catch (const UserError& e) {
    throw std::runtime_error(c.file + ":" + std::to_string(e.loc().line) + ": " + e.what());
  }
}

const ir::Function& kernelOf(const ir::Module& m) {
  if (m.functions().size() != 1) throw std::runtime_error("a checked module must hold exactly one kernel");
  return *m.functions()[0];
}

// Builds the launch of one LAUNCH: line for `fn`.
ex::Launch launchFromSpec(const ir::Function& fn, const std::string& spec, std::mt19937_64& rng) {
  ex::Launch L;
  std::map<std::string, std::string> given;
  for (const std::string& w : ir_cases::splitWords(spec)) {
    size_t eq = w.find('=');
    if (eq == std::string::npos) throw std::runtime_error("LAUNCH: expected NAME=VALUE, got '" + w + "'");
    if (!given.emplace(w.substr(0, eq), w.substr(eq + 1)).second)
      throw std::runtime_error("LAUNCH: '" + w.substr(0, eq) + "' given twice");
  }
  auto take = [&](const std::string& key) {
    auto it = given.find(key);
    if (it == given.end()) throw std::runtime_error("LAUNCH: no value for '" + key + "'");
    std::string v = it->second;
    given.erase(it);
    return v;
  };
  {
    std::vector<int64_t> g;
    std::stringstream ss(take("grid"));
    for (std::string item; std::getline(ss, item, ',');) g.push_back(std::stoll(item));
    g.resize(3, 1);
    L.grid = {g[0], g[1], g[2]};
  }
  for (const auto& a : fn.arguments()) {
    std::string v = take(a->name());
    const ir::Type& t = a->type();
    if (!t.isPtr()) {
      L.args.push_back(t.isFloat() ? interp::KernelArg::ofFloat(std::stod(v)) : interp::KernelArg::ofInt(std::stoll(v)));
      continue;
    }
    std::vector<std::string> parts;
    std::stringstream ss(v);
    for (std::string item; std::getline(ss, item, ':');) parts.push_back(item);
    if (parts.size() < 2 || (parts[0] != "in" && parts[0] != "out") || (parts.size() != 2 && parts.size() != 4))
      throw std::runtime_error("LAUNCH: '" + a->name() + "=" + v + "': expected in:N[:LO:HI] or out:N");
    interp::Buffer* b = L.newBuffer(a->name(), t.pointee, std::stoll(parts[1]));
    if (parts[0] == "out") {
      ex::poison(*b);
    } else {
      bool isFloat = ir::isFloatKind(t.pointee);
      double lo = parts.size() == 4 ? std::stod(parts[2]) : (isFloat ? -1 : -100);
      double hi = parts.size() == 4 ? std::stod(parts[3]) : (isFloat ? 1 : 100);
      ex::fillRandom(*b, rng, lo, hi);
    }
    L.args.push_back(interp::KernelArg::ofBuffer(b));
  }
  if (!given.empty()) throw std::runtime_error("LAUNCH: '" + given.begin()->first + "' is not a parameter");
  return L;
}

// Runs `fn` on a copy of `base`; a run-time error becomes a message.
std::optional<ex::Launch> run(const ir::Function& fn, const ex::Launch& base, std::string& error) {
  ex::Launch l = base.clone();
  try {
    interp::runKernel(fn, l.grid, l.args);
  } catch (const UserError& e) {
    error = std::to_string(e.loc().line) + ":" + std::to_string(e.loc().col) + ": " + e.what();
    return std::nullopt;
  } catch (const std::exception& e) {
    error = e.what();
    return std::nullopt;
  }
  return l;
}

// Relative tolerance on the largest magnitude of a buffer, where rounding may
// differ: 1e-5 for f32/f64, one f16 unit in the last place near the largest
// value (2^-10; bf16: 2^-7) where the result is stored in a 16-bit type.
double toleranceOf(ir::Scalar k) {
  switch (k) {
    case ir::Scalar::F16: return std::ldexp(1.0, -10);
    case ir::Scalar::BF16: return std::ldexp(1.0, -7);
    case ir::Scalar::F32:
    case ir::Scalar::F64: return 1e-5;
    default: return 0;
  }
}

// "" when `got` matches `ref` (bit for bit, or within the tolerance when
// `exact` is false; with `anyNan`, a NaN matches any NaN); otherwise the
// first differences.
std::string compareBuffers(const ex::Launch& ref, const ex::Launch& got, bool exact, bool anyNan = false) {
  std::string out;
  for (size_t k = 0; k < ref.buffers.size(); ++k) {
    const interp::Buffer& a = *ref.buffers[k];
    const interp::Buffer& b = *got.buffers[k];
    if (a.data == b.data) continue;
    const int64_t n = a.numElements();
    const int size = ir::byteSize(a.elem);
    double scale = 1;
    for (int64_t i = 0; i < n; ++i) {
      double v = ex::readElement(a, i);
      if (std::isfinite(v)) scale = std::max(scale, std::fabs(v));
    }
    const double tol = exact ? 0 : toleranceOf(a.elem) * scale;
    int shown = 0, bad = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (std::memcmp(a.data.data() + i * size, b.data.data() + i * size, size_t(size)) == 0) continue;
      double x = ex::readElement(a, i), y = ex::readElement(b, i);
      // Within the tolerance, but never +0 for -0: no rewrite may flip a sign.
      bool signFlip = x == 0 && y == 0 && std::signbit(x) != std::signbit(y);
      if (!exact && !signFlip && ((std::isnan(x) && std::isnan(y)) || std::fabs(x - y) <= tol)) continue;
      if (anyNan && std::isnan(x) && std::isnan(y)) continue;
      ++bad;
      if (shown++ < 5) {
        char line[200];
        std::snprintf(line, sizeof line, "  %s[%lld]: %.9g, before the passes %.9g%s\n", a.name.c_str(), (long long)i, y,
                      x, ex::isPoison(b, i) ? " (never written)" : ex::isPoison(a, i) ? " (was never written)" : "");
        out += line;
      }
    }
    if (bad > shown) out += "  ... " + std::to_string(bad - shown) + " more in " + a.name + "\n";
    if (bad && !exact) out += "  (tolerance " + std::to_string(tol) + ")\n";
  }
  return out;
}

class PassSemantics : public ::testing::TestWithParam<Subject> {};

TEST_P(PassSemantics, SameResults) {
  const Subject& s = GetParam();
  const uint64_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed) + (s.isCase ? ", " + s.irCase.file + ":" + std::to_string(s.irCase.runLine) : ""));
  std::mt19937_64 rng(seed);

  std::unique_ptr<ir::Module> original;
  std::vector<ex::Launch> launches;
  try {
    original = compileSubject(s);
    if (s.isCase) {
      for (const std::string& spec : s.irCase.launches) launches.push_back(launchFromSpec(kernelOf(*original), spec, rng));
    } else {
      const ex::Case& c = findExample(s.example);
      lang::CompileResult compiled = ex::compileCase(c, TRITONC_SOURCE_DIR);
      launches.push_back(c.build(ex::paramsFor(c, ex::Preset::Test, compiled), rng));
    }
  } catch (const std::exception& e) {
    FAIL() << e.what();
  }

  // Without a dot, no rewrite may change a rounding: every pass is exact;
  // but gpu-expand-f64-math computes float64 exp, log, sin ... itself, and
  // gpu-expand-f32-math float32 log and log2, within a few ulps of the
  // interpreter's libm; and gpu-contract-fma rounds a float product and
  // its sum once.
  bool hasDot = false, hasF64Math = false, hasFloatProduct = false;
  for (auto& bb : kernelOf(*original).blocks())
    for (auto& inst : bb->instructions()) {
      hasDot = hasDot || inst->opcode() == ir::Opcode::Dot;
      hasF64Math = hasF64Math || gpu::expandsF64Math(*inst) || gpu::expandsF32Math(*inst);
      hasFloatProduct = hasFloatProduct || (inst->opcode() == ir::Opcode::Mul && ir::isFloatKind(inst->type().kind));
    }
  for (auto& c : original->combiners())  // (scan_fn and reduce_fn bodies, contracted too)
    for (auto& bb : c->blocks())
      for (auto& inst : bb->instructions())
        hasFloatProduct = hasFloatProduct || (inst->opcode() == ir::Opcode::Mul && ir::isFloatKind(inst->type().kind));

  // Each pass alone, the default pipeline, and the case's own RUN: passes,
  // at the default pipelining depth; pre-fetching also 1 and 3 iterations
  // ahead; and the GPU back end's passes after the default pipeline and the
  // launch's specialization (GPU IR runs on the interpreter too), for sm_80
  // and sm_90a.
  const int defaultStages = transform::PipelineOptions::kDefaultNumStages;
  struct Variant {
    std::string passes;
    int stages;
    std::string gpuTarget;  // non-empty: then the GPU pipeline
    int numWarps = 4;
    int numCtas = 2;
  };
  std::vector<Variant> variants;
  const bool gpuIr = original->isGpu();  // a case written in GPU IR: only the passes that work on it
  for (const transform::PassInfo& p : transform::allPasses()) {
    if (gpuIr && !p.onGpuIr) continue;
    // Barriers are placed by byte ranges: they need the allocation first.
    std::string name = p.name;
    if (gpuIr && name == "gpu-insert-barriers") name = "gpu-allocate-shared,gpu-insert-barriers";
    variants.push_back({name, defaultStages, ""});
  }
  if (!gpuIr) {
    variants.push_back({"default", defaultStages, ""});
    variants.push_back({"prefetch", 2, ""});
    variants.push_back({"prefetch", 4, ""});
    variants.push_back({"default", 2, ""});
    variants.push_back({"default", defaultStages, "sm_80", 4});
    variants.push_back({"default", defaultStages, "sm_90a", 8});
    variants.push_back({"default", 4, "sm_90a", 4});
  }
  if (s.isCase && s.irCase.passes != "default" && !transform::findPass(s.irCase.passes))
    variants.push_back({s.irCase.passes, s.irCase.numStages, s.irCase.target, s.irCase.numWarps, s.irCase.numCtas});

  std::unique_ptr<ir_cases::CaseEnvironment> env;
  if (s.isCase) env = std::make_unique<ir_cases::CaseEnvironment>(s.irCase);
  for (size_t li = 0; li < launches.size(); ++li) {
    const ex::Launch& base = launches[li];
    SCOPED_TRACE("launch " + std::to_string(li + 1) + (s.isCase ? ": LAUNCH:" + s.irCase.launches[li] : ""));
    std::string error;
    std::optional<ex::Launch> ref = run(kernelOf(*original), base, error);
    ASSERT_TRUE(ref) << "the kernel fails before any pass: " << error;
    if (!s.isCase) {
      // The harness itself: the unoptimized kernel computes the reference.
      ex::Comparison cmp = ex::compareOutputs(*ref);
      ASSERT_TRUE(cmp.passed(ref->tolerance)) << "before any pass: error " << cmp.maxError << " at " << cmp.worst;
    }
    for (const Variant& v : variants) {
      const std::string list = v.passes + (v.stages == defaultStages ? "" : " (num_stages=" + std::to_string(v.stages) + ")") +
                               (v.gpuTarget.empty() ? "" : ", then the GPU passes for " + v.gpuTarget + " with " +
                                                              std::to_string(v.numWarps) + " warps");
      std::unique_ptr<ir::Module> m = compileSubject(s);
      std::vector<std::string> passes = transform::parsePassList(v.passes);
      transform::PipelineOptions opts;
      opts.numStages = v.stages;
      if (!v.gpuTarget.empty()) opts.target = v.gpuTarget;
      opts.asyncCopies = !v.gpuTarget.empty();  // pre-fetching as for the GPU (optimize_for_launch.cpp)
      opts.numWarps = v.numWarps;
      opts.multicast = v.numCtas > 1;
      opts.multicastAlongY = v.numCtas == 4;
      opts.allowTf32 = s.isCase && s.irCase.allowTf32;
      try {
        transform::runPasses(*m, passes, opts);
        if (!v.gpuTarget.empty() && !m->isGpu()) {
          for (auto& f : m->functions()) runtime::applySpecialization(*f, runtime::factsOf(base.args));
          transform::runPasses(*m, transform::gpuPipeline(), opts);
        }
      } catch (const std::exception& e) {
        ADD_FAILURE() << "passes=" << list << " failed: " << e.what();
        continue;
      }
      bool exact = (!hasDot || std::find(passes.begin(), passes.end(), "peephole") == passes.end()) &&
                   !(hasF64Math && (!v.gpuTarget.empty() ||
                                    std::find(passes.begin(), passes.end(), "gpu-expand-f64-math") != passes.end() ||
                                    std::find(passes.begin(), passes.end(), "gpu-expand-f32-math") != passes.end())) &&
                   !((hasFloatProduct || hasF64Math) &&
                     (!v.gpuTarget.empty() ||
                      std::find(passes.begin(), passes.end(), "gpu-contract-fma") != passes.end()));
      std::optional<ex::Launch> got = run(kernelOf(*m), base, error);
      if (!got) {
        ADD_FAILURE() << "after passes=" << list << " the kernel fails (it did not before): " << error << "\n"
                      << ir::printModule(*m);
        continue;
      }
      std::string diff = compareBuffers(*ref, *got, exact);
      EXPECT_EQ(diff, "") << "after passes=" << list << " the results differ"
                          << (exact ? " (bit for bit)" : "") << ":\n" << diff << ir::printModule(*m);
      if (cpu::available() && v.passes == "default" && v.stages == defaultStages && v.gpuTarget.empty()) {
        ex::Launch onCpu = base.clone();
        try {
          cpu::RunOptions one;
          one.threads = 1;
          cpu::CompileOptions exact;  // compared byte for byte: the interpreter's exp
          exact.exactMath = true;
          cpu::CpuKernel::compile(kernelOf(*m), exact)->run(onCpu.grid, onCpu.args, one);
        } catch (const std::exception& e) {
          ADD_FAILURE() << "on the CPU after the default pipeline: " << e.what();
          continue;
        }
        diff = compareBuffers(*got, onCpu, true, true);
        EXPECT_EQ(diff, "") << "on the CPU after the default pipeline, the results differ from the interpreter's:\n"
                            << diff << ir::printModule(*m);
      }
    }
  }
}

std::string subjectName(const ::testing::TestParamInfo<Subject>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(Kernels, PassSemantics, ::testing::ValuesIn(allSubjects()), subjectName);

// The harness itself must see a wrong rewrite: a -0.0 where +0.0 belongs
// (bit for bit, and also under the tolerance), and a value off by more than
// the tolerance; and accept a difference within it.
TEST(PassSemanticsHarness, DetectsWrongResults) {
  const char* text = R"(kernel @k(%x: f32*, %out: f32*) {
entry:
  %i = range 0 : i32<8>
  %px = splat %x : f32*<8>
  %ax = gep %px, %i : f32*<8>
  %v = load %ax : f32<8>
  %pz = splat f32 0 : f32<8>
  %nz = neg %pz : f32<8>
  %tiny = splat f32 1e-7 : f32<8>
  %a = add %nz, %pz : f32<8>
  %s = add %v, %a : f32<8>
  %po = splat %out : f32*<8>
  %ao = gep %po, %i : f32*<8>
  store %ao, %s
  %one = splat i32 1 : i32<8>
  %i1 = add %i, %one : i32<8>
  %ao1 = gep %po, %i1 : f32*<8>
  store %ao1, %a
  ret
}
)";
  const std::string good = text;
  std::mt19937_64 rng(freshSeed());
  auto m = ir::parseModule(good);
  ASSERT_EQ(ir::verifyModule(*m), "");
  ex::Launch base = launchFromSpec(kernelOf(*m), "grid=1 x=in:8 out=out:9", rng);
  std::string error;
  auto ref = run(kernelOf(*m), base, error);
  ASSERT_TRUE(ref) << error;

  auto variant = [&](const std::string& from, const std::string& to) {
    std::string t = good;
    t.replace(t.find(from), from.size(), to);
    auto mm = ir::parseModule(t);
    EXPECT_EQ(ir::verifyModule(*mm), "");
    auto got = run(kernelOf(*mm), base, error);
    EXPECT_TRUE(got) << error;
    return std::make_pair(compareBuffers(*ref, *got, true), compareBuffers(*ref, *got, false));
  };
  // `x + 0.0 -> x` done wrongly: out[8] becomes -0.0.
  auto [exact1, tol1] = variant("store %ao1, %a", "store %ao1, %nz");
  EXPECT_NE(exact1, "");
  EXPECT_NE(tol1, "") << "a flipped zero sign must not pass as rounding";
  // A change far beyond rounding.
  auto [exact2, tol2] = variant("%s = add %v, %a", "%s = sub %v, %v");
  EXPECT_NE(exact2, "");
  EXPECT_NE(tol2, "");
  // A change in the last bits: only the exact comparison objects.
  auto [exact3, tol3] = variant("%a = add %nz, %pz : f32<8>", "%a = add %pz, %tiny : f32<8>");
  EXPECT_NE(exact3, "");
  EXPECT_EQ(tol3, "");
}

}  // namespace
