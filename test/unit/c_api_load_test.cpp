// tritonc_kernel_load (include/tritonc/tritonc.h): kernels compiled ahead of
// time, launched and tuned through the C API on the interpreter and the CPU
// (results equal C++ loops on fresh random inputs, poisoned outputs), with
// the macros of the options choosing configurations; every bad input is a
// status with a message naming what is wrong (NULLs, damaged files,
// mismatches, targets), never a crash. On a GPU host (skipped elsewhere),
// the round trip for the GPU's architecture, with host and device memory.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "runtime/aot_compile.h"
#include "target/cpu/cpu_backend.h"
#include "target/nvptx/cuda_driver.h"
#include "target/nvptx/gpu_runner.h"
#include "tritonc/tritonc.h"

namespace {

using namespace tritonc;

class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/c_api_load_test.XXXXXX";
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

// `tritonc compile` of an example into `path`.
void compileExample(const std::string& path, const std::string& example, std::vector<lang::Define> defines,
                    std::vector<std::string> targets) {
  runtime::KernelOptions ko;
  ko.filename = std::string(TRITONC_SOURCE_DIR) + "/examples/" + example;
  ko.defines = std::move(defines);
  ko.cacheDir = "none";
  runtime::PackOptions po;
  po.targets = std::move(targets);
  runtime::writePack(runtime::compilePack(readExample(example), ko, po), path);
}

struct KernelDeleter {
  void operator()(tritonc_kernel* k) const { tritonc_kernel_destroy(k); }
};
using KernelPtr = std::unique_ptr<tritonc_kernel, KernelDeleter>;

KernelPtr load(const std::string& path, const tritonc_options* o) {
  tritonc_kernel* k = reinterpret_cast<tritonc_kernel*>(0x1);
  tritonc_status s = tritonc_kernel_load(path.c_str(), o, &k);
  EXPECT_EQ(s, TRITONC_OK) << tritonc_last_error();
  if (s != TRITONC_OK) {
    EXPECT_EQ(k, nullptr);
  }
  return KernelPtr(s == TRITONC_OK ? k : nullptr);
}

tritonc_options targetOptions(const char* target) {
  tritonc_options o;
  tritonc_options_init(&o);
  o.target = target;
  return o;
}

tritonc_arg intArg(int64_t v) {
  tritonc_arg a{};
  a.kind = TRITONC_ARG_INT;
  a.i = v;
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

uint64_t freshSeed() { return (uint64_t(std::random_device{}()) << 32) ^ std::random_device{}(); }

bool contains(const char* haystack, const std::string& needle) {
  return std::string(haystack).find(needle) != std::string::npos;
}

// The status of loading `path` with `o`, and the error in `*why`.
tritonc_status loadStatus(const char* path, const tritonc_options* o, std::string* why) {
  tritonc_kernel* k = reinterpret_cast<tritonc_kernel*>(0x1);
  tritonc_status s = tritonc_kernel_load(path, o, &k);
  *why = tritonc_last_error();
  if (s == TRITONC_OK) {
    tritonc_kernel_destroy(k);
  } else {
    EXPECT_EQ(k, nullptr) << "*out was not cleared";
  }
  return s;
}

TEST(CApiLoad, VectorAddRunsFromTheFileLikeTheLoop) {
  const uint64_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  TempDir dir;
  const std::string path = dir.file("add.tck");
  compileExample(path, "vector_add.tc", {}, {"interp", "cpu"});
  for (const char* target : {"interp", "cpu"}) {
    SCOPED_TRACE(target);
    if (std::string(target) == "cpu" && !cpu::available()) continue;
    tritonc_options o = targetOptions(target);
    KernelPtr k = load(path, &o);
    ASSERT_TRUE(k);
    EXPECT_STREQ(tritonc_kernel_target(k.get()), target);
    EXPECT_EQ(tritonc_kernel_num_configs(k.get()), 1u);
    ASSERT_EQ(tritonc_kernel_num_params(k.get()), 4u);
    const char* name = nullptr;
    tritonc_dtype dtype;
    int pointer = -1;
    ASSERT_EQ(tritonc_kernel_param(k.get(), 1, &name, &dtype, &pointer), TRITONC_OK);
    EXPECT_STREQ(name, "a");
    EXPECT_EQ(dtype, TRITONC_F32);
    EXPECT_EQ(pointer, 1);
    for (int64_t n : {int64_t(32), int64_t(32) * (1 + int64_t(rng() % 100))}) {
      std::vector<float> a = randomFloats(size_t(n), rng), b = randomFloats(size_t(n), rng), c(size_t(n), NAN);
      tritonc_arg args[] = {intArg(n), hostArg(a), hostArg(b), hostArg(c)};
      int64_t grid[3] = {n / 32, 1, 1};
      ASSERT_EQ(tritonc_launch(k.get(), args, 4, grid, nullptr, nullptr, nullptr), TRITONC_OK) << tritonc_last_error();
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(c[size_t(i)], a[size_t(i)] + b[size_t(i)]) << "c[" << i << "]";
    }
  }
}

void tileGrid(const tritonc_config* c, void* user, int64_t grid[3]) {
  const int64_t* mn = static_cast<const int64_t*>(user);
  int64_t tm = 0, tn = 0;
  tritonc_config_int(c, "TM", &tm);
  tritonc_config_int(c, "TN", &tn);
  grid[0] = mn[0] / tm;
  grid[1] = mn[1] / tn;
}

TEST(CApiLoad, DefinesChooseConfigurationsAndSeveralAreTuned) {
  const uint64_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  TempDir dir;
  const std::string path = dir.file("matmul.tck");
  compileExample(path, "matmul.tc", {{"TYPE", "float"}, {"TM", "[16, 32]"}, {"TN", "[16, 32]"}, {"TK", "8"}},
                 {"interp"});
  tritonc_options o = targetOptions("interp");
  tritonc_define pick[] = {{"TM", "32"}, {"TN", "[16, 32]"}};
  o.defines = pick;
  o.num_defines = 2;
  KernelPtr k = load(path, &o);
  ASSERT_TRUE(k);
  EXPECT_EQ(tritonc_kernel_num_configs(k.get()), 2u);
  const int64_t M = 64, N = 32 * (1 + int64_t(rng() % 2)), K = 8 * (1 + int64_t(rng() % 4));
  std::vector<float> a = randomFloats(size_t(M * K), rng), b = randomFloats(size_t(K * N), rng), c(size_t(M * N), NAN);
  tritonc_arg args[] = {hostArg(a), hostArg(b), hostArg(c), intArg(M), intArg(N), intArg(K), intArg(K), intArg(N),
                        intArg(N)};
  int64_t mn[2] = {M, N};
  char best[128];
  double ms = -1;
  ASSERT_EQ(tritonc_tune(k.get(), args, 9, nullptr, tileGrid, mn, best, sizeof best, &ms), TRITONC_OK)
      << tritonc_last_error();
  EXPECT_TRUE(contains(best, "TM=32 ")) << best;
  EXPECT_GT(ms, 0);
  for (float x : c) ASSERT_TRUE(std::isnan(x)) << "tuning wrote the caller's buffer";
  ASSERT_EQ(tritonc_launch(k.get(), args, 9, nullptr, tileGrid, mn, nullptr), TRITONC_OK) << tritonc_last_error();
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double ref = 0;
      for (int64_t kk = 0; kk < K; ++kk) ref += double(a[size_t(m * K + kk)]) * b[size_t(kk * N + n)];
      ASSERT_NEAR(c[size_t(m * N + n)], ref, 1e-4 * (1 + std::fabs(ref))) << "C[" << m << ", " << n << "]";
    }
}

TEST(CApiLoad, BadInputIsAStatusNamingTheProblem) {
  TempDir dir;
  const std::string path = dir.file("add.tck");
  compileExample(path, "vector_add.tc", {}, {"interp"});
  std::string why;
  tritonc_kernel* k = nullptr;
  EXPECT_EQ(tritonc_kernel_load(path.c_str(), nullptr, nullptr), TRITONC_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(tritonc_last_error(), "out is NULL"));
  EXPECT_EQ(loadStatus(nullptr, nullptr, &why), TRITONC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(why.find("path is NULL"), std::string::npos) << why;
  EXPECT_EQ(loadStatus(path.c_str(), nullptr, &why), TRITONC_OK) << why;
  EXPECT_EQ(why, "");

  // The file.
  EXPECT_EQ(loadStatus(dir.file("missing.tck").c_str(), nullptr, &why), TRITONC_ERROR_FILE);
  EXPECT_NE(why.find("missing.tck"), std::string::npos) << why;
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string cut = dir.file("cut.tck");
  std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() - 7);
  EXPECT_EQ(loadStatus(cut.c_str(), nullptr, &why), TRITONC_ERROR_FILE);
  EXPECT_NE(why.find("truncated"), std::string::npos) << why;
  const std::string flipped = dir.file("flipped.tck");
  std::string damaged = bytes;
  damaged[damaged.size() - 10] = char(damaged[damaged.size() - 10] ^ 0x20);
  std::ofstream(flipped, std::ios::binary) << damaged;
  EXPECT_EQ(loadStatus(flipped.c_str(), nullptr, &why), TRITONC_ERROR_FILE);
  EXPECT_NE(why.find("damaged"), std::string::npos) << why;

  // The options.
  tritonc_options o = targetOptions("interp");
  tritonc_define nope[] = {{"SIZE", "64"}};
  o.defines = nope;
  o.num_defines = 1;
  EXPECT_EQ(loadStatus(path.c_str(), &o, &why), TRITONC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(why.find("no configuration defines 'SIZE'"), std::string::npos) << why;
  o.defines = nullptr;
  EXPECT_EQ(loadStatus(path.c_str(), &o, &why), TRITONC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(why.find("defines is NULL"), std::string::npos) << why;
  tritonc_define badName[] = {{"2x", "1"}};
  o.defines = badName;
  EXPECT_EQ(loadStatus(path.c_str(), &o, &why), TRITONC_ERROR_INVALID_ARGUMENT);
  o = targetOptions("sm_90a");
  EXPECT_EQ(loadStatus(path.c_str(), &o, &why), TRITONC_ERROR_NO_DEVICE);
  EXPECT_NE(why.find("holds code for interp (1 entry)"), std::string::npos) << why;
  o = targetOptions("interp");
  o.kernel = "dot";
  EXPECT_EQ(loadStatus(path.c_str(), &o, &why), TRITONC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(why.find("holds kernel 'add', not 'dot'"), std::string::npos) << why;

  // Launches of a loaded kernel are checked as a source kernel's are.
  o = targetOptions("interp");
  ASSERT_EQ(tritonc_kernel_load(path.c_str(), &o, &k), TRITONC_OK) << tritonc_last_error();
  KernelPtr owned(k);
  std::vector<float> a(64), b(64), c(64);
  tritonc_arg args[] = {intArg(64), hostArg(a), hostArg(b), hostArg(c)};
  int64_t grid[3] = {2, 1, 1};
  EXPECT_EQ(tritonc_launch(k, args, 3, grid, nullptr, nullptr, nullptr), TRITONC_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(tritonc_last_error(), "takes 4 arguments")) << tritonc_last_error();
  args[1].kind = TRITONC_ARG_DEVICE;
  EXPECT_EQ(tritonc_launch(k, args, 4, grid, nullptr, nullptr, nullptr), TRITONC_ERROR_INVALID_ARGUMENT);
  args[1] = hostArg(a);
  int64_t tooMany[3] = {4, 1, 1};  // the interpreter finds the access past the buffers
  EXPECT_EQ(tritonc_launch(k, args, 4, tooMany, nullptr, nullptr, nullptr), TRITONC_ERROR_LAUNCH);
  EXPECT_TRUE(contains(tritonc_last_error(), "vector_add.tc:")) << tritonc_last_error();
  EXPECT_TRUE(contains(tritonc_last_error(), "out-of-bounds")) << tritonc_last_error();
}

// On a GPU (skipped elsewhere): the file compiled for this GPU, launched on
// host memory and on device addresses.
TEST(CApiLoadGpu, RoundTripOnTheGpu) {
  nvptx::CudaDriver* d = nvptx::CudaDriver::get();
  if (!d) GTEST_SKIP() << "no GPU";
  const std::string arch = nvptx::gpuArch();
  const uint64_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  TempDir dir;
  const std::string path = dir.file("add.tck");
  compileExample(path, "vector_add.tc", {}, {arch, "interp"});
  KernelPtr k = load(path, nullptr);  // auto: the GPU's code
  ASSERT_TRUE(k);
  EXPECT_STREQ(tritonc_kernel_target(k.get()), arch.c_str());
  const int64_t n = 32 * (64 + int64_t(rng() % 64));
  std::vector<float> a = randomFloats(size_t(n), rng), b = randomFloats(size_t(n), rng), c(size_t(n), NAN);
  tritonc_arg args[] = {intArg(n), hostArg(a), hostArg(b), hostArg(c)};
  int64_t grid[3] = {n / 32, 1, 1};
  ASSERT_EQ(tritonc_launch(k.get(), args, 4, grid, nullptr, nullptr, nullptr), TRITONC_OK) << tritonc_last_error();
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(c[size_t(i)], a[size_t(i)] + b[size_t(i)]) << "c[" << i << "]";

  const size_t bytes = size_t(n) * 4;
  nvptx::CUdeviceptr da = 0, db = 0, dc = 0;
  ASSERT_EQ(d->cuMemAlloc(&da, bytes), 0);
  ASSERT_EQ(d->cuMemAlloc(&db, bytes), 0);
  ASSERT_EQ(d->cuMemAlloc(&dc, bytes), 0);
  ASSERT_EQ(d->cuMemcpyHtoD(da, a.data(), bytes), 0);
  ASSERT_EQ(d->cuMemcpyHtoD(db, b.data(), bytes), 0);
  ASSERT_EQ(d->cuMemsetD8(dc, 0xAB, bytes), 0);
  nvptx::CUdeviceptr ptrs[] = {da, db, dc};
  for (int i = 0; i < 3; ++i) {
    args[i + 1].kind = TRITONC_ARG_DEVICE;
    args[i + 1].ptr = reinterpret_cast<void*>(uintptr_t(ptrs[i]));
    args[i + 1].bytes = bytes;
  }
  ASSERT_EQ(tritonc_launch(k.get(), args, 4, grid, nullptr, nullptr, nullptr), TRITONC_OK) << tritonc_last_error();
  std::vector<float> back(static_cast<size_t>(n), 0.0f);
  ASSERT_EQ(d->cuCtxSynchronize(), 0);
  ASSERT_EQ(d->cuMemcpyDtoH(back.data(), dc, bytes), 0);
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(back[size_t(i)], a[size_t(i)] + b[size_t(i)]) << "c[" << i << "]";
  d->cuMemFree(da);
  d->cuMemFree(db);
  d->cuMemFree(dc);
}

}  // namespace
