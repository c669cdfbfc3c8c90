// The C API's source kernels (tritonc_kernel_create) over runtime::Kernel:
// the part of the C API that needs the compiler. A runtime-only build
// (TRITONC_RUNTIME_ONLY) has c_api_no_compiler.cpp in its place.
#include <cstdio>
#include <memory>
#include <string>

#include "runtime/c_api_internal.h"
#include "runtime/kernel.h"

using namespace tritonc;
using namespace tritonc::capi;

namespace {

bool startsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// What a UserError of the constructor means when it has no source location:
// these messages come from the option checks of runtime::Kernel.
tritonc_status classifyCreateError(const UserError& e) {
  if (e.loc().known()) return TRITONC_ERROR_COMPILE;
  const std::string what = e.what();
  if (startsWith(what, "target gpu:") || startsWith(what, "target cpu:")) return TRITONC_ERROR_NO_DEVICE;
  static const char* const kOptionErrors[] = {"num_warps",
                                              "num_stages",
                                              "unknown target",
                                              "no kernel named",
                                              "the source defines several kernels",
                                              "tuning key '",
                                              "bad -D",
                                              "the tuning space has more than"};
  for (const char* p : kOptionErrors)
    if (startsWith(what, p)) return TRITONC_ERROR_INVALID_ARGUMENT;
  return TRITONC_ERROR_COMPILE;
}

runtime::KernelOptions toKernelOptions(const tritonc_options& o) {
  runtime::KernelOptions ko;
  if (o.filename) ko.filename = o.filename;
  ko.defines = definesOf(o);
  intListOf(o.num_warps, o.num_num_warps, "num_warps", &ko.numWarps);
  intListOf(o.num_stages, o.num_num_stages, "num_stages", &ko.numStages);
  if (o.target) ko.target = o.target;
  if (o.kernel) ko.kernel = o.kernel;
  if (o.cache_dir) ko.cacheDir = o.cache_dir;
  ko.tuningKey = tuningKeyOf(o);
  if (o.verbose) ko.progress = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  ko.cacheMustHit = o.cache_must_hit != 0;
  ko.allowTf32 = o.allow_tf32 != 0;
  return ko;
}

}  // namespace

extern "C" tritonc_status tritonc_kernel_create(const char* source, const tritonc_options* opts, tritonc_kernel** out) {
  std::string filename = opts && opts->filename ? opts->filename : "<source>";
  std::string text = source ? source : "";
  return guarded(
      TRITONC_ERROR_COMPILE, filename, text,
      [&] {
        if (!out) fail(TRITONC_ERROR_INVALID_ARGUMENT, "out is NULL");
        *out = nullptr;
        if (!source) fail(TRITONC_ERROR_INVALID_ARGUMENT, "source is NULL");
        tritonc_options defaults;
        tritonc_options_init(&defaults);
        runtime::KernelOptions ko = toKernelOptions(opts ? *opts : defaults);
        auto h = std::make_unique<tritonc_kernel>();
        h->source = text;
        h->filename = filename;
        h->kernel = std::make_unique<runtime::Kernel>(text, std::move(ko));
        *out = h.release();
      },
      classifyCreateError);
}
