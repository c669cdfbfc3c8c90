// Kernels compiled ahead of time (runtime/aot_compile.h) and loaded from
// .tck files (runtime/loaded_kernel.h), on the interpreter and the CPU back
// end: results equal C++ references on fresh random inputs with poisoned
// outputs; macros choose the configurations, several are tuned; a launch
// runs the most specialized entry its arguments satisfy; targets are chosen
// as documented; every mismatch is an error naming what the file holds;
// interpreter errors keep their source lines.
#include "runtime/loaded_kernel.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "runtime/aot_compile.h"
#include "runtime/specialize.h"
#include "target/cpu/cpu_backend.h"
#include "target/nvptx/gpu_runner.h"

using namespace tritonc;
using namespace tritonc::runtime;

namespace {

// y[i] = x[i] * ALPHA + i for i < n; BLOCK elements per program.
const char* const kAxpi = R"(
__global__ void axpi(float* x, float* y, int n) {
  int off[BLOCK] = get_program_id(0) * BLOCK + 0 ... BLOCK;
  bool m[BLOCK] = off < n;
  float v[BLOCK] = *?(m)(x + off);
  @m *(y + off) = v * ALPHA + off;
}
)";

// Reads x[i] for i < n + OVER: out of bounds when OVER > 0 (line 4, column 17).
const char* const kOverread = R"(
__global__ void over(float* x, float* y, int n) {
  int off[32] = get_program_id(0) * 32 + 0 ... 32;
  float v[32] = *?(off < n + OVER)(x + off);
  *(y + off) = v;
}
)";

class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/loaded_kernel_test.XXXXXX";
    const char* made = ::mkdtemp(pattern);
    EXPECT_NE(made, nullptr);
    path_ = made ? made : "/tmp";
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

std::string readExample(const std::string& name) {
  std::ifstream in(std::string(TRITONC_SOURCE_DIR) + "/examples/" + name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Compiles `source` into `path` for `targets`.
void compileTo(const std::string& path, const std::string& source, std::vector<lang::Define> defines,
               std::vector<std::string> targets, PackOptions po = {}, std::vector<int> warps = {4}) {
  KernelOptions ko;
  ko.filename = "kernel.tc";
  ko.defines = std::move(defines);
  ko.numWarps = std::move(warps);
  ko.cacheDir = "none";
  po.targets = std::move(targets);
  writePack(compilePack(source, ko, po), path);
}

std::unique_ptr<interp::Buffer> floats(const std::vector<float>& v) {
  auto b = std::make_unique<interp::Buffer>();
  b->elem = ir::Scalar::F32;
  b->shape = {int64_t(v.size())};
  b->data.resize(v.size() * 4);
  if (!v.empty()) std::memcpy(b->data.data(), v.data(), b->data.size());
  return b;
}

std::unique_ptr<interp::Buffer> poisonedFloats(size_t n) {
  auto b = floats(std::vector<float>(n));
  std::fill(b->data.begin(), b->data.end(), 0xAB);
  return b;
}

float at(const interp::Buffer& b, size_t i) {
  float v;
  std::memcpy(&v, b.data.data() + i * 4, 4);
  return v;
}

std::vector<float> randomFloats(size_t n, std::mt19937_64& rng) {
  std::uniform_real_distribution<float> dist(-4, 4);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

GridFn blocksOf(int64_t n) {
  return [n](const Config& c) {
    int64_t b = c.intValue("BLOCK");
    return interp::Grid{(n + b - 1) / b, 1, 1};
  };
}

// Runs axpi on n random elements and checks y against x * alpha + i (the
// poison past n must stay).
void expectAxpi(Launchable& k, int64_t n, float alpha, std::mt19937_64& rng) {
  std::vector<float> xs = randomFloats(size_t(n), rng);
  auto x = floats(xs);
  auto y = poisonedFloats(size_t(n) + 8);
  k.launch({interp::KernelArg::ofBuffer(x.get()), interp::KernelArg::ofBuffer(y.get()), interp::KernelArg::ofInt(n)},
           blocksOf(n));
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(at(*y, size_t(i)), xs[size_t(i)] * alpha + float(i)) << "y[" << i << "]";
  for (size_t i = size_t(n); i < size_t(n) + 8; ++i) {
    uint32_t bits;
    std::memcpy(&bits, y->data.data() + i * 4, 4);
    ASSERT_EQ(bits, 0xABABABABu) << "y[" << i << "], past n, was written";
  }
}

std::string messageOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "NO ERROR";
}

uint64_t freshSeed() { return (uint64_t(std::random_device{}()) << 32) ^ std::random_device{}(); }

TEST(LoadedKernel, RunsOnTheInterpreterAndTheCpuLikeTheReference) {
  const uint64_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  TempDir dir;
  const std::string path = dir.file("axpi.tck");
  compileTo(path, kAxpi, {{"BLOCK", "32"}, {"ALPHA", "3"}}, {"interp", "cpu"});
  for (const char* target : {"interp", "cpu"}) {
    SCOPED_TRACE(target);
    if (std::string(target) == "cpu" && !cpu::available()) continue;
    LoadOptions lo;
    lo.target = target;
    auto k = LoadedKernel::load(path, lo);
    EXPECT_EQ(k->target(), target);
    EXPECT_EQ(k->name(), "axpi");
    ASSERT_EQ(k->params().size(), 3u);
    EXPECT_EQ(k->params()[2].name, "n");
    EXPECT_EQ(k->space().size(), 1u);
    for (int64_t n : {int64_t(1), int64_t(31), int64_t(32) + int64_t(rng() % 500)}) expectAxpi(*k, n, 3, rng);
  }
}

// The seed's matmul, compiled for two tile sizes and checked against C++
// loops on random sizes that are multiples of the tiles.
TEST(LoadedKernel, TunedMatmulMatchesTheReference) {
  const uint64_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  TempDir dir;
  const std::string path = dir.file("matmul.tck");
  compileTo(path, readExample("matmul.tc"), {{"TYPE", "float"}, {"TM", "[16, 32]"}, {"TN", "16"}, {"TK", "8"}},
            {cpu::available() ? "cpu" : "interp"});
  auto k = LoadedKernel::load(path, {});
  ASSERT_EQ(k->space().size(), 2u);
  const int64_t M = 32 * (1 + int64_t(rng() % 3)), N = 16 * (1 + int64_t(rng() % 4)), K = 8 * (1 + int64_t(rng() % 5));
  std::vector<float> a = randomFloats(size_t(M * K), rng), b = randomFloats(size_t(K * N), rng);
  auto A = floats(a), B = floats(b);
  auto C = poisonedFloats(size_t(M * N));
  std::vector<interp::KernelArg> args = {interp::KernelArg::ofBuffer(A.get()), interp::KernelArg::ofBuffer(B.get()),
                                         interp::KernelArg::ofBuffer(C.get()), interp::KernelArg::ofInt(M),
                                         interp::KernelArg::ofInt(N), interp::KernelArg::ofInt(K),
                                         interp::KernelArg::ofInt(K), interp::KernelArg::ofInt(N),
                                         interp::KernelArg::ofInt(N)};
  GridFn grid = [&](const Config& c) { return interp::Grid{M / c.intValue("TM"), N / c.intValue("TN"), 1}; };
  k->launch(args, grid);
  EXPECT_TRUE(k->prepared(args)) << "the launch did not remember its configuration";
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double ref = 0;
      for (int64_t kk = 0; kk < K; ++kk) ref += double(a[size_t(m * K + kk)]) * b[size_t(kk * N + n)];
      ASSERT_NEAR(at(*C, size_t(m * N + n)), ref, 1e-4 * (1 + std::fabs(ref))) << "C[" << m << ", " << n << "]";
    }
  TuneResult r = k->tune(args, grid, /*force=*/true);
  ASSERT_EQ(r.trials.size(), 2u);
  for (const TuneTrial& t : r.trials) EXPECT_EQ(t.error, "") << t.config.text();
  EXPECT_EQ(r.origin, "tuned");
}

TEST(LoadedKernel, MacrosChooseConfigurationsAndMismatchesNameWhatIsHeld) {
  std::mt19937_64 rng(freshSeed());
  TempDir dir;
  const std::string path = dir.file("axpi.tck");
  compileTo(path, kAxpi, {{"BLOCK", "[32, 64]"}, {"ALPHA", "2"}}, {"interp"}, {}, {1, 2});
  EXPECT_EQ(LoadedKernel::load(path, {})->space().size(), 4u);
  LoadOptions one;
  one.defines = {{"BLOCK", "64"}};
  one.numWarps = {2};
  auto k = LoadedKernel::load(path, one);
  ASSERT_EQ(k->space().size(), 1u);
  EXPECT_EQ(k->space()[0].text(), "BLOCK=64 num_warps=2 num_stages=3");
  EXPECT_EQ(k->space()[0].value("ALPHA"), "2");
  expectAxpi(*k, 100, 2, rng);
  LoadOptions either;
  either.defines = {{"BLOCK", "[32, 64]"}, {"ALPHA", "2"}};
  either.numWarps = {1};
  EXPECT_EQ(LoadedKernel::load(path, either)->space().size(), 2u);

  LoadOptions none;
  none.defines = {{"BLOCK", "128"}};
  std::string why = messageOf([&] { LoadedKernel::load(path, none); });
  const std::string host = cpu::available() ? "cpu" : "interp";
  EXPECT_NE(why.find("no configuration of kernel 'axpi' for " + host + " with BLOCK=128"), std::string::npos) << why;
  EXPECT_NE(why.find("BLOCK=32 num_warps=1 num_stages=3 (ALPHA=2)"), std::string::npos) << why;
  EXPECT_NE(why.find("BLOCK=64 num_warps=2 num_stages=3 (ALPHA=2)"), std::string::npos) << why;
  LoadOptions unknown;
  unknown.defines = {{"TYPE", "float"}};
  why = messageOf([&] { LoadedKernel::load(path, unknown); });
  EXPECT_NE(why.find("no configuration defines 'TYPE' (they define ALPHA, BLOCK)"), std::string::npos) << why;
  LoadOptions warps;
  warps.numWarps = {8};
  why = messageOf([&] { LoadedKernel::load(path, warps); });
  EXPECT_NE(why.find("num_warps=8"), std::string::npos) << why;
  LoadOptions other;
  other.kernel = "dot";
  why = messageOf([&] { LoadedKernel::load(path, other); });
  EXPECT_NE(why.find("holds kernel 'axpi', not 'dot'"), std::string::npos) << why;
  LoadOptions key;
  key.tuningKey = {"m"};
  why = messageOf([&] { LoadedKernel::load(path, key); });
  EXPECT_NE(why.find("tuning key 'm'"), std::string::npos) << why;
}

// With entries for n divisible by 16, for n == 1, and for any launch, each
// launch runs the most specialized one it satisfies; without the generic
// one, a launch that satisfies none is an error naming what is there.
TEST(LoadedKernel, LaunchesRunTheMostSpecializedEntryTheySatisfy) {
  std::mt19937_64 rng(freshSeed());
  TempDir dir;
  const std::string path = dir.file("axpi.tck");
  PackOptions po;
  po.specializations = {{{"n", 1024}}, {{"n", 1}}};
  po.generic = true;
  compileTo(path, kAxpi, {{"BLOCK", "32"}, {"ALPHA", "5"}}, {"interp"}, po);
  KernelPack pack = readPack(path);
  ASSERT_EQ(pack.entries.size(), 3u);
  EXPECT_EQ(pack.entries[0].specialization, "AAD");
  EXPECT_EQ(pack.entries[1].specialization, "AA1");
  EXPECT_EQ(pack.entries[2].specialization, "PPF");
  auto k = LoadedKernel::load(path, {});
  auto entryRunFor = [&](int64_t n) {
    expectAxpi(*k, n, 5, rng);
    auto x = floats(std::vector<float>(size_t(n)));
    PreparedLaunch p = k->prepared({interp::KernelArg::ofBuffer(x.get()), interp::KernelArg::ofBuffer(x.get()),
                                    interp::KernelArg::ofInt(n)});
    return p ? p.compiled->key : std::string("none");
  };
  EXPECT_EQ(entryRunFor(2048), path + ", entry 1");
  EXPECT_EQ(entryRunFor(1), path + ", entry 2");
  EXPECT_EQ(entryRunFor(1000), path + ", entry 3");
  EXPECT_EQ(entryRunFor(33), path + ", entry 3");

  PackOptions only;
  only.specializations = {{{"n", 64}}};
  compileTo(path, kAxpi, {{"BLOCK", "32"}, {"ALPHA", "5"}}, {"interp"}, only);
  auto strict = LoadedKernel::load(path, {});
  expectAxpi(*strict, 96, 5, rng);
  auto x = floats(std::vector<float>(40));
  std::string why = messageOf([&] {
    strict->launch({interp::KernelArg::ofBuffer(x.get()), interp::KernelArg::ofBuffer(x.get()),
                    interp::KernelArg::ofInt(40)},
                   blocksOf(40));
  });
  EXPECT_NE(why.find("no code of kernel 'axpi' for this launch"), std::string::npos) << why;
  EXPECT_NE(why.find("n divisible by 8"), std::string::npos) << why;
  EXPECT_NE(why.find("AAD (x 16-byte aligned, y 16-byte aligned, n divisible by 16)"), std::string::npos) << why;
  EXPECT_NE(why.find("--generic"), std::string::npos) << why;
}

TEST(LoadedKernel, SpecializationKeysSatisfyWhatTheyImply) {
  EXPECT_TRUE(keySatisfies("AD", "AD"));
  EXPECT_TRUE(keySatisfies("AD", "PF"));
  EXPECT_TRUE(keySatisfies("AD", "A8"));
  EXPECT_TRUE(keySatisfies("A8", "A2"));
  EXPECT_TRUE(keySatisfies("A8", "AN"));
  EXPECT_TRUE(keySatisfies("A1", "AN"));
  EXPECT_TRUE(keySatisfies("AM", "AM"));
  EXPECT_TRUE(keySatisfies("AM", "AF"));
  EXPECT_FALSE(keySatisfies("PD", "AD"));
  EXPECT_FALSE(keySatisfies("A8", "AD"));
  EXPECT_FALSE(keySatisfies("A1", "A2"));
  EXPECT_FALSE(keySatisfies("AD", "A1"));
  EXPECT_FALSE(keySatisfies("AM", "AN"));
  EXPECT_FALSE(keySatisfies("AN", "A2"));
  EXPECT_FALSE(keySatisfies("A", "AD"));
  EXPECT_GT(keyStrength("AD"), keyStrength("A8"));
  EXPECT_GT(keyStrength("A8"), keyStrength("AN"));
  EXPECT_GT(keyStrength("AN"), keyStrength("AF"));
  EXPECT_GT(keyStrength("AF"), keyStrength("PF"));
  EXPECT_GT(keyStrength("A1"), keyStrength("AD"));
  // Every launch key satisfies itself and the key that promises nothing.
  for (const char* launch : {"AD", "P8", "A4", "P2", "AN", "A1", "AM"}) {
    EXPECT_TRUE(keySatisfies(launch, launch)) << launch;
    EXPECT_TRUE(keySatisfies(launch, "PF")) << launch;
  }
}

TEST(LoadedKernel, TargetsAreChosenAsDocumented) {
  std::mt19937_64 rng(freshSeed());
  TempDir dir;
  const std::string gpuOnly = dir.file("gpu.tck");
  compileTo(gpuOnly, kAxpi, {{"BLOCK", "32"}, {"ALPHA", "1"}}, {"sm_90a"});
  LoadOptions interp;
  interp.target = "interp";
  std::string why = messageOf([&] { LoadedKernel::load(gpuOnly, interp); });
  EXPECT_NE(why.find("no code for target interp"), std::string::npos) << why;
  EXPECT_NE(why.find("holds code for sm_90a (1 entry)"), std::string::npos) << why;
  EXPECT_THROW(LoadedKernel::load(gpuOnly, interp), NoCodeForTarget);
  LoadOptions sm80;
  sm80.target = "sm_80";
  EXPECT_THROW(LoadedKernel::load(gpuOnly, sm80), NoCodeForTarget);
  LoadOptions bogus;
  bogus.target = "tpu";
  EXPECT_NE(messageOf([&] { LoadedKernel::load(gpuOnly, bogus); }).find("unknown target 'tpu'"), std::string::npos);
  if (nvptx::gpuArch().empty()) {
    why = messageOf([&] { LoadedKernel::load(gpuOnly, {}); });
    EXPECT_NE(why.find("has no GPU"), std::string::npos) << why;
  }

  // IR entries run on both: interp entries on the CPU, cpu entries on the interpreter.
  const std::string irOnly = dir.file("interp.tck");
  compileTo(irOnly, kAxpi, {{"BLOCK", "32"}, {"ALPHA", "1"}}, {"interp"});
  auto onInterp = LoadedKernel::load(irOnly, interp);
  expectAxpi(*onInterp, 70, 1, rng);
  if (cpu::available()) {
    LoadOptions onCpu;
    onCpu.target = "cpu";
    auto k = LoadedKernel::load(irOnly, onCpu);
    EXPECT_EQ(k->target(), "cpu");
    expectAxpi(*k, 70, 1, rng);
    if (nvptx::gpuArch().empty()) {
      EXPECT_EQ(LoadedKernel::load(irOnly, {})->target(), "cpu");
    }
  }
}

// The interpreter checks every access of code loaded from a file, and its
// report keeps the source's line and column (the IR carries its locations).
TEST(LoadedKernel, InterpreterErrorsKeepTheirSourceLines) {
  TempDir dir;
  const std::string path = dir.file("over.tck");
  compileTo(path, kOverread, {{"OVER", "[0, 5]"}}, {"interp"});
  auto x = floats(std::vector<float>(64, 1.0f));
  auto y = poisonedFloats(64);
  std::vector<interp::KernelArg> args = {interp::KernelArg::ofBuffer(x.get()), interp::KernelArg::ofBuffer(y.get()),
                                         interp::KernelArg::ofInt(64)};
  LoadOptions fine;  // (on the interpreter: the CPU does not check accesses)
  fine.target = "interp";
  fine.defines = {{"OVER", "0"}};
  LoadedKernel::load(path, fine)->launch(args, [](const Config&) { return interp::Grid{2, 1, 1}; });
  EXPECT_EQ(at(*y, 63), 1.0f);
  LoadOptions bad;
  bad.target = "interp";
  bad.defines = {{"OVER", "5"}};
  try {
    LoadedKernel::load(path, bad)->launch(args, [](const Config&) { return interp::Grid{3, 1, 1}; });
    ADD_FAILURE() << "the out-of-bounds read was not reported";
  } catch (const UserError& e) {
    EXPECT_EQ(e.loc().line, 4u) << e.what();
    EXPECT_EQ(e.loc().col, 17u) << e.what();
  }
  // Tuning skips the configuration that fails, naming why (it reads past x).
  LoadOptions both;
  both.target = "interp";
  auto k = LoadedKernel::load(path, both);
  auto wide = floats(std::vector<float>(64, 1.0f));
  auto out = poisonedFloats(96);
  std::vector<interp::KernelArg> wideArgs = {interp::KernelArg::ofBuffer(wide.get()),
                                             interp::KernelArg::ofBuffer(out.get()), interp::KernelArg::ofInt(64)};
  TuneResult r = k->tune(wideArgs, [](const Config&) { return interp::Grid{3, 1, 1}; }, true);
  ASSERT_EQ(r.trials.size(), 2u);
  EXPECT_EQ(r.best.value("OVER"), "0");
  EXPECT_EQ(r.trials[0].error, "");
  EXPECT_NE(r.trials[1].error.find("out-of-bounds"), std::string::npos) << r.trials[1].error;
}

// A file whose IR does not parse (well checksummed: written by another
// tritonc, say) is refused at load, naming the entry.
TEST(LoadedKernel, UnparsableIrIsAFileError) {
  TempDir dir;
  const std::string path = dir.file("axpi.tck");
  compileTo(path, kAxpi, {{"BLOCK", "32"}, {"ALPHA", "1"}}, {"interp"});
  KernelPack pack = readPack(path);
  pack.entries[0].code.replace(pack.entries[0].code.find("kernel @axpi"), 12, "kernel @axpi(((");
  writePack(pack, path);
  try {
    LoadedKernel::load(path, {});
    ADD_FAILURE() << "loaded";
  } catch (const PackFileError& e) {
    EXPECT_NE(std::string(e.what()).find(path + ", entry 1: its IR does not parse"), std::string::npos) << e.what();
  }
}

}  // namespace
