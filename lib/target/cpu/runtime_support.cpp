// The functions compiled kernels may call (see runtime_support.h).
#include "target/cpu/runtime_support.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "support/float16.h"
#include "target/interp/scalar_ops.h"

// i64 -> bf16 with one rounding (the interpreter's intToFloat); the other
// integer conversions are exact enough inline (element_ops.cpp).
extern "C" uint16_t tritonc_cpu_i64_to_bf16(int64_t v) {
  return tritonc::doubleToBf16(tritonc::interp::detail::intToFloat(tritonc::ir::Scalar::BF16, v));
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
