// The tuning key: which launches share a tuning result. By default the
// values of the integer arguments (a kernel's sizes), or of the arguments
// named by the caller, plus the launch's specialization facts (alignment
// changes the code). Shared by runtime::Kernel and runtime::LoadedKernel.
#pragma once
#include <string>
#include <vector>

#include "ir/type.h"
#include "runtime/config.h"
#include "target/interp/interpreter.h"

namespace tritonc::runtime {

// Per parameter: is it part of the key? `names` empty: the integer
// parameters. A space of one configuration keys nothing (nothing to tune).
std::vector<bool> keyedParameters(const std::vector<Param>& params, const std::vector<std::string>& names,
                                  size_t spaceSize);
// "M=512,N=512,K=128 [AAAD8...]": the keyed arguments' values and the
// specialization key. `paramKinds` wraps integers as the kernel sees them.
std::string tuningKeyOf(const std::vector<Param>& params, const std::vector<std::string>& names,
                        const std::vector<ir::Scalar>& paramKinds, const std::vector<interp::KernelArg>& args);
// Throws UserError when a name is not a parameter of kernel `kernel`.
void checkTuningKeyNames(const std::vector<Param>& params, const std::vector<std::string>& names,
                         const std::string& kernel);

}  // namespace tritonc::runtime
