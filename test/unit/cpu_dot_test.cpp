// The CPU back end's dot (lower_dot.cpp): the register-blocked micro-kernel
// over every shape class (smaller than a vector, than a register block,
// several blocks and panels), element kinds (f32, f64, i32, i64 results;
// f16 and i8 operands converted while packing), operands stored transposed
// (strided views, packed), and a loop's accumulator written in place, with
// the cases where it must not be (the phi read after the dot, through a
// view, or the dot repeated without the phi). Each result is checked
// against a reference computed here (products and sums rounded to the
// result's kind, in k order) and against the interpreter, byte for byte.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "support/float16.h"
#include "unit/cpu_test_helpers.h"

namespace {

using namespace tritonc;
using namespace tritonc::cpu_test;
using ir::Scalar;

const char* kDot = R"(
__global__ void k(TA* A, TB* B, TC* C, TC* D) {
  int rm[M] = 0 ... M; int rn[N] = 0 ... N; int rk[K] = 0 ... K;
#if A_TRANSPOSED
  TA at[K, M] = *(A + rk[:, newaxis] * M + rm[newaxis, :]);
  TA a[M, K] = ^at;
#else
  TA a[M, K] = *(A + rm[:, newaxis] * K + rk[newaxis, :]);
#endif
#if B_TRANSPOSED
  TB bt[N, K] = *(B + rn[:, newaxis] * K + rk[newaxis, :]);
  TB b[K, N] = ^bt;
#else
  TB b[K, N] = *(B + rk[:, newaxis] * N + rn[newaxis, :]);
#endif
  TC c[M, N] = *(C + rm[:, newaxis] * N + rn[newaxis, :]);
  c += a @ b;
  *(D + rm[:, newaxis] * N + rn[newaxis, :]) = c;
})";

const char* cName(Scalar k) {
  switch (k) {
    case Scalar::F16: return "half";
    case Scalar::F32: return "float";
    case Scalar::F64: return "double";
    case Scalar::I8: return "char";
    case Scalar::I32: return "int";
    case Scalar::I64: return "long";
    default: return "?";
  }
}

// Products and sums rounded to the result's kind one at a time (volatile:
// no contraction into an FMA, whatever the compiler of this test does).
double roundedTo(Scalar k, double v) {
  if (k == Scalar::F32) {
    volatile float f = float(v);
    return f;
  }
  volatile double d = v;
  return d;
}

// D = C + A @ B as the IR defines it; A is M x K, B is K x N, each stored
// transposed when asked (element [i][k] of A at k * M + i).
std::vector<double> reference(Scalar kc, const interp::Buffer& A, const interp::Buffer& B, const interp::Buffer& C,
                              int64_t M, int64_t N, int64_t K, bool aT, bool bT) {
  std::vector<double> d(size_t(M * N));
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      if (ir::isFloatKind(kc)) {
        double acc = interp::readElement(C, i * N + j);
        for (int64_t q = 0; q < K; ++q) {
          const double x = roundedTo(kc, interp::readElement(A, aT ? q * M + i : i * K + q));
          const double y = roundedTo(kc, interp::readElement(B, bT ? j * K + q : q * N + j));
          acc = roundedTo(kc, acc + roundedTo(kc, x * y));
        }
        d[size_t(i * N + j)] = acc;
      } else {  // wrapping, in the result's width
        uint64_t acc = uint64_t(int64_t(interp::readElement(C, i * N + j)));
        for (int64_t q = 0; q < K; ++q) {
          const uint64_t x = uint64_t(int64_t(interp::readElement(A, aT ? q * M + i : i * K + q)));
          const uint64_t y = uint64_t(int64_t(interp::readElement(B, bT ? j * K + q : q * N + j)));
          acc += x * y;
        }
        d[size_t(i * N + j)] = double(ir::wrapInt(kc, int64_t(acc)));
      }
    }
  return d;
}

struct DotCase {
  Scalar a, b, c;
  int64_t M, N, K;
  bool aT = false, bT = false;
};

std::string describe(const DotCase& t) {
  return std::string(cName(t.a)) + " x " + cName(t.b) + " -> " + cName(t.c) + ", " + std::to_string(t.M) + "x" +
         std::to_string(t.N) + "x" + std::to_string(t.K) + (t.aT ? ", A transposed" : "") +
         (t.bT ? ", B transposed" : "");
}

void checkDot(const DotCase& t, std::mt19937_64& rng) {
  SCOPED_TRACE(describe(t));
  interp::Buffer A = buffer("A", t.a, size_t(t.M * t.K)), B = buffer("B", t.b, size_t(t.K * t.N));
  interp::Buffer C = buffer("C", t.c, size_t(t.M * t.N)), D = buffer("D", t.c, size_t(t.M * t.N));
  // Integers small enough that products of i8 fit; floats that round.
  fillUniform(A, rng, -100, 100);
  fillUniform(B, rng, -100, 100);
  fillUniform(C, rng, -1000, 1000);
  std::vector<interp::KernelArg> args{buf(A), buf(B), buf(C), buf(D)};
  std::vector<lang::Define> defines{{"TA", cName(t.a)},
                                    {"TB", cName(t.b)},
                                    {"TC", cName(t.c)},
                                    {"M", std::to_string(t.M)},
                                    {"N", std::to_string(t.N)},
                                    {"K", std::to_string(t.K)},
                                    {"A_TRANSPOSED", t.aT ? "1" : "0"},
                                    {"B_TRANSPOSED", t.bT ? "1" : "0"}};
  Compiled k = compile(kDot, args, defines, 1);
  runBoth(*k.fn, {1, 1, 1}, args);
  const std::vector<double> want = reference(t.c, A, B, C, t.M, t.N, t.K, t.aT, t.bT);
  for (int64_t i = 0; i < t.M * t.N; ++i) {
    const double got = interp::readElement(D, i);
    if (got != want[size_t(i)]) {
      ADD_FAILURE() << "D[" << i / t.N << "][" << i % t.N << "] = " << got << ", expected " << want[size_t(i)];
      return;
    }
  }
}

TEST(CpuDot, ShapesSmallerAndLargerThanTheRegisterBlock) {
  REQUIRE_CPU();
  FRESH_RNG();
  for (auto [M, N, K] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{
           {1, 1, 1}, {1, 16, 1}, {2, 4, 8}, {4, 8, 2}, {8, 32, 16}, {16, 16, 64},
           {32, 64, 32}, {64, 8, 16}, {128, 128, 32}, {16, 256, 4}, {2, 512, 2}})
    checkDot({Scalar::F32, Scalar::F32, Scalar::F32, M, N, K}, rng);
}

TEST(CpuDot, ElementKinds) {
  REQUIRE_CPU();
  FRESH_RNG();
  for (DotCase t : std::vector<DotCase>{{Scalar::F64, Scalar::F64, Scalar::F64, 16, 32, 16},
                                        {Scalar::F64, Scalar::F64, Scalar::F64, 4, 4, 4},
                                        {Scalar::I32, Scalar::I32, Scalar::I32, 16, 64, 8},
                                        {Scalar::I64, Scalar::I64, Scalar::I64, 8, 16, 8},
                                        {Scalar::I8, Scalar::I8, Scalar::I32, 32, 32, 32},
                                        {Scalar::F16, Scalar::F16, Scalar::F32, 32, 64, 16},
                                        {Scalar::F16, Scalar::F32, Scalar::F32, 16, 32, 8}})
    checkDot(t, rng);
}

TEST(CpuDot, TransposedOperands) {
  REQUIRE_CPU();
  FRESH_RNG();
  for (auto [aT, bT] : std::vector<std::pair<bool, bool>>{{true, false}, {false, true}, {true, true}}) {
    checkDot({Scalar::F32, Scalar::F32, Scalar::F32, 32, 64, 16, aT, bT}, rng);
    checkDot({Scalar::F16, Scalar::F16, Scalar::F32, 16, 32, 32, aT, bT}, rng);
  }
}

// Accumulation in a loop: C + sum over n steps of A @ B, where the
// accumulator phi may be written in place, plus `s`, which reads the phi's
// value after the dot of the same iteration in one of three ways (so the
// dot must not overwrite it): directly, through a view (transposed), or not
// at all (WAY 0: in place is right). WAY 3 runs the dot twice in an inner
// loop over an outer loop's phi, which it must not overwrite either.
const char* kLoop = R"(
__global__ void k(float* A, float* B, float* C, float* D, float* S, int n) {
  int r[16] = 0 ... 16;
  float a[16, 16] = *(A + r[:, newaxis] * 16 + r[newaxis, :]);
  float b[16, 16] = *(B + r[:, newaxis] * 16 + r[newaxis, :]);
  float c[16, 16] = *(C + r[:, newaxis] * 16 + r[newaxis, :]);
  float s[16, 16] = 0;
  for (int i = 0; i < n; i++) {
#if WAY == 3
    float e[16, 16] = 0;
    for (int j = 0; j < 2; j++) {
      float d[16, 16] = c;
      float aj[16, 16] = a * (j + 1);  // so that the dot stays in the inner loop
      d += aj @ b;
      e += d;
    }
    c = e * 0.25;
#else
    float old[16, 16] = c;
    float view[16, 16] = ^c;
    c += a @ b;
#if WAY == 1
    s += old;
#elif WAY == 2
    s += view;
#endif
#endif
  }
  *(D + r[:, newaxis] * 16 + r[newaxis, :]) = c;
  *(S + r[:, newaxis] * 16 + r[newaxis, :]) = s;
})";

TEST(CpuDot, LoopAccumulatorInPlaceOnlyWhereNothingElseReadsIt) {
  REQUIRE_CPU();
  FRESH_RNG();
  const int64_t n = 3;
  for (int way = 0; way <= 3; ++way) {
    SCOPED_TRACE("WAY " + std::to_string(way));
    interp::Buffer A = buffer("A", Scalar::F32, 256), B = buffer("B", Scalar::F32, 256),
                   C = buffer("C", Scalar::F32, 256), D = buffer("D", Scalar::F32, 256),
                   S = buffer("S", Scalar::F32, 256);
    fillUniform(A, rng, -1, 1);
    fillUniform(B, rng, -1, 1);
    fillUniform(C, rng, -1, 1);
    std::vector<interp::KernelArg> args{buf(A), buf(B), buf(C), buf(D), buf(S), num(n)};
    Compiled k = compile(kLoop, args, {{"WAY", std::to_string(way)}}, 1);
    runBoth(*k.fn, {1, 1, 1}, args);
    // The reference: c and s step by step, rounded as the IR rounds.
    std::vector<float> c(256), s(256, 0.0f);
    for (int i = 0; i < 256; ++i) c[size_t(i)] = float(interp::readElement(C, i));
    auto product = [&](const std::vector<float>& acc, float scaleA) {
      std::vector<float> out(256);
      for (int i = 0; i < 16; ++i)
        for (int j = 0; j < 16; ++j) {
          double x = acc[size_t(i * 16 + j)];
          for (int q = 0; q < 16; ++q)
            x = roundedTo(Scalar::F32, x + roundedTo(Scalar::F32, interp::readElement(A, i * 16 + q) * scaleA *
                                                                      interp::readElement(B, q * 16 + j)));
          out[size_t(i * 16 + j)] = float(x);
        }
      return out;
    };
    for (int64_t it = 0; it < n; ++it) {
      if (way == 3) {
        std::vector<float> e(256, 0.0f);
        for (int j = 0; j < 2; ++j) {
          std::vector<float> d = product(c, float(j + 1));  // (a * 2 is exact)
          for (int i = 0; i < 256; ++i) e[size_t(i)] = float(roundedTo(Scalar::F32, double(e[size_t(i)]) + d[size_t(i)]));
        }
        for (int i = 0; i < 256; ++i) c[size_t(i)] = e[size_t(i)] * 0.25f;
        continue;
      }
      std::vector<float> next = product(c, 1.0f);
      for (int i = 0; i < 256; ++i) {
        const float seen = way == 1 ? c[size_t(i)] : way == 2 ? c[size_t((i % 16) * 16 + i / 16)] : 0.0f;
        s[size_t(i)] = float(roundedTo(Scalar::F32, double(s[size_t(i)]) + seen));
      }
      c = next;
    }
    for (int i = 0; i < 256; ++i) {
      ASSERT_EQ(float(interp::readElement(D, i)), c[size_t(i)]) << "D[" << i << "]";
      ASSERT_EQ(float(interp::readElement(S, i)), s[size_t(i)]) << "S[" << i << "]";
    }
  }
}

}  // namespace
