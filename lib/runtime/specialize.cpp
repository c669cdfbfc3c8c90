#include "runtime/specialize.h"

namespace tritonc::runtime {

namespace {
constexpr int64_t kAlign = 16;
bool alignedPtr(const ArgFacts& a) { return a.isPointer && a.address % kAlign == 0; }
bool divisibleInt(const ArgFacts& a) { return a.isInt && a.value % kAlign == 0; }
}  // namespace

std::string specializationKey(const ir::Function& fn, const std::vector<ArgFacts>& args) {
  std::string key;
  for (size_t k = 0; k < args.size() && k < fn.arguments().size(); ++k) {
    const ArgFacts& a = args[k];
    key += a.isPointer ? (alignedPtr(a) ? "A" : "P") : a.isInt ? (divisibleInt(a) ? "D" : "N") : "F";
  }
  return key;
}

std::string specializationKey(const std::vector<ArgFacts>& args) {
  std::string key;
  for (const ArgFacts& a : args) key += a.isPointer ? (alignedPtr(a) ? "A" : "P") : a.isInt ? (divisibleInt(a) ? "D" : "N") : "F";
  return key;
}

std::vector<ArgFacts> factsOf(const std::vector<interp::KernelArg>& args) {
  std::vector<ArgFacts> out;
  for (const interp::KernelArg& a : args) {
    ArgFacts f;
    f.isPointer = a.kind == interp::KernelArg::Kind::Buffer || a.kind == interp::KernelArg::Kind::DevicePtr;
    f.isInt = a.kind == interp::KernelArg::Kind::Int;
    f.value = a.i;
    // Host buffers start where the allocator put them: at least 16-byte aligned.
    f.address = a.kind == interp::KernelArg::Kind::DevicePtr ? uint64_t(a.i) : 0;
    out.push_back(f);
  }
  return out;
}

void applySpecialization(ir::Function& fn, const std::vector<ArgFacts>& args) {
  for (size_t k = 0; k < args.size() && k < fn.arguments().size(); ++k) {
    ir::Argument* p = fn.argument(k);
    const ArgFacts& a = args[k];
    if (p->type().isPtr() && alignedPtr(a) && p->attrs.aligned < kAlign) p->attrs.aligned = kAlign;
    if (!p->type().isPtr() && p->type().isInt() && divisibleInt(a) && p->attrs.multipleOf % kAlign != 0)
      p->attrs.multipleOf = p->attrs.multipleOf > 0 ? std::max(p->attrs.multipleOf, kAlign) : kAlign;
  }
}

}  // namespace tritonc::runtime
