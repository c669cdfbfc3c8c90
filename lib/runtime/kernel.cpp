// The runtime's kernel: configurations, compilation, the two caches, launch.
#include "runtime/kernel.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <set>

#include "gpu/dot_plan.h"
#include "gpu/occupancy.h"
#include "gpu/passes.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "runtime/compile_log.h"
#include "runtime/fault_report.h"
#include "runtime/hash.h"
#include "runtime/optimize_for_launch.h"
#include "runtime/specialize.h"
#include "runtime/tuning_key.h"
#include "runtime/version.h"
#include "target/cpu/cpu_backend.h"
#include "target/nvptx/codegen.h"
#include "target/nvptx/cuda_driver.h"
#include "target/nvptx/gpu_runner.h"

namespace tritonc::runtime {

namespace {

constexpr size_t kMaxSpace = 4096;

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

UserError optionError(const std::string& what) { return UserError(SourceLoc{}, what); }

// Every combination of `points` with the values of `params` (a tuning space
// grows one parameter at a time); refuses spaces larger than kMaxSpace.
void multiplyPoints(std::vector<std::vector<lang::Define>>& points, const std::vector<lang::TuningParam>& params) {
  for (const lang::TuningParam& tp : params) {
    std::vector<std::vector<lang::Define>> next;
    for (const auto& p : points)
      for (const std::string& v : tp.values) {
        next.push_back(p);
        next.back().push_back({tp.name, v});
      }
    points.swap(next);
    if (points.size() > kMaxSpace) throw optionError("the tuning space has more than " + std::to_string(kMaxSpace) + " configurations");
  }
}

}  // namespace

// ---- Kernel -------------------------------------------------------------

Kernel::Kernel(std::string source, KernelOptions opts) : source_(std::move(source)), opts_(std::move(opts)) {
  if (opts_.numWarps.empty() || opts_.numStages.empty()) throw optionError("num_warps and num_stages need a value");
  for (int w : opts_.numWarps)
    if (w <= 0 || w > 32 || (w & (w - 1)))
      throw optionError("num_warps must be a power of two between 1 and 32, got " + std::to_string(w));
  for (int s : opts_.numStages)
    if (s < 1 || s > 8) throw optionError("num_stages must be between 1 and 8, got " + std::to_string(s));
  if (opts_.target == "auto" || opts_.target == "gpu") {
    std::string why;
    target_ = nvptx::gpuArch(&why);
    if (target_.empty()) {
      if (opts_.target == "gpu") throw optionError("target gpu: " + why);
      // No GPU: native code on the CPU when this build has the back end;
      // the interpreter (target "interp") stays the checked debug mode.
      target_ = cpu::available() ? "cpu" : "interp";
    }
  } else if (opts_.target == "cpu") {
    if (!cpu::available())
      throw optionError("target cpu: this tritonc was built without the CPU back end (it needs LLVM 19)");
    target_ = "cpu";
  } else if (opts_.target == "interp" || opts_.target.rfind("sm_", 0) == 0) {
    target_ = opts_.target;
  } else {
    throw optionError("unknown target '" + opts_.target + "' (expected auto, gpu, cpu, interp or sm_XX)");
  }

  // The parameters and the tuning space: -D lists are known before
  // compiling; `tunable` lists and the parameters come from a compile of the
  // first -D point that compiles (a point that does not is the tuner's
  // business: it is skipped there with its error).
  lang::CompileOptions co;
  co.filename = opts_.filename;
  co.defines = opts_.defines;
  std::vector<lang::TuningParam> listed;
  // Triton-IR has no preprocessor: only the configuration values (num_ctas,
  // enable_fp_fusion, ...), which configure the compile rather than the
  // source (the Python DSL's launch options).
  if (opts_.language == lang::Language::TritonIr)
    for (const lang::Define& d : opts_.defines)
      if (!nvptx::TargetOptions::isConfigurationName(d.name))
        throw optionError("a kernel given as Triton-IR takes no -D macros but num_ctas, enable_fp_fusion, "
                          "enable_reflect_ftz and maxnreg; got '" + d.name + "'");
  try {
    if (opts_.language == lang::Language::TritonC) lang::parseSource(source_, co, &listed);
  } catch (const UserError&) {
    // Preprocessing with the first values failed; the lists were read before.
  }
  std::vector<std::vector<lang::Define>> points{{}};
  multiplyPoints(points, listed);
  std::unique_ptr<lang::CompileResult> r;
  std::string errors;
  for (const auto& p : points) {
    Config c{p, {}, opts_.numWarps[0], opts_.numStages[0]};
    try {
      r = std::make_unique<lang::CompileResult>(lang::compileSource(source_, compileOptionsFor(c)));
      break;
    } catch (const UserError& e) {
      if (points.size() == 1) throw;
      if (errors.size() < 4000) errors += "\n  " + c.text() + ": " + e.what();
    }
  }
  if (!r) throw optionError("no configuration of the kernel compiles:" + errors);
  reportWarnings(r->warnings);
  const ir::Function* fn = nullptr;
  for (auto& f : r->module->functions())
    if (opts_.kernel.empty() || f->name() == opts_.kernel) {
      if (fn && opts_.kernel.empty())
        throw optionError("the source defines several kernels: name the one to run ('" + fn->name() + "', '" +
                          f->name() + "', ...)");
      fn = f.get();
    }
  if (!fn) throw optionError(opts_.kernel.empty() ? "the source defines no kernel" : "no kernel named '" + opts_.kernel + "'");
  name_ = fn->name();
  for (auto& a : fn->arguments()) params_.push_back({a->name(), a->type()});
  paramKinds_ = parameterKinds(*fn);
  checkTuningKeyNames(params_, opts_.tuningKey, name_);
  // `tunable` lists of the source multiply the -D points.
  multiplyPoints(points, r->tuning);
  tuning_ = listed;
  tuning_.insert(tuning_.end(), r->tuning.begin(), r->tuning.end());
  std::vector<lang::Define> fixed;
  for (const lang::Define& d : opts_.defines)
    if (std::none_of(tuning_.begin(), tuning_.end(), [&](const lang::TuningParam& tp) { return tp.name == d.name; }))
      fixed.push_back({d.name, lang::defineValues(d)[0]});  // "[32]" is 32
  for (const auto& p : points)
    for (int w : opts_.numWarps)
      for (int s : opts_.numStages) space_.push_back(Config{p, fixed, w, s});
  if (space_.size() > kMaxSpace) throw optionError("the tuning space has more than " + std::to_string(kMaxSpace) + " configurations");

  keyed_ = keyedParameters(params_, opts_.tuningKey, space_.size());

  // (TRITONC_CACHE_DIR=none, like --cache-dir none: memory only)
  const std::string dir = opts_.cacheDir.empty() ? DiskCache::defaultDirectory() : opts_.cacheDir;
  if (dir != "none") disk_ = std::make_unique<DiskCache>(dir);
}

Kernel::~Kernel() = default;

void Kernel::reportWarnings(const std::vector<Warning>& warnings) const {
  for (const Warning& w : warnings) {
    std::string text = formatDiagnostic(opts_.filename, source_, w.loc, w.message, "warning");
    {
      std::lock_guard<std::mutex> lock(warnMutex_);
      if (!warned_.insert(text).second) continue;
    }
    if (opts_.warn) opts_.warn(text);
    else std::fputs(text.c_str(), stderr);
  }
}

lang::CompileOptions Kernel::compileOptionsFor(const Config& c) const {
  lang::CompileOptions co;
  co.filename = opts_.filename;
  co.language = opts_.language;
  std::set<std::string> chosen;
  for (const lang::Define& d : c.values) chosen.insert(d.name);
  for (const lang::Define& d : opts_.defines)
    if (!chosen.count(d.name)) co.defines.push_back(d);
  for (const lang::Define& d : c.values) co.defines.push_back(d);
  return co;
}

// Everything the compiled code depends on; the source last (it may hold anything).
static std::string describeOptions(const KernelOptions& o) {
  std::string s = "kernel-options\n";
  for (const lang::Define& d : o.defines) s += "-D" + d.name + "=" + d.value + "\n";
  s += "warps";
  for (int w : o.numWarps) s += " " + std::to_string(w);
  s += "\nstages";
  for (int st : o.numStages) s += " " + std::to_string(st);
  return s + "\nkernel " + o.kernel + "\ntf32 " + (o.allowTf32 ? "1" : "0") + "\nlanguage " +
         (o.language == lang::Language::TritonIr ? "triton-ir" : "triton-c") + "\n";
}

// The target in keys: CPU code is valid for the host CPU it was compiled for
// (its features) and the LLVM that made it, which a cache directory shared
// between machines must tell.
static std::string targetKey(const std::string& target) {
  if (target == "cpu") return "cpu " + cpu::codeIdentity();
  const int stageReuse = gpu::stageReuseFromEnvironment();
  return target + (nvptx::TargetOptions::tmaFromEnvironment() ? "" : " without TMA") +
         (nvptx::TargetOptions::multicastFromEnvironment() ? "" : " without multicast") +
         (nvptx::TargetOptions::smallIntArithmeticFromEnvironment() ? "" : " small integers by cvt") +
         (nvptx::TargetOptions::elementOrderFromEnvironment() ? "" : " in instruction order") +
         nvptx::TargetOptions::warpSpecializeKey() +
         (gpu::rowOccupancyFromEnvironment() ? "" : " without full occupancy for row kernels") +
         " row register slack " + std::to_string(gpu::rowRegisterSlackEighths()) +
         (gpu::streamSharedFromEnvironment() ? " shared element-wise values streamed" : "") +
         (gpu::occupancyProbeFromEnvironment() ? " occupancy probed" : "") +
         " wide stores " + std::to_string(int(gpu::wideStorePolicyFromEnvironment())) +
         (gpu::repeatedLoadsAnchorFromEnvironment() ? " repeated-address loads anchored" : "") +
         (gpu::fenceAsyncCopiesFromEnvironment() ? "" : " without fences for async copies") +
         (stageReuse < 0 ? "" : " stage reuse " + std::to_string(stageReuse)) +
         (gpu::registerPrefetchFromEnvironment() ? " register prefetch" : "") +
         (gpu::fmaBlocksFromEnvironment() == gpu::FmaBlocks::Off             ? " without FMA register blocks"
          : gpu::fmaBlocksFromEnvironment() == gpu::FmaBlocks::ColumnsOnTies ? " FMA blocks with more columns"
                                                                             : "") +
         " programs grouped by " + std::to_string(gpu::groupedProgramsFromEnvironment());
}

std::string Kernel::cacheKey(const Config& c, const std::string& specialization) const {
  return std::string("compiled\n") + compilerVersion() + "\ntarget " + targetKey(target_) + "\nconfig " + c.text() +
         "\nspecialization " + specialization + "\n" + describeOptions(opts_) + "file " + opts_.filename +
         "\nsource\n" + source_;
}

std::string Kernel::tuningRecordKey(const std::string& tuningKey) const {
  std::string key = std::string("tuned\n") + compilerVersion() + "\ntarget " + targetKey(target_) + "\nkey " + tuningKey + "\n" +
                    describeOptions(opts_) + "source\n" + source_;
  return key;
}

const Config* Kernel::findConfig(const std::string& text) const {
  for (const Config& c : space_)
    if (c.text() == text) return &c;
  return nullptr;
}

std::string Kernel::tuningKeyOf(const std::vector<interp::KernelArg>& args) const {
  return runtime::tuningKeyOf(params_, opts_.tuningKey, paramKinds_, args);
}

std::shared_ptr<CompiledKernel> Kernel::cached(const Config& config, const std::string& specialization, std::string* key) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  // The launch path: a configuration of the space and a specialization seen
  // before, found without building the full key (it holds the source).
  const bool inSpace = &config >= space_.data() && &config < space_.data() + space_.size();
  std::pair<size_t, std::string> fastKey{inSpace ? size_t(&config - space_.data()) : SIZE_MAX, specialization};
  if (inSpace) {
    auto fast = recent_.find(fastKey);
    if (fast != recent_.end()) {
      ++stats_.memoryHits;
      return fast->second;
    }
  }
  *key = cacheKey(config, specialization);
  auto hit = compiled_.find(*key);
  if (hit != compiled_.end()) {
    ++stats_.memoryHits;
    if (inSpace) recent_[fastKey] = hit->second;
    return hit->second;
  }
  auto out = std::make_shared<CompiledKernel>();
  out->config = config;
  out->key = *key;
  bool gpu = onGpu();
  // The disk entry: "ir <bytes>\n", the optimized IR, "sig <n>\n" and a line
  // "<name> <type>" per parameter, then the code: PTX for a GPU, the
  // kernel's image (object code, cpu::CpuKernel::image) for the CPU. A hit
  // reads the signature and the code only (parsing the IR would cost a
  // millisecond) and links a CPU image without compiling; an entry whose
  // CPU image does not load falls back to its IR (loadOnCpu compiles it).
  if (disk_) {
    std::string why;
    if (std::optional<std::string> payload = disk_->load(*key, &why)) {
      try {
        size_t nl = payload->find('\n');
        if (payload->compare(0, 3, "ir ") != 0 || nl == std::string::npos) throw std::runtime_error("no IR header");
        size_t n = std::stoul(payload->substr(3, nl - 3));
        size_t at = nl + 1 + n;
        if (at > payload->size() || payload->compare(at, 4, "sig ") != 0) throw std::runtime_error("no signature");
        size_t end = payload->find('\n', at);
        size_t count = std::stoul(payload->substr(at + 4, end - at - 4));
        at = end + 1;
        for (size_t p = 0; p < count; ++p) {
          end = payload->find('\n', at);
          if (end == std::string::npos) throw std::runtime_error("truncated signature");
          std::string line = payload->substr(at, end - at);
          size_t sp = line.find(' ');
          if (sp == std::string::npos || sp + 1 >= line.size()) throw std::runtime_error("bad signature line");
          std::optional<ir::Type> type = paramTypeFromText(line.substr(sp + 1));
          if (!type) throw std::runtime_error("bad signature line");
          out->signature.push_back({line.substr(0, sp), *type});
          at = end + 1;
        }
        std::string code = payload->substr(at);
        if (gpu) {
          if (code.empty()) throw std::runtime_error("no PTX");
          out->ptx = std::move(code);
        } else {
          if (target_ == "cpu" && !code.empty()) {
            try {
              out->cpu = cpu::CpuKernel::fromImage(code);
            } catch (const std::exception& e) {
              stats_.lastDiskProblem = std::string("unusable CPU image (") + e.what() + "); compiling its IR";
            }
          }
          if (!out->cpu) {
            out->module = ir::parseModule(payload->substr(nl + 1, n));
            out->function = out->module->function(name_);
            if (!out->function) throw std::runtime_error("no function '" + name_ + "'");
          }
        }
        out->origin = "disk";
        ++stats_.diskHits;
        compiled_[*key] = out;
        if (inSpace) recent_[fastKey] = out;
        return out;
      } catch (const std::exception& e) {
        // A valid file with content we cannot use: recompile and overwrite it.
        stats_.lastDiskProblem = std::string("unusable cache entry (") + e.what() + ")";
        out->module.reset();
        out->function = nullptr;
        out->cpu.reset();
        out->signature.clear();
        out->ptx.clear();
      }
    } else if (why != "not cached") {
      stats_.lastDiskProblem = why;
    }
  }
  return nullptr;
}

std::shared_ptr<CompiledKernel> Kernel::build(const Config& config, const std::vector<ArgFacts>& facts,
                                              const std::string& key, std::string* tritonIr) const {
  auto out = std::make_shared<CompiledKernel>();
  out->config = config;
  out->key = key;
  bool gpu = onGpu();
  CompileRequest request;
  request.kernel = name_;
  request.source = source_;
  request.target = target_;
  request.macros = config.values;
  request.macros.insert(request.macros.end(), config.fixed.begin(), config.fixed.end());
  request.numWarps = config.numWarps;
  request.numStages = config.numStages;
  for (const Param& p : params_) {
    request.paramNames.push_back(p.name);
    request.paramTypes.push_back(paramTypeText(p.type));
  }
  request.specialization = specializationKey(facts);
  noteCompile(request, opts_.cacheMustHit);
  auto t0 = std::chrono::steady_clock::now();
  lang::CompileResult r = lang::compileSource(source_, compileOptionsFor(config));
  reportWarnings(r.warnings);
  ir::Function* fn = r.module->function(name_);
  if (!fn) throw InternalError("kernel '" + name_ + "' vanished in configuration " + config.text());
  specializeAndOptimize(*r.module, *fn, facts, target_ == "cpu" ? kCpuNumStages : config.numStages, gpu);
  // The cache keeps the optimized Triton-IR (the PTX lowering turns the
  // module into GPU IR in place).
  // With locations: the interpreter and the CPU back end run a disk hit from
  // this text, and their errors name the source line.
  if (tritonIr && disk_) {
    ir::PrintOptions po;
    po.locations = true;
    *tritonIr = ir::printModule(*r.module, po);
  }
  if (gpu) {
    nvptx::TargetOptions to;
    to.arch = target_;
    to.numWarps = config.numWarps;
    to.allowTf32 = opts_.allowTf32;
    for (const std::string& name : nvptx::TargetOptions::configurationNames()) to.configure(name, config.value(name));
    out->ptx = nvptx::emitPtx(*r.module, to);
  } else if (target_ == "cpu") {
    out->cpu = cpu::CpuKernel::compile(*fn);
  }
  for (auto& a : fn->arguments()) out->signature.push_back({a->name(), a->type()});
  out->module = std::move(r.module);
  out->function = fn;
  out->compileMs = msSince(t0);
  out->origin = "compiled";
  return out;
}

void Kernel::adopt(const std::shared_ptr<CompiledKernel>& out, const std::string& tritonIr, const Config& config,
                   const std::string& specialization) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  ++stats_.compiles;
  if (disk_) {
    std::string sig = "sig " + std::to_string(out->signature.size()) + "\n";
    for (const Param& p : out->signature) sig += p.name + " " + paramTypeText(p.type) + "\n";
    const std::string code = out->cpu ? out->cpu->image() : out->ptx;
    if (disk_->store(out->key, "ir " + std::to_string(tritonIr.size()) + "\n" + tritonIr + sig + code)) ++stats_.diskStores;
  }
  compiled_[out->key] = out;
  const bool inSpace = &config >= space_.data() && &config < space_.data() + space_.size();
  if (inSpace) recent_[{size_t(&config - space_.data()), specialization}] = out;
}

std::shared_ptr<CompiledKernel> Kernel::compile(const Config& config, const std::vector<interp::KernelArg>& args) {
  return compile(config, factsOf(args, paramKinds_));
}

std::shared_ptr<CompiledKernel> Kernel::compile(const Config& config, const std::vector<ArgFacts>& facts) {
  std::string specialization = specializationKey(facts);
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  std::string key;
  if (std::shared_ptr<CompiledKernel> hit = cached(config, specialization, &key)) return hit;
  std::string tritonIr;
  std::shared_ptr<CompiledKernel> out = build(config, facts, key, &tritonIr);
  adopt(out, tritonIr, config, specialization);
  return out;
}

void Kernel::checkSignature(const CompiledKernel& k) const {
  // The arguments were bound by the parameters of the space's first point; a
  // configuration whose macros change them (TYPE=[float, half]) cannot run on them.
  bool same = k.signature.size() == params_.size();
  for (size_t i = 0; same && i < params_.size(); ++i) same = k.signature[i].type == params_[i].type;
  if (same) return;
  throw UserError(SourceLoc{}, "its parameters (" + signatureText(k.signature) + ") differ from the first configuration's (" +
                                   signatureText(params_) + ")");
}

PreparedLaunch Kernel::prepared(const std::vector<interp::KernelArg>& args) {
  thread_local LaunchMemo::Shape shape;  // reused: no allocation per launch
  LaunchMemo::shapeOf(args, keyed_, paramKinds_, shape);
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  PreparedLaunch p = memo_.find(shape);
  if (p) ++stats_.memoryHits;
  return p;
}

PreparedLaunch Kernel::prepare(const std::vector<interp::KernelArg>& args, const GridFn& grid, void* stream) {
  if (args.size() != params_.size())
    throw UserError(SourceLoc{}, "kernel '" + name_ + "' takes " + std::to_string(params_.size()) + " arguments, " +
                                     std::to_string(args.size()) + " given");
  if (PreparedLaunch p = prepared(args)) return p;
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  const Config& config = space_[space_.size() == 1 ? 0 : tune(args, grid, false, stream).bestIndex];
  std::shared_ptr<CompiledKernel> k = compile(config, args);
  checkSignature(*k);
  if (onGpu()) loadOnGpu(*k, name_);  // launch(p, ...) runs outside the lock
  if (target_ == "cpu") loadOnCpu(*k);
  PreparedLaunch p{&config, k.get()};  // compiled_ keeps k for the kernel's life
  LaunchMemo::Shape shape;
  LaunchMemo::shapeOf(args, keyed_, paramKinds_, shape);
  memo_.remember(shape, p);
  return p;
}

void Kernel::launch(const PreparedLaunch& p, const std::vector<interp::KernelArg>& args, const interp::Grid& grid,
                    void* stream) {
  try {
    if (target_ == "interp") {
      // Interpreted runs stay serialized, as every launch was before the memo.
      std::lock_guard<std::recursive_mutex> lock(mutex_);
      runCompiled(*p.compiled, target_, name_, args, grid, 0, stream);
    } else {  // prepare() compiled or loaded the code; CPU and GPU launches are thread-safe
      runCompiled(*p.compiled, target_, name_, args, grid, 0, stream);
    }
  } catch (const nvptx::GpuFault& e) {
    std::string command = interpreterCommand(opts_.filename, name_, *p.config, params_, args, grid);
    throw UserError(SourceLoc{}, gpuFaultReport(name_, *p.config, e.what(), command, /*whileTuning=*/false));
  }
}

CacheStats Kernel::stats() const {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  return stats_;
}

}  // namespace tritonc::runtime
