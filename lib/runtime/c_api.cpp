// The C API (include/tritonc/tritonc.h) over runtime::Launchable: kernels
// loaded from .tck files here, source kernels in c_api_source.cpp (or its
// stand-in in a runtime-only build, c_api_no_compiler.cpp). Every entry
// point converts exceptions into a status and a per-thread message; nothing
// escapes into C. Launches and tunes are serialized by the kernels' own
// mutexes, so a handle needs no lock of its own (its other state is immutable).
#include "tritonc/tritonc.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "runtime/c_api_internal.h"
#include "runtime/host_memory.h"
#include "runtime/loaded_kernel.h"
#include "runtime/scalar_args.h"
#include "runtime/version.h"
#include "support/diagnostic.h"
#include "target/nvptx/cuda_driver.h"

using namespace tritonc;
using namespace tritonc::capi;

struct tritonc_config {
  const runtime::Config* config;
};

namespace tritonc::capi {

void fail(tritonc_status s, const std::string& message) { throw ApiError{s, message}; }

std::string& lastError() {
  thread_local std::string message;
  return message;
}

namespace {
std::string stripNewline(std::string s) {
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}
}  // namespace

tritonc_status guarded(tritonc_status userStatus, const std::string& filename, const std::string& source,
                       const std::function<void()>& body, const Classifier& classify) {
  std::string& message = lastError();
  message.clear();
  try {
    body();
    return TRITONC_OK;
  } catch (const ApiError& e) {
    message = e.message;
    return e.status;
  } catch (const UserError& e) {
    // (Without a file to point into, the message as it is: a .tck file's names itself.)
    message = filename.empty() && !e.loc().known() ? std::string(e.what())
                                                   : stripNewline(formatDiagnostic(filename, source, e.loc(), e.what()));
    return classify ? classify(e) : userStatus;
  } catch (const InternalError& e) {
    message = std::string(e.what()) + " (this is a bug in tritonc)";
  } catch (const std::bad_alloc&) {
    message = "out of memory";
  } catch (const std::exception& e) {
    message = e.what();
  } catch (...) {
    message = "unknown exception";
  }
  return TRITONC_ERROR_INTERNAL;
}

bool isIdentifier(const char* s) {
  if (!s || !(std::isalpha(static_cast<unsigned char>(*s)) || *s == '_')) return false;
  for (; *s; ++s)
    if (!(std::isalnum(static_cast<unsigned char>(*s)) || *s == '_')) return false;
  return true;
}

std::vector<lang::Define> definesOf(const tritonc_options& o) {
  if (o.num_defines && !o.defines)
    fail(TRITONC_ERROR_INVALID_ARGUMENT,
         "options: defines is NULL but num_defines is " + std::to_string(o.num_defines));
  std::vector<lang::Define> out;
  for (size_t i = 0; i < o.num_defines; ++i) {
    const tritonc_define& d = o.defines[i];
    if (!isIdentifier(d.name))
      fail(TRITONC_ERROR_INVALID_ARGUMENT, "options: define " + std::to_string(i) + " has a bad name '" +
                                               std::string(d.name ? d.name : "(null)") + "' (expected an identifier)");
    out.push_back({d.name, d.value ? d.value : ""});
  }
  return out;
}

void intListOf(const int* p, size_t n, const char* what, std::vector<int>* out) {
  if (n == 0) return;
  if (!p)
    fail(TRITONC_ERROR_INVALID_ARGUMENT, std::string("options: ") + what + " is NULL but its count is " + std::to_string(n));
  out->assign(p, p + n);
}

std::vector<std::string> tuningKeyOf(const tritonc_options& o) {
  if (o.num_tuning_key && !o.tuning_key)
    fail(TRITONC_ERROR_INVALID_ARGUMENT,
         "options: tuning_key is NULL but num_tuning_key is " + std::to_string(o.num_tuning_key));
  std::vector<std::string> out;
  for (size_t i = 0; i < o.num_tuning_key; ++i) {
    if (!o.tuning_key[i]) fail(TRITONC_ERROR_INVALID_ARGUMENT, "options: tuning_key[" + std::to_string(i) + "] is NULL");
    out.push_back(o.tuning_key[i]);
  }
  return out;
}

}  // namespace tritonc::capi

namespace {

bool toDtype(ir::Scalar k, tritonc_dtype* out) {
  switch (k) {
    case ir::Scalar::I1: *out = TRITONC_I1; return true;
    case ir::Scalar::I8: *out = TRITONC_I8; return true;
    case ir::Scalar::I16: *out = TRITONC_I16; return true;
    case ir::Scalar::I32: *out = TRITONC_I32; return true;
    case ir::Scalar::I64: *out = TRITONC_I64; return true;
    case ir::Scalar::F16: *out = TRITONC_F16; return true;
    case ir::Scalar::BF16: *out = TRITONC_BF16; return true;
    case ir::Scalar::F32: *out = TRITONC_F32; return true;
    case ir::Scalar::F64: *out = TRITONC_F64; return true;
    default: return false;
  }
}

// The C arguments as the runtime's, with host memory copied into buffers
// (runtime/host_memory.h: overlapping ranges share one, as in GPU memory).
struct BoundArgs {
  std::vector<interp::KernelArg> args;
  runtime::HostMemory host;
  // Writes what the kernel changed back into the caller's memory (only
  // changed bytes: an unchanged input may live in read-only memory).
  void copyBack() { host.copyBack(); }
};

std::string paramText(const runtime::Launchable& k, size_t i) {
  const runtime::Param& p = k.params()[i];
  return "argument " + std::to_string(i) + " ('" + p.name + "', " + ir::typeToString(p.type) + ") of kernel '" +
         k.name() + "'";
}

void checkIntFits(const runtime::Launchable& k, size_t i, ir::Scalar kind, int64_t v) {
  std::string misfit = runtime::intMisfit(kind, v);
  if (!misfit.empty()) fail(TRITONC_ERROR_INVALID_ARGUMENT, paramText(k, i) + ": " + misfit);
}

BoundArgs bindArgs(const tritonc_kernel* h, const tritonc_arg* args, size_t n) {
  const runtime::Launchable& k = *h->kernel;
  const std::vector<runtime::Param>& params = k.params();
  if (n && !args) fail(TRITONC_ERROR_INVALID_ARGUMENT, "args is NULL but num_args is " + std::to_string(n));
  if (n != params.size()) {
    std::string names;
    for (const runtime::Param& p : params) names += (names.empty() ? "" : ", ") + p.name;
    fail(TRITONC_ERROR_INVALID_ARGUMENT, "kernel '" + k.name() + "' takes " + std::to_string(params.size()) +
                                             " arguments (" + names + "), " + std::to_string(n) + " given");
  }
  const bool gpu = k.onGpu();
  BoundArgs out;
  std::vector<size_t> hostArgs;
  std::vector<runtime::HostRange> ranges;
  for (size_t i = 0; i < n; ++i) {
    const tritonc_arg& a = args[i];
    const ir::Type& t = params[i].type;
    // Read as an integer: C may store any int in the field, C++ may not load it as the enum.
    std::underlying_type_t<tritonc_arg_kind> kind;
    std::memcpy(&kind, &a.kind, sizeof kind);
    const bool pointerArg = kind == TRITONC_ARG_HOST || kind == TRITONC_ARG_DEVICE;
    if (kind != TRITONC_ARG_INT && kind != TRITONC_ARG_FLOAT && !pointerArg)
      fail(TRITONC_ERROR_INVALID_ARGUMENT, paramText(k, i) + ": unknown argument kind " + std::to_string(kind));
    if (t.isPtr() != pointerArg)
      fail(TRITONC_ERROR_INVALID_ARGUMENT,
           paramText(k, i) + (t.isPtr() ? " is a pointer: it needs a HOST or DEVICE argument, not a number"
                                        : " is a scalar: it needs an INT or FLOAT argument, not a pointer"));
    if (kind == TRITONC_ARG_INT) {
      if (t.isFloat()) {
        out.args.push_back(interp::KernelArg::ofFloat(double(a.i)));
      } else {
        checkIntFits(k, i, t.kind, a.i);
        out.args.push_back(interp::KernelArg::ofInt(a.i));
      }
    } else if (kind == TRITONC_ARG_FLOAT) {
      if (!t.isFloat())
        fail(TRITONC_ERROR_INVALID_ARGUMENT, paramText(k, i) + " is an integer: it needs an INT argument, not a FLOAT");
      out.args.push_back(interp::KernelArg::ofFloat(a.f));
    } else if (kind == TRITONC_ARG_DEVICE) {
      if (!gpu)
        fail(TRITONC_ERROR_INVALID_ARGUMENT, paramText(k, i) +
                                                 ": a DEVICE address needs a GPU target (this kernel's is " +
                                                 k.target() + "); pass HOST memory");
      out.args.push_back(interp::KernelArg::ofDevicePtr(reinterpret_cast<uintptr_t>(a.ptr), a.bytes));
    } else {
      const size_t elem = size_t(ir::byteSize(t.pointee));
      if (elem == 0) fail(TRITONC_ERROR_INVALID_ARGUMENT, paramText(k, i) + " points to no value type");
      if (!a.ptr && a.bytes)
        fail(TRITONC_ERROR_INVALID_ARGUMENT,
             paramText(k, i) + ": HOST ptr is NULL but bytes is " + std::to_string(a.bytes));
      if (a.bytes % elem)
        fail(TRITONC_ERROR_INVALID_ARGUMENT, paramText(k, i) + ": HOST bytes (" + std::to_string(a.bytes) +
                                                 ") is not a multiple of the element size (" + std::to_string(elem) +
                                                 " for " + ir::scalarName(t.pointee) + ")");
      hostArgs.push_back(i);
      ranges.push_back({uint64_t(reinterpret_cast<uintptr_t>(a.ptr)), a.bytes, t.pointee, params[i].name,
                        paramText(k, i), false, false});
      out.args.push_back(interp::KernelArg::ofBuffer(nullptr));  // bound below
    }
  }
  std::vector<interp::KernelArg> bound = out.host.bind(ranges);
  for (size_t h = 0; h < hostArgs.size(); ++h) out.args[hostArgs[h]] = bound[h];
  return out;
}

runtime::GridFn makeGrid(const int64_t* grid, tritonc_grid_fn fn, void* user) {
  if ((grid == nullptr) == (fn == nullptr))
    fail(TRITONC_ERROR_INVALID_ARGUMENT, "give exactly one of grid and grid_fn");
  auto check = [](const int64_t g[3], const char* from) {
    for (int d = 0; d < 3; ++d)
      if (g[d] < 1)
        fail(TRITONC_ERROR_INVALID_ARGUMENT, std::string(from) + ": grid dimension " + std::to_string(d) + " is " +
                                                 std::to_string(g[d]) + " (must be at least 1)");
    interp::Grid out{g[0], g[1], g[2]};
    std::string problem = interp::gridProblem(out);
    if (!problem.empty()) fail(TRITONC_ERROR_INVALID_ARGUMENT, std::string(from) + ": " + problem);
    return out;
  };
  if (grid) {
    interp::Grid g = check(grid, "grid");
    return [g](const runtime::Config&) { return g; };
  }
  return [fn, user, check](const runtime::Config& c) {
    tritonc_config cc{&c};
    int64_t g[3] = {1, 1, 1};
    fn(&cc, user, g);
    return check(g, ("grid_fn for configuration " + c.text()).c_str());
  };
}

// For GPU targets: fails with NO_DEVICE without a GPU. (CudaDriver::get makes
// device 0's primary context current on the calling thread.)
void prepareDevice(const runtime::Launchable& k) {
  if (!k.onGpu()) return;
  std::string why;
  nvptx::CudaDriver* d = nvptx::CudaDriver::get(&why);
  if (!d)
    fail(TRITONC_ERROR_NO_DEVICE, "kernel '" + k.name() + "' targets " + k.target() + " but there is no GPU: " + why);
}

}  // namespace

extern "C" {

void tritonc_options_init(tritonc_options* opts) {
  if (opts) std::memset(opts, 0, sizeof *opts);
}

tritonc_status tritonc_kernel_load(const char* path, const tritonc_options* opts, tritonc_kernel** out) {
  std::string file = path ? path : "";
  // The status of a load failure by its cause.
  auto classify = [](const UserError& e) {
    if (dynamic_cast<const runtime::PackFileError*>(&e)) return TRITONC_ERROR_FILE;
    if (dynamic_cast<const runtime::NoCodeForTarget*>(&e)) return TRITONC_ERROR_NO_DEVICE;
    return TRITONC_ERROR_INVALID_ARGUMENT;
  };
  return guarded(
      TRITONC_ERROR_INVALID_ARGUMENT, "", "",
      [&] {
        if (!out) fail(TRITONC_ERROR_INVALID_ARGUMENT, "out is NULL");
        *out = nullptr;
        if (!path) fail(TRITONC_ERROR_INVALID_ARGUMENT, "path is NULL");
        runtime::LoadOptions lo;
        if (opts) {
          lo.defines = definesOf(*opts);
          intListOf(opts->num_warps, opts->num_num_warps, "num_warps", &lo.numWarps);
          intListOf(opts->num_stages, opts->num_num_stages, "num_stages", &lo.numStages);
          if (opts->target) lo.target = opts->target;
          if (opts->kernel) lo.kernel = opts->kernel;
          lo.tuningKey = tuningKeyOf(*opts);
          if (opts->verbose) lo.progress = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
        }
        auto h = std::make_unique<tritonc_kernel>();
        auto loaded = runtime::LoadedKernel::load(file, lo);
        h->filename = loaded->sourceFile();  // launches' diagnostics point into the source it was compiled from
        h->source = loaded->sourceText();
        h->kernel = std::move(loaded);
        *out = h.release();
      },
      classify);
}

void tritonc_kernel_destroy(tritonc_kernel* k) {
  try {
    delete k;
  } catch (...) {
    // Destructors do not throw; nothing may escape into C regardless.
  }
}

size_t tritonc_kernel_num_params(const tritonc_kernel* k) { return k ? k->kernel->params().size() : 0; }

tritonc_status tritonc_kernel_param(const tritonc_kernel* k, size_t index, const char** name, tritonc_dtype* dtype,
                                    int* is_pointer) {
  return guarded(TRITONC_ERROR_INTERNAL, "", "", [&] {
    if (!k) fail(TRITONC_ERROR_INVALID_ARGUMENT, "kernel is NULL");
    const std::vector<runtime::Param>& ps = k->kernel->params();
    if (index >= ps.size())
      fail(TRITONC_ERROR_INVALID_ARGUMENT, "parameter index " + std::to_string(index) + " is out of range: kernel '" +
                                               k->kernel->name() + "' has " + std::to_string(ps.size()));
    const runtime::Param& p = ps[index];
    tritonc_dtype d;
    if (!toDtype(p.type.isPtr() ? p.type.pointee : p.type.kind, &d))
      fail(TRITONC_ERROR_INTERNAL,
           "parameter '" + p.name + "' has type " + ir::typeToString(p.type) + ", which the C API cannot describe");
    if (name) *name = p.name.c_str();
    if (dtype) *dtype = d;
    if (is_pointer) *is_pointer = p.type.isPtr() ? 1 : 0;
  });
}

size_t tritonc_kernel_num_configs(const tritonc_kernel* k) { return k ? k->kernel->space().size() : 0; }

const char* tritonc_kernel_target(const tritonc_kernel* k) { return k ? k->kernel->target().c_str() : ""; }

tritonc_status tritonc_launch(tritonc_kernel* k, const tritonc_arg* args, size_t num_args, const int64_t* grid,
                              tritonc_grid_fn grid_fn, void* user, void* stream) {
  if (!k) return guarded(TRITONC_OK, "", "", [] { fail(TRITONC_ERROR_INVALID_ARGUMENT, "kernel is NULL"); });
  return guarded(TRITONC_ERROR_LAUNCH, k->filename, k->source, [&] {
    BoundArgs bound = bindArgs(k, args, num_args);
    runtime::GridFn g = makeGrid(grid, grid_fn, user);
    prepareDevice(*k->kernel);
    k->kernel->launch(bound.args, g, stream);
    bound.copyBack();  // only after success: a failed launch leaves the caller's memory as it was
  });
}

tritonc_status tritonc_tune(tritonc_kernel* k, const tritonc_arg* args, size_t num_args, const int64_t* grid,
                            tritonc_grid_fn grid_fn, void* user, char* best, size_t best_size, double* best_ms) {
  if (best && best_size) best[0] = '\0';
  if (!k) return guarded(TRITONC_OK, "", "", [] { fail(TRITONC_ERROR_INVALID_ARGUMENT, "kernel is NULL"); });
  return guarded(TRITONC_ERROR_LAUNCH, k->filename, k->source, [&] {
    BoundArgs bound = bindArgs(k, args, num_args);
    for (size_t i = 0; i < num_args; ++i)
      if (args[i].kind == TRITONC_ARG_DEVICE && args[i].bytes == 0)
        fail(TRITONC_ERROR_INVALID_ARGUMENT,
             paramText(*k->kernel, i) + ": tuning needs the size of a DEVICE buffer in `bytes` (it runs every "
                                        "configuration on copies)");
    runtime::GridFn g = makeGrid(grid, grid_fn, user);
    prepareDevice(*k->kernel);
    runtime::TuneResult r = k->kernel->tune(bound.args, g, /*force=*/true);
    if (best && best_size) {
      std::string text = r.best.text();
      size_t n = std::min(text.size(), best_size - 1);
      std::memcpy(best, text.data(), n);
      best[n] = '\0';
    }
    if (best_ms) *best_ms = r.bestMs;
  });
}

int tritonc_config_int(const tritonc_config* c, const char* name, int64_t* value) {
  if (!c || !c->config || !name) return 0;
  try {
    std::string v = c->config->value(name);
    if (v.empty()) return 0;
    char* end = nullptr;
    errno = 0;
    long long x = std::strtoll(v.c_str(), &end, 0);
    if (*end || errno == ERANGE) return 0;
    if (value) *value = x;
    return 1;
  } catch (...) {
    return 0;
  }
}

const char* tritonc_last_error(void) { return lastError().c_str(); }

const char* tritonc_version(void) { return runtime::versionString().c_str(); }

}  // extern "C"
