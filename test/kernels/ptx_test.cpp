// Every example's PTX, for sm_80 and sm_90a and several num_warps, is
// accepted by ptxas, and `ptxas -v` reports no spills at the default
// num_warps (4). Runs without a GPU
// (CI has the CUDA toolkit); skipped, saying so, where ptxas is absent.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "kernel_test_util.h"
#include "lang/compile.h"
#include "runtime/specialize.h"
#include "target/nvptx/codegen.h"
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
    int rc = assemble(ptxas, ptx, cfg.arch, c.name + "_" + cfg.arch + "_" + std::to_string(cfg.warps), log);
    ASSERT_EQ(rc, 0) << "ptxas rejected the PTX:\n" << log;
    // Spills are a performance bug at the case's num_warps (4 unless its
    // tiles need more); with fewer warps each thread holds more elements and
    // small spills are tolerated.
    size_t at = log.find(" bytes spill stores");
    ASSERT_NE(at, std::string::npos) << log;
    size_t start = log.rfind(' ', at - 1) + 1;
    long spills = std::strtol(log.c_str() + start, nullptr, 10);
    if (cfg.warps == c.numWarps) {
      EXPECT_EQ(spills, 0) << log;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, PtxTest, ::testing::ValuesIn(casePointers()), caseTestName);

// The seed's matmul on sm_90a (8 warps), end to end to PTX: with TM=128
// TN=128 TK=64 and num_stages 3 the wgmmas are pipelined (wait for the
// previous group in the loop, for all at the exit; four ring stages of
// 32 KB); with TN=256 and num_stages 4 the extra stage does not fit and each
// K step waits for its own. (test/ir/cases/gpu-pipeline.tir checks the
// decisions themselves, in the GPU IR.)
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
  EXPECT_NE(ptx.find("dynamic_shared_bytes 131072"), std::string::npos);  // 4 stages x 32 KB
  static const std::string ptxas = findPtxas();
  if (ptxas.empty()) GTEST_SKIP() << "ptxas not found: PTX not assembled";
  std::string log;
  ASSERT_EQ(assemble(ptxas, ptx, "sm_90a", "pipelined_wgmma", log), 0) << log;
  EXPECT_EQ(log.find("serialized"), std::string::npos) << log;  // ptxas keeps the wgmmas asynchronous
}

TEST(PipelinedWgmma, NotWhenTheExtraStageDoesNotFit) {
  std::string ptx = matmulPtx("256", 4);  // 5 stages of 48 KB would exceed 227 KB
  EXPECT_EQ(ptx.find("wgmma.wait_group.sync.aligned 1;"), std::string::npos);
  EXPECT_NE(ptx.find("wgmma.wait_group.sync.aligned 0;"), std::string::npos);
  EXPECT_NE(ptx.find("dynamic_shared_bytes 196608"), std::string::npos);  // 4 stages x 48 KB
}

}  // namespace
}  // namespace kernel_test
