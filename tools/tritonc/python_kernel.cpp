#include "python_kernel.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

namespace tritonc::cli {

namespace {

// A word for /bin/sh: single-quoted, quotes inside escaped.
std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

bool isPythonKernel(const std::string& file) {
  size_t colon = file.rfind(':');
  return colon != std::string::npos && colon >= 3 && file.compare(colon - 3, 3, ".py") == 0 &&
         colon + 1 < file.size();
}

std::string pythonKernelIr(const std::string& specText, const std::string& signature,
                           const std::vector<lang::Define>& defines, std::string* pyFile) {
  const std::string spec = specText;  // `pyFile` may be the caller's `specText`
  size_t colon = spec.rfind(':');
  *pyFile = spec.substr(0, colon);
  const char* py = std::getenv("TRITONC_PYTHON");
  std::string cmd = std::string(py && *py ? py : "python3") + " -m tritonc.tools " + quoted(*pyFile) + " " +
                    quoted(spec.substr(colon + 1));
  if (!signature.empty()) cmd += " --signature " + quoted(signature);
  for (const lang::Define& d : defines) cmd += " -D" + quoted(d.name + "=" + d.value);
  char errPath[] = "/tmp/tritonc-python-XXXXXX";
  int fd = mkstemp(errPath);
  if (fd < 0) throw std::runtime_error("cannot create a temporary file for Python's messages");
  close(fd);
  cmd += " 2> " + quoted(errPath);
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) {
    std::remove(errPath);
    throw std::runtime_error("cannot run Python (set TRITONC_PYTHON)");
  }
  std::string out;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  int status = pclose(pipe);
  std::ifstream errIn(errPath);
  std::stringstream err;
  err << errIn.rdbuf();
  std::remove(errPath);
  if (status == 0 && !out.empty()) {
    // What the module printed as it was imported (stdout is the IR's alone).
    std::cerr << err.str();
    return out;
  }
  std::string msg = err.str();
  while (!msg.empty() && msg.back() == '\n') msg.pop_back();
  if (msg.find("No module named tritonc") != std::string::npos)
    msg += " (the tritonc Python package must be importable: pip install it, or set PYTHONPATH)";
  throw std::runtime_error(msg.empty() ? "the Python front end failed on '" + spec + "'" : msg);
}

}  // namespace tritonc::cli
