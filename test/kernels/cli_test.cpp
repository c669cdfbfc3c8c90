// End-to-end tests of the `tritonc` command line: it is run as a process,
// its stdout and stderr captured to files of a per-test temporary folder.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <regex>

#include "cli_fixture.h"
#include "support/float16.h"
#include "support/npy.h"

namespace kernel_test {
namespace {

const std::string kVectorAdd = kRoot + "/examples/vector_add.tc";

std::vector<std::string> vectorAddArgs(const std::vector<std::string>& extra, const std::string& grid = "8") {
  std::vector<std::string> a = {"run", kVectorAdd, "--grid", grid};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

TEST_F(CliTest, RunVectorAddFromNpyFiles) {
  const uint64_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-10, 10);
  const int n = 256;
  std::vector<float> a(n), b(n);
  for (int i = 0; i < n; ++i) a[size_t(i)] = dist(rng), b[size_t(i)] = dist(rng);
  writeFloats("in_a.npy", a);
  writeFloats("in_b.npy", b);
  Result r = run(vectorAddArgs({"--arg", "N=256", "--arg", "a=@in_a.npy", "--arg", "b=@in_b.npy", "--arg",
                                "c=zeros:f32:256", "--save", "c=out.npy"}));
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<float> c = readFloats("out.npy");
  ASSERT_EQ(c.size(), size_t(n));
  for (int i = 0; i < n; ++i) EXPECT_EQ(c[size_t(i)], a[size_t(i)] + b[size_t(i)]) << "c[" << i << "]";
}

// GPU IR as `emit --stage gpu-ir` prints it, saved as .tgir (or .tir), is
// read back as IR: emitted again unchanged (no pass runs on it unless named)
// and run on the interpreter (the default where there is no GPU: the CPU
// back end takes Triton-IR only, and says so when asked).
TEST_F(CliTest, GpuIrFilesRunAndEmitAsTheyAre) {
  Result r = run({"emit", kVectorAdd, "--stage", "gpu-ir"});
  ASSERT_EQ(r.status, 0) << r.err;
  {
    std::ofstream(path("add.tgir")) << r.out;
  }
  Result again = run({"emit", "add.tgir", "--stage", "gpu-ir"});
  ASSERT_EQ(again.status, 0) << again.err;
  auto body = [](const std::string& t) { return t.substr(t.find('\n')); };  // past the `source` line
  EXPECT_EQ(body(again.out), body(r.out));
  Result ptx = run({"emit", "add.tgir", "--stage", "ptx"});
  ASSERT_EQ(ptx.status, 0) << ptx.err;
  EXPECT_NE(ptx.out.find("ld.global"), std::string::npos);
  std::mt19937_64 rng(freshSeed());
  std::uniform_real_distribution<float> dist(-10, 10);
  std::vector<float> a(256), b(256);
  for (size_t i = 0; i < a.size(); ++i) a[i] = dist(rng), b[i] = dist(rng);
  writeFloats("in_a.npy", a);
  writeFloats("in_b.npy", b);
  Result ran = run({"run", "add.tgir", "--backend", "interp", "--grid", "8", "--arg", "N=256", "--arg", "a=@in_a.npy",
                    "--arg", "b=@in_b.npy", "--arg", "c=zeros:f32:256", "--save", "c=out.npy"});
  ASSERT_EQ(ran.status, 0) << ran.err;
  std::vector<float> c = readFloats("out.npy");
  ASSERT_EQ(c.size(), a.size());
  for (size_t i = 0; i < c.size(); ++i) EXPECT_EQ(c[i], a[i] + b[i]) << "c[" << i << "]";
  Result cpu = run({"run", "add.tgir", "--backend", "cpu", "--grid", "8", "--arg", "N=256", "--arg", "a=@in_a.npy",
                    "--arg", "b=@in_b.npy", "--arg", "c=zeros:f32:256"});
  EXPECT_NE(cpu.status, 0);
  EXPECT_NE(cpu.err.find("GPU IR runs on the GPU or the interpreter"), std::string::npos) << cpu.err;
  Result named = run({"emit", "add.tgir", "--stage", "gpu-ir", "--passes=constfold"});
  EXPECT_NE(named.status, 0);
  EXPECT_NE(named.err.find("works on Triton-IR"), std::string::npos) << named.err;
}

// Shared memory in GPU IR written by hand: a buffer past the function's
// shared(N), or off its alignment, is the input's error, named.
TEST_F(CliTest, GpuIrBuffersStayInTheirSharedMemory) {
  Result r = run({"emit", kRoot + "/examples/matmul.tc", "-DTYPE=half", "-DTM=64", "-DTN=64", "-DTK=32", "--stage",
                  "gpu-ir"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex(R"(shared\((\d+)\))"))) << r.out;
  {
    std::ofstream(path("small.tgir")) << std::regex_replace(r.out, std::regex(R"(shared\(\d+\))"), "shared(64)");
    std::ofstream(path("odd.tgir")) << std::regex_replace(r.out, std::regex(R"(\{smem = 0)"), "{smem = 3",
                                                          std::regex_constants::format_first_only);
  }
  Result small = run({"emit", "small.tgir", "--stage", "ptx"});
  EXPECT_NE(small.status, 0);
  EXPECT_NE(small.err.find("past the function's shared(64)"), std::string::npos) << small.err;
  Result odd = run({"emit", "odd.tgir", "--stage", "ptx"});
  EXPECT_NE(odd.status, 0);
  EXPECT_NE(odd.err.find("at {smem = 3} is not"), std::string::npos) << odd.err;
  // The two rings, live through the same loop, placed over each other.
  std::string text = r.out;
  std::vector<std::string> offsets;
  const std::regex alloc(R"(local_alloc : [^\n]*\{smem = (\d+))");
  for (std::sregex_iterator it(text.begin(), text.end(), alloc), end; it != end; ++it)
    offsets.push_back((*it)[1]);
  ASSERT_GE(offsets.size(), 2u) << text;
  ASSERT_NE(offsets[0], offsets[1]);
  std::ofstream(path("overlap.tgir")) << std::regex_replace(text, std::regex("\\{smem = " + offsets[1] + "\\}"),
                                                            "{smem = " + offsets[0] + "}");
  Result overlap = run({"emit", "overlap.tgir", "--stage", "ptx"});
  EXPECT_NE(overlap.status, 0);
  EXPECT_NE(overlap.err.find("share bytes while both are live"), std::string::npos) << overlap.err;
  // As printed, the placement is accepted.
  std::ofstream(path("same.tgir")) << text;
  Result same = run({"emit", "same.tgir", "--stage", "ptx"});
  EXPECT_EQ(same.status, 0) << same.err;
}

// A GPU target tritonc emits no code for is refused, by emit as by compile
// (an unknown name used to go into the PTX's .target line).
TEST_F(CliTest, UnknownGpuTargetsAreRefused) {
  for (const char* target : {"bogus", "sm_75", "sm_100"}) {
    Result r = run({"emit", kVectorAdd, "--stage", "ptx", "--target", target});
    EXPECT_NE(r.status, 0) << target;
    EXPECT_NE(r.err.find(std::string("unknown GPU target '") + target + "'"), std::string::npos) << r.err;
  }
  Result ok = run({"emit", kVectorAdd, "--stage", "ptx", "--target", "sm_86"});
  ASSERT_EQ(ok.status, 0) << ok.err;
  EXPECT_NE(ok.out.find(".target sm_86"), std::string::npos);
  Result pack = run({"compile", kVectorAdd, "--target", "sm_75", "-o", "k.tck"});
  EXPECT_NE(pack.status, 0);
  EXPECT_NE(pack.err.find("unknown GPU target 'sm_75'"), std::string::npos) << pack.err;
}

// -Denable_fp_fusion=0 (Triton's option) rounds each f32 product and sum:
// `.rn` on them, so ptxas contracts nothing; by default the product and its
// sum are one fma (gpu-contract-fma).
TEST_F(CliTest, FpFusionOffRoundsEachOperation) {
  const std::string file = write("ma.tc",
                                 "__global__ void k(float* x, float* y) {\n  int i[64] = 0 ... 64;\n"
                                 "  float* px[64] = x + i;\n  float* py[64] = y + i;\n  *py = *px * 3.0f + *py;\n}\n");
  Result off = run({"emit", file, "--stage", "ptx", "--target", "sm_90a", "-Denable_fp_fusion=0"});
  ASSERT_EQ(off.status, 0) << off.err;
  EXPECT_NE(off.out.find("mul.rn.f32"), std::string::npos) << off.out;
  EXPECT_NE(off.out.find("add.rn.f32"), std::string::npos) << off.out;
  EXPECT_EQ(off.out.find("fma.rn.f32"), std::string::npos) << off.out;
  // On (the default): the product and its sum are one fma, in the GPU IR too.
  Result on = run({"emit", file, "--stage", "ptx", "--target", "sm_90a"});
  ASSERT_EQ(on.status, 0) << on.err;
  EXPECT_NE(on.out.find("fma.rn.f32"), std::string::npos) << on.out;
  EXPECT_EQ(on.out.find("mul.f32"), std::string::npos) << on.out;
  EXPECT_EQ(on.out.find("add.rn.f32"), std::string::npos) << on.out;
  Result gpuIr = run({"emit", file, "--stage", "gpu-ir", "--target", "sm_90a"});
  ASSERT_EQ(gpuIr.status, 0) << gpuIr.err;
  EXPECT_NE(gpuIr.out.find(" = fma "), std::string::npos) << gpuIr.out;
  Result gpuIrOff = run({"emit", file, "--stage", "gpu-ir", "--target", "sm_90a", "-Denable_fp_fusion=0"});
  ASSERT_EQ(gpuIrOff.status, 0) << gpuIrOff.err;
  EXPECT_EQ(gpuIrOff.out.find(" = fma "), std::string::npos) << gpuIrOff.out;
  Result bad = run({"emit", file, "--stage", "ptx", "-Denable_fp_fusion=2"});
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.err.find("enable_fp_fusion must be 0 or 1, got '2'"), std::string::npos) << bad.err;
}

// The other configuration values: -Dmaxnreg=N caps registers (.maxnreg on
// the entry instead of .minnctapersm), -Denable_reflect_ftz=0 keeps exp's
// subnormal results (ex2.approx.f32, not .ftz); bad values are refused.
TEST_F(CliTest, MaxnregAndReflectFtzConfigureThePtx) {
  const std::string file = write("e.tc",
                                 "__global__ void k(float* x, float* y) {\n  int i[64] = 0 ... 64;\n"
                                 "  float* px[64] = x + i;\n  float* py[64] = y + i;\n  *py = exp(*px);\n}\n");
  Result plain = run({"emit", file, "--stage", "ptx", "--target", "sm_90a"});
  ASSERT_EQ(plain.status, 0) << plain.err;
  EXPECT_NE(plain.out.find("ex2.approx.ftz.f32"), std::string::npos) << plain.out;
  EXPECT_NE(plain.out.find(".minnctapersm"), std::string::npos) << plain.out;
  EXPECT_EQ(plain.out.find(".maxnreg"), std::string::npos) << plain.out;
  Result set = run({"emit", file, "--stage", "ptx", "--target", "sm_90a", "-Dmaxnreg=40", "-Denable_reflect_ftz=0"});
  ASSERT_EQ(set.status, 0) << set.err;
  EXPECT_NE(set.out.find(".maxnreg 40\n{"), std::string::npos) << set.out;
  EXPECT_EQ(set.out.find(".minnctapersm"), std::string::npos) << set.out;
  EXPECT_NE(set.out.find("ex2.approx.f32"), std::string::npos) << set.out;
  EXPECT_EQ(set.out.find("ex2.approx.ftz"), std::string::npos) << set.out;
  Result bad = run({"emit", file, "--stage", "ptx", "-Dmaxnreg=300"});
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.err.find("maxnreg must be a number of registers from 1 to 255, got '300'"), std::string::npos)
      << bad.err;
}

// -DNAME alone defines NAME as 1, as C compilers do (it was empty, and the
// error came at its use).
TEST_F(CliTest, ADefineWithoutValueIsOne) {
  {
    std::ofstream(path("flag.tc")) << "__global__ void f(int* p) {\n#ifdef FLAG\n  *p = FLAG + 41;\n#endif\n}\n";
  }
  Result r = run({"run", "flag.tc", "--backend", "interp", "--grid", "1", "-DFLAG", "--arg", "p=zeros:i32:1", "--save",
                  "p=out.npy"});
  ASSERT_EQ(r.status, 0) << r.err;
  tritonc::NpyArray out = tritonc::readNpy(path("out.npy"));
  ASSERT_EQ(out.descr, "<i4");
  ASSERT_EQ(out.data.size(), 4u);
  int32_t v = 0;
  std::memcpy(&v, out.data.data(), 4);
  EXPECT_EQ(v, 42);
}

// A folder given as the kernel file, and lists for emit (which shows one
// configuration), are refused saying so.
TEST_F(CliTest, FoldersAndEmitListsAreRefused) {
  Result folder = run({"emit", kRoot + "/examples", "--stage", "ir"});
  EXPECT_NE(folder.status, 0);
  EXPECT_NE(folder.err.find("is a directory, not a kernel file"), std::string::npos) << folder.err;
  Result list = run({"emit", kVectorAdd, "--stage", "ptx", "--num-warps", "4,8"});
  EXPECT_NE(list.status, 0);
  EXPECT_NE(list.err.find("emit shows one configuration"), std::string::npos) << list.err;
}

TEST_F(CliTest, RandAndZerosSpecs) {
  auto once = [&](const std::string& suffix) {
    Result r = run(vectorAddArgs({"--arg", "N=128", "--arg", "a=rand:f32:128", "--arg", "b=zeros:f32:128", "--arg",
                                  "c=rand:f32:128", "--seed", "7", "--save", "a=a" + suffix + ".npy", "--save",
                                  "c=c" + suffix + ".npy"},
                                 "4"));
    EXPECT_EQ(r.status, 0) << r.err;
  };
  once("1");
  once("2");
  std::vector<float> a = readFloats("a1.npy"), c = readFloats("c1.npy");
  ASSERT_EQ(a.size(), 128u);
  EXPECT_EQ(c, a);  // c = a + 0
  bool nonzero = false;
  for (float x : a) {
    EXPECT_TRUE(x >= -1 && x <= 1) << x;
    nonzero = nonzero || x != 0;
  }
  EXPECT_TRUE(nonzero) << "rand: produced only zeros";
  EXPECT_EQ(readFloats("a2.npy"), a) << "--seed 7 twice gave different rand: data";
}

TEST_F(CliTest, MissingArgumentIsNamed) {
  Result r = run(vectorAddArgs({"--arg", "N=256", "--arg", "a=zeros:f32:256", "--arg", "c=zeros:f32:256"}));
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("missing argument 'b'"), std::string::npos) << r.err;
}

TEST_F(CliTest, UnknownArgumentIsNamed) {
  Result r = run(vectorAddArgs({"--arg", "N=256", "--arg", "a=zeros:f32:256", "--arg", "b=zeros:f32:256", "--arg",
                                "c=zeros:f32:256", "--arg", "bogus=1"}));
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("'bogus'"), std::string::npos) << r.err;
}

TEST_F(CliTest, IllTypedArgumentsAreNamed) {
  writeFloats("half.npy", std::vector<float>(256, 1.0f), /*half=*/true);
  struct Bad { std::vector<std::string> args; std::string name; };
  const Bad bad[] = {
      {{"--arg", "N=1.5", "--arg", "a=zeros:f32:256"}, "'N'"},           // float literal for an int
      {{"--arg", "N=zeros:i32:4", "--arg", "a=zeros:f32:256"}, "'N'"},   // buffer for a scalar
      {{"--arg", "N=256", "--arg", "a=@half.npy"}, "'a'"},               // f16 file for an f32 pointer
      {{"--arg", "N=256", "--arg", "a=3"}, "'a'"},                       // scalar for a pointer
      {{"--arg", "N=99999999999", "--arg", "a=zeros:f32:256"}, "'N'"},  // beyond i32: not cut to 32 bits
  };
  for (const Bad& b : bad) {
    std::vector<std::string> args = b.args;
    for (const char* s : {"b=zeros:f32:256", "c=zeros:f32:256"}) args.insert(args.end(), {"--arg", s});
    Result r = run(vectorAddArgs(args));
    EXPECT_NE(r.status, 0) << b.args[1] << " " << b.args[3];
    EXPECT_NE(r.err.find("argument " + b.name), std::string::npos) << r.err;
  }
  Result r = run(vectorAddArgs({"--arg", "N=256", "--arg", "a=@half.npy", "--arg", "b=zeros:f32:256", "--arg",
                                "c=zeros:f32:256"}));
  EXPECT_NE(r.err.find("f16"), std::string::npos) << r.err;
  r = run(vectorAddArgs({"--arg", "N=4294967296", "--arg", "a=zeros:f32:256", "--arg", "b=zeros:f32:256", "--arg",
                         "c=zeros:f32:256"}));
  EXPECT_NE(r.err.find("4294967296 does not fit in i32"), std::string::npos) << r.err;
}

TEST_F(CliTest, DefineListNotesTheFirstValue) {
  Result r = run({"emit", kRoot + "/examples/vector_add_param.tc", "-DSIZE=[64, 128]", "-DTYPE=float", "--stage", "ir"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("note:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("SIZE"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("uses 64"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("range 0 : i32<64>"), std::string::npos) << r.out;
}

// `tritonc tune` times every configuration (SIZE x num_warps) and prints the
// table and the best; `run` with the same lists reuses the tuning from the
// cache and computes the right sum with the chosen configuration.
TEST_F(CliTest, TuneThenRunWithTheTunedConfiguration) {
  const std::string cache = path("cache");
  std::vector<std::string> common = {kRoot + "/examples/vector_add_param.tc", "-DSIZE=[32, 64, 128]", "-DTYPE=float",
                                     "--num-warps", "1,2", "--grid", "N/SIZE", "--arg", "N=1024",
                                     "--arg", "a=rand:f32:1024", "--arg", "b=rand:f32:1024", "--arg", "c=zeros:f32:1024",
                                     "--cache-dir", cache, "--backend", "interp"};
  std::vector<std::string> tune = {"tune"};
  tune.insert(tune.end(), common.begin(), common.end());
  Result t = run(tune);
  ASSERT_EQ(t.status, 0) << t.err;
  for (const char* size : {"SIZE=32 ", "SIZE=64 ", "SIZE=128 "})
    for (const char* warps : {"num_warps=1", "num_warps=2"})
      EXPECT_NE(t.out.find(std::string(size) + warps), std::string::npos) << size << warps << " missing:\n" << t.out;
  EXPECT_NE(t.out.find("best: SIZE="), std::string::npos) << t.out;
  EXPECT_NE(t.err.find("configuration 6 of 6"), std::string::npos) << "no progress lines:\n" << t.err;

  std::vector<std::string> runArgs = {"run"};
  runArgs.insert(runArgs.end(), common.begin(), common.end());
  for (const char* save : {"a=a.npy", "b=b.npy", "c=c.npy"}) {
    runArgs.push_back("--save");
    runArgs.push_back(save);
  }
  Result r = run(runArgs);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("tuning from the disk cache"), std::string::npos) << r.err;
  interp::Buffer a = interp::loadBufferFromNpy(path("a.npy"), "a"), b = interp::loadBufferFromNpy(path("b.npy"), "b"),
                 c = interp::loadBufferFromNpy(path("c.npy"), "c");
  for (int64_t i = 0; i < 1024; ++i)
    ASSERT_EQ(interp::readElement(c, i), double(float(interp::readElement(a, i)) + float(interp::readElement(b, i))))
        << "element " << i;
}

TEST_F(CliTest, TuneErrorsAreClear) {
  Result r = run({"tune", kRoot + "/examples/vector_add_param.tc", "-DSIZE=[32, 64]", "-DTYPE=float", "--grid", "N/NOPE",
                  "--arg", "N=64", "--arg", "a=rand:f32:64", "--arg", "b=rand:f32:64", "--arg", "c=zeros:f32:64",
                  "--cache-dir", "none", "--backend", "interp"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("NOPE"), std::string::npos) << r.err;
  r = run({"tune", kRoot + "/examples/vector_add_param.tc", "-DSIZE=[32, 64]", "-DTYPE=float", "--grid", "N/SIZE+1",
           "--arg", "N=64", "--cache-dir", "none"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("--grid"), std::string::npos) << r.err;
}

// Every case of the table emits its AST and IR through the CLI.
TEST_F(CliTest, EmitEveryExample) {
  for (const Case& c : allCases()) {
    for (const char* stage : {"ast", "ir"}) {
      std::vector<std::string> args = {"emit", kRoot + "/" + c.file, "--stage", stage};
      for (const lang::Define& d : c.defines) args.push_back("-D" + d.name + "=" + d.value);
      Result r = run(args);
      EXPECT_EQ(r.status, 0) << c.name << " --stage " << stage << ":\n" << r.err;
      EXPECT_FALSE(r.out.empty()) << c.name << " --stage " << stage;
      if (std::string(stage) == "ir") {
        EXPECT_NE(r.out.find("kernel @"), std::string::npos) << c.name;
      }
    }
  }
}

// The compile report: the source with the decisions in the margin (a
// masked matmul as launched with 4096s), and the same as JSON.
TEST_F(CliTest, EmitReportAnnotatesTheSource) {
  std::vector<std::string> base = {"emit",       kRoot + "/bench/kernels/matmul_masked.tc", "--stage", "report",
                                   "-DTYPE=half", "-DTM=128", "-DTN=256", "-DTK=64", "--num-warps", "8",
                                   "--arg",       "K=4096", "--arg", "N=4096", "--arg", "lda=4096", "--arg", "ldb=4096",
                                   "--arg",       "M=4096", "--arg", "ldc=4096"};
  Result r = run(base);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(c \+= a @ b; +\| wgmma m64n256k16)"))) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(checka \? \*pa : 0; +\| TMA 128x64 f16 box into a 4-stage ring)"))) << r.out;
  EXPECT_NE(r.out.find("occupancy: "), std::string::npos);
  base.push_back("--json");
  Result j = run(base);
  ASSERT_EQ(j.status, 0) << j.err;
  EXPECT_NE(j.out.find(R"("instruction": "wgmma")"), std::string::npos) << j.out;
  Result bad = run({"emit", kRoot + "/examples/matmul.tc", "--stage", "report", "-DTYPE=half", "-DTM=64", "-DTN=64",
                    "-DTK=16", "--arg", "nope=3"});
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.err.find("'nope'"), std::string::npos) << bad.err;
}

// num_ctas: --num-ctas 2 (or -Dnum_ctas=2, the runtime's tuning macro)
// multicasts B's boxes of the masked matmul to pairs of programs; 1 and
// the default do not; other values are refused.
TEST_F(CliTest, NumCtasTwoMulticastsTheSharedCopies) {
  const std::vector<std::string> base = {"emit",  kRoot + "/bench/kernels/matmul_masked.tc", "--stage", "ptx",
                                         "-DTYPE=half", "-DTM=128", "-DTN=256", "-DTK=64", "--num-warps", "8",
                                         "--arg", "K=1760", "--arg", "N=7000", "--arg", "lda=1760", "--arg",
                                         "ldb=7000", "--arg", "M=1760", "--arg", "ldc=7000", "--target", "sm_90a"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = base;
    a.insert(a.end(), extra.begin(), extra.end());
    return run(a);
  };
  const std::string mark = "tile.mbarrier::complete_tx::bytes.multicast::cluster";
  for (const auto& extra : {std::vector<std::string>{"--num-ctas", "2"}, std::vector<std::string>{"-Dnum_ctas=2"}}) {
    Result r = with(extra);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find(mark), std::string::npos) << extra[0];
    EXPECT_NE(r.out.find("// tritonc: cluster_x 2"), std::string::npos) << extra[0];
  }
  for (const auto& extra : {std::vector<std::string>{}, std::vector<std::string>{"--num-ctas", "1"}}) {
    Result r = with(extra);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out.find("multicast"), std::string::npos);
    EXPECT_EQ(r.out.find("cluster_x"), std::string::npos);
  }
  Result bad = with({"--num-ctas", "3"});
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.err.find("--num-ctas must be 1, 2 or 4"), std::string::npos) << bad.err;
  // The compile report says so: from --num-ctas, and a -D given wins.
  auto report = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = base;
    a[3] = "report";
    a.insert(a.end(), extra.begin(), extra.end());
    return run(a);
  };
  Result rep = report({"--num-ctas", "2"});
  ASSERT_EQ(rep.status, 0) << rep.err;
  EXPECT_NE(rep.out.find("multicast: programs launched in pairs"), std::string::npos) << rep.out;
  // Pairs get a producer warp (gpu-warp-specialize), which the report names.
  EXPECT_NE(rep.out.find("issued by a producer warp"), std::string::npos) << rep.out;
  EXPECT_NE(rep.out.find("8 warps and a producer warp, 288 threads"), std::string::npos) << rep.out;
  Result repOne = report({"-Dnum_ctas=1", "--num-ctas", "2"});
  ASSERT_EQ(repOne.status, 0) << repOne.err;
  EXPECT_EQ(repOne.out.find("multicast"), std::string::npos) << repOne.out;
  if (!std::getenv("TRITONC_WARP_SPECIALIZE"))  // (=1 gives a program alone one too)
    EXPECT_EQ(repOne.out.find("producer"), std::string::npos) << repOne.out;
  Result badMacro = with({"-Dnum_ctas=3"});
  EXPECT_EQ(badMacro.status, 1);
  EXPECT_NE(badMacro.err.find("num_ctas must be 1, 2 (programs paired in clusters along x) or 4"), std::string::npos)
      << badMacro.err;
  // 4: A's boxes to pairs along y too, in clusters of 2 x 2, which the report says.
  for (const auto& extra : {std::vector<std::string>{"--num-ctas", "4"}, std::vector<std::string>{"-Dnum_ctas=4"}}) {
    Result r = with(extra);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("// tritonc: cluster_y 2"), std::string::npos) << extra[0];
  }
  Result rep4 = report({"--num-ctas", "4"});
  ASSERT_EQ(rep4.status, 0) << rep4.err;
  EXPECT_NE(rep4.out.find("multicast: programs launched in pairs along y"), std::string::npos) << rep4.out;
}

TEST_F(CliTest, SyntaxErrorShowsLocationSourceAndCaret) {
  std::ofstream(path("bad.tc")) << "__global__ void k(int N) {\n  int x = 1 +;\n}\n";
  Result r = run({"emit", "bad.tc", "--stage", "ir"});
  EXPECT_EQ(r.status, 1);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.err, m, std::regex("bad\\.tc:2:([0-9]+): error: [^\n]+\n  int x = 1 \\+;\n( *)\\^")))
      << r.err;
  EXPECT_EQ(std::stoul(m[1]), m[2].length() + 1) << "the caret is not under the column:\n" << r.err;
}

TEST_F(CliTest, OutOfBoundsRunPrintsTheReport) {
  const std::string source = readTextFile(kVectorAdd);
  const size_t lineStart = source.rfind('\n', source.find("*(a + off)")) + 1;
  const size_t col = source.find("*(a + off)") - lineStart + 1;
  const size_t line = size_t(std::count(source.begin(), source.begin() + long(lineStart), '\n')) + 1;
  // The report is the interpreter's (the default back end on a GPU host is the GPU).
  Result r = run(vectorAddArgs({"--backend", "interp", "--arg", "N=128", "--arg", "a=rand:f32:128", "--arg",
                                "b=rand:f32:128", "--arg", "c=zeros:f32:128"},
                               "5"));
  EXPECT_EQ(r.status, 1);
  const std::string where = "vector_add.tc:" + std::to_string(line) + ":" + std::to_string(col) + ": error: ";
  EXPECT_NE(r.err.find(where + "out-of-bounds load in kernel 'add': program (4, 0, 0), tile element [0]"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("'a'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("\n" + std::string(col - 1, ' ') + "^"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace kernel_test
