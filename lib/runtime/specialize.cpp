#include "runtime/specialize.h"

#include <numeric>

#include "transform/pass_manager.h"

namespace tritonc::runtime {

namespace {
constexpr int64_t kAlign = 16;
bool alignedPtr(const ArgFacts& a) { return a.isPointer && a.address % kAlign == 0; }
char keyLetter(const ArgFacts& a) {
  if (a.isPointer) return alignedPtr(a) ? 'A' : 'P';
  if (!a.isInt) return 'F';
  if (a.value < 0) return 'M';  // negative: no facts
  if (a.value == 1) return '1';
  switch (intDivisor(a.value)) {
    case 16: return 'D';
    case 8: return '8';
    case 4: return '4';
    case 2: return '2';
    default: return 'N';
  }
}
}  // namespace

int64_t intFact(int64_t v) { return v < 0 ? 0 : v == 1 ? -1 : intDivisor(v); }

int64_t intDivisor(int64_t v) {
  for (int64_t d = kAlign; d > 1; d /= 2)
    if (v % d == 0) return d;
  return 1;
}

std::string specializationKey(const ir::Function& fn, const std::vector<ArgFacts>& args) {
  std::string key;
  for (size_t k = 0; k < args.size() && k < fn.arguments().size(); ++k) {
    const ArgFacts& a = args[k];
    key += keyLetter(a);
  }
  return key;
}

std::string specializationKey(const std::vector<ArgFacts>& args) {
  std::string key;
  for (const ArgFacts& a : args) key += keyLetter(a);
  return key;
}

std::vector<ArgFacts> factsOf(const std::vector<interp::KernelArg>& args, const std::vector<ir::Scalar>& paramKinds) {
  std::vector<ArgFacts> out;
  for (size_t k = 0; k < args.size(); ++k) {
    const interp::KernelArg& a = args[k];
    ArgFacts f;
    f.isPointer = a.kind == interp::KernelArg::Kind::Buffer || a.kind == interp::KernelArg::Kind::DevicePtr;
    f.isInt = a.kind == interp::KernelArg::Kind::Int;
    f.value = f.isInt ? asParameter(a.i, paramKinds, k) : a.i;
    // Host buffers start where the allocator put them: at least 16-byte aligned.
    f.address = a.kind == interp::KernelArg::Kind::DevicePtr ? uint64_t(a.i) : 0;
    out.push_back(f);
  }
  return out;
}

std::vector<ArgFacts> factsOfNamedIntegers(const ir::Function& fn,
                                           const std::vector<std::pair<std::string, int64_t>>& ints) {
  std::vector<ArgFacts> facts(fn.arguments().size());
  for (size_t k = 0; k < facts.size(); ++k) {
    facts[k].isPointer = fn.argument(k)->type().isPtr();
    facts[k].address = 0;  // 16-byte aligned
  }
  for (const auto& [name, v] : ints) {
    size_t k = 0;
    while (k < facts.size() && fn.argument(k)->name() != name) ++k;
    if (k == facts.size() || !fn.argument(k)->type().isInt() || fn.argument(k)->type().isPtr())
      throw UserError(SourceLoc{}, "kernel '" + fn.name() + "' has no integer parameter '" + name + "'");
    facts[k].isInt = true;
    facts[k].value = ir::wrapInt(fn.argument(k)->type().kind, v);
  }
  return facts;
}

std::vector<ir::Scalar> parameterKinds(const ir::Function& fn) {
  std::vector<ir::Scalar> out;
  for (auto& a : fn.arguments()) out.push_back(!a->type().isPtr() && a->type().isInt() ? a->type().kind : ir::Scalar::F32);
  return out;
}

int64_t asParameter(int64_t v, const std::vector<ir::Scalar>& paramKinds, size_t index) {
  if (index >= paramKinds.size() || !ir::isIntKind(paramKinds[index])) return v;
  return ir::wrapInt(paramKinds[index], v);
}

void applySpecialization(ir::Function& fn, const std::vector<ArgFacts>& args) {
  for (size_t k = 0; k < args.size() && k < fn.arguments().size(); ++k) {
    ir::Argument* p = fn.argument(k);
    const ArgFacts& a = args[k];
    if (p->type().isPtr() && alignedPtr(a) && p->attrs.aligned < kAlign) p->attrs.aligned = kAlign;
    int64_t d = a.isInt && a.value >= 0 ? intDivisor(a.value) : 1;  // (negatives: key M, no facts)
    if (a.isInt && a.value >= 0 && p->type().isInt()) p->attrs.nonNegative = true;
    // An integer equal to 1 (a unit stride, one channel) becomes the
    // constant in the kernel, as Triton does: products by it fold away and
    // the address arithmetic shows its runs.
    if (a.isInt && a.value == 1 && p->type().isInt() && !p->attrs.one) {
      p->attrs.one = true;
      p->replaceAllUsesWith(fn.parent()->constInt(p->type().kind, 1));
    }
    // (An integer without the attribute has multipleOf 0, which 0 % d would call divisible.)
    if (!p->type().isPtr() && p->type().isInt() && d > 1 && (p->attrs.multipleOf == 0 || p->attrs.multipleOf % d != 0))
      p->attrs.multipleOf = p->attrs.multipleOf > 0 ? std::lcm(p->attrs.multipleOf, d) : d;
  }
}

void specializeAndOptimize(ir::Module& m, ir::Function& fn, const std::vector<ArgFacts>& args, int numStages,
                           bool forGpu) {
  applySpecialization(fn, args);
  transform::PipelineOptions po;
  po.numStages = numStages;
  po.asyncCopies = forGpu;
  transform::runPasses(m, transform::defaultPipeline(), po);
}

}  // namespace tritonc::runtime
