#include "runtime/launch_memo.h"

#include <cstring>

#include "runtime/specialize.h"

namespace tritonc::runtime {

void LaunchMemo::shapeOf(const std::vector<interp::KernelArg>& args, const std::vector<bool>& keyed,
                         const std::vector<ir::Scalar>& paramKinds, Shape& out) {
  using Kind = interp::KernelArg::Kind;
  out.clear();
  for (size_t k = 0; k < args.size(); ++k) {
    const interp::KernelArg& a = args[k];
    bool key = k < keyed.size() && keyed[k];
    int64_t v = 0;
    switch (a.kind) {
      case Kind::Int: v = key ? a.i : intFact(asParameter(a.i, paramKinds, k)); break;
      case Kind::Float:
        if (key) std::memcpy(&v, &a.f, sizeof v);
        break;
      case Kind::DevicePtr: v = key ? a.i : int64_t(uint64_t(a.i) % 16 == 0); break;
      case Kind::HostPtr: v = (key ? int64_t(a.bytes) : 0) * 2 + int64_t(uint64_t(a.i) % 16 == 0); break;
      case Kind::Buffer:  // (its size from the pointer on, when keyed) and its alignment
        v = (key ? int64_t(a.bufferBytes()) : 0) * 2 + int64_t(a.offset % 16 == 0);
        break;
    }
    out.push_back(int64_t(a.kind));
    out.push_back(v);
  }
}

}  // namespace tritonc::runtime
