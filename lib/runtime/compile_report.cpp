#include "runtime/compile_report.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "gpu/occupancy.h"
#include "runtime/optimize_for_launch.h"
#include "target/nvptx/codegen.h"
#include "target/nvptx/occupancy_fallback.h"
#include "target/nvptx/ptxas.h"

namespace tritonc::runtime {

namespace {

// What one multiprocessor holds, by architecture (sm_80: A100, sm_90: H100).
struct SmLimits {
  int64_t registers = 65536, sharedBytes = 0, threads = 2048, programs = 32;
};
SmLimits limitsOf(const std::string& arch) {
  SmLimits l;
  l.sharedBytes = gpu::multiprocessorSharedBytes(arch);
  return l;
}

void computeOccupancy(Resources& r, const std::string& arch, int numWarps) {
  SmLimits l = limitsOf(arch);
  r.threads = 32 * numWarps;
  struct Bound {
    int64_t programs;
    const char* what;
  };
  std::vector<Bound> bounds{{l.threads / r.threads, "threads"}, {l.programs, "programs per multiprocessor"}};
  if (r.registers > 0) {
    // Registers are handed out per warp in units of 256.
    int64_t perWarp = (r.registers * 32 + 255) / 256 * 256;
    bounds.push_back({l.registers / (perWarp * numWarps), "registers"});
  }
  // The driver reserves 1 KB of shared memory per program.
  bounds.push_back({l.sharedBytes / (r.sharedBytes + 1024), "shared memory"});
  const Bound* least = &bounds[0];
  for (const Bound& b : bounds)
    if (b.programs < least->programs) least = &b;
  r.programsPerSm = int(std::max<int64_t>(0, least->programs));
  r.limitedBy = least->what;
  r.occupancy = double(r.programsPerSm * numWarps) / double(l.threads / 32);
}

std::string jsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\', out += c;
    else if (c == '\n') out += "\\n";
    else if (static_cast<unsigned char>(c) < 0x20) out += ' ';
    else out += c;
  }
  return out + "\"";
}

// The line (1-based) of the Python `def` whose body holds `line`: the
// nearest line above it that starts, indented less, with "def "; 0 if none.
size_t enclosingDef(const std::vector<std::string>& lines, size_t line) {
  auto indent = [](const std::string& l) { return l.find_first_not_of(' '); };
  size_t depth = indent(lines[line - 1]);
  for (size_t k = line; k-- > 0;) {
    size_t d = indent(lines[k]);
    if (d == std::string::npos || d >= depth) continue;
    if (lines[k].compare(d, 4, "def ") == 0) return k + 1;
    depth = d;  // an enclosing block (for, if): its def is further up and less indented still
  }
  return 0;
}

}  // namespace

CompileReport compileReport(const std::string& source, const ReportOptions& o) {
  CompileReport r;
  lang::CompileOptions co;
  co.filename = o.filename;
  co.defines = o.defines;
  co.language = o.language;
  lang::CompileResult c = lang::compileSource(source, co);
  if (c.module->functions().size() != 1)
    throw UserError(SourceLoc{}, "a compile report covers one kernel; " + o.filename + " has " +
                                     std::to_string(c.module->functions().size()));
  ir::Function& fn = *c.module->functions()[0];
  std::vector<ArgFacts> facts = factsOfNamedIntegers(fn, o.ints);
  specializeAndOptimize(*c.module, fn, facts, o.numStages, true);
  nvptx::TargetOptions to;
  to.arch = o.arch;
  to.numWarps = o.numWarps;
  to.allowTf32 = o.allowTf32;
  for (const lang::Define& d : o.defines)
    if (nvptx::TargetOptions::isConfigurationName(d.name)) to.configure(d.name, lang::defineValues(d).front());
  r.ptx = nvptx::emitPtx(*c.module, to);  // runs the GPU passes on the module in place
  r.facts = gpu::describeGpuFunction(fn);
  for (const lang::Define& d : o.defines) r.config += d.name + "=" + lang::defineValues(d).front() + " ";
  r.config += "num_warps=" + std::to_string(o.numWarps) + " num_stages=" + std::to_string(o.numStages) +
              " target=" + o.arch;
  Resources& res = r.resources;
  res.sharedBytes = r.facts.sharedBytes;
  const int warps = o.numWarps + r.facts.producerWarps;
  gpu::OccupancyTarget asked = gpu::occupancyTarget(fn, warps);
  res.askedPrograms = asked.programs;
  res.askedWhy = asked.reason;
  nvptx::PtxasInfo info;
  if (o.assemble) info = nvptx::ptxasInfo(r.ptx, o.arch);
  // Other occupancies' PTX, as the launch tries them (occupancy_fallback.h):
  // `variant` assembled, taken where `better` says so of its ptxas figures,
  // what `why` says of them then added to the reason and `programs` asked.
  auto tryVariant = [&](const std::string& variant, auto better, auto why, int programs) {
    nvptx::PtxasInfo second = variant.empty() ? nvptx::PtxasInfo{} : nvptx::ptxasInfo(variant, o.arch);
    if (!second.ok || !better(second)) return;
    res.askedWhy += why(second);
    res.askedPrograms = programs;
    info = second;
  };
  auto spills = [](const nvptx::PtxasInfo& i) { return i.spillStores + i.spillLoads; };
  auto spilledAt = [&](int programs) {
    return [&, programs](const nvptx::PtxasInfo&) {
      return "; it spilled at " + std::to_string(res.askedPrograms) + ", so the launch asks for " +
             std::to_string(programs);
    };
  };
  // Spilled at the occupancy asked: half as many first where named, then the fallback.
  if (info.ok && spills(info) > 0 && asked.halfway)
    tryVariant(nvptx::withHalfwayOccupancy(r.ptx, fn.name()), [&](const nvptx::PtxasInfo& i) { return spills(i) == 0; },
               spilledAt(asked.halfway), asked.halfway);
  if (info.ok && spills(info) > 0)
    tryVariant(nvptx::withFallbackOccupancy(r.ptx, fn.name()),
               [&](const nvptx::PtxasInfo& i) { return spills(i) < spills(info); }, spilledAt(asked.fallback),
               asked.fallback);
  // ptxas's own choice too where named: kept where it does not spill and its
  // registers leave room for more programs.
  const int threads = 32 * warps;
  auto room = [&](const nvptx::PtxasInfo& i) { return nvptx::programsByRegisters(i.registers, threads); };
  if (info.ok && asked.natural)
    tryVariant(nvptx::withoutOccupancyDirective(r.ptx, fn.name()),
               [&](const nvptx::PtxasInfo& i) { return spills(i) == 0 && (spills(info) > 0 || room(i) > room(info)); },
               [&](const nvptx::PtxasInfo& i) {
                 return "; left to ptxas it takes " + std::to_string(i.registers) + " registers (" +
                        std::to_string(info.registers) + " at " + std::to_string(res.askedPrograms) + "), room for " +
                        std::to_string(room(i)) + " programs, so the launch asks for none";
               },
               0);
  if (info.ok) {
    res.from = "ptxas -v";
    res.registers = info.registers;
    res.spillStores = info.spillStores;
    res.spillLoads = info.spillLoads;
    res.stackFrame = info.stackFrame;
  } else {
    res.from = "our allocation (" + (o.assemble ? info.problem : std::string("not assembled")) + ")";
  }
  computeOccupancy(res, o.arch, warps);
  r.warnings = r.facts.warnings;
  if (res.spillStores > 0)
    r.warnings.push_back("spills " + std::to_string(res.spillStores) + " B per thread to local memory (" +
                         std::to_string(res.registers) + " registers): try smaller tiles or more warps");
  if (!info.wgmmaSerialized.empty())
    r.warnings.push_back("ptxas serializes the wgmma instructions (" + info.wgmmaSerialized +
                         "): each waits for the one before; fewer registers per thread (a smaller tile, more warps) "
                         "let them overlap");
  if (res.programsPerSm == 0)
    r.warnings.push_back("no program fits on a multiprocessor (" + res.limitedBy + "): smaller tiles or fewer stages");
  return r;
}

std::string renderReport(const CompileReport& r, const std::string& source, size_t firstLine, size_t lastLine) {
  std::vector<std::string> lines;
  {
    std::istringstream in(source);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
  }
  std::map<uint32_t, std::vector<const gpu::LineFact*>> byLine;
  std::vector<const gpu::LineFact*> unplaced;
  for (const gpu::LineFact& f : r.facts.facts)
    (f.line > 0 && f.line <= lines.size() ? byLine[f.line] : unplaced).push_back(&f);
  size_t width = 0;
  for (auto& [line, fs] : byLine) width = std::max(width, lines[line - 1].size());
  width = std::min<size_t>(width, 72);
  // Facts on lines of the file outside the kernel's come from the functions
  // it calls (a Python @jit helper, inlined): they are listed after the
  // kernel, each under its function's `def` line.
  std::map<uint32_t, std::vector<const gpu::LineFact*>> outside;
  for (auto it = byLine.begin(); it != byLine.end();) {
    if ((firstLine && it->first < firstLine) || (lastLine && it->first > lastLine)) {
      outside.insert(*it);
      it = byLine.erase(it);
    } else {
      ++it;
    }
  }
  std::ostringstream out;
  auto printLine = [&](size_t line, const std::vector<const gpu::LineFact*>* facts) {
    char num[32];
    std::snprintf(num, sizeof num, "%4zu | ", line);
    const std::string& text = lines[line - 1];
    if (!facts) {
      out << num << text << "\n";
      return;
    }
    for (size_t j = 0; j < facts->size(); ++j) {
      std::string left = j == 0 ? text : "";
      if (left.size() < width) left += std::string(width - left.size(), ' ');
      out << (j == 0 ? std::string(num) : std::string("     | ")) << left << "  | " << (*facts)[j]->text << "\n";
    }
  };
  out << "compile report: kernel " << r.facts.kernel << ", " << r.config << "\n\n";
  for (size_t k = 0; k < lines.size(); ++k) {
    if ((firstLine && k + 1 < firstLine) || (lastLine && k + 1 > lastLine)) continue;
    auto it = byLine.find(uint32_t(k + 1));
    printLine(k + 1, it == byLine.end() ? nullptr : &it->second);
  }
  if (!outside.empty()) out << "\n     in the functions it calls:\n";
  size_t lastDef = 0;
  for (auto& [line, facts] : outside) {
    size_t def = enclosingDef(lines, line);
    if (def && def != lastDef && def != line) printLine(def, nullptr);
    lastDef = def ? def : lastDef;
    printLine(line, &facts);
  }
  for (const gpu::LineFact* f : unplaced) out << "     (no source line) " << f->text << "\n";
  const Resources& res = r.resources;
  out << "\nkernel " << r.facts.kernel << " (" << r.facts.target << ", " << r.facts.numWarps << " warps"
      << (r.facts.producerWarps ? " and a producer warp" : "") << ", " << res.threads << " threads):\n";
  out << "  registers: " << (res.registers >= 0 ? std::to_string(res.registers) + " per thread" : "unknown")
      << "; spills: " << res.spillStores << " B stored, " << res.spillLoads << " B loaded; stack frame "
      << res.stackFrame << " B  [" << res.from << "]\n";
  out << "  shared memory: " << res.sharedBytes << " B per program\n";
  char occ[64];
  std::snprintf(occ, sizeof occ, "%.0f%%", 100 * res.occupancy);
  out << "  occupancy: " << res.programsPerSm << " program(s) per multiprocessor (limited by " << res.limitedBy
      << "), " << occ << " of its warps\n";
  out << "  asked of ptxas: "
      << (res.askedPrograms ? std::to_string(res.askedPrograms) + " program(s) per multiprocessor (.minnctapersm; "
                            : std::string("nothing (no .minnctapersm; "))
      << res.askedWhy
      << ")\n";
  if (!r.warnings.empty()) {
    out << "\nwarnings:\n";
    for (const std::string& w : r.warnings) out << "  - " << w << "\n";
  }
  return out.str();
}

std::string reportJson(const CompileReport& r) {
  std::ostringstream out;
  const Resources& res = r.resources;
  out << "{\n  \"kernel\": " << jsonString(r.facts.kernel) << ",\n  \"config\": " << jsonString(r.config)
      << ",\n  \"target\": " << jsonString(r.facts.target) << ",\n  \"num_warps\": " << r.facts.numWarps
      << ",\n  \"lines\": [";
  for (size_t k = 0; k < r.facts.facts.size(); ++k) {
    const gpu::LineFact& f = r.facts.facts[k];
    out << (k ? "," : "") << "\n    {\"line\": " << f.line << ", \"col\": " << f.col << ", \"kind\": " << jsonString(f.kind)
        << ", \"instruction\": " << jsonString(f.instruction) << ", \"vec\": " << f.vec
        << ", \"access_bytes\": " << f.accessBytes << ", \"stages\": " << f.stages << ", \"tile\": " << jsonString(f.tile)
        << ", \"text\": " << jsonString(f.text) << "}";
  }
  out << "\n  ],\n  \"resources\": {\"from\": " << jsonString(res.from) << ", \"registers\": " << res.registers
      << ", \"spill_stores\": " << res.spillStores << ", \"spill_loads\": " << res.spillLoads
      << ", \"stack_frame\": " << res.stackFrame << ", \"shared_bytes\": " << res.sharedBytes
      << ", \"threads\": " << res.threads << ", \"producer_warps\": " << r.facts.producerWarps
      << ", \"programs_per_sm\": " << res.programsPerSm
      << ", \"limited_by\": " << jsonString(res.limitedBy) << ", \"occupancy\": " << res.occupancy
      << ", \"asked_programs_per_sm\": " << res.askedPrograms << ", \"asked_why\": " << jsonString(res.askedWhy)
      << "},\n";
  out << "  \"warnings\": [";
  for (size_t k = 0; k < r.warnings.size(); ++k) out << (k ? ", " : "") << jsonString(r.warnings[k]);
  out << "]\n}\n";
  return out.str();
}

}  // namespace tritonc::runtime
