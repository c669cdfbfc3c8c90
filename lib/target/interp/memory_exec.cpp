// Pointer arithmetic and memory instructions: gep, load, store, atomics.
// Lanes run in row-major order; a lane whose mask is 0 touches no memory.
// Every active lane's address is checked (AddressSpace::resolve) before the
// host bytes are read or written.
#include <algorithm>
#include <cstring>

#include "target/interp/executor.h"

namespace tritonc::interp::detail {

namespace {

Elem zeroOf(ir::Scalar k) { return ir::isFloatKind(k) ? floatElem(0.0) : intElem(0); }

// The optional mask operand at `index`: lanes are active when absent.
struct Mask {
  const Elem* data = nullptr;
  size_t stride = 0;
  bool active(size_t j) const { return !data || data[j * stride].i != 0; }
};

double atomicFloat(ir::AtomicKind kind, double old, double v) {
  switch (kind) {
    case ir::AtomicKind::Add: return old + v;  // rounded to the pointee by encodeElem
    case ir::AtomicKind::Xchg: return v;
    default: throw InternalError("atomic and/or on floats");
  }
}

// Float atomic max/min on the memory format's bits (docs/IR.md, as Triton
// and the GPU compute them): a value whose sign bit is clear takes the
// signed max (min) of the two bit patterns, one whose sign bit is set the
// unsigned min (max).
uint64_t floatMinMaxBits(int bytes, bool isMax, uint64_t mem, uint64_t val) {
  const int bits = 8 * bytes;
  const uint64_t all = bits == 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
  mem &= all;
  val &= all;
  const bool negative = (val >> (bits - 1)) & 1;
  if (negative) return isMax ? std::min(mem, val) : std::max(mem, val);
  auto signedOf = [&](uint64_t x) { return bits == 64 ? int64_t(x) : int64_t(x << (64 - bits)) >> (64 - bits); };
  const bool memWins = isMax ? signedOf(mem) > signedOf(val) : signedOf(mem) < signedOf(val);
  return memWins ? mem : val;
}

int64_t atomicInt(ir::Scalar k, ir::AtomicKind kind, int64_t old, int64_t v) {
  switch (kind) {
    case ir::AtomicKind::Add: return wrapAdd(k, old, v);
    case ir::AtomicKind::Xchg: return v;
    case ir::AtomicKind::Max: return old > v ? old : v;
    case ir::AtomicKind::Min: return old < v ? old : v;
    case ir::AtomicKind::And: return old & v;
    case ir::AtomicKind::Or: return old | v;
    case ir::AtomicKind::UMax: return unsignedMax(k, old, v);
    case ir::AtomicKind::UMin: return unsignedMin(k, old, v);
    case ir::AtomicKind::Xor: return old ^ v;
  }
  return v;
}

}  // namespace

uint8_t* Executor::access(const Step& s, uint64_t addr, ir::Scalar kind, bool forWrite, int64_t flat) const {
  const int size = ir::byteSize(kind);
  if (uint8_t* host = memory_.resolve(addr, size, forWrite)) return host;
  const AddressSpace::Diagnosis d = memory_.diagnose(addr, size, kind, forWrite);
  const std::string op = ir::opcodeName(s.inst->opcode());
  std::string what;
  switch (d.fault) {
    case AddressSpace::Fault::OutOfBounds: what = "out-of-bounds " + op; break;
    case AddressSpace::Fault::Misaligned: what = "misaligned " + op; break;
    case AddressSpace::Fault::NoBuffer: what = op + " through a wild pointer"; break;
    case AddressSpace::Fault::ReadOnly: what = op + " into a read-only buffer"; break;
    case AddressSpace::Fault::None: throw InternalError("access refused without a reason");
  }
  fail(s.inst, what + " in " + kernelText() + ": " + programText() +
                   elementText(inType(s, 0).shape, flat) + ", " + d.detail);
}

// Addresses are computed in wrapping 64-bit arithmetic; a result outside
// every buffer is only an error when it is accessed.
void Executor::execGep(const Step& s) {
  const uint64_t size = uint64_t(ir::byteSize(s.inst->type().pointee));
  const Elem* p = in(s, 0).data();
  const Elem* off = in(s, 1).data();
  const size_t sp = strideOf(s, 0), so = strideOf(s, 1);
  Elem* r = out(s).data();
  const size_t n = out(s).size();
  for (size_t j = 0; j < n; ++j)
    r[j].i = int64_t(uint64_t(p[j * sp].i) + uint64_t(off[j * so].i) * size);
}

void Executor::execLoad(const Step& s) {
  const ir::Scalar kind = inType(s, 0).pointee;
  const Elem* p = in(s, 0).data();
  Mask mask;
  if (s.operands.size() >= 2) mask = Mask{in(s, 1).data(), strideOf(s, 1)};
  const Elem* other = s.operands.size() >= 3 ? in(s, 2).data() : nullptr;
  const size_t so = s.operands.size() >= 3 ? strideOf(s, 2) : 0;
  const Elem zero = zeroOf(kind);
  const int size = ir::byteSize(kind);
  Elem* r = out(s).data();
  const size_t n = out(s).size();
  for (size_t j = 0; j < n; ++j) {
    if (!mask.active(j)) {
      r[j] = other ? other[j * so] : zero;
      continue;
    }
    const uint64_t addr = uint64_t(p[j].i);
    const uint8_t* host = memory_.resolve(addr, size, false);
    if (!host) host = access(s, addr, kind, false, int64_t(j));
    r[j] = decodeElem(kind, host);
  }
}

void Executor::execStore(const Step& s) {
  const ir::Scalar kind = inType(s, 0).pointee;
  const Tile& ptrs = in(s, 0);
  const Elem* v = in(s, 1).data();
  const size_t sv = strideOf(s, 1);
  Mask mask;
  if (s.operands.size() >= 3) mask = Mask{in(s, 2).data(), strideOf(s, 2)};
  const int size = ir::byteSize(kind);
  for (size_t j = 0; j < ptrs.size(); ++j) {
    if (!mask.active(j)) continue;
    const uint64_t addr = uint64_t(ptrs[j].i);
    uint8_t* host = memory_.resolve(addr, size, true);
    if (!host) host = access(s, addr, kind, true, int64_t(j));
    encodeElem(kind, v[j * sv], host);
  }
}

// Programs run one at a time and lanes in order, so read-modify-write is
// atomic by construction; lanes hitting the same address see each other.
void Executor::execAtomicRmw(const Step& s) {
  const ir::Scalar kind = inType(s, 0).pointee;
  const auto op = ir::AtomicKind(s.inst->sub);
  const Tile& ptrs = in(s, 0);
  const Elem* v = in(s, 1).data();
  const size_t sv = strideOf(s, 1);
  Mask mask;
  if (s.operands.size() >= 3) mask = Mask{in(s, 2).data(), strideOf(s, 2)};
  const bool isFloat = ir::isFloatKind(kind);
  Elem* r = out(s).data();
  for (size_t j = 0; j < ptrs.size(); ++j) {
    if (!mask.active(j)) {
      r[j] = zeroOf(kind);
      continue;
    }
    uint8_t* host = access(s, uint64_t(ptrs[j].i), kind, true, int64_t(j));
    const Elem old = decodeElem(kind, host);
    const Elem x = v[j * sv];
    if (isFloat && (op == ir::AtomicKind::Max || op == ir::AtomicKind::Min)) {
      uint8_t valueBytes[8];
      encodeElem(kind, x, valueBytes);
      uint64_t mem = 0, val = 0;  // (little-endian, as the host)
      std::memcpy(&mem, host, size_t(ir::byteSize(kind)));
      std::memcpy(&val, valueBytes, size_t(ir::byteSize(kind)));
      const uint64_t result = floatMinMaxBits(ir::byteSize(kind), op == ir::AtomicKind::Max, mem, val);
      std::memcpy(host, &result, size_t(ir::byteSize(kind)));
      r[j] = old;
      continue;
    }
    const Elem updated = isFloat ? floatElem(atomicFloat(op, old.f, x.f)) : intElem(atomicInt(kind, op, old.i, x.i));
    encodeElem(kind, updated, host);
    r[j] = old;
  }
}

// Compares memory formats bit for bit (as hardware CAS does): -0.0 differs
// from +0.0 and a NaN matches the same NaN.
void Executor::execAtomicCas(const Step& s) {
  const ir::Scalar kind = inType(s, 0).pointee;
  const int size = ir::byteSize(kind);
  const Tile& ptrs = in(s, 0);
  const Elem* cmp = in(s, 1).data();
  const Elem* v = in(s, 2).data();
  const size_t sc = strideOf(s, 1), sv = strideOf(s, 2);
  Mask mask;
  if (s.operands.size() >= 4) mask = Mask{in(s, 3).data(), strideOf(s, 3)};
  Elem* r = out(s).data();
  for (size_t j = 0; j < ptrs.size(); ++j) {
    if (!mask.active(j)) {
      r[j] = zeroOf(kind);
      continue;
    }
    uint8_t* host = access(s, uint64_t(ptrs[j].i), kind, true, int64_t(j));
    r[j] = decodeElem(kind, host);
    uint8_t expected[8];
    encodeElem(kind, cmp[j * sc], expected);
    if (std::memcmp(expected, host, size_t(size)) == 0) encodeElem(kind, v[j * sv], host);
  }
}

}  // namespace tritonc::interp::detail
