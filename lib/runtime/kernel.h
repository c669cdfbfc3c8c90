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
#include "runtime/disk_cache.h"
#include "runtime/launch_memo.h"
#include "runtime/version.h"
#include "target/interp/interpreter.h"

namespace tritonc::nvptx {
class GpuKernel;
}
namespace tritonc::cpu {
class CpuKernel;
}

namespace tritonc::runtime {

struct ArgFacts;

// One point of a tuning space: a value for each tuning parameter (a -D list
// or a `tunable` declaration), num_warps and num_stages.
struct Config {
  std::vector<lang::Define> values;
  std::vector<lang::Define> fixed;  // the kernel's other -D macros (for value(), not in text())
  int numWarps = 4;
  int numStages = 3;
  std::string text() const;  // "TM=64 TN=32 num_warps=4 num_stages=3"
  // The value of a tuning parameter or of a -D macro of the kernel (opt.d('TM')); "" if none.
  std::string value(const std::string& name) const;
  int64_t intValue(const std::string& name) const;  // throws UserError when not an integer
  bool operator==(const Config& o) const { return text() == o.text(); }
};

struct KernelOptions {
  std::string filename = "<source>";   // for diagnostics
  std::vector<lang::Define> defines;   // -D; NAME=[a, b] is a tuning parameter
  std::vector<int> numWarps = {4};     // several values: tuned over
  std::vector<int> numStages = {3};    // several values: tuned over
  std::string target = "auto";         // auto (the GPU when present, else cpu when built, else interp), interp, cpu, gpu, sm_80, sm_90a, ...
  std::string kernel;                  // the __global__ function to run (empty: the only one)
  // Arguments whose values key the tuning results; empty: every integer argument.
  std::vector<std::string> tuningKey;
  std::string cacheDir;                // empty: DiskCache::defaultDirectory(); "none": memory only
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

struct Param {
  std::string name;
  ir::Type type;
};

// The grid of a launch, from the configuration (the seed's grid = lambda opt: ...).
using GridFn = std::function<interp::Grid(const Config&)>;

// What one configuration compiled to, for one specialization.
struct CompiledKernel {
  Config config;
  std::string key;                     // the cache key
  std::unique_ptr<ir::Module> module;  // optimized and specialized (null for a disk hit of the GPU or CPU code)
  const ir::Function* function = nullptr;
  std::string ptx;                     // GPU targets
  std::string cubin;                   // the PTX assembled by ptxas (the tuner), or empty
  std::vector<Param> signature;        // the compiled function's parameters
  std::unique_ptr<nvptx::GpuKernel> gpu;  // loaded on first GPU launch
  std::unique_ptr<cpu::CpuKernel> cpu;    // the CPU target's code (compiled from `module`, or a disk entry's image)
  double compileMs = 0;                // 0 for a cache hit
  std::string origin;                  // "compiled", "disk" or "memory"
  ~CompiledKernel();
};

struct TuneTrial {
  Config config;
  double ms = 0;      // median; 0 when it failed
  std::string error;  // why it was skipped
  bool stoppedEarly = false;  // timed less: clearly slower than the best so far (ms is that estimate)
};

struct TuneResult {
  std::vector<TuneTrial> trials;  // empty when the result came from a cache
  double compileSeconds = 0, timeSeconds = 0;  // the two phases of tuning
  Config best;
  size_t bestIndex = 0;  // of `best` in the kernel's space
  double bestMs = 0;
  std::string tuningKey;
  std::string origin;  // "tuned", "memory" or "disk"
};

struct CacheStats {
  int memoryHits = 0, diskHits = 0, compiles = 0, diskStores = 0;
  std::string lastDiskProblem;  // why the last disk entry was rejected, if one was
};

// Loads the PTX of `k` into the GPU (the driver's compiler runs) unless it
// is loaded already. Touches `k` only: the tuner loads on several threads.
void loadOnGpu(CompiledKernel& k, const std::string& name);
// JIT-compiles the optimized IR of `k` for the CPU unless it has its code
// already (compiled, or linked from a disk entry's image). Touches `k` only.
void loadOnCpu(CompiledKernel& k);

class Kernel {
 public:
  // Parses the source and finds its parameters and tuning space. Throws
  // UserError on a bad source or bad options.
  Kernel(std::string source, KernelOptions opts);
  ~Kernel();

  const std::vector<Param>& params() const { return params_; }
  const std::vector<Config>& space() const { return space_; }
  const std::string& target() const { return target_; }  // resolved: "interp", "cpu" or "sm_XX"
  bool onGpu() const { return target_.rfind("sm_", 0) == 0; }
  const std::string& name() const { return name_; }
  const KernelOptions& options() const { return opts_; }

  // Compiles `config` specialized for `args`, or finds it in the caches.
  std::shared_ptr<CompiledKernel> compile(const Config& config, const std::vector<interp::KernelArg>& args);
  // Runs the kernel on `args`: tunes first when the space has several
  // configurations and the tuning key of `args` is new. Pointer arguments are
  // host buffers (interpreter, or copied to the GPU and back) or device
  // addresses (GPU, launched asynchronously on `stream`).
  void launch(const std::vector<interp::KernelArg>& args, const GridFn& grid, void* stream = nullptr);
  // The two halves of launch(), for callers that compute the grid themselves
  // (the Python module): prepare() settles the configuration and the code for
  // `args` (tuning and compiling when their shape is new, see launch_memo.h;
  // device buffers are copied for tuning once `stream`'s work is done);
  // prepared() is the same from the memo alone (empty when the shape is new);
  // launch(p, ...) runs it on `grid`.
  PreparedLaunch prepare(const std::vector<interp::KernelArg>& args, const GridFn& grid, void* stream = nullptr);
  PreparedLaunch prepared(const std::vector<interp::KernelArg>& args);
  void launch(const PreparedLaunch& p, const std::vector<interp::KernelArg>& args, const interp::Grid& grid,
              void* stream = nullptr);
  // Times every configuration on copies of `args` (the caller's buffers are
  // never written) and keeps the fastest for the tuning key of `args`, in
  // memory and on disk. With `force`, tunes even when the key is known.
  // Device buffers are copied after the work queued on `stream` (the stream
  // the caller launches on) is done.
  TuneResult tune(const std::vector<interp::KernelArg>& args, const GridFn& grid, bool force = false,
                  void* stream = nullptr);
  // The tuning key of `args`: "M=512,N=512,K=128".
  std::string tuningKeyOf(const std::vector<interp::KernelArg>& args) const;

  CacheStats stats() const;
  DiskCache* diskCache() { return disk_.get(); }

 private:
  // Runs one compiled configuration (no tuning); timed when repeats > 0.
  std::vector<float> run(CompiledKernel& k, const std::vector<interp::KernelArg>& args, const interp::Grid& grid,
                         int repeats, void* stream);
  std::string cacheKey(const Config& c, const std::string& specialization) const;
  std::string tuningRecordKey(const std::string& tuningKey) const;
  const Config* findConfig(const std::string& text) const;
  // Throws UserError when `k`'s parameter types are not the kernel's (params()).
  void checkSignature(const CompiledKernel& k) const;
  // Throws UserError for a grid beyond the GPU's limits (interp::gridProblem).
  void checkGrid(const interp::Grid& grid) const;
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
