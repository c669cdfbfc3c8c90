// Semantics of single elements for the reference interpreter: how values are
// held, rounded, converted, and encoded in memory. Everything here is inline
// because it runs inside the per-element loops of the executor.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "ir/ir.h"
#include "support/float16.h"
#include "support/float8.h"

namespace tritonc::interp::detail {

static_assert(std::numeric_limits<float>::is_iec559 && std::numeric_limits<double>::is_iec559,
              "the interpreter relies on IEEE float and double");

// One element of a runtime tile. Integers live in `i` sign-extended to 64 bits
// (i1 as 0 or 1, see ir::wrapInt), pointers in `i` as their 64-bit address,
// floats in `f` as a double holding exactly a value of the element's type.
union Elem {
  int64_t i;
  double f;
};

inline Elem intElem(int64_t v) { Elem e; e.i = v; return e; }
inline Elem floatElem(double v) { Elem e; e.f = v; return e; }

// Rounding of an exact (or double-rounded-safe) result to each float kind.
// f16/bf16/f32 results are computed in double and rounded once: for + - * /
// and sqrt this equals computing in the type itself, since double carries
// more than twice the precision of each (no harmful double rounding).
struct RoundF64 { double operator()(double x) const { return x; } };
struct RoundF32 { double operator()(double x) const { return double(static_cast<float>(x)); } };
struct RoundF16 { double operator()(double x) const { return double(halfToFloat(doubleToHalf(x))); } };
struct RoundBF16 { double operator()(double x) const { return double(bf16ToFloat(doubleToBf16(x))); } };
// fp8 is never computed on (the verifier refuses it): these round casts to it.
struct RoundE4M3 { double operator()(double x) const { return e4m3ToDouble(doubleToE4m3(x)); } };
struct RoundE5M2 {  // (a NaN keeps the bits 0x7f the conversion gives, for a store to write)
  double operator()(double x) const;
};

// Calls `f` with the rounding functor of float kind `k`, so that loops over
// elements are instantiated once per kind instead of switching per element.
template <class F>
void withRounding(ir::Scalar k, F&& f) {
  switch (k) {
    case ir::Scalar::F64: f(RoundF64{}); return;
    case ir::Scalar::F32: f(RoundF32{}); return;
    case ir::Scalar::F16: f(RoundF16{}); return;
    case ir::Scalar::BF16: f(RoundBF16{}); return;
    case ir::Scalar::F8E4M3: f(RoundE4M3{}); return;
    case ir::Scalar::F8E5M2: f(RoundE5M2{}); return;
    default: throw InternalError(std::string("not a float kind: ") + ir::scalarName(k));
  }
}

inline double roundTo(ir::Scalar k, double x) {
  double r = 0;
  withRounding(k, [&](auto round) { r = round(x); });
  return r;
}

// ---- integers: wrapping arithmetic without signed overflow -----------------

inline int64_t wrapAdd(ir::Scalar k, int64_t a, int64_t b) {
  return ir::wrapInt(k, int64_t(uint64_t(a) + uint64_t(b)));
}
inline int64_t wrapSub(ir::Scalar k, int64_t a, int64_t b) {
  return ir::wrapInt(k, int64_t(uint64_t(a) - uint64_t(b)));
}
inline int64_t wrapMul(ir::Scalar k, int64_t a, int64_t b) {
  return ir::wrapInt(k, int64_t(uint64_t(a) * uint64_t(b)));
}
// x / 0 is -1 (every bit set) and x % 0 is x, as RISC-V defines them and
// on every back end (docs/IR.md): a lane masked off with `other=0` divides
// by zero in Triton kernels as users write them. x / -1 is negation, which
// wraps for the minimum.
inline int64_t wrapDiv(ir::Scalar k, int64_t a, int64_t b) {
  return b == 0 ? ir::wrapInt(k, -1) : b == -1 ? wrapSub(k, 0, a) : ir::wrapInt(k, a / b);
}
inline int64_t wrapRem(ir::Scalar k, int64_t a, int64_t b) {
  return b == 0 ? a : b == -1 ? 0 : ir::wrapInt(k, a % b);
}

// ---- integers read as unsigned (udiv ... umin, cmp ult ..., ucast) ----------

// The bits of a value of integer kind `k` as an unsigned number.
inline uint64_t asUnsigned(ir::Scalar k, int64_t v) {
  const int w = ir::bitWidth(k);
  return w >= 64 ? uint64_t(v) : uint64_t(v) & ((uint64_t(1) << w) - 1);
}
// By zero: every bit set, and the dividend (as wrapDiv, wrapRem).
inline int64_t unsignedDiv(ir::Scalar k, int64_t a, int64_t b) {
  if (asUnsigned(k, b) == 0) return ir::wrapInt(k, -1);
  return ir::wrapInt(k, int64_t(asUnsigned(k, a) / asUnsigned(k, b)));
}
inline int64_t unsignedRem(ir::Scalar k, int64_t a, int64_t b) {
  if (asUnsigned(k, b) == 0) return a;
  return ir::wrapInt(k, int64_t(asUnsigned(k, a) % asUnsigned(k, b)));
}
// Shift amounts read unsigned (a negative one is large); of the bit width or
// more, every bit is shifted out: 0, or the sign for shr. So do PTX's shifts
// (they clamp the amount) and numpy's, hence Triton on the GPU and in its
// interpreter.
inline int shiftAmount(ir::Scalar k, int64_t b) {
  const uint64_t width = uint64_t(ir::bitWidth(k));
  return int(std::min(asUnsigned(k, b), width));
}
inline int64_t wrapShl(ir::Scalar k, int64_t a, int64_t b) {
  const int s = shiftAmount(k, b);
  return s >= 64 ? 0 : ir::wrapInt(k, int64_t(uint64_t(a) << s));
}
// Arithmetic right shift, spelled so that it never shifts a negative number.
inline int64_t arithShr(ir::Scalar k, int64_t a, int64_t b) {
  const int s = std::min(shiftAmount(k, b), 63);
  return a < 0 ? ~(~a >> s) : a >> s;
}
inline int64_t logicalShr(ir::Scalar k, int64_t a, int64_t b) {
  const int s = shiftAmount(k, b);
  return s >= 64 ? 0 : ir::wrapInt(k, int64_t(asUnsigned(k, a) >> s));
}
inline int64_t unsignedMax(ir::Scalar k, int64_t a, int64_t b) {
  return asUnsigned(k, a) >= asUnsigned(k, b) ? a : b;
}
inline int64_t unsignedMin(ir::Scalar k, int64_t a, int64_t b) {
  return asUnsigned(k, a) <= asUnsigned(k, b) ? a : b;
}

// ---- floats -----------------------------------------------------------------

// max/min propagate NaN, and order -0 below +0, so results never depend on
// operand order.
inline double floatMax(double a, double b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
inline double floatMin(double a, double b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

// maxnum/minnum: a NaN operand is ignored (both NaN: NaN); -0 < +0.
inline double floatMaxNum(double a, double b) {
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  return floatMax(a, b);
}
inline double floatMinNum(double a, double b) {
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  return floatMin(a, b);
}

// ---- conversions ------------------------------------------------------------

inline int64_t intMinOf(ir::Scalar k) {
  return k == ir::Scalar::I1 ? 0 : -(int64_t(1) << (ir::bitWidth(k) - 2)) * 2;
}
inline int64_t intMaxOf(ir::Scalar k) {
  return k == ir::Scalar::I1 ? 1 : int64_t((uint64_t(1) << (ir::bitWidth(k) - 1)) - 1);
}

// float -> int: truncate toward zero, saturate, NaN -> 0. To i1 it is `!= 0`
// (as from integers); NaN is not 0.
inline int64_t floatToInt(ir::Scalar to, double x) {
  if (to == ir::Scalar::I1) return x != 0 ? 1 : 0;
  if (std::isnan(x)) return 0;
  double t = std::trunc(x);
  if (to == ir::Scalar::I64) {
    // 2^63 is exact in double; INT64_MAX is not.
    if (t >= 9223372036854775808.0) return std::numeric_limits<int64_t>::max();
    if (t <= -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
    return int64_t(t);
  }
  const double lo = double(intMinOf(to)), hi = double(intMaxOf(to));
  if (t <= lo) return intMinOf(to);
  if (t >= hi) return intMaxOf(to);
  return int64_t(t);
}

// float -> unsigned int: truncate toward zero, saturate to [0, 2^n - 1],
// NaN -> 0 (PTX's cvt.rzi.uN and LLVM's fptoui.sat). The result is held as
// the kind's bits, sign-extended like every integer.
inline int64_t floatToUnsigned(ir::Scalar to, double x) {
  if (to == ir::Scalar::I1) return x != 0 ? 1 : 0;
  if (std::isnan(x)) return 0;
  const double t = std::trunc(x);
  if (t <= 0) return 0;
  const double limit = std::ldexp(1.0, ir::bitWidth(to));  // 2^n, exact
  if (t >= limit) return ir::wrapInt(to, -1);                // all ones
  return ir::wrapInt(to, int64_t(uint64_t(t)));
}

// int -> float with one correct rounding. f64 and f32 use the hardware
// conversion; for f16/bf16 a 64-bit integer is first narrowed to 53
// significant bits with a sticky bit (exact enough: the sticky bit lies far
// below their rounding position), then rounded once.
inline double intToFloat(ir::Scalar to, int64_t v) {
  if (to == ir::Scalar::F64) return double(v);
  if (to == ir::Scalar::F32) return double(static_cast<float>(v));
  uint64_t mag = v < 0 ? 0 - uint64_t(v) : uint64_t(v);
  int drop = 0;
  while ((mag >> drop) >= (uint64_t(1) << 53)) ++drop;
  double exact = drop == 0 ? double(mag)
                           : std::ldexp(double((mag >> drop) | ((mag & ((uint64_t(1) << drop) - 1)) ? 1 : 0)), drop);
  return roundTo(to, v < 0 ? -exact : exact);
}

// unsigned int -> float, rounded once as above.
inline double unsignedToFloat(ir::Scalar to, uint64_t mag) {
  if (to == ir::Scalar::F64) return double(mag);
  if (to == ir::Scalar::F32) return double(static_cast<float>(mag));
  int drop = 0;
  while ((mag >> drop) >= (uint64_t(1) << 53)) ++drop;
  double exact = drop == 0 ? double(mag)
                           : std::ldexp(double((mag >> drop) | ((mag & ((uint64_t(1) << drop) - 1)) ? 1 : 0)), drop);
  return roundTo(to, exact);
}

// ---- memory format (little endian; f16/bf16 as bits; i1 as one byte) ------

inline uint64_t readLE(const uint8_t* p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= uint64_t(p[i]) << (8 * i);
  return v;
}
inline void writeLE(uint8_t* p, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) p[i] = uint8_t(v >> (8 * i));
}

// A NaN keeps its bits between memory and the double that holds it (a
// signaling one too: converting a float to a double would quiet it), so
// loads, stores and bitcasts move NaN payloads unchanged, as the GPU and the
// CPU back end do. `fracBits`: the stored fraction bits of the narrow format.
inline bool isNanBits(uint64_t bits, int expBits, int fracBits) {
  const uint64_t expMask = (uint64_t(1) << expBits) - 1;
  return ((bits >> fracBits) & expMask) == expMask && (bits & ((uint64_t(1) << fracBits) - 1)) != 0;
}
inline double nanOfBits(uint64_t bits, int expBits, int fracBits) {
  const uint64_t sign = (bits >> (expBits + fracBits)) & 1;
  const uint64_t frac = bits & ((uint64_t(1) << fracBits) - 1);
  const uint64_t d = (sign << 63) | (uint64_t(0x7ff) << 52) | (frac << (52 - fracBits));
  double r;
  std::memcpy(&r, &d, 8);
  return r;
}
// The narrow format's bits of a NaN double: its payload's top bits, quiet
// where none would be left.
inline uint64_t bitsOfNan(double v, int expBits, int fracBits) {
  uint64_t d;
  std::memcpy(&d, &v, 8);
  uint64_t frac = (d & ((uint64_t(1) << 52) - 1)) >> (52 - fracBits);
  if (frac == 0) frac = uint64_t(1) << (fracBits - 1);
  return ((d >> 63) << (expBits + fracBits)) | (((uint64_t(1) << expBits) - 1) << fracBits) | frac;
}

inline double RoundE5M2::operator()(double x) const {
  const uint8_t b = doubleToE5m2(x);
  return isNanBits(b, 5, 2) ? nanOfBits(b, 5, 2) : e5m2ToDouble(b);
}

inline Elem decodeElem(ir::Scalar k, const uint8_t* p) {
  switch (k) {
    case ir::Scalar::I1: return intElem(p[0] != 0);
    case ir::Scalar::I8: return intElem(int8_t(p[0]));
    case ir::Scalar::I16: return intElem(int16_t(uint16_t(readLE(p, 2))));
    case ir::Scalar::I32: return intElem(int32_t(uint32_t(readLE(p, 4))));
    case ir::Scalar::I64:
    case ir::Scalar::Ptr: return intElem(int64_t(readLE(p, 8)));
    case ir::Scalar::F16: {
      const uint64_t u = readLE(p, 2);
      return floatElem(isNanBits(u, 5, 10) ? nanOfBits(u, 5, 10) : halfToFloat(uint16_t(u)));
    }
    case ir::Scalar::BF16: {
      const uint64_t u = readLE(p, 2);
      return floatElem(isNanBits(u, 8, 7) ? nanOfBits(u, 8, 7) : bf16ToFloat(uint16_t(u)));
    }
    case ir::Scalar::F32: {
      uint32_t u = uint32_t(readLE(p, 4));
      if (isNanBits(u, 8, 23)) return floatElem(nanOfBits(u, 8, 23));
      float f;
      std::memcpy(&f, &u, 4);
      return floatElem(f);
    }
    case ir::Scalar::F64: {
      uint64_t u = readLE(p, 8);
      double d;
      std::memcpy(&d, &u, 8);
      return floatElem(d);
    }
    case ir::Scalar::F8E4M3: return floatElem(e4m3ToDouble(p[0]));
    case ir::Scalar::F8E5M2: return floatElem(isNanBits(p[0], 5, 2) ? nanOfBits(p[0], 5, 2) : e5m2ToDouble(p[0]));
    case ir::Scalar::Void: break;
  }
  throw InternalError("load of void");
}

inline void encodeElem(ir::Scalar k, Elem v, uint8_t* p) {
  switch (k) {
    case ir::Scalar::I1: p[0] = v.i != 0; return;
    case ir::Scalar::I8: p[0] = uint8_t(v.i); return;
    case ir::Scalar::I16: writeLE(p, uint64_t(v.i), 2); return;
    case ir::Scalar::I32: writeLE(p, uint64_t(v.i), 4); return;
    case ir::Scalar::I64:
    case ir::Scalar::Ptr: writeLE(p, uint64_t(v.i), 8); return;
    case ir::Scalar::F16: writeLE(p, std::isnan(v.f) ? bitsOfNan(v.f, 5, 10) : doubleToHalf(v.f), 2); return;
    case ir::Scalar::BF16: writeLE(p, std::isnan(v.f) ? bitsOfNan(v.f, 8, 7) : doubleToBf16(v.f), 2); return;
    case ir::Scalar::F8E4M3: p[0] = doubleToE4m3(v.f); return;
    case ir::Scalar::F8E5M2: p[0] = uint8_t(std::isnan(v.f) ? bitsOfNan(v.f, 5, 2) : doubleToE5m2(v.f)); return;
    case ir::Scalar::F32: {
      if (std::isnan(v.f)) {
        writeLE(p, bitsOfNan(v.f, 8, 23), 4);
        return;
      }
      float f = static_cast<float>(v.f);
      uint32_t u;
      std::memcpy(&u, &f, 4);
      writeLE(p, u, 4);
      return;
    }
    case ir::Scalar::F64: {
      uint64_t u;
      std::memcpy(&u, &v.f, 8);
      writeLE(p, u, 8);
      return;
    }
    case ir::Scalar::Void: break;
  }
  throw InternalError("store of void");
}

// The same bits read as another kind of the same width (bitcast).
inline Elem bitcastElem(ir::Scalar from, ir::Scalar to, Elem v) {
  uint8_t bytes[8] = {};
  encodeElem(from, v, bytes);
  return decodeElem(to, bytes);
}

}  // namespace tritonc::interp::detail
