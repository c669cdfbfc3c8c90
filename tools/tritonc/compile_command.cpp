#include "compile_command.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <set>

#include "runtime/aot_compile.h"
#include "runtime/kernel_pack.h"
#include "target/cpu/cpu_backend.h"
#include "target/nvptx/gpu_runner.h"

namespace tritonc::cli {

namespace {

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The specializations `compile` is asked for: one launch per combination of
// the values of its --arg NAME=INT[,INT...] lists (none: no integer named).
std::vector<std::vector<std::pair<std::string, int64_t>>> compileSpecializations(const Options& o) {
  constexpr size_t kMaxSpecializations = 256;
  std::vector<std::vector<std::pair<std::string, int64_t>>> out{{}};
  if (o.args.empty()) return {};
  for (const auto& [name, values] : o.args) {
    std::vector<int64_t> ints;
    for (size_t pos = 0; pos <= values.size();) {
      size_t comma = std::min(values.find(',', pos), values.size());
      std::string v = values.substr(pos, comma - pos);
      char* end = nullptr;
      errno = 0;
      long long x = std::strtoll(v.c_str(), &end, 0);
      if (v.empty() || *end || errno == ERANGE)
        throw UsageError("--arg " + name + "=" + values +
                         ": with compile, integer parameters take integers, the sizes of launches to specialize for "
                         "(e.g. --arg M=1024,1000)");
      ints.push_back(x);
      pos = comma + 1;
    }
    std::vector<std::vector<std::pair<std::string, int64_t>>> next;
    for (const auto& prefix : out)
      for (int64_t x : ints) {
        next.push_back(prefix);
        next.back().push_back({name, x});
      }
    out.swap(next);
    if (out.size() > kMaxSpecializations)
      throw UsageError("--arg lists make more than " + std::to_string(kMaxSpecializations) + " specializations");
  }
  return out;
}

}  // namespace

int compileCommand(const Options& o, const std::string& source, runtime::KernelOptions ko) {
  if (!endsWith(o.file, ".tc") && (endsWith(o.file, ".tir") || endsWith(o.file, ".tck")))
    throw UsageError("compile needs a Triton-C file (.tc)");
  if (o.output.empty()) throw UsageError("compile needs -o FILE.tck");
  if (!o.backend.empty()) throw UsageError("compile takes --target (sm_80, sm_90a, cpu, interp), not --backend");
  ko.progress = nullptr;
  // Each target compiles the source again: its warnings once.
  auto warned = std::make_shared<std::set<std::string>>();
  ko.warn = [warned](const std::string& text) {
    if (warned->insert(text).second) std::cerr << text;
  };
  runtime::PackOptions po;
  po.targets = o.targets;
  if (po.targets.empty()) {
    std::string arch = nvptx::gpuArch();
    po.targets = {!arch.empty() ? arch : cpu::available() ? "cpu" : "interp"};
  }
  po.specializations = compileSpecializations(o);
  po.generic = o.generic;
  if (!o.quiet) po.note = [](const std::string& line) { std::cerr << "tritonc: note: " << line << "\n"; };
  auto t0 = std::chrono::steady_clock::now();
  runtime::KernelPack pack = runtime::compilePack(source, ko, po);
  runtime::writePack(pack, o.output);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::set<std::string> configs, specializations;
  for (const runtime::PackEntry& e : pack.entries) {
    configs.insert(e.config().text());
    specializations.insert(e.specialization);
  }
  std::string targets;
  for (const std::string& t : po.targets) targets += (targets.empty() ? "" : ", ") + t;
  auto count = [](size_t n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); };
  if (!o.quiet)
    std::fprintf(stderr, "wrote %s: kernel '%s', %s (%s, %s, targets %s), %.1f KiB in %.1f s\n", o.output.c_str(),
                 pack.kernel.c_str(), count(pack.entries.size(), "entry", "entries").c_str(),
                 count(configs.size(), "configuration", "configurations").c_str(),
                 count(specializations.size(), "specialization", "specializations").c_str(), targets.c_str(),
                 double(runtime::serializePack(pack).size()) / 1024, seconds);
  return 0;
}

}  // namespace tritonc::cli
