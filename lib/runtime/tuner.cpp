// The auto-tuner (paper 5.3, SPEC R17): on the first launch for a new tuning
// key, every configuration of the kernel's space is compiled and timed on
// the launch's own arguments, and the fastest is kept, in memory and on
// disk, for later launches with that key. Configurations that fail to
// compile or to launch (too much shared memory, ...) are skipped with the
// reason. Every configuration runs on fresh copies of the caller's buffers
// (trial_runs.h: tuning never writes the caller's data, and a GPU fault ends
// it with one report).
//
// Tuning takes seconds, not minutes:
//   1. every configuration is compiled, assembled (ptxas in a process of its
//      own, where the toolkit is installed: the driver's compiler, the slow
//      part, takes one module at a time) and loaded on several host threads;
//   2. configurations that spill registers to local memory (the driver says
//      how much) are skipped, unless all do;
//   3. each is timed three times first, and no more when it is already
//      clearly (30 %) slower than the best so far.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

#include "runtime/kernel.h"
#include "runtime/specialize.h"
#include "runtime/trial_runs.h"
#include "target/nvptx/gpu_runner.h"
#include "target/nvptx/ptxas.h"

namespace tritonc::runtime {

TuneResult Kernel::tune(const std::vector<interp::KernelArg>& args, const GridFn& grid, bool force, void* stream) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  TuneResult result;
  result.tuningKey = tuningKeyOf(args);
  if (!force) {
    auto known = tuned_.find(result.tuningKey);
    if (known != tuned_.end()) {  // the launch path: no strings built beyond the key
      result.bestIndex = known->second;
      result.best = space_[known->second];
      result.origin = "memory";
      return result;
    }
  }
  // The record on disk is keyed by the whole source and options.
  const std::string recordKey = tuningRecordKey(result.tuningKey);
  if (!force && disk_) {
    std::optional<std::string> text = disk_->load(recordKey);
    if (const Config* c = text ? findConfig(*text) : nullptr) {
      result.bestIndex = size_t(c - space_.data());
      tuned_[result.tuningKey] = result.bestIndex;
      result.best = *c;
      result.origin = "disk";
      return result;
    }
  }
  prepareTrialArguments(name_, args, stream);
  const int repeats = trialRepeats(target_, opts_.tuneRepeats);
  const std::function<void(const std::string&)> progress = tuningProgress(opts_.progress);
  auto say = [&](const std::string& line) {
    if (progress) progress(line);
  };
  say("tuning kernel '" + name_ + "' for " + result.tuningKey + ": " + std::to_string(space_.size()) +
      " configurations on " + target_);
  const size_t n = space_.size();
  result.trials.resize(n);
  for (size_t i = 0; i < n; ++i) result.trials[i].config = space_[i];

  // 1. Code for every configuration: the caches, then the rest built and
  // loaded on several threads.
  auto t0 = std::chrono::steady_clock::now();
  std::vector<ArgFacts> facts = factsOf(args, paramKinds_);
  const std::string specialization = specializationKey(facts);
  std::vector<std::shared_ptr<CompiledKernel>> code(n);
  std::vector<std::string> keys(n), tritonIr(n);
  // (chars, not vector<bool>: workers set their own elements at once, and
  // vector<bool> packs neighbours into one word, where a write could undo another's)
  std::vector<char> built(n, 0);
  for (size_t i = 0; i < n; ++i) code[i] = cached(space_[i], specialization, &keys[i]);
  const bool gpu = onGpu();
  std::atomic<size_t> next{0};
  std::string internal;  // an InternalError on a worker: rethrown here
  std::mutex internalMutex;
  auto work = [&]() {
    for (size_t i; (i = next++) < n;) {
      TuneTrial& t = result.trials[i];
      try {
        if (!code[i]) {
          code[i] = build(space_[i], facts, keys[i], &tritonIr[i]);
          built[i] = 1;
        }
        // ptxas on this thread (the driver's own compiler would take one
        // module at a time), then a load that compiles nothing.
        if (gpu && !code[i]->gpu && code[i]->cubin.empty()) code[i]->cubin = nvptx::assembleCubin(code[i]->ptx, target_);
        if (gpu) loadOnGpu(*code[i], name_);
        if (target_ == "cpu") loadOnCpu(*code[i]);  // a disk hit: compile here, in parallel
      } catch (const InternalError& e) {
        std::lock_guard<std::mutex> g(internalMutex);
        internal = e.what();
      } catch (const std::exception& e) {
        // The message's first line (a diagnostic's, a driver error's).
        std::string what = e.what();
        t.error = what.substr(0, what.find('\n'));
      }
    }
  };
  unsigned threads = opts_.tuneThreads > 0 ? unsigned(opts_.tuneThreads)
                                            : std::min(16u, std::max(1u, std::thread::hardware_concurrency()));
  threads = unsigned(std::min<size_t>(threads, n));
  std::vector<std::thread> pool;
  for (unsigned w = 1; w < threads; ++w) pool.emplace_back(work);
  work();
  for (std::thread& th : pool) th.join();
  if (!internal.empty()) throw InternalError(internal);
  for (size_t i = 0; i < n; ++i) {
    if (built[i]) adopt(code[i], tritonIr[i], space_[i], specialization);
    if (!code[i] || !result.trials[i].error.empty()) continue;
    try {
      checkSignature(*code[i]);
    } catch (const UserError& e) {
      result.trials[i].error = e.what();
    }
  }
  result.compileSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // 2. and 3. (trial_runs.cpp)
  TrialOptions to;
  to.kernel = name_;
  to.target = target_;
  to.repeats = repeats;
  to.shortcuts = opts_.tuneShortcuts;
  to.say = progress;
  to.sourceFile = opts_.filename;
  to.params = params_;
  std::vector<CompiledKernel*> runnable(n);
  for (size_t i = 0; i < n; ++i) runnable[i] = code[i].get();
  timeTrials(result, runnable, args, grid, to);
  const Config& best = space_[result.bestIndex];
  say("tuned in " + std::to_string(result.compileSeconds + result.timeSeconds).substr(0, 5) + " s (compiling " +
      std::to_string(result.compileSeconds).substr(0, 5) + " s on " + std::to_string(threads) + " threads, timing " +
      std::to_string(result.timeSeconds).substr(0, 5) + " s): " + best.text());
  result.origin = "tuned";
  tuned_[result.tuningKey] = result.bestIndex;
  if (force) memo_.clear();  // a re-tune may choose differently for shapes already launched
  if (disk_) disk_->store(recordKey, best.text());
  return result;
}

}  // namespace tritonc::runtime
