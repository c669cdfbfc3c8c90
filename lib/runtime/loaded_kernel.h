// A kernel compiled ahead of time, loaded from a .tck file (kernel_pack.h):
// launched like runtime::Kernel, without the front end or the optimizer.
//
// Loading chooses the file's entries for one target (its GPU's
// architecture, else the CPU, else the interpreter) and the configurations
// whose macros match the requested ones; a launch then takes, among the
// entries of its configuration, the most specialized one whose assumptions
// (aligned pointers, divisible integers) its arguments satisfy. Several
// matching configurations are tuned on the first launch of each tuning key,
// as a source kernel's space is (trial_runs.h). When nothing matches, the
// error names what the file holds.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/compiled_kernel.h"
#include "runtime/kernel_pack.h"
#include "runtime/launch_memo.h"
#include "runtime/launchable.h"

namespace tritonc::runtime {

struct LoadOptions {
  // auto (the GPU when present and the file has code it runs, else cpu when
  // built with it, else interp), gpu, cpu, interp, or sm_XX (that entry
  // exactly). CPU and interpreter entries hold the same IR: either runs on both.
  std::string target = "auto";
  // Macros that select configurations: NAME=VALUE, or NAME=[V1, V2] for any of them.
  std::vector<lang::Define> defines;
  std::vector<int> numWarps, numStages;  // empty: any
  std::string kernel;                    // empty: the file's; else it must be the file's
  std::vector<std::string> tuningKey;    // as KernelOptions::tuningKey
  int tuneRepeats = 0;                   // 0: 10 (3 on the interpreter)
  bool tuneShortcuts = true;
  std::function<void(const std::string&)> progress;  // tuning progress lines
};

// Load failures that are not about the caller's options (the C API's
// statuses tell them apart): the file has no code for the requested target
// or this machine (no GPU, no CPU back end).
class NoCodeForTarget : public UserError {
 public:
  using UserError::UserError;
};

class LoadedKernel : public Launchable {
 public:
  // Throws PackFileError (the file), NoCodeForTarget, or UserError (options
  // that match nothing, naming what the file holds).
  static std::unique_ptr<LoadedKernel> load(const std::string& path, const LoadOptions& options);
  LoadedKernel(KernelPack pack, const LoadOptions& options, std::string path);
  ~LoadedKernel() override;

  const std::vector<Param>& params() const override { return pack_.params; }
  const std::vector<Config>& space() const override { return space_; }
  const std::string& target() const override { return target_; }
  const std::string& name() const override { return pack_.kernel; }
  const std::string& sourceFile() const { return pack_.sourceFile; }
  // The text of sourceFile() when it can be read here ("" otherwise): the
  // line and caret of a located error (the interpreter's out-of-bounds
  // reports) come from it.
  std::string sourceText() const;
  const std::string& path() const { return path_; }

  using Launchable::launch;
  PreparedLaunch prepare(const std::vector<interp::KernelArg>& args, const GridFn& grid,
                         void* stream = nullptr) override;
  PreparedLaunch prepared(const std::vector<interp::KernelArg>& args) override;
  void launch(const PreparedLaunch& p, const std::vector<interp::KernelArg>& args, const interp::Grid& grid,
              void* stream = nullptr) override;
  TuneResult tune(const std::vector<interp::KernelArg>& args, const GridFn& grid, bool force = false,
                  void* stream = nullptr) override;
  std::string tuningKeyOf(const std::vector<interp::KernelArg>& args) const override;

 private:
  // One entry of the file for a configuration of space_: its code, made
  // (IR parsed) at load, loaded on the GPU or JIT-compiled at first use.
  struct Variant {
    std::string specialization;
    std::shared_ptr<CompiledKernel> code;
  };
  // The code of configuration `config` for a launch with specialization key
  // `key`; null with the reason in `why` when the file has none.
  CompiledKernel* codeFor(size_t config, const std::string& key, std::string* why);
  void makeReady(CompiledKernel& k);  // loaded on the GPU or compiled for the CPU

  KernelPack pack_;
  std::string path_;
  LoadOptions options_;
  std::string target_;  // what runs the code: "interp", "cpu" or the entries' "sm_XX"
  std::vector<Config> space_;
  std::vector<std::vector<Variant>> variants_;  // per configuration of space_
  std::vector<ir::Scalar> paramKinds_;
  std::vector<bool> keyed_;
  mutable std::recursive_mutex mutex_;
  std::map<std::string, size_t> tuned_;  // by tuning key: the configuration's index
  LaunchMemo memo_;
};

}  // namespace tritonc::runtime
