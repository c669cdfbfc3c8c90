#include "target/nvptx/gpu_runner.h"

#include <cstring>
#include <map>

#include "target/nvptx/cuda_driver.h"

namespace tritonc::nvptx {

std::string gpuArch(std::string* whyNot) {
  CudaDriver* d = CudaDriver::get(whyNot);
  if (!d) return "";
  std::string arch = "sm_" + std::to_string(d->ccMajor) + std::to_string(d->ccMinor);
  return d->ccMajor == 9 ? arch + "a" : arch;
}

GpuRunResult runOnGpu(const std::string& ptx, const ir::Function& fn, const interp::Grid& grid,
                      const std::vector<interp::KernelArg>& args, const GpuLaunchOptions& opts) {
  std::string why;
  CudaDriver* d = CudaDriver::get(&why);
  if (!d) throw UserError(SourceLoc{}, why);
  const std::string& name = fn.name();
  if (args.size() != fn.arguments().size())
    throw UserError(SourceLoc{}, "kernel '" + name + "' takes " + std::to_string(fn.arguments().size()) +
                                     " arguments, " + std::to_string(args.size()) + " given");
  if (grid.x <= 0 || grid.y <= 0 || grid.z <= 0 || grid.x > 2147483647 || grid.y > 65535 || grid.z > 65535)
    throw UserError(SourceLoc{}, "bad grid for kernel '" + name + "'");

  char log[8192] = {0};
  int optKeys[2] = {5, 6};  // CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES
  void* optVals[2] = {log, reinterpret_cast<void*>(uintptr_t(sizeof log - 1))};
  CUmodule mod = nullptr;
  CUresult r = d->cuModuleLoadDataEx(&mod, ptx.c_str(), 2, optKeys, optVals);
  if (r != 0) throw UserError(SourceLoc{}, "loading the PTX of kernel '" + name + "' failed: " + d->errorText(r) + "\n" + log);
  struct Unload {
    CudaDriver* d;
    CUmodule m;
    ~Unload() { d->cuModuleUnload(m); }
  } unload{d, mod};
  CUfunction func = nullptr;
  d->check(d->cuModuleGetFunction(&func, mod, name.c_str()), "finding the function", name);
  // Dynamic shared memory, as the PTX of this kernel asks.
  unsigned sharedBytes = 0;
  size_t entry = ptx.find(".entry " + name + "(");
  size_t mark = entry == std::string::npos ? entry : ptx.find("// tritonc: dynamic_shared_bytes ", entry);
  size_t next = entry == std::string::npos ? entry : ptx.find(".entry ", entry + 1);
  if (mark != std::string::npos && (next == std::string::npos || mark < next)) {
    sharedBytes = unsigned(std::stoul(ptx.substr(mark + 33)));
    CUresult sr = d->cuFuncSetAttribute(func, 8 /* MAX_DYNAMIC_SHARED_SIZE_BYTES */, int(sharedBytes));
    if (sr != 0)
      throw UserError(SourceLoc{}, "kernel '" + name + "' needs " + std::to_string(sharedBytes) +
                                       " bytes of shared memory, more than the GPU allows: " + d->errorText(sr));
  }

  // Device copies of the buffers (one per distinct host buffer).
  std::map<interp::Buffer*, CUdeviceptr> device;
  struct Free {
    CudaDriver* d;
    std::map<interp::Buffer*, CUdeviceptr>& m;
    ~Free() {
      for (auto& [b, p] : m) d->cuMemFree(p);
    }
  } freeAll{d, device};
  std::vector<std::vector<uint8_t>> storage(args.size());
  std::vector<void*> params(args.size());
  for (size_t k = 0; k < args.size(); ++k) {
    const ir::Type& t = fn.argument(k)->type();
    const interp::KernelArg& a = args[k];
    auto put = [&](const void* p, size_t n) {
      storage[k].assign(static_cast<const uint8_t*>(p), static_cast<const uint8_t*>(p) + n);
      params[k] = storage[k].data();
    };
    if (t.isPtr()) {
      if (a.kind != interp::KernelArg::Kind::Buffer || !a.buffer)
        throw UserError(SourceLoc{}, "argument '" + fn.argument(k)->name() + "' of kernel '" + name + "' needs a buffer");
      interp::Buffer* b = a.buffer;
      if (!device.count(b)) {
        CUdeviceptr p = 0;
        d->check(d->cuMemAlloc(&p, std::max<size_t>(b->data.size(), 16)), "allocating device memory", name);
        device[b] = p;
        if (!b->data.empty()) d->check(d->cuMemcpyHtoD(p, b->data.data(), b->data.size()), "copying to the device", name);
      }
      put(&device[b], sizeof(CUdeviceptr));
      continue;
    }
    if (a.kind == interp::KernelArg::Kind::Buffer)
      throw UserError(SourceLoc{}, "argument '" + fn.argument(k)->name() + "' of kernel '" + name + "' is a scalar");
    double fv = a.kind == interp::KernelArg::Kind::Float ? a.f : double(a.i);
    int64_t iv = a.kind == interp::KernelArg::Kind::Int ? a.i : int64_t(a.f);
    switch (t.kind) {
      case ir::Scalar::I1: case ir::Scalar::I8: case ir::Scalar::I16: case ir::Scalar::I32: {
        int32_t v = int32_t(t.kind == ir::Scalar::I1 ? iv != 0 : iv);
        put(&v, 4);
        break;
      }
      case ir::Scalar::I64: put(&iv, 8); break;
      case ir::Scalar::F32: { float v = float(fv); put(&v, 4); break; }
      case ir::Scalar::F64: put(&fv, 8); break;
      default: throw UserError(SourceLoc{}, std::string("scalar arguments of type ") + ir::scalarName(t.kind) +
                                                " are not supported on the GPU yet");
    }
  }

  unsigned threads = unsigned(32 * opts.numWarps);
  auto launch = [&] {
    d->check(d->cuLaunchKernel(func, unsigned(grid.x), unsigned(grid.y), unsigned(grid.z), threads, 1, 1, sharedBytes,
                               nullptr, params.data(), nullptr),
             "launching", name);
  };
  GpuRunResult result;
  result.device = d->deviceName;
  if (opts.repeats <= 0) {
    launch();
  } else {
    for (int w = 0; w < opts.warmup; ++w) launch();
    CUdeviceptr flush = 0;
    if (opts.flushBytes) d->check(d->cuMemAlloc(&flush, opts.flushBytes), "allocating the cache-flush buffer", name);
    CUevent start = nullptr, stop = nullptr;
    d->check(d->cuEventCreate(&start, 0), "creating an event", name);
    d->check(d->cuEventCreate(&stop, 0), "creating an event", name);
    for (int rep = 0; rep < opts.repeats; ++rep) {
      if (flush) d->check(d->cuMemsetD8(flush, uint8_t(rep), opts.flushBytes), "flushing the cache", name);
      d->cuEventRecord(start, nullptr);
      launch();
      d->cuEventRecord(stop, nullptr);
      d->check(d->cuEventSynchronize(stop), "running", name);
      float ms = 0;
      d->cuEventElapsedTime(&ms, start, stop);
      result.timesMs.push_back(ms);
    }
    d->cuEventDestroy(start);
    d->cuEventDestroy(stop);
    if (flush) d->cuMemFree(flush);
  }
  d->check(d->cuCtxSynchronize(), "running", name);
  for (auto& [b, p] : device)
    if (!b->data.empty()) d->check(d->cuMemcpyDtoH(b->data.data(), p, b->data.size()), "copying from the device", name);
  return result;
}

}  // namespace tritonc::nvptx
