// The functions compiled kernels may call (see runtime_support.h).
#include "target/cpu/runtime_support.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "ir/debug_output.h"
#include "support/float16.h"
#include "support/float8.h"
#include "target/interp/scalar_ops.h"

// i64 -> bf16 with one rounding (the interpreter's intToFloat); the other
// integer conversions are exact enough inline (element_ops.cpp).
extern "C" uint16_t tritonc_cpu_i64_to_bf16(int64_t v) {
  return tritonc::doubleToBf16(tritonc::interp::detail::intToFloat(tritonc::ir::Scalar::BF16, v));
}
extern "C" uint16_t tritonc_cpu_u64_to_bf16(uint64_t v) {
  return tritonc::doubleToBf16(tritonc::interp::detail::unsignedToFloat(tritonc::ir::Scalar::BF16, v));
}

// fp8 <-> f64, through support/float8.h (the interpreter's conversions).
// Kernels never compute on fp8; they convert at loads, stores and casts.
extern "C" double tritonc_cpu_e4m3_to_f64(uint8_t b) { return tritonc::e4m3ToDouble(b); }
extern "C" double tritonc_cpu_e5m2_to_f64(uint8_t b) { return tritonc::e5m2ToDouble(b); }
extern "C" uint8_t tritonc_cpu_f64_to_e4m3(double d) { return tritonc::doubleToE4m3(d); }
extern "C" uint8_t tritonc_cpu_f64_to_e5m2(double d) { return tritonc::doubleToE5m2(d); }

// A print's value `operand` (-1: a print without values): `count` elements
// of `kind` in their memory format at `data`, a tile of `shape` (`rank`
// dimensions; none for a scalar). Writes its lines (ir/debug_output.h) to
// stdout at once, so that programs running in parallel do not mix them.
extern "C" void tritonc_cpu_print(const char* prefix, int32_t hex, int32_t operand, int32_t numOperands, int32_t kind,
                                  int32_t rank, const int64_t* shape, const void* data, int32_t px, int32_t py,
                                  int32_t pz) {
  using tritonc::ir::Scalar;
  const int64_t pid[3] = {px, py, pz};
  tritonc::ir::Type type = tritonc::ir::Type::scalar(Scalar(kind));
  type.shape.assign(shape, shape + (rank > 0 ? rank : 0));
  std::string text;
  if (operand < 0) text = tritonc::ir::printLine(prefix, false, -1, 0, type, pid, {}, {});
  const int64_t count = operand < 0 ? 0 : type.numElements();
  const auto* bytes = static_cast<const uint8_t*>(data);
  for (int64_t e = 0; e < count; ++e) {
    tritonc::ir::PrintedElement v;
    const uint8_t* at = bytes + e * tritonc::ir::byteSize(type.kind);
    auto read = [&](auto sample) {
      std::memcpy(&sample, at, sizeof sample);
      return sample;
    };
    switch (type.kind) {
      case Scalar::I1: v.i = read(uint8_t()) != 0; break;
      case Scalar::I8: v.i = read(int8_t()); break;
      case Scalar::I16: v.i = read(int16_t()); break;
      case Scalar::I32: v.i = read(int32_t()); break;
      case Scalar::I64: case Scalar::Ptr: v.i = read(int64_t()); break;
      case Scalar::F16: v.f = tritonc::halfToFloat(read(uint16_t())); break;
      case Scalar::BF16: v.f = tritonc::bf16ToFloat(read(uint16_t())); break;
      case Scalar::F32: v.f = read(float()); break;
      case Scalar::F64: v.f = read(double()); break;
      case Scalar::F8E4M3: v.f = tritonc::e4m3ToDouble(read(uint8_t())); break;
      case Scalar::F8E5M2: v.f = tritonc::e5m2ToDouble(read(uint8_t())); break;
      case Scalar::Void: break;
    }
    text += tritonc::ir::printLine(prefix, hex != 0, operand, numOperands, type, pid,
                                   tritonc::ir::elementIndex(type.shape, e), v);
  }
  static std::mutex stdoutMutex;
  std::lock_guard<std::mutex> lock(stdoutMutex);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

#if defined(__FLT16_MAX__) && (defined(__x86_64__) || defined(__aarch64__))
// LLVM calls these for f16 conversions on a CPU without them in hardware
// (x86 before F16C); the ABI passes _Float16 in a vector register.
extern "C" float tritonc_cpu_extendhfsf2(_Float16 h) {
  uint16_t bits;
  std::memcpy(&bits, &h, 2);
  return tritonc::halfToFloat(bits);
}
extern "C" _Float16 tritonc_cpu_truncsfhf2(float f) {
  uint16_t bits = tritonc::floatToHalf(f);
  _Float16 h;
  std::memcpy(&h, &bits, 2);
  return h;
}
extern "C" _Float16 tritonc_cpu_truncdfhf2(double d) {
  uint16_t bits = tritonc::doubleToHalf(d);
  _Float16 h;
  std::memcpy(&h, &bits, 2);
  return h;
}
#define TRITONC_HAVE_FLOAT16_LIBCALLS 1
#endif

// exp of an f32 as the interpreter computes it: in double, rounded once.
// Compiled code calls it per element, or per lane that its vector exp
// cannot settle (exact_exp.cpp).
extern "C" float tritonc_cpu_exp_f32(float x) { return float(std::exp(double(x))); }

namespace {

template <class F>
void* addr(F* f) {
  return reinterpret_cast<void*>(f);
}

}  // namespace

namespace tritonc::cpu::detail {

const std::vector<RuntimeSymbol>& runtimeSymbols() {
  static const std::vector<RuntimeSymbol> symbols = {
      {"exp", addr<double(double)>(&::exp)},
      {"exp2", addr<double(double)>(&::exp2)},
      {"log2", addr<double(double)>(&::log2)},
      {"log", addr<double(double)>(&::log)},
      {"sin", addr<double(double)>(&::sin)},
      {"cos", addr<double(double)>(&::cos)},
      {"tanh", addr<double(double)>(&::tanh)},
      {"sqrt", addr<double(double)>(&::sqrt)},
      {"floor", addr<double(double)>(&::floor)},
      {"ceil", addr<double(double)>(&::ceil)},
      {"fmod", addr<double(double, double)>(&::fmod)},
      {"expf", addr<float(float)>(&::expf)},
      {"logf", addr<float(float)>(&::logf)},
      {"sqrtf", addr<float(float)>(&::sqrtf)},
      {"floorf", addr<float(float)>(&::floorf)},
      {"ceilf", addr<float(float)>(&::ceilf)},
      {"fmodf", addr<float(float, float)>(&::fmodf)},
      {"memcpy", addr<void*(void*, const void*, size_t)>(&::memcpy)},
      {"memmove", addr<void*(void*, const void*, size_t)>(&::memmove)},
      {"memset", addr<void*(void*, int, size_t)>(&::memset)},
      {"memcmp", addr<int(const void*, const void*, size_t)>(&::memcmp)},
      {"bcmp", addr<int(const void*, const void*, size_t)>(&::memcmp)},
      {"tritonc_cpu_i64_to_bf16", addr(&tritonc_cpu_i64_to_bf16)},
      {"tritonc_cpu_u64_to_bf16", addr(&tritonc_cpu_u64_to_bf16)},
      {"tritonc_cpu_print", addr(&tritonc_cpu_print)},
      {"tritonc_cpu_e4m3_to_f64", addr(&tritonc_cpu_e4m3_to_f64)},
      {"tritonc_cpu_e5m2_to_f64", addr(&tritonc_cpu_e5m2_to_f64)},
      {"tritonc_cpu_f64_to_e4m3", addr(&tritonc_cpu_f64_to_e4m3)},
      {"tritonc_cpu_f64_to_e5m2", addr(&tritonc_cpu_f64_to_e5m2)},
      {"tritonc_cpu_exp_f32", addr(&tritonc_cpu_exp_f32)},
#ifdef TRITONC_HAVE_FLOAT16_LIBCALLS
      {"__extendhfsf2", addr(&tritonc_cpu_extendhfsf2)},
      {"__truncsfhf2", addr(&tritonc_cpu_truncsfhf2)},
      {"__truncdfhf2", addr(&tritonc_cpu_truncdfhf2)},
#endif
  };
  return symbols;
}

}  // namespace tritonc::cpu::detail
