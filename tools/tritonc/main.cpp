// tritonc: the command line.
//   tritonc emit KERNEL.tc [-DNAME=VALUE]... --stage ast|ir [--locations]
//   tritonc run  KERNEL.tc [-DNAME=VALUE]... --grid X[,Y[,Z]] [--backend gpu|cpu|interp]
//                --arg NAME=SPEC... [--save NAME=out.npy]... [--kernel NAME] [--seed N]
//   tritonc tune KERNEL.tc -DTM=[32,64] ... --grid M/TM,N/TN --arg NAME=SPEC...
//   tritonc passes | tritonc --version | tritonc [CMD] --help
// Errors print `FILE:LINE:COL: error: message` with the source line and a
// caret, and exit with status 1; internal errors exit with status 2.
#include <chrono>
#include <cstdio>
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
#include "grid_expr.h"
#include "launch_args.h"
#include "runtime/kernel.h"
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

// Usage, one section per command (`tritonc CMD --help` prints its own).
const char* const kEmitUsage =
    "  tritonc emit FILE [-DNAME=VALUE]... --stage ast|ir|opt-ir|gpu-ir|ptx|llvm|report [--locations] [--json]\n"
    "               [--target sm_80|sm_90a] [--num-warps N] [--num-stages N] [--allow-tf32] [--no-specialize]\n"
    "               [--arg NAME=INT]...  (gpu-ir/ptx/report: specialize as for a launch with these integers)\n"
    "               [--passes=a,b,c] [--print-after-all] [--print-analysis=axis|liveness]\n";
const char* const kRunUsage =
    "  tritonc run  FILE [-DNAME=VALUE]... --grid X[,Y[,Z]] [--backend gpu|cpu|interp] [--kernel NAME]\n"
    "               [--num-warps N[,N...]] [--num-stages N[,N...]]  (the default back end is gpu when present,\n"
    "               else cpu (native code through LLVM, every core) when built with it, else interp;\n"
    "               interp checks every memory access)\n"
    "               --arg NAME=SPEC... [--save NAME=out.npy]... [--seed N] [-O0] [--cache-dir DIR|none]\n"
    "               with a tuning space (lists), the kernel is tuned first (results are cached)\n";
const char* const kTuneUsage =
    "  tritonc tune FILE -DNAME=[v1,v2,...]... [--num-warps 4,8] [--num-stages 2,3] --grid ... --arg ...\n"
    "               times every configuration and prints the table (--quiet: only the result)\n";
const char* const kPassesUsage = "  tritonc passes        lists the optimization passes\n";
const char* const kVersionUsage = "  tritonc --version     prints the version\n";
const char* const kNotes =
    "FILE is Triton-C (.tc) or Triton-IR text (.tir).\n"
    "SPEC: @file.npy | integer | float | zeros:DTYPE:D0xD1... | rand:DTYPE:D0xD1...\n"
    "DTYPE: bool i8 i16 i32 i64 f16 bf16 f32 f64\n"
    "-DNAME=[v1, v2, ...] declares a tuning list; `tunable` declarations in the source are tuned too.\n"
    "--grid: each dimension is a product or quotient (rounded up) of numbers, integer arguments and\n"
    "        tuning parameters or macros, e.g. --grid M/TM,N/TN\n";

// The usage of `command` ("" or an unknown one: of every command).
std::string usage(const std::string& command) {
  std::string out = "usage:\n";
  if (command == "emit") return out + kEmitUsage + kNotes;
  if (command == "run") return out + kRunUsage + kNotes;
  if (command == "tune") return out + kTuneUsage + kNotes;
  if (command == "passes") return out + kPassesUsage;
  return out + kEmitUsage + kRunUsage + kTuneUsage + kPassesUsage + kVersionUsage + kNotes;
}

struct Options {
  std::string command, file, stage, backend, kernel, grid, target;
  bool help = false;  // --help: print the command's usage and exit 0
  int numWarps = 4;
  int numStages = transform::PipelineOptions::kDefaultNumStages;
  std::vector<int> numWarpsList{4}, numStagesList{transform::PipelineOptions::kDefaultNumStages};
  std::string cacheDir;
  bool quiet = false;
  bool allowTf32 = false;
  lang::CompileOptions compile;
  std::vector<std::pair<std::string, std::string>> args, saves;
  bool locations = false;
  bool printAfterAll = false;
  bool json = false;               // emit --stage report: JSON
  bool specialize = true;          // emit ptx/gpu-ir: assume 16-byte aligned pointers
  bool optimize = true;            // run: optimize before interpreting (-O0: no)
  std::string passes = "default";  // --passes
  std::string analysis;            // --print-analysis
  bool haveSeed = false;
  uint64_t seed = 0;
};

// A usage error: message only, exit status 1.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::pair<std::string, std::string> splitAssign(const std::string& s, const char* what) {
  size_t eq = s.find('=');
  if (eq == std::string::npos || eq == 0) throw UsageError(std::string("expected ") + what + ", got '" + s + "'");
  return {s.substr(0, eq), s.substr(eq + 1)};
}

// "4" or "4,8": each value checked by `ok`.
template <class Ok>
std::vector<int> intList(const std::string& s, const char* flag, Ok ok, const char* allowed) {
  std::vector<int> out;
  size_t pos = 0;
  while (true) {
    size_t comma = s.find(',', pos);
    std::string part = s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    char* end = nullptr;
    long v = std::strtol(part.c_str(), &end, 10);
    if (part.empty() || *end || !ok(v)) throw UsageError(std::string("bad ") + flag + " '" + s + "' (" + allowed + ")");
    out.push_back(int(v));
    if (comma == std::string::npos) return out;
    pos = comma + 1;
  }
}

Options parseCommandLine(int argc, char** argv) {
  Options o;
  if (argc < 2) throw UsageError("no command given");
  o.command = argv[1];
  if (o.command == "--help" || o.command == "-h" || o.command == "help") {
    o.help = true;
    o.command.clear();
    return o;
  }
  if (o.command == "--version" || o.command == "version") return o;
  if (o.command != "emit" && o.command != "run" && o.command != "tune" && o.command != "passes")
    throw UsageError("unknown command '" + o.command + "'");
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      o.help = true;
      return o;
    }
    if (o.command == "passes") throw UsageError("passes takes no arguments, got '" + a + "'");
    auto value = [&](const std::string& flag) -> std::string {
      if (a.size() > flag.size() && a.compare(0, flag.size() + 1, flag + "=") == 0) return a.substr(flag.size() + 1);
      if (i + 1 >= argc) throw UsageError("option " + flag + " needs a value");
      return argv[++i];
    };
    auto is = [&](const char* flag) { return a == flag || a.rfind(std::string(flag) + "=", 0) == 0; };
    if (a.rfind("-D", 0) == 0) {
      std::string def = a.size() > 2 ? a.substr(2) : (i + 1 < argc ? argv[++i] : "");
      o.compile.defines.push_back(lang::parseDefineOption(def));
    } else if (is("--stage")) {
      o.stage = value("--stage");
    } else if (is("--emit")) {
      o.stage = value("--emit");
    } else if (is("--grid")) {
      o.grid = value("--grid");
    } else if (is("--backend")) {
      o.backend = value("--backend");
    } else if (is("--target")) {
      o.target = value("--target");
    } else if (is("--num-warps")) {
      std::string s = value("--num-warps");
      o.numWarpsList = intList(s, "--num-warps", [](long v) { return v > 0 && v <= 32 && !(v & (v - 1)); },
                               "1, 2, 4, ..., 32");
      o.numWarps = o.numWarpsList[0];
    } else if (is("--num-stages")) {
      std::string s = value("--num-stages");
      o.numStagesList = intList(s, "--num-stages", [](long v) { return v >= 1 && v <= 8; }, "1 to 8");
      o.numStages = o.numStagesList[0];
    } else if (is("--cache-dir")) {
      o.cacheDir = value("--cache-dir");
    } else if (a == "--quiet") {
      o.quiet = true;
    } else if (a == "--allow-tf32") {
      o.allowTf32 = true;
    } else if (is("--kernel")) {
      o.kernel = value("--kernel");
    } else if (is("--arg")) {
      o.args.push_back(splitAssign(value("--arg"), "--arg NAME=SPEC"));
    } else if (is("--save")) {
      o.saves.push_back(splitAssign(value("--save"), "--save NAME=FILE.npy"));
    } else if (is("--seed")) {
      std::string s = value("--seed");
      char* end = nullptr;
      o.seed = std::strtoull(s.c_str(), &end, 10);
      if (s.empty() || *end) throw UsageError("bad --seed '" + s + "'");
      o.haveSeed = true;
    } else if (a == "--locations") {
      o.locations = true;
    } else if (a == "--no-specialize") {
      o.specialize = false;
    } else if (a == "--print-after-all") {
      o.printAfterAll = true;
    } else if (a == "--json") {
      o.json = true;
    } else if (is("--print-analysis")) {
      o.analysis = value("--print-analysis");
      if (o.analysis != "axis" && o.analysis != "liveness")
        throw UsageError("unknown analysis '" + o.analysis + "' (expected axis or liveness)");
    } else if (is("--passes")) {
      o.passes = value("--passes");
    } else if (a == "-O0") {
      o.optimize = false;
    } else if (!a.empty() && a[0] == '-') {
      throw UsageError("unknown option '" + a + "'");
    } else if (o.file.empty()) {
      o.file = a;
    } else {
      throw UsageError("more than one input file ('" + o.file + "' and '" + a + "')");
    }
  }
  if (o.command == "passes") return o;
  if (o.file.empty()) throw UsageError("no input file");
  o.compile.filename = o.file;
  return o;
}

std::string readFile(const std::string& path) {
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
  if (endsWith(o.file, ".tir")) {
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

transform::PipelineOptions pipelineOptions(const Options& o) {
  transform::PipelineOptions p;
  p.numStages = o.numStages;
  // For the GPU passes (--passes=...,gpu-assign-layouts or --stage gpu-ir/ptx).
  p.target = o.target.empty() ? "sm_90a" : o.target;
  p.numWarps = o.numWarps;
  p.allowTf32 = o.allowTf32;
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

int emit(const Options& o, const std::string& source) {
  if (o.stage == "ast") {
    if (endsWith(o.file, ".tir")) throw UsageError("--stage ast needs a Triton-C file");
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
    if (o.stage == "opt-ir") transform::runPasses(*m, transform::parsePassList(o.passes), popts);
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
    transform::runPasses(*m, transform::parsePassList(o.passes), popts);
    if (o.stage == "gpu-ir") {
      transform::runPasses(*m, transform::gpuPipeline(), popts);
      ir::PrintOptions po;
      po.locations = o.locations;
      if (!o.printAfterAll) std::cout << ir::printModule(*m, po);
      return 0;
    }
    nvptx::TargetOptions to;
    to.arch = popts.target;
    to.numWarps = o.numWarps;
    to.allowTf32 = o.allowTf32;
    std::cout << nvptx::emitPtx(*m, to);
    return 0;
  }
  if (o.stage == "report") {
    if (endsWith(o.file, ".tir")) throw UsageError("--stage report needs a Triton-C file");
    runtime::ReportOptions ro;
    ro.filename = o.file;
    ro.defines = o.compile.defines;
    ro.arch = o.target.empty() ? "sm_90a" : o.target;
    ro.numWarps = o.numWarps;
    ro.numStages = o.numStages;
    ro.allowTf32 = o.allowTf32;
    ro.ints = integerArgs(o);
    runtime::CompileReport r = runtime::compileReport(source, ro);
    std::cout << (o.json ? runtime::reportJson(r) : runtime::renderReport(r, source));
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
  return !endsWith(o.file, ".tir") && source.find("tunable") != std::string::npos;
}

// `tune`, and `run` of a kernel with a tuning space: through the runtime's
// kernel object (tuner, caches).
int runTuned(const Options& o, const std::string& source) {
  if (endsWith(o.file, ".tir")) throw UsageError(o.command + " with a tuning space needs a Triton-C file");
  if (o.backend != "" && o.backend != "gpu" && o.backend != "cpu" && o.backend != "interp")
    throw UsageError("unknown back end '" + o.backend + "' (available: interp, cpu, gpu)");
  runtime::KernelOptions ko;
  ko.filename = o.file;
  ko.defines = o.compile.defines;
  ko.numWarps = o.numWarpsList;
  ko.numStages = o.numStagesList;
  ko.target = o.backend == "interp" || o.backend == "cpu" ? o.backend
              : !o.target.empty()                          ? o.target
              : o.backend == "gpu"                         ? "gpu"
                                                           : "auto";
  ko.kernel = o.kernel;
  ko.cacheDir = o.cacheDir;
  ko.allowTf32 = o.allowTf32;
  if (!o.quiet) ko.progress = [](const std::string& line) { std::cerr << line << "\n"; };
  runtime::Kernel kernel(source, ko);
  if (o.grid.empty()) throw UsageError(o.command + " needs --grid X[,Y[,Z]]");
  cli::GridSpec spec = cli::parseGridSpec(o.grid);
  // The arguments are bound by the parameters of the first configuration.
  lang::CompileResult first = lang::compileSource(source, o.compile);
  const ir::Function& fn = pickKernel(*first.module, kernel.name());
  std::mt19937_64 rng(o.haveSeed ? o.seed : std::random_device{}());
  cli::BoundArgs bound = cli::bindArguments(fn, o.args, rng);
  for (auto& [name, path] : o.saves)
    if (!bound.byName.count(name)) throw UsageError("--save " + name + ": '" + name + "' is not a pointer argument");
  runtime::GridFn grid = [&](const runtime::Config& c) {
    return cli::evaluateGrid(spec, [&](const std::string& n) { return gridName(o, n, &c); });
  };
  runtime::TuneResult r = kernel.tune(bound.args, grid, /*force=*/o.command == "tune");
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
  std::fprintf(stderr, "ran kernel '%s' on %s with %s (%s), grid (%lld, %lld, %lld): %.3f ms\n", kernel.name().c_str(),
               kernel.target().c_str(), r.best.text().c_str(),
               r.origin == "tuned" ? "tuned now" : ("tuning from the " + r.origin + " cache").c_str(), (long long)g.x,
               (long long)g.y, (long long)g.z, ms);
  return 0;
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
  if (o.optimize) {
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
  try {
    o = parseCommandLine(argc, argv);
    if (o.help) {
      std::cout << usage(o.command);
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
    source = readFile(o.file);
    return o.command == "emit" ? emit(o, source) : run(o, source);  // run and tune
  } catch (const UsageError& e) {
    std::cerr << "tritonc: error: " << e.what() << "\n";
    if (o.command.empty() || std::string(e.what()).find("command") != std::string::npos) std::cerr << usage("");
    return 1;
  } catch (const UserError& e) {
    if (e.loc().known()) std::cerr << formatDiagnostic(o.file, source, e.loc(), e.what());
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
