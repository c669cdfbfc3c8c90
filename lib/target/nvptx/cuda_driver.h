// The CUDA driver API, opened with dlopen("libcuda.so.1") at run time, so that
// tritonc builds and runs (interpreter, PTX emission) on machines without a
// GPU or a CUDA installation. Only the entry points the runtime uses.
#pragma once
#include <cstdint>
#include <string>

#include "support/diagnostic.h"

namespace tritonc::nvptx {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = void*;
using CUmodule = void*;
using CUfunction = void*;
using CUstream = void*;
using CUevent = void*;

// cuLaunchKernelEx's configuration (cuda.h's layout): only the cluster
// dimension is used (gpu/multicast.cpp's pairs of programs).
struct CUlaunchAttribute {
  int id;  // CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4
  char pad[4];
  union {
    char bytes[64];
    struct {
      unsigned x, y, z;
    } clusterDim;
  } value;
};
struct CUlaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes;
  CUstream hStream;
  CUlaunchAttribute* attrs;
  unsigned numAttrs;
};
constexpr int kLaunchAttributeClusterDimension = 4;

// An error that leaves the process's CUDA context unusable: a kernel's
// illegal address, misaligned address, illegal instruction, trap or
// assertion (CUDA_ERROR_ILLEGAL_ADDRESS, ...). Every later CUDA call of the
// process fails, so the tuner stops at the first one (runtime/trial_runs.h).
class GpuFault : public UserError {
 public:
  using UserError::UserError;
};
// Whether `r` is such an error.
bool isContextFatal(CUresult r);

struct CudaDriver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGetCount)(int*);
  CUresult (*cuDeviceGet)(CUdevice*, int);
  CUresult (*cuDeviceGetName)(char*, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuModuleLoadDataEx)(CUmodule*, const void*, unsigned, int*, void**);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*);
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
  CUresult (*cuFuncGetAttribute)(int*, int, CUfunction);
  CUresult (*cuMemAlloc)(CUdeviceptr*, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, size_t);
  CUresult (*cuMemcpyDtoH)(void*, CUdeviceptr, size_t);
  CUresult (*cuMemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t);
  CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t);
  CUresult (*cuMemsetD8Async)(CUdeviceptr, unsigned char, size_t, CUstream);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             CUstream, void**, void**);
  CUresult (*cuEventCreate)(CUevent*, unsigned);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuEventElapsedTime)(float*, CUevent, CUevent);
  CUresult (*cuEventDestroy)(CUevent);
  CUresult (*cuGetErrorName)(CUresult, const char**);
  CUresult (*cuGetErrorString)(CUresult, const char**);
  // CUDA 12+ (null before): launches in clusters (multicast copies).
  CUresult (*cuLaunchKernelEx)(const CUlaunchConfig*, CUfunction, void**, void**) = nullptr;
  // CUDA 12+ (null before): the tensor maps of TMA copies (tensor_maps.h).
  CUresult (*cuTensorMapEncodeTiled)(void*, int, unsigned, void*, const uint64_t*, const uint64_t*, const unsigned*,
                                     const unsigned*, int, int, int, int) = nullptr;

  // The driver, loaded and initialized once with device 0's primary context
  // current; nullptr (with the reason in `whyNot`) when there is none.
  static CudaDriver* get(std::string* whyNot = nullptr);
  // "CUDA_ERROR_X: description"
  std::string errorText(CUresult r) const;
  // Throws UserError "`what` failed for kernel 'name': CUDA_ERROR_..." unless
  // r == 0: a GpuFault for a context-fatal error; after one, every error
  // says that the context was lost, and by which kernel.
  void check(CUresult r, const std::string& what, const std::string& kernel = "") const;

  CUdevice device = 0;
  CUcontext context = nullptr;  // device 0's primary context
  std::string deviceName;
  int ccMajor = 0, ccMinor = 0;
};

}  // namespace tritonc::nvptx
