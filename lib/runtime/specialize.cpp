#include "runtime/specialize.h"

#include <numeric>

#include "support/diagnostic.h"

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
    f.isPointer = a.isPointer();
    f.isInt = a.kind == interp::KernelArg::Kind::Int;
    f.value = f.isInt ? asParameter(a.i, paramKinds, k) : a.i;
    // Host buffers start where the allocator put them, at least 16-byte
    // aligned: their pointers are as aligned as their offsets.
    f.address = a.kind == interp::KernelArg::Kind::DevicePtr || a.kind == interp::KernelArg::Kind::HostPtr
                    ? uint64_t(a.i)
                : a.kind == interp::KernelArg::Kind::Buffer  ? a.offset
                                                             : 0;
    out.push_back(f);
  }
  return out;
}

namespace {
std::vector<Param> paramsOf(const ir::Function& fn) {
  std::vector<Param> out;
  for (auto& a : fn.arguments()) out.push_back({a->name(), a->type()});
  return out;
}
}  // namespace

std::vector<ArgFacts> factsOfNamedIntegers(const ir::Function& fn,
                                           const std::vector<std::pair<std::string, int64_t>>& ints) {
  return factsOfNamedIntegers(fn.name(), paramsOf(fn), ints);
}

std::vector<ArgFacts> factsOfNamedIntegers(const std::string& kernel, const std::vector<Param>& params,
                                           const std::vector<std::pair<std::string, int64_t>>& ints) {
  std::vector<ArgFacts> facts(params.size());
  for (size_t k = 0; k < facts.size(); ++k) {
    facts[k].isPointer = params[k].type.isPtr();
    facts[k].address = 0;  // 16-byte aligned
  }
  for (const auto& [name, v] : ints) {
    size_t k = 0;
    while (k < facts.size() && params[k].name != name) ++k;
    if (k == facts.size() || !params[k].type.isInt() || params[k].type.isPtr())
      throw UserError(SourceLoc{}, "kernel '" + kernel + "' has no integer parameter '" + name + "'");
    facts[k].isInt = true;
    facts[k].value = ir::wrapInt(params[k].type.kind, v);
  }
  return facts;
}

std::vector<ArgFacts> genericFacts(const std::vector<Param>& params) {
  std::vector<ArgFacts> facts(params.size());
  for (size_t k = 0; k < facts.size(); ++k) {
    facts[k].isPointer = params[k].type.isPtr();
    facts[k].address = 1;  // not known to be aligned
  }
  return facts;
}

std::vector<ir::Scalar> parameterKinds(const std::vector<Param>& params) {
  std::vector<ir::Scalar> out;
  for (const Param& p : params) out.push_back(!p.type.isPtr() && p.type.isInt() ? p.type.kind : ir::Scalar::F32);
  return out;
}

std::vector<ir::Scalar> parameterKinds(const ir::Function& fn) { return parameterKinds(paramsOf(fn)); }

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

namespace {
// The divisor a key letter promises (0: not even non-negative), -1 for '1'.
int promisedDivisor(char c) {
  switch (c) {
    case 'D': return 16;
    case '8': return 8;
    case '4': return 4;
    case '2': return 2;
    case 'N': return 1;
    case '1': return -1;
    default: return 0;
  }
}
}  // namespace

bool keySatisfies(const std::string& launch, const std::string& assumed) {
  if (launch.size() != assumed.size()) return false;
  for (size_t k = 0; k < assumed.size(); ++k) {
    const char a = assumed[k], l = launch[k];
    if (a == 'A' && l != 'A') return false;
    const int need = promisedDivisor(a), have = promisedDivisor(l);
    if (need == -1 && l != '1') return false;
    // (1 is non-negative and odd: it satisfies N only.)
    if (need > 0 && (have == 0 || (have == -1 ? need > 1 : have < need))) return false;
  }
  return true;
}

int keyStrength(const std::string& key) {
  int s = 0;
  for (char c : key) s += c == 'A' ? 1 : c == '1' ? 10 : promisedDivisor(c) > 0 ? 1 + promisedDivisor(c) / 2 : 0;
  return s;
}

}  // namespace tritonc::runtime
