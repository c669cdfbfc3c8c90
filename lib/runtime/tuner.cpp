// The auto-tuner (paper 5.3, SPEC R17): on the first launch for a new tuning
// key, every configuration of the kernel's space is compiled and timed on
// the launch's own arguments, and the fastest is kept, in memory and on
// disk, for later launches with that key. Configurations that fail to
// compile or to launch (too much shared memory, ...) are skipped with the
// reason. Every configuration runs on fresh copies of the caller's buffers:
// tuning never writes the caller's data, and each configuration sees the
// same inputs (a kernel that updates a buffer in place is timed fairly).
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
#include <cstdlib>
#include <thread>

#include "runtime/kernel.h"
#include "runtime/specialize.h"
#include "target/nvptx/gpu_runner.h"
#include "target/nvptx/ptxas.h"

namespace tritonc::runtime {

namespace {

std::string fixedMs(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f ms", ms);
  return buf;
}

// Copies of the buffers among `args` (host or device), and the arguments
// pointing at them.
struct ScratchArgs {
  std::vector<std::unique_ptr<interp::Buffer>> copies;
  std::vector<std::unique_ptr<nvptx::DeviceCopy>> deviceCopies;
  std::vector<interp::KernelArg> args;
  ScratchArgs(const std::vector<interp::KernelArg>& original) : args(original) {
    std::map<interp::Buffer*, interp::Buffer*> made;
    std::map<int64_t, uint64_t> madeOnDevice;
    for (interp::KernelArg& a : args) {
      if (a.kind == interp::KernelArg::Kind::DevicePtr) {
        auto it = madeOnDevice.find(a.i);
        if (it == madeOnDevice.end()) {
          deviceCopies.push_back(std::make_unique<nvptx::DeviceCopy>(uint64_t(a.i), a.bytes));
          it = madeOnDevice.emplace(a.i, deviceCopies.back()->address()).first;
        }
        a.i = int64_t(it->second);
        continue;
      }
      if (a.kind != interp::KernelArg::Kind::Buffer || !a.buffer) continue;
      auto it = made.find(a.buffer);
      if (it == made.end()) {
        copies.push_back(std::make_unique<interp::Buffer>(*a.buffer));
        it = made.emplace(a.buffer, copies.back().get()).first;
      }
      a.buffer = it->second;
    }
  }
};

}  // namespace

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
  for (const interp::KernelArg& a : args)
    if (a.kind == interp::KernelArg::Kind::DevicePtr && a.bytes == 0)
      throw UserError(SourceLoc{}, "tuning kernel '" + name_ +
                                       "' needs the size of every device buffer (it runs each configuration on "
                                       "copies of them, never on the caller's data)");
  // The copies are taken on the legacy stream, which waits for the blocking
  // streams only: the caller's stream may be a non-blocking one.
  if (stream && std::any_of(args.begin(), args.end(), [](const interp::KernelArg& a) {
        return a.kind == interp::KernelArg::Kind::DevicePtr;
      }))
    nvptx::synchronizeStream(stream);
  const int repeats = opts_.tuneRepeats > 0 ? opts_.tuneRepeats : target_ == "interp" ? 3 : 10;
  const char* verbose = std::getenv("TRITONC_TUNE_VERBOSE");
  auto say = [&](const std::string& line) {
    if (opts_.progress) opts_.progress(line);
    else if (verbose && std::string(verbose) == "1") std::fprintf(stderr, "%s\n", line.c_str());
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
  std::vector<bool> built(n, false);
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
          built[i] = true;
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
  // 2. Spilling configurations go, unless every one spills.
  if (gpu && opts_.tuneShortcuts) {
    bool someClean = false;
    for (size_t i = 0; i < n; ++i)
      someClean = someClean || (result.trials[i].error.empty() && code[i]->gpu && code[i]->gpu->localBytes() == 0);
    for (size_t i = 0; i < n && someClean; ++i)
      if (result.trials[i].error.empty() && code[i]->gpu->localBytes() > 0)
        result.trials[i].error = "spills: " + std::to_string(code[i]->gpu->localBytes()) + " bytes of local memory per thread (" +
                                 std::to_string(code[i]->gpu->registers()) + " registers)";
  }
  result.compileSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // 3. Timing, with an early stop for the clearly slower.
  t0 = std::chrono::steady_clock::now();
  const TuneTrial* best = nullptr;
  constexpr int kFirstRepeats = 3;
  constexpr double kClearlySlower = 1.3;
  for (size_t i = 0; i < n; ++i) {
    TuneTrial& t = result.trials[i];
    if (t.error.empty()) {
      try {
        ScratchArgs scratch(args);
        int first = opts_.tuneShortcuts ? std::min(repeats, kFirstRepeats) : repeats;
        std::vector<float> times = run(*code[i], scratch.args, grid(t.config), first, nullptr);
        std::sort(times.begin(), times.end());
        double estimate = times.empty() ? 0 : times[times.size() / 2];
        if (best && estimate > kClearlySlower * best->ms) {
          t.ms = estimate;
          t.stoppedEarly = true;
        } else {
          if (repeats > first) {
            std::vector<float> more = run(*code[i], scratch.args, grid(t.config), repeats - first, nullptr);
            times.insert(times.end(), more.begin(), more.end());
            std::sort(times.begin(), times.end());
          }
          t.ms = times.empty() ? 0 : times[times.size() / 2];
        }
      } catch (const InternalError&) {
        throw;  // our bug, not a property of the configuration
      } catch (const std::exception& e) {
        // The message's last non-empty line: a diagnostic's first line, a
        // Python traceback's exception.
        std::string what = e.what();
        while (!what.empty() && what.back() == '\n') what.pop_back();
        size_t firstNl = what.find('\n');
        bool traceback = what.rfind("Traceback", 0) == 0;
        t.error = traceback ? what.substr(what.rfind('\n') + 1) : what.substr(0, firstNl);
      }
    }
    if (t.error.empty() && !t.stoppedEarly && (!best || t.ms < best->ms)) best = &t;
    std::string line = "  configuration " + std::to_string(i + 1) + " of " + std::to_string(n) + " (" + t.config.text() +
                       "): " + (t.error.empty() ? fixedMs(t.ms) + (t.stoppedEarly ? " (stopped early)" : "") : "skipped: " + t.error);
    if (best) line += "; best so far " + fixedMs(best->ms) + " (" + best->config.text() + ")";
    say(line);
  }
  result.timeSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!best) {
    std::string why = "every configuration of kernel '" + name_ + "' failed:";
    for (const TuneTrial& t : result.trials) why += "\n  " + t.config.text() + ": " + t.error;
    throw UserError(SourceLoc{}, why);
  }
  say("tuned in " + std::to_string(result.compileSeconds + result.timeSeconds).substr(0, 5) + " s (compiling " +
      std::to_string(result.compileSeconds).substr(0, 5) + " s on " + std::to_string(threads) + " threads, timing " +
      std::to_string(result.timeSeconds).substr(0, 5) + " s): " + best->config.text());
  result.best = best->config;
  result.bestIndex = size_t(best - result.trials.data());  // trials follow the space's order
  result.bestMs = best->ms;
  result.origin = "tuned";
  tuned_[result.tuningKey] = result.bestIndex;
  if (force) memo_.clear();  // a re-tune may choose differently for shapes already launched
  if (disk_) disk_->store(recordKey, best->config.text());
  return result;
}

}  // namespace tritonc::runtime
