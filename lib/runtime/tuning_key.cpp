#include "runtime/tuning_key.h"

#include <algorithm>

#include "runtime/specialize.h"
#include "support/diagnostic.h"

namespace tritonc::runtime {

namespace {
bool inKey(const Param& p, const std::vector<std::string>& names) {
  if (names.empty()) return !p.type.isPtr() && p.type.isInt();
  return std::find(names.begin(), names.end(), p.name) != names.end();
}
}  // namespace

std::vector<bool> keyedParameters(const std::vector<Param>& params, const std::vector<std::string>& names,
                                  size_t spaceSize) {
  std::vector<bool> out;
  for (const Param& p : params) out.push_back(spaceSize > 1 && inKey(p, names));
  return out;
}

std::string tuningKeyOf(const std::vector<Param>& params, const std::vector<std::string>& names,
                        const std::vector<ir::Scalar>& paramKinds, const std::vector<interp::KernelArg>& args) {
  std::string key;
  for (size_t k = 0; k < params.size() && k < args.size(); ++k) {
    const Param& p = params[k];
    if (!inKey(p, names)) continue;
    const interp::KernelArg& a = args[k];
    std::string v = a.kind == interp::KernelArg::Kind::Float ? std::to_string(a.f) : std::to_string(a.i);
    if (a.kind == interp::KernelArg::Kind::Buffer || a.kind == interp::KernelArg::Kind::HostPtr)
      v = "buffer:" + std::to_string(a.bufferBytes());
    key += (key.empty() ? "" : ",") + p.name + "=" + v;
  }
  // Alignment changes the code, so it is part of the key too.
  return key + " [" + specializationKey(factsOf(args, paramKinds)) + "]";
}

void checkTuningKeyNames(const std::vector<Param>& params, const std::vector<std::string>& names,
                         const std::string& kernel) {
  for (const std::string& k : names)
    if (std::none_of(params.begin(), params.end(), [&](const Param& p) { return p.name == k; }))
      throw UserError(SourceLoc{}, "tuning key '" + k + "' is not a parameter of kernel '" + kernel + "'");
}

}  // namespace tritonc::runtime
