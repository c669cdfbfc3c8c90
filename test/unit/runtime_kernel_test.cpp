// The runtime's kernel object (runtime/kernel.h) and its auto-tuner
// (runtime/tuner.cpp) on the interpreter: compile once per key, memory and
// disk hits, keys that change with the source / options / specialization,
// damaged entries recompiled, processes sharing one cache, the launch memo
// (repeated shapes reuse their configuration and code), the tuner picking
// the configuration that is really fastest, skipping the ones that fail, and
// never writing the caller's buffers.
#include "runtime/disk_cache.h"
#include "runtime/kernel.h"
#include "runtime/trial_runs.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "ir/printer.h"
#include "target/cpu/cpu_backend.h"

using namespace tritonc;
using runtime::Config;
using runtime::Kernel;
using runtime::KernelOptions;

namespace {

class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/runtime_kernel_test.XXXXXX";
    const char* made = ::mkdtemp(pattern);
    EXPECT_NE(made, nullptr);
    path_ = made ? made : "/tmp";
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// x[i] = x[i] * 2 + 1 over BLOCK elements per program.
const char* const kScale = R"(
__global__ void scale(float* x, int n) {
  int off[BLOCK] = get_program_id(0) * BLOCK + 0 ... BLOCK;
  *(x + off) = *(x + off) * 2 + 1;
}
)";

// x[i] += 1, after a scalar loop of SPIN iterations: SPIN sets the time, not the result.
const char* const kSpin = R"(
__global__ void spin(float* x, int n) {
  int off[8] = get_program_id(0) * 8 + 0 ... 8;
  float acc = 0;
  for (int i = 0; i < SPIN; i = i + 1) acc = acc + 1;
  *(x + off) = *(x + off) + (acc - SPIN) + 1;
}
)";

KernelOptions interpOptions(const std::string& cacheDir, std::vector<lang::Define> defines) {
  KernelOptions o;
  o.target = "interp";
  o.cacheDir = cacheDir;
  o.defines = std::move(defines);
  return o;
}

std::unique_ptr<interp::Buffer> randomBuffer(int64_t n, std::mt19937_64& rng) {
  auto b = std::make_unique<interp::Buffer>();
  b->name = "x";
  b->elem = ir::Scalar::F32;
  b->data.resize(size_t(n) * 4);
  std::uniform_real_distribution<float> dist(-4, 4);
  for (int64_t i = 0; i < n; ++i) {
    float v = dist(rng);
    std::memcpy(b->data.data() + i * 4, &v, 4);
  }
  return b;
}

float at(const interp::Buffer& b, int64_t i) {
  float v;
  std::memcpy(&v, b.data.data() + i * 4, 4);
  return v;
}

runtime::GridFn blocks(int64_t n) {
  return [n](const Config& c) { return interp::Grid{n / c.intValue("BLOCK"), 1, 1}; };
}

runtime::GridFn eights(int64_t n) {
  return [n](const Config&) { return interp::Grid{n / 8, 1, 1}; };
}

// Runs `scale` on fresh random data and checks every element against x * 2 + 1.
void expectScaleWorks(Kernel& k, int64_t n, std::mt19937_64& rng) {
  auto x = randomBuffer(n, rng);
  interp::Buffer before = *x;
  k.launch({interp::KernelArg::ofBuffer(x.get()), interp::KernelArg::ofInt(n)}, blocks(n));
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(at(*x, i), at(before, i) * 2 + 1) << "element " << i;
}

TEST(RuntimeKernel, CompilesOnceThenHitsMemoryThenDisk) {
  TempDir dir;
  std::mt19937_64 rng(std::random_device{}());
  std::string firstIr;
  {
    Kernel k(kScale, interpOptions(dir.path(), {{"BLOCK", "16"}}));
    ASSERT_EQ(k.params().size(), 2u);
    EXPECT_EQ(k.params()[0].name, "x");
    EXPECT_TRUE(k.params()[0].type.isPtr());
    EXPECT_EQ(k.space().size(), 1u);
    expectScaleWorks(k, 64, rng);
    expectScaleWorks(k, 64, rng);
    runtime::CacheStats s = k.stats();
    EXPECT_EQ(s.compiles, 1);
    EXPECT_EQ(s.memoryHits, 1);
    EXPECT_EQ(s.diskStores, 1);
    auto x = randomBuffer(64, rng);
    firstIr = ir::printModule(*k.compile(k.space()[0], {interp::KernelArg::ofBuffer(x.get()), interp::KernelArg::ofInt(64)})->module);
  }
  // A new kernel object (as a new process would) finds the entry on disk.
  Kernel k(kScale, interpOptions(dir.path(), {{"BLOCK", "16"}}));
  auto x = randomBuffer(64, rng);
  auto c = k.compile(k.space()[0], {interp::KernelArg::ofBuffer(x.get()), interp::KernelArg::ofInt(64)});
  EXPECT_EQ(c->origin, "disk");
  EXPECT_EQ(ir::printModule(*c->module), firstIr) << "the module read back differs from the one compiled";
  expectScaleWorks(k, 64, rng);
  EXPECT_EQ(k.stats().compiles, 0);
  EXPECT_EQ(k.stats().diskHits, 1);
}

// A GPU target compiles without a GPU (PTX only); its disk hit reads the
// signature and the PTX back without parsing the IR.
// The launch memo: a launch whose shape (tuning-key values, specialization
// facts) was seen before reuses its configuration and code without tuning or
// compiling; other shapes do not; a forced re-tune forgets every shape.
TEST(RuntimeKernel, RepeatedLaunchesReuseTheirShapesConfigurationAndCode) {
  TempDir dir;
  std::mt19937_64 rng(std::random_device{}());
  Kernel k(kSpin, interpOptions(dir.path(), {{"SPIN", "[1, 2]"}}));
  auto argsFor = [](interp::Buffer* x, int64_t n) {
    return std::vector<interp::KernelArg>{interp::KernelArg::ofBuffer(x), interp::KernelArg::ofInt(n)};
  };
  auto launchAndCheck = [&](int64_t n) {
    auto x = randomBuffer(n, rng);
    interp::Buffer before = *x;
    k.launch(argsFor(x.get(), n), eights(n));
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(at(*x, i), at(before, i) + 1) << "n " << n << ", element " << i;
  };
  auto probe = randomBuffer(64, rng);
  EXPECT_FALSE(k.prepared(argsFor(probe.get(), 64)));
  launchAndCheck(64);  // tunes, compiles
  runtime::CacheStats first = k.stats();
  EXPECT_TRUE(k.prepared(argsFor(probe.get(), 64)));
  launchAndCheck(64);
  launchAndCheck(64);
  EXPECT_EQ(k.stats().compiles, first.compiles);
  EXPECT_EQ(k.stats().memoryHits, first.memoryHits + 3);  // the probe and two launches
  // Another value of the tuning key is another shape.
  EXPECT_FALSE(k.prepared(argsFor(probe.get(), 32)));
  launchAndCheck(32);
  EXPECT_TRUE(k.prepared(argsFor(probe.get(), 32)));
  // A forced re-tune may choose differently: every shape is forgotten.
  k.tune(argsFor(probe.get(), 64), eights(64), true);
  EXPECT_FALSE(k.prepared(argsFor(probe.get(), 64)));
  EXPECT_FALSE(k.prepared(argsFor(probe.get(), 32)));
  launchAndCheck(64);
  EXPECT_TRUE(k.prepared(argsFor(probe.get(), 64)));

  // Without a tuning space integers key only by their divisibility, and
  // device pointers by their alignment (as the specialization does).
  Kernel single(kScale, interpOptions(dir.path(), {{"BLOCK", "16"}}));
  auto x = randomBuffer(64, rng);
  single.launch(argsFor(x.get(), 64), blocks(64));
  EXPECT_TRUE(single.prepared(argsFor(x.get(), 48)));
  EXPECT_FALSE(single.prepared(argsFor(x.get(), 40)));
  // Integers are told apart by the largest of 16, 8, 4, 2 dividing them.
  single.launch(argsFor(x.get(), 40), blocks(40));
  EXPECT_TRUE(single.prepared(argsFor(x.get(), 56)));
  EXPECT_FALSE(single.prepared(argsFor(x.get(), 36)));
  EXPECT_FALSE(single.prepared({interp::KernelArg::ofDevicePtr(0x1000, 256), interp::KernelArg::ofInt(64)}));
}

TEST(RuntimeKernel, GpuTargetDiskHitKeepsPtxAndSignature) {
  TempDir dir;
  std::mt19937_64 rng(std::random_device{}());
  auto x = randomBuffer(64, rng);
  std::vector<interp::KernelArg> args{interp::KernelArg::ofBuffer(x.get()), interp::KernelArg::ofInt(64)};
  KernelOptions o = interpOptions(dir.path(), {{"BLOCK", "16"}});
  o.target = "sm_90a";
  std::string ptx;
  {
    Kernel k(kScale, o);
    auto c = k.compile(k.space()[0], args);
    ASSERT_EQ(c->origin, "compiled");
    ptx = c->ptx;
    ASSERT_NE(ptx.find(".entry scale("), std::string::npos);
  }
  Kernel k(kScale, o);
  auto c = k.compile(k.space()[0], args);
  EXPECT_EQ(c->origin, "disk");
  EXPECT_EQ(c->ptx, ptx);
  ASSERT_EQ(c->signature.size(), 2u);
  EXPECT_EQ(c->signature[0].name, "x");
  EXPECT_TRUE(c->signature[0].type.isPtr());
  EXPECT_EQ(c->signature[0].type.pointee, ir::Scalar::F32);
  EXPECT_EQ(c->signature[1].name, "n");
  EXPECT_EQ(c->signature[1].type.kind, ir::Scalar::I32);
  // Another target, another entry.
  o.target = "sm_80";
  Kernel other(kScale, o);
  EXPECT_EQ(other.compile(other.space()[0], args)->origin, "compiled");
}

TEST(RuntimeKernel, KeyChangesWithSourceOptionsAndSpecialization) {
  TempDir dir;
  std::mt19937_64 rng(std::random_device{}());
  auto x = randomBuffer(64, rng);
  auto keyOf = [&](const std::string& src, KernelOptions o, int64_t n) {
    Kernel k(src, std::move(o));
    auto c = k.compile(k.space()[0], {interp::KernelArg::ofBuffer(x.get()), interp::KernelArg::ofInt(n)});
    EXPECT_EQ(c->origin, "compiled");
    return c->key;
  };
  std::string base = keyOf(kScale, interpOptions(dir.path(), {{"BLOCK", "16"}}), 64);
  std::string comment = keyOf(std::string(kScale) + "// a comment\n", interpOptions(dir.path(), {{"BLOCK", "16"}}), 64);
  std::string define = keyOf(kScale, interpOptions(dir.path(), {{"BLOCK", "32"}}), 64);
  KernelOptions stages = interpOptions(dir.path(), {{"BLOCK", "16"}});
  stages.numStages = {2};
  std::string staged = keyOf(kScale, stages, 64);
  std::string unaligned = keyOf(kScale, interpOptions(dir.path(), {{"BLOCK", "16"}}), 65);  // n not divisible by 16
  std::set<std::string> keys{base, comment, define, staged, unaligned};
  EXPECT_EQ(keys.size(), 5u) << "two different compilations share a cache key";
  // The same inputs give the same key (and a hit).
  Kernel again(kScale, interpOptions(dir.path(), {{"BLOCK", "16"}}));
  auto c = again.compile(again.space()[0], {interp::KernelArg::ofBuffer(x.get()), interp::KernelArg::ofInt(64)});
  EXPECT_EQ(c->key, base);
  EXPECT_EQ(c->origin, "disk");
}

// What the specialization promises reaches the compiled kernel's parameters
// (the axis analysis, and so vector widths, read them there).
TEST(RuntimeKernel, SpecializationMarksIntegersAndPointers) {
  TempDir dir;
  std::mt19937_64 rng(std::random_device{}());
  auto x = randomBuffer(64, rng);
  for (auto [n, divisor] : std::vector<std::pair<int64_t, int64_t>>{{64, 16}, {40, 8}, {36, 4}, {66, 2}, {65, 0}, {-8, 0}}) {
    Kernel k(kScale, interpOptions(dir.path(), {{"BLOCK", "16"}}));
    auto c = k.compile(k.space()[0], {interp::KernelArg::ofBuffer(x.get()), interp::KernelArg::ofInt(n)});
    EXPECT_EQ(c->function->argument(1)->attrs.multipleOf, n < 0 ? 0 : divisor) << "n = " << n;
    EXPECT_EQ(c->function->argument(1)->attrs.nonNegative, n >= 0) << "n = " << n;
    EXPECT_FALSE(c->function->argument(1)->attrs.one);
    EXPECT_EQ(c->function->argument(0)->attrs.aligned, 16);
  }
}

// An integer is specialized as the kernel sees it: 2^32 - 1 given for an
// i32 is -1 (negative: no facts), as is -1 itself, and both share a key.
TEST(RuntimeKernel, SpecializationWrapsIntegersToTheirParameters) {
  TempDir dir;
  std::mt19937_64 rng(std::random_device{}());
  auto x = randomBuffer(64, rng);
  std::vector<std::string> keys;
  for (int64_t n : {int64_t(0xFFFFFFFF), int64_t(-1)}) {
    Kernel k(kScale, interpOptions(dir.path(), {{"BLOCK", "16"}}));
    auto c = k.compile(k.space()[0], {interp::KernelArg::ofBuffer(x.get()), interp::KernelArg::ofInt(n)});
    EXPECT_FALSE(c->function->argument(1)->attrs.nonNegative) << "n = " << n;
    EXPECT_EQ(c->function->argument(1)->attrs.multipleOf, 0) << "n = " << n;
    keys.push_back(c->key);
  }
  EXPECT_EQ(keys[0], keys[1]);
}

// An integer equal to 1 is compiled as the constant (a stride of 1 folds
// away), under its own key; the result is the same as with any other value.
TEST(RuntimeKernel, SpecializationMakesOneAConstant) {
  const char* const strided = R"(
__global__ void pick(float* x, float* y, int stride) {
  int i[16] = 0 ... 16;
  *(y + i) = *(x + i * stride) + 1;
}
)";
  TempDir dir;
  std::mt19937_64 rng(std::random_device{}());
  auto x = randomBuffer(64, rng);
  std::vector<std::string> keys;
  for (int64_t stride : {1, 3}) {
    auto y = randomBuffer(16, rng);
    Kernel k(strided, interpOptions(dir.path(), {}));
    std::vector<interp::KernelArg> args{interp::KernelArg::ofBuffer(x.get()), interp::KernelArg::ofBuffer(y.get()),
                                        interp::KernelArg::ofInt(stride)};
    auto c = k.compile(k.space()[0], args);
    EXPECT_EQ(c->function->argument(2)->attrs.one, stride == 1);
    EXPECT_EQ(c->function->argument(2)->users().empty(), stride == 1) << "the uses of 1 are the constant";
    keys.push_back(c->key);
    k.launch(args, [](const Config&) { return interp::Grid{1, 1, 1}; });
    for (int64_t e = 0; e < 16; ++e)
      EXPECT_EQ(interp::readElement(*y, e), float(interp::readElement(*x, e * stride)) + 1.0f) << "stride " << stride;
  }
  EXPECT_NE(keys[0], keys[1]);
}

TEST(RuntimeKernel, DamagedDiskEntriesAreRecompiledNeverLoaded) {
  TempDir dir;
  std::mt19937_64 rng(std::random_device{}());
  auto x = randomBuffer(64, rng);
  std::vector<interp::KernelArg> args{interp::KernelArg::ofBuffer(x.get()), interp::KernelArg::ofInt(64)};
  std::string key;
  {
    Kernel k(kScale, interpOptions(dir.path(), {{"BLOCK", "16"}}));
    key = k.compile(k.space()[0], args)->key;
  }
  std::string path = runtime::DiskCache(dir.path()).entryPath(key);
  for (const char* damage : {"flip", "truncate", "garbage"}) {
    SCOPED_TRACE(damage);
    std::string bytes;
    {
      std::ifstream in(path, std::ios::binary);
      ASSERT_TRUE(in) << "no entry at " << path;
      bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    if (std::string(damage) == "flip") bytes[bytes.size() - 1 - rng() % 64] ^= 0x20;
    else if (std::string(damage) == "truncate") bytes.resize(bytes.size() / 2);
    else bytes = "not a cache entry at all";
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
    Kernel k(kScale, interpOptions(dir.path(), {{"BLOCK", "16"}}));
    auto c = k.compile(k.space()[0], args);
    EXPECT_EQ(c->origin, "compiled");
    EXPECT_FALSE(k.stats().lastDiskProblem.empty());
    expectScaleWorks(k, 64, rng);
    // The recompiled entry replaced the damaged one.
    Kernel after(kScale, interpOptions(dir.path(), {{"BLOCK", "16"}}));
    EXPECT_EQ(after.compile(after.space()[0], args)->origin, "disk");
  }
}

TEST(RuntimeKernel, ConcurrentProcessesCompileTheSameKernel) {
  TempDir dir;
  constexpr int kChildren = 4;
  std::vector<pid_t> pids;
  for (int c = 0; c < kChildren; ++c) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int status = 0;
      try {
        std::mt19937_64 rng(std::random_device{}() + uint64_t(c));
        Kernel k(kScale, interpOptions(dir.path(), {{"BLOCK", "16"}}));
        for (int rep = 0; rep < 5; ++rep) {
          auto x = randomBuffer(128, rng);
          interp::Buffer before = *x;
          k.launch({interp::KernelArg::ofBuffer(x.get()), interp::KernelArg::ofInt(128)}, blocks(128));
          for (int64_t i = 0; i < 128; ++i)
            if (at(*x, i) != at(before, i) * 2 + 1) status = 1;
        }
      } catch (...) {
        status = 2;
      }
      ::_exit(status);
    }
    pids.push_back(pid);
  }
  for (pid_t pid : pids) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a child failed (status " << status << ")";
  }
  std::mt19937_64 rng(std::random_device{}());
  Kernel k(kScale, interpOptions(dir.path(), {{"BLOCK", "16"}}));
  expectScaleWorks(k, 128, rng);
  EXPECT_EQ(k.stats().compiles, 0) << "the entry the children wrote did not load";
  for (auto& e : std::filesystem::directory_iterator(dir.path()))
    EXPECT_EQ(e.path().extension(), ".tck") << "left behind: " << e.path();
}

TEST(RuntimeTuner, PicksTheConfigurationThatIsFastest) {
  TempDir dir;
  std::mt19937_64 rng(std::random_device{}());
  // Listed slowest first: the tuner must measure, not take the first or last.
  KernelOptions o = interpOptions(dir.path(), {{"SPIN", "[3000, 1, 300]"}});
  Kernel k(kSpin, o);
  ASSERT_EQ(k.space().size(), 3u);
  auto x = randomBuffer(32, rng);
  runtime::TuneResult r = k.tune({interp::KernelArg::ofBuffer(x.get()), interp::KernelArg::ofInt(32)}, eights(32));
  ASSERT_EQ(r.trials.size(), 3u);
  EXPECT_EQ(r.origin, "tuned");
  EXPECT_EQ(r.best.value("SPIN"), "1");
  for (const runtime::TuneTrial& t : r.trials) EXPECT_EQ(t.error, "") << t.config.text();
  EXPECT_GT(r.trials[0].ms, r.trials[2].ms) << "3000 iterations were not slower than 300";
  EXPECT_GT(r.trials[2].ms, r.trials[1].ms) << "300 iterations were not slower than 1";
}

// The space is compiled on several threads (the same choice as on one), and
// a configuration found clearly slower than the best so far after its first
// runs is timed no more.
TEST(RuntimeTuner, CompilesInParallelAndStopsTheClearlySlowerEarly) {
  TempDir dir;
  std::mt19937_64 rng(std::random_device{}());
  auto x = randomBuffer(32, rng);
  for (int threads : {1, 4}) {
    KernelOptions o = interpOptions(dir.path() + "/" + std::to_string(threads), {{"SPIN", "[1, 2, 3000, 4, 5000]"}});
    o.tuneThreads = threads;
    o.tuneRepeats = 10;
    Kernel k(kSpin, o);
    runtime::TuneResult r = k.tune({interp::KernelArg::ofBuffer(x.get()), interp::KernelArg::ofInt(32)}, eights(32));
    ASSERT_EQ(r.trials.size(), 5u);
    EXPECT_EQ(k.stats().compiles, 5);
    EXPECT_NE(r.best.value("SPIN"), "3000");
    EXPECT_NE(r.best.value("SPIN"), "5000");
    EXPECT_TRUE(r.trials[2].stoppedEarly) << "3000 iterations, after the best so far (1 or 2)";
    EXPECT_TRUE(r.trials[4].stoppedEarly);
    EXPECT_FALSE(r.trials[0].stoppedEarly);
    EXPECT_GT(r.compileSeconds, 0);
  }
}

// After the sweep, the configurations close to the fastest (the tuner:
// within 15%, at most six) are timed again, interleaved, and the fastest of them by all their
// runs wins; a finalist is fully timed (no error, not stopped early).
TEST(RuntimeTuner, FinalistsAreTheFullyTimedCloseToTheFastest) {
  std::mt19937_64 rng(std::random_device{}());
  const double unit = std::uniform_real_distribution<double>(0.01, 10.0)(rng);  // any time scale
  auto trial = [&](double ms, bool stopped = false, std::string error = "") {
    runtime::TuneTrial t;
    t.ms = ms * unit;
    t.stoppedEarly = stopped;
    t.error = std::move(error);
    return t;
  };
  std::vector<runtime::TuneTrial> trials = {trial(1.0),  trial(1.04), trial(1.2), trial(0.9, true),
                                            trial(0, false, "spills"), trial(1.03), trial(1.02)};
  EXPECT_EQ(runtime::finalists(trials, 0.05, 4), (std::vector<size_t>{0, 6, 5, 1}));
  EXPECT_EQ(runtime::finalists(trials, 0.05, 3), (std::vector<size_t>{0, 6, 5}));
  EXPECT_EQ(runtime::finalists(trials, 0.01, 4), (std::vector<size_t>{})) << "one alone is no final";
  EXPECT_EQ(runtime::finalists({trial(2.0), trial(1.0, true)}, 0.05, 4), (std::vector<size_t>{}));

  // On a kernel: two identical configurations are finalists whenever any
  // trial was timed again, and the best is one of the finalists.
  TempDir dir;
  auto x = randomBuffer(32, rng);
  Kernel k(kSpin, interpOptions(dir.path(), {{"SPIN", "[1, 3000, 1]"}}));
  runtime::TuneResult r = k.tune({interp::KernelArg::ofBuffer(x.get()), interp::KernelArg::ofInt(32)}, eights(32));
  ASSERT_EQ(r.trials.size(), 3u);
  EXPECT_FALSE(r.trials[1].retimed) << "3000 iterations are not close to 1";
  bool any = r.trials[0].retimed || r.trials[2].retimed;
  EXPECT_EQ(r.trials[r.bestIndex].retimed, any);
  EXPECT_EQ(r.best.value("SPIN"), "1");
}

TEST(RuntimeTuner, NeverWritesTheCallersBuffersAndLaunchesOnce) {
  TempDir dir;
  std::mt19937_64 rng(std::random_device{}());
  Kernel k(kSpin, interpOptions(dir.path(), {{"SPIN", "[1, 2, 4]"}}));
  auto x = randomBuffer(64, rng);
  interp::Buffer before = *x;
  std::vector<interp::KernelArg> args{interp::KernelArg::ofBuffer(x.get()), interp::KernelArg::ofInt(64)};
  k.tune(args, eights(64));
  EXPECT_EQ(x->data, before.data) << "tuning wrote the caller's buffer";
  // A launch (the key is tuned) adds 1 exactly once, although every
  // configuration ran several times while tuning.
  k.launch(args, eights(64));
  for (int64_t i = 0; i < 64; ++i) ASSERT_EQ(at(*x, i), at(before, i) + 1) << "element " << i;
}

TEST(RuntimeTuner, TunesOncePerTuningKeyInMemoryAndOnDisk) {
  TempDir dir;
  std::mt19937_64 rng(std::random_device{}());
  KernelOptions o = interpOptions(dir.path(), {{"SPIN", "[1, 2]"}});
  auto x = randomBuffer(64, rng);
  {
    Kernel k(kSpin, o);
    EXPECT_EQ(k.tune({interp::KernelArg::ofBuffer(x.get()), interp::KernelArg::ofInt(64)}, eights(64)).origin, "tuned");
    EXPECT_EQ(k.tune({interp::KernelArg::ofBuffer(x.get()), interp::KernelArg::ofInt(64)}, eights(64)).origin, "memory");
    // Another value of the integer argument is another tuning key.
    EXPECT_EQ(k.tune({interp::KernelArg::ofBuffer(x.get()), interp::KernelArg::ofInt(32)}, eights(32)).origin, "tuned");
  }
  Kernel k(kSpin, o);
  runtime::TuneResult r = k.tune({interp::KernelArg::ofBuffer(x.get()), interp::KernelArg::ofInt(64)}, eights(64));
  EXPECT_EQ(r.origin, "disk");
  EXPECT_TRUE(r.best.value("SPIN") == "1" || r.best.value("SPIN") == "2");
  // A key named by the caller: `n` is not part of it, so one tuning serves both sizes.
  o.tuningKey = {"x"};
  Kernel named(kSpin, o);
  EXPECT_EQ(named.tune({interp::KernelArg::ofBuffer(x.get()), interp::KernelArg::ofInt(64)}, eights(64)).origin, "tuned");
  EXPECT_EQ(named.tune({interp::KernelArg::ofBuffer(x.get()), interp::KernelArg::ofInt(32)}, eights(32)).origin, "memory");
}

// The arguments are bound by the first configuration's parameters: a
// configuration whose macros change their types is skipped, with the reason.
TEST(RuntimeTuner, SkipsConfigurationsWhoseParametersDiffer) {
  TempDir dir;
  std::mt19937_64 rng(std::random_device{}());
  const char* const src = R"(
__global__ void inc(TYPE* x, int n) {
  int off[8] = get_program_id(0) * 8 + 0 ... 8;
  *(x + off) = *(x + off) + 1;
}
)";
  Kernel k(src, interpOptions(dir.path(), {{"TYPE", "[float, double]"}}));
  ASSERT_EQ(k.space().size(), 2u);
  auto x = randomBuffer(64, rng);
  interp::Buffer before = *x;
  std::vector<interp::KernelArg> args{interp::KernelArg::ofBuffer(x.get()), interp::KernelArg::ofInt(64)};
  runtime::TuneResult r = k.tune(args, eights(64));
  ASSERT_EQ(r.trials.size(), 2u);
  EXPECT_EQ(r.trials[0].error, "");
  EXPECT_NE(r.trials[1].error.find("its parameters (f64* x, i32 n) differ from the first configuration's (f32* x, i32 n)"),
            std::string::npos)
      << r.trials[1].error;
  EXPECT_EQ(r.best.value("TYPE"), "float");
  k.launch(args, eights(64));
  for (int64_t i = 0; i < 64; ++i) ASSERT_EQ(at(*x, i), at(before, i) + 1) << "element " << i;
}

TEST(RuntimeTuner, SkipsConfigurationsThatFailAndExplainsWhenAllFail) {
  TempDir dir;
  std::mt19937_64 rng(std::random_device{}());
  // BAD=1 cannot compile; BLOCK=32 compiles but its grid reads past the end.
  std::string src = std::string("#if BAD\n#error this configuration cannot compile\n#endif\n") + kScale;
  Kernel k(src, interpOptions(dir.path(), {{"BAD", "[1, 0]"}, {"BLOCK", "[16, 32]"}}));
  ASSERT_EQ(k.space().size(), 4u);
  auto x = randomBuffer(64, rng);
  interp::Buffer before = *x;
  std::vector<interp::KernelArg> args{interp::KernelArg::ofBuffer(x.get()), interp::KernelArg::ofInt(64)};
  runtime::GridFn grid = [](const Config&) { return interp::Grid{4, 1, 1}; };
  runtime::TuneResult r = k.tune(args, grid);
  int failed = 0;
  for (const runtime::TuneTrial& t : r.trials) {
    bool bad = t.config.value("BAD") == "1", big = t.config.value("BLOCK") == "32";
    EXPECT_EQ(!t.error.empty(), bad || big) << t.config.text() << ": " << t.error;
    if (bad) {
      EXPECT_NE(t.error.find("this configuration cannot compile"), std::string::npos) << t.error;
    } else if (big) {
      EXPECT_NE(t.error.find("out-of-bounds"), std::string::npos) << t.error;
    }
    failed += !t.error.empty();
  }
  EXPECT_EQ(failed, 3);
  EXPECT_EQ(r.best.value("BAD"), "0");
  EXPECT_EQ(r.best.value("BLOCK"), "16");
  EXPECT_EQ(x->data, before.data) << "a failing configuration wrote the caller's buffer";

  // When every configuration fails, the error gives each one's reason.
  Kernel allBig(kScale, interpOptions(dir.path(), {{"BLOCK", "[32, 64]"}}));
  try {
    allBig.tune(args, grid);
    FAIL() << "tuning succeeded with no working configuration";
  } catch (const UserError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("every configuration"), std::string::npos) << msg;
    EXPECT_NE(msg.find("BLOCK=32"), std::string::npos) << msg;
    EXPECT_NE(msg.find("BLOCK=64"), std::string::npos) << msg;
  }
  // And when none compiles, the kernel cannot be created; the error gives each reason.
  try {
    Kernel none(src, interpOptions(dir.path(), {{"BAD", "[1, 2]"}, {"BLOCK", "16"}}));
    FAIL() << "a kernel with no configuration that compiles was created";
  } catch (const UserError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("BAD=1"), std::string::npos) << msg;
    EXPECT_NE(msg.find("BAD=2"), std::string::npos) << msg;
    EXPECT_NE(msg.find("this configuration cannot compile"), std::string::npos) << msg;
  }
}

TEST(RuntimeKernel, BadOptionsAndArgumentsAreClearErrors) {
  TempDir dir;
  auto expectError = [&](auto&& f, const std::string& needle) {
    try {
      f();
      ADD_FAILURE() << "no error; expected one mentioning '" << needle << "'";
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  KernelOptions o = interpOptions(dir.path(), {{"BLOCK", "16"}});
  o.numWarps = {3};
  expectError([&] { Kernel k(kScale, o); }, "num_warps");
  o = interpOptions(dir.path(), {{"BLOCK", "16"}});
  o.target = "tpu";
  expectError([&] { Kernel k(kScale, o); }, "unknown target");
  o = interpOptions(dir.path(), {{"BLOCK", "16"}});
  o.tuningKey = {"nope"};
  expectError([&] { Kernel k(kScale, o); }, "tuning key 'nope'");
  expectError([&] { Kernel k("__global__ void f(int x) { y = 1; }", interpOptions(dir.path(), {})); }, "y");
  Kernel k(kScale, interpOptions(dir.path(), {{"BLOCK", "16"}}));
  expectError([&] { k.launch({interp::KernelArg::ofInt(1)}, blocks(16)); }, "takes 2 arguments");
  expectError([&] { k.launch({interp::KernelArg::ofInt(1), interp::KernelArg::ofInt(16)}, blocks(16)); }, "pointer");
}

}  // namespace

// Target "cpu": compiled to native code, kept in memory and on disk (a disk
// hit compiles the cached IR again), tuned on the CPU, and keyed by the
// host's CPU description so that another CPU never loads the code.
TEST(RuntimeKernel, CpuTargetCompilesCachesAndTunes) {
  if (!cpu::available()) GTEST_SKIP() << "built without the CPU back end";
  TempDir dir;
  std::mt19937_64 rng(std::random_device{}());
  KernelOptions o = interpOptions(dir.path(), {{"BLOCK", "[16, 64]"}});
  o.target = "cpu";
  {
    Kernel k(kScale, o);
    EXPECT_EQ(k.target(), "cpu");
    EXPECT_FALSE(k.onGpu());
    expectScaleWorks(k, 1024, rng);
    expectScaleWorks(k, 1024, rng);
    runtime::CacheStats s = k.stats();
    EXPECT_EQ(s.compiles, 2);  // both configurations, for tuning
    auto x = randomBuffer(64, rng);
    std::shared_ptr<runtime::CompiledKernel> c =
        k.compile(k.space()[0], {interp::KernelArg::ofBuffer(x.get()), interp::KernelArg::ofInt(64)});
    ASSERT_TRUE(c->cpu);
    EXPECT_NE(c->key.find("target cpu " + cpu::hostDescription()), std::string::npos);
  }
  {
    Kernel k(kScale, o);  // a new process would see this: everything from disk
    expectScaleWorks(k, 1024, rng);
    runtime::CacheStats s = k.stats();
    EXPECT_EQ(s.compiles, 0);
    EXPECT_EQ(s.diskHits, 1);
  }
}

// A CPU disk entry holds machine code: a later kernel object links it
// without compiling (no IR is parsed), and runs it. An entry whose image is
// damaged (its checksum intact) falls back to the entry's IR.
TEST(RuntimeKernel, CpuDiskEntryHoldsMachineCode) {
  if (!cpu::available()) GTEST_SKIP() << "built without the CPU back end";
  TempDir dir;
  std::mt19937_64 rng(std::random_device{}());
  KernelOptions o = interpOptions(dir.path(), {{"BLOCK", "64"}});
  o.target = "cpu";
  auto x = randomBuffer(64, rng);
  const std::vector<interp::KernelArg> args{interp::KernelArg::ofBuffer(x.get()), interp::KernelArg::ofInt(64)};
  std::string key;
  {
    Kernel k(kScale, o);
    std::shared_ptr<runtime::CompiledKernel> c = k.compile(k.space()[0], args);
    EXPECT_EQ(c->origin, "compiled");
    key = c->key;
    EXPECT_NE(key.find(cpu::codeIdentity()), std::string::npos);
    EXPECT_NE(cpu::codeIdentity().find(" llvm "), std::string::npos);
  }
  {
    Kernel k(kScale, o);
    std::shared_ptr<runtime::CompiledKernel> c = k.compile(k.space()[0], args);
    EXPECT_EQ(c->origin, "disk");
    ASSERT_TRUE(c->cpu) << "the entry's machine code was not linked";
    EXPECT_EQ(c->module, nullptr) << "the IR was parsed: the hit compiled";
    EXPECT_EQ(c->cpu->compileMs(), 0);
    expectScaleWorks(k, 64, rng);
    EXPECT_EQ(k.stats().compiles, 0);
  }
  // Replace the image by bytes that are not one (a valid entry otherwise).
  runtime::DiskCache cache(dir.path());
  std::optional<std::string> payload = cache.load(key);
  ASSERT_TRUE(payload);
  size_t sig = payload->find("sig ");
  ASSERT_NE(sig, std::string::npos);
  size_t at = payload->find('\n', sig) + 1;
  for (int p = 0; p < 2; ++p) at = payload->find('\n', at) + 1;  // the two parameters' lines
  ASSERT_TRUE(cache.store(key, payload->substr(0, at) + "19:tritonc-cpu-image 1" + "3:abc"));
  {
    Kernel k(kScale, o);
    std::shared_ptr<runtime::CompiledKernel> c = k.compile(k.space()[0], args);
    EXPECT_EQ(c->origin, "disk");
    EXPECT_FALSE(c->cpu);
    EXPECT_NE(c->function, nullptr);
    EXPECT_NE(k.stats().lastDiskProblem.find("unusable CPU image"), std::string::npos) << k.stats().lastDiskProblem;
    expectScaleWorks(k, 64, rng);  // compiled from the entry's IR
  }
}

// TRITONC_TUNE_FINAL_MS (the GPU's final rounds): milliseconds from 0
// (the trial's run count) up to 10 s; unset or not such a number: 100.
TEST(RuntimeTuner, FinalRoundMillisecondsComeFromTheEnvironment) {
  unsetenv("TRITONC_TUNE_FINAL_MS");
  EXPECT_EQ(runtime::finalRoundMsFromEnvironment(), 100);
  const double ms = double(1 + std::random_device{}() % 500);
  setenv("TRITONC_TUNE_FINAL_MS", std::to_string(ms).c_str(), 1);
  EXPECT_EQ(runtime::finalRoundMsFromEnvironment(), ms);
  setenv("TRITONC_TUNE_FINAL_MS", "0", 1);
  EXPECT_EQ(runtime::finalRoundMsFromEnvironment(), 0);
  for (const char* bad : {"-5", "abc", "1e9", "12ms", ""}) {
    setenv("TRITONC_TUNE_FINAL_MS", bad, 1);
    EXPECT_EQ(runtime::finalRoundMsFromEnvironment(), 100) << bad;
  }
  unsetenv("TRITONC_TUNE_FINAL_MS");
}
