#include "target/nvptx/cuda_driver.h"

#include <dlfcn.h>

#include <memory>
#include <mutex>

#include "support/diagnostic.h"

namespace tritonc::nvptx {

namespace {

template <class F>
bool bind(void* lib, F*& slot, const char* name) {
  slot = reinterpret_cast<F*>(dlsym(lib, name));
  return slot != nullptr;
}

std::unique_ptr<CudaDriver> load(std::string* whyNot) {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    *whyNot = std::string("no CUDA driver (libcuda.so.1): ") + dlerror();
    return nullptr;
  }
  auto d = std::make_unique<CudaDriver>();
  bool ok = bind(lib, d->cuInit, "cuInit") && bind(lib, d->cuDeviceGetCount, "cuDeviceGetCount") &&
            bind(lib, d->cuDeviceGet, "cuDeviceGet") && bind(lib, d->cuDeviceGetName, "cuDeviceGetName") &&
            bind(lib, d->cuDeviceGetAttribute, "cuDeviceGetAttribute") &&
            bind(lib, d->cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain") &&
            bind(lib, d->cuCtxSetCurrent, "cuCtxSetCurrent") && bind(lib, d->cuCtxSynchronize, "cuCtxSynchronize") &&
            bind(lib, d->cuStreamSynchronize, "cuStreamSynchronize") &&
            bind(lib, d->cuModuleLoadDataEx, "cuModuleLoadDataEx") && bind(lib, d->cuModuleUnload, "cuModuleUnload") &&
            bind(lib, d->cuModuleGetFunction, "cuModuleGetFunction") &&
            bind(lib, d->cuFuncSetAttribute, "cuFuncSetAttribute") &&
            bind(lib, d->cuFuncGetAttribute, "cuFuncGetAttribute") && bind(lib, d->cuMemAlloc, "cuMemAlloc_v2") &&
            bind(lib, d->cuMemFree, "cuMemFree_v2") && bind(lib, d->cuMemcpyHtoD, "cuMemcpyHtoD_v2") &&
            bind(lib, d->cuMemcpyDtoH, "cuMemcpyDtoH_v2") &&
            bind(lib, d->cuMemcpyDtoD, "cuMemcpyDtoD_v2") && bind(lib, d->cuMemsetD8, "cuMemsetD8_v2") &&
            bind(lib, d->cuMemsetD8Async, "cuMemsetD8Async") &&
            bind(lib, d->cuLaunchKernel, "cuLaunchKernel") && bind(lib, d->cuEventCreate, "cuEventCreate") &&
            bind(lib, d->cuEventRecord, "cuEventRecord") && bind(lib, d->cuEventSynchronize, "cuEventSynchronize") &&
            bind(lib, d->cuEventElapsedTime, "cuEventElapsedTime") && bind(lib, d->cuEventDestroy, "cuEventDestroy_v2") &&
            bind(lib, d->cuGetErrorName, "cuGetErrorName") && bind(lib, d->cuGetErrorString, "cuGetErrorString");
  if (!bind(lib, d->cuTensorMapEncodeTiled, "cuTensorMapEncodeTiled")) d->cuTensorMapEncodeTiled = nullptr;
  if (!bind(lib, d->cuLaunchKernelEx, "cuLaunchKernelEx")) d->cuLaunchKernelEx = nullptr;
  if (!ok) {
    *whyNot = "the CUDA driver lacks an entry point tritonc needs (driver too old?)";
    return nullptr;
  }
  int count = 0;
  if (d->cuInit(0) != 0 || d->cuDeviceGetCount(&count) != 0 || count == 0) {
    *whyNot = "the CUDA driver found no GPU";
    return nullptr;
  }
  CUcontext ctx = nullptr;
  if (d->cuDeviceGet(&d->device, 0) != 0 || d->cuDevicePrimaryCtxRetain(&ctx, d->device) != 0 ||
      d->cuCtxSetCurrent(ctx) != 0) {
    *whyNot = "could not create a CUDA context on device 0";
    return nullptr;
  }
  d->context = ctx;
  char name[256] = {0};
  d->cuDeviceGetName(name, sizeof name - 1, d->device);
  d->deviceName = name;
  d->cuDeviceGetAttribute(&d->ccMajor, 75, d->device);
  d->cuDeviceGetAttribute(&d->ccMinor, 76, d->device);
  return d;
}

}  // namespace

CudaDriver* CudaDriver::get(std::string* whyNot) {
  static std::once_flag once;
  static std::unique_ptr<CudaDriver> driver;
  static std::string reason;
  std::call_once(once, [] { driver = load(&reason); });
  if (!driver && whyNot) *whyNot = reason;
  // A context is current per thread: make device 0's primary context (the
  // CUDA runtime's) current on every thread that uses the driver.
  thread_local bool current = false;
  if (driver && !current) current = driver->cuCtxSetCurrent(driver->context) == 0;
  return driver.get();
}

std::string CudaDriver::errorText(CUresult r) const {
  const char* name = nullptr;
  const char* text = nullptr;
  cuGetErrorName(r, &name);
  cuGetErrorString(r, &text);
  return std::string(name ? name : "CUDA error " + std::to_string(r)) + (text ? std::string(": ") + text : "");
}

bool isContextFatal(CUresult r) {
  switch (r) {
    case 700:  // CUDA_ERROR_ILLEGAL_ADDRESS
    case 702:  // CUDA_ERROR_LAUNCH_TIMEOUT
    case 710:  // CUDA_ERROR_ASSERT
    case 714:  // CUDA_ERROR_HARDWARE_STACK_ERROR
    case 715:  // CUDA_ERROR_ILLEGAL_INSTRUCTION
    case 716:  // CUDA_ERROR_MISALIGNED_ADDRESS
    case 717:  // CUDA_ERROR_INVALID_ADDRESS_SPACE
    case 718:  // CUDA_ERROR_INVALID_PC
    case 719:  // CUDA_ERROR_LAUNCH_FAILED
      return true;
    default:
      return false;
  }
}

namespace {
// The first context-fatal error of the process, said again with every later error.
std::mutex lostMutex;
std::string lostContext;
}  // namespace

void CudaDriver::check(CUresult r, const std::string& what, const std::string& kernel) const {
  if (r == 0) return;
  std::string message =
      what + " failed" + (kernel.empty() ? "" : " for kernel '" + kernel + "'") + ": " + errorText(r);
  std::lock_guard<std::mutex> lock(lostMutex);
  if (!lostContext.empty())
    throw UserError(SourceLoc{}, message + " (the process's CUDA context was lost earlier: " + lostContext +
                                     "; restart the process)");
  if (isContextFatal(r)) {
    lostContext = (kernel.empty() ? "" : "kernel '" + kernel + "': ") + errorText(r);
    throw GpuFault(SourceLoc{}, message);
  }
  throw UserError(SourceLoc{}, message);
}

}  // namespace tritonc::nvptx
