// A kernel's PTX may ask ptxas for more programs per multiprocessor than
// its registers allow (gpu/occupancy.h: kernels without dots ask for as
// many as fit, on an estimate that can miss): it then names a fallback,
// `// tritonc: occupancy_fallback N` in its entry, and whoever assembles it
// (the launch, through the driver; the compile report and the tests,
// through ptxas) uses the PTX asking for N programs instead where the
// first one spills. With the occupancy probe (gpu/occupancy.h; the default),
// `// tritonc: occupancy_halfway N` names a count tried before the fallback
// where the first spills, kept where it does not spill, and
// `// tritonc: occupancy_natural` asks for the PTX without `.minnctapersm`
// to be tried as well, kept where it does not spill and its registers
// leave room for more programs than the one chosen.
#pragma once
#include <string>

namespace tritonc::nvptx {

// `ptx` with its kernel `kernel`'s `.minnctapersm` set to the fallback it
// names, or "" when it names none.
std::string withFallbackOccupancy(const std::string& ptx, const std::string& kernel);

// `ptx` without its kernel's `.minnctapersm` where the kernel names
// `occupancy_natural`, else "".
std::string withoutOccupancyDirective(const std::string& ptx, const std::string& kernel);

// The programs of `threads` threads whose `registers` per thread fit a
// multiprocessor's 64K registers (handed out per warp in units of 256), at
// most 32 and 2048 threads' worth.
int programsByRegisters(int registers, int threads);

// The threads per program of `kernel` (its `.maxntid`), or 0.
int threadsOf(const std::string& ptx, const std::string& kernel);

// `ptx` with its kernel's `.minnctapersm` set to the `occupancy_halfway`
// count it names, or "" when it names none.
std::string withHalfwayOccupancy(const std::string& ptx, const std::string& kernel);

}  // namespace tritonc::nvptx
