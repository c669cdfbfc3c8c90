// A kernel of the runtime: Triton-C source plus options. It is compiled once
// per configuration (a point of its tuning space) and launch specialization
// (argument types, which pointers are 16-byte aligned and which integers are
// divisible by 16), and the result is cached in memory and on disk. A launch
// of a kernel whose source or options declare a tuning space is auto-tuned
// first, once per tuning key (tuner.cpp).
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "lang/compile.h"
#include "runtime/compiled_kernel.h"
#include "runtime/config.h"
#include "runtime/disk_cache.h"
#include "runtime/launch_memo.h"
#include "runtime/launchable.h"
#include "runtime/version.h"
#include "target/interp/interpreter.h"

namespace tritonc::runtime {

struct ArgFacts;

struct KernelOptions {
  std::string filename = "<source>";   // for diagnostics
  // The source is Triton-C, or Triton-IR text from another front end (the
  // Python DSL: one kernel per set of constexpr values, no -D macros).
  lang::Language language = lang::Language::TritonC;
  std::vector<lang::Define> defines;   // -D; NAME=[a, b] is a tuning parameter
  std::vector<int> numWarps = {4};     // several values: tuned over
  std::vector<int> numStages = {3};    // several values: tuned over
  std::string target = "auto";         // auto (the GPU when present, else cpu when built, else interp), interp, cpu, gpu, sm_80, sm_90a, ...
  std::string kernel;                  // the __global__ function to run (empty: the only one)
  // Arguments whose values key the tuning results; empty: every integer argument.
  std::vector<std::string> tuningKey;
  std::string cacheDir;                // empty: DiskCache::defaultDirectory(); "none" (either): memory only
  bool allowTf32 = false;              // f32 dots on tensor cores with tf32 inputs (GPU)
  int tuneRepeats = 0;                 // timed runs per configuration (0: 10 on a GPU, 3 on the interpreter)
  // Tuning progress, one line at a time (configuration i of n, best so far);
  // null: quiet, unless TRITONC_TUNE_VERBOSE=1 (then to stderr).
  std::function<void(const std::string&)> progress;
  int tuneThreads = 0;                 // threads that compile the space (0: the machine's cores, at most 16)
  // Skip spilling configurations and stop timing the clearly slower early
  // (off: every configuration timed in full, as a reference).
  bool tuneShortcuts = true;
  // Warnings about the source (`FILE:LINE:COL: warning: ...` with the line
  // and a caret), each once per kernel object; null: printed to stderr.
  std::function<void(const std::string&)> warn;
  // A compile (a miss of both caches) is an error naming the key, as with
  // TRITONC_CACHE_MUST_HIT=1 (compile_log.h; TRITONC_LOG_COMPILES=1 logs them).
  bool cacheMustHit = false;
};

struct CacheStats {
  int memoryHits = 0, diskHits = 0, compiles = 0, diskStores = 0;
  std::string lastDiskProblem;  // why the last disk entry was rejected, if one was
};

class Kernel : public Launchable {
 public:
  // Parses the source and finds its parameters and tuning space. Throws
  // UserError on a bad source or bad options.
  Kernel(std::string source, KernelOptions opts);
  ~Kernel() override;

  const std::vector<Param>& params() const override { return params_; }
  const std::vector<Config>& space() const override { return space_; }
  const std::string& target() const override { return target_; }  // resolved: "interp", "cpu" or "sm_XX"
  const std::string& name() const override { return name_; }
  const KernelOptions& options() const { return opts_; }

  // Compiles `config` specialized for `args` (or for launch facts: ahead of
  // time, runtime/aot_compile.h), or finds it in the caches.
  std::shared_ptr<CompiledKernel> compile(const Config& config, const std::vector<interp::KernelArg>& args);
  std::shared_ptr<CompiledKernel> compile(const Config& config, const std::vector<ArgFacts>& facts);
  // Launchable: the tuner (tuner.cpp) compiles and times every configuration
  // for a new tuning key and keeps the fastest, in memory and on disk.
  using Launchable::launch;
  PreparedLaunch prepare(const std::vector<interp::KernelArg>& args, const GridFn& grid,
                         void* stream = nullptr) override;
  PreparedLaunch prepared(const std::vector<interp::KernelArg>& args) override;
  void launch(const PreparedLaunch& p, const std::vector<interp::KernelArg>& args, const interp::Grid& grid,
              void* stream = nullptr) override;
  TuneResult tune(const std::vector<interp::KernelArg>& args, const GridFn& grid, bool force = false,
                  void* stream = nullptr) override;
  std::string tuningKeyOf(const std::vector<interp::KernelArg>& args) const override;
  // Throws UserError when `k`'s parameter types are not the kernel's (params()).
  void checkSignature(const CompiledKernel& k) const;

  CacheStats stats() const;
  DiskCache* diskCache() { return disk_.get(); }

 private:
  std::string cacheKey(const Config& c, const std::string& specialization) const;
  std::string tuningRecordKey(const std::string& tuningKey) const;
  const Config* findConfig(const std::string& text) const;
  // compile() in three steps, so that the tuner can build on several threads:
  // the caches (memory, then disk; null on a miss, with the cache key in
  // `key`), building (reads only the kernel's source and options: safe on
  // any thread; the optimized Triton-IR text in `tritonIr` for the disk
  // entry), and keeping what was built (in memory and on disk).
  std::shared_ptr<CompiledKernel> cached(const Config& config, const std::string& specialization, std::string* key);
  std::shared_ptr<CompiledKernel> build(const Config& config, const std::vector<ArgFacts>& facts,
                                        const std::string& key, std::string* tritonIr) const;
  void adopt(const std::shared_ptr<CompiledKernel>& k, const std::string& tritonIr, const Config& config,
             const std::string& specialization);
  lang::CompileOptions compileOptionsFor(const Config& c) const;
  // Passes each warning of a compile not passed before to opts_.warn (any thread).
  void reportWarnings(const std::vector<Warning>& warnings) const;

  std::string source_;
  KernelOptions opts_;
  std::string target_, name_;
  std::vector<Param> params_;
  std::vector<ir::Scalar> paramKinds_;  // integers wrap to these (specialize.h: parameterKinds)
  std::vector<lang::TuningParam> tuning_;
  std::vector<Config> space_;
  std::unique_ptr<DiskCache> disk_;
  mutable std::recursive_mutex mutex_;
  std::map<std::string, std::shared_ptr<CompiledKernel>> compiled_;  // by cache key
  // By (index in the space, specialization key): the launch path's lookup.
  std::map<std::pair<size_t, std::string>, std::shared_ptr<CompiledKernel>> recent_;
  std::map<std::string, size_t> tuned_;  // by tuning key: the best configuration's index in space_
  std::vector<bool> keyed_;              // per parameter: in the tuning key (and the space has several points)
  LaunchMemo memo_;
  CacheStats stats_;
  mutable std::mutex warnMutex_;          // build() reports from the tuner's threads
  mutable std::set<std::string> warned_;  // rendered warnings already reported
};

}  // namespace tritonc::runtime
