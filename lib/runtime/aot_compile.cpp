#include "runtime/aot_compile.h"

#include "ir/printer.h"
#include "runtime/specialize.h"
#include "runtime/version.h"
#include "target/nvptx/ptxas.h"

namespace tritonc::runtime {

namespace {

// The dynamic shared memory the PTX's kernel requests (its marker comment, as GpuKernel reads it).
unsigned sharedBytesOf(const std::string& ptx) {
  const std::string marker = "// tritonc: dynamic_shared_bytes ";
  size_t at = ptx.find(marker);
  if (at == std::string::npos) return 0;
  try {
    return unsigned(std::stoul(ptx.substr(at + marker.size(), 12)));
  } catch (const std::exception&) {
    return 0;
  }
}

bool validTargetName(const std::string& t) {
  return t == "cpu" || t == "interp" || (t.rfind("sm_", 0) == 0 && t.size() > 3);
}

}  // namespace

KernelPack compilePack(const std::string& source, const KernelOptions& kernelOptions, const PackOptions& options) {
  if (options.targets.empty()) throw UserError(SourceLoc{}, "no target to compile for");
  KernelPack pack;
  pack.producer = versionString();
  pack.sourceFile = kernelOptions.filename;
  for (const std::string& target : options.targets) {
    if (!validTargetName(target))
      throw UserError(SourceLoc{}, "unknown target '" + target + "' (expected sm_80, sm_90a, ..., cpu or interp)");
    KernelOptions ko = kernelOptions;
    // CPU and interpreter entries hold the optimized IR, the same for both
    // (the CPU back end compiles it at load); it keeps source locations, which
    // an IR parsed back from the disk cache has lost.
    const bool ir = target == "cpu" || target == "interp";
    ko.target = ir ? "interp" : target;
    if (ir) ko.cacheDir = "none";
    Kernel kernel(source, ko);
    if (pack.kernel.empty()) {
      pack.kernel = kernel.name();
      pack.params = kernel.params();
    }
    std::vector<std::vector<ArgFacts>> facts;
    std::vector<std::string> keys;
    auto add = [&](std::vector<ArgFacts> f) {
      std::string key = specializationKey(f);
      if (std::find(keys.begin(), keys.end(), key) != keys.end()) return;  // the same code
      keys.push_back(key);
      facts.push_back(std::move(f));
    };
    if (options.specializations.empty()) add(factsOfNamedIntegers(pack.kernel, pack.params, {}));
    for (const auto& ints : options.specializations) add(factsOfNamedIntegers(pack.kernel, pack.params, ints));
    if (options.generic) add(genericFacts(pack.params));
    size_t compiled = 0;
    std::string errors;
    for (const Config& config : kernel.space()) {
      for (size_t s = 0; s < facts.size(); ++s) {
        PackEntry e;
        e.target = target;
        e.tuned = config.values;
        e.fixed = config.fixed;
        e.numWarps = config.numWarps;
        e.numStages = config.numStages;
        e.specialization = keys[s];
        try {
          std::shared_ptr<CompiledKernel> k = kernel.compile(config, facts[s]);
          kernel.checkSignature(*k);
          if (ir) {
            ir::PrintOptions po;
            po.locations = true;
            e.code = ir::printModule(*k->module, po);
          } else {
            e.code = k->ptx;
            e.sharedBytes = sharedBytesOf(e.code);
            e.cubin = nvptx::assembleCubin(e.code, target);  // empty without ptxas: the driver compiles the PTX
          }
        } catch (const UserError& err) {
          std::string what = err.what();
          std::string line = config.text() + " [" + keys[s] + "] for " + target + ": " + what.substr(0, what.find('\n'));
          if (options.note) options.note("skipped " + line);
          if (errors.size() < 4000) errors += "\n  " + line;
          continue;
        }
        pack.entries.push_back(std::move(e));
        ++compiled;
      }
    }
    if (compiled == 0)
      throw UserError(SourceLoc{}, "no configuration of kernel '" + pack.kernel + "' compiles for " + target + ":" + errors);
  }
  return pack;
}

}  // namespace tritonc::runtime
