// ORC LLJIT set-up, the optimization pipeline and code generation.
#include "target/cpu/jit.h"

#include <cmath>
#include <cstring>
#include <type_traits>

#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Transforms/IPO/AlwaysInliner.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Scalar/EarlyCSE.h>
#include <llvm/Transforms/Scalar/LICM.h>
#include <llvm/Transforms/Scalar/SimplifyCFG.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/TargetParser/Host.h>

#include "support/diagnostic.h"
#include "target/cpu/runtime_support.h"

namespace tritonc::cpu::detail {

namespace {

std::string errorText(llvm::Error e) { return llvm::toString(std::move(e)); }

template <class T>
T check(llvm::Expected<T> v, const char* what) {
  if (!v) throw InternalError(std::string(what) + ": " + errorText(v.takeError()));
  if constexpr (std::is_reference_v<T>) return *v;
  else return std::move(*v);
}

llvm::orc::JITTargetMachineBuilder hostBuilder() {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::InitializeNativeTargetAsmParser();
  llvm::orc::JITTargetMachineBuilder b = check(llvm::orc::JITTargetMachineBuilder::detectHost(), "the host CPU");
  // detectHost names the CPU; its features too, so that the code uses every
  // vector extension the machine has.
  b.setCPU(llvm::sys::getHostCPUName().str());
  llvm::SubtargetFeatures features;
  for (const auto& [name, on] : llvm::sys::getHostCPUFeatures()) features.AddFeature(name, on);
  b.getFeatures() = features;
  b.setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  return b;
}

}  // namespace

Jit::Jit() : machineBuilder_(hostBuilder()) {
  description_ = machineBuilder_.getTargetTriple().str() + " " + machineBuilder_.getCPU() + " " +
                 machineBuilder_.getFeatures().getString();
  jit_ = check(llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(machineBuilder_).create(), "creating the JIT");
  // The functions generated code calls (libm, memcpy, our helpers) by
  // address, so that nothing depends on what the process happens to export.
  llvm::orc::SymbolMap symbols;
  for (const RuntimeSymbol& s : runtimeSymbols())
    symbols[jit_->mangleAndIntern(s.name)] = llvm::orc::ExecutorSymbolDef(
        llvm::orc::ExecutorAddr::fromPtr(s.address), llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable);
  if (llvm::Error e = jit_->getMainJITDylib().define(llvm::orc::absoluteSymbols(std::move(symbols))))
    throw InternalError("defining the JIT's runtime symbols: " + errorText(std::move(e)));
}

Jit& Jit::instance() {
  static Jit jit;  // thread-safe initialization
  return jit;
}

std::unique_ptr<llvm::TargetMachine> Jit::hostMachine() {
  std::lock_guard<std::mutex> lock(mutex_);
  return check(machineBuilder_.createTargetMachine(), "creating a target machine for the host");
}

void* Jit::load(std::unique_ptr<llvm::MemoryBuffer> object, const std::string& symbol, llvm::orc::JITDylib** dylib) {
  std::lock_guard<std::mutex> lock(mutex_);
  llvm::orc::JITDylib& jd = check(jit_->createJITDylib("kernel." + std::to_string(nextDylib_++)), "a JITDylib");
  jd.addToLinkOrder(jit_->getMainJITDylib());  // our runtime symbols (the process's come by default)
  if (llvm::Error e = jit_->addObjectFile(jd, std::move(object))) {
    llvm::consumeError(jit_->getExecutionSession().removeJITDylib(jd));
    throw InternalError("linking a compiled kernel: " + errorText(std::move(e)));
  }
  llvm::Expected<llvm::orc::ExecutorAddr> addr = jit_->lookup(jd, symbol);
  if (!addr) {
    std::string why = errorText(addr.takeError());
    llvm::consumeError(jit_->getExecutionSession().removeJITDylib(jd));
    throw InternalError("linking a compiled kernel: " + why);
  }
  *dylib = &jd;
  return addr->toPtr<void*>();
}

void Jit::unload(llvm::orc::JITDylib* dylib) {
  if (!dylib) return;
  std::lock_guard<std::mutex> lock(mutex_);
  llvm::consumeError(jit_->getExecutionSession().removeJITDylib(*dylib));
}

int vectorRegisterBits(const llvm::TargetMachine& tm) {
  const std::string features = tm.getTargetFeatureString().str() + ",";
  auto has = [&](const char* f) { return features.find(std::string("+") + f + ",") != std::string::npos; };
  if (has("avx512f")) return 512;
  if (has("avx")) return 256;
  return 128;
}

void optimizeModule(llvm::Module& m, llvm::TargetMachine& tm, int level) {
  if (level <= 0) return;
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions pto;
  pto.LoopVectorization = level >= 2;
  pto.SLPVectorization = level >= 2;
  // No unrolling (full unrolling included: it follows this flag): tile loops
  // have constant trip counts of tens to thousands, and unrolling all of
  // them made compiles of a convolution take seconds for no speed-up; the
  // vectorizer still interleaves its vector loops.
  pto.LoopUnrolling = false;
  llvm::PassBuilder pb(&tm, pto);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  const llvm::OptimizationLevel ol = level == 1   ? llvm::OptimizationLevel::O1
                                     : level == 2 ? llvm::OptimizationLevel::O2
                                                  : llvm::OptimizationLevel::O3;
  llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(ol);
  mpm.run(m, mam);
  bool late = false;
  for (llvm::Function& f : m) {
    if (!f.hasFnAttribute(kInlineAfterVectorizing)) continue;
    f.removeFnAttr(llvm::Attribute::NoInline);
    f.addFnAttr(llvm::Attribute::AlwaysInline);
    late = true;
  }
  if (!late) return;
  llvm::FunctionPassManager cleanup;  // constants of the inlined bodies hoisted out of their loops
  cleanup.addPass(llvm::EarlyCSEPass(/*UseMemorySSA=*/true));
  cleanup.addPass(llvm::createFunctionToLoopPassAdaptor(llvm::LICMPass(llvm::LICMOptions()), /*UseMemorySSA=*/true));
  cleanup.addPass(llvm::InstCombinePass());
  cleanup.addPass(llvm::SimplifyCFGPass());
  llvm::ModulePassManager inlining;
  inlining.addPass(llvm::AlwaysInlinerPass());
  inlining.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(cleanup)));
  inlining.run(m, mam);
}

std::unique_ptr<llvm::MemoryBuffer> emitObject(llvm::Module& m, llvm::TargetMachine& tm) {
  llvm::orc::SimpleCompiler compiler(tm);
  return check(compiler(m), "generating machine code");
}

}  // namespace tritonc::cpu::detail
