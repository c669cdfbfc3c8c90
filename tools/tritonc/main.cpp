// tritonc: the command line.
//   tritonc emit KERNEL.tc [-DNAME=VALUE]... --stage ast|ir [--locations]
//   tritonc run  KERNEL.tc [-DNAME=VALUE]... --grid X[,Y[,Z]] [--backend gpu|cpu|interp]
//                --arg NAME=SPEC... [--save NAME=out.npy]... [--kernel NAME] [--seed N]
//   tritonc tune KERNEL.tc -DTM=[32,64] ... --grid M/TM,N/TN --arg NAME=SPEC...
//   tritonc compile KERNEL.tc -DTM=[32,64] ... [--target sm_90a,cpu] [--arg NAME=INT,...] -o KERNEL.tck
//   tritonc run|tune KERNEL.tck [-DNAME=VALUE]... --grid ... --arg NAME=SPEC...
//   tritonc passes | tritonc --version | tritonc [CMD] --help
// Errors print `FILE:LINE:COL: error: message` with the source line and a
// caret, and exit with status 1; internal errors exit with status 2.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>

#include "analysis/axis_info.h"
#include "analysis/liveness.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "lang/compile.h"
#include "lang/readonly_stores.h"
#include "compile_command.h"
#include "grid_expr.h"
#include "launch_args.h"
#include "options.h"
#include "python_kernel.h"
#include "runtime/kernel.h"
#include "runtime/loaded_kernel.h"
#include "target/cpu/cpu_backend.h"
#include "target/interp/interpreter.h"
#include "target/nvptx/codegen.h"
#include "target/nvptx/gpu_runner.h"
#include "runtime/compile_report.h"
#include "runtime/specialize.h"
#include "runtime/version.h"
#include "transform/pass_manager.h"

namespace {

using namespace tritonc;
using cli::Options;
using cli::UsageError;

std::string readFile(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw UsageError("'" + path + "' is a directory, not a kernel file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("cannot open '" + path + "'");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Compiles FILE (Triton-C or IR text) to a verified module.
std::unique_ptr<ir::Module> loadModule(const Options& o, const std::string& source) {
  std::unique_ptr<ir::Module> m;
  if (o.irInput) {
    m = ir::parseModule(source);
    m->sourceFile = o.file;
    m->sourceText = source;
    std::string err = ir::verifyModule(*m);
    if (!err.empty()) throw UserError(SourceLoc{}, "invalid IR:\n" + err);
    for (auto& f : m->functions())
      for (const Warning& w : lang::dropBrokenReadonly(*f, {}))
        std::cerr << formatDiagnostic(o.file, source, w.loc, w.message, "warning");
  } else {
    lang::CompileResult r = lang::compileSource(source, o.compile);
    for (auto& n : r.notes) std::cerr << o.file << ": note: " << n << "\n";
    for (const Warning& w : r.warnings) std::cerr << formatDiagnostic(o.file, source, w.loc, w.message, "warning");
    m = std::move(r.module);
    std::string err = ir::verifyModule(*m);
    if (!err.empty()) throw InternalError("the front end produced invalid IR:\n" + err);
  }
  return m;
}

const ir::Function& pickKernel(const ir::Module& m, const std::string& name) {
  if (!name.empty()) {
    if (const ir::Function* f = m.function(name)) return *f;
    throw UsageError("no kernel named '" + name + "' in this file");
  }
  if (m.functions().size() != 1) {
    std::string names;
    for (auto& f : m.functions()) names += (names.empty() ? "" : ", ") + f->name();
    throw UsageError("this file has several kernels (" + names + "); choose one with --kernel NAME");
  }
  return *m.functions()[0];
}

// The value of a name in a --grid: an integer --arg, or a macro / tuning
// parameter of `config` (or of the -D options when there is none).
std::optional<int64_t> gridName(const Options& o, const std::string& name, const runtime::Config* config) {
  auto asInt = [](const std::string& v) -> std::optional<int64_t> {
    char* end = nullptr;
    long long x = v.empty() ? 0 : std::strtoll(v.c_str(), &end, 0);
    if (v.empty() || *end) return std::nullopt;
    return x;
  };
  for (auto& [arg, spec] : o.args)
    if (arg == name) return asInt(spec);
  if (config && !config->value(name).empty()) return asInt(config->value(name));
  for (const lang::Define& d : o.compile.defines)
    if (d.name == name) return asInt(lang::defineValues(d)[0]);
  return std::nullopt;
}

interp::Grid parseGrid(const Options& o) {
  if (o.grid.empty()) throw UsageError(o.command + " needs --grid X[,Y[,Z]]");
  interp::Grid g =
      cli::evaluateGrid(cli::parseGridSpec(o.grid), [&](const std::string& n) { return gridName(o, n, nullptr); });
  std::string problem = interp::gridProblem(g);  // on every back end, before compiling
  if (!problem.empty()) throw UsageError("--grid " + o.grid + ": " + problem);
  return g;
}

// The configuration values of a compile into `to`: num_ctas of --num-ctas,
// or of a -Dnum_ctas=N macro (the runtime's
// tuning parameter), into `to`; anything but 1, 2 or 4 is an error. Also
// -Denable_fp_fusion=0 (Triton's option: no mul-add contraction),
// -Denable_reflect_ftz=0 and -Dmaxnreg=N.
void setConfigurationOptions(const Options& o, nvptx::TargetOptions& to) {
  for (const lang::Define& d : o.compile.defines)
    if (d.name != "num_ctas" && nvptx::TargetOptions::isConfigurationName(d.name) && lang::defineValues(d).size() == 1)
      to.configure(d.name, lang::defineValues(d).front());
  for (const lang::Define& d : o.compile.defines)
    if (d.name == "num_ctas" && lang::defineValues(d).size() == 1) return to.setNumCtas(lang::defineValues(d).front());
  to.setNumCtas(std::to_string(o.numCtas));
}

// The -D macros, with --num-ctas as the runtime takes it (a macro of the
// configuration) unless a -Dnum_ctas already says.
std::vector<lang::Define> definesWithNumCtas(const Options& o) {
  std::vector<lang::Define> defines = o.compile.defines;
  bool given = false;
  for (const lang::Define& d : defines) given = given || d.name == "num_ctas";
  if (o.numCtas != 1 && !given) defines.push_back({"num_ctas", std::to_string(o.numCtas)});
  return defines;
}

transform::PipelineOptions pipelineOptions(const Options& o) {
  transform::PipelineOptions p;
  p.numStages = o.numStages;
  // For the GPU passes (--passes=...,gpu-assign-layouts or --stage gpu-ir/ptx).
  p.target = o.target.empty() ? "sm_90a" : o.target;
  p.numWarps = o.numWarps;
  p.allowTf32 = o.allowTf32;
  nvptx::TargetOptions ctas;
  setConfigurationOptions(o, ctas);
  p.multicast = ctas.multicast && nvptx::TargetOptions::multicastFromEnvironment();
  p.multicastAlongY = p.multicast && ctas.multicastAlongY;
  p.warpSpecialize = nvptx::TargetOptions::warpSpecializeFromEnvironment();
  return p;
}

// The launch facts `emit` assumes: every pointer 16-byte aligned, and the
// integers named in --arg NAME=N (the others unknown).
// The integers of `--arg NAME=N` (emit and its report: a launch's facts).
std::vector<std::pair<std::string, int64_t>> integerArgs(const Options& o) {
  std::vector<std::pair<std::string, int64_t>> out;
  for (const auto& [name, value] : o.args) {
    char* end = nullptr;
    long long v = std::strtoll(value.c_str(), &end, 10);
    if (value.empty() || *end != 0)
      throw UsageError("--arg " + name + "=" + value + ": with emit, only integer parameters take values (a launch's facts)");
    out.push_back({name, v});
  }
  return out;
}

std::vector<runtime::ArgFacts> emitFacts(const ir::Function& f, const Options& o) {
  return runtime::factsOfNamedIntegers(f, integerArgs(o));
}

// The lines (1-based, inclusive) of the top-level function `name` in Python
// source `text`, its decorators included: from the decorators above its
// `def` to the last non-blank line before the next line as little indented.
// The whole text ({0, 0}) when there is no such function.
std::pair<size_t, size_t> pythonFunctionLines(const std::string& text, const std::string& name) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  auto indent = [](const std::string& l) { return l.find_first_not_of(" \t"); };
  for (size_t d = 0; d < lines.size(); ++d) {
    size_t at = indent(lines[d]);
    if (at == std::string::npos || lines[d].compare(at, 4 + name.size() + 1, "def " + name + "(") != 0) continue;
    size_t first = d;
    while (first > 0 && indent(lines[first - 1]) == at && lines[first - 1][at] == '@') --first;
    size_t last = d;
    for (size_t k = d + 1; k < lines.size(); ++k) {
      size_t i = indent(lines[k]);
      if (i == std::string::npos) continue;  // blank
      if (i <= at && lines[k][i] != ')') break;  // the next statement at the def's level
      last = k;
    }
    return {first + 1, last + 1};
  }
  return {0, 0};
}

int emit(const Options& o, const std::string& source) {
  if (o.stage == "ast") {
    if (o.irInput) throw UsageError("--stage ast needs a Triton-C file");
    std::cout << lang::printAst(lang::parseSource(source, o.compile));
    return 0;
  }
  if (o.stage == "ir" || o.stage == "opt-ir") {
    std::unique_ptr<ir::Module> m = loadModule(o, source);
    transform::PipelineOptions popts = pipelineOptions(o);
    if (o.printAfterAll) popts.printAfterEach = &std::cout;
    // With --arg, as a launch with those integers would see it.
    if (!o.args.empty() && o.specialize)
      for (auto& f : m->functions()) runtime::applySpecialization(*f, emitFacts(*f, o));
    if (o.stage == "opt-ir" && (!m->isGpu() || o.passes != "default"))
      transform::runPasses(*m, transform::parsePassList(o.passes), popts);
    if (!o.analysis.empty()) {
      for (auto& f : m->functions())
        std::cout << (o.analysis == "axis" ? analysis::printAxisInfo(*f) : analysis::printLiveness(*f));
      return 0;
    }
    ir::PrintOptions po;
    po.locations = o.locations;
    std::cout << ir::printModule(*m, po);
    return 0;
  }
  if (o.stage == "llvm") {
    // The CPU back end's optimized LLVM IR, for the launch facts of emit
    // (without pre-fetching, as the runtime compiles for the CPU).
    std::unique_ptr<ir::Module> m = loadModule(o, source);
    if (o.specialize)
      for (auto& f : m->functions()) runtime::applySpecialization(*f, emitFacts(*f, o));
    transform::PipelineOptions popts = pipelineOptions(o);
    popts.numStages = runtime::kCpuNumStages;
    transform::runPasses(*m, transform::parsePassList(o.passes), popts);
    for (auto& f : m->functions()) std::cout << cpu::emitLlvmIr(*f);
    return 0;
  }
  if (o.stage == "ptx" || o.stage == "gpu-ir") {
    std::unique_ptr<ir::Module> m = loadModule(o, source);
    transform::PipelineOptions popts = pipelineOptions(o);
    popts.asyncCopies = true;
    if (o.printAfterAll) popts.printAfterEach = &std::cout;
    // As a launch would specialize, before the optimizer: pointer arguments
    // 16-byte aligned (the common case), integers given with --arg NAME=N
    // by their divisibility; --no-specialize shows the code for unknown
    // alignment.
    if (o.specialize)
      for (auto& f : m->functions()) runtime::applySpecialization(*f, emitFacts(*f, o));
    // GPU IR (a .tgir) is past both pipelines: only passes asked for by name run on it.
    const bool gpuInput = m->isGpu();
    if (!gpuInput || o.passes != "default") transform::runPasses(*m, transform::parsePassList(o.passes), popts);
    if (o.stage == "gpu-ir") {
      if (!gpuInput) {
        nvptx::TargetOptions to;
        setConfigurationOptions(o, to);
        transform::runPasses(*m, to.gpuPasses(), popts);  // as emitPtx
      }
      ir::PrintOptions po;
      po.locations = o.locations;
      if (!o.printAfterAll) std::cout << ir::printModule(*m, po);
      return 0;
    }
    nvptx::TargetOptions to;
    to.arch = popts.target;
    to.numWarps = o.numWarps;
    to.allowTf32 = o.allowTf32;
    setConfigurationOptions(o, to);
    std::cout << nvptx::emitPtx(*m, to);
    return 0;
  }
  if (o.stage == "report") {
    runtime::ReportOptions ro;
    if (o.irInput) ro.language = lang::Language::TritonIr;
    ro.filename = o.file;
    ro.defines = definesWithNumCtas(o);
    ro.arch = o.target.empty() ? "sm_90a" : o.target;
    ro.numWarps = o.numWarps;
    ro.numStages = o.numStages;
    ro.allowTf32 = o.allowTf32;
    ro.ints = integerArgs(o);
    runtime::CompileReport r = runtime::compileReport(source, ro);
    if (o.json) {
      std::cout << runtime::reportJson(r);
    } else if (o.pythonSource.empty()) {
      std::cout << runtime::renderReport(r, source);
    } else {  // a Python kernel's facts go beside the lines of its function
      auto [first, last] = pythonFunctionLines(o.pythonSource, r.facts.kernel);
      std::cout << runtime::renderReport(r, o.pythonSource, first, last);
    }
    return 0;
  }
  if (o.stage.empty()) throw UsageError("emit needs --stage ast|ir|opt-ir|gpu-ir|ptx|llvm|report");
  throw UsageError("unknown stage '" + o.stage + "' (expected ast, ir, opt-ir, gpu-ir, ptx, llvm or report)");
}

// Whether `run` must tune first: a tuning space in the options or the source.
bool hasTuningSpace(const Options& o, const std::string& source) {
  if (o.numWarpsList.size() > 1 || o.numStagesList.size() > 1) return true;
  for (const lang::Define& d : o.compile.defines)
    if (lang::defineValues(d).size() > 1) return true;
  return !o.irInput && source.find("tunable") != std::string::npos;
}

// The back end named by --backend, or an error for an unknown one.
void checkBackend(const Options& o) {
  if (o.backend != "" && o.backend != "gpu" && o.backend != "cpu" && o.backend != "interp")
    throw UsageError("unknown back end '" + o.backend + "' (available: interp, cpu, gpu)");
}

// The runtime's target for --backend and --target.
std::string runtimeTarget(const Options& o) {
  return o.backend == "interp" || o.backend == "cpu" ? o.backend
         : !o.target.empty()                          ? o.target
         : o.backend == "gpu"                         ? "gpu"
                                                      : "auto";
}

// The runtime's kernel options of `run`, `tune` and `compile`.
runtime::KernelOptions kernelOptions(const Options& o) {
  runtime::KernelOptions ko;
  ko.filename = o.file;
  ko.defines = definesWithNumCtas(o);
  ko.numWarps = o.numWarpsList;
  ko.numStages = o.numStagesList;
  ko.target = runtimeTarget(o);
  ko.kernel = o.kernel;
  ko.cacheDir = o.cacheDir;
  ko.allowTf32 = o.allowTf32;
  if (!o.quiet) ko.progress = [](const std::string& line) { std::cerr << line << "\n"; };
  return ko;
}

// Tunes `kernel` when `tune` asks or it has several configurations, then
// (`run`) launches it on the --arg arguments, bound by `sig`, and saves the
// --save buffers.
int tuneAndLaunch(const Options& o, runtime::Launchable& kernel, const cli::Signature& sig, const std::string& from) {
  if (o.grid.empty()) throw UsageError(o.command + " needs --grid X[,Y[,Z]]");
  cli::GridSpec spec = cli::parseGridSpec(o.grid);
  std::mt19937_64 rng(o.haveSeed ? o.seed : std::random_device{}());
  cli::BoundArgs bound = cli::bindArguments(sig, o.args, rng);
  for (auto& [name, path] : o.saves)
    if (!bound.byName.count(name)) throw UsageError("--save " + name + ": '" + name + "' is not a pointer argument");
  runtime::GridFn grid = [&](const runtime::Config& c) {
    return cli::evaluateGrid(spec, [&](const std::string& n) { return gridName(o, n, &c); });
  };
  runtime::TuneResult r;
  if (o.command == "tune" || kernel.space().size() > 1) {
    r = kernel.tune(bound.args, grid, /*force=*/o.command == "tune");
  } else {
    r.best = kernel.space()[0];
    r.origin = "only";
  }
  if (o.command == "tune") {
    std::printf("%-60s %12s\n", "configuration", "median ms");
    for (const runtime::TuneTrial& t : r.trials) {
      if (t.error.empty()) std::printf("%-60s %12.4f\n", t.config.text().c_str(), t.ms);
      else std::printf("%-60s %12s  %s\n", t.config.text().c_str(), "skipped", t.error.c_str());
    }
    std::printf("best: %s (%.4f ms) on %s, tuning key %s\n", r.best.text().c_str(), r.bestMs, kernel.target().c_str(),
                r.tuningKey.c_str());
    return 0;
  }
  auto t0 = std::chrono::steady_clock::now();
  kernel.launch(bound.args, grid);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  for (auto& [name, path] : o.saves) interp::saveBufferToNpy(path, *bound.byName[name]);
  interp::Grid g = grid(r.best);
  std::string how = r.origin == "tuned" ? "tuned now" : r.origin == "only" ? "its only configuration"
                                                                            : "tuning from the " + r.origin + " cache";
  std::fprintf(stderr, "ran kernel '%s'%s on %s with %s (%s), grid (%lld, %lld, %lld): %.3f ms\n",
               kernel.name().c_str(), from.c_str(), kernel.target().c_str(), r.best.text().c_str(), how.c_str(),
               (long long)g.x, (long long)g.y, (long long)g.z, ms);
  return 0;
}

// `tune`, and `run` of a kernel with a tuning space: through the runtime's
// kernel object (tuner, caches).
int runTuned(const Options& o, const std::string& source) {
  if (o.irInput) throw UsageError(o.command + " with a tuning space needs a Triton-C file");
  checkBackend(o);
  runtime::Kernel kernel(source, kernelOptions(o));
  // The arguments are bound by the parameters of the first configuration.
  lang::CompileResult first = lang::compileSource(source, o.compile);
  const ir::Function& fn = pickKernel(*first.module, kernel.name());
  return tuneAndLaunch(o, kernel, cli::signatureOf(fn), "");
}

// `run` and `tune` of a .tck file: its configurations that match the -D,
// --num-warps and --num-stages options, for the target of --backend or
// --target. Diagnostics then point into the source it was compiled from
// (`diagnosticFile`, and its text in `diagnosticSource` when it is there).
int runPack(const Options& o, std::string& diagnosticFile, std::string& diagnosticSource) {
  checkBackend(o);
  runtime::LoadOptions lo;
  lo.target = runtimeTarget(o);
  lo.defines = o.compile.defines;
  if (o.numWarpsGiven) lo.numWarps = o.numWarpsList;
  if (o.numStagesGiven) lo.numStages = o.numStagesList;
  lo.kernel = o.kernel;
  if (!o.quiet) lo.progress = [](const std::string& line) { std::cerr << line << "\n"; };
  std::unique_ptr<runtime::LoadedKernel> kernel = runtime::LoadedKernel::load(o.file, lo);
  diagnosticFile = kernel->sourceFile();
  diagnosticSource = kernel->sourceText();
  return tuneAndLaunch(o, *kernel, cli::Signature{kernel->name(), kernel->params(), {}}, " from " + o.file);
}

int run(const Options& o, const std::string& source) {
  if (o.command == "tune" || hasTuningSpace(o, source)) return runTuned(o, source);
  interp::Grid grid = parseGrid(o);
  std::string backend = o.backend;
  std::string noGpu;
  std::string arch = nvptx::gpuArch(&noGpu);
  if (backend.empty()) backend = !arch.empty() ? "gpu" : cpu::available() ? "cpu" : "interp";
  if (backend != "interp" && backend != "gpu" && backend != "cpu")
    throw UsageError("unknown back end '" + backend + "' (available: interp, cpu, gpu)");
  if (backend == "gpu" && arch.empty()) throw UsageError("--backend gpu: " + noGpu);
  std::unique_ptr<ir::Module> m = loadModule(o, source);
  const ir::Function& fn = pickKernel(*m, o.kernel);
  std::mt19937_64 rng(o.haveSeed ? o.seed : std::random_device{}());
  cli::BoundArgs bound = cli::bindArguments(fn, o.args, rng);
  for (auto& [name, path] : o.saves)
    if (!bound.byName.count(name)) throw UsageError("--save " + name + ": '" + name + "' is not a pointer argument");
  runtime::applySpecialization(*m->function(fn.name()), runtime::factsOf(bound.args, runtime::parameterKinds(fn)));
  if (m->isGpu() && backend == "cpu" && o.backend.empty()) backend = "interp";  // the default, where no GPU
  if (m->isGpu() && backend == "cpu")
    throw UsageError("GPU IR runs on the GPU or the interpreter (--backend gpu|interp), not the CPU back end");
  if (o.optimize && (!m->isGpu() || o.passes != "default")) {  // (GPU IR: only passes named)
    transform::PipelineOptions popts = pipelineOptions(o);
    popts.asyncCopies = backend == "gpu";
    if (backend == "cpu") popts.numStages = runtime::kCpuNumStages;
    transform::runPasses(*m, transform::parsePassList(o.passes), popts);
  }
  auto t0 = std::chrono::steady_clock::now();
  if (backend == "gpu") {
    nvptx::TargetOptions to;
    to.arch = o.target.empty() ? arch : o.target;
    to.numWarps = o.numWarps;
    to.allowTf32 = o.allowTf32;
    setConfigurationOptions(o, to);
    std::string ptx = nvptx::emitPtx(*m, to);
    nvptx::GpuLaunchOptions lo;
    lo.numWarps = o.numWarps;
    nvptx::runOnGpu(ptx, fn, grid, bound.args, lo);
  } else if (backend == "cpu") {
    std::unique_ptr<cpu::CpuKernel> k = cpu::CpuKernel::compile(fn);
    std::fprintf(stderr, "compiled kernel '%s' for the CPU (%d threads, %.1f KiB of tiles per program): %.1f ms\n",
                 fn.name().c_str(), cpu::numThreads(), double(k->frameBytes()) / 1024, k->compileMs());
    t0 = std::chrono::steady_clock::now();
    k->run(grid, bound.args);
  } else {
    interp::runKernel(fn, grid, bound.args);
  }
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  for (auto& [name, path] : o.saves) interp::saveBufferToNpy(path, *bound.byName[name]);
  std::fprintf(stderr, "ran kernel '%s' on %s, grid (%lld, %lld, %lld): %.3f ms\n", fn.name().c_str(), backend.c_str(),
               (long long)grid.x, (long long)grid.y, (long long)grid.z, ms);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  std::string source;
  std::string diagnosticFile;  // where located errors point (a .tck's source file; else FILE)
  try {
    o = cli::parseCommandLine(argc, argv);
    if (o.help) {
      std::cout << cli::usage(o.command);
      return 0;
    }
    if (o.command == "--version" || o.command == "version") {
      std::cout << runtime::versionString() << "\n";
      return 0;
    }
    if (o.command == "passes") {
      for (const auto& p : transform::allPasses()) std::cout << p.name << "\t" << p.description << "\n";
      std::cout << "default pipeline:";
      for (const auto& p : transform::defaultPipeline()) std::cout << " " << p;
      std::cout << "\n";
      return 0;
    }
    if (endsWith(o.file, ".tck")) {
      if (o.command != "run" && o.command != "tune")
        throw UsageError(o.command + " needs a Triton-C file; " + o.file + " holds compiled code (use run or tune)");
      return runPack(o, diagnosticFile, source);
    }
    std::string diagnosticText;  // the text carets are drawn from (the .py of a Python kernel)
    if (cli::isPythonKernel(o.file)) {
      // The constexprs (-D) go to the Python front end; the IR has none.
      // The configuration values (num_ctas, enable_fp_fusion, ...)
      // configure the compile of the IR (as launch options do).
      std::vector<lang::Define> constexprs, config;
      for (const lang::Define& d : o.compile.defines)
        (nvptx::TargetOptions::isConfigurationName(d.name) ? config : constexprs).push_back(d);
      source = cli::pythonKernelIr(o.file, o.signature, constexprs, &o.file);
      o.compile.defines = config;
      o.irInput = true;
      diagnosticText = readFile(o.file);
      o.pythonSource = diagnosticText;
    } else {
      if (!o.signature.empty()) throw UsageError("--signature applies to Python kernels (FILE.py:KERNEL)");
      source = readFile(o.file);
      o.irInput = endsWith(o.file, ".tir") || endsWith(o.file, ".tgir");
    }
    if (o.command == "compile" && o.irInput) throw UsageError("compile needs a Triton-C file");
    if (o.command == "compile") return cli::compileCommand(o, source, kernelOptions(o));
    if (!diagnosticText.empty()) {
      try {
        return o.command == "emit" ? emit(o, source) : run(o, source);
      } catch (const UserError& e) {
        if (!e.loc().known()) throw;
        std::cerr << formatDiagnostic(o.file, diagnosticText, e.loc(), e.what());
        return 1;
      }
    }
    return o.command == "emit" ? emit(o, source) : run(o, source);  // run and tune
  } catch (const UsageError& e) {
    std::cerr << "tritonc: error: " << e.what() << "\n";
    if (o.command.empty() || std::string(e.what()).find("command") != std::string::npos) std::cerr << cli::usage("");
    return 1;
  } catch (const UserError& e) {
    if (e.loc().known())
      std::cerr << formatDiagnostic(diagnosticFile.empty() ? o.file : diagnosticFile, source, e.loc(), e.what());
    else std::cerr << "tritonc: error: " << e.what() << "\n";
    return 1;
  } catch (const InternalError& e) {
    std::cerr << "tritonc: " << e.what() << "\nthis is a bug in tritonc; please report it with the input file\n";
    return 2;
  } catch (const std::bad_alloc&) {
    std::cerr << "tritonc: error: out of memory\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "tritonc: error: " << e.what() << "\n";
    return 1;
  }
}
