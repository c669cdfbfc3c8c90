// The compiler's version, as users see it and as the kernel cache keys it.
#pragma once
#include <string>

namespace tritonc::runtime {

// "tritonc 0.2 (<git id>)": what `tritonc --version`, tritonc_version() and
// the Python package's tritonc.version() print; the same in every binary of
// one build.
const std::string& versionString();

// The compiler version in cache keys: "tritonc 0.2 (<git id>, <binary>)",
// where <binary> is the size and time of the file holding this code, so that
// a rebuilt compiler never loads an old compiler's entries, whatever git says.
const std::string& compilerVersion();

}  // namespace tritonc::runtime
