// tritonc_kernel_create in a runtime-only library (CMake
// TRITONC_RUNTIME_ONLY), which has no front end: it says so, and how to get
// code this library runs. (The full library has c_api_source.cpp instead.)
#include "runtime/c_api_internal.h"

using namespace tritonc::capi;

extern "C" tritonc_status tritonc_kernel_create(const char* source, const tritonc_options* opts, tritonc_kernel** out) {
  (void)source;
  (void)opts;
  return guarded(TRITONC_ERROR_COMPILE, "", "", [&] {
    if (!out) fail(TRITONC_ERROR_INVALID_ARGUMENT, "out is NULL");
    *out = nullptr;
    fail(TRITONC_ERROR_COMPILE,
         "this tritonc library is runtime-only (built with TRITONC_RUNTIME_ONLY): it has no compiler. Compile the "
         "kernel ahead of time (`tritonc compile FILE.tc ... -o kernel.tck`) and load it with tritonc_kernel_load");
  });
}
