// Every example's PTX, for sm_80 and sm_90a and several num_warps, is
// accepted by ptxas, and `ptxas -v` reports no spills at the default
// num_warps (4). Runs without a GPU
// (CI has the CUDA toolkit); skipped, saying so, where ptxas is absent.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "kernel_test_util.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "lang/compile.h"
#include "target/interp/interpreter.h"
#include "runtime/optimize_for_launch.h"
#include "target/nvptx/codegen.h"
#include "target/nvptx/occupancy_fallback.h"
#include "transform/pass_manager.h"

namespace kernel_test {
namespace {

std::string findPtxas() {
  for (const char* p : {"/usr/local/cuda/bin/ptxas", "/usr/bin/ptxas"})
    if (std::ifstream(p).good()) return p;
  if (std::system("command -v ptxas > /dev/null 2>&1") == 0) return "ptxas";
  return "";
}

// Runs ptxas on `ptx`; returns its exit status and fills `log` with its output.
int assemble(const std::string& ptxas, const std::string& ptx, const std::string& arch, const std::string& tag,
             std::string& log) {
  std::string base = ::testing::TempDir() + "tritonc_ptx_" + tag;
  { std::ofstream(base + ".ptx") << ptx; }
  std::string cmd = ptxas + " -arch=" + arch + " -v " + base + ".ptx -o " + base + ".cubin > " + base + ".log 2>&1";
  int rc = std::system(cmd.c_str());
  std::ifstream in(base + ".log");
  log.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return rc;
}

class PtxTest : public ::testing::TestWithParam<const Case*> {};

TEST_P(PtxTest, AssemblesWithoutSpills) {
  static const std::string ptxas = findPtxas();
  if (ptxas.empty()) GTEST_SKIP() << "ptxas not found: PTX not assembled";
  const Case& c = *GetParam();
  struct Config {
    const char* arch;
    int warps;
  };
  for (Config cfg : {Config{"sm_80", c.numWarps}, Config{"sm_80", 2}, Config{"sm_90a", c.numWarps}, Config{"sm_90a", 8}}) {
    SCOPED_TRACE(c.name + " " + cfg.arch + " num_warps=" + std::to_string(cfg.warps));
    lang::CompileResult compiled = compileOrThrow(c);
    std::mt19937_64 rng(1);
    Launch launch = c.build(paramsFor(c, Preset::Test, compiled), rng);
    runtime::specializeAndOptimize(*compiled.module, *compiled.module->functions()[0], runtime::factsOf(launch.args),
                                   transform::PipelineOptions::kDefaultNumStages, true);
    nvptx::TargetOptions to;
    to.arch = cfg.arch;
    to.numWarps = cfg.warps;
    std::string ptx = nvptx::emitPtx(*compiled.module, to);
    std::string log;
    const std::string tag = c.name + "_" + cfg.arch + "_" + std::to_string(cfg.warps);
    int rc = assemble(ptxas, ptx, cfg.arch, tag, log);
    ASSERT_EQ(rc, 0) << "ptxas rejected the PTX:\n" << log;
    auto spillsOf = [](const std::string& log) {
      size_t at = log.find(" bytes spill stores");
      if (at == std::string::npos) return -1L;
      size_t start = log.rfind(' ', at - 1) + 1;
      return std::strtol(log.c_str() + start, nullptr, 10);
    };
    long spills = spillsOf(log);
    ASSERT_GE(spills, 0) << log;
    // Asked for more programs than its registers allow, the launch loads the
    // PTX asking for the fallback (occupancy_fallback.h): that one counts.
    const std::string fallback = nvptx::withFallbackOccupancy(ptx, compiled.module->functions()[0]->name());
    if (spills > 0 && !fallback.empty()) {
      ASSERT_EQ(assemble(ptxas, fallback, cfg.arch, tag + "_fallback", log), 0) << log;
      spills = spillsOf(log);
    }
    // Spills are a performance bug at the case's num_warps (4 unless its
    // tiles need more); with fewer warps each thread holds more elements and
    // small spills are tolerated.
    if (cfg.warps == c.numWarps) {
      EXPECT_EQ(spills, 0) << log;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, PtxTest, ::testing::ValuesIn(casePointers()), caseTestName);

// The seed's matmul on sm_90a (8 warps), end to end to PTX: with TM=128
// TN=128 TK=64 and num_stages 3 the wgmmas are pipelined (wait for the
// previous group in the loop, for all at the exit) on three ring stages of
// 32 KB, the stage of the previous group refilled once it is retired (an
// extra stage would leave room for one program per multiprocessor instead
// of two; TRITONC_REUSE_STAGE=0 takes it); with TN=256 and num_stages 4
// the extra stage does not fit, and the stage is reused the same way.
// (test/ir/cases/gpu-pipeline.tc checks the decisions themselves, in the
// GPU IR.)
std::string matmulPtx(const std::string& tn, int numStages) {
  std::string path = std::string(TRITONC_SOURCE_DIR) + "/examples/matmul.tc";
  lang::CompileOptions co;
  co.filename = path;
  co.defines = {{"TYPE", "half"}, {"TM", "128"}, {"TN", tn}, {"TK", "64"}};
  lang::CompileResult r = lang::compileSource(readTextFile(path), co);
  // Launched with 16-byte-aligned pointers and sizes that are multiples of 16.
  std::vector<runtime::ArgFacts> facts(3, runtime::ArgFacts{true, 256, 0, false});
  facts.resize(9, runtime::ArgFacts{false, 0, 4096, true});
  runtime::specializeAndOptimize(*r.module, *r.module->functions()[0], facts, numStages, true);
  nvptx::TargetOptions to;
  to.arch = "sm_90a";
  to.numWarps = 8;
  return nvptx::emitPtx(*r.module, to);
}

TEST(PipelinedWgmma, WaitsForThePreviousGroupInTheLoopAndForAllAtTheExit) {
  std::string ptx = matmulPtx("128", 3);
  size_t inLoop = ptx.find("wgmma.wait_group.sync.aligned 1;");
  size_t exit = ptx.find("wgmma.wait_group.sync.aligned 0;");
  ASSERT_NE(inLoop, std::string::npos) << ptx;
  ASSERT_NE(exit, std::string::npos);
  EXPECT_LT(inLoop, exit);
  // Only the exit waits for every group: nothing is in flight after it.
  EXPECT_EQ(ptx.find("wgmma.wait_group.sync.aligned 0;", exit + 1), std::string::npos);
  // The exit waits before the epilogue reads the accumulator.
  size_t exitLabel = ptx.rfind("$L_", exit);
  EXPECT_NE(ptx.substr(exitLabel, 12).find("for_end"), std::string::npos) << ptx.substr(exitLabel, 40);
  EXPECT_NE(ptx.find("dynamic_shared_bytes 98304"), std::string::npos);  // 3 stages x 32 KB
  static const std::string ptxas = findPtxas();
  if (ptxas.empty()) GTEST_SKIP() << "ptxas not found: PTX not assembled";
  std::string log;
  ASSERT_EQ(assemble(ptxas, ptx, "sm_90a", "pipelined_wgmma", log), 0) << log;
  EXPECT_EQ(log.find("serialized"), std::string::npos) << log;  // ptxas keeps the wgmmas asynchronous
}

TEST(PipelinedWgmma, TheExtraStageWhenAskedFor) {
  setenv("TRITONC_REUSE_STAGE", "0", 1);
  std::string ptx = matmulPtx("128", 3);
  unsetenv("TRITONC_REUSE_STAGE");
  EXPECT_NE(ptx.find("wgmma.wait_group.sync.aligned 1;"), std::string::npos);
  EXPECT_NE(ptx.find("dynamic_shared_bytes 131072"), std::string::npos);  // 4 stages x 32 KB
}

TEST(PipelinedWgmma, AStageReusedWhenTheExtraOneDoesNotFit) {
  std::string ptx = matmulPtx("256", 4);  // 5 stages of 48 KB would exceed 227 KB
  EXPECT_NE(ptx.find("wgmma.wait_group.sync.aligned 1;"), std::string::npos);
  EXPECT_NE(ptx.find("dynamic_shared_bytes 196608"), std::string::npos);  // 4 stages x 48 KB
}

// print and assert become vprintf and __assertfail calls that ptxas accepts,
// for values in every kind of layout (blocked with replicated elements, an
// mma accumulator, scalars) and every element kind.
TEST(DebugOpsPtx, PrintAndAssertAssemble) {
  const char* const kDebug = R"(source "dbg.py"

kernel @k(%a: f16*, %c: f32*, %q: i64*, %n: i32, %h: bf16*) {
entry:
  %r = range 0 : i32<16>
  %rows = reshape %r : i32<16, 1>
  %cols = reshape %r : i32<1, 16>
  %sixteen = splat i32 16 : i32<16, 1>
  %r16 = mul %rows, %sixteen : i32<16, 1>
  %rb = broadcast %r16 : i32<16, 16>
  %cb = broadcast %cols : i32<16, 16>
  %offs = add %rb, %cb : i32<16, 16>
  %ap = splat %a : f16*<16, 16>
  %aptrs = gep %ap, %offs : f16*<16, 16>
  %x = load %aptrs : f16<16, 16>
  %zero = splat f32 0 : f32<16, 16>
  %acc = dot %x, %x, %zero : f32<16, 16>
  print " acc: ", %acc
  %few = range 0 : i32<8>
  %nn = splat %n : i32<8>
  %small = cmp lt %few, %nn : i1<8>
  %qp = splat %q : i64*<8>
  %qptrs = gep %qp, %few : i64*<8>
  %big = load %q : i64
  %hv = load %h : bf16
  %i8 = cast %few : i8<8>
  print " mixed: ", %small, %qptrs, %big, %hv, %i8, %x
  print hex " bits: ", %acc, %x, %big, %hv, %i8, %small
  print " 100% of the programs"
  %ok = cmp lt %acc, %zero : i1<16, 16>
  assert %ok, "acc < 0" loc(12:5)
  %pos = cmp gt %n, i32 0 : i1
  assert %pos, "" loc(13:5)
  %cp = splat %c : f32*<16, 16>
  %cptrs = gep %cp, %offs : f32*<16, 16>
  store %cptrs, %acc
  ret
}
)";
  static const std::string ptxas = findPtxas();
  for (const char* arch : {"sm_80", "sm_90a"})
    for (int warps : {1, 4}) {
      SCOPED_TRACE(std::string(arch) + " num_warps=" + std::to_string(warps));
      lang::CompileOptions co;
      co.language = lang::Language::TritonIr;
      lang::CompileResult r = lang::compileSource(kDebug, co);
      nvptx::TargetOptions to;
      to.arch = arch;
      to.numWarps = warps;
      std::string ptx = nvptx::emitPtx(*r.module, to);
      EXPECT_NE(ptx.find(".extern .func (.param .b32 vprintf_status) vprintf("), std::string::npos);
      EXPECT_NE(ptx.find("call (vprintf_status), vprintf, (vprintf_format, vprintf_args);"), std::string::npos);
      EXPECT_NE(ptx.find("call __assertfail, ("), std::string::npos);
      EXPECT_NE(ptx.find(".local .align 8 .b8 printbuf["), std::string::npos);
      // The located message of the first assertion, as a C string: "dbg.py:12:5: error: ..."
      std::string message = "dbg.py:12:5: error: device assertion failed: acc < 0 (kernel 'k', program (%d, %d, %d), "
                            "tile element [%d, %d])\n";
      std::string bytes;
      for (unsigned char ch : message) bytes += std::to_string(unsigned(ch)) + ", ";
      EXPECT_NE(ptx.find(bytes + "0};"), std::string::npos);
      if (ptxas.empty()) continue;
      std::string log;
      ASSERT_EQ(assemble(ptxas, ptx, arch, std::string("debug_ops_") + arch + "_" + std::to_string(warps), log), 0)
          << log << ptx;
    }
  if (ptxas.empty()) GTEST_SKIP() << "ptxas not found: PTX not assembled";
}

// Kernels as users write them reach the fast paths (issue 14): compiled as a
// launch with these integer arguments would be (pointers 16-byte aligned),
// for sm_90a, they contain what each path must (wgmma, cp.async, vector
// reductions), and ptxas reports no spills.
struct UserKernel {
  const char* name;
  const char* file;
  std::vector<lang::Define> defines;
  std::vector<std::pair<std::string, int64_t>> ints;  // integer arguments by name
  int warps;
  std::vector<std::string> contains;
  int minCopies = 0;  // cp.async instructions at least (both operands' copies, every stage)
};

std::string userKernelPtx(const UserKernel& k, const nvptx::TargetOptions* options = nullptr,
                          const std::string& arch = "sm_90a") {
  std::string path = std::string(TRITONC_SOURCE_DIR) + "/" + k.file;
  lang::CompileOptions co;
  co.filename = path;
  co.defines = k.defines;
  lang::CompileResult r = lang::compileSource(readTextFile(path), co);
  ir::Function& fn = *r.module->functions()[0];
  std::vector<runtime::ArgFacts> facts(fn.arguments().size());
  for (size_t a = 0; a < facts.size(); ++a) {
    facts[a].isPointer = fn.argument(a)->type().isPtr();
    facts[a].address = facts[a].isPointer ? 256 : 0;
    for (auto& [name, v] : k.ints)
      if (fn.argument(a)->name() == name) facts[a].isInt = true, facts[a].value = v;
  }
  runtime::specializeAndOptimize(*r.module, fn, facts, 3, true);
  nvptx::TargetOptions to;
  to.multicast = true;  // num_ctas = 2: the copies pairs of programs share are multicast
  if (options) to = *options;
  to.arch = arch;
  to.numWarps = k.warps;
  return nvptx::emitPtx(*r.module, to);
}

class UserKernelTest : public ::testing::TestWithParam<UserKernel> {};

TEST_P(UserKernelTest, TakesTheFastPathWithoutSpills) {
  const UserKernel& k = GetParam();
  std::string ptx = userKernelPtx(k);
  for (const std::string& what : k.contains) EXPECT_NE(ptx.find(what), std::string::npos) << k.name << " lacks " << what;
  int copies = 0;
  for (size_t at = ptx.find("cp.async.cg.shared.global"); at != std::string::npos;
       at = ptx.find("cp.async.cg.shared.global", at + 1))
    ++copies;
  EXPECT_GE(copies, k.minCopies) << k.name;
  static const std::string ptxas = findPtxas();
  if (ptxas.empty()) GTEST_SKIP() << "ptxas not found: PTX not assembled";
  std::string log;
  ASSERT_EQ(assemble(ptxas, ptx, "sm_90a", std::string("user_") + k.name, log), 0) << log;
  EXPECT_NE(log.find(" 0 bytes spill stores"), std::string::npos) << log;
  EXPECT_EQ(log.find("serialized"), std::string::npos) << log;
}

const std::vector<std::pair<std::string, int64_t>> kSquare = {{"M", 4096}, {"N", 4096}, {"K", 4096},
                                                              {"lda", 4096}, {"ldb", 4096}, {"ldc", 4096}};
const std::vector<std::pair<std::string, int64_t>> kOdd = {{"M", 4095}, {"N", 4095}, {"K", 4095},
                                                           {"lda", 4095}, {"ldb", 4095}, {"ldc", 4095}};
const std::vector<std::pair<std::string, int64_t>> kRagged = {{"M", 1760}, {"N", 7000}, {"K", 1760},
                                                              {"lda", 1760}, {"ldb", 7000}, {"ldc", 7000}};

INSTANTIATE_TEST_SUITE_P(
    Sm90a, UserKernelTest,
    ::testing::Values(
        UserKernel{"masked_matmul", "bench/kernels/matmul_masked.tc",
                   {{"TYPE", "half"}, {"TM", "128"}, {"TN", "256"}, {"TK", "64"}}, kSquare, 8,
                   // B's boxes multicast to the pair of programs along M (gpu-multicast), the slot
                   // released over the cluster; its 128 x 256 accumulator needs the registers
                   {"wgmma.mma_async", "cp.async.bulk.tensor.2d", "mbarrier.try_wait.parity",
                    "wgmma.wait_group.sync.aligned 1;", "st.global.v4", ".minnctapersm 1",
                    "tile.mbarrier::complete_tx::bytes.multicast::cluster", "barrier.cluster.wait.acquire.aligned",
                    "// tritonc: cluster_x 2"}},
        UserKernel{"masked_matmul_ragged", "bench/kernels/matmul_masked.tc",
                   {{"TYPE", "half"}, {"TM", "128"}, {"TN", "128"}, {"TK", "64"}}, kRagged, 8,
                   {"wgmma.mma_async", "cp.async.bulk.tensor.2d"}},
        // Triton's tutorial matmul in Triton-C (grouped ordering, indices
        // wrapped by % M and % N: no bound for a tensor map, so cp.async rings).
        UserKernel{"grouped_matmul", "bench/kernels/matmul_grouped.tc",
                   {{"TYPE", "half"}, {"TM", "128"}, {"TN", "256"}, {"TK", "64"}, {"GROUP_M", "8"}},
                   {{"M", 4096}, {"N", 4096}, {"K", 4096}, {"stride_am", 4096}, {"stride_ak", 1}, {"stride_bk", 4096},
                    {"stride_bn", 1}, {"stride_cm", 4096}, {"stride_cn", 1}},
                   8, {"wgmma.mma_async", "cp.async.cg.shared.global", "wgmma.wait_group.sync.aligned 1;"}, 36},
        UserKernel{"masked_matmul_nt_bf16", "bench/kernels/matmul_masked_nt.tc",
                   {{"TYPE", "bf16"}, {"TM", "128"}, {"TN", "128"}, {"TK", "64"}}, kSquare, 8,
                   {"wgmma.mma_async", "cp.async.bulk.tensor.2d"}},
        // x @ w.T at 1000^3 in pairs: B's boxes (128 x 64, K contiguous, one
        // swizzle block wide) split between the pair by rows, through a map of
        // half-height boxes, with a producer warp as for the NN matmul.
        UserKernel{"masked_matmul_nt_pairs", "bench/kernels/matmul_masked_nt.tc",
                   {{"TYPE", "half"}, {"TM", "64"}, {"TN", "128"}, {"TK", "64"}},
                   {{"M", 1000}, {"N", 1000}, {"K", 1000}, {"lda", 1000}, {"ldb", 1000}, {"ldc", 1000}}, 4,
                   {"wgmma.mma_async", "// tritonc: producer_warps 1", "// tritonc: cluster_x 2",
                    "tile.mbarrier::complete_tx::bytes.multicast::cluster",
                    "tensor_map 1 dtype=f16 base=1 ld=7 rows=4 cols=5 box=64,64 swizzle=128"}},
        UserKernel{"conv_nhwc", "examples/conv_nhwc.tc",
                   {{"TYPE", "half"}, {"TM", "128"}, {"TN", "128"}, {"TK", "64"}},
                   {{"B", 4}, {"C", 128}, {"H", 56}, {"W", 56}, {"K", 256}, {"P", 54}, {"Q", 54}, {"R", 3}, {"S", 3},
                    {"pad_h", 0}, {"pad_w", 0}},
                   8, {"wgmma.mma_async", "cp.async.cg.shared.global [%r", ", 16, %r"},
                   // A and B, 4 copies of 16 bytes per thread each, for 3 stages (two ahead, one in the loop)
                   24},
        // Rows only 2-byte aligned (4095): element loads, whose addresses
        // at constant distances along a row are immediates of one register;
        // 256 x 128 tiles then fit in 255 registers without spills.
        UserKernel{"masked_matmul_odd_rows", "bench/kernels/matmul_masked.tc",
                   {{"TYPE", "half"}, {"TM", "256"}, {"TN", "128"}, {"TK", "32"}}, kOdd, 8,
                   {"wgmma.mma_async", "ld.global.b16"}},
        UserKernel{"split_k", "examples/matmul_splitk.tc",
                   {{"TYPE", "half"}, {"TM", "64"}, {"TN", "128"}, {"TK", "64"}, {"SPLIT", "8"}},
                   {{"M", 512}, {"N", 512}, {"K", 8192}, {"lda", 8192}, {"ldb", 512}, {"ldc", 512}}, 4,
                   {"wgmma.mma_async", "cp.async.cg.shared.global", "red.global.gpu.relaxed.add.v4.f32"}},
        UserKernel{"attention", "examples/attention.tc",
                   {{"TYPE", "half"}, {"BM", "128"}, {"BN", "64"}, {"HEAD", "64"}, {"CAUSAL", "1"}}, {{"L", 4096}}, 8,
                   // two programs per multiprocessor fit: ptxas keeps to 128 registers, without spills
                   {"wgmma.mma_async", "cp.async.cg.shared.global", "ex2.approx.ftz.f32", ".minnctapersm 2"}},
        // p @ v runs on across the latch: the loop waits for it (0) before
        // reading acc, and for the previous group (1) after issuing it.
        UserKernel{"attention_4_warps", "examples/attention.tc",
                   {{"TYPE", "half"}, {"BM", "128"}, {"BN", "64"}, {"HEAD", "64"}, {"CAUSAL", "0"}}, {{"L", 4096}}, 4,
                   {"wgmma.mma_async", "wgmma.wait_group.sync.aligned 1;", "ex2.approx.ftz.f32"}}),
    [](const ::testing::TestParamInfo<UserKernel>& i) { return std::string(i.param.name); });

// On sm_80, mma.sync reads its f16 operands from shared memory with
// ldmatrix in every layout of matmul_fused.tc: .trans where the memory rows
// run along M or N (^a, and B stored K x N), as they are where they run
// along K (A stored M x K, ^b); no operand element by element (the
// epilogue's ld.shared are the same in every layout).
TEST(Sm80Dot, EveryOperandLayoutReadsWithLdmatrix) {
  auto count = [](const std::string& ptx, const std::regex& re) {
    return std::distance(std::sregex_iterator(ptx.begin(), ptx.end(), re), std::sregex_iterator());
  };
  long epilogueLoads = -1;
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      std::vector<lang::Define> d = {{"TYPE", "half"}, {"TM", "128"}, {"TN", "128"}, {"TK", "32"}};
      for (auto& m : examples::fusedMacros(ta, tb)) d.push_back(m);
      std::string tag = std::string("fused_") + (ta ? "t" : "n") + (tb ? "t" : "n");
      std::string ptx = userKernelPtx(UserKernel{"fused", "examples/matmul_fused.tc", d,
                                                 {{"M", 4096}, {"N", 4096}, {"K", 4096}, {"lda", 4096}, {"ldb", 4096},
                                                  {"ldc", 4096}},
                                                 4, {}},
                                      nullptr, "sm_80");
      // 128 x 128 x 32 on 4 warps (2 x 2): per warp and k step, A's 64 x 32 is 4 x4 reads and B's 32 x 64 four.
      long plain = count(ptx, std::regex(R"(ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16)"));
      long trans = count(ptx, std::regex(R"(ldmatrix\.sync\.aligned\.m8n8\.x4\.trans\.shared\.b16)"));
      EXPECT_EQ(trans, (ta ? 8 : 0) + (tb ? 0 : 8)) << tag << "\n" << ptx;
      EXPECT_EQ(plain + trans, 16) << tag;
      long loads = count(ptx, std::regex(R"(ld\.shared)"));
      if (epilogueLoads < 0) epilogueLoads = loads;
      EXPECT_EQ(loads, epilogueLoads) << tag << ": operands read element by element";
      static const std::string ptxas = findPtxas();
      if (ptxas.empty()) continue;
      std::string log;
      EXPECT_EQ(assemble(ptxas, ptx, "sm_80", tag, log), 0) << log;
      EXPECT_NE(log.find(" 0 bytes spill stores"), std::string::npos) << log;
    }
}

// An f32 dot on the cores orders its FMAs in a serpentine (rows in order,
// columns back and forth), so that each FMA shares an operand with the one
// before it: ptxas reuses it (f32 4096^3 3.06 -> 2.93 ms on the H100).
TEST(FmaDot, EachFmaSharesAnOperandWithThePreviousOne) {
  std::string ptx = userKernelPtx(UserKernel{"f32", "bench/kernels/matmul_masked.tc",
                                             {{"TYPE", "float"}, {"TM", "128"}, {"TN", "256"}, {"TK", "32"}}, kSquare, 8,
                                             {}});
  std::regex fma(R"(fma\.rn\.f32 (%f\d+), (%f\d+), (%f\d+), (%f\d+);)");
  std::string prevA, prevB;
  int fmas = 0, shared = 0;
  for (auto it = std::sregex_iterator(ptx.begin(), ptx.end(), fma); it != std::sregex_iterator(); ++it) {
    std::string a = (*it)[2], b = (*it)[3];
    if (fmas++ && (a == prevA || b == prevB)) ++shared;
    prevA = a;
    prevB = b;
  }
  ASSERT_EQ(fmas, 128 * 256 * 32 / 256) << ptx;  // one k-loop body: 128 accumulators x 32 steps per thread
  // Only where one step's FMAs give way to the next step's (new operands) is nothing shared.
  EXPECT_EQ(shared, fmas - 32) << ptx;
}

// f32 products with tf32 inputs (allow_tf32): where both operands are
// loaded K-contiguous (x @ w.T, B stored N x K) they run on wgmma's tf32
// steps (K-major buffers only, filled by TMA); B stored K x N (N
// contiguous, which tf32 wgmma cannot read) keeps mma.sync's m16n8k8.
TEST(Tf32Dot, KContiguousOperandsRunOnWgmma) {
  nvptx::TargetOptions to;
  to.multicast = true;
  to.allowTf32 = true;
  for (const char* tile : {"128", "256"}) {
    std::string ptx = userKernelPtx(UserKernel{"tf32_nt", "bench/kernels/matmul_masked_nt.tc",
                                               {{"TYPE", "float"}, {"TM", "128"}, {"TN", tile}, {"TK", "32"}},
                                               kSquare, 8, {}},
                                    &to);
    std::string wgmma = std::string("wgmma.mma_async.sync.aligned.m64n") + tile + "k8.f32.tf32.tf32";
    EXPECT_NE(ptx.find(wgmma), std::string::npos) << tile << "\n" << ptx;
    EXPECT_NE(ptx.find("cp.async.bulk.tensor.2d"), std::string::npos) << tile;
    EXPECT_EQ(ptx.find("mma.sync"), std::string::npos) << tile;
    EXPECT_EQ(ptx.find("cvt.rna.tf32"), std::string::npos) << tile;  // the tensor cores read the f32 bits
    static const std::string ptxas = findPtxas();
    if (ptxas.empty()) continue;
    std::string log;
    EXPECT_EQ(assemble(ptxas, ptx, "sm_90a", std::string("tf32_nt_") + tile, log), 0) << log;
    EXPECT_NE(log.find(" 0 bytes spill stores"), std::string::npos) << log;
    EXPECT_EQ(log.find("serialized"), std::string::npos) << log;
  }
}

// The other layouts of tf32 operands: one not K-contiguous goes to wgmma
// from registers, rounded to tf32 (its A: ^a directly, B stored K x N in the
// transposed product C^T = B^T A^T, mma<v=3, transposed=1>), the other
// read K-major from shared memory; both not K-contiguous (^a @ b) keeps
// mma.sync. Every variant assembles, the wgmma ones without spills (this
// kernel holds its next operands in registers: not pipelined).
TEST(Tf32Dot, AnOperandNotKContiguousFromRegisters) {
  nvptx::TargetOptions to;
  to.multicast = true;
  to.allowTf32 = true;
  auto count = [](const std::string& ptx, const std::string& what) {
    size_t n = 0;
    for (size_t at = ptx.find(what); at != std::string::npos; at = ptx.find(what, at + 1)) ++n;
    return n;
  };
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (const char* tm : {"64", "128"}) {
        std::vector<lang::Define> d = {{"TYPE", "float"}, {"TM", tm}, {"TN", "128"}, {"TK", "32"}};
        for (auto& m : examples::fusedMacros(ta, tb)) d.push_back(m);
        std::string tag = std::string("tf32_fused_") + (ta ? "t" : "n") + (tb ? "t" : "n") + "_" + tm;
        std::string ptx = userKernelPtx(
            UserKernel{"fused", "examples/matmul_fused.tc", d,
                       {{"M", 4096}, {"N", 4096}, {"K", 4096}, {"lda", 4096}, {"ldb", 4096}, {"ldc", 4096}}, 8, {}},
            &to);
        // 8 warps: two warpgroups; per k step of 8, 64-row blocks of wgmma's M.
        std::string m = std::string(tm);
        if (ta && !tb) {  // neither operand K-contiguous
          EXPECT_EQ(count(ptx, "wgmma.mma_async"), 0u) << tag << "\n" << ptx;
          EXPECT_NE(ptx.find("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"), std::string::npos) << tag;
        } else {
          // wgmma's N: the warpgroups split wgmma's M (the dot's N when
          // transposed, nn), as far as it has 64-row blocks, then its N.
          std::string n = !ta && !tb ? m : m == "64" ? "64" : "128";
          std::string wgmma = "wgmma.mma_async.sync.aligned.m64n" + n + "k8.f32.tf32.tf32";
          EXPECT_NE(ptx.find(wgmma), std::string::npos) << tag << "\n" << ptx;
          EXPECT_EQ(ptx.find("mma.sync"), std::string::npos) << tag;
          // Register operands: each wgmma's A is four registers, rounded;
          // both from shared memory: none.
          bool registers = ta || !tb;
          EXPECT_EQ(count(ptx, wgmma + " {") > 0 && ptx.find("}, {%r") != std::string::npos, registers) << tag;
          EXPECT_EQ(ptx.find("cvt.rna.tf32.f32") != std::string::npos, registers) << tag;
        }
        static const std::string ptxas = findPtxas();
        if (ptxas.empty()) continue;
        std::string log;
        EXPECT_EQ(assemble(ptxas, ptx, "sm_90a", tag, log), 0) << log;
        if (ta && !tb) continue;
        EXPECT_NE(log.find(" 0 bytes spill stores"), std::string::npos) << tag << "\n" << log;
        EXPECT_EQ(log.find("serialized"), std::string::npos) << tag << "\n" << log;
      }
}

// TRITONC_REGISTER_PREFETCH=1: the masked matmul in f32 with tf32 inputs,
// B stored K x N (the transposed product's register operand), loads the
// next stage's registers between the issue of its wgmma and the wait for
// it; without the switch the loop waits for the previous group (1) after
// the issue and loads nothing in between. Both assemble without spills and
// with the wgmmas asynchronous.
TEST(Tf32Dot, TheRegisterOperandLoadedAheadWhenAsked) {
  nvptx::TargetOptions to;
  to.allowTf32 = true;
  for (bool ahead : {false, true}) {
    if (ahead) setenv("TRITONC_REGISTER_PREFETCH", "1", 1);
    std::string ptx = userKernelPtx(
        UserKernel{"tf32_nn", "bench/kernels/matmul_masked.tc", {{"TYPE", "float"}, {"TM", "256"}, {"TN", "128"}, {"TK", "32"}},
                   {{"M", 4096}, {"N", 4096}, {"K", 4096}, {"lda", 4096}, {"ldb", 4096}, {"ldc", 4096}}, 8, {}},
        &to);
    unsetenv("TRITONC_REGISTER_PREFETCH");
    const std::string tag = ahead ? "ahead" : "not ahead";
    size_t issue = ptx.find("wgmma.commit_group.sync.aligned;");
    ASSERT_NE(issue, std::string::npos) << tag << "\n" << ptx;
    size_t wait = ptx.find("wgmma.wait_group.sync.aligned", issue);
    ASSERT_NE(wait, std::string::npos) << tag;
    const std::string between = ptx.substr(issue, wait - issue);
    EXPECT_EQ(ptx.substr(wait, 32), std::string("wgmma.wait_group.sync.aligned ") + (ahead ? "0;" : "1;")) << tag;
    EXPECT_EQ(between.find("ld.shared") != std::string::npos, ahead) << tag << "\n" << between;
    static const std::string ptxas = findPtxas();
    if (ptxas.empty()) continue;
    std::string log;
    ASSERT_EQ(assemble(ptxas, ptx, "sm_90a", "tf32_nn_" + std::string(ahead ? "ahead" : "plain"), log), 0) << log;
    EXPECT_NE(log.find(" 0 bytes spill stores"), std::string::npos) << tag << "\n" << log;
    EXPECT_EQ(log.find("serialized"), std::string::npos) << tag << "\n" << log;
  }
}

// The PTX for sm_90a (4 warps, 3 stages) of a Triton-C kernel whose
// `pointers` arguments are all 16-byte aligned pointers.
std::string sourcePtx(const char* source, size_t pointers, const std::vector<lang::Define>& defines = {}) {
  lang::CompileOptions co;
  co.defines = defines;
  lang::CompileResult r = lang::compileSource(source, co);
  std::vector<runtime::ArgFacts> facts(pointers, runtime::ArgFacts{true, 256, 0, false});
  runtime::specializeAndOptimize(*r.module, *r.module->functions()[0], facts, 3, true);
  nvptx::TargetOptions to;
  to.arch = "sm_90a";
  return nvptx::emitPtx(*r.module, to);
}

// ptxas accepts `ptx` for sm_90a (the test is marked skipped, saying so,
// where ptxas is absent).
void expectAssembles(const std::string& ptx, const std::string& tag) {
  static const std::string ptxas = findPtxas();
  if (ptxas.empty()) GTEST_SKIP() << "ptxas not found: PTX not assembled";
  std::string log;
  EXPECT_EQ(assemble(ptxas, ptx, "sm_90a", tag, log), 0) << log;
}

// A loop fed by the tensor memory accelerator: its stages' phases come from
// phis (no i32 division, which ptxas expands into a reciprocal and a dozen
// dependent instructions in every iteration), and without cp.async copies
// it commits and waits for no groups.
// The masked matmul at 1000^3 (rows 16-byte aligned: TMA), TM x 128 x 64
// tiles on 4 warps, B's boxes multicast where pairs share them.
std::string masked1000Ptx(const std::string& tm, const nvptx::TargetOptions* options = nullptr) {
  return userKernelPtx(UserKernel{"mm1000", "bench/kernels/matmul_masked.tc",
                                  {{"TYPE", "half"}, {"TM", tm}, {"TN", "128"}, {"TK", "64"}},
                                  {{"M", 1000}, {"N", 1000}, {"K", 1000}, {"lda", 1000}, {"ldb", 1000}, {"ldc", 1000}},
                                  4, {}},
                       options);
}

TEST(TmaLoop, NoDivisionAndNoCpAsyncGroups) {
  std::string ptx = masked1000Ptx("128");
  ASSERT_NE(ptx.find("cp.async.bulk.tensor.2d"), std::string::npos) << ptx;
  // In the loops (the prologue divides once: gpu-program-order's grouped
  // ids; the producer warp's copy of the body has a loop of its own).
  size_t loops = 0;
  for (size_t at = ptx.find("$L_for_cond"); at != std::string::npos; at = ptx.find("$L_for_cond", at + 1)) {
    const size_t end = ptx.find("$L_for_end", at);
    ASSERT_NE(end, std::string::npos) << ptx;
    EXPECT_FALSE(std::regex_search(ptx.substr(at, end - at), std::regex(R"((div|rem)\.[su](32|64))"))) << ptx;
    ++loops;
  }
  EXPECT_GE(loops, 1u) << ptx;
  EXPECT_EQ(ptx.find("cp.async.wait_group"), std::string::npos) << ptx;
  EXPECT_EQ(ptx.find("cp.async.commit_group"), std::string::npos) << ptx;
}

// The tensor copies and their mbarriers' announcements are issued by the
// thread of warp 0 that elect.sync picks, under predicates built from it by
// and.pred alone (a multicast copy's half too): ptxas then issues each copy
// once, where a `tid == 0` predicate (or an xor.pred of it) made it wrap
// every copy in a loop over the warp's threads (ELECT ... BRA.U.ANY).
TEST(TmaLoop, CopiesIssuedByAnElectedThread) {
  std::string ptx = masked1000Ptx("64");
  ASSERT_NE(ptx.find(".multicast::cluster"), std::string::npos) << ptx;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(ptx, m, std::regex(R"(elect\.sync _\|(%p\d+), 0xffffffff;)"))) << ptx;
  // Which predicates derive from the elected one (through and.pred only).
  std::set<std::string> fromElected = {m[1].str()};
  std::regex andPred(R"(and\.pred (%p\d+), !?(%p\d+), !?(%p\d+);)");
  for (auto it = std::sregex_iterator(ptx.begin(), ptx.end(), andPred); it != std::sregex_iterator(); ++it)
    if (fromElected.count((*it)[2].str()) || fromElected.count((*it)[3].str())) fromElected.insert((*it)[1].str());
  int issued = 0;
  std::regex issue(R"(@(%p\d+) (cp\.async\.bulk\.tensor|mbarrier\.arrive\.expect_tx|mbarrier\.init))");
  for (auto it = std::sregex_iterator(ptx.begin(), ptx.end(), issue); it != std::sregex_iterator(); ++it, ++issued)
    EXPECT_TRUE(fromElected.count((*it)[1].str())) << (*it)[0].str() << " is not issued by the elected thread";
  EXPECT_GT(issued, 0) << ptx;
  EXPECT_EQ(ptx.find("xor.pred"), std::string::npos) << ptx;
  expectAssembles(ptx, "tma_elected_issuer");
}

// The copies of iterations past the loop's end (the pre-fetching's guards,
// the copies' issue predicate) are not made: under the guard's negation the
// issuer only arrives on the stage's mbarrier, which completes its phase
// without bytes, so neither the TMA unit nor the exit's waits spend time on
// boxes outside the tensor. Each copy's announcement has that arrive beside
// it, on the same barrier, under the complementary predicate.
TEST(TmaLoop, CopiesPastTheEndAreNotIssued) {
  std::string ptx = masked1000Ptx("128");
  std::map<std::string, std::pair<std::string, std::string>> andOf;  // predicate -> (issuer, guard with its '!')
  std::regex andPred(R"(and\.pred (%p\d+), (%p\d+), (!?%p\d+);)");
  for (auto it = std::sregex_iterator(ptx.begin(), ptx.end(), andPred); it != std::sregex_iterator(); ++it)
    andOf[(*it)[1].str()] = {(*it)[2].str(), (*it)[3].str()};
  std::map<std::string, std::string> plainArrive;  // barrier register -> predicate
  std::regex arrive(R"(@(%p\d+) mbarrier\.arrive\.shared::cta\.b64 _, \[(%r\d+)\];)");
  for (auto it = std::sregex_iterator(ptx.begin(), ptx.end(), arrive); it != std::sregex_iterator(); ++it)
    plainArrive[(*it)[2].str()] = (*it)[1].str();
  int announced = 0;
  std::regex expect(R"(@(%p\d+) mbarrier\.arrive\.expect_tx\.shared::cta\.b64 _, \[(%r\d+)\])");
  for (auto it = std::sregex_iterator(ptx.begin(), ptx.end(), expect); it != std::sregex_iterator(); ++it, ++announced) {
    ASSERT_TRUE(andOf.count((*it)[1].str())) << (*it)[0].str();
    auto [issuer, guard] = andOf[(*it)[1].str()];
    ASSERT_TRUE(plainArrive.count((*it)[2].str())) << "no arrive without bytes beside " << (*it)[0].str();
    auto other = andOf[plainArrive[(*it)[2].str()]];
    EXPECT_EQ(other.first, issuer);
    EXPECT_EQ(other.second, "!" + guard) << (*it)[0].str();
  }
  EXPECT_EQ(announced, 6) << ptx;  // A and B: two stages before the loop (num_stages 3), one in it
}

// num_ctas = 4: A's boxes are multicast along y as B's are along x, in
// clusters of 2 x 2. Each axis's pair is found from %cluster_ctaid and named
// in the multicast mask by cluster rank (the partner along y nctaid.x
// further); the consumers free each stage at every program of the cluster
// (three others at most); the launch is told both axes.
TEST(TmaLoop, ClustersOfTwoByTwoShareAAlongY) {
  nvptx::TargetOptions to;
  to.setNumCtas("4");
  std::string ptx = masked1000Ptx("64", &to);
  EXPECT_NE(ptx.find("// tritonc: cluster_x 2"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("// tritonc: cluster_y 2"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("%cluster_ctaid.y"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("%cluster_ctaid.x"), std::string::npos) << ptx;
  int multicasts = 0, remoteArrives = 0;
  for (size_t at = ptx.find(".multicast::cluster"); at != std::string::npos; at = ptx.find(".multicast::cluster", at + 1))
    ++multicasts;
  for (size_t at = ptx.find("mbarrier.arrive.shared::cluster.b64"); at != std::string::npos;
       at = ptx.find("mbarrier.arrive.shared::cluster.b64", at + 1))
    ++remoteArrives;
  // A (one 128-byte block, halved by rows) and B (two blocks): 2 + 2 per
  // copy, 2 copies before the loop (num_stages 3) and one in it.
  EXPECT_EQ(multicasts, 12) << ptx;
  EXPECT_EQ(remoteArrives, 3) << ptx;
  // Only num_ctas = 2: no pairs along y.
  nvptx::TargetOptions pairs;
  pairs.setNumCtas("2");
  std::string x = masked1000Ptx("64", &pairs);
  EXPECT_EQ(x.find("// tritonc: cluster_y 2"), std::string::npos);
  EXPECT_EQ(x.find("%cluster_ctaid.y"), std::string::npos);
  EXPECT_THROW(to.setNumCtas("3"), UserError);
  static const std::string ptxas = findPtxas();
  if (ptxas.empty()) GTEST_SKIP() << "ptxas not found: PTX not assembled";
  std::string log;
  ASSERT_EQ(assemble(ptxas, ptx, "sm_90a", "clusters_2x2", log), 0) << log;
  EXPECT_NE(log.find(" 0 bytes spill stores"), std::string::npos) << log;
  EXPECT_EQ(log.find("serialized"), std::string::npos) << log;
}

// Warp specialization (gpu/warp_specialize.cpp): a pair's multicast copies
// get a producer warp by default. The launch is told (a line for the
// runtime, .maxntid of five warps); the warps after the program's four
// branch to the producer's copy of the body, which issues every tensor copy
// and no wgmma, where the consumers' copy issues wgmma and no copy and
// frees each stage at both programs' barriers, at the CTA scope (a
// .release.cluster arrive made ptxas wait for the wgmma in flight).
TEST(WarpSpecialization, PairsGetAProducerWarp) {
  std::string ptx = masked1000Ptx("64");
  ASSERT_NE(ptx.find("// tritonc: producer_warps 1"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find(".maxntid 160, 1, 1"), std::string::npos) << ptx;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(ptx, m, std::regex(R"(@%p\d+ bra\.uni (\$L_producer_\d+);)"))) << ptx;
  size_t split = ptx.find("\n" + m[1].str() + ":");
  ASSERT_NE(split, std::string::npos) << ptx;
  std::string consumers = ptx.substr(0, split), producer = ptx.substr(split);
  EXPECT_NE(consumers.find("wgmma.mma_async"), std::string::npos);
  EXPECT_EQ(consumers.find("cp.async.bulk.tensor"), std::string::npos);
  EXPECT_NE(consumers.find("mbarrier.arrive.shared::cluster.b64"), std::string::npos);
  EXPECT_NE(consumers.find("mapa.shared::cluster"), std::string::npos);
  EXPECT_NE(producer.find("cp.async.bulk.tensor"), std::string::npos);
  EXPECT_NE(producer.find(".multicast::cluster"), std::string::npos);
  EXPECT_EQ(producer.find("wgmma"), std::string::npos);
  EXPECT_EQ(ptx.find(".release.cluster.shared::cluster"), std::string::npos);
  // The consumers' barriers leave the producer out.
  EXPECT_EQ(producer.find("bar.sync 1,"), std::string::npos);
  // The pair meets over the cluster after the barriers' inits only. At the
  // end the producer drains instead: after its last copy it waits on a
  // free barrier once more, which passes when the last releases of both
  // programs' consumers have landed (with a relaxed barrier over the
  // cluster at the end, the 8192^3 pairs faulted within 150 launches).
  EXPECT_LT(consumers.rfind("barrier.cluster"), consumers.find("wgmma.mma_async"));
  EXPECT_LT(producer.rfind("barrier.cluster"), producer.find("cp.async.bulk.tensor"));
  const size_t lastCopy = producer.rfind("cp.async.bulk.tensor");
  EXPECT_NE(producer.find("mbarrier.try_wait.parity", lastCopy), std::string::npos) << producer.substr(lastCopy);
  expectAssembles(ptx, "warp_specialized_pairs");
}

// A program alone keeps its one warpgroup by default (a producer warp
// bought nothing there on the H100); TRITONC_WARP_SPECIALIZE=1's mode gives
// it one, =0's takes the pair's away.
TEST(WarpSpecialization, AProgramAloneOnlyWhenAsked) {
  nvptx::TargetOptions alone;
  alone.multicast = false;
  alone.warpSpecialize = transform::PipelineOptions::kPairs;
  EXPECT_EQ(masked1000Ptx("128", &alone).find("producer_warps"), std::string::npos);
  alone.warpSpecialize = transform::PipelineOptions::kEvery;
  std::string ptx = masked1000Ptx("128", &alone);
  EXPECT_NE(ptx.find("// tritonc: producer_warps 1"), std::string::npos) << ptx;
  EXPECT_EQ(ptx.find("mapa."), std::string::npos) << ptx;
  expectAssembles(ptx, "warp_specialized_alone");
  nvptx::TargetOptions never;
  never.multicast = true;
  never.warpSpecialize = transform::PipelineOptions::kNever;
  ptx = masked1000Ptx("64", &never);
  EXPECT_EQ(ptx.find("producer_warps"), std::string::npos);
  EXPECT_NE(ptx.find(".multicast::cluster"), std::string::npos);
}

// Integer division and remainder by a positive constant take no div or rem
// (lower_divide.cpp): shifts for a power of two, else a multiply-high; a
// negative divisor keeps rem. The values are checked on the GPU by
// python/tests/test_dsl_integer_division.py.
TEST(IntegerDivision, ByConstantsWithoutDivInstructions) {
  const char* kDivide = R"(
__global__ void k(int* X, long* Y, int* Q) {
  int i[128] = 0 ... 128;
  int x[128] = *(X + i);
  long y[128] = *(Y + i);
  *(Q + i) = x / 7 + x % 7 + x / 8 + x % 64 + (int)(y / 1000) + (int)(y % 16) + x % -3;
})";
  std::string ptx = sourcePtx(kDivide, 3);
  EXPECT_FALSE(std::regex_search(ptx, std::regex(R"(div\.[su](32|64))"))) << ptx;
  EXPECT_NE(ptx.find("mul.hi.s32"), std::string::npos) << ptx;  // by 7
  EXPECT_NE(ptx.find("mul.hi.s64"), std::string::npos) << ptx;  // by 1000
  EXPECT_NE(ptx.find("rem.s32"), std::string::npos) << ptx;     // by -3
  EXPECT_EQ(ptx.find("rem.s64"), std::string::npos) << ptx;
  expectAssembles(ptx, "divide_by_constant");
}

// By a divisor known only at run time, a quotient of zero's divisor is -1
// and a remainder the dividend (docs/IR.md): a selp after each div and rem
// under the divisor's setp. A shift takes its amount clamped (PTX clamps a
// u32 amount; an i64 one is clamped to 64 first). The values are checked on
// the GPU by python/tests/test_dsl_compat.py (division by zero, shifts).
TEST(IntegerDivision, ByZeroAndShiftsByTheWidthAreDefined) {
  const char* kDivide = R"(
__global__ void k(int* X, int* D, long* Y, long* S, int* Q, long* R) {
  int i[128] = 0 ... 128;
  int x[128] = *(X + i);
  int d[128] = *(D + i);
  long y[128] = *(Y + i);
  long s[128] = *(S + i);
  *(Q + i) = x / d + x % d + (x << d);
  *(R + i) = (y << s) + (y >> s);
})";
  std::string ptx = sourcePtx(kDivide, 3);
  EXPECT_TRUE(std::regex_search(ptx, std::regex(R"(div\.s32 (%r\d+)[^\n]*\n\s*setp\.eq\.s32 (%p\d+)[^\n]*\n\s*selp\.b32 \1, -1, \1, \2;)")))
      << ptx;
  EXPECT_TRUE(std::regex_search(ptx, std::regex(R"(rem\.s32 (%r\d+), (%r\d+),[^\n]*\n\s*setp\.eq\.s32 (%p\d+)[^\n]*\n\s*selp\.b32 \1, \2, \1, \3;)")))
      << ptx;
  EXPECT_NE(ptx.find("min.u64"), std::string::npos) << ptx;  // the i64 amounts
  expectAssembles(ptx, "divide_by_zero_and_shifts");
}

// exp2 is one ex2 (no scaling by log2 e, as exp has); log2 is float32
// arithmetic within an ulp (gpu-expand-f32-math), no lg2.approx.
TEST(MathPtx, Exp2IsOneInstructionAndLog2IsPrecise) {
  const char* kMath = R"(
__global__ void k(float* X, float* Y) {
  int i[128] = 0 ... 128;
  float x[128] = *(X + i);
  *(Y + i) = exp2(x) + log2(x);
})";
  std::string ptx = sourcePtx(kMath, 2);
  EXPECT_NE(ptx.find("ex2.approx.ftz.f32"), std::string::npos) << ptx;
  EXPECT_EQ(ptx.find("lg2.approx"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("fma.rn.f32"), std::string::npos) << ptx;
  expectAssembles(ptx, "exp2_log2");
}

// A dot of 64-bit integers sums in 64 bits on the FMA path (tritonc.ops.dot
// of int64 arrays); values: python/tests/test_tritonc.py on the GPU.
TEST(FmaDot, Int64SumsIn64Bits) {
  const char* kDot = R"(
__global__ void k(long* A, long* B, long* C) {
  int rm[16] = 0 ... 16;
  int rn[16] = 0 ... 16;
  int rk[8] = 0 ... 8;
  long a[16, 8] = *(A + rm[:, newaxis] * 8 + rk[newaxis, :]);
  long b[8, 16] = *(B + rk[:, newaxis] * 16 + rn[newaxis, :]);
  long c[16, 16] = 0;
  c = dot(a, b, c);
  *(C + rm[:, newaxis] * 16 + rn[newaxis, :]) = c;
})";
  std::string ptx = sourcePtx(kDot, 3);
  EXPECT_NE(ptx.find("mad.lo.s64"), std::string::npos) << ptx;
  expectAssembles(ptx, "int64_dot");
}

// Float remainder (fmod) is computed in f64 with one fma for x - q * y, so
// that it is exact for quotients below 2^53 (f32 x - trunc(x / y) * y lost
// the low bits of x when x / y was large). Values: the language suite's
// mod cases on the GPU (python/tests/test_dsl_language.py).
TEST(FloatRemainder, InF64WithOneFma) {
  const char* kRem = R"(
__global__ void k(float* X, float* Y, double* D) {
  int i[128] = 0 ... 128;
  *(X + i) = *(X + i) % *(Y + i);
  *(D + i) = *(D + i) % 3.5;
})";
  std::string ptx = sourcePtx(kRem, 3);
  EXPECT_NE(ptx.find("cvt.f64.f32"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("fma.rn.f64"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("copysign.f64"), std::string::npos) << ptx;
  EXPECT_EQ(ptx.find("div.rn.f32"), std::string::npos) << ptx;
  expectAssembles(ptx, "float_remainder");
}

// Narrow integers live sign-extended in 32-bit registers. Loads and stores
// of eight 16-bit ones as four 32-bit words convert each half (cvt), where
// f16 moves it; 8 or 16 bytes go as 32-bit words of four bytes each (PTX's
// byte vectors stop at 4); a transposition through shared memory does the
// same; a reduction across warps hands partial results over in whole words
// (4 bytes apart, not the element's size).
TEST(NarrowIntegerVectors, PackedAccessesAssemble) {
  const char* kNarrow = R"(
__global__ void k(TYPE* X, TYPE* Y, TYPE* Z) {
  int r[32] = 0 ... 32;
  int c[64] = 0 ... 64;
  TYPE x[32, 64] = *(X + r[:, newaxis] * 64 + c[newaxis, :]);
  *(Y + c[:, newaxis] * 32 + r[newaxis, :]) = ^x / 3;
  TYPE m[64] = x[max, :];
  *(Z + c) = m;
})";
  for (const char* type : {"short", "char"}) {
    SCOPED_TRACE(type);
    std::string ptx = sourcePtx(kNarrow, 3, {{"TYPE", type}});
    EXPECT_FALSE(std::regex_search(ptx, std::regex(R"(\.v(8|16)\.[su]8)"))) << ptx;
    if (std::string(type) == "short") {
      EXPECT_NE(ptx.find("ld.global.v4.b32"), std::string::npos) << ptx;
      EXPECT_NE(ptx.find("cvt.s32.s16"), std::string::npos) << ptx;
      EXPECT_NE(ptx.find("cvt.u16.u32"), std::string::npos) << ptx;
    }
    // The reduction's slots: 4 bytes apart.
    EXPECT_FALSE(std::regex_search(ptx, std::regex(R"(mad\.lo\.s32 (%r\d+), \1, [12], %r\d+;\n\s+@%p\d+ st\.shared\.b32)")))
        << ptx;
    expectAssembles(ptx, std::string("narrow_vectors_") + type);
  }
}

// Element-wise global accesses whose addresses lie at constant distances
// along a row of consecutive offsets (B's columns, C's columns) take them as
// address immediates of one register: one 64-bit multiply-add per row, not
// per element.
TEST(GlobalAddresses, ConstantDistancesAreImmediates) {
  std::string ptx = userKernelPtx(UserKernel{"odd", "bench/kernels/matmul_masked.tc",
                                             {{"TYPE", "half"}, {"TM", "128"}, {"TN", "128"}, {"TK", "64"}}, kOdd, 8,
                                             {}});
  auto count = [&](const std::string& pattern) {
    std::regex re(pattern);
    return std::distance(std::sregex_iterator(ptx.begin(), ptx.end(), re), std::sregex_iterator());
  };
  long loads = count(R"(ld\.global\.b16 %h\d+, \[%rd\d+\])"), loadsImm = count(R"(ld\.global\.b16 %h\d+, \[%rd\d+\+\d+\])");
  long stores = count(R"(st\.global\.b16 \[%rd\d+\])"), storesImm = count(R"(st\.global\.b16 \[%rd\d+\+\d+\])");
  // B (64 x 128, lanes along N): 4 columns per row at 32 elements apart.
  EXPECT_GT(loadsImm, 0) << ptx;
  EXPECT_GT(storesImm, 0) << ptx;
  EXPECT_LT(count(R"(mad\.wide\.s32)"), loads + loadsImm + stores + storesImm) << ptx;
}

// A reshape of a tile holding one element per thread is not a splat's: the
// elements move between threads, through shared memory after the reduction
// (the kernel of test/kernels/data/reshape_one_element_per_thread.tir).
// The PTX for sm_90a (4 warps, 3 stages) of a Triton-IR kernel of
// test/kernels/data, launched with these facts of its arguments.
std::string tirPtx(const std::string& name, const std::vector<runtime::ArgFacts>& facts,
                   const std::string& arch = "sm_90a") {
  std::string path = std::string(TRITONC_SOURCE_DIR) + "/test/kernels/data/" + name;
  lang::CompileOptions co;
  co.filename = path;
  co.language = lang::Language::TritonIr;
  lang::CompileResult r = lang::compileSource(readTextFile(path), co);
  runtime::specializeAndOptimize(*r.module, *r.module->functions()[0], facts, 3, true);
  nvptx::TargetOptions to;
  to.arch = arch;
  to.numWarps = 4;
  return nvptx::emitPtx(*r.module, to);
}

// Inline PTX: the assembly per element register with ours in $0, $1, ...;
// on the interpreter and the CPU back end, a located error; the IR text
// round-trips (test/kernels/data/inline_asm.tir).
TEST(InlineAsm, AssemblesWithOurRegisters) {
  std::vector<runtime::ArgFacts> facts(4, runtime::ArgFacts{true, 256, 0, false});
  for (const char* arch : {"sm_80", "sm_90a"}) {
    std::string ptx = tirPtx("inline_asm.tir", facts, arch);
    EXPECT_TRUE(std::regex_search(ptx, std::regex(R"(tanh\.approx\.f32 %f\d+, %f\d+;)"))) << ptx;
    EXPECT_TRUE(std::regex_search(ptx, std::regex(R"(mul\.hi\.u32 %r\d+, %r\d+, %r\d+;)"))) << ptx;
    EXPECT_TRUE(std::regex_search(ptx, std::regex(R"(mul\.rn\.f16 t, %h\d+, %h\d+; mov\.b16 %h\d+, t;)"))) << ptx;
    static const std::string ptxas = findPtxas();
    if (ptxas.empty()) GTEST_SKIP() << "ptxas not found: PTX not assembled";
    std::string log;
    EXPECT_EQ(assemble(ptxas, ptx, arch, "inline_asm", log), 0) << log;
  }
  std::string path = std::string(TRITONC_SOURCE_DIR) + "/test/kernels/data/inline_asm.tir";
  lang::CompileOptions co;
  co.filename = path;
  co.language = lang::Language::TritonIr;
  lang::CompileResult r = lang::compileSource(readTextFile(path), co);
  std::string text = ir::printModule(*r.module);
  EXPECT_NE(text.find("inline_asm pure \"tanh.approx.f32 $0, $1;\", %x : f32<128>"), std::string::npos) << text;
  EXPECT_NE(text.find("%m = inline_asm \"mul.hi.u32 $0, $1, $2;\", %i, %r"), std::string::npos) << text;
  EXPECT_EQ(ir::printModule(*ir::parseModule(text)), text);
  interp::Buffer X, Y, H, I;
  X.elem = Y.elem = ir::Scalar::F32, H.elem = ir::Scalar::F16, I.elem = ir::Scalar::I32;
  X.data.resize(512), Y.data.resize(512), H.data.resize(256), I.data.resize(512);
  std::vector<interp::KernelArg> args{interp::KernelArg::ofBuffer(&X), interp::KernelArg::ofBuffer(&Y),
                                      interp::KernelArg::ofBuffer(&H), interp::KernelArg::ofBuffer(&I)};
  try {
    interp::runKernel(*r.module->functions()[0], {1}, args);
    ADD_FAILURE() << "the interpreter ran inline PTX";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("runs only on the GPU"), std::string::npos) << e.what();
  }
}

// Integers read as unsigned, and bitcasts, take PTX's unsigned instructions
// (test/kernels/data/unsigned_ops.tir; their results on the GPU are the
// Python language suite's, run by the GPU check); udiv by 16 is a shift.
TEST(UnsignedOps, AssembleWithTheirInstructions) {
  std::vector<runtime::ArgFacts> facts(19, runtime::ArgFacts{true, 256, 0, false});
  for (const char* arch : {"sm_80", "sm_90a"}) {
    std::string ptx = tirPtx("unsigned_ops.tir", facts, arch);
    for (const char* want : {"div.u32", "rem.u32", "div.u64", "rem.u64", "shr.u32", "shr.u64", "max.u32", "min.u32",
                             "max.u64", "min.u64", "setp.lo.u32", "setp.hs.u32", "setp.hi.u64", "cvt.rzi.u32.f32",
                             "cvt.rzi.sat.u8.f32", "cvt.rn.f32.u32", "cvt.rn.f32.u64", "cvt.rn.f64.u64",
                             "cvt.u64.u32", "atom.global.gpu.relaxed.max.u32", "red.global.gpu.relaxed.min.u32",
                             "atom.global.gpu.relaxed.min.u64",
                             "and.b32", "cvt.rz.f32.u64", "cvt.rz.f32.s64", "cvt.rzi.u32.f32", "setp.nan.f64"})
      EXPECT_NE(ptx.find(want), std::string::npos) << arch << ": " << want << "\n" << ptx;
    static const std::string ptxas = findPtxas();
    if (ptxas.empty()) GTEST_SKIP() << "ptxas not found: PTX not assembled";
    std::string log;
    EXPECT_EQ(assemble(ptxas, ptx, arch, "unsigned_ops", log), 0) << log;
  }
}

// fma is one fma.rn in each float kind itself, f16 and bf16 included (one
// rounding, as the interpreter's; the values are checked on the GPU by
// python/tests/test_dsl_compat.py).
TEST(FmaPtx, OneRoundingInEachKind) {
  std::vector<runtime::ArgFacts> facts(4, runtime::ArgFacts{true, 256, 0, false});
  for (const char* arch : {"sm_80", "sm_90a"}) {
    std::string ptx = tirPtx("fma.tir", facts, arch);
    for (const char* want : {"fma.rn.f16", "fma.rn.bf16", "fma.rn.f32", "fma.rn.f64"})
      EXPECT_NE(ptx.find(want), std::string::npos) << arch << ": " << want << "\n" << ptx;
    EXPECT_EQ(ptx.find("mul.f32"), std::string::npos) << ptx;
    static const std::string ptxas = findPtxas();
    if (ptxas.empty()) GTEST_SKIP() << "ptxas not found: PTX not assembled";
    std::string log;
    EXPECT_EQ(assemble(ptxas, ptx, arch, "fma", log), 0) << log;
  }
}

// Every atomic kind with every memory order assembles: atom.SCOPE.SEM
// (spelled out, relaxed at GPU scope included); a reduction (red) only for
// a tile's relaxed and release atomics, never for an exchange nor for a
// scalar (an atom, as Triton writes it).
TEST(Atomics, EveryKindAndOrderAssembles) {
  std::vector<runtime::ArgFacts> facts(4, runtime::ArgFacts{true, 256, 0, false});
  std::string ptx = tirPtx("atomics_memory_order.tir", facts);
  for (const char* want : {"red.global.gpu.relaxed.add.v4.f32", "red.global.gpu.release.add.v4.f32",
                           "atom.global.gpu.acq_rel.add.f32", "atom.global.cta.acquire.add.f32",
                           "atom.global.gpu.relaxed.exch.b32", "atom.global.gpu.release.exch.b32",
                           "red.global.sys.relaxed.max.s32", "atom.global.gpu.acq_rel.and.b32",
                           "atom.global.acquire.gpu.cas.b32", "atom.global.gpu.acq_rel.add.f64",
                           "atom.global.cta.release.min.s64", "red.global.gpu.relaxed.max.s32",
                           "red.global.gpu.relaxed.min.u32", "atom.global.gpu.acq_rel.min.s32",
                           "atom.global.gpu.acq_rel.max.u32", "atom.global.gpu.relaxed.max.s64",
                           "atom.global.gpu.relaxed.min.u64"})
    EXPECT_NE(ptx.find(want), std::string::npos) << want << "\n" << ptx;
  EXPECT_FALSE(std::regex_search(ptx, std::regex(R"(red[.a-z_:0-9]*exch)"))) << ptx;
  EXPECT_FALSE(std::regex_search(ptx, std::regex(R"(red[.a-z_:0-9]*s64)"))) << "scalar reductions are atoms\n" << ptx;
  static const std::string ptxas = findPtxas();
  if (ptxas.empty()) GTEST_SKIP() << "ptxas not found: PTX not assembled";
  std::string log;
  EXPECT_EQ(assemble(ptxas, ptx, "sm_90a", "atomics_memory_order", log), 0) << log;
}

// A scalar atomic runs in thread 0: a release (the lock's atomic_xchg) first
// waits at a barrier for every thread's stores in the critical section.
TEST(Atomics, ScalarReleaseWaitsForEveryThread) {
  std::vector<runtime::ArgFacts> facts(3, runtime::ArgFacts{true, 256, 0, false});
  std::string ptx = tirPtx("scalar_lock.tir", facts);
  size_t store = ptx.find("st.global");
  size_t count = ptx.find("atom.global.gpu.release.add.s32");
  size_t release = ptx.find("atom.global.gpu.acq_rel.exch.b32");
  ASSERT_NE(store, std::string::npos) << ptx;
  ASSERT_NE(count, std::string::npos) << ptx;
  ASSERT_NE(release, std::string::npos) << ptx;
  ASSERT_LT(store, count);
  EXPECT_NE(ptx.substr(store, count - store).find("bar.sync"), std::string::npos) << ptx;
  EXPECT_NE(ptx.substr(count, release - count).find("bar.sync"), std::string::npos) << ptx;
  // and its acquire half: a barrier after it, before the kernel ends
  EXPECT_NE(ptx.find("bar.sync", release), std::string::npos) << ptx;
  static const std::string ptxas = findPtxas();
  if (ptxas.empty()) GTEST_SKIP() << "ptxas not found: PTX not assembled";
  std::string log;
  EXPECT_EQ(assemble(ptxas, ptx, "sm_90a", "scalar_lock", log), 0) << log;
}

TEST(ReshapeLowering, OneElementPerThreadIsNotASplat) {
  std::vector<runtime::ArgFacts> facts(2, runtime::ArgFacts{true, 256, 0, false});
  std::string ptx = tirPtx("reshape_one_element_per_thread.tir", facts);
  size_t shuffle = ptx.find("shfl.sync.bfly");
  ASSERT_NE(shuffle, std::string::npos) << ptx;
  size_t store = ptx.find("st.global", shuffle);
  ASSERT_NE(store, std::string::npos) << ptx;
  std::string after = ptx.substr(shuffle, store - shuffle);
  EXPECT_NE(after.find("st.shared"), std::string::npos) << ptx;
  EXPECT_NE(after.find("ld.shared"), std::string::npos) << ptx;
}

// An element-wise result the axis analysis finds constant over aligned runs
// is computed once per run a thread holds. In this 64 x 64 tile (4 warps)
// a thread's columns are four consecutive ones and the rows repeat them, so
// the mask `cols < n` takes one comparison and one select when n is a
// multiple of 16 (the four columns lie in one run), four when it is not.
TEST(ElementwiseLowering, ValuesConstantOverRunsComputedOncePerRun) {
  auto count = [](const std::string& ptx, const std::string& pattern) {
    std::regex re(pattern);
    return std::distance(std::sregex_iterator(ptx.begin(), ptx.end(), re), std::sregex_iterator());
  };
  std::vector<runtime::ArgFacts> facts{runtime::ArgFacts{true, 256, 0, false}, runtime::ArgFacts{false, 0, 48, true}};
  std::string ptx = tirPtx("mask_constant_over_runs.tir", facts);
  EXPECT_EQ(count(ptx, R"(setp\.lt\.s32)"), 1) << ptx;
  EXPECT_EQ(count(ptx, R"(selp\.f32)"), 1) << ptx;
  facts[1].value = 47;  // runs of one
  std::string plain = tirPtx("mask_constant_over_runs.tir", facts);
  EXPECT_EQ(count(plain, R"(setp\.lt\.s32)"), 4) << plain;
  EXPECT_EQ(count(plain, R"(selp\.f32)"), 4) << plain;
}

// Small integers become floats without the conversion unit (dequantizing
// kernels convert every weight): bytes to f16 by their bits under an f16
// 1024 and one f16 subtraction, bytes and shorts to f32 by an add into the
// mantissa of 2^23 and a subtraction; no cvt from an integer. Shorts to
// f16 keep cvt (one I2F.F16 for ptxas; not exact either way).
TEST(ElementwiseLowering, SmallIntegersToFloatsWithoutIntegerConversions) {
  const char* src = R"(
__global__ void dequant(char* A __aligned(16), short* B __aligned(16), half* Y __aligned(16),
                        float* Z __aligned(16)) {
  int i[128] = 0 ... 128;
  *(Y + i) = (half)*(A + i);
  *(Z + i) = (float)*(A + i) + (float)*(B + i);
})";
  std::string ptx = sourcePtx(src, 4);
  EXPECT_FALSE(std::regex_search(ptx, std::regex(R"(cvt\.rn\.f(16|32)\.[su](8|16|32))"))) << ptx;
  EXPECT_NE(ptx.find("sub.f16"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("sub.f32"), std::string::npos) << ptx;
  expectAssembles(ptx, "small_ints_to_floats");
  const char* shorts = R"(
__global__ void dequant16(short* B __aligned(16), half* W __aligned(16)) {
  int i[128] = 0 ... 128;
  *(W + i) = (half)*(B + i);
})";
  std::string ptx16 = sourcePtx(shorts, 2);
  EXPECT_NE(ptx16.find("cvt.rn.f32.s32"), std::string::npos) << ptx16;
  expectAssembles(ptx16, "shorts_to_halves");
}

// The warp index comes from lane 0 (shfl.sync.idx), a value ptxas knows to
// be uniform; wgmma descriptors are built as 64-bit values from it and the
// buffer addresses, one or.b64 per buffer and an add.s64 per further step,
// so that ptxas keeps them in uniform registers (no R2UR per wgmma).
TEST(PipelinedWgmma, DescriptorsAreUniform64BitValues) {
  std::string ptx = matmulPtx("128", 3);
  EXPECT_NE(ptx.find("shfl.sync.idx.b32"), std::string::npos) << ptx;
  EXPECT_FALSE(std::regex_search(ptx, std::regex(R"(mov\.b64 %rd\d+, \{)"))) << ptx;  // none packed from two halves
  EXPECT_NE(ptx.find("or.b64"), std::string::npos) << ptx;
}

// A function whose blocks are not laid out dominators first (the exit of a
// loop before the loop, as the Python DSL lays out an inlined call's return
// block) is lowered dominators first: the exit's wait for the asynchronous
// wgmma defines the sum before the store reads it.
TEST(BlockOrder, AnExitLaidOutBeforeItsLoop) {
  std::vector<runtime::ArgFacts> facts(3, runtime::ArgFacts{true, 256, 0, false});
  facts.push_back(runtime::ArgFacts{false, 0, 4096, true});
  std::string ptx = tirPtx("exit_block_laid_out_first.tir", facts);
  size_t inLoop = ptx.find("wgmma.wait_group.sync.aligned 1;");
  size_t exitWait = ptx.find("wgmma.wait_group.sync.aligned 0;");
  size_t store = ptx.find("st.global");
  ASSERT_NE(inLoop, std::string::npos) << ptx;
  ASSERT_NE(exitWait, std::string::npos) << ptx;
  ASSERT_NE(store, std::string::npos) << ptx;
  EXPECT_LT(exitWait, store) << ptx;  // the store's block comes after the wait's
  static const std::string ptxas = findPtxas();
  if (ptxas.empty()) GTEST_SKIP() << "ptxas not found: PTX not assembled";
  std::string log;
  ASSERT_EQ(assemble(ptxas, ptx, "sm_90a", "exit_laid_out_first", log), 0) << log;
}

// Element order (target/nvptx/element_order.h): `exp(x) * x + x` over a
// tile of 32768 elements on 4 warps (256 per thread) goes out element by
// element: the product that reads the first ex2 comes right after it, not
// after every element's ex2; with 1024 elements (8 per thread), or with
// the switch off, instruction order.
TEST(ElementOrder, WideElementwiseChainsGoOutElementByElement) {
  auto ex2Before = [](const std::string& ptx) {  // ex2 lines before the first read of the first's result
    std::smatch m;
    EXPECT_TRUE(std::regex_search(ptx, m, std::regex(R"(ex2\.approx\.ftz\.f32 (%f\d+),)"))) << ptx;
    const std::string first = m[1];
    const std::regex reads(R"(^\s+\S+ %\w+, .*)" + first + R"(\b)");
    int count = 0;
    std::istringstream lines(ptx);
    for (std::string line; std::getline(lines, line);) {
      if (line.find("ex2.approx") != std::string::npos) ++count;
      else if (std::regex_search(line, reads)) return count;
    }
    return -1;
  };
  auto wide = [](int n, bool elementOrder) {
    const std::string source = "__global__ void k(float* X, float* Y) {\n  int i[N] = 0 ... N;\n"
                               "  float x[N] = *(X + i);\n  *(Y + i) = exp(x) * x + x;\n}\n";
    lang::CompileOptions co;
    co.defines = {{"N", std::to_string(n)}};
    lang::CompileResult r = lang::compileSource(source, co);
    std::vector<runtime::ArgFacts> facts(2, runtime::ArgFacts{true, 256, 0, false});
    runtime::specializeAndOptimize(*r.module, *r.module->functions()[0], facts, 3, true);
    nvptx::TargetOptions to;
    to.arch = "sm_90a";
    to.elementOrder = elementOrder;
    return nvptx::emitPtx(*r.module, to);
  };
  const std::string ordered = wide(32768, true);
  EXPECT_EQ(ex2Before(ordered), 1);
  EXPECT_EQ(ex2Before(wide(32768, false)), 256);
  EXPECT_EQ(ex2Before(wide(1024, true)), 8);
  expectAssembles(ordered, "element_order");
}

// A masked 16-byte load of f16/bf16 sets its four words to `other` (here
// zeros) before the load and splits them after: no select per element
// (Liger's GeGLU and SwiGLU forward, cross-entropy: 2-5 % faster on the
// H200). The values: every masked f16/bf16 kernel of the suites.
TEST(MemoryLowering, MaskedHalvesKeepOtherInTheirWords) {
  const char* kSource = R"(
__global__ void k(bf16* A __aligned(16), bf16* C __aligned(16), int n) {
  int i[1024] = 0 ... 1024;
  bf16 a[1024] = i < n ? *(A + i) : 0;
  *?(i < n)(C + i) = a * a;
})";
  lang::CompileResult r = lang::compileSource(kSource, lang::CompileOptions{});
  std::vector<runtime::ArgFacts> facts(2, runtime::ArgFacts{true, 256, 0, false});
  facts.push_back(runtime::ArgFacts{false, 0, 1000, true});
  runtime::specializeAndOptimize(*r.module, *r.module->functions()[0], facts, 3, true);
  nvptx::TargetOptions to;
  to.arch = "sm_90a";
  const std::string ptx = nvptx::emitPtx(*r.module, to);
  auto count = [&](const std::string& pattern) {
    std::regex re(pattern);
    return std::distance(std::sregex_iterator(ptx.begin(), ptx.end(), re), std::sregex_iterator());
  };
  EXPECT_EQ(count(R"(@%p\d+ ld\.global\.v4\.b32)"), 1) << ptx;  // 8 elements a thread on 4 warps
  EXPECT_EQ(count(R"(mov\.b32 \{%\w+, %\w+\}, %r\d+;)"), 4) << ptx;
  EXPECT_EQ(count(R"(@%p\d+ mov\.b16)"), 0) << ptx;
  expectAssembles(ptx, "masked_halves");
}

}  // namespace
}  // namespace kernel_test
