#include "runtime/version.h"

#include <dlfcn.h>
#include <sys/stat.h>

#ifndef TRITONC_BUILD_ID
#define TRITONC_BUILD_ID "unknown"
#endif

namespace tritonc::runtime {

const std::string& versionString() {
  static const std::string version = "tritonc 0.2 (" TRITONC_BUILD_ID ")";
  return version;
}

const std::string& compilerVersion() {
  static const std::string version = [] {
    std::string binary = "unknown binary";
    Dl_info info;
    struct stat st;
    if (dladdr(reinterpret_cast<void*>(&compilerVersion), &info) && info.dli_fname && stat(info.dli_fname, &st) == 0)
      binary = std::to_string(st.st_size) + " bytes, " + std::to_string(st.st_mtim.tv_sec) + "." +
               std::to_string(st.st_mtim.tv_nsec);
    return "tritonc 0.2 (" TRITONC_BUILD_ID ", " + binary + ")";
  }();
  return version;
}

}  // namespace tritonc::runtime
