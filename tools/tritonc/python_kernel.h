// `tritonc emit FILE.py:KERNEL`: the Triton-IR of a Python DSL kernel, from
// the tritonc Python package (python -m tritonc.tools), for the rest of the
// pipeline to take as a .tir file.
#pragma once
#include <string>
#include <vector>

#include "lang/compile.h"

namespace tritonc::cli {

// Whether FILE names a Python kernel ("path.py:name").
bool isPythonKernel(const std::string& file);

// Runs $TRITONC_PYTHON (default python3) -m tritonc.tools on "path.py:name"
// with the runtime parameters' types (`signature`) and constexpr values
// (`defines`); returns the IR text and sets `pyFile` to the path. Throws
// std::runtime_error with the Python side's message when it fails.
std::string pythonKernelIr(const std::string& spec, const std::string& signature,
                           const std::vector<lang::Define>& defines, std::string* pyFile);

}  // namespace tritonc::cli
