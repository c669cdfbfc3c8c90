// tritonc-examples: compiles and runs every example kernel of the table
// (examples/cases.h) on the best back end present, checks each result against
// its C++ reference, and prints one line per case. Exits 1 if any case fails.
//   tritonc-examples [--filter SUBSTR] [--seed N] [--preset test|demo] [--root DIR] [--list]
//                    [--backend auto|interp|cpu|gpu] [--num-stages N] [-O0]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "cases.h"
#include "ir/verifier.h"
#include "support/diagnostic.h"
#include "target/cpu/cpu_backend.h"
#include "target/nvptx/codegen.h"
#include "target/nvptx/gpu_runner.h"
#include "runtime/optimize_for_launch.h"
#include "transform/pass_manager.h"

namespace {

using namespace tritonc;
using namespace tritonc::examples;

struct Options {
  std::string filter, root = TRITONC_SOURCE_DIR;
  std::string backend = "auto";  // resolved in main: gpu, cpu or interp
  std::string arch;              // the GPU's, when backend == gpu
  bool optimize = true;
  int numStages = transform::PipelineOptions::kDefaultNumStages;
  Preset preset = Preset::Test;
  bool haveSeed = false;
  uint64_t seed = 0;
};

const char* const kUsage =
    "usage: tritonc-examples [--filter SUBSTR] [--seed N] [--preset test|demo] [--root DIR] [--list]\n"
    "  --filter SUBSTR  run only the cases whose name contains SUBSTR (or is SUBSTR)\n"
    "  --seed N         seed of the random inputs (default: random, printed)\n"
    "  --preset P       problem sizes: test (small, default) or demo (bigger)\n"
    "  --root DIR       repository root holding examples/*.tc (default: the source dir)\n"
    "  --list           print the case names and exit\n"
    "  --backend B      auto (gpu when a GPU is present, else cpu when built with it, else interp),\n"
    "                   interp (checks every access), cpu or gpu\n"
    "  --num-stages N   software-pipelining depth: loads pre-fetched N - 1 iterations ahead (default 3)\n"
    "  -O0              run the IR as generated, without the optimizer\n";

struct Row {
  std::string name, sizes, backend, compileMs = "-", runMs = "-", error = "-";
  bool passed = false;
  std::string detail;  // why it failed
};

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// Compiles, launches and checks one case; `notes` collects compiler notes.
Row runCase(const Case& c, const Options& o, uint64_t seed, std::vector<std::string>& notes) {
  Row row;
  row.name = c.name;
  row.backend = o.backend;
  std::string source;
  try {
    source = readTextFile(o.root + "/" + c.file);
    auto t0 = std::chrono::steady_clock::now();
    lang::CompileResult compiled = compileCase(c, o.root);
    for (auto& n : compiled.notes) notes.push_back(c.file + ": note: " + n);
    std::string bad = ir::verifyModule(*compiled.module);
    if (!bad.empty()) throw std::runtime_error("the front end produced invalid IR:\n" + bad);
    double compileMs = msSince(t0);

    std::mt19937_64 rng(caseSeed(seed, c.name));
    Launch launch = c.build(paramsFor(c, o.preset, compiled), rng);
    row.sizes = launch.sizes;
    // Specialize on the launch's alignment, then optimize, as a JIT launch does.
    t0 = std::chrono::steady_clock::now();
    ir::Function& fn = *compiled.module->functions()[0];
    if (o.optimize)
      runtime::specializeAndOptimize(*compiled.module, fn, runtime::factsOf(launch.args, runtime::parameterKinds(fn)), o.numStages, o.backend == "gpu");
    else
      runtime::applySpecialization(fn, runtime::factsOf(launch.args, runtime::parameterKinds(fn)));
    std::string ptx;
    std::unique_ptr<cpu::CpuKernel> native;
    if (o.backend == "cpu") native = cpu::CpuKernel::compile(kernelOf(*compiled.module));
    if (o.backend == "gpu") {
      nvptx::TargetOptions to;
      to.arch = o.arch;
      to.numWarps = c.numWarps;
      to.allowTf32 = c.tf32;
      for (const lang::Define& d : c.defines)
        if (d.name == "num_ctas") to.setNumCtas(d.value);
      ptx = nvptx::emitPtx(*compiled.module, to);
    }
    row.compileMs = fixed(compileMs + msSince(t0), 2);
    if (o.backend == "gpu") {
      // One checked launch on the poisoned outputs, then timed launches.
      nvptx::GpuLaunchOptions lo;
      lo.numWarps = c.numWarps;
      nvptx::runOnGpu(ptx, kernelOf(*compiled.module), launch.grid, launch.args, lo);
      Launch timed = launch.clone();
      lo.warmup = 2;
      lo.repeats = 10;
      nvptx::GpuRunResult r = nvptx::runOnGpu(ptx, kernelOf(*compiled.module), timed.grid, timed.args, lo);
      std::sort(r.timesMs.begin(), r.timesMs.end());
      row.runMs = fixed(r.timesMs[r.timesMs.size() / 2], 4);
    } else if (o.backend == "cpu") {
      // One checked launch on the poisoned outputs, then timed launches.
      native->run(launch.grid, launch.args);
      Launch timed = launch.clone();
      std::vector<double> times;
      for (int rep = 0; rep < 5; ++rep) {
        t0 = std::chrono::steady_clock::now();
        native->run(timed.grid, timed.args);
        times.push_back(msSince(t0));
      }
      std::sort(times.begin(), times.end());
      row.runMs = fixed(times[times.size() / 2], 4);
    } else {
      t0 = std::chrono::steady_clock::now();
      interp::runKernel(kernelOf(*compiled.module), launch.grid, launch.args);
      row.runMs = fixed(msSince(t0), 2);
    }

    Comparison cmp = compareOutputs(launch);
    char err[32];
    std::snprintf(err, sizeof err, "%.2e", cmp.maxError);
    row.error = err;
    row.passed = cmp.passed(launch.tolerance);
    if (!row.passed) row.detail = "error above the tolerance " + fixed(launch.tolerance, 6) + "; worst: " + cmp.worst;
  } catch (const UserError& e) {
    row.detail = e.loc().known() ? formatDiagnostic(c.file, source, e.loc(), e.what()) : std::string(e.what());
  } catch (const std::exception& e) {
    row.detail = e.what();
  }
  return row;
}

void printTable(const std::vector<Row>& rows) {
  const char* heads[] = {"kernel", "sizes", "back end", "compile ms", "run ms", "max error", "result"};
  size_t w[7];
  for (int i = 0; i < 7; ++i) w[i] = std::string(heads[i]).size();
  auto cells = [](const Row& r) {
    return std::vector<std::string>{r.name, r.sizes, r.backend, r.compileMs, r.runMs, r.error, r.passed ? "PASS" : "FAIL"};
  };
  for (auto& r : rows) {
    auto c = cells(r);
    for (int i = 0; i < 7; ++i) w[i] = std::max(w[i], c[size_t(i)].size());
  }
  auto line = [&](const std::vector<std::string>& c) {
    std::string s;
    for (int i = 0; i < 7; ++i) {
      std::string cell = c[size_t(i)];
      bool right = i >= 3 && i <= 5;  // numbers
      std::string padding(w[i] - cell.size(), ' ');
      s += (i ? "  " : "") + (right ? padding + cell : cell + (i < 6 ? padding : ""));
    }
    std::cout << s << "\n";
  };
  line({heads, heads + 7});
  std::vector<std::string> rule;
  for (int i = 0; i < 7; ++i) rule.push_back(std::string(w[i], '-'));
  line(rule);
  for (auto& r : rows) line(cells(r));
}

Options parseOptions(int argc, char** argv, bool& list) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument("option " + a + " needs a value");
      return argv[++i];
    };
    if (a == "--filter") {
      o.filter = value();
    } else if (a == "--seed") {
      std::string s = value();
      char* end = nullptr;
      o.seed = std::strtoull(s.c_str(), &end, 10);
      if (s.empty() || *end) throw std::invalid_argument("bad --seed '" + s + "'");
      o.haveSeed = true;
    } else if (a == "--preset") {
      std::string s = value();
      auto p = presetFromName(s);
      if (!p) throw std::invalid_argument("unknown preset '" + s + "' (expected test or demo)");
      o.preset = *p;
    } else if (a == "--root") {
      o.root = value();
    } else if (a == "--backend") {
      o.backend = value();
      if (o.backend != "auto" && o.backend != "interp" && o.backend != "cpu" && o.backend != "gpu")
        throw std::invalid_argument("unknown back end '" + o.backend + "' (expected auto, interp, cpu or gpu)");
    } else if (a == "--num-stages") {
      std::string s = value();
      if (s.size() != 1 || s[0] < '1' || s[0] > '8') throw std::invalid_argument("bad --num-stages '" + s + "' (1 to 8)");
      o.numStages = s[0] - '0';
    } else if (a == "-O0") {
      o.optimize = false;
    } else if (a == "--list") {
      list = true;
    } else if (a == "--help" || a == "-h") {
      std::cout << kUsage;
      std::exit(0);
    } else {
      throw std::invalid_argument("unknown option '" + a + "'");
    }
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  bool list = false;
  try {
    o = parseOptions(argc, argv, list);
  } catch (const std::exception& e) {
    std::cerr << "tritonc-examples: error: " << e.what() << "\n" << kUsage;
    return 1;
  }
  // A filter that is a whole case name selects that case alone (case names
  // are prefixes of one another, e.g. vector_add and vector_add_param_*).
  std::vector<const Case*> selected;
  for (const Case& c : allCases())
    if (c.name == o.filter) selected.push_back(&c);
  if (selected.empty())
    for (const Case& c : allCases())
      if (c.name.find(o.filter) != std::string::npos) selected.push_back(&c);
  if (list) {
    for (const Case* c : selected) std::cout << c->name << "  (" << c->file << ")\n";
    return 0;
  }
  if (selected.empty()) {
    std::cerr << "tritonc-examples: error: no case matches '" << o.filter << "'\n";
    return 1;
  }
  const uint64_t seed = o.haveSeed ? o.seed : (uint64_t(std::random_device{}()) << 32) ^ std::random_device{}();
  std::string noGpu;
  std::string arch = nvptx::gpuArch(&noGpu);
  if (o.backend == "auto") o.backend = !arch.empty() ? "gpu" : cpu::available() ? "cpu" : "interp";
  if (o.backend == "cpu" && !cpu::available()) {
    std::cerr << "tritonc-examples: error: --backend cpu: this build has no CPU back end (it needs LLVM 19)\n";
    return 1;
  }
  if (o.backend == "gpu" && arch.empty()) {
    std::cerr << "tritonc-examples: error: --backend gpu: " << noGpu << "\n";
    return 1;
  }
  o.arch = arch;
  std::cout << "tritonc-examples: " << selected.size() << " case(s), preset " << presetName(o.preset)
            << ", seed " << seed << "\n";
  if (o.backend == "gpu")
    std::cout << "back end: gpu (" << arch << "); run ms is the median of 10 launches timed with CUDA events\n\n";
  else if (o.backend == "cpu")
    std::cout << "back end: cpu (" << cpu::numThreads() << " threads; " << cpu::hostDescription().substr(0, 60)
              << "...); compile ms includes LLVM; run ms is the median of 5 launches\n\n";
  else
    std::cout << "back end: interp (the reference interpreter; " << (noGpu.empty() ? "chosen" : noGpu)
              << "), so timings are the interpreter's, not those of compiled code\n\n";

  std::vector<Row> rows;
  std::vector<std::string> notes;
  auto t0 = std::chrono::steady_clock::now();
  for (const Case* c : selected) rows.push_back(runCase(*c, o, seed, notes));
  const double totalMs = msSince(t0);
  printTable(rows);

  std::set<std::string> seen;  // each note once, in first-seen order
  bool header = false;
  for (auto& n : notes) {
    if (!seen.insert(n).second) continue;
    if (!header) std::cout << "\ncompiler notes:\n";
    header = true;
    std::cout << "  " << n << "\n";
  }

  int failed = 0;
  for (auto& r : rows) {
    if (r.passed) continue;
    if (!failed) std::cout << "\nfailures:\n";
    ++failed;
    std::cout << "* " << r.name << " (reproduce: tritonc-examples --seed " << seed << " --preset "
              << presetName(o.preset) << " --filter " << r.name << ")\n"
              << r.detail << (r.detail.empty() || r.detail.back() == '\n' ? "" : "\n");
  }
  std::cout << "\n" << rows.size() - size_t(failed) << " passed, " << failed << " failed (seed " << seed << ", "
            << fixed(totalMs / 1000, 2) << " s)\n";
  return failed ? 1 : 0;
}
