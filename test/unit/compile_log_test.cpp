// Recompiles made visible (runtime/compile_log.h): TRITONC_LOG_COMPILES=1
// prints a line per compile naming what changed, TRITONC_CACHE_MUST_HIT=1
// and KernelOptions::cacheMustHit turn a compile into an error naming the key.
#include "runtime/compile_log.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "runtime/kernel.h"

namespace tritonc::runtime {
namespace {

CompileRequest request() {
  CompileRequest r;
  r.kernel = "scale";
  r.source = "src";
  r.target = "sm_90a";
  r.macros = {{"BLOCK", "64"}, {"TYPE", "float"}};
  r.paramNames = {"x", "n"};
  r.paramTypes = {"f32*", "i32"};
  r.specialization = "AD";
  return r;
}

TEST(CompileLog, DescribesEachPartOfTheKey) {
  CompileRequest a = request();
  EXPECT_EQ(describeKey(a),
            "kernel 'scale' (BLOCK=64 TYPE=float num_warps=4 num_stages=3) for x: 16-byte aligned, n: divisible by 16, "
            "on sm_90a");
  EXPECT_EQ(describeChange(a, a), "");
  CompileRequest b = a;
  b.specialization = "PD";
  EXPECT_EQ(describeChange(a, b), "argument 'x' alignment: 16-byte aligned -> not 16-byte aligned");
  b = a;
  b.specialization = "A4";
  EXPECT_EQ(describeChange(a, b), "argument 'n' divisibility: divisible by 16 -> divisible by 4");
  b = a;
  b.macros = {{"BLOCK", "128"}, {"TYPE", "half"}, {"EXTRA", "1"}};
  b.paramTypes = {"f16*", "i32"};
  EXPECT_EQ(describeChange(a, b),
            "macro BLOCK: 64 -> 128; macro EXTRA: (none) -> 1; dtype macro TYPE: float -> half; argument 'x' dtype: "
            "f32* -> f16*");
  b = a;
  b.numWarps = 8;
  b.numStages = 2;
  b.target = "interp";
  EXPECT_EQ(describeChange(a, b), "target: sm_90a -> interp; num_warps: 4 -> 8; num_stages: 3 -> 2");
}

// A kernel of a source no other test compiles (the log compares compiles of
// one source and name across the process).
const char* const kSource = R"(
__global__ void logged(float* x, int n) {
  int off[BLOCK] = get_program_id(0) * BLOCK + 0 ... BLOCK;
  bool m[BLOCK] = off < n;
  @m *(x + off) = *(x + off) + 1;
}
)";

KernelOptions gpuOptions(const std::string& cacheDir) {
  KernelOptions o;
  o.target = "sm_90a";  // compiles to PTX without a GPU
  o.cacheDir = cacheDir;
  o.defines = {{"BLOCK", "128"}};
  return o;
}

std::vector<interp::KernelArg> args(uint64_t address, int64_t n) {
  return {interp::KernelArg::ofDevicePtr(address, 4096), interp::KernelArg::ofInt(n)};
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

struct Env {
  Env(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
  ~Env() { unsetenv(name_); }
  const char* name_;
};

TEST(CompileLog, OneLinePerCompileNamingTheChangedAlignment) {
  Env log("TRITONC_LOG_COMPILES", "1");
  Kernel k(kSource, gpuOptions("none"));
  const Config& c = k.space()[0];
  testing::internal::CaptureStderr();
  k.compile(c, args(0x10000, 256));
  k.compile(c, args(0x20000, 512));  // the same facts: a memory hit, no line
  k.compile(c, args(0x10004, 256));  // only x's alignment changes
  std::vector<std::string> out = lines(testing::internal::GetCapturedStderr());
  ASSERT_EQ(out.size(), 2u);
  const std::string key = "tritonc: compiling kernel 'logged' (BLOCK=128 num_warps=4 num_stages=3) for x: ";
  EXPECT_EQ(out[0], key + "16-byte aligned, n: divisible by 16, on sm_90a: first compile");
  EXPECT_EQ(out[1], key + "not 16-byte aligned, n: divisible by 16, on sm_90a: recompile, changed: argument 'x' "
                          "alignment: 16-byte aligned -> not 16-byte aligned");
  EXPECT_EQ(k.stats().compiles, 2);
}

TEST(CompileLog, MustHitRefusesACompileAndAcceptsAWarmCache) {
  std::string dir = (std::filesystem::temp_directory_path() / ("compile_log_test." + std::to_string(getpid()))).string();
  {
    Kernel warm(kSource, gpuOptions(dir));
    warm.compile(warm.space()[0], args(0x10000, 100));  // odd n: its own key
  }
  // A new kernel object, the same cache: the disk hits, so must-hit is content.
  KernelOptions o = gpuOptions(dir);
  o.cacheMustHit = true;
  Kernel k(kSource, o);
  EXPECT_EQ(k.compile(k.space()[0], args(0x10000, 100))->origin, "disk");
  // A new specialization would compile: refused, naming the key.
  try {
    k.compile(k.space()[0], args(0x10004, 100));
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("the cache must hit (TRITONC_CACHE_MUST_HIT / cache_must_hit), but kernel "
                                          "'logged' (BLOCK=128 num_warps=4 num_stages=3) for x: not 16-byte aligned, "
                                          "n: divisible by 4, on sm_90a is not cached: ", 0), 0u)
        << e.what();
  }
  EXPECT_EQ(k.stats().compiles, 0);
  // The environment variable does the same for any kernel.
  {
    Env mustHit("TRITONC_CACHE_MUST_HIT", "1");
    Kernel other(kSource, gpuOptions("none"));
    EXPECT_THROW(other.compile(other.space()[0], args(0x10000, 8)), UserError);
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

}  // namespace
}  // namespace tritonc::runtime
