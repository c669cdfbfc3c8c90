#include "runtime/compiled_kernel.h"

#include <algorithm>
#include <chrono>

#include "support/diagnostic.h"
#include "target/cpu/cpu_backend.h"
#include "target/nvptx/gpu_runner.h"

namespace tritonc::runtime {

CompiledKernel::~CompiledKernel() = default;

void loadOnGpu(CompiledKernel& k, const std::string& name) {
  if (k.gpu) return;
  std::vector<ir::Type> types;
  std::vector<std::string> names;
  for (const Param& p : k.signature) {
    types.push_back(p.type);
    names.push_back(p.name);
  }
  k.gpu = std::make_unique<nvptx::GpuKernel>(k.ptx, name, types, names, k.cubin);
  k.cubin.clear();  // loaded: no longer needed
}

void loadOnCpu(CompiledKernel& k) {
  if (k.cpu) return;
  if (!k.function) throw InternalError("a CPU kernel without its IR");
  k.cpu = cpu::CpuKernel::compile(*k.function);
}

void checkGrid(const std::string& kernel, const interp::Grid& grid) {
  std::string problem = interp::gridProblem(grid);
  if (!problem.empty()) throw UserError(SourceLoc{}, "kernel '" + kernel + "': " + problem);
}

std::vector<float> runCompiled(CompiledKernel& k, const std::string& target, const std::string& name,
                               const std::vector<interp::KernelArg>& args, const interp::Grid& grid, int repeats,
                               void* stream) {
  checkGrid(name, grid);
  std::vector<float> times;
  if (target.rfind("sm_", 0) != 0) {
    if (target == "cpu") loadOnCpu(k);
    for (int rep = 0; rep < std::max(repeats, 1); ++rep) {
      auto t0 = std::chrono::steady_clock::now();
      if (target == "cpu") k.cpu->run(grid, args);
      else interp::runKernel(*k.function, grid, args);
      times.push_back(std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    if (repeats <= 0) times.clear();
    return times;
  }
  loadOnGpu(k, name);
  bool allDevice = std::all_of(args.begin(), args.end(),
                               [](const interp::KernelArg& a) { return a.kind != interp::KernelArg::Kind::Buffer; });
  if (allDevice && repeats <= 0) {
    k.gpu->launchAsync(grid, args, k.config.numWarps, stream);
    return times;
  }
  nvptx::GpuLaunchOptions lo;
  lo.numWarps = k.config.numWarps;
  lo.stream = stream;
  lo.warmup = repeats > 0 ? 1 : 0;
  lo.repeats = repeats;
  return k.gpu->run(grid, args, lo).timesMs;
}

}  // namespace tritonc::runtime
