// The compile report (runtime/compile_report.h): the seed's matmul and a
// masked matmul for sm_90a name, on the right source lines, the vector
// widths, the cp.async rings and their stages, the wgmma; its registers and
// spills are what ptxas -v says of the same PTX (run here independently),
// and on a GPU host what the driver says of the loaded function.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "runtime/compile_report.h"
#include "target/nvptx/cuda_driver.h"
#include "target/nvptx/gpu_runner.h"
#include "target/nvptx/occupancy_fallback.h"
#include "target/nvptx/ptxas.h"

namespace {

using namespace tritonc;

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The 1-based line of the first line of `text` containing `needle` (0: none).
uint32_t lineOf(const std::string& text, const std::string& needle) {
  std::istringstream in(text);
  uint32_t n = 0;
  for (std::string l; std::getline(in, l);) {
    ++n;
    if (l.find(needle) != std::string::npos) return n;
  }
  return 0;
}

const gpu::LineFact* factAt(const runtime::CompileReport& r, uint32_t line, const std::string& kind) {
  for (const gpu::LineFact& f : r.facts.facts)
    if (f.line == line && f.kind == kind) return &f;
  return nullptr;
}

struct Subject {
  const char* file;
  std::vector<lang::Define> defines;
  const char* loadA;  // text of the line that loads A, B, the dot, the store
  const char* loadB;
  const char* dot;
  const char* store;
};

runtime::CompileReport reportOf(const Subject& s, const std::string& source, bool allowTf32 = false) {
  runtime::ReportOptions o;
  o.filename = s.file;
  o.defines = s.defines;
  o.arch = "sm_90a";
  o.numWarps = 8;
  o.numStages = 3;
  o.allowTf32 = allowTf32;
  o.ints = {{"M", 4096}, {"N", 4096}, {"K", 4096}, {"lda", 4096}, {"ldb", 4096}, {"ldc", 4096}};
  return runtime::compileReport(source, o);
}

class ReportTest : public ::testing::TestWithParam<Subject> {};

TEST_P(ReportTest, NamesWhatTheCompilerDidOnTheRightLines) {
  const Subject& s = GetParam();
  std::string source = readFile(std::string(TRITONC_SOURCE_DIR) + "/" + s.file);
  runtime::CompileReport r = reportOf(s, source);
  // The masked kernel's tiles are boxes of its tensors: TMA copies them
  // (gpu-tma); the seed's unmasked loads have no bound on the rows.
  const bool tma = std::string(s.file).find("masked") != std::string::npos;
  for (const char* load : {s.loadA, s.loadB}) {
    const gpu::LineFact* f = factAt(r, lineOf(source, load), "copy");
    ASSERT_NE(f, nullptr) << "no copy fact on the line of '" << load << "'\n" << runtime::renderReport(r, source);
    EXPECT_EQ(f->instruction, tma ? "cp.async.bulk.tensor" : "cp.async");
    EXPECT_EQ(f->vec, tma ? 1 : 8);
    EXPECT_EQ(f->accessBytes, tma ? 128 * 64 * 2 : 16);
    // num_stages 3: two tiles ahead and the one read; the asynchronous
    // wgmma's stage is refilled once it is retired (an extra one would cost
    // the second program per multiprocessor).
    EXPECT_EQ(f->stages, 3);
    EXPECT_NE(f->text.find("refills the stage the previous iteration's wgmma read"), std::string::npos) << f->text;
  }
  const gpu::LineFact* dot = factAt(r, lineOf(source, s.dot), "dot");
  ASSERT_NE(dot, nullptr) << runtime::renderReport(r, source);
  EXPECT_EQ(dot->instruction, "wgmma");
  EXPECT_EQ(dot->tile, "128x128x64");
  EXPECT_NE(dot->text.find("m64n128k16"), std::string::npos) << dot->text;
  const gpu::LineFact* store = factAt(r, lineOf(source, s.store), "store");
  ASSERT_NE(store, nullptr) << runtime::renderReport(r, source);
  EXPECT_EQ(store->vec, 8);
  // The rendering puts each fact beside its line; the JSON has the same.
  std::string text = runtime::renderReport(r, source);
  EXPECT_NE(text.find("wgmma m64n128k16"), std::string::npos);
  std::string json = runtime::reportJson(r);
  EXPECT_NE(json.find("\"line\": " + std::to_string(dot->line)), std::string::npos) << json;
  EXPECT_NE(json.find("\"stages\": 3"), std::string::npos);
  // The two rings (and, with TMA, a 16-byte mbarrier per stage of each).
  EXPECT_EQ(r.resources.sharedBytes, 3 * (128 * 64 + 64 * 128) * 2 + (tma ? 2 * 3 * 16 : 0));
}

TEST_P(ReportTest, RegistersAndSpillsAreWhatPtxasSays) {
  if (nvptx::ptxasPath().empty()) GTEST_SKIP() << "ptxas not found: the report estimates, nothing to compare";
  const Subject& s = GetParam();
  std::string source = readFile(std::string(TRITONC_SOURCE_DIR) + "/" + s.file);
  runtime::CompileReport r = reportOf(s, source);
  ASSERT_EQ(r.resources.from, "ptxas -v");
  // Independently: ptxas -v on the same PTX, read with a regular expression.
  nvptx::PtxasInfo info = nvptx::ptxasInfo(r.ptx, "sm_90a");
  ASSERT_TRUE(info.ok) << info.problem;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(info.log, m, std::regex("Used (\\d+) registers"))) << info.log;
  EXPECT_EQ(r.resources.registers, std::stoll(m[1]));
  ASSERT_TRUE(std::regex_search(info.log, m, std::regex("(\\d+) bytes spill stores"))) << info.log;
  EXPECT_EQ(r.resources.spillStores, std::stoll(m[1]));
  EXPECT_EQ(r.resources.spillStores, 0) << "these configurations do not spill";
  EXPECT_GE(r.resources.programsPerSm, 1);
}

// On a GPU host: the driver's attributes of the loaded function agree.
TEST_P(ReportTest, RegistersAreWhatTheDriverSays) {
  if (!nvptx::CudaDriver::get()) GTEST_SKIP() << "no GPU";
  if (nvptx::gpuArch() != "sm_90a") GTEST_SKIP() << "the report is for sm_90a; this GPU is " << nvptx::gpuArch();
  const Subject& s = GetParam();
  std::string source = readFile(std::string(TRITONC_SOURCE_DIR) + "/" + s.file);
  runtime::CompileReport r = reportOf(s, source);
  std::vector<ir::Type> types(9, ir::Type::pointer(ir::Scalar::F16));
  for (size_t k = 3; k < 9; ++k) types[k] = ir::Type::scalar(ir::Scalar::I32);
  nvptx::GpuKernel k(r.ptx, r.facts.kernel, types, {"A", "B", "C", "M", "N", "K", "lda", "ldb", "ldc"});
  EXPECT_EQ(k.registers(), r.resources.registers);
  EXPECT_EQ(k.localBytes(), r.resources.stackFrame);
}

INSTANTIATE_TEST_SUITE_P(
    Sm90a, ReportTest,
    ::testing::Values(Subject{"examples/matmul.tc", {{"TYPE", "half"}, {"TM", "128"}, {"TN", "128"}, {"TK", "64"}},
                              "TYPE a[TM, TK] = *pa", "TYPE b[TK, TN] = *pb", "c += a @ b", "*pc = c"},
                      Subject{"bench/kernels/matmul_masked.tc",
                              {{"TYPE", "half"}, {"TM", "128"}, {"TN", "128"}, {"TK", "64"}},
                              "TYPE a[TM, TK] = checka", "TYPE b[TK, TN] = checkb", "c += a @ b", "@checkc *pc = c"}),
    [](const ::testing::TestParamInfo<Subject>& i) { return i.index == 0 ? std::string("seed_matmul") : std::string("masked_matmul"); });

// f32 with tf32 inputs, B stored K x N: the transposed product reads B's
// tile from registers, which TRITONC_REGISTER_PREFETCH=1 loads one iteration
// ahead; the dot's line says which.
TEST(Report, SaysWhereTheRegisterOperandIsLoaded) {
  const Subject s{"bench/kernels/matmul_masked.tc", {{"TYPE", "float"}, {"TM", "256"}, {"TN", "128"}, {"TK", "32"}},
                  "", "", "c += a @ b", ""};
  std::string source = readFile(std::string(TRITONC_SOURCE_DIR) + "/" + s.file);
  for (bool ahead : {false, true}) {
    if (ahead) setenv("TRITONC_REGISTER_PREFETCH", "1", 1);
    runtime::CompileReport r = reportOf(s, source, true);
    unsetenv("TRITONC_REGISTER_PREFETCH");
    const gpu::LineFact* dot = factAt(r, lineOf(source, s.dot), "dot");
    ASSERT_NE(dot, nullptr) << runtime::renderReport(r, source);
    EXPECT_NE(dot->text.find("A from shared memory, B from registers"), std::string::npos) << dot->text;
    EXPECT_EQ(dot->text.find("loaded one iteration ahead") != std::string::npos, ahead) << dot->text;
  }
}

// The masked matmul's 2-D grid visits its tiles in groups of rows
// (gpu-program-order): the line of get_program_id(0) says so, unless
// TRITONC_GROUPED_PROGRAMS=0 keeps the launch order.
TEST(Report, SaysTheProgramsAreGrouped) {
  const Subject s{"bench/kernels/matmul_masked.tc", {{"TYPE", "half"}, {"TM", "128"}, {"TN", "256"}, {"TK", "64"}},
                  "", "", "", ""};
  std::string source = readFile(std::string(TRITONC_SOURCE_DIR) + "/" + s.file);
  for (bool grouped : {true, false}) {
    if (!grouped) setenv("TRITONC_GROUPED_PROGRAMS", "0", 1);
    runtime::CompileReport r = reportOf(s, source);
    unsetenv("TRITONC_GROUPED_PROGRAMS");
    const gpu::LineFact* f = factAt(r, lineOf(source, "get_program_id(0)"), "program");
    if (!grouped) {
      EXPECT_EQ(f, nullptr) << runtime::renderReport(r, source);
      continue;
    }
    ASSERT_NE(f, nullptr) << runtime::renderReport(r, source);
    EXPECT_NE(f->text.find("programs in groups of 16 rows of tiles along x"), std::string::npos) << f->text;
  }
}

// A kernel whose rows are only 2-byte aligned gets a warning naming the
// line and the parameter to promise about; a spilling one, the spill.
// ptxas's note that it serialized the wgmma instructions (as it printed it
// for the DSL's grouped matmul at -O0) becomes the report's reason.
TEST(Report, ReadsWhyPtxasSerializedTheWgmma) {
  const std::string log =
      "ptxas info    : Compiling entry function 'matmul_kernel' for 'sm_90a'\n"
      "ptxas info    : (C7511) Potential Performance Loss: wgmma.mma_async instructions are serialized due to "
      "insufficient register resources for the wgmma pipeline in the function 'matmul_kernel'\n"
      "ptxas info    : Used 168 registers\n";
  EXPECT_EQ(nvptx::wgmmaSerializedReason(log), "insufficient register resources for the wgmma pipeline");
  EXPECT_EQ(nvptx::wgmmaSerializedReason("ptxas info    : Used 168 registers\n"), "");
  EXPECT_EQ(nvptx::wgmmaSerializedReason("wgmma.mma_async instructions are serialized due to a reason"), "a reason");
}

// Kernels without dots ask ptxas for as many programs per multiprocessor as
// fit (gpu/occupancy.h), naming a fallback in the PTX for where that spills
// (occupancy_fallback.h): the softmax gets 16 programs of 4 warps without
// spilling; a kernel of 48 products of element picks (`x[i] * x[47 - i]`),
// whose scalars the estimate misses, spills at 16, and the report (and the
// launch) take its fallback, 2.
TEST(Report, RowKernelsAskForFullOccupancyAndFallBackWhereThatSpills) {
  if (nvptx::ptxasPath().empty()) GTEST_SKIP() << "ptxas not found";
  auto report = [](const std::string& file, std::vector<lang::Define> defines) {
    runtime::ReportOptions o;
    o.filename = file;
    o.defines = std::move(defines);
    return runtime::compileReport(readFile(std::string(TRITONC_SOURCE_DIR) + "/" + file), o);
  };
  runtime::CompileReport softmax = report("examples/softmax.tc", {{"TYPE", "float"}, {"BLOCK", "1024"}});
  EXPECT_EQ(softmax.resources.askedPrograms, 16) << softmax.resources.askedWhy;
  EXPECT_NE(softmax.ptx.find(".minnctapersm 16"), std::string::npos);
  EXPECT_NE(softmax.ptx.find("// tritonc: occupancy_fallback 2"), std::string::npos);
  EXPECT_EQ(softmax.resources.spillStores, 0);
  EXPECT_EQ(softmax.resources.programsPerSm, 16);
  std::string fallback = nvptx::withFallbackOccupancy(softmax.ptx, softmax.facts.kernel);
  EXPECT_NE(fallback.find(".minnctapersm 2\n"), std::string::npos);
  EXPECT_EQ(fallback.find(".minnctapersm 16"), std::string::npos);

  runtime::ReportOptions picksOptions;
  picksOptions.filename = "many_picks.tc";
  std::string products;
  for (int i = 0; i < 48; ++i)
    products += (i ? " + x[" : "x[") + std::to_string(i) + "] * x[" + std::to_string(47 - i) + "]";
  const std::string picksSource =
      "__global__ void many_picks(float* X, float* Y) {\n  float x[64] = *(X + (0 ... 64));\n  *Y = " + products +
      ";\n}\n";
  // (The occupancy probe off: it would try 8 programs first, below.)
  setenv("TRITONC_OCCUPANCY_PROBE", "0", 1);
  runtime::CompileReport picks = runtime::compileReport(picksSource, picksOptions);
  unsetenv("TRITONC_OCCUPANCY_PROBE");
  runtime::CompileReport probed = runtime::compileReport(picksSource, picksOptions);
  EXPECT_NE(probed.resources.askedWhy.find("8 tried before 2 where 16 spills"), std::string::npos)
      << probed.resources.askedWhy;
  EXPECT_EQ(probed.resources.spillStores, 0);
  EXPECT_GE(probed.resources.programsPerSm, picks.resources.programsPerSm);
  EXPECT_NE(picks.ptx.find(".minnctapersm 16"), std::string::npos);
  EXPECT_EQ(picks.resources.askedPrograms, 2);
  EXPECT_NE(picks.resources.askedWhy.find("it spilled at 16, so the launch asks for 2"), std::string::npos)
      << picks.resources.askedWhy;
  EXPECT_EQ(picks.resources.spillStores, 0);
  // Kernels with dots name no fallback.
  runtime::CompileReport mm = report("examples/matmul.tc", {{"TYPE", "half"}, {"TM", "128"}, {"TN", "128"}, {"TK", "64"}});
  EXPECT_EQ(mm.ptx.find("occupancy_fallback"), std::string::npos);
  EXPECT_EQ(nvptx::withFallbackOccupancy(mm.ptx, mm.facts.kernel), "");
  // ... unless their estimate is near two programs' budget (within 5/4):
  // then they ask for two, one where that spills. At 8 warps, 64 x 128
  // tiles are estimated at 136 registers of 128; ptxas, asked, takes fewer.
  runtime::ReportOptions near;
  near.filename = "matmul_masked.tc";
  near.defines = {{"TYPE", "half"}, {"TM", "64"}, {"TN", "128"}, {"TK", "32"}};
  near.numWarps = 8;
  runtime::CompileReport mm8 =
      runtime::compileReport(readFile(std::string(TRITONC_SOURCE_DIR) + "/bench/kernels/matmul_masked.tc"), near);
  EXPECT_NE(mm8.ptx.find(".minnctapersm 2"), std::string::npos);
  EXPECT_NE(mm8.ptx.find("// tritonc: occupancy_fallback 1"), std::string::npos);
  EXPECT_NE(mm8.resources.askedWhy.find("two asked, one where that spills"), std::string::npos)
      << mm8.resources.askedWhy;
  EXPECT_EQ(mm8.resources.spillStores, 0);
  EXPECT_LE(mm8.resources.registers, 128);
  // On a GPU host the driver's load takes the fallback too.
  if (!nvptx::CudaDriver::get() || nvptx::gpuArch() != "sm_90a") return;
  std::vector<ir::Type> types = {ir::Type::pointer(ir::Scalar::F32), ir::Type::pointer(ir::Scalar::F32)};
  nvptx::GpuKernel k(picks.ptx, picks.facts.kernel, types, {"X", "Y"});
  EXPECT_TRUE(k.occupancyFellBack());
  EXPECT_EQ(k.localBytes(), 0);
  EXPECT_EQ(k.registers(), picks.resources.registers);
}

TEST(Report, WarnsAboutScalarLoadsAndSpills) {
  std::string source = readFile(std::string(TRITONC_SOURCE_DIR) + "/bench/kernels/matmul_masked.tc");
  runtime::ReportOptions o;
  o.filename = "matmul_masked.tc";
  o.defines = {{"TYPE", "half"}, {"TM", "128"}, {"TN", "256"}, {"TK", "64"}};
  o.numWarps = 8;
  o.ints = {{"M", 4095}, {"N", 4095}, {"K", 4095}, {"lda", 4095}, {"ldb", 4095}, {"ldc", 4095}};
  runtime::CompileReport r = runtime::compileReport(source, o);
  uint32_t line = lineOf(source, "TYPE a[TM, TK] = checka");
  bool named = false;
  for (const std::string& w : r.warnings)
    named = named || (w.find("load at line " + std::to_string(line)) != std::string::npos &&
                      w.find("`lda`") != std::string::npos && w.find("__multipleof(8)") != std::string::npos);
  EXPECT_TRUE(named) << runtime::renderReport(r, source);
  const gpu::LineFact* load = factAt(r, line, "load");
  ASSERT_NE(load, nullptr);
  EXPECT_EQ(load->vec, 1);
  if (r.resources.spillStores > 0) {
    bool spill = false;
    for (const std::string& w : r.warnings) spill = spill || w.find("spills") != std::string::npos;
    EXPECT_TRUE(spill);
  }
}

}  // namespace
