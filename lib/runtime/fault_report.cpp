#include "runtime/fault_report.h"

#include <cstdio>
#include <fstream>

namespace tritonc::runtime {

namespace {

// Quotes a word for a POSIX shell when it needs it.
std::string shellWord(const std::string& s) {
  bool plain = !s.empty();
  for (char c : s)
    plain = plain && (std::isalnum(static_cast<unsigned char>(c)) || std::string("-_=./:,+@%").find(c) != std::string::npos);
  if (plain) return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

bool isFile(const std::string& path) { return !path.empty() && path[0] != '<' && std::ifstream(path).good(); }

}  // namespace

std::string interpreterCommand(const std::string& sourceFile, const std::string& kernel, const Config& config,
                               const std::vector<Param>& params, const std::vector<interp::KernelArg>& args,
                               const interp::Grid& grid) {
  std::string cmd = "tritonc run " + (isFile(sourceFile) ? shellWord(sourceFile) : std::string("KERNEL.tc"));
  for (const auto* list : {&config.fixed, &config.values})
    for (const lang::Define& d : *list) cmd += " " + shellWord("-D" + d.name + "=" + d.value);
  cmd += " --num-warps " + std::to_string(config.numWarps) + " --num-stages " + std::to_string(config.numStages);
  cmd += " --kernel " + shellWord(kernel) + " --backend interp";
  cmd += " --grid " + std::to_string(grid.x) + "," + std::to_string(grid.y) + "," + std::to_string(grid.z);
  for (size_t k = 0; k < params.size() && k < args.size(); ++k) {
    const Param& p = params[k];
    const interp::KernelArg& a = args[k];
    std::string spec;
    if (p.type.isPtr()) {
      size_t bytes = a.kind == interp::KernelArg::Kind::Buffer ? size_t(a.bufferBytes()) : size_t(a.bytes);
      size_t elem = size_t(ir::byteSize(p.type.pointee));
      // A buffer of unknown size: the command cannot guess it.
      std::string count = bytes && elem ? std::to_string(bytes / elem) : "ELEMENTS";
      spec = "rand:" + std::string(p.type.pointee == ir::Scalar::I1 ? "bool" : ir::scalarName(p.type.pointee)) + ":" +
             count;
    } else if (a.kind == interp::KernelArg::Kind::Float) {
      char buf[40];
      std::snprintf(buf, sizeof buf, "%.17g", a.f);
      spec = buf;
    } else {
      spec = std::to_string(a.i);
    }
    cmd += " --arg " + shellWord(p.name + "=" + spec);
  }
  return cmd;
}

std::string gpuFaultReport(const std::string& kernel, const Config& config, const std::string& cudaError,
                           const std::string& command, bool whileTuning) {
  // A failed assert calls __assertfail, which stops the launch with CUDA_ERROR_ASSERT.
  const bool assertion = cudaError.find("CUDA_ERROR_ASSERT") != std::string::npos;
  std::string s = "kernel '" + kernel + "' faulted on the GPU in configuration " + config.text() +
                  (whileTuning ? " while tuning" : "") + ": " + cudaError +
                  (assertion ? "\nA device assertion failed: the kernel printed which one, for which program and "
                               "element, on stdout."
                             : "\nThis is usually an access out of bounds (or misaligned).") +
                  " The process's CUDA context is lost: every later CUDA call in this process fails, so restart it.";
  if (assertion)
    return s + "\nThe interpreter reports a failed assertion at its line (with the launch's own data; the "
               "command's random inputs may pass it):\n  " + command;
  if (whileTuning)
    s += " (The tuner runs each configuration on copies of the arguments with as much room after each buffer as "
         "PyTorch's caching allocator leaves, so the kernel is likely to fault on the caller's own buffers too.)";
  return s + "\nFind the access on the interpreter, which checks every one (smaller sizes with the same shape of "
             "remainders find it faster):\n  " + command;
}

}  // namespace tritonc::runtime
