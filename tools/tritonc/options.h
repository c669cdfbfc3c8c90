// The command line's options: what `tritonc CMD ...` asked for, parsed
// (parseCommandLine), and the usage text of each command.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "lang/compile.h"
#include "transform/pass_manager.h"

namespace tritonc::cli {

struct Options {
  std::string command, file, stage, backend, kernel, grid, target;
  std::vector<std::string> targets;  // every --target value (compile: a list)
  std::string output;                // compile: -o
  bool generic = false;              // compile: also code for any launch
  bool numWarpsGiven = false, numStagesGiven = false;  // a .tck's configurations are chosen by them
  bool help = false;  // --help: print the command's usage and exit 0
  int numWarps = 4;
  int numStages = transform::PipelineOptions::kDefaultNumStages;
  std::vector<int> numWarpsList{4}, numStagesList{transform::PipelineOptions::kDefaultNumStages};
  std::string cacheDir;
  bool quiet = false;
  bool allowTf32 = false;
  int numCtas = 1;  // --num-ctas: 2 pairs programs along x in clusters (multicast copies), 4 in 2 x 2
  lang::CompileOptions compile;
  std::vector<std::pair<std::string, std::string>> args, saves;
  bool locations = false;
  bool printAfterAll = false;
  bool json = false;               // emit --stage report: JSON
  bool specialize = true;          // emit ptx/gpu-ir: assume 16-byte aligned pointers
  bool optimize = true;            // run: optimize before interpreting (-O0: no)
  std::string passes = "default";  // --passes
  std::string analysis;            // --print-analysis
  bool haveSeed = false;
  uint64_t seed = 0;
  std::string signature;  // FILE.py:KERNEL: the runtime parameters' types
  bool irInput = false;   // the source is Triton-IR text (.tir, or from a Python kernel)
  std::string pythonSource;  // a Python kernel's file text (its IR's locations point into it)
};

// A usage error: message only, exit status 1.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws UsageError for an unknown command or option, or a bad value.
Options parseCommandLine(int argc, char** argv);

// The usage of `command` ("" or an unknown one: of every command).
std::string usage(const std::string& command);

}  // namespace tritonc::cli
