// The C API (include/tritonc/tritonc.h) on the interpreter: results equal
// plain C++ loops on fresh random inputs, tuning picks a configuration of the
// space, every kind of bad input is a status with a message naming what is
// wrong (never an exception or a crash), errors are per thread, and one
// kernel handle serves several threads at once.
#include "tritonc/tritonc.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "target/cpu/cpu_backend.h"
#include "target/nvptx/cuda_driver.h"

namespace {

class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/c_api_test.XXXXXX";
    const char* made = ::mkdtemp(pattern);
    EXPECT_NE(made, nullptr);
    path_ = made ? made : "/tmp";
  }
  ~TempDir() {
    std::error_code ec;
    if (path_ != "/tmp") std::filesystem::remove_all(path_, ec);
  }
  const char* path() const { return path_.c_str(); }

 private:
  std::string path_;
};

std::string readExample(const std::string& name) {
  std::ifstream in(std::string(TRITONC_SOURCE_DIR) + "/examples/" + name, std::ios::binary);
  EXPECT_TRUE(in.good()) << name;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct KernelDeleter {
  void operator()(tritonc_kernel* k) const { tritonc_kernel_destroy(k); }
};
using KernelPtr = std::unique_ptr<tritonc_kernel, KernelDeleter>;

// Options for the interpreter with the test's own cache.
tritonc_options interpOptions(const TempDir& cache, const char* filename = nullptr) {
  tritonc_options o;
  tritonc_options_init(&o);
  o.target = "interp";
  o.cache_dir = cache.path();
  o.filename = filename;
  return o;
}

KernelPtr create(const std::string& source, const tritonc_options& o) {
  tritonc_kernel* k = nullptr;
  tritonc_status s = tritonc_kernel_create(source.c_str(), &o, &k);
  EXPECT_EQ(s, TRITONC_OK) << tritonc_last_error();
  return KernelPtr(k);
}

tritonc_arg intArg(int64_t v) {
  tritonc_arg a{};
  a.kind = TRITONC_ARG_INT;
  a.i = v;
  return a;
}

tritonc_arg floatArg(double v) {
  tritonc_arg a{};
  a.kind = TRITONC_ARG_FLOAT;
  a.f = v;
  return a;
}

template <class T>
tritonc_arg hostArg(std::vector<T>& v) {
  tritonc_arg a{};
  a.kind = TRITONC_ARG_HOST;
  a.ptr = v.data();
  a.bytes = v.size() * sizeof(T);
  return a;
}

std::vector<float> randomFloats(size_t n, std::mt19937_64& rng) {
  std::uniform_real_distribution<float> dist(-8, 8);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

std::mt19937_64 freshRng() { return std::mt19937_64(std::random_device{}()); }

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// `err` starts with "FILE:LINE:COL: error: " (line given, or any when 0).
bool startsWithLocation(const std::string& err, const std::string& file, int line = 0) {
  if (err.rfind(file + ":", 0) != 0) return false;
  size_t at = file.size() + 1;
  auto number = [&](int want) {
    size_t start = at;
    while (at < err.size() && std::isdigit(static_cast<unsigned char>(err[at]))) ++at;
    return at > start && (want == 0 || std::stoi(err.substr(start, at - start)) == want);
  };
  if (!number(line) || err.compare(at, 1, ":") != 0) return false;
  ++at;
  return number(0) && err.compare(at, 9, ": error: ") == 0;
}

// x[i] *= alpha over 32 elements per program: a float scalar parameter.
const char* const kScale = R"(__global__ void scale(float* x, float alpha, int n) {
  int off[32] = get_program_id(0) * 32 + 0 ... 32;
  *(x + off) = *(x + off) * alpha;
}
)";

TEST(CApi, VersionAndOptionsInit) {
  EXPECT_EQ(std::string(tritonc_version()).rfind("tritonc ", 0), 0u) << tritonc_version();
  tritonc_options o;
  std::memset(&o, 0xAB, sizeof o);
  tritonc_options_init(&o);
  EXPECT_EQ(o.filename, nullptr);
  EXPECT_EQ(o.defines, nullptr);
  EXPECT_EQ(o.num_defines, 0u);
  EXPECT_EQ(o.num_warps, nullptr);
  EXPECT_EQ(o.target, nullptr);
  EXPECT_EQ(o.cache_dir, nullptr);
  EXPECT_EQ(o.verbose, 0);
  EXPECT_EQ(o.allow_tf32, 0);
  tritonc_options_init(nullptr);  // harmless
}

TEST(CApi, VectorAddEqualsLoop) {
  TempDir cache;
  KernelPtr k = create(readExample("vector_add.tc"), interpOptions(cache, "vector_add.tc"));
  ASSERT_TRUE(k);
  EXPECT_STREQ(tritonc_kernel_target(k.get()), "interp");
  EXPECT_EQ(tritonc_kernel_num_configs(k.get()), 1u);
  auto rng = freshRng();
  for (int64_t n : {32, 2048, 3200}) {
    std::vector<float> a = randomFloats(size_t(n), rng), b = randomFloats(size_t(n), rng), c(size_t(n), -1.0f);
    tritonc_arg args[] = {intArg(n), hostArg(a), hostArg(b), hostArg(c)};
    int64_t grid[3] = {n / 32, 1, 1};
    ASSERT_EQ(tritonc_launch(k.get(), args, 4, grid, nullptr, nullptr, nullptr), TRITONC_OK) << tritonc_last_error();
    EXPECT_STREQ(tritonc_last_error(), "");
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(c[size_t(i)], a[size_t(i)] + b[size_t(i)]) << "n=" << n << " i=" << i;
  }
}

// Target "cpu": native code, or NO_DEVICE in a build without the back end.
TEST(CApi, CpuTarget) {
  TempDir cache;
  tritonc_options o = interpOptions(cache, "vector_add.tc");
  o.target = "cpu";
  const std::string src = readExample("vector_add.tc");
  tritonc_kernel* raw = nullptr;
  const tritonc_status st = tritonc_kernel_create(src.c_str(), &o, &raw);
  KernelPtr k(raw);
  if (!tritonc::cpu::available()) {
    EXPECT_EQ(st, TRITONC_ERROR_NO_DEVICE);
    EXPECT_TRUE(contains(tritonc_last_error(), "CPU back end")) << tritonc_last_error();
    GTEST_SKIP() << "built without the CPU back end";
  }
  ASSERT_EQ(st, TRITONC_OK) << tritonc_last_error();
  EXPECT_STREQ(tritonc_kernel_target(k.get()), "cpu");
  auto rng = freshRng();
  for (int64_t n : {32, 4096}) {
    std::vector<float> a = randomFloats(size_t(n), rng), b = randomFloats(size_t(n), rng), c(size_t(n), NAN);
    tritonc_arg args[] = {intArg(n), hostArg(a), hostArg(b), hostArg(c)};
    int64_t grid[3] = {n / 32, 1, 1};
    ASSERT_EQ(tritonc_launch(k.get(), args, 4, grid, nullptr, nullptr, nullptr), TRITONC_OK) << tritonc_last_error();
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(c[size_t(i)], a[size_t(i)] + b[size_t(i)]) << "n=" << n << " i=" << i;
  }
}

TEST(CApi, CacheMustHitFailsACompileAndPassesAWarmCache) {
  TempDir cache;
  const std::string src = readExample("vector_add.tc");
  std::vector<float> a(64, 1.0f), b(64, 2.0f), c(64, 0.0f);
  tritonc_arg args[] = {intArg(64), hostArg(a), hostArg(b), hostArg(c)};
  int64_t grid[3] = {2, 1, 1};
  tritonc_options o = interpOptions(cache, "vector_add.tc");
  o.cache_must_hit = 1;
  {
    KernelPtr cold = create(src, o);
    ASSERT_TRUE(cold);
    EXPECT_EQ(tritonc_launch(cold.get(), args, 4, grid, nullptr, nullptr, nullptr), TRITONC_ERROR_LAUNCH);
    EXPECT_TRUE(contains(tritonc_last_error(), "the cache must hit")) << tritonc_last_error();
    EXPECT_TRUE(contains(tritonc_last_error(), "kernel 'add' (num_warps=4 num_stages=3) for N: divisible by 16, a: "
                                               "16-byte aligned, b: 16-byte aligned, c: 16-byte aligned, on interp"))
        << tritonc_last_error();
    for (float v : c) ASSERT_EQ(v, 0.0f);  // nothing ran
  }
  {
    o.cache_must_hit = 0;
    KernelPtr warm = create(src, o);
    ASSERT_EQ(tritonc_launch(warm.get(), args, 4, grid, nullptr, nullptr, nullptr), TRITONC_OK) << tritonc_last_error();
  }
  o.cache_must_hit = 1;
  KernelPtr hit = create(src, o);  // a new kernel object: the disk cache hits
  c.assign(64, 0.0f);
  ASSERT_EQ(tritonc_launch(hit.get(), args, 4, grid, nullptr, nullptr, nullptr), TRITONC_OK) << tritonc_last_error();
  for (float v : c) ASSERT_EQ(v, 3.0f);
}

TEST(CApi, SameMemoryTwiceIsOneBuffer) {
  // c = a + b with c and a the same array: the kernel reads and writes one buffer.
  TempDir cache;
  KernelPtr k = create(readExample("vector_add.tc"), interpOptions(cache));
  ASSERT_TRUE(k);
  auto rng = freshRng();
  const int64_t n = 256;
  std::vector<float> a = randomFloats(size_t(n), rng), b = randomFloats(size_t(n), rng), before = a;
  tritonc_arg args[] = {intArg(n), hostArg(a), hostArg(b), hostArg(a)};
  int64_t grid[3] = {n / 32, 1, 1};
  ASSERT_EQ(tritonc_launch(k.get(), args, 4, grid, nullptr, nullptr, nullptr), TRITONC_OK) << tritonc_last_error();
  for (size_t i = 0; i < size_t(n); ++i) ASSERT_EQ(a[i], before[i] + b[i]) << i;
}

TEST(CApi, OverlappingMemoryIsOneBuffer) {
  // c = a + b with c half an array after a in one allocation: a later
  // program reads what an earlier one stored through c (the interpreter runs
  // programs in order), and the memory past both keeps its contents.
  TempDir cache;
  KernelPtr k = create(readExample("vector_add.tc"), interpOptions(cache));
  ASSERT_TRUE(k);
  auto rng = freshRng();
  const size_t n = 256, shift = 128, spare = 40;
  std::vector<float> mem = randomFloats(n + shift + spare, rng), b = randomFloats(n, rng);
  std::vector<float> want = mem;
  for (size_t i = 0; i < n; ++i) want[shift + i] = want[i] + b[i];  // program by program, in order
  tritonc_arg args[] = {intArg(int64_t(n)), tritonc_arg{}, hostArg(b), tritonc_arg{}};
  args[1].kind = args[3].kind = TRITONC_ARG_HOST;
  args[1].ptr = mem.data();
  args[3].ptr = mem.data() + shift;
  args[1].bytes = args[3].bytes = n * sizeof(float);
  int64_t grid[3] = {int64_t(n) / 32, 1, 1};
  ASSERT_EQ(tritonc_launch(k.get(), args, 4, grid, nullptr, nullptr, nullptr), TRITONC_OK) << tritonc_last_error();
  for (size_t i = 0; i < mem.size(); ++i) ASSERT_EQ(mem[i], want[i]) << i;
}

TEST(CApi, FloatScalarsAndIntsForFloats) {
  TempDir cache;
  KernelPtr k = create(kScale, interpOptions(cache));
  ASSERT_TRUE(k);
  auto rng = freshRng();
  std::vector<float> x = randomFloats(96, rng), orig = x;
  float alpha = std::uniform_real_distribution<float>(-3, 3)(rng);
  tritonc_arg args[] = {hostArg(x), floatArg(alpha), intArg(96)};
  int64_t grid[3] = {3, 1, 1};
  ASSERT_EQ(tritonc_launch(k.get(), args, 3, grid, nullptr, nullptr, nullptr), TRITONC_OK) << tritonc_last_error();
  for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(x[i], orig[i] * alpha) << i;
  // An INT for a float parameter is converted.
  orig = x;
  args[1] = intArg(-3);
  ASSERT_EQ(tritonc_launch(k.get(), args, 3, grid, nullptr, nullptr, nullptr), TRITONC_OK) << tritonc_last_error();
  for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(x[i], orig[i] * -3.0f) << i;
}

struct MatmulGrid {
  int64_t m = 0, n = 0;
  int calls = 0;
  std::vector<std::string> seen;  // "TM,TN,TK,num_warps" per call
};

void matmulGrid(const tritonc_config* c, void* user, int64_t grid[3]) {
  auto* g = static_cast<MatmulGrid*>(user);
  ++g->calls;
  int64_t tm = 0, tn = 0, tk = 0, warps = 0, type = 0;
  EXPECT_EQ(tritonc_config_int(c, "TM", &tm), 1);
  EXPECT_EQ(tritonc_config_int(c, "TN", &tn), 1);
  EXPECT_EQ(tritonc_config_int(c, "TK", &tk), 1);  // a fixed -D macro
  EXPECT_EQ(tritonc_config_int(c, "num_warps", &warps), 1);
  EXPECT_EQ(tritonc_config_int(c, "TYPE", &type), 0);  // "float": not an integer
  EXPECT_EQ(tritonc_config_int(c, "NOPE", &type), 0);  // unknown
  EXPECT_EQ(tritonc_config_int(c, nullptr, &type), 0);
  g->seen.push_back(std::to_string(tm) + "," + std::to_string(tn) + "," + std::to_string(tk) + "," +
                    std::to_string(warps));
  grid[0] = g->m / tm;
  grid[1] = g->n / tn;
}

TEST(CApi, MatmulTuningPicksValidConfigAndMatchesReference) {
  TempDir cache;
  tritonc_options o = interpOptions(cache, "matmul.tc");
  tritonc_define defines[] = {{"TYPE", "float"}, {"TM", "[16, 32]"}, {"TN", "[16, 32]"}, {"TK", "8"}};
  o.defines = defines;
  o.num_defines = 4;
  const int warps[] = {4};
  o.num_warps = warps;
  o.num_num_warps = 1;
  KernelPtr k = create(readExample("matmul.tc"), o);
  ASSERT_TRUE(k);
  ASSERT_EQ(tritonc_kernel_num_configs(k.get()), 4u);
  const int64_t M = 64, N = 32, K = 48;
  auto rng = freshRng();
  std::vector<float> a = randomFloats(size_t(M * K), rng), b = randomFloats(size_t(K * N), rng);
  std::vector<float> c(size_t(M * N), 0.0f);
  tritonc_arg args[] = {hostArg(a), hostArg(b), hostArg(c), intArg(M), intArg(N),
                        intArg(K),  intArg(K),  intArg(N),  intArg(N)};
  MatmulGrid g;
  g.m = M;
  g.n = N;
  char best[128];
  double bestMs = -1;
  ASSERT_EQ(tritonc_tune(k.get(), args, 9, nullptr, matmulGrid, &g, best, sizeof best, &bestMs), TRITONC_OK)
      << tritonc_last_error();
  EXPECT_GE(g.calls, 4);  // one grid per configuration at least
  const std::string valid[] = {"TM=16 TN=16 num_warps=4 num_stages=3", "TM=16 TN=32 num_warps=4 num_stages=3",
                               "TM=32 TN=16 num_warps=4 num_stages=3", "TM=32 TN=32 num_warps=4 num_stages=3"};
  EXPECT_NE(std::find(std::begin(valid), std::end(valid), std::string(best)), std::end(valid)) << best;
  EXPECT_GT(bestMs, 0);
  for (float v : c) ASSERT_EQ(v, 0.0f);  // tuning ran on copies

  // A short buffer gets a truncated, terminated text; NULL outputs are fine.
  char tiny[5];
  ASSERT_EQ(tritonc_tune(k.get(), args, 9, nullptr, matmulGrid, &g, tiny, sizeof tiny, nullptr), TRITONC_OK)
      << tritonc_last_error();
  EXPECT_EQ(std::strlen(tiny), 4u);
  EXPECT_EQ(std::string(tiny).rfind("TM=", 0), 0u) << tiny;

  g.seen.clear();
  ASSERT_EQ(tritonc_launch(k.get(), args, 9, nullptr, matmulGrid, &g, nullptr), TRITONC_OK) << tritonc_last_error();
  ASSERT_FALSE(g.seen.empty());
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double want = 0;
      for (int64_t l = 0; l < K; ++l) want += double(a[size_t(i * K + l)]) * b[size_t(l * N + j)];
      ASSERT_NEAR(c[size_t(i * N + j)], want, 1e-4 * (1 + std::fabs(want)) * K) << i << "," << j;
    }
}

TEST(CApi, CompileErrorHasLocationAndMessage) {
  TempDir cache;
  const std::string source =
      "__global__ void broken(float* x) {\n"
      "  int off[32] = 0 ... 32;\n"
      "  *(x + off) = undefined_thing * 2;\n"
      "}\n";
  tritonc_options o = interpOptions(cache, "broken.tc");
  tritonc_kernel* k = reinterpret_cast<tritonc_kernel*>(&o);  // must be reset to NULL
  ASSERT_EQ(tritonc_kernel_create(source.c_str(), &o, &k), TRITONC_ERROR_COMPILE);
  EXPECT_EQ(k, nullptr);
  std::string err = tritonc_last_error();
  EXPECT_TRUE(startsWithLocation(err, "broken.tc", 3)) << err;
  EXPECT_TRUE(contains(err, "undefined_thing")) << err;
  EXPECT_TRUE(contains(err, "*(x + off) = undefined_thing * 2;\n")) << err;  // the source line, then a caret
  EXPECT_TRUE(contains(err, "^")) << err;

  // Without a filename, diagnostics name "<source>".
  o.filename = nullptr;
  ASSERT_EQ(tritonc_kernel_create(source.c_str(), &o, &k), TRITONC_ERROR_COMPILE);
  EXPECT_EQ(std::string(tritonc_last_error()).rfind("<source>:3:", 0), 0u) << tritonc_last_error();

  // A success clears the message.
  KernelPtr ok = create(kScale, interpOptions(cache));
  EXPECT_STREQ(tritonc_last_error(), "");
}

TEST(CApi, BadOptions) {
  TempDir cache;
  const std::string add = readExample("vector_add.tc");
  tritonc_kernel* k = nullptr;
  auto expect = [&](const tritonc_options& o, tritonc_status want, const char* needle) {
    k = nullptr;
    EXPECT_EQ(tritonc_kernel_create(add.c_str(), &o, &k), want) << needle << ": " << tritonc_last_error();
    EXPECT_EQ(k, nullptr);
    EXPECT_TRUE(contains(tritonc_last_error(), needle)) << tritonc_last_error();
    tritonc_kernel_destroy(k);
  };
  tritonc_options o = interpOptions(cache);
  const int three[] = {3};
  o.num_warps = three;
  o.num_num_warps = 1;
  expect(o, TRITONC_ERROR_INVALID_ARGUMENT, "num_warps");
  o = interpOptions(cache);
  o.num_num_stages = 2;  // NULL array with a count
  expect(o, TRITONC_ERROR_INVALID_ARGUMENT, "num_stages");
  o = interpOptions(cache);
  o.target = "tpu";
  expect(o, TRITONC_ERROR_INVALID_ARGUMENT, "tpu");
  o = interpOptions(cache);
  o.kernel = "nope";
  expect(o, TRITONC_ERROR_INVALID_ARGUMENT, "nope");
  o = interpOptions(cache);
  o.num_defines = 1;
  expect(o, TRITONC_ERROR_INVALID_ARGUMENT, "defines");
  tritonc_define bad[] = {{"1X", "2"}};
  o.defines = bad;
  expect(o, TRITONC_ERROR_INVALID_ARGUMENT, "1X");
  o = interpOptions(cache);
  const char* const key[] = {"M"};
  o.tuning_key = key;
  o.num_tuning_key = 1;
  expect(o, TRITONC_ERROR_INVALID_ARGUMENT, "'M'");
  o = interpOptions(cache);
  EXPECT_EQ(tritonc_kernel_create(nullptr, &o, &k), TRITONC_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(tritonc_last_error(), "source")) << tritonc_last_error();
  EXPECT_EQ(tritonc_kernel_create(add.c_str(), &o, nullptr), TRITONC_ERROR_INVALID_ARGUMENT);

  // target "gpu" on a machine without one.
  o = interpOptions(cache);
  o.target = "auto";
  KernelPtr probe = create(add, o);
  ASSERT_TRUE(probe);
  if (std::string(tritonc_kernel_target(probe.get())).rfind("sm_", 0) != 0) {
    o.target = "gpu";
    k = nullptr;
    EXPECT_EQ(tritonc_kernel_create(add.c_str(), &o, &k), TRITONC_ERROR_NO_DEVICE) << tritonc_last_error();
    EXPECT_EQ(k, nullptr);
    EXPECT_TRUE(contains(tritonc_last_error(), "gpu")) << tritonc_last_error();
  }
}

TEST(CApi, BadArgumentsNameTheParameter) {
  TempDir cache;
  KernelPtr k = create(readExample("vector_add.tc"), interpOptions(cache));
  ASSERT_TRUE(k);
  std::vector<float> a(64, 1.0f), b(64, 2.0f), c(64, 0.0f);
  int64_t grid[3] = {2, 1, 1};
  auto launch = [&](const tritonc_arg* args, size_t n, const int64_t* g = nullptr, tritonc_grid_fn fn = nullptr) {
    return tritonc_launch(k.get(), args, n, g ? g : (fn ? nullptr : grid), fn, nullptr, nullptr);
  };
  tritonc_arg good[] = {intArg(64), hostArg(a), hostArg(b), hostArg(c)};

  // Count.
  EXPECT_EQ(launch(good, 3), TRITONC_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(tritonc_last_error(), "takes 4 arguments (N, a, b, c), 3 given")) << tritonc_last_error();
  EXPECT_EQ(launch(nullptr, 4), TRITONC_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(tritonc_last_error(), "args is NULL")) << tritonc_last_error();
  EXPECT_EQ(launch(nullptr, 0), TRITONC_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(tritonc_last_error(), "0 given")) << tritonc_last_error();

  // A host buffer for the scalar N, a number for the pointer b.
  tritonc_arg args[4];
  std::copy(good, good + 4, args);
  args[0] = hostArg(a);
  EXPECT_EQ(launch(args, 4), TRITONC_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(tritonc_last_error(), "'N'")) << tritonc_last_error();
  EXPECT_TRUE(contains(tritonc_last_error(), "scalar")) << tritonc_last_error();
  std::copy(good, good + 4, args);
  args[2] = intArg(5);
  EXPECT_EQ(launch(args, 4), TRITONC_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(tritonc_last_error(), "'b'")) << tritonc_last_error();
  EXPECT_TRUE(contains(tritonc_last_error(), "pointer")) << tritonc_last_error();

  // Bytes not a multiple of sizeof(float); a NULL pointer with bytes.
  std::copy(good, good + 4, args);
  args[3].bytes = 64 * 4 - 2;
  EXPECT_EQ(launch(args, 4), TRITONC_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(tritonc_last_error(), "'c'")) << tritonc_last_error();
  EXPECT_TRUE(contains(tritonc_last_error(), "multiple of the element size (4")) << tritonc_last_error();
  std::copy(good, good + 4, args);
  args[1].ptr = nullptr;
  EXPECT_EQ(launch(args, 4), TRITONC_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(tritonc_last_error(), "'a'")) << tritonc_last_error();

  // A FLOAT for an integer, an integer too large for i32, an unknown kind, a device address on the interpreter.
  std::copy(good, good + 4, args);
  args[0] = floatArg(64);
  EXPECT_EQ(launch(args, 4), TRITONC_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(tritonc_last_error(), "'N'")) << tritonc_last_error();
  args[0] = intArg(int64_t(1) << 40);
  EXPECT_EQ(launch(args, 4), TRITONC_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(tritonc_last_error(), "does not fit in i32")) << tritonc_last_error();
  args[0] = intArg(64);
  const int unknownKind = 42;  // what a C caller may store; not a valid C++ enum value
  static_assert(sizeof args[0].kind == sizeof unknownKind);
  std::memcpy(&args[0].kind, &unknownKind, sizeof unknownKind);
  EXPECT_EQ(launch(args, 4), TRITONC_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(tritonc_last_error(), "unknown argument kind 42")) << tritonc_last_error();
  std::copy(good, good + 4, args);
  args[1].kind = TRITONC_ARG_DEVICE;
  EXPECT_EQ(launch(args, 4), TRITONC_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(tritonc_last_error(), "DEVICE")) << tritonc_last_error();

  // Grids: both, neither, a zero dimension (given or from the callback).
  EXPECT_EQ(tritonc_launch(k.get(), good, 4, nullptr, nullptr, nullptr, nullptr), TRITONC_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(tritonc_last_error(), "grid")) << tritonc_last_error();
  tritonc_grid_fn zero = [](const tritonc_config*, void*, int64_t g[3]) { g[1] = 0; };
  EXPECT_EQ(tritonc_launch(k.get(), good, 4, grid, zero, nullptr, nullptr), TRITONC_ERROR_INVALID_ARGUMENT);
  int64_t bad[3] = {2, 0, 1};
  EXPECT_EQ(launch(good, 4, bad), TRITONC_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(tritonc_last_error(), "grid dimension 1 is 0")) << tritonc_last_error();
  EXPECT_EQ(tritonc_launch(k.get(), good, 4, nullptr, zero, nullptr, nullptr), TRITONC_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(tritonc_last_error(), "grid_fn")) << tritonc_last_error();
  // Grids beyond the GPU's limits (x < 2^31, y and z <= 65535), given or
  // from the callback, launched or tuned: refused at once (the interpreter
  // would run 2^90 programs).
  int64_t huge[3] = {int64_t(1) << 30, int64_t(1) << 30, int64_t(1) << 30};
  EXPECT_EQ(launch(good, 4, huge), TRITONC_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(tritonc_last_error(), "grid (1073741824, 1073741824, 1073741824) is beyond the GPU's limits"))
      << tritonc_last_error();
  int64_t wide[3] = {int64_t(1) << 31, 1, 1};
  EXPECT_EQ(launch(good, 4, wide), TRITONC_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(tritonc_last_error(), "(2147483648, 1, 1)")) << tritonc_last_error();
  tritonc_grid_fn deep = [](const tritonc_config*, void*, int64_t g[3]) { g[2] = 65536; };
  EXPECT_EQ(tritonc_launch(k.get(), good, 4, nullptr, deep, nullptr, nullptr), TRITONC_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(tritonc_last_error(), "grid_fn for configuration")) << tritonc_last_error();
  EXPECT_TRUE(contains(tritonc_last_error(), "(1, 1, 65536) is beyond the GPU's limits")) << tritonc_last_error();
  EXPECT_EQ(tritonc_tune(k.get(), good, 4, huge, nullptr, nullptr, nullptr, 0, nullptr), TRITONC_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(tritonc_last_error(), "beyond the GPU's limits")) << tritonc_last_error();

  // A NULL kernel.
  EXPECT_EQ(tritonc_launch(nullptr, good, 4, grid, nullptr, nullptr, nullptr), TRITONC_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(tritonc_tune(nullptr, good, 4, grid, nullptr, nullptr, nullptr, 0, nullptr),
            TRITONC_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(tritonc_kernel_num_params(nullptr), 0u);
  EXPECT_EQ(tritonc_kernel_num_configs(nullptr), 0u);
  EXPECT_STREQ(tritonc_kernel_target(nullptr), "");

  // Nothing above ran the kernel: c is untouched, and a good launch still works.
  for (float v : c) ASSERT_EQ(v, 0.0f);
  ASSERT_EQ(launch(good, 4), TRITONC_OK) << tritonc_last_error();
  for (float v : c) ASSERT_EQ(v, 3.0f);
}

TEST(CApi, RuntimeErrorIsLaunchErrorAndLeavesMemoryAlone) {
  // N says 64 but the buffers hold 48 floats: the interpreter reports the access.
  TempDir cache;
  KernelPtr k = create(readExample("vector_add.tc"), interpOptions(cache, "vector_add.tc"));
  ASSERT_TRUE(k);
  std::vector<float> a(48, 1.0f), b(48, 2.0f), c(48, 0.0f);
  tritonc_arg args[] = {intArg(64), hostArg(a), hostArg(b), hostArg(c)};
  int64_t grid[3] = {2, 1, 1};
  ASSERT_EQ(tritonc_launch(k.get(), args, 4, grid, nullptr, nullptr, nullptr), TRITONC_ERROR_LAUNCH);
  std::string err = tritonc_last_error();
  EXPECT_TRUE(startsWithLocation(err, "vector_add.tc")) << err;
  EXPECT_TRUE(contains(err, "out of bounds") || contains(err, "bounds")) << err;
  for (float v : c) ASSERT_EQ(v, 0.0f);  // a failed launch writes nothing back
}

TEST(CApi, ParamNamesAndTypes) {
  TempDir cache;
  const char* source = R"(__global__ void types(half* h, bf16* w, double* d, char* c, long n, float alpha,
                                                 short s, bool flag, int* p) {
  *p = n;
}
)";
  KernelPtr k = create(source, interpOptions(cache));
  ASSERT_TRUE(k);
  struct Want {
    const char* name;
    tritonc_dtype dtype;
    int pointer;
  };
  const Want want[] = {{"h", TRITONC_F16, 1}, {"w", TRITONC_BF16, 1},  {"d", TRITONC_F64, 1},
                       {"c", TRITONC_I8, 1},  {"n", TRITONC_I64, 0},   {"alpha", TRITONC_F32, 0},
                       {"s", TRITONC_I16, 0}, {"flag", TRITONC_I1, 0}, {"p", TRITONC_I32, 1}};
  ASSERT_EQ(tritonc_kernel_num_params(k.get()), std::size(want));
  for (size_t i = 0; i < std::size(want); ++i) {
    const char* name = nullptr;
    tritonc_dtype dtype = TRITONC_F64;
    int pointer = -1;
    ASSERT_EQ(tritonc_kernel_param(k.get(), i, &name, &dtype, &pointer), TRITONC_OK) << tritonc_last_error();
    EXPECT_STREQ(name, want[i].name);
    EXPECT_EQ(dtype, want[i].dtype) << want[i].name;
    EXPECT_EQ(pointer, want[i].pointer) << want[i].name;
  }
  EXPECT_EQ(tritonc_kernel_param(k.get(), 0, nullptr, nullptr, nullptr), TRITONC_OK);
  EXPECT_EQ(tritonc_kernel_param(k.get(), 9, nullptr, nullptr, nullptr), TRITONC_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(tritonc_last_error(), "'types' has 9")) << tritonc_last_error();
  EXPECT_EQ(tritonc_kernel_param(nullptr, 0, nullptr, nullptr, nullptr), TRITONC_ERROR_INVALID_ARGUMENT);

  // Element sizes follow the pointee: 3 bytes for half* is wrong, 2 is one element.
  std::vector<uint16_t> h(1), w(1);
  std::vector<double> d(1);
  std::vector<int8_t> c(1);
  std::vector<int32_t> p(1, 0);
  tritonc_arg args[] = {hostArg(h),  hostArg(w), hostArg(d), hostArg(c), intArg(123456789012),
                        floatArg(1), intArg(-7), intArg(1),  hostArg(p)};
  int64_t grid[3] = {1, 1, 1};
  args[0].bytes = 3;
  EXPECT_EQ(tritonc_launch(k.get(), args, 9, grid, nullptr, nullptr, nullptr), TRITONC_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(tritonc_last_error(), "'h'")) << tritonc_last_error();
  args[0].bytes = 2;
  args[7] = intArg(2);  // not a bool
  EXPECT_EQ(tritonc_launch(k.get(), args, 9, grid, nullptr, nullptr, nullptr), TRITONC_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(tritonc_last_error(), "'flag'")) << tritonc_last_error();
  args[7] = intArg(1);
  ASSERT_EQ(tritonc_launch(k.get(), args, 9, grid, nullptr, nullptr, nullptr), TRITONC_OK) << tritonc_last_error();
  EXPECT_EQ(p[0], int32_t(int64_t(123456789012) & 0xFFFFFFFF));  // i64 -> int store truncates
}

TEST(CApi, LastErrorIsPerThread) {
  std::string inA, inB;
  std::thread a([&] {
    tritonc_kernel* k = nullptr;
    EXPECT_EQ(tritonc_kernel_create(nullptr, nullptr, &k), TRITONC_ERROR_INVALID_ARGUMENT);
    inA = tritonc_last_error();
  });
  a.join();
  EXPECT_FALSE(inA.empty());
  std::thread b([&] { inB = tritonc_last_error(); });
  b.join();
  EXPECT_EQ(inB, "");

  // An error here is not seen by a thread running at the same time, and vice versa.
  EXPECT_EQ(tritonc_kernel_param(nullptr, 0, nullptr, nullptr, nullptr), TRITONC_ERROR_INVALID_ARGUMENT);
  std::string mine = tritonc_last_error();
  EXPECT_TRUE(contains(mine, "NULL")) << mine;
  std::thread c([&] {
    inB = tritonc_last_error();
    tritonc_kernel* k = nullptr;
    tritonc_kernel_create("garbage(", nullptr, &k);
  });
  c.join();
  EXPECT_EQ(inB, "");
  EXPECT_EQ(std::string(tritonc_last_error()), mine);
}

TEST(CApi, ThreadsShareOneKernel) {
  TempDir cache;
  KernelPtr k = create(readExample("vector_add.tc"), interpOptions(cache));
  ASSERT_TRUE(k);
  const int kThreads = 8, kLaunches = 6;
  std::vector<int> failures(kThreads, 0);
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  std::random_device seed;
  for (int t = 0; t < kThreads; ++t) {
    uint64_t s = (uint64_t(seed()) << 32) ^ seed();
    threads.emplace_back([&, t, s] {
      std::mt19937_64 rng(s);
      for (int r = 0; r < kLaunches; ++r) {
        const int64_t n = 32 * (1 + int64_t((t + r) % 5) * 7);
        std::vector<float> a = randomFloats(size_t(n), rng), b = randomFloats(size_t(n), rng);
        std::vector<float> c(size_t(n), 0.0f);
        tritonc_arg args[] = {intArg(n), hostArg(a), hostArg(b), hostArg(c)};
        int64_t grid[3] = {n / 32, 1, 1};
        if (tritonc_launch(k.get(), args, 4, grid, nullptr, nullptr, nullptr) != TRITONC_OK) {
          errors[size_t(t)] = tritonc_last_error();
          ++failures[size_t(t)];
          continue;
        }
        for (int64_t i = 0; i < n; ++i)
          if (c[size_t(i)] != a[size_t(i)] + b[size_t(i)]) {
            ++failures[size_t(t)];
            break;
          }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[size_t(t)], 0) << "thread " << t << ": " << errors[size_t(t)];
}

TEST(CApi, TuneRejectsDeviceAddresses) {
  TempDir cache;
  tritonc_options o = interpOptions(cache);
  tritonc_define defines[] = {{"TYPE", "float"}, {"TM", "[16, 32]"}, {"TN", "16"}, {"TK", "8"}};
  o.defines = defines;
  o.num_defines = 4;
  KernelPtr k = create(readExample("matmul.tc"), o);
  ASSERT_TRUE(k);
  EXPECT_EQ(tritonc_kernel_num_configs(k.get()), 2u);
  std::vector<float> a(16 * 8), b(8 * 16), c(16 * 16);
  tritonc_arg args[] = {hostArg(a), hostArg(b), hostArg(c), intArg(16), intArg(16),
                        intArg(8),  intArg(8),  intArg(16), intArg(16)};
  // On the interpreter a DEVICE address is refused before the tuner sees it.
  args[1].kind = TRITONC_ARG_DEVICE;
  char best[64] = "unchanged";
  int64_t grid[3] = {1, 1, 1};
  EXPECT_EQ(tritonc_tune(k.get(), args, 9, grid, nullptr, nullptr, best, sizeof best, nullptr),
            TRITONC_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(best, "");
  EXPECT_TRUE(contains(tritonc_last_error(), "'B'")) << tritonc_last_error();
}

// On a GPU (skipped elsewhere): allow_tf32 puts an f32 x @ w.T on the tensor
// cores (wgmma on sm_90a): its error against float64 is tf32's, larger than
// f32's (so the option was not ignored) and within tf32's bound; without it,
// f32's.
TEST(CApiGpu, AllowTf32TakesF32ProductsToTheTensorCores) {
  if (!tritonc::nvptx::CudaDriver::get()) GTEST_SKIP() << "no GPU";
  std::ifstream in(std::string(TRITONC_SOURCE_DIR) + "/bench/kernels/matmul_masked_nt.tc", std::ios::binary);
  const std::string src((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const int64_t M = 200, N = 136, K = 256;
  auto rng = freshRng();
  std::vector<float> a = randomFloats(size_t(M * K), rng), w = randomFloats(size_t(N * K), rng);
  std::vector<double> want(size_t(M * N), 0.0);
  double scale = 0;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      for (int64_t l = 0; l < K; ++l) want[size_t(i * N + j)] += double(a[size_t(i * K + l)]) * w[size_t(j * K + l)];
      scale = std::max(scale, std::fabs(want[size_t(i * N + j)]));
    }
  for (int tf32 : {1, 0}) {
    TempDir cache;
    tritonc_options o = interpOptions(cache, "matmul_masked_nt.tc");
    o.target = "auto";
    o.allow_tf32 = tf32;
    tritonc_define defines[] = {{"TYPE", "float"}, {"TM", "128"}, {"TN", "128"}, {"TK", "32"}};
    o.defines = defines;
    o.num_defines = 4;
    const int warps[] = {8};
    o.num_warps = warps;
    o.num_num_warps = 1;
    KernelPtr k = create(src, o);
    ASSERT_TRUE(k);
    std::vector<float> c(size_t(M * N), NAN);
    tritonc_arg args[] = {hostArg(a), hostArg(w), hostArg(c), intArg(M), intArg(N),
                          intArg(K),  intArg(K),  intArg(K),  intArg(N)};
    int64_t grid[3] = {(M + 127) / 128, (N + 127) / 128, 1};
    ASSERT_EQ(tritonc_launch(k.get(), args, 9, grid, nullptr, nullptr, nullptr), TRITONC_OK) << tritonc_last_error();
    double err = 0;
    for (size_t i = 0; i < c.size(); ++i) err = std::max(err, std::fabs(double(c[i]) - want[i]));
    err /= scale;
    if (tf32) {
      EXPECT_GT(err, 2e-5) << "f32's error: allow_tf32 ignored";
      EXPECT_LT(err, 5e-3);
    } else {
      EXPECT_LT(err, 2e-5);
    }
  }
}

// On a GPU (skipped elsewhere): host buffers and device addresses, launched
// from threads other than the one that loaded the CUDA driver.
TEST(CApiGpu, HostAndDeviceArgumentsFromSeveralThreads) {
  tritonc::nvptx::CudaDriver* d = tritonc::nvptx::CudaDriver::get();
  if (!d) GTEST_SKIP() << "no GPU";
  TempDir cache;
  tritonc_options o = interpOptions(cache, "vector_add.tc");
  o.target = "auto";
  KernelPtr k = create(readExample("vector_add.tc"), o);
  ASSERT_TRUE(k);
  EXPECT_STRNE(tritonc_kernel_target(k.get()), "interp");
  const int kThreads = 4;
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(std::random_device{}());
      for (int r = 0; r < 3 && errors[size_t(t)].empty(); ++r) {
        const int64_t n = 32 * (8 + t * 5 + r);
        std::vector<float> a = randomFloats(size_t(n), rng), b = randomFloats(size_t(n), rng);
        std::vector<float> c(size_t(n), 0.0f);
        tritonc_arg args[] = {intArg(n), hostArg(a), hostArg(b), hostArg(c)};
        int64_t grid[3] = {n / 32, 1, 1};
        if (tritonc_launch(k.get(), args, 4, grid, nullptr, nullptr, nullptr) != TRITONC_OK)
          errors[size_t(t)] = tritonc_last_error();
        for (int64_t i = 0; i < n && errors[size_t(t)].empty(); ++i)
          if (c[size_t(i)] != a[size_t(i)] + b[size_t(i)]) errors[size_t(t)] = "wrong c[" + std::to_string(i) + "]";
      }
    });
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(errors[size_t(t)], "") << "thread " << t;

  // Device addresses, allocated here, launched (asynchronously) from another thread.
  const int64_t n = 1024;
  auto rng = freshRng();
  std::vector<float> a = randomFloats(size_t(n), rng), b = randomFloats(size_t(n), rng), c(size_t(n), 0.0f);
  tritonc::nvptx::CUdeviceptr da = 0, db = 0, dc = 0;
  const size_t bytes = size_t(n) * 4;
  ASSERT_EQ(d->cuMemAlloc(&da, bytes), 0);
  ASSERT_EQ(d->cuMemAlloc(&db, bytes), 0);
  ASSERT_EQ(d->cuMemAlloc(&dc, bytes), 0);
  ASSERT_EQ(d->cuMemcpyHtoD(da, a.data(), bytes), 0);
  ASSERT_EQ(d->cuMemcpyHtoD(db, b.data(), bytes), 0);
  std::string error;
  std::thread worker([&] {
    tritonc_arg args[] = {intArg(n), {}, {}, {}};
    tritonc::nvptx::CUdeviceptr ptrs[] = {da, db, dc};
    for (int i = 0; i < 3; ++i) {
      args[i + 1].kind = TRITONC_ARG_DEVICE;
      args[i + 1].ptr = reinterpret_cast<void*>(uintptr_t(ptrs[i]));
    }
    int64_t grid[3] = {n / 32, 1, 1};
    if (tritonc_launch(k.get(), args, 4, grid, nullptr, nullptr, nullptr) != TRITONC_OK)
      error = tritonc_last_error();
    else if (d->cuCtxSynchronize() != 0)  // the launch made the context current here
      error = "cuCtxSynchronize failed";
  });
  worker.join();
  EXPECT_EQ(error, "");
  ASSERT_EQ(d->cuMemcpyDtoH(c.data(), dc, bytes), 0);
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(c[size_t(i)], a[size_t(i)] + b[size_t(i)]) << i;
  d->cuMemFree(da);
  d->cuMemFree(db);
  d->cuMemFree(dc);
}

}  // namespace
