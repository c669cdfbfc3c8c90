#include "launch_args.h"

#include <cmath>

#include "runtime/scalar_args.h"
#include "support/diagnostic.h"

namespace tritonc::cli {

namespace {

UserError argError(const std::string& msg) { return UserError(SourceLoc{}, msg); }

std::string paramList(const Signature& sig) {
  std::string s;
  for (const runtime::Param& p : sig.params) s += (s.empty() ? "" : ", ") + p.name + ": " + ir::typeToString(p.type);
  return s;
}

std::unique_ptr<interp::Buffer> newBuffer(const std::string& name, const std::string& spec, std::mt19937_64& rng) {
  // zeros:DTYPE:D0xD1 or rand:DTYPE:D0xD1
  size_t c1 = spec.find(':');
  size_t c2 = spec.find(':', c1 + 1);
  if (c2 == std::string::npos)
    throw argError("argument '" + name + "': expected " + spec.substr(0, c1) + ":DTYPE:D0xD1..., got '" + spec + "'");
  std::string kind = spec.substr(0, c1);
  std::string dtype = spec.substr(c1 + 1, c2 - c1 - 1);
  std::string dims = spec.substr(c2 + 1);
  auto k = dtypeFromName(dtype);
  if (!k)
    throw argError("argument '" + name + "': unknown dtype '" + dtype + "' (expected bool i8 i16 i32 i64 f16 bf16 f32 f64)");
  auto buf = std::make_unique<interp::Buffer>();
  buf->name = name;
  buf->elem = *k;
  int64_t n = 1;
  size_t pos = 0;
  while (pos <= dims.size()) {
    size_t x = dims.find('x', pos);
    std::string d = dims.substr(pos, x == std::string::npos ? std::string::npos : x - pos);
    char* end = nullptr;
    long long v = d.empty() ? -1 : std::strtoll(d.c_str(), &end, 10);
    if (d.empty() || *end || v <= 0 || v > (int64_t(1) << 32))
      throw argError("argument '" + name + "': bad dimension '" + d + "' in '" + spec + "'");
    buf->shape.push_back(v);
    n *= v;
    if (n > (int64_t(1) << 31)) throw argError("argument '" + name + "': buffer of " + dims + " elements is too large");
    if (x == std::string::npos) break;
    pos = x + 1;
  }
  buf->data.assign(size_t(n) * size_t(ir::byteSize(*k)), 0);
  if (kind == "rand") {
    std::uniform_real_distribution<double> real(-1.0, 1.0);
    std::uniform_int_distribution<int> small(-100, 99), bit(0, 1);
    for (int64_t i = 0; i < n; ++i) {
      double v = *k == ir::Scalar::I1 ? bit(rng) : ir::isFloatKind(*k) ? real(rng) : small(rng);
      interp::writeElement(*buf, i, v);
    }
  } else if (kind != "zeros") {
    throw argError("argument '" + name + "': unknown buffer kind '" + kind + "' (expected zeros: or rand:)");
  }
  return buf;
}

}  // namespace

std::optional<ir::Scalar> dtypeFromName(const std::string& s) {
  if (s == "bool") return ir::Scalar::I1;
  auto k = ir::scalarFromName(s);
  if (!k || *k == ir::Scalar::Void || *k == ir::Scalar::I1) return std::nullopt;
  return k;
}

Signature signatureOf(const ir::Function& fn) {
  Signature sig{fn.name(), {}, {}};
  for (auto& a : fn.arguments()) {
    sig.params.push_back({a->name(), a->type()});
    sig.constantTables.push_back(a->attrs.constantTable);
  }
  return sig;
}

BoundArgs bindArguments(const ir::Function& fn, const std::vector<std::pair<std::string, std::string>>& specs,
                        std::mt19937_64& rng) {
  return bindArguments(signatureOf(fn), specs, rng);
}

BoundArgs bindArguments(const Signature& sig, const std::vector<std::pair<std::string, std::string>>& specs,
                        std::mt19937_64& rng) {
  BoundArgs out;
  std::map<std::string, std::string> given;
  for (auto& [name, spec] : specs) {
    bool known = false;
    for (const runtime::Param& p : sig.params) known = known || p.name == name;
    if (!known)
      throw argError("unknown argument '" + name + "': kernel '" + sig.kernel + "' has parameters " + paramList(sig));
    if (given.count(name)) throw argError("argument '" + name + "' is given twice");
    given[name] = spec;
  }
  for (size_t k = 0; k < sig.params.size(); ++k) {
    const std::string& name = sig.params[k].name;
    const ir::Type& t = sig.params[k].type;
    const int64_t constantTable = k < sig.constantTables.size() ? sig.constantTables[k] : 0;
    auto it = given.find(name);
    if (it == given.end())
      throw argError("missing argument '" + name + "' (" + ir::typeToString(t) + ") of kernel '" + sig.kernel + "'");
    const std::string& spec = it->second;
    bool isBufferSpec = !spec.empty() && (spec[0] == '@' || spec.rfind("zeros:", 0) == 0 || spec.rfind("rand:", 0) == 0);
    if (t.isPtr()) {
      if (!isBufferSpec)
        throw argError("argument '" + name + "' is a pointer (" + ir::typeToString(t) +
                       "): give a buffer (@file.npy, zeros:DTYPE:DIMS or rand:DTYPE:DIMS), not '" + spec + "'");
      std::unique_ptr<interp::Buffer> buf;
      if (spec[0] == '@') {
        try {
          buf = std::make_unique<interp::Buffer>(interp::loadBufferFromNpy(spec.substr(1), name));
        } catch (const std::runtime_error& e) {
          throw argError("argument '" + name + "': " + e.what());
        }
      } else {
        buf = newBuffer(name, spec, rng);
      }
      if (buf->elem != t.pointee)
        throw argError("argument '" + name + "': kernel expects a buffer of " + ir::scalarName(t.pointee) +
                       ", got " + ir::scalarName(buf->elem));
      if (constantTable && buf->numElements() > constantTable)
        throw argError("argument '" + name + "': the constant table holds " + std::to_string(constantTable) +
                       " elements, got " + std::to_string(buf->numElements()));
      out.byName[name] = buf.get();
      out.args.push_back(interp::KernelArg::ofBuffer(buf.get()));
      out.buffers.push_back(std::move(buf));
      continue;
    }
    if (isBufferSpec)
      throw argError("argument '" + name + "' is a scalar (" + ir::typeToString(t) + "), not a buffer");
    char* end = nullptr;
    if (t.isInt()) {
      errno = 0;
      long long v = std::strtoll(spec.c_str(), &end, 0);
      if (spec.empty() || *end || errno == ERANGE)
        throw argError("argument '" + name + "' is an integer (" + ir::typeToString(t) + "), got '" + spec + "'");
      std::string misfit = runtime::intMisfit(t.kind, v);
      if (!misfit.empty()) throw argError("argument '" + name + "': " + misfit);
      out.args.push_back(interp::KernelArg::ofInt(v));
    } else {
      double v = std::strtod(spec.c_str(), &end);
      if (spec.empty() || *end)
        throw argError("argument '" + name + "' is a float (" + ir::typeToString(t) + "), got '" + spec + "'");
      out.args.push_back(interp::KernelArg::ofFloat(v));
    }
  }
  return out;
}

}  // namespace tritonc::cli
