// A kernel's PTX may ask ptxas for more programs per multiprocessor than
// its registers allow (gpu/occupancy.h: kernels without dots ask for as
// many as fit, on an estimate that can miss): it then names a fallback,
// `// tritonc: occupancy_fallback N` in its entry, and whoever assembles it
// (the launch, through the driver; the compile report and the tests,
// through ptxas) uses the PTX asking for N programs instead where the
// first one spills. Likewise `// tritonc: occupancy_more N`
// (TRITONC_OCCUPANCY_PROBE=1): the PTX asking for N programs is tried as
// well where the first one does not spill, and kept where it does not;
// `// tritonc: occupancy_halfway N`, where the first spills, before the
// fallback, kept where it does not spill.
#pragma once
#include <string>

namespace tritonc::nvptx {

// `ptx` with its kernel `kernel`'s `.minnctapersm` set to the fallback it
// names, or "" when it names none.
std::string withFallbackOccupancy(const std::string& ptx, const std::string& kernel);

// `ptx` with its kernel's `.minnctapersm` set to the `occupancy_more`
// count it names, or "" when it names none.
std::string withMoreOccupancy(const std::string& ptx, const std::string& kernel);

// `ptx` with its kernel's `.minnctapersm` set to the `occupancy_halfway`
// count it names, or "" when it names none.
std::string withHalfwayOccupancy(const std::string& ptx, const std::string& kernel);

}  // namespace tritonc::nvptx
