// What callers launch: a kernel with parameters, a space of configurations
// and a target. Two kinds implement it: runtime::Kernel (Triton-C source,
// compiled on demand) and runtime::LoadedKernel (code compiled ahead of time,
// read from a .tck file). The C API and the Python module launch either.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "runtime/config.h"
#include "runtime/launch_memo.h"
#include "target/interp/interpreter.h"

namespace tritonc::runtime {

// The grid of a launch, from the configuration (the seed's grid = lambda opt: ...).
using GridFn = std::function<interp::Grid(const Config&)>;

struct TuneTrial {
  Config config;
  double ms = 0;      // median; 0 when it failed
  std::string error;  // why it was skipped
  bool stoppedEarly = false;  // timed less: clearly slower than the best so far (ms is that estimate)
  bool retimed = false;  // a finalist: timed again beside the others close to the best (ms covers every run)
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

class Launchable {
 public:
  virtual ~Launchable() = default;

  virtual const std::vector<Param>& params() const = 0;
  virtual const std::vector<Config>& space() const = 0;
  virtual const std::string& target() const = 0;  // "interp", "cpu" or "sm_XX"
  virtual const std::string& name() const = 0;
  bool onGpu() const { return target().rfind("sm_", 0) == 0; }

  // Settles the configuration and the code for `args` (tuning when the
  // space has several configurations and their shape is new, see
  // launch_memo.h; device buffers are copied for tuning once `stream`'s work
  // is done).
  virtual PreparedLaunch prepare(const std::vector<interp::KernelArg>& args, const GridFn& grid,
                                 void* stream = nullptr) = 0;
  // The same from the memo alone (empty when the shape is new).
  virtual PreparedLaunch prepared(const std::vector<interp::KernelArg>& args) = 0;
  // Runs a prepared launch on `grid`. Pointer arguments are host buffers
  // (interpreter, CPU, or copied to the GPU and back) or device addresses
  // (GPU, launched asynchronously on `stream`).
  virtual void launch(const PreparedLaunch& p, const std::vector<interp::KernelArg>& args, const interp::Grid& grid,
                      void* stream = nullptr) = 0;
  // prepare(), then launch() on the chosen configuration's grid.
  void launch(const std::vector<interp::KernelArg>& args, const GridFn& grid, void* stream = nullptr) {
    PreparedLaunch p = prepare(args, grid, stream);
    launch(p, args, grid(*p.config), stream);
  }
  // Times every configuration on copies of `args` (the caller's buffers are
  // never written) and keeps the fastest for the tuning key of `args`. With
  // `force`, tunes even when the key is known.
  virtual TuneResult tune(const std::vector<interp::KernelArg>& args, const GridFn& grid, bool force = false,
                          void* stream = nullptr) = 0;
  // The tuning key of `args`: "M=512,N=512,K=128 [AAD...]".
  virtual std::string tuningKeyOf(const std::vector<interp::KernelArg>& args) const = 0;
};

}  // namespace tritonc::runtime
