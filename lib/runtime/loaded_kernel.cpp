#include "runtime/loaded_kernel.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iterator>
#include <set>

#include "ir/parser.h"
#include "ir/verifier.h"
#include "runtime/fault_report.h"
#include "runtime/specialize.h"
#include "runtime/trial_runs.h"
#include "runtime/tuning_key.h"
#include "target/cpu/cpu_backend.h"
#include "target/nvptx/cuda_driver.h"
#include "target/nvptx/gpu_runner.h"

namespace tritonc::runtime {

namespace {

constexpr size_t kMaxListed = 24;  // configurations named in an error

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// The values a requested macro accepts: "[64, 128]" either, anything else itself.
std::vector<std::string> acceptedValues(const lang::Define& d) {
  const std::string v = trim(d.value);
  if (v.size() < 2 || v.front() != '[' || v.back() != ']') return {v};
  std::vector<std::string> out;
  std::string item;
  int depth = 0;
  for (char c : v.substr(1, v.size() - 2)) {
    depth += (c == '(' || c == '[') - (c == ')' || c == ']');
    if (c == ',' && depth == 0) {
      out.push_back(trim(item));
      item.clear();
    } else {
      item += c;
    }
  }
  out.push_back(trim(item));
  return out;
}

bool isIrTarget(const std::string& t) { return t == "cpu" || t == "interp"; }

// 90 for "sm_90a"; -1 for anything else.
int archNumber(const std::string& t) {
  if (t.rfind("sm_", 0) != 0) return -1;
  try {
    return std::stoi(t.substr(3));
  } catch (const std::exception&) {
    return -1;
  }
}

// "sm_90a (4 entries), interp (2 entries)"
std::string targetsHeld(const KernelPack& pack) {
  std::vector<std::pair<std::string, int>> counts;
  for (const PackEntry& e : pack.entries) {
    auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == e.target; });
    if (it == counts.end()) counts.push_back({e.target, 1});
    else ++it->second;
  }
  std::string s;
  for (const auto& [t, n] : counts)
    s += (s.empty() ? "" : ", ") + t + " (" + std::to_string(n) + (n == 1 ? " entry)" : " entries)");
  return s;
}

// A configuration with its other macros: "TM=64 num_warps=4 num_stages=3 (TYPE=half)".
std::string configurationText(const Config& c) {
  std::string s = c.text();
  std::string fixed;
  for (const lang::Define& d : c.fixed) fixed += (fixed.empty() ? "" : " ") + d.name + "=" + d.value;
  return fixed.empty() ? s : s + " (" + fixed + ")";
}

struct TargetChoice {
  std::string runner;  // "interp", "cpu" or "sm_XX"
  std::vector<const PackEntry*> entries;
};

std::vector<const PackEntry*> entriesWhere(const KernelPack& pack, const std::function<bool(const PackEntry&)>& keep) {
  std::vector<const PackEntry*> out;
  for (const PackEntry& e : pack.entries)
    if (keep(e)) out.push_back(&e);
  return out;
}

// IR entries for `target` ("cpu" or "interp"), else the other's: the IR is the same.
std::vector<const PackEntry*> irEntries(const KernelPack& pack, const std::string& target) {
  std::vector<const PackEntry*> out = entriesWhere(pack, [&](const PackEntry& e) { return e.target == target; });
  if (out.empty()) out = entriesWhere(pack, [](const PackEntry& e) { return isIrTarget(e.target); });
  return out;
}

// GPU entries a device of architecture `arch` runs: its own, else the PTX
// of the newest older architecture without the `a` suffix (the driver
// compiles PTX for newer GPUs; sm_90a code runs on sm_90 only).
TargetChoice gpuEntries(const KernelPack& pack, const std::string& arch) {
  TargetChoice c{arch, entriesWhere(pack, [&](const PackEntry& e) { return e.target == arch; })};
  if (!c.entries.empty()) return c;
  int best = -1;
  for (const PackEntry& e : pack.entries)
    if (e.onGpu() && e.target.back() != 'a' && archNumber(e.target) <= archNumber(arch))
      best = std::max(best, archNumber(e.target));
  if (best < 0) return {};
  c.runner = "sm_" + std::to_string(best);
  c.entries = entriesWhere(pack, [&](const PackEntry& e) { return e.target == c.runner; });
  return c;
}

TargetChoice chooseTarget(const KernelPack& pack, const std::string& requested, const std::string& path) {
  const std::string held = path + " holds code for " + targetsHeld(pack);
  auto noCode = [&](const std::string& why) { return NoCodeForTarget(SourceLoc{}, why + "; " + held); };
  if (requested == "interp" || requested == "cpu") {
    if (requested == "cpu" && !cpu::available())
      throw NoCodeForTarget(SourceLoc{}, "target cpu: this tritonc was built without the CPU back end (it needs LLVM 19)");
    TargetChoice c{requested, irEntries(pack, requested)};
    if (c.entries.empty()) throw noCode("no code for target " + requested + " (compile with --target cpu or interp)");
    return c;
  }
  if (requested.rfind("sm_", 0) == 0) {
    TargetChoice c{requested, entriesWhere(pack, [&](const PackEntry& e) { return e.target == requested; })};
    if (c.entries.empty()) throw noCode("no code for target " + requested);
    return c;
  }
  if (requested != "auto" && requested != "gpu")
    throw UserError(SourceLoc{}, "unknown target '" + requested + "' (expected auto, gpu, cpu, interp or sm_XX)");
  std::string noGpu;
  const std::string arch = nvptx::gpuArch(&noGpu);
  if (!arch.empty()) {
    TargetChoice c = gpuEntries(pack, arch);
    if (!c.entries.empty()) return c;
    if (requested == "gpu") throw noCode("no code this GPU (" + arch + ") runs");
  } else if (requested == "gpu") {
    throw noCode("target gpu: " + noGpu);
  }
  // No GPU, or no code for it: native code on the CPU when built with it.
  const std::string host = cpu::available() ? "cpu" : "interp";
  TargetChoice c{host, irEntries(pack, host)};
  if (c.entries.empty())
    throw noCode(arch.empty() ? "no code for this machine, which has no GPU (" + noGpu + ")"
                              : "no code this GPU (" + arch + ") runs, nor for the CPU");
  return c;
}

// The entry's value of macro `name` (tuned or fixed); nullptr when it has none.
const std::string* macroOf(const PackEntry& e, const std::string& name) {
  for (const auto* list : {&e.tuned, &e.fixed})
    for (const lang::Define& d : *list)
      if (d.name == name) return &d.value;
  return nullptr;
}

bool matches(const PackEntry& e, const LoadOptions& o) {
  for (const lang::Define& d : o.defines) {
    const std::string* v = macroOf(e, d.name);
    std::vector<std::string> accepted = acceptedValues(d);
    if (!v || std::find(accepted.begin(), accepted.end(), *v) == accepted.end()) return false;
  }
  auto allowed = [](const std::vector<int>& list, int v) {
    return list.empty() || std::find(list.begin(), list.end(), v) != list.end();
  };
  return allowed(o.numWarps, e.numWarps) && allowed(o.numStages, e.numStages);
}

std::string requestText(const LoadOptions& o) {
  std::string s;
  for (const lang::Define& d : o.defines) s += (s.empty() ? "" : " ") + d.name + "=" + d.value;
  auto list = [](const char* name, const std::vector<int>& v) {
    std::string t;
    for (int x : v) t += (t.empty() ? "" : ",") + std::to_string(x);
    return v.empty() ? std::string() : std::string(" ") + name + "=" + t;
  };
  return trim(s + list("num_warps", o.numWarps) + list("num_stages", o.numStages));
}

std::string noMatchMessage(const KernelPack& pack, const std::vector<const PackEntry*>& entries,
                           const LoadOptions& o, const std::string& runner, const std::string& path) {
  std::string s = path + " has no configuration of kernel '" + pack.kernel + "' for " + runner + " with " +
                  requestText(o) + ";";
  std::set<std::string> defined;
  for (const PackEntry* e : entries)
    for (const auto* list : {&e->tuned, &e->fixed})
      for (const lang::Define& d : *list) defined.insert(d.name);
  for (const lang::Define& d : o.defines)
    if (!defined.count(d.name)) {
      std::string names;
      for (const std::string& n : defined) names += (names.empty() ? "" : ", ") + n;
      s += " no configuration defines '" + d.name + "' (they define " + (names.empty() ? "no macros" : names) + ");";
    }
  s += " it holds:";
  std::vector<std::string> listed;
  for (const PackEntry* e : entries) {
    std::string text = configurationText(e->config());
    if (std::find(listed.begin(), listed.end(), text) == listed.end()) listed.push_back(text);
  }
  for (size_t i = 0; i < listed.size() && i < kMaxListed; ++i) s += "\n  " + listed[i];
  if (listed.size() > kMaxListed) s += "\n  ... and " + std::to_string(listed.size() - kMaxListed) + " more";
  return s;
}

// "A 16-byte aligned, M divisible by 16": what a specialization key says of
// a launch's arguments, or (`assumed`) what an entry assumes of them.
std::string keyText(const std::vector<Param>& params, const std::string& key, bool assumed) {
  std::string s;
  for (size_t k = 0; k < params.size() && k < key.size(); ++k) {
    std::string what;
    switch (key[k]) {
      case 'A': what = "16-byte aligned"; break;
      case 'P':
        if (assumed) continue;  // any alignment
        what = "not 16-byte aligned";
        break;
      case 'D': what = "divisible by 16"; break;
      case '8': case '4': case '2': what = "divisible by " + std::string(1, key[k]); break;
      case '1': what = "1"; break;
      case 'N': what = assumed ? "not negative" : "odd"; break;
      case 'M':
        if (assumed) continue;  // nothing
        what = "negative";
        break;
      default: continue;  // F: a float, or an integer with no facts
    }
    s += (s.empty() ? "" : ", ") + params[k].name + " " + what;
  }
  return s.empty() ? (assumed ? "nothing" : "no facts") : s;
}

}  // namespace

std::unique_ptr<LoadedKernel> LoadedKernel::load(const std::string& path, const LoadOptions& options) {
  return std::make_unique<LoadedKernel>(readPack(path), options, path);
}

LoadedKernel::LoadedKernel(KernelPack pack, const LoadOptions& options, std::string path)
    : pack_(std::move(pack)), path_(std::move(path)), options_(options) {
  if (!options_.kernel.empty() && options_.kernel != pack_.kernel)
    throw UserError(SourceLoc{}, path_ + " holds kernel '" + pack_.kernel + "', not '" + options_.kernel + "'");
  checkTuningKeyNames(pack_.params, options_.tuningKey, pack_.kernel);
  TargetChoice choice = chooseTarget(pack_, options_.target, path_);
  target_ = choice.runner;
  std::vector<const PackEntry*> chosen;
  for (const PackEntry* e : choice.entries)
    if (matches(*e, options_)) chosen.push_back(e);
  if (chosen.empty()) throw UserError(SourceLoc{}, noMatchMessage(pack_, choice.entries, options_, target_, path_));
  std::vector<std::string> texts;  // per configuration of space_, with its fixed macros
  for (const PackEntry* e : chosen) {
    Config c = e->config();
    std::string text = configurationText(c);
    size_t i = size_t(std::find(texts.begin(), texts.end(), text) - texts.begin());
    if (i == texts.size()) {
      texts.push_back(text);
      space_.push_back(c);
      variants_.emplace_back();
    }
    auto code = std::make_shared<CompiledKernel>();
    code->config = c;
    code->key = path_ + ", entry " + std::to_string(e - pack_.entries.data() + 1);
    code->signature = pack_.params;
    code->origin = "file";
    if (e->onGpu()) {
      code->ptx = e->code;
      code->cubin = e->cubin;  // the driver falls back to the PTX where it does not fit the GPU
    } else {
      try {
        code->module = ir::parseModule(e->code);
      } catch (const UserError& err) {
        throw PackFileError(SourceLoc{}, code->key + ": its IR does not parse (the file was written by " +
                                             pack_.producer + "): " + err.what());
      }
      std::string bad = ir::verifyModule(*code->module);
      if (!bad.empty()) throw PackFileError(SourceLoc{}, code->key + ": its IR is invalid:\n" + bad);
      code->module->sourceFile = pack_.sourceFile;
      code->function = code->module->function(pack_.kernel);
      if (!code->function) throw PackFileError(SourceLoc{}, code->key + ": its IR has no function '" + pack_.kernel + "'");
    }
    variants_[i].push_back({e->specialization, std::move(code)});
  }
  paramKinds_ = parameterKinds(pack_.params);
  keyed_ = keyedParameters(pack_.params, options_.tuningKey, space_.size());
}

LoadedKernel::~LoadedKernel() = default;

std::string LoadedKernel::sourceText() const {
  std::ifstream in(pack_.sourceFile, std::ios::binary);
  if (!in) return "";
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string LoadedKernel::tuningKeyOf(const std::vector<interp::KernelArg>& args) const {
  return runtime::tuningKeyOf(pack_.params, options_.tuningKey, paramKinds_, args);
}

CompiledKernel* LoadedKernel::codeFor(size_t config, const std::string& key, std::string* why) {
  const Variant* best = nullptr;
  for (const Variant& v : variants_[config])
    if (keySatisfies(key, v.specialization) && (!best || keyStrength(v.specialization) > keyStrength(best->specialization)))
      best = &v;
  if (best) return best->code.get();
  std::string held;
  for (const Variant& v : variants_[config])
    held += "\n  " + v.specialization + " (" + keyText(pack_.params, v.specialization, /*assumed=*/true) + ")";
  *why = path_ + " has no code of kernel '" + pack_.kernel + "' for this launch in configuration " +
         space_[config].text() + ": its arguments are " + keyText(pack_.params, key, /*assumed=*/false) + " (" + key +
         "), and the file's entries assume:" + held +
         "\ncompile with `tritonc compile --generic` for code that runs any launch, or with --arg NAME=VALUE "
         "for these sizes";
  return nullptr;
}

void LoadedKernel::makeReady(CompiledKernel& k) {
  if (onGpu()) loadOnGpu(k, pack_.kernel);
  if (target_ == "cpu") loadOnCpu(k);
}

PreparedLaunch LoadedKernel::prepared(const std::vector<interp::KernelArg>& args) {
  thread_local LaunchMemo::Shape shape;  // reused: no allocation per launch
  LaunchMemo::shapeOf(args, keyed_, paramKinds_, shape);
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  return memo_.find(shape);
}

PreparedLaunch LoadedKernel::prepare(const std::vector<interp::KernelArg>& args, const GridFn& grid, void* stream) {
  if (args.size() != pack_.params.size())
    throw UserError(SourceLoc{}, "kernel '" + pack_.kernel + "' takes " + std::to_string(pack_.params.size()) +
                                     " arguments, " + std::to_string(args.size()) + " given");
  if (PreparedLaunch p = prepared(args)) return p;
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  const size_t config = space_.size() == 1 ? 0 : tune(args, grid, false, stream).bestIndex;
  std::string why;
  CompiledKernel* k = codeFor(config, specializationKey(factsOf(args, paramKinds_)), &why);
  if (!k) throw UserError(SourceLoc{}, why);
  makeReady(*k);  // launch(p, ...) runs outside the lock
  PreparedLaunch p{&space_[config], k};
  LaunchMemo::Shape shape;
  LaunchMemo::shapeOf(args, keyed_, paramKinds_, shape);
  memo_.remember(shape, p);
  return p;
}

void LoadedKernel::launch(const PreparedLaunch& p, const std::vector<interp::KernelArg>& args,
                          const interp::Grid& grid, void* stream) {
  try {
    if (target_ == "interp") {
      std::lock_guard<std::recursive_mutex> lock(mutex_);  // interpreted runs stay serialized
      runCompiled(*p.compiled, target_, pack_.kernel, args, grid, 0, stream);
    } else {
      runCompiled(*p.compiled, target_, pack_.kernel, args, grid, 0, stream);
    }
  } catch (const nvptx::GpuFault& e) {
    std::string command = interpreterCommand(pack_.sourceFile, pack_.kernel, *p.config, pack_.params, args, grid);
    throw UserError(SourceLoc{}, gpuFaultReport(pack_.kernel, *p.config, e.what(), command, /*whileTuning=*/false));
  }
}

TuneResult LoadedKernel::tune(const std::vector<interp::KernelArg>& args, const GridFn& grid, bool force,
                              void* stream) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  TuneResult result;
  result.tuningKey = tuningKeyOf(args);
  if (!force) {
    auto known = tuned_.find(result.tuningKey);
    if (known != tuned_.end()) {
      result.bestIndex = known->second;
      result.best = space_[known->second];
      result.origin = "memory";
      return result;
    }
  }
  prepareTrialArguments(pack_.kernel, args, stream);
  const std::function<void(const std::string&)> progress = tuningProgress(options_.progress);
  const size_t n = space_.size();
  if (progress)
    progress("tuning kernel '" + pack_.kernel + "' from " + path_ + " for " + result.tuningKey + ": " +
             std::to_string(n) + " configurations on " + target_);
  auto t0 = std::chrono::steady_clock::now();
  const std::string key = specializationKey(factsOf(args, paramKinds_));
  result.trials.resize(n);
  std::vector<CompiledKernel*> code(n, nullptr);
  for (size_t i = 0; i < n; ++i) {
    TuneTrial& t = result.trials[i];
    t.config = space_[i];
    std::string why;
    try {
      code[i] = codeFor(i, key, &why);
      if (code[i]) makeReady(*code[i]);
      else t.error = "no code for these arguments (" + key + ")";
    } catch (const InternalError&) {
      throw;
    } catch (const std::exception& e) {
      std::string what = e.what();
      t.error = what.substr(0, what.find('\n'));
    }
  }
  result.compileSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  TrialOptions to;
  to.kernel = pack_.kernel;
  to.target = target_;
  to.repeats = trialRepeats(target_, options_.tuneRepeats);
  to.shortcuts = options_.tuneShortcuts;
  to.say = progress;
  to.sourceFile = pack_.sourceFile;
  to.params = pack_.params;
  timeTrials(result, code, args, grid, to);
  if (progress) progress("tuned: " + result.best.text() + " (" + formatMs(result.bestMs) + ")");
  result.origin = "tuned";
  tuned_[result.tuningKey] = result.bestIndex;
  if (force) memo_.clear();  // a re-tune may choose differently for shapes already launched
  return result;
}

}  // namespace tritonc::runtime
