// The CPU back end's entry points in a build without it (TRITONC_CPU=OFF,
// no LLVM 19): every request says how to get it.
#include "target/cpu/cpu_backend.h"

namespace tritonc::cpu {

namespace {
[[noreturn]] void notBuilt() {
  throw UserError(SourceLoc{}, "this tritonc was built without the CPU back end (it needs LLVM 19: install "
                               "llvm-19-dev, e.g. with scripts/setup-deps.sh, and rebuild with -DTRITONC_CPU=ON)");
}
}  // namespace

struct CpuKernel::Impl {};

bool available() { return false; }
const std::string& hostDescription() {
  static const std::string none = "none";
  return none;
}
const std::string& codeIdentity() { return hostDescription(); }
bool exactMathByDefault() { return false; }
std::string CpuKernel::image() const { notBuilt(); }
std::unique_ptr<CpuKernel> CpuKernel::fromImage(const std::string&) { notBuilt(); }
std::unique_ptr<CpuKernel> CpuKernel::compile(const ir::Function&, const CompileOptions&) { notBuilt(); }
CpuKernel::CpuKernel(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CpuKernel::~CpuKernel() = default;
void CpuKernel::run(const interp::Grid&, const std::vector<interp::KernelArg>&, const RunOptions&) const {
  notBuilt();
}
const std::string& CpuKernel::name() const { notBuilt(); }
double CpuKernel::compileMs() const { return 0; }
size_t CpuKernel::frameBytes() const { return 0; }
const std::string& CpuKernel::llvmIr() const { notBuilt(); }
std::string emitLlvmIr(const ir::Function&, const CompileOptions&) { notBuilt(); }
void runOnCpu(const ir::Function&, const interp::Grid&, const std::vector<interp::KernelArg>&) { notBuilt(); }
int numThreads() { return 1; }

}  // namespace tritonc::cpu
