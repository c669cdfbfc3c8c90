// The JIT (internal to the CPU back end): one ORC LLJIT per process for the
// host CPU. Each compiled kernel is optimized (the new pass manager's O3
// pipeline with the host's cost model, so the loop vectorizer uses its
// vector width), turned into an object file on the compiling thread, and
// linked into a JITDylib of its own, which is removed with the kernel.
#pragma once
#include <memory>
#include <mutex>
#include <string>

#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

namespace tritonc::cpu::detail {

class Jit {
 public:
  static Jit& instance();  // throws InternalError when LLVM cannot target the host

  // A target machine for the host (one per compilation: they are not shared
  // across threads), at -O3 with the host's CPU and features.
  std::unique_ptr<llvm::TargetMachine> hostMachine();
  const std::string& hostDescription() const { return description_; }

  // Links `object` into a new JITDylib; returns the address of `symbol` and
  // the dylib (give it to unload when the code is no longer needed).
  void* load(std::unique_ptr<llvm::MemoryBuffer> object, const std::string& symbol, llvm::orc::JITDylib** dylib);
  void unload(llvm::orc::JITDylib* dylib);

 private:
  Jit();
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  llvm::orc::JITTargetMachineBuilder machineBuilder_;
  std::string description_;
  std::mutex mutex_;
  uint64_t nextDylib_ = 0;
};

// The width of `tm`'s vector registers in bits: 512 with AVX-512, 256 with
// AVX, else 128.
int vectorRegisterBits(const llvm::TargetMachine& tm);
// The O3 (or `level`) pipeline of the new pass manager, for `tm`'s target;
// then functions marked kInlineAfterVectorizing (noinline until then, so that
// the loop vectorizer sees their calls and calls their vector variants) are
// inlined, and the loops that called them cleaned up.
void optimizeModule(llvm::Module& m, llvm::TargetMachine& tm, int level);
constexpr const char* kInlineAfterVectorizing = "tritonc-inline-after-vectorizing";
// Machine code for `m` as an object file in memory.
std::unique_ptr<llvm::MemoryBuffer> emitObject(llvm::Module& m, llvm::TargetMachine& tm);

}  // namespace tritonc::cpu::detail
