// A kernel's PTX may ask ptxas for more programs per multiprocessor than
// its registers allow (gpu/occupancy.h: kernels without dots ask for as
// many as fit, on an estimate that can miss): it then names a fallback,
// `// tritonc: occupancy_fallback N` in its entry, and whoever assembles it
// (the launch, through the driver; the compile report and the tests,
// through ptxas) uses the PTX asking for N programs instead where the
// first one spills.
#pragma once
#include <string>

namespace tritonc::nvptx {

// `ptx` with its kernel `kernel`'s `.minnctapersm` set to the fallback it
// names, or "" when it names none.
std::string withFallbackOccupancy(const std::string& ptx, const std::string& kernel);

}  // namespace tritonc::nvptx
