// The timing half of tuning, shared by runtime::Kernel (which compiles the
// configurations first) and runtime::LoadedKernel (whose code comes from a
// .tck file): every configuration runs on fresh copies of the caller's
// buffers, so tuning never writes the caller's data and each configuration
// sees the same inputs (a kernel that updates a buffer in place is timed
// fairly). Device copies get the slack PyTorch's allocator would give the
// caller's buffers (target/nvptx/allocation_slack.h). On the GPU,
// configurations that spill registers are skipped unless all do, and each
// is timed three times first and no more when it is already clearly (30 %)
// slower than the best so far. A GPU fault ends tuning at once with one
// report (fault_report.h): the CUDA context is lost, nothing else can run.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "runtime/compiled_kernel.h"
#include "runtime/launchable.h"

namespace tritonc::runtime {

struct TrialOptions {
  std::string kernel;  // its name
  std::string target;  // "interp", "cpu" or "sm_XX"
  int repeats = 10;    // timed runs per configuration
  bool shortcuts = true;  // skip spilling configurations, stop timing the clearly slower early
  std::function<void(const std::string&)> say;  // progress lines (may be null)
  // For the report of a GPU fault: the source file and the parameters.
  std::string sourceFile;
  std::vector<Param> params;
};

// Times `code[i]` for every trial of `result` (whose config is set, and
// whose error is set for those that cannot run: their code may be null),
// filling each trial's ms, stoppedEarly or error, and the result's best,
// bestIndex, bestMs and timeSeconds. Throws UserError listing every
// configuration's error when none runs, and the fault report at a GPU fault.
void timeTrials(TuneResult& result, const std::vector<CompiledKernel*>& code,
                const std::vector<interp::KernelArg>& args, const GridFn& grid, const TrialOptions& options);

// The finalists of a sweep: the trials that ran in full (no error, not
// stopped early) within `margin` of the fastest (ms <= fastest * (1 +
// margin)), fastest first, at most `most`; none when fewer than two qualify.
std::vector<size_t> finalists(const std::vector<TuneTrial>& trials, double margin, size_t most);

// Before the trials: throws UserError naming a device buffer of unknown
// size (its copy needs it), and waits for `stream`'s work (the copies are
// taken on the legacy stream, which waits for the blocking streams only: the
// caller's stream may be a non-blocking one).
void prepareTrialArguments(const std::string& kernel, const std::vector<interp::KernelArg>& args, void* stream);
// TRITONC_TUNE_FINAL_MS from the environment: the milliseconds each final
// round runs a GPU finalist for (default 100; 0: the trial's run count).
double finalRoundMsFromEnvironment();
// Timed runs per configuration: `requested` when positive, else 10 (3 on the interpreter).
int trialRepeats(const std::string& target, int requested);
// Where tuning progress goes: `progress`, else stderr when
// TRITONC_TUNE_VERBOSE=1, else nowhere.
std::function<void(const std::string&)> tuningProgress(const std::function<void(const std::string&)>& progress);

// "1.2345 ms"
std::string formatMs(double ms);

}  // namespace tritonc::runtime
