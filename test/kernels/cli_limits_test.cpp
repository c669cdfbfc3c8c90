// The command line never crashes (issue 15): help and version, very long and
// very deep expressions, many loops, grids beyond the GPU's limits. Every
// run must end with an exit status (no signal) within 10 seconds.
#include <regex>

#include "cli_fixture.h"
#include "runtime/version.h"

namespace kernel_test {
namespace {

constexpr double kSeconds = 10;

class CliLimits : public CliTest {};

// A run that ended by itself, in time, with `status`.
void expectClean(const Result& r, int status, const std::string& what) {
  EXPECT_EQ(r.status, status) << what << "\nstderr: " << r.err.substr(0, 2000);
  EXPECT_LT(r.seconds, kSeconds) << what;
}

TEST_F(CliLimits, HelpOfEveryCommandGoesToStdoutWithStatusZero) {
  // Each command's usage names the command and its own options.
  const std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> cases = {
      {{"--help"}, {"tritonc emit FILE", "tritonc run  FILE", "tritonc tune FILE", "tritonc passes", "--version"}},
      {{"-h"}, {"tritonc emit FILE", "tritonc passes"}},
      {{"help"}, {"tritonc emit FILE", "tritonc passes"}},
      {{"emit", "--help"}, {"tritonc emit FILE", "--stage ast|ir|opt-ir|gpu-ir|ptx"}},
      {{"emit", "x.tc", "--stage", "ir", "--help"}, {"tritonc emit FILE"}},
      {{"run", "--help"}, {"tritonc run  FILE", "--grid X[,Y[,Z]]"}},
      {{"tune", "-h"}, {"tritonc tune FILE", "--quiet"}},
      {{"passes", "--help"}, {"tritonc passes"}},
  };
  for (const auto& [args, expected] : cases) {
    std::string cmd;
    for (auto& a : args) cmd += " " + a;
    Result r = run(args);
    expectClean(r, 0, "tritonc" + cmd);
    EXPECT_EQ(r.err, "") << "tritonc" << cmd;
    EXPECT_EQ(r.out.rfind("usage:\n", 0), 0u) << "tritonc" << cmd << ":\n" << r.out;
    for (const std::string& e : expected) EXPECT_NE(r.out.find(e), std::string::npos) << "tritonc" << cmd << ": no '" << e << "' in\n" << r.out;
  }
  // One command's help leaves the others out.
  Result emit = run({"emit", "--help"});
  EXPECT_EQ(emit.out.find("tritonc run "), std::string::npos) << emit.out;
}

TEST_F(CliLimits, VersionIsTheLibrarysVersionString) {
  for (const char* flag : {"--version", "version"}) {
    Result r = run({flag});
    expectClean(r, 0, flag);
    EXPECT_EQ(r.out, tritonc::runtime::versionString() + "\n");
    EXPECT_TRUE(std::regex_match(r.out, std::regex("tritonc [0-9]+\\.[0-9]+ \\([^ ,()]+\\)\n"))) << r.out;
  }
}

TEST_F(CliLimits, UnknownOptionsAndCommandsStillFail) {
  Result r = run({"emit", "--hepl"});
  expectClean(r, 1, "emit --hepl");
  EXPECT_NE(r.err.find("unknown option '--hepl'"), std::string::npos) << r.err;
  r = run({"passes", "extra"});
  expectClean(r, 1, "passes extra");
  EXPECT_NE(r.err.find("passes takes no arguments"), std::string::npos) << r.err;
  r = run({"frobnicate"});
  expectClean(r, 1, "frobnicate");
  EXPECT_NE(r.err.find("unknown command 'frobnicate'"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace kernel_test
