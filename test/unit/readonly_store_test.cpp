// A store through a read-only parameter (issue 15): a located warning, once
// per parameter and once per kernel object, and the kernel runs (the promise
// is dropped for every back end).
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "lang/compile.h"
#include "runtime/kernel.h"

namespace tritonc {
namespace {

lang::CompileResult compile(const std::string& src) {
  lang::CompileOptions o;
  o.filename = "k.tc";
  return lang::compileSource(src, o);
}

TEST(ReadonlyStore, WarnsOncePerParameterAtTheFirstStoreAndDropsThePromise) {
  const char* src = R"(__global__ void k(float* __readonly x, const float* y, float* read_only z, float* w) {
  int i[8] = 0 ... 8;
  float v[8] = *(x + i) + *(y + i) + *(w + i);
  *(x + i) = v;
  *(x + i) = v * 2;
  atomic_add(y + i, v);
  bool c = v[+] > 0;
  *(c ? z : w) = 1;
}
)";
  lang::CompileResult r = compile(src);
  const ir::Function& f = *r.module->functions()[0];
  for (unsigned k = 0; k < 4; ++k) EXPECT_FALSE(f.argument(k)->attrs.readonly) << "parameter " << k;
  ASSERT_EQ(r.warnings.size(), 3u);
  EXPECT_EQ(r.warnings[0].loc, (SourceLoc{4, 3}));
  EXPECT_EQ(r.warnings[0].message,
            "store through 'x', which is declared __readonly (line 1): the buffer is written, so __readonly is ignored");
  EXPECT_EQ(r.warnings[1].loc, (SourceLoc{6, 3}));
  EXPECT_EQ(r.warnings[1].message,
            "store through 'y', which is declared const (line 1): the buffer is written, so const is ignored");
  EXPECT_EQ(r.warnings[2].loc, (SourceLoc{8, 3}));
  EXPECT_NE(r.warnings[2].message.find("'z', which is declared read_only (line 1)"), std::string::npos);
}

TEST(ReadonlyStore, LoadsOnlyKeepThePromise) {
  lang::CompileResult r = compile(R"(__global__ void k(float* __readonly x, float* y) {
  int i[8] = 0 ... 8;
  *(y + i) = *(x + i);
}
)");
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_TRUE(r.module->functions()[0]->argument(0)->attrs.readonly);
}

// Scales x in place through a __readonly pointer: x = 2 x + 1.
const char* const kInPlace = R"(
__global__ void scale(float* __readonly x, int n) {
  int off[BLOCK] = get_program_id(0) * BLOCK + 0 ... BLOCK;
  bool m[BLOCK] = off < n;
  @m *(x + off) = *(x + off) * 2 + 1;
}
)";

TEST(ReadonlyStore, RuntimeWarnsOncePerKernelAcrossConfigurationsAndRuns) {
  runtime::KernelOptions o;
  o.target = "interp";
  o.cacheDir = "none";
  o.filename = "scale.tc";
  o.defines = {{"BLOCK", "[16, 32]"}};
  o.numWarps = {1, 2};
  std::vector<std::string> warnings;
  o.warn = [&](const std::string& w) { warnings.push_back(w); };
  runtime::Kernel k(kInPlace, o);
  std::mt19937_64 rng(std::random_device{}());
  std::uniform_real_distribution<float> dist(-4, 4);
  for (int n : {100, 64, 100}) {
    interp::Buffer x;
    x.name = "x";
    x.elem = ir::Scalar::F32;
    x.data.resize(size_t(n) * 4);
    std::vector<float> in(static_cast<size_t>(n));
    for (float& v : in) v = dist(rng);
    std::memcpy(x.data.data(), in.data(), in.size() * 4);
    std::vector<interp::KernelArg> args = {interp::KernelArg::ofBuffer(&x), interp::KernelArg::ofInt(n)};
    k.launch(args, [&](const runtime::Config& c) { return interp::Grid{(n + c.intValue("BLOCK") - 1) / c.intValue("BLOCK"), 1, 1}; });
    for (int i = 0; i < n; ++i) {
      float got;
      std::memcpy(&got, x.data.data() + size_t(i) * 4, 4);
      ASSERT_EQ(got, in[size_t(i)] * 2 + 1) << "n = " << n << ", element " << i;
    }
  }
  ASSERT_EQ(warnings.size(), 1u);  // four configurations, two shapes, three launches
  EXPECT_EQ(warnings[0],
            "scale.tc:5:6: warning: store through 'x', which is declared __readonly (line 2): the buffer is written, so "
            "__readonly is ignored\n  @m *(x + off) = *(x + off) * 2 + 1;\n     ^\n");
}

}  // namespace
}  // namespace tritonc
