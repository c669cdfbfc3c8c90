// The auto-tuner (paper 5.3, SPEC R17): on the first launch for a new tuning
// key, every configuration of the kernel's space is compiled and timed on
// the launch's own arguments, and the fastest is kept, in memory and on
// disk, for later launches with that key. Configurations that fail to
// compile or to launch (too much shared memory, ...) are skipped with the
// reason. Every configuration runs on fresh copies of the caller's buffers:
// tuning never writes the caller's data, and each configuration sees the
// same inputs (a kernel that updates a buffer in place is timed fairly).
#include <algorithm>
#include <cstdio>

#include "runtime/kernel.h"
#include "target/nvptx/gpu_runner.h"

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
  auto say = [&](const std::string& line) {
    if (opts_.progress) opts_.progress(line);
  };
  say("tuning kernel '" + name_ + "' for " + result.tuningKey + ": " + std::to_string(space_.size()) +
      " configurations on " + target_);
  const TuneTrial* best = nullptr;
  result.trials.reserve(space_.size());
  for (size_t i = 0; i < space_.size(); ++i) {
    TuneTrial t;
    t.config = space_[i];
    try {
      std::shared_ptr<CompiledKernel> k = compile(t.config, args);
      checkSignature(*k);
      ScratchArgs scratch(args);
      std::vector<float> times = run(*k, scratch.args, grid(t.config), repeats, nullptr);
      std::sort(times.begin(), times.end());
      t.ms = times.empty() ? 0 : times[times.size() / 2];
    } catch (const InternalError&) {
      throw;  // our bug, not a property of the configuration
    } catch (const std::exception& e) {
      // The message's last non-empty line: a diagnostic's first line, a
      // Python traceback's exception.
      std::string what = e.what();
      while (!what.empty() && what.back() == '\n') what.pop_back();
      size_t first = what.find('\n');
      bool traceback = what.rfind("Traceback", 0) == 0;
      t.error = traceback ? what.substr(what.rfind('\n') + 1) : what.substr(0, first);
    }
    result.trials.push_back(t);
    if (t.error.empty() && (!best || t.ms < best->ms)) best = &result.trials.back();
    std::string line = "  configuration " + std::to_string(i + 1) + " of " + std::to_string(space_.size()) + " (" +
                       t.config.text() + "): " + (t.error.empty() ? fixedMs(t.ms) : "skipped: " + t.error);
    if (best) line += "; best so far " + fixedMs(best->ms) + " (" + best->config.text() + ")";
    say(line);
  }
  if (!best) {
    std::string why = "every configuration of kernel '" + name_ + "' failed:";
    for (const TuneTrial& t : result.trials) why += "\n  " + t.config.text() + ": " + t.error;
    throw UserError(SourceLoc{}, why);
  }
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
