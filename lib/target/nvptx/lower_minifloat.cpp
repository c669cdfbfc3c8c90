// Conversions between fp8 (e4m3, e5m2) and the other floats. An fp8 value
// lives in the low byte of a 32-bit register (the bits above it are not
// read); PTX converts pairs (cvt ...e4m3x2 / ...f16x2.e4m3x2, sm_89 and
// later), of which we use the low half. Reading fp8 goes through f16, which
// holds every fp8 value exactly; writing rounds once from f32 or f16, to
// nearest even and saturating to the largest finite value (.satfinite), as
// the interpreter's support/float8.cpp does. bf16 goes through f32 (exact),
// f64 through f32 rounded to odd (so that the one rounding to fp8 is as
// from the f64).
#include <string>

#include "support/diagnostic.h"
#include "target/nvptx/lowering.h"

namespace tritonc::nvptx {

using ir::Scalar;

namespace {

const char* pairName(Scalar k) { return k == Scalar::F8E4M3 ? "e4m3x2" : "e5m2x2"; }

}  // namespace

std::string FunctionLowering::castFp8(Scalar from, Scalar to, const std::string& a) {
  if (opts_.smVersion() < 89)
    throw UserError(SourceLoc{}, std::string("converting ") + ir::scalarName(from) + " to " + ir::scalarName(to) +
                                     " needs sm_89 or later (fp8 conversions), not " + opts_.arch);
  auto fromF16 = [&](const std::string& h) {
    std::string w = newReg(RegClass::B32), p = newReg(RegClass::B16), r = newReg(RegClass::B32);
    emit("mov.b32 " + w + ", {" + h + ", " + h + "};");
    emit(std::string("cvt.rn.satfinite.") + pairName(to) + ".f16x2 " + p + ", " + w + ";");
    emit("cvt.u32.u16 " + r + ", " + p + ";");
    return r;
  };
  if (ir::isFp8Kind(from)) {
    std::string p = newReg(RegClass::B16), w = newReg(RegClass::B32);
    std::string lo = newReg(RegClass::B16), hi = newReg(RegClass::B16);
    emit("cvt.u16.u32 " + p + ", " + a + ";");
    emit(std::string("cvt.rn.f16x2.") + pairName(from) + " " + w + ", " + p + ";");
    emit("mov.b32 {" + lo + ", " + hi + "}, " + w + ";");
    if (to == Scalar::F16) return lo;
    if (ir::isFp8Kind(to)) return fromF16(lo);
    std::string f = toF32(Scalar::F16, lo);
    if (to == Scalar::F32) return f;
    if (to == Scalar::BF16) return fromF32(Scalar::BF16, f);  // exact: bf16 holds every fp8 value
    std::string d = newReg(RegClass::F64);
    emit("cvt.f64.f32 " + d + ", " + f + ";");
    return d;
  }
  if (from == Scalar::F16) return fromF16(a);
  std::string f = a;
  if (from == Scalar::BF16) f = toF32(Scalar::BF16, a);
  if (from == Scalar::F64) {
    // Rounded to odd into f32 (toward zero, the last bit set when inexact):
    // rounding that to fp8 equals rounding the f64 once.
    std::string t = newReg(RegClass::F32), back = newReg(RegClass::F64), inexact = newReg(RegClass::Pred);
    std::string bits = newReg(RegClass::B32), odd = newReg(RegClass::B32);
    f = newReg(RegClass::F32);
    emit("cvt.rz.f32.f64 " + t + ", " + a + ";");
    emit("cvt.f64.f32 " + back + ", " + t + ";");
    emit("setp.neu.f64 " + inexact + ", " + back + ", " + a + ";");
    emit("mov.b32 " + bits + ", " + t + ";");
    emit("or.b32 " + odd + ", " + bits + ", 1;");
    emit("selp.b32 " + bits + ", " + odd + ", " + bits + ", " + inexact + ";");
    emit("mov.b32 " + f + ", " + bits + ";");
  }
  std::string p = newReg(RegClass::B16), r = newReg(RegClass::B32);
  emit(std::string("cvt.rn.satfinite.") + pairName(to) + ".f32 " + p + ", " + f + ", " + f + ";");
  emit("cvt.u32.u16 " + r + ", " + p + ";");
  return r;
}

}  // namespace tritonc::nvptx
