// Runs compiled kernels on the GPU. A GpuKernel keeps its module loaded, so
// that repeated launches cost only the launch. Arguments are the
// interpreter's structs: host buffers (copied in, launched, copied back, so
// that tests compare the two back ends directly) or device addresses
// (launched as they are, on the caller's stream).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "target/interp/interpreter.h"
#include "target/nvptx/tensor_maps.h"

namespace tritonc::nvptx {

struct GpuLaunchOptions {
  int numWarps = 4;
  int warmup = 0;   // extra launches before the timed ones
  int repeats = 0;  // timed launches (CUDA events); 0: launch once, untimed
  // Bytes of device memory overwritten before each timed launch, so that the
  // L2 cache does not hold the inputs of the previous launch (0: no flush).
  size_t flushBytes = size_t(256) << 20;
  void* stream = nullptr;  // CUstream; null: the default stream
};

struct GpuRunResult {
  std::vector<float> timesMs;  // one per timed launch
  std::string device;
};

class GpuKernel {
 public:
  // Loads `ptx` (the driver JIT-compiles it) and finds kernel `fn.name()`;
  // requests the dynamic shared memory the PTX asks for. Throws UserError
  // (naming the kernel) on any CUDA error, and when no GPU is present.
  GpuKernel(const std::string& ptx, const ir::Function& fn);
  // The same from the kernel's signature (parameter types and names).
  // `cubin`, when not empty, is the PTX already assembled (ptxas.h): loaded
  // as it is, the driver compiles nothing.
  GpuKernel(const std::string& ptx, const std::string& name, std::vector<ir::Type> paramTypes,
            std::vector<std::string> paramNames, const std::string& cubin = "");
  ~GpuKernel();
  GpuKernel(const GpuKernel&) = delete;
  GpuKernel& operator=(const GpuKernel&) = delete;

  // Runs on `grid`; host buffers are copied in and back, and the run is
  // waited for. Timed launches when opts.repeats > 0.
  GpuRunResult run(const interp::Grid& grid, const std::vector<interp::KernelArg>& args,
                   const GpuLaunchOptions& opts) const;
  // Launches without waiting; every pointer argument must be a device address.
  void launchAsync(const interp::Grid& grid, const std::vector<interp::KernelArg>& args, int numWarps,
                   void* stream) const;
  const std::string& name() const { return name_; }
  unsigned sharedBytes() const { return sharedBytes_; }
  // What the driver's compiler made of it: registers per thread, and local
  // memory per thread (spilled registers and arrays indexed at run time).
  int registers() const { return registers_; }
  int localBytes() const { return localBytes_; }
  // Whether the PTX's occupancy fallback was loaded, the first asking spilled
  // (occupancy_fallback.h).
  bool occupancyFellBack() const { return fellBack_; }

 private:
  void check(const interp::Grid& grid, const std::vector<interp::KernelArg>& args) const;
  // cuLaunchKernel, or cuLaunchKernelEx in clusters of two along x
  // (pairsAlongX_) and/or y (pairsAlongY_) where the grid's extent is even.
  int launch(const interp::Grid& grid, unsigned threads, void* stream, void** params) const;  // a CUresult

  void* module_ = nullptr;
  void* func_ = nullptr;
  unsigned sharedBytes_ = 0;
  int registers_ = 0, localBytes_ = 0;
  bool fellBack_ = false;
  std::string name_;
  std::vector<ir::Type> paramTypes_;
  std::vector<std::string> paramNames_;
  std::vector<TensorMapSpec> tensorMaps_;  // extra parameters after the user's (tensor_maps.h)
  bool pairsAlongX_ = false;  // `// tritonc: cluster_x 2` in its PTX: multicast copies
  bool pairsAlongY_ = false;  // `// tritonc: cluster_y 2`: copies multicast along y too
  unsigned producerThreads_ = 0;  // `// tritonc: producer_warps N`: 32 N threads added to the block
};

// Waits for the work queued on `stream` (before the tuner copies buffers
// that work may still write).
void synchronizeStream(void* stream);

// A copy of device memory, freed with the object (the tuner runs every
// configuration on copies of the caller's device buffers).
class DeviceCopy {
 public:
  // `capacity` (at least `bytes`) is what is allocated: the bytes after the
  // copy are zero (the tuner's slack, allocation_slack.h).
  DeviceCopy(uint64_t source, size_t bytes, size_t capacity = 0);
  DeviceCopy(const void* host, size_t bytes);  // a device buffer holding `host`'s bytes
  ~DeviceCopy();
  DeviceCopy(const DeviceCopy&) = delete;
  DeviceCopy& operator=(const DeviceCopy&) = delete;
  uint64_t address() const { return address_; }

 private:
  uint64_t address_ = 0;
};

// Loads `ptx`, runs kernel `fn.name()` once on `grid` with `args` (see GpuKernel).
GpuRunResult runOnGpu(const std::string& ptx, const ir::Function& fn, const interp::Grid& grid,
                      const std::vector<interp::KernelArg>& args, const GpuLaunchOptions& opts);

// "sm_90a" for the GPU present, or "" with the reason when there is none.
// TRITONC_GPU_ARCH=sm_80 (any target from sm_80 up to the GPU's) makes that
// the target instead: its PTX runs through the driver's compiler, so that
// the older paths can be checked on a newer GPU. Throws UserError for a
// target the GPU cannot run.
std::string gpuArch(std::string* whyNot = nullptr);

}  // namespace tritonc::nvptx
