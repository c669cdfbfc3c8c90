#include "target/nvptx/gpu_runner.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

#include "support/float16.h"
#include "target/nvptx/cuda_driver.h"
#include "target/nvptx/occupancy_fallback.h"
#include "target/nvptx/tensor_maps.h"

namespace tritonc::nvptx {

std::string gpuArch(std::string* whyNot) {
  CudaDriver* d = CudaDriver::get(whyNot);
  if (!d) return "";
  const int cc = d->ccMajor * 10 + d->ccMinor;
  if (cc < 80) {
    if (whyNot)
      *whyNot = "the GPU is sm_" + std::to_string(cc) + ", older than sm_80, the oldest target of tritonc's GPU back end";
    return "";
  }
  std::string arch = "sm_" + std::to_string(d->ccMajor) + std::to_string(d->ccMinor);
  if (d->ccMajor == 9) arch += "a";
  // Later GPUs run an earlier target's code (the driver compiles its PTX for
  // them; the "a" features, warpgroup MMA among them, are sm_90's alone):
  // sm_100 and sm_110 (227 KB of shared memory a program, as sm_90) sm_90's,
  // sm_120 and later (99 KB, as sm_89) sm_89's.
  if (d->ccMajor >= 10) arch = d->ccMajor >= 12 ? "sm_89" : "sm_90";
  // An older target's code on this GPU (the driver compiles its PTX): the
  // sm_80 paths (mma.sync, ldmatrix, cp.async) run on an H100.
  if (const char* forced = std::getenv("TRITONC_GPU_ARCH"); forced && *forced) {
    int major = 0, minor = 0;
    char suffix = 0;
    int n = std::sscanf(forced, "sm_%1d%1d%c", &major, &minor, &suffix);
    bool known = n >= 2 && (n == 2 || suffix == 'a') && std::string(forced).size() == size_t(5 + (n == 3));
    if (!known || major < 8 || major * 10 + minor > d->ccMajor * 10 + d->ccMinor || (suffix == 'a' && forced != arch))
      throw UserError(SourceLoc{}, "TRITONC_GPU_ARCH=" + std::string(forced) + " is not a target this GPU (" + arch +
                                       ") runs: sm_80 up to " + arch);
    return forced;
  }
  return arch;
}

namespace {

CudaDriver* driver() {
  std::string why;
  CudaDriver* d = CudaDriver::get(&why);
  if (!d) throw UserError(SourceLoc{}, why);
  return d;
}

// The launch parameter block: one 8-byte slot per parameter (no parameter
// is wider), kept inline for up to 16 parameters so that a launch allocates nothing.
struct ParamBlock {
  static constexpr size_t kInline = 16;
  uint64_t inlineSlots[kInline];
  void* inlinePointers[kInline];
  std::vector<uint64_t> moreSlots;
  std::vector<void*> morePointers;
  uint64_t* slots = inlineSlots;
  void** pointers = inlinePointers;
  explicit ParamBlock(size_t n) {
    if (n > kInline) {
      moreSlots.resize(n);
      morePointers.resize(n);
      slots = moreSlots.data();
      pointers = morePointers.data();
    }
    for (size_t k = 0; k < n; ++k) pointers[k] = &slots[k];
  }
  ParamBlock(const ParamBlock&) = delete;
  ParamBlock& operator=(const ParamBlock&) = delete;
  void put(size_t k, const void* p, size_t n) { std::memcpy(&slots[k], p, n); }
  // The kernel's tensor maps, encoded from the arguments in slots[0, args),
  // become parameters args, args + 1, ...
  std::vector<TensorMapBytes> maps;
  void addTensorMaps(const std::vector<TensorMapSpec>& specs, size_t args, const std::string& kernel) {
    maps.reserve(specs.size());
    for (size_t k = 0; k < specs.size(); ++k) {
      maps.push_back(encodeTensorMap(specs[k], slots, kernel));
      pointers[args + k] = maps.back().data();
    }
  }
};

}  // namespace

namespace {
std::vector<ir::Type> typesOf(const ir::Function& fn) {
  std::vector<ir::Type> out;
  for (auto& a : fn.arguments()) out.push_back(a->type());
  return out;
}
std::vector<std::string> namesOf(const ir::Function& fn) {
  std::vector<std::string> out;
  for (auto& a : fn.arguments()) out.push_back(a->name());
  return out;
}
}  // namespace

GpuKernel::GpuKernel(const std::string& ptx, const ir::Function& fn)
    : GpuKernel(ptx, fn.name(), typesOf(fn), namesOf(fn)) {}

GpuKernel::GpuKernel(const std::string& ptx, const std::string& name, std::vector<ir::Type> paramTypes,
                     std::vector<std::string> paramNames, const std::string& cubin)
    : name_(name), paramTypes_(std::move(paramTypes)), paramNames_(std::move(paramNames)) {
  CudaDriver* d = driver();
  char log[8192] = {0};
  int optKeys[2] = {5, 6};  // CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES
  void* optVals[2] = {log, reinterpret_cast<void*>(uintptr_t(sizeof log - 1))};
  CUmodule mod = nullptr;
  CUresult r = cubin.empty() ? 1 : d->cuModuleLoadDataEx(&mod, cubin.data(), 2, optKeys, optVals);
  if (r != 0) r = d->cuModuleLoadDataEx(&mod, ptx.c_str(), 2, optKeys, optVals);  // the driver compiles
  if (r != 0) throw UserError(SourceLoc{}, "loading the PTX of kernel '" + name_ + "' failed: " + d->errorText(r) + "\n" + log);
  module_ = mod;
  try {
    CUfunction func = nullptr;
    d->check(d->cuModuleGetFunction(&func, mod, name_.c_str()), "finding the function", name_);
    func_ = func;
    d->cuFuncGetAttribute(&registers_, 4 /* NUM_REGS */, func);
    d->cuFuncGetAttribute(&localBytes_, 3 /* LOCAL_SIZE_BYTES */, func);
    // Another occupancy's PTX (occupancy_fallback.h), loaded; taken (the
    // first module unloaded) where `better` says so of its local memory and
    // registers.
    auto tryVariant = [&](const std::string& variant, auto better) {
      CUmodule mod2 = nullptr;
      CUfunction func2 = nullptr;
      int regs2 = 0, local2 = 0;
      if (variant.empty() || d->cuModuleLoadDataEx(&mod2, variant.c_str(), 2, optKeys, optVals) != 0) return false;
      if (d->cuModuleGetFunction(&func2, mod2, name_.c_str()) == 0 && d->cuFuncGetAttribute(&regs2, 4, func2) == 0 &&
          d->cuFuncGetAttribute(&local2, 3, func2) == 0 && better(local2, regs2)) {
        d->cuModuleUnload(mod);
        mod = mod2;
        module_ = mod2;
        func = func2;
        func_ = func2;
        registers_ = regs2;
        localBytes_ = local2;
        return true;
      }
      d->cuModuleUnload(mod2);
      return false;
    };
    // Asked for more programs per multiprocessor than its registers allow:
    // the PTX asking for half as many where it names that
    // (the occupancy probe, on unless TRITONC_OCCUPANCY_PROBE=0), kept where it does not spill, else its
    // fallback, kept where it spills less. Then, where it names it, the PTX
    // without `.minnctapersm` (ptxas's own choice), kept where it does not
    // spill and leaves room for more programs.
    if (localBytes_ > 0)
      fellBack_ = tryVariant(withHalfwayOccupancy(ptx, name_), [](int local, int) { return local == 0; }) ||
                  tryVariant(withFallbackOccupancy(ptx, name_), [&](int local, int) { return local < localBytes_; });
    const int threads = threadsOf(ptx, name_);
    tryVariant(withoutOccupancyDirective(ptx, name_), [&](int local, int regs) {
      return local == 0 && (localBytes_ > 0 || programsByRegisters(regs, threads) > programsByRegisters(registers_, threads));
    });
    // The `// tritonc: ...` lines of this kernel's entry: what follows the
    // marker, or npos.
    size_t entry = ptx.find(".entry " + name_ + "(");
    size_t next = entry == std::string::npos ? entry : ptx.find(".entry ", entry + 1);
    auto valueAfter = [&](const std::string& marker) {
      size_t at = entry == std::string::npos ? entry : ptx.find(marker, entry);
      return at != std::string::npos && (next == std::string::npos || at < next) ? at + marker.size()
                                                                                 : std::string::npos;
    };
    // Dynamic shared memory, as the PTX of this kernel asks.
    if (size_t at = valueAfter("// tritonc: dynamic_shared_bytes "); at != std::string::npos) {
      sharedBytes_ = unsigned(std::stoul(ptx.substr(at)));
      CUresult sr = d->cuFuncSetAttribute(func, 8 /* MAX_DYNAMIC_SHARED_SIZE_BYTES */, int(sharedBytes_));
      if (sr != 0)
        throw OutOfResourcesError(SourceLoc{},
                                  "kernel '" + name_ + "' needs " + std::to_string(sharedBytes_) +
                                      " bytes of shared memory, more than the GPU allows: " + d->errorText(sr),
                                  int64_t(sharedBytes_), 0, "shared memory");
    }
    tensorMaps_ = parseTensorMaps(ptx, name_);
    // Multicast copies (gpu/multicast.cpp): launched in pairs along x where the grid allows.
    pairsAlongX_ = valueAfter("// tritonc: cluster_x 2") != std::string::npos && d->cuLaunchKernelEx != nullptr;
    pairsAlongY_ = valueAfter("// tritonc: cluster_y 2") != std::string::npos && d->cuLaunchKernelEx != nullptr;
    // A producer warp (gpu/warp_specialize.cpp) beside the program's own.
    if (size_t at = valueAfter("// tritonc: producer_warps "); at != std::string::npos)
      producerThreads_ = 32 * unsigned(std::stoul(ptx.substr(at)));
  } catch (...) {
    d->cuModuleUnload(mod);
    throw;
  }
}

GpuKernel::~GpuKernel() {
  if (module_) driver()->cuModuleUnload(module_);
}

void GpuKernel::check(const interp::Grid& grid, const std::vector<interp::KernelArg>& args) const {
  if (args.size() != paramTypes_.size())
    throw UserError(SourceLoc{}, "kernel '" + name_ + "' takes " + std::to_string(paramTypes_.size()) +
                                     " arguments, " + std::to_string(args.size()) + " given");
  if (grid.x <= 0 || grid.y <= 0 || grid.z <= 0 || grid.x > 2147483647 || grid.y > 65535 || grid.z > 65535)
    throw UserError(SourceLoc{}, "bad grid for kernel '" + name_ + "'");
}

// Fills `params` for `args`; host buffers are looked up in `device`.
static void fillParams(ParamBlock& params, const std::vector<ir::Type>& types, const std::vector<std::string>& names,
                       const std::string& kernel, const std::vector<interp::KernelArg>& args,
                       const std::map<interp::Buffer*, CUdeviceptr>* device) {
  for (size_t k = 0; k < args.size(); ++k) {
    const ir::Type& t = types[k];
    const interp::KernelArg& a = args[k];
    if (t.isPtr()) {
      CUdeviceptr p = 0;
      if (a.kind == interp::KernelArg::Kind::DevicePtr) p = CUdeviceptr(a.i);
      else if (a.kind == interp::KernelArg::Kind::Buffer && a.buffer && device) p = device->at(a.buffer) + a.offset;
      else throw UserError(SourceLoc{}, "argument '" + names[k] + "' of kernel '" + kernel + "' needs " +
                                            (device ? "a buffer" : "a device address"));
      params.put(k, &p, sizeof p);
      continue;
    }
    if (a.isPointer())
      throw UserError(SourceLoc{}, "argument '" + names[k] + "' of kernel '" + kernel + "' is a scalar");
    double fv = a.kind == interp::KernelArg::Kind::Float ? a.f : double(a.i);
    int64_t iv = a.kind == interp::KernelArg::Kind::Int ? a.i : int64_t(a.f);
    switch (t.kind) {
      case ir::Scalar::I1: case ir::Scalar::I8: case ir::Scalar::I16: case ir::Scalar::I32: {
        int32_t v = int32_t(t.kind == ir::Scalar::I1 ? iv != 0 : iv);
        params.put(k, &v, 4);
        break;
      }
      case ir::Scalar::I64: params.put(k, &iv, 8); break;
      case ir::Scalar::F32: { float v = float(fv); params.put(k, &v, 4); break; }
      case ir::Scalar::F64: params.put(k, &fv, 8); break;
      case ir::Scalar::F16: case ir::Scalar::BF16: {  // (.param .b16: rounded once from the double)
        uint16_t v = t.kind == ir::Scalar::F16 ? doubleToHalf(fv) : doubleToBf16(fv);
        params.put(k, &v, 2);
        break;
      }
      default: throw UserError(SourceLoc{}, std::string("scalar arguments of type ") + ir::scalarName(t.kind) +
                                                " are not supported on the GPU yet");
    }
  }
}

int GpuKernel::launch(const interp::Grid& grid, unsigned threads, void* stream, void** params) const {
  CudaDriver* d = driver();
  threads += producerThreads_;
  // A kernel with multicast copies runs in clusters of two programs along x
  // when x is even (and along y too, for its copies shared along y, when y
  // is); otherwise each program copies everything itself.
  unsigned cx = pairsAlongX_ && grid.x % 2 == 0 ? 2 : 1, cy = pairsAlongY_ && grid.y % 2 == 0 ? 2 : 1;
  if (cx * cy > 1) {
    CUlaunchAttribute cluster{};
    cluster.id = kLaunchAttributeClusterDimension;
    cluster.value.clusterDim = {cx, cy, 1};
    CUlaunchConfig c{unsigned(grid.x), unsigned(grid.y), unsigned(grid.z), threads, 1, 1, sharedBytes_, stream,
                     &cluster, 1};
    CUresult r = d->cuLaunchKernelEx(&c, func_, params, nullptr);
    // Clusters refused (a partitioned GPU without room for them): the
    // kernel is correct launched alone.
    if (r == 0 || isContextFatal(r)) return r;
  }
  return d->cuLaunchKernel(func_, unsigned(grid.x), unsigned(grid.y), unsigned(grid.z), threads, 1, 1, sharedBytes_,
                           stream, params, nullptr);
}

void GpuKernel::launchAsync(const interp::Grid& grid, const std::vector<interp::KernelArg>& args, int numWarps,
                            void* stream) const {
  check(grid, args);
  CudaDriver* d = driver();
  ParamBlock params(args.size() + tensorMaps_.size());
  fillParams(params, paramTypes_, paramNames_, name_, args, nullptr);
  params.addTensorMaps(tensorMaps_, args.size(), name_);
  d->check(launch(grid, unsigned(32 * numWarps), stream, params.pointers), "launching", name_);
}

GpuRunResult GpuKernel::run(const interp::Grid& grid, const std::vector<interp::KernelArg>& args,
                            const GpuLaunchOptions& opts) const {
  check(grid, args);
  CudaDriver* d = driver();
  // Device copies of the host buffers (one per distinct buffer).
  std::map<interp::Buffer*, CUdeviceptr> device;
  struct Free {
    CudaDriver* d;
    std::map<interp::Buffer*, CUdeviceptr>& m;
    ~Free() {
      for (auto& [b, p] : m) d->cuMemFree(p);
    }
  } freeAll{d, device};
  for (const interp::KernelArg& a : args) {
    if (a.kind != interp::KernelArg::Kind::Buffer || !a.buffer || device.count(a.buffer)) continue;
    interp::Buffer* b = a.buffer;
    CUdeviceptr p = 0;
    d->check(d->cuMemAlloc(&p, std::max<size_t>(b->data.size(), 16)), "allocating device memory", name_);
    device[b] = p;
    if (!b->data.empty()) d->check(d->cuMemcpyHtoD(p, b->data.data(), b->data.size()), "copying to the device", name_);
  }
  ParamBlock params(args.size() + tensorMaps_.size());
  fillParams(params, paramTypes_, paramNames_, name_, args, &device);
  params.addTensorMaps(tensorMaps_, args.size(), name_);
  CUstream stream = opts.stream;
  auto launchOnce = [&] {
    d->check(launch(grid, unsigned(32 * opts.numWarps), stream, params.pointers), "launching", name_);
  };
  GpuRunResult result;
  result.device = d->deviceName;
  if (opts.repeats <= 0) {
    launchOnce();
  } else {
    for (int w = 0; w < opts.warmup; ++w) launchOnce();
    // Released on every path out (a failing launch throws).
    struct Timing {
      CudaDriver* d;
      CUdeviceptr flush = 0;
      std::vector<CUevent> starts, stops;
      ~Timing() {
        for (CUevent e : starts) d->cuEventDestroy(e);
        for (CUevent e : stops) d->cuEventDestroy(e);
        if (flush) d->cuMemFree(flush);
      }
    } timing{d, 0, {}, {}};
    CUdeviceptr& flush = timing.flush;
    if (opts.flushBytes) d->check(d->cuMemAlloc(&flush, opts.flushBytes), "allocating the cache-flush buffer", name_);
    for (int rep = 0; rep < opts.repeats; ++rep) {
      CUevent start = nullptr, stop = nullptr;
      d->check(d->cuEventCreate(&start, 0), "creating an event", name_);
      timing.starts.push_back(start);
      d->check(d->cuEventCreate(&stop, 0), "creating an event", name_);
      timing.stops.push_back(stop);
    }
    // The runs queued back to back and waited for once, as do_bench times:
    // waiting for each run alone timed the 128x256 matmul tiles 3-13%
    // slower than do_bench on the H200 (bench/tune_probe.py, session 27).
    for (int rep = 0; rep < opts.repeats; ++rep) {
      if (flush) d->check(d->cuMemsetD8Async(flush, uint8_t(rep), opts.flushBytes, stream), "flushing the cache", name_);
      d->cuEventRecord(timing.starts[size_t(rep)], stream);
      launchOnce();
      d->cuEventRecord(timing.stops[size_t(rep)], stream);
    }
    if (opts.repeats > 0) d->check(d->cuEventSynchronize(timing.stops.back()), "running", name_);
    for (int rep = 0; rep < opts.repeats; ++rep) {
      float ms = 0;
      d->cuEventElapsedTime(&ms, timing.starts[size_t(rep)], timing.stops[size_t(rep)]);
      result.timesMs.push_back(ms);
    }
  }
  d->check(d->cuCtxSynchronize(), "running", name_);
  for (auto& [b, p] : device)
    if (!b->data.empty()) d->check(d->cuMemcpyDtoH(b->data.data(), p, b->data.size()), "copying from the device", name_);
  return result;
}

void synchronizeStream(void* stream) {
  CudaDriver* d = driver();
  d->check(d->cuStreamSynchronize(static_cast<CUstream>(stream)), "waiting for the caller's stream");
}

DeviceCopy::DeviceCopy(const void* host, size_t bytes) {
  CudaDriver* d = driver();
  CUdeviceptr p = 0;
  d->check(d->cuMemAlloc(&p, std::max<size_t>(bytes, 16)), "allocating a device buffer");
  address_ = p;
  CUresult r = d->cuMemcpyHtoD(p, host, bytes);
  if (r != 0) {
    d->cuMemFree(p);
    d->check(r, "copying a buffer to the device");
  }
}

DeviceCopy::DeviceCopy(uint64_t source, size_t bytes, size_t capacity) {
  CudaDriver* d = driver();
  CUdeviceptr p = 0;
  capacity = std::max({capacity, bytes, size_t(16)});
  d->check(d->cuMemAlloc(&p, capacity), "allocating a copy of a device buffer");
  address_ = p;
  CUresult r = capacity > bytes ? d->cuMemsetD8(p + bytes, 0, capacity - bytes) : 0;
  if (r == 0) r = d->cuMemcpyDtoD(p, CUdeviceptr(source), bytes);
  if (r != 0) {
    d->cuMemFree(p);
    d->check(r, "copying a device buffer");
  }
}

DeviceCopy::~DeviceCopy() {
  if (address_) driver()->cuMemFree(CUdeviceptr(address_));
}

GpuRunResult runOnGpu(const std::string& ptx, const ir::Function& fn, const interp::Grid& grid,
                      const std::vector<interp::KernelArg>& args, const GpuLaunchOptions& opts) {
  return GpuKernel(ptx, fn).run(grid, args, opts);
}

}  // namespace tritonc::nvptx
