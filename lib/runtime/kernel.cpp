// The runtime's kernel: configurations, compilation, the two caches, launch.
#include "runtime/kernel.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <set>

#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "runtime/compile_log.h"
#include "runtime/hash.h"
#include "runtime/specialize.h"
#include "target/cpu/cpu_backend.h"
#include "runtime/version.h"
#include "target/nvptx/codegen.h"
#include "target/nvptx/gpu_runner.h"
#include "transform/pass_manager.h"

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

// ---- Config -------------------------------------------------------------

std::string Config::text() const {
  std::string s;
  for (const lang::Define& d : values) s += d.name + "=" + d.value + " ";
  return s + "num_warps=" + std::to_string(numWarps) + " num_stages=" + std::to_string(numStages);
}

std::string Config::value(const std::string& name) const {
  for (const lang::Define& d : values)
    if (d.name == name) return d.value;
  for (const lang::Define& d : fixed)
    if (d.name == name) return d.value;
  if (name == "num_warps") return std::to_string(numWarps);
  if (name == "num_stages") return std::to_string(numStages);
  return "";
}

int64_t Config::intValue(const std::string& name) const {
  std::string v = value(name);
  char* end = nullptr;
  long long x = v.empty() ? 0 : std::strtoll(v.c_str(), &end, 0);
  if (v.empty() || *end) throw optionError("'" + name + "' is not an integer in configuration " + text());
  return x;
}

CompiledKernel::~CompiledKernel() = default;

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
  try {
    lang::parseSource(source_, co, &listed);
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
  for (const std::string& k : opts_.tuningKey)
    if (std::none_of(params_.begin(), params_.end(), [&](const Param& p) { return p.name == k; }))
      throw optionError("tuning key '" + k + "' is not a parameter of kernel '" + name_ + "'");
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

  for (const Param& p : params_) {
    bool named = std::find(opts_.tuningKey.begin(), opts_.tuningKey.end(), p.name) != opts_.tuningKey.end();
    bool keyed = opts_.tuningKey.empty() ? (!p.type.isPtr() && p.type.isInt()) : named;
    keyed_.push_back(space_.size() > 1 && keyed);
  }

  if (opts_.cacheDir != "none") disk_ = std::make_unique<DiskCache>(opts_.cacheDir.empty() ? DiskCache::defaultDirectory() : opts_.cacheDir);
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
  return s + "\nkernel " + o.kernel + "\ntf32 " + (o.allowTf32 ? "1" : "0") + "\n";
}

// The target in keys: CPU code is valid for the host CPU it was compiled for
// (its features) and the LLVM that made it, which a cache directory shared
// between machines must tell.
static std::string targetKey(const std::string& target) {
  return target == "cpu" ? "cpu " + cpu::codeIdentity() : target;
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
  std::string key;
  for (size_t k = 0; k < params_.size() && k < args.size(); ++k) {
    const Param& p = params_[k];
    bool named = std::find(opts_.tuningKey.begin(), opts_.tuningKey.end(), p.name) != opts_.tuningKey.end();
    bool keyed = opts_.tuningKey.empty() ? (!p.type.isPtr() && p.type.isInt()) : named;
    if (!keyed) continue;
    const interp::KernelArg& a = args[k];
    std::string v = a.kind == interp::KernelArg::Kind::Float ? std::to_string(a.f) : std::to_string(a.i);
    if (a.kind == interp::KernelArg::Kind::Buffer) v = "buffer:" + std::to_string(a.buffer ? a.buffer->data.size() : 0);
    key += (key.empty() ? "" : ",") + p.name + "=" + v;
  }
  // Alignment changes the code, so it is part of the key too.
  return key + " [" + specializationKey(factsOf(args, paramKinds_)) + "]";
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
          std::string type = line.substr(sp + 1);
          bool ptr = type.back() == '*';
          std::optional<ir::Scalar> k = ir::scalarFromName(ptr ? type.substr(0, type.size() - 1) : type);
          if (!k) throw std::runtime_error("bad signature line");
          out->signature.push_back({line.substr(0, sp), ptr ? ir::Type::pointer(*k) : ir::Type::scalar(*k)});
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
    request.paramTypes.push_back(p.type.isPtr() ? std::string(ir::scalarName(p.type.pointee)) + "*"
                                                : ir::scalarName(p.type.kind));
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
  if (tritonIr && disk_) *tritonIr = ir::printModule(*r.module);
  if (gpu) {
    nvptx::TargetOptions to;
    to.arch = target_;
    to.numWarps = config.numWarps;
    to.allowTf32 = opts_.allowTf32;
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
    for (const Param& p : out->signature)
      sig += p.name + " " + (p.type.isPtr() ? std::string(ir::scalarName(p.type.pointee)) + "*" : ir::scalarName(p.type.kind)) + "\n";
    const std::string code = out->cpu ? out->cpu->image() : out->ptx;
    if (disk_->store(out->key, "ir " + std::to_string(tritonIr.size()) + "\n" + tritonIr + sig + code)) ++stats_.diskStores;
  }
  compiled_[out->key] = out;
  const bool inSpace = &config >= space_.data() && &config < space_.data() + space_.size();
  if (inSpace) recent_[{size_t(&config - space_.data()), specialization}] = out;
}

std::shared_ptr<CompiledKernel> Kernel::compile(const Config& config, const std::vector<interp::KernelArg>& args) {
  std::vector<ArgFacts> facts = factsOf(args, paramKinds_);
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
  auto list = [](const std::vector<Param>& ps) {
    std::string s;
    for (const Param& p : ps)
      s += (s.empty() ? "" : ", ") + std::string(p.type.isPtr() ? ir::scalarName(p.type.pointee) + std::string("*")
                                                                   : ir::scalarName(p.type.kind)) +
           " " + p.name;
    return s;
  };
  throw UserError(SourceLoc{}, "its parameters (" + list(k.signature) + ") differ from the first configuration's (" +
                                   list(params_) + ")");
}

void loadOnGpu(CompiledKernel& k, const std::string& name) {
  if (k.gpu) return;
  std::vector<ir::Type> types;
  std::vector<std::string> names;
  for (const Param& p : k.signature) {
    types.push_back(p.type);
    names.push_back(p.name);
  }
  k.gpu = std::make_unique<nvptx::GpuKernel>(k.ptx, name, types, names, k.cubin);
  k.cubin.clear();  // loaded: no longer needed
}

void loadOnCpu(CompiledKernel& k) {
  if (k.cpu) return;
  if (!k.function) throw InternalError("a CPU kernel without its IR");
  k.cpu = cpu::CpuKernel::compile(*k.function);
}

void Kernel::checkGrid(const interp::Grid& grid) const {
  std::string problem = interp::gridProblem(grid);
  if (!problem.empty()) throw UserError(SourceLoc{}, "kernel '" + name_ + "': " + problem);
}

std::vector<float> Kernel::run(CompiledKernel& k, const std::vector<interp::KernelArg>& args, const interp::Grid& grid,
                               int repeats, void* stream) {
  checkGrid(grid);  // on every back end, before any work
  std::vector<float> times;
  if (!onGpu()) {
    if (target_ == "cpu") loadOnCpu(k);
    for (int rep = 0; rep < std::max(repeats, 1); ++rep) {
      auto t0 = std::chrono::steady_clock::now();
      if (target_ == "cpu") k.cpu->run(grid, args);
      else interp::runKernel(*k.function, grid, args);
      times.push_back(float(msSince(t0)));
    }
    if (repeats <= 0) times.clear();
    return times;
  }
  loadOnGpu(k, name_);
  bool allDevice = std::all_of(args.begin(), args.end(),
                               [](const interp::KernelArg& a) { return a.kind != interp::KernelArg::Kind::Buffer; });
  if (allDevice && repeats <= 0) {
    k.gpu->launchAsync(grid, args, k.config.numWarps, stream);
    return times;
  }
  nvptx::GpuLaunchOptions lo;
  lo.numWarps = k.config.numWarps;
  lo.stream = stream;
  lo.warmup = repeats > 0 ? 1 : 0;
  lo.repeats = repeats;
  return k.gpu->run(grid, args, lo).timesMs;
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
  checkGrid(grid);
  if (target_ == "interp") {
    // Interpreted runs stay serialized, as every launch was before the memo.
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    run(*p.compiled, args, grid, 0, stream);
    return;
  }
  if (target_ == "cpu") {  // prepare() compiled it; CpuKernel::run is thread-safe
    p.compiled->cpu->run(grid, args);
    return;
  }
  bool allDevice = std::all_of(args.begin(), args.end(),
                               [](const interp::KernelArg& a) { return a.kind != interp::KernelArg::Kind::Buffer; });
  if (allDevice) p.compiled->gpu->launchAsync(grid, args, p.config->numWarps, stream);  // prepare() loaded it
  else run(*p.compiled, args, grid, 0, stream);
}

void Kernel::launch(const std::vector<interp::KernelArg>& args, const GridFn& grid, void* stream) {
  PreparedLaunch p = prepare(args, grid, stream);
  launch(p, args, grid(*p.config), stream);
}

CacheStats Kernel::stats() const {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  return stats_;
}

}  // namespace tritonc::runtime
