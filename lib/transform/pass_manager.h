// The pass manager: runs named function passes in a declared order, verifies
// the IR after every pass (a pass that breaks the IR is named at once), and
// can print the IR after every pass.
#pragma once
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace tritonc::transform {

struct PipelineOptions {
  std::ostream* printAfterEach = nullptr;  // print the IR after each pass here
  // Software-pipelining depth (Triton's num_stages): loads are pre-fetched
  // num_stages - 1 iterations ahead; 1 turns pre-fetching off.
  int numStages = kDefaultNumStages;
  static constexpr int kDefaultNumStages = 3;
};

struct PassInfo {
  const char* name;         // as given to --passes
  const char* description;  // one line for --help
  bool (*run)(ir::Function&, const PipelineOptions&);  // returns whether the function changed
};

// Every pass, in the order of the default pipeline's first appearance.
const std::vector<PassInfo>& allPasses();
const PassInfo* findPass(const std::string& name);
// The default machine-independent pipeline.
std::vector<std::string> defaultPipeline();

// Runs `passes` on every function of `m`. Throws UserError for an unknown pass
// name and InternalError when a pass leaves invalid IR (naming the pass).
void runPasses(ir::Module& m, const std::vector<std::string>& passes, const PipelineOptions& opts = {});

// Splits "a,b,c" (the --passes option); "default" expands to the default pipeline.
std::vector<std::string> parsePassList(const std::string& list);

}  // namespace tritonc::transform
