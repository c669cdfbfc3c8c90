// The compile report (R24): for one kernel and configuration, what the
// compiler decided per source line (vector widths, asynchronous copies and
// their stages, the instruction each dot runs on, conversions and
// reductions through shared memory) and per kernel (registers, spills,
// shared memory, occupancy), with warnings a user can act on. Rendered as
// the source with annotations in the margin (`tritonc emit --stage report`,
// the Python kernel's `.report()`) or as JSON for tools.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "gpu/report.h"
#include "lang/compile.h"

namespace tritonc::runtime {

struct ReportOptions {
  std::string filename = "<source>";
  std::vector<lang::Define> defines;  // the configuration's -D values (lists take their first value)
  std::string arch = "sm_90a";
  int numWarps = 4;
  int numStages = 3;
  bool allowTf32 = false;
  // Launch facts: integer arguments by name (pointers are taken 16-byte aligned).
  std::vector<std::pair<std::string, int64_t>> ints;
  bool assemble = true;  // run ptxas -v where it is installed
  // Triton-C source, or Triton-IR text (a .tir file, a Python kernel's IR:
  // its locations point into the Python file, rendered beside its lines).
  lang::Language language = lang::Language::TritonC;
};

struct Resources {
  std::string from;  // "ptxas -v" or "estimate (no ptxas)"
  int64_t registers = -1;  // per thread (-1: unknown)
  int64_t spillStores = 0, spillLoads = 0, stackFrame = 0;  // bytes per thread
  int64_t sharedBytes = 0;  // per program
  int threads = 0;
  int programsPerSm = 0;    // resident programs per multiprocessor
  std::string limitedBy;    // registers, shared memory, threads
  double occupancy = 0;     // resident warps / the multiprocessor's maximum
  int askedPrograms = 1;    // .minnctapersm (0: none, ptxas's own choice), and why (gpu/occupancy.h)
  std::string askedWhy;
};

struct CompileReport {
  std::string config;  // "TM=128 TN=256 TK=64 num_warps=8 num_stages=3 target=sm_90a"
  gpu::KernelFacts facts;
  Resources resources;
  std::vector<std::string> warnings;  // the facts' and the resources'
  std::string ptx;
};

// Compiles `source` as a launch with `o` would (specialized, optimized, GPU
// passes, PTX) and reports. Throws UserError for a bad program.
CompileReport compileReport(const std::string& source, const ReportOptions& o);

// The source with each line's facts in the margin, then the kernel's figures
// and the warnings. Lines outside [firstLine, lastLine] (1-based; 0: no
// bound) are left out: a Python file holds other functions than the kernel;
// those of them that hold facts (the lines of the @jit functions the kernel
// calls, inlined) follow the kernel's, each under its function's def line.
std::string renderReport(const CompileReport& r, const std::string& source, size_t firstLine = 0,
                         size_t lastLine = 0);
std::string reportJson(const CompileReport& r);

}  // namespace tritonc::runtime
