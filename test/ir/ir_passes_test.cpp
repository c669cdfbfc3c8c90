// FileCheck tests of the passes and analyses: every case of test/ir/cases
// (see ir_case_file.h for the format) is parsed or compiled, verified, run
// through its RUN: passes (the pass manager verifies after each), printed
// (the module, or the analysis report of each function), and checked against
// the case's CHECK lines.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "analysis/axis_info.h"
#include "analysis/liveness.h"
#include "ir/printer.h"
#include "ir_case_file.h"
#include "support/filecheck.h"
#include "transform/pass_manager.h"

namespace {

using namespace tritonc;
using ir_cases::IrCase;

class IrCaseTest : public ::testing::TestWithParam<IrCase> {};

TEST_P(IrCaseTest, Check) {
  const IrCase& c = GetParam();
  ASSERT_EQ(c.error, "");
  SCOPED_TRACE(c.file + ":" + std::to_string(c.runLine) + " (case " + std::to_string(c.index) + ")");
  std::unique_ptr<ir::Module> m;
  try {
    m = ir_cases::buildModule(c);
  } catch (const std::exception& e) {
    FAIL() << e.what();
  }
  const std::string input = ir::printModule(*m);
  try {
    transform::PipelineOptions opts;
    opts.numStages = c.numStages;
    if (!c.target.empty()) opts.target = c.target;
    opts.asyncCopies = !c.target.empty();  // pre-fetching as for the GPU (optimize_for_launch.cpp)
    opts.numWarps = c.numWarps;
    opts.multicast = c.numCtas > 1;
    opts.multicastAlongY = c.numCtas == 4;
    opts.allowTf32 = c.allowTf32;
    ir_cases::CaseEnvironment env(c);
    if (!c.passes.empty()) transform::runPasses(*m, transform::parsePassList(c.passes), opts);
  } catch (const std::exception& e) {
    FAIL() << "passes=" << c.passes << " failed: " << e.what() << "\ninput:\n" << input;
  }
  std::string out;
  if (c.analysis.empty()) {
    out = ir::printModule(*m);
    // What a pass leaves must also read back as the same module.
    try {
      EXPECT_EQ(ir::printModule(*ir::parseModule(out)), out) << "the printed IR does not round-trip";
    } catch (const UserError& e) {
      ADD_FAILURE() << "the printed IR does not parse: " << e.what() << "\n" << out;
    }
  } else {
    for (auto& f : m->functions())
      out += c.analysis == "axis" ? analysis::printAxisInfo(*f) : analysis::printLiveness(*f);
  }
  test::CheckResult r = test::fileCheck(c.text, out, c.file, c.firstLine);
  EXPECT_TRUE(r.ok) << r.message << "\n--- input (" << (c.passes.empty() ? "no passes" : "passes=" + c.passes)
                    << ") ---\n" << input << "--- output ---\n" << out;
}

std::string caseName(const ::testing::TestParamInfo<IrCase>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(Cases, IrCaseTest, ::testing::ValuesIn(ir_cases::loadAllCases()), caseName);

// The coverage promised by the suite: every pass has at least six cases (in
// PASS.tir and PASS.tc), and the analyses have theirs.
TEST(IrCaseFiles, EveryPassAndAnalysisIsCovered) {
  std::map<std::string, int> perFile;
  for (const IrCase& c : ir_cases::loadAllCases()) {
    ++perFile[c.group];
  }
  for (const transform::PassInfo& p : transform::allPasses())
    EXPECT_GE(perFile[p.name], 6) << "test/ir/cases/" << p.name << ".tir should have at least 6 cases";
  EXPECT_GE(perFile["axis"], 6) << "test/ir/cases/axis.tir";
  EXPECT_GE(perFile["liveness"], 3) << "test/ir/cases/liveness.tir";
}

// Each case of a pass's file runs that pass (or the default pipeline), so
// that a case is not silently testing something else.
TEST(IrCaseFiles, PassFilesRunTheirPass) {
  for (const IrCase& c : ir_cases::loadAllCases()) {
    const std::string& stem = c.group;
    if (!transform::findPass(stem)) continue;
    std::vector<std::string> passes = transform::parsePassList(c.passes);
    bool runs = std::find(passes.begin(), passes.end(), stem) != passes.end();
    EXPECT_TRUE(runs) << c.file << ":" << c.runLine << ": case " << c.index << " does not run " << stem;
  }
}

}  // namespace
