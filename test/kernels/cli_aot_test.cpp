// `tritonc compile` and `tritonc run|tune KERNEL.tck` end to end (the
// binary as a process): a matmul compiled for the interpreter and the CPU,
// run from the file on fresh random .npy inputs, equals a C++ reference;
// configurations are chosen by -D or tuned; damaged files and bad requests
// are one clear error line, never a crash. On a GPU host (skipped
// elsewhere) the same round trip runs on the GPU, and a tuned kernel that
// faults is reported once, with an interpreter command that finds the access.
#include <cmath>
#include <regex>

#include "cli_fixture.h"
#include "runtime/fault_report.h"
#include "target/cpu/cpu_backend.h"
#include "target/nvptx/gpu_runner.h"

namespace kernel_test {
namespace {

const std::string kMatmul = kRoot + "/examples/matmul.tc";

struct MatmulData {
  int64_t M, N, K;
  std::vector<float> a, b;
};

class CliAotTest : public CliTest {
 protected:
  // Random A (M x K) and B (K x N) in a.npy and b.npy; sizes multiples of 32.
  MatmulData writeMatmulInputs(std::mt19937_64& rng) {
    MatmulData d;
    d.M = 32 * (1 + int64_t(rng() % 3));
    d.N = 32 * (1 + int64_t(rng() % 3));
    d.K = 16 * (1 + int64_t(rng() % 4));
    std::uniform_real_distribution<float> dist(-2, 2);
    d.a.resize(size_t(d.M * d.K));
    d.b.resize(size_t(d.K * d.N));
    for (float& x : d.a) x = dist(rng);
    for (float& x : d.b) x = dist(rng);
    writeFloats("a.npy", d.a);
    writeFloats("b.npy", d.b);
    return d;
  }

  std::vector<std::string> matmulRunArgs(const std::string& file, const MatmulData& d) {
    return {"run", file, "--grid", "M/TM,N/TN", "--arg", "A=@a.npy", "--arg", "B=@b.npy",
            "--arg", "C=zeros:f32:" + std::to_string(d.M * d.N), "--arg", "M=" + std::to_string(d.M),
            "--arg", "N=" + std::to_string(d.N), "--arg", "K=" + std::to_string(d.K),
            "--arg", "lda=" + std::to_string(d.K), "--arg", "ldb=" + std::to_string(d.N),
            "--arg", "ldc=" + std::to_string(d.N), "--save", "C=c.npy"};
  }

  void expectMatmul(const MatmulData& d, const std::string& what) {
    std::vector<float> c = readFloats("c.npy");
    ASSERT_EQ(c.size(), size_t(d.M * d.N)) << what;
    for (int64_t m = 0; m < d.M; ++m)
      for (int64_t n = 0; n < d.N; ++n) {
        double ref = 0;
        for (int64_t k = 0; k < d.K; ++k) ref += double(d.a[size_t(m * d.K + k)]) * d.b[size_t(k * d.N + n)];
        ASSERT_NEAR(c[size_t(m * d.N + n)], ref, 1e-4 * (1 + std::fabs(ref))) << what << ": C[" << m << ", " << n << "]";
      }
  }
};

TEST_F(CliAotTest, CompiledMatmulRunsFromTheFileOnTheInterpreterAndTheCpu) {
  const uint64_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  MatmulData d = writeMatmulInputs(rng);
  Result c = run({"compile", kMatmul, "-DTYPE=float", "-DTM=[16, 32]", "-DTN=32", "-DTK=8", "--target", "interp,cpu",
                  "--arg", "M=" + std::to_string(d.M) + ",1000", "--generic", "-o", "mm.tck"});
  ASSERT_EQ(c.status, 0) << c.err;
  EXPECT_NE(c.err.find("wrote mm.tck: kernel 'dot', 12 entries (2 configurations, 3 specializations, targets "
                       "interp, cpu)"),
            std::string::npos)
      << c.err;
  std::vector<std::string> backends = {"interp"};
  if (cpu::available()) backends.push_back("cpu");
  for (const std::string& backend : backends) {
    // One configuration chosen by -D, then the two tuned.
    for (const char* choice : {"-DTM=16", ""}) {
      std::vector<std::string> args = matmulRunArgs("mm.tck", d);
      args.insert(args.end(), {"--backend", backend});
      if (*choice) args.push_back(choice);
      std::remove(path("c.npy").c_str());
      Result r = run(args);
      ASSERT_EQ(r.status, 0) << backend << " " << choice << ":\n" << r.err;
      EXPECT_NE(r.err.find("ran kernel 'dot' from mm.tck on " + backend), std::string::npos) << r.err;
      EXPECT_NE(r.err.find(*choice ? "its only configuration" : "tuned now"), std::string::npos) << r.err;
      expectMatmul(d, backend + " " + choice);
    }
  }
  // `tune` prints the table of the file's configurations.
  std::vector<std::string> tune = matmulRunArgs("mm.tck", d);
  tune[0] = "tune";
  tune.insert(tune.end(), {"--backend", "interp", "--quiet"});
  Result t = run(tune);
  ASSERT_EQ(t.status, 0) << t.err;
  EXPECT_NE(t.out.find("TM=16 num_warps=4 num_stages=3"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("TM=32 num_warps=4 num_stages=3"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("best: TM="), std::string::npos) << t.out;
}

TEST_F(CliAotTest, BadFilesAndRequestsAreOneClearError) {
  std::mt19937_64 rng(freshSeed());
  MatmulData d = writeMatmulInputs(rng);
  Result c = run({"compile", kMatmul, "-DTYPE=float", "-DTM=32", "-DTN=32", "-DTK=8", "--target", "interp", "-o",
                  "mm.tck", "--quiet"});
  ASSERT_EQ(c.status, 0) << c.err;
  EXPECT_EQ(c.err, "");
  const std::string bytes = readTextFile(path("mm.tck"));
  std::string flipped = bytes;
  flipped[bytes.size() / 2] = char(flipped[bytes.size() / 2] ^ 4);
  std::string v9 = bytes;
  v9[16] = '9';
  struct Bad {
    std::string name, contents, expected;
  };
  const Bad bad[] = {{"cut.tck", bytes.substr(0, bytes.size() / 3), "cut.tck: truncated"},
                     {"flip.tck", flipped, "flip.tck: damaged: the checksum does not match"},
                     {"v9.tck", v9, "v9.tck: format version 9"},
                     {"empty.tck", "", "empty.tck: the file is empty"},
                     {"text.tck", "hello\n", "not a .tck file"}};
  for (const Bad& b : bad) {
    write(b.name, b.contents);
    Result r = run(matmulRunArgs(b.name, d));
    EXPECT_EQ(r.status, 1) << b.name << ":\n" << r.err;
    EXPECT_EQ(r.err.rfind("tritonc: error: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(b.expected), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "more than one line:\n" << r.err;
  }
  std::vector<std::string> args = matmulRunArgs("mm.tck", d);
  args.push_back("-DTM=64");
  Result r = run(args);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("no configuration of kernel 'dot'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("num_warps=4 num_stages=3 (TYPE=float TM=32 TN=32 TK=8)"), std::string::npos) << r.err;
  args = matmulRunArgs("mm.tck", d);
  args.insert(args.end(), {"--backend", "gpu"});
  r = run(args);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("holds code for interp (1 entry)"), std::string::npos) << r.err;
  EXPECT_EQ(run({"run", "missing.tck", "--grid", "1"}).status, 1);
  EXPECT_NE(run({"emit", "mm.tck", "--stage", "ir"}).err.find("holds compiled code"), std::string::npos);

  // compile's own mistakes.
  struct BadCompile {
    std::vector<std::string> args;
    std::string expected;
  };
  const BadCompile badCompiles[] = {
      {{"compile", kMatmul, "-DTYPE=float", "-DTM=32", "-DTN=32", "-DTK=8"}, "compile needs -o FILE.tck"},
      {{"compile", kMatmul, "-DTYPE=float", "-DTM=32", "-DTN=32", "-DTK=8", "--target", "tpu", "-o", "x.tck"},
       "unknown target 'tpu'"},
      {{"compile", kMatmul, "-DTYPE=float", "-DTM=32", "-DTN=32", "-DTK=8", "--arg", "M=big", "-o", "x.tck"},
       "--arg M=big"},
      {{"compile", kMatmul, "-DTYPE=float", "-DTM=32", "-DTN=32", "-DTK=8", "--arg", "A=3", "-o", "x.tck"},
       "no integer parameter 'A'"},
      {{"compile", kMatmul, "-DTYPE=float", "-DTM=[32, 33]", "-DTN=32", "-DTK=8", "--target", "interp", "-o",
        "x.tck"},
       "skipped TM=33"},
      {{"compile", kMatmul, "-DTYPE=float", "-DTM=33", "-DTN=32", "-DTK=8", "--target", "interp", "-o", "x.tck"},
       "power of two"},
  };
  for (const BadCompile& b : badCompiles) {
    Result bc = run(b.args);
    EXPECT_NE(bc.err.find(b.expected), std::string::npos) << "expected '" << b.expected << "':\n" << bc.err;
    EXPECT_NE(bc.status, -1) << bc.err;
  }
}

// The command a GPU fault report gives runs the same launch on the
// interpreter, which names the out-of-bounds access's line and column.
TEST_F(CliAotTest, TheFaultReportsCommandFindsTheAccess) {
  const std::string kernel = write("over.tc",
                                   "__global__ void over(float* x, float* y, int n) {\n"
                                   "  int off[32] = get_program_id(0) * 32 + 0 ... 32;\n"
                                   "  *(y + off) = *(x + off + FAR);\n"
                                   "}\n");
  runtime::Config config;
  config.values = {{"FAR", "7"}};
  interp::Buffer x, y;
  x.elem = y.elem = ir::Scalar::F32;
  x.data.resize(64 * 4);
  y.data.resize(64 * 4);
  std::vector<runtime::Param> params = {{"x", ir::Type::pointer(ir::Scalar::F32)},
                                        {"y", ir::Type::pointer(ir::Scalar::F32)},
                                        {"n", ir::Type::scalar(ir::Scalar::I32)}};
  std::string command = runtime::interpreterCommand(kernel, "over", config, params,
                                                    {interp::KernelArg::ofBuffer(&x), interp::KernelArg::ofBuffer(&y),
                                                     interp::KernelArg::ofInt(64)},
                                                    interp::Grid{2, 1, 1});
  ASSERT_EQ(command.rfind("tritonc run ", 0), 0u) << command;
  std::string shell = "cd " + quote(dir_) + " && " + quote(kBinary) + command.substr(7) + " >" +
                      quote(path("out.txt")) + " 2>" + quote(path("err.txt"));
  int raw = std::system(shell.c_str());
  EXPECT_TRUE(WIFEXITED(raw) && WEXITSTATUS(raw) == 1) << shell;
  std::string err = readTextFile(path("err.txt"));
  EXPECT_TRUE(std::regex_search(err, std::regex("over\\.tc:3:[0-9]+: error: out-of-bounds"))) << shell << "\n" << err;
}

// On a GPU host (skipped elsewhere): the round trip for the GPU's own
// architecture, and a fault in one configuration of a tuned kernel reported
// once, naming it, with the interpreter's command.
TEST_F(CliAotTest, GpuRoundTripAndTunerFault) {
  std::string noGpu;
  const std::string arch = nvptx::gpuArch(&noGpu);
  if (arch.empty()) GTEST_SKIP() << "no GPU: " << noGpu;
  const uint64_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  MatmulData d = writeMatmulInputs(rng);
  Result c = run({"compile", kMatmul, "-DTYPE=float", "-DTM=[16, 32]", "-DTN=32", "-DTK=8", "--target", arch,
                  "--num-warps", "1,4", "-o", "mm.tck"});
  ASSERT_EQ(c.status, 0) << c.err;
  for (const char* choice : {"-DTM=32", ""}) {
    std::vector<std::string> args = matmulRunArgs("mm.tck", d);
    args.insert(args.end(), {"--backend", "gpu"});
    if (*choice) args.push_back(choice);
    Result r = run(args);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("from mm.tck on " + arch), std::string::npos) << r.err;
    expectMatmul(d, std::string("gpu ") + choice);
  }

  // FAR=1 << 30 reads 4 GiB past x: an illegal address.
  const std::string far = write("far.tc",
                                "__global__ void far(float* x, float* y, int n) {\n"
                                "  int off[32] = get_program_id(0) * 32 + 0 ... 32;\n"
                                "  *(y + off) = *(x + off + FAR);\n"
                                "}\n");
  Result f = run({"tune", far, "-DFAR=[0, 1073741824]", "--grid", "2", "--arg", "x=rand:f32:64", "--arg",
                  "y=zeros:f32:64", "--arg", "n=64", "--backend", "gpu", "--cache-dir", "none"});
  EXPECT_EQ(f.status, 1) << f.out << f.err;
  EXPECT_NE(f.err.find("kernel 'far' faulted on the GPU in configuration FAR=1073741824 num_warps=4 num_stages=3 while "
                       "tuning"),
            std::string::npos)
      << f.err;
  EXPECT_NE(f.err.find("tritonc run " + far + " -DFAR=1073741824 --num-warps 4 --num-stages 3 --kernel far "
                       "--backend interp --grid 2,1,1 --arg x=rand:f32:64 --arg y=rand:f32:64 --arg n=64"),
            std::string::npos)
      << f.err;
  EXPECT_EQ(f.err.find("faulted", f.err.find("faulted") + 1), std::string::npos) << "reported twice:\n" << f.err;
  EXPECT_EQ(f.err.find("allocating"), std::string::npos) << f.err;
}

}  // namespace
}  // namespace kernel_test
