#include "options.h"

#include <algorithm>
#include <cstdlib>

namespace tritonc::cli {

namespace {

// Usage, one section per command (`tritonc CMD --help` prints its own).
const char* const kEmitUsage =
    "  tritonc emit FILE [-DNAME=VALUE]... --stage ast|ir|opt-ir|gpu-ir|ptx|llvm|report [--locations] [--json]\n"
    "               [--target sm_80|sm_90a] [--num-warps N] [--num-stages N] [--allow-tf32] [--no-specialize]\n"
    "               [--num-ctas 1|2|4]  (2: programs paired along x in clusters, shared tensor copies multicast; 4: 2 x 2)\n"
    "               [--arg NAME=INT]...  (gpu-ir/ptx/report: specialize as for a launch with these integers)\n"
    "               [--passes=a,b,c] [--print-after-all] [--print-analysis=axis|liveness]\n";
const char* const kRunUsage =
    "  tritonc run  FILE|KERNEL.tck [-DNAME=VALUE]... --grid X[,Y[,Z]] [--backend gpu|cpu|interp] [--kernel NAME]\n"
    "               [--num-warps N[,N...]] [--num-stages N[,N...]] [--num-ctas 1|2|4]\n"
    "               (the default back end is gpu when present,\n"
    "               else cpu (native code through LLVM, every core) when built with it, else interp;\n"
    "               interp checks every memory access)\n"
    "               --arg NAME=SPEC... [--save NAME=out.npy]... [--seed N] [-O0] [--cache-dir DIR|none]\n"
    "               with a tuning space (lists), the kernel is tuned first (results are cached);\n"
    "               KERNEL.tck (tritonc compile): -D, --num-warps and --num-stages choose among its configurations\n"
    "               (a list: any of them; several left are tuned), --backend or --target among its targets\n";
const char* const kTuneUsage =
    "  tritonc tune FILE -DNAME=[v1,v2,...]... [--num-warps 4,8] [--num-stages 2,3] --grid ... --arg ...\n"
    "               times every configuration and prints the table (--quiet: only the result)\n";
const char* const kCompileUsage =
    "  tritonc compile FILE [-DNAME=VALUE|-DNAME=[v1,v2,...]]... [--num-warps 4,8] [--num-stages 2,3]\n"
    "               [--target sm_80|sm_90a|cpu|interp[,...]]... [--arg NAME=INT[,INT...]]... [--generic]\n"
    "               [--kernel NAME] [--allow-tf32] [--quiet] -o KERNEL.tck\n"
    "               compiles every configuration for each target (default: this machine's) and launch\n"
    "               specialization (pointers 16-byte aligned, the --arg integers' facts; each list value is one;\n"
    "               --generic adds code for any launch) into one file (docs/TCK_FORMAT.md) for `tritonc run`,\n"
    "               tritonc_kernel_load and tritonc.load\n";
const char* const kPassesUsage = "  tritonc passes        lists the optimization passes\n";
const char* const kVersionUsage = "  tritonc --version     prints the version\n";
const char* const kNotes =
    "FILE is Triton-C (.tc), Triton-IR text (.tir; GPU IR, as --stage gpu-ir prints it, in .tir or .tgir: no\n"
    "  pass runs on it unless --passes names one), or a Python DSL kernel FILE.py:KERNEL (its constexprs\n"
    "  as -DNAME=VALUE, its runtime parameters' types as --signature 'x_ptr=*fp32,n=i32'; needs the\n"
    "  tritonc Python package importable by $TRITONC_PYTHON, default python3); KERNEL.tck is compiled\n"
    "  ahead of time (tritonc compile).\n"
    "SPEC: @file.npy | integer | float | zeros:DTYPE:D0xD1... | rand:DTYPE:D0xD1...\n"
    "DTYPE: bool i8 i16 i32 i64 f16 bf16 f32 f64\n"
    "-DNAME=[v1, v2, ...] declares a tuning list; `tunable` declarations in the source are tuned too.\n"
    "--grid: each dimension is a product or quotient (rounded up) of numbers, integer arguments and\n"
    "        tuning parameters or macros, e.g. --grid M/TM,N/TN\n";

}  // namespace

std::string usage(const std::string& command) {
  std::string out = "usage:\n";
  if (command == "emit") return out + kEmitUsage + kNotes;
  if (command == "run") return out + kRunUsage + kNotes;
  if (command == "tune") return out + kTuneUsage + kNotes;
  if (command == "compile") return out + kCompileUsage + kNotes;
  if (command == "passes") return out + kPassesUsage;
  return out + kEmitUsage + kRunUsage + kTuneUsage + kCompileUsage + kPassesUsage + kVersionUsage + kNotes;
}


namespace {

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

}  // namespace

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
  if (o.command != "emit" && o.command != "run" && o.command != "tune" && o.command != "compile" &&
      o.command != "passes")
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
      for (size_t pos = 0; pos <= o.target.size();) {
        size_t comma = std::min(o.target.find(',', pos), o.target.size());
        if (comma == pos) throw UsageError("bad --target '" + o.target + "'");
        o.targets.push_back(o.target.substr(pos, comma - pos));
        pos = comma + 1;
      }
    } else if (is("--num-warps")) {
      std::string s = value("--num-warps");
      o.numWarpsList = intList(s, "--num-warps", [](long v) { return v > 0 && v <= 32 && !(v & (v - 1)); },
                               "1, 2, 4, ..., 32");
      o.numWarps = o.numWarpsList[0];
      o.numWarpsGiven = true;
    } else if (is("--num-stages")) {
      std::string s = value("--num-stages");
      o.numStagesList = intList(s, "--num-stages", [](long v) { return v >= 1 && v <= 8; }, "1 to 8");
      o.numStages = o.numStagesList[0];
      o.numStagesGiven = true;
    } else if (is("--cache-dir")) {
      o.cacheDir = value("--cache-dir");
    } else if (a == "-o") {
      if (i + 1 >= argc) throw UsageError("option -o needs a value");
      o.output = argv[++i];
    } else if (is("--output")) {
      o.output = value("--output");
    } else if (a == "--generic") {
      o.generic = true;
    } else if (a == "--quiet") {
      o.quiet = true;
    } else if (a == "--allow-tf32") {
      o.allowTf32 = true;
    } else if (is("--num-ctas")) {
      std::string v = value("--num-ctas");
      if (v != "1" && v != "2" && v != "4") throw UsageError("--num-ctas must be 1, 2 or 4, got '" + v + "'");
      o.numCtas = v[0] - '0';
    } else if (is("--kernel")) {
      o.kernel = value("--kernel");
    } else if (is("--signature")) {
      o.signature = value("--signature");
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
  // emit shows one configuration: a list would show its first value only.
  if (o.command == "emit" && (o.numWarpsList.size() > 1 || o.numStagesList.size() > 1))
    throw UsageError("emit shows one configuration: give one --num-warps and one --num-stages");
  o.compile.filename = o.file;
  return o;
}

}  // namespace tritonc::cli
