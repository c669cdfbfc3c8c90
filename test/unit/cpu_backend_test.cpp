// The CPU back end on the cases where a native lowering can go wrong: masked
// lanes that must not touch memory, reductions, tile phis that swap, atomics
// racing across programs on every core, f16/bf16 rounding over every bit
// pattern, division by zero, the grid's programs, and argument checks.
// Each kernel runs on fresh random inputs with poisoned outputs, and where
// the interpreter can run it, the CPU's bytes must be the interpreter's
// (NaNs match any NaN). Skipped when the build has no CPU back end.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <fstream>
#include <set>
#include <sstream>

#include "lang/compile.h"
#include "runtime/optimize_for_launch.h"
#include "support/float16.h"
#include "support/sum_order_reference.h"
#include "transform/pass_manager.h"
#include "unit/cpu_test_helpers.h"

namespace {

using namespace tritonc;
using namespace tritonc::cpu_test;
using ir::Scalar;

// Masked-off lanes point 2^40 elements away: touching one would crash.
// Active lanes load (with `other` elsewhere) and store only themselves.
TEST(CpuBackend, MaskedLanesTouchNothing) {
  REQUIRE_CPU();
  FRESH_RNG();
  const char* src = R"(
    __global__ void k(float* a, float* c, int n) {
      int i[64] = get_program_id(0) * 64 + 0 ... 64;
      bool m[64] = i < n;
      long far[64] = m ? 0 : 1099511627776;
      float* pa[64] = a + i + far;
      float x[64] = m ? *pa : -3.5;
      float* pc[64] = c + i + far;
      @m *pc = x * 2;
    })";
  for (int n : {1, 37, 64, 100, 128}) {
    interp::Buffer a = buffer("a", Scalar::F32, size_t(n)), c = buffer("c", Scalar::F32, size_t(n));
    fillUniform(a, rng, -10, 10);
    std::vector<interp::KernelArg> args{buf(a), buf(c), num(n)};
    Compiled k = compile(src, args);
    cpu::CpuKernel::compile(*k.fn)->run({(n + 63) / 64}, args);
    for (int i = 0; i < n; ++i) ASSERT_EQ(interp::readElement(c, i), 2 * interp::readElement(a, i)) << i;
  }
}

// fp8: every code of either format widened, f32 values (ties, beyond the
// largest, NaN) narrowed to both, f64 narrowed, and scalar fp8 parameters:
// the CPU's bytes are the interpreter's.
TEST(CpuBackend, Fp8ConversionsAndParametersAreTheInterpreters) {
  REQUIRE_CPU();
  FRESH_RNG();
  const char* src = R"(
kernel @f8(%codes: i8* aligned(16), %x: f32* aligned(16), %d: f64* aligned(16), %wide4: f32* aligned(16),
           %wide5: f32* aligned(16), %n4: f8e4m3* aligned(16), %n5: f8e5m2* aligned(16), %dn: f8e4m3* aligned(16),
           %s: f8e4m3, %t: f8e5m2, %out: f32* aligned(16)) {
entry:
  %r = range 0 : i32<256>
  %pc = splat %codes : i8*<256>
  %pc2 = gep %pc, %r : i8*<256>
  %c = load %pc2 : i8<256>
  %e4 = bitcast %c : f8e4m3<256>
  %e5 = bitcast %c : f8e5m2<256>
  %w4 = cast %e4 : f32<256>
  %w5 = cast %e5 : f32<256>
  %pw4 = splat %wide4 : f32*<256>
  %pw42 = gep %pw4, %r : f32*<256>
  store %pw42, %w4
  %pw5 = splat %wide5 : f32*<256>
  %pw52 = gep %pw5, %r : f32*<256>
  store %pw52, %w5
  %px = splat %x : f32*<256>
  %px2 = gep %px, %r : f32*<256>
  %v = load %px2 : f32<256>
  %v4 = cast %v : f8e4m3<256>
  %v5 = cast %v : f8e5m2<256>
  %pn4 = splat %n4 : f8e4m3*<256>
  %pn42 = gep %pn4, %r : f8e4m3*<256>
  store %pn42, %v4
  %pn5 = splat %n5 : f8e5m2*<256>
  %pn52 = gep %pn5, %r : f8e5m2*<256>
  store %pn52, %v5
  %pd = splat %d : f64*<256>
  %pd2 = gep %pd, %r : f64*<256>
  %dv = load %pd2 : f64<256>
  %dv4 = cast %dv : f8e4m3<256>
  %pdn = splat %dn : f8e4m3*<256>
  %pdn2 = gep %pdn, %r : f8e4m3*<256>
  store %pdn2, %dv4
  %sf = cast %s : f32
  %tf = cast %t : f32
  store %out, %sf
  %o1 = gep %out, i32 1 : f32*
  store %o1, %tf
  ret
}
)";
  interp::Buffer codes = buffer("codes", Scalar::I8, 256), x = buffer("x", Scalar::F32, 256), d = buffer("d", Scalar::F64, 256);
  interp::Buffer wide4 = buffer("wide4", Scalar::F32, 256), wide5 = buffer("wide5", Scalar::F32, 256);
  interp::Buffer n4 = buffer("n4", Scalar::F8E4M3, 256), n5 = buffer("n5", Scalar::F8E5M2, 256);
  interp::Buffer dn = buffer("dn", Scalar::F8E4M3, 256), out = buffer("out", Scalar::F32, 2);
  for (int i = 0; i < 256; ++i) codes.data[size_t(i)] = uint8_t(i);
  std::uniform_real_distribution<double> mag(-12, 17), unit(0, 1);
  const double special[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 448.0, 464.0, 57344.0, 61440.0, 1.0625, 1.1875, 0.0078125};
  for (int i = 0; i < 256; ++i) {
    double v = i < 12 ? special[i] : (unit(rng) < 0.5 ? -1 : 1) * std::exp2(mag(rng)) * (1 + unit(rng));
    interp::writeElement(x, i, v);
    // f64 values near fp8 ties by less than f32 resolves: rounding twice would differ.
    interp::writeElement(d, i, double(float(v)) + (unit(rng) < 0.5 ? 1 : -1) * std::exp2(-40) * std::fabs(v));
  }
  std::vector<interp::KernelArg> args{buf(codes), buf(x), buf(d), buf(wide4), buf(wide5), buf(n4), buf(n5), buf(dn),
                                      interp::KernelArg::ofFloat(1.5 + unit(rng)), interp::KernelArg::ofFloat(-300 * unit(rng)),
                                      buf(out)};
  Compiled k = compile(src, args, {}, 3, lang::Language::TritonIr);
  runBoth(*k.fn, {1}, args);
}

// fma rounds once on the CPU as in the interpreter, for every float kind;
// f32 is C's fmaf. Random operands, and per kind one case whose product
// alone would round: (1 + e)^2 - (1 + 2e) gives e^2.
TEST(CpuBackend, FmaRoundsOnceAsTheInterpreter) {
  REQUIRE_CPU();
  FRESH_RNG();
  std::string src = "kernel @k(%x: f32*, %o: f32*, %h: f16*, %ho: f16*, %g: bf16*, %go: bf16*, %d: f64*, %do: f64*) {\n"
                    "entry:\n  %r = range 0 : i32<64>\n  %c64 = splat i32 64 : i32<64>\n"
                    "  %r64 = add %r, %c64 : i32<64>\n  %r128 = add %r64, %c64 : i32<64>\n";
  for (auto [in, out, t] : {std::tuple{"x", "o", "f32"}, {"h", "ho", "f16"}, {"g", "go", "bf16"}, {"d", "do", "f64"}}) {
    const std::string i = in, o = out, T = t, tile = T + "<64>", ptrs = T + "*<64>";
    src += "  %" + i + "8 = splat %" + i + " : " + ptrs + "\n";
    const char* offs[] = {"%r", "%r64", "%r128"};
    for (int k = 0; k < 3; ++k) {
      const std::string n = i + std::to_string(k);
      src += "  %" + n + "p = gep %" + i + "8, " + offs[k] + " : " + ptrs + "\n";
      src += "  %" + n + " = load %" + n + "p : " + tile + "\n";
    }
    src += "  %" + i + "f = fma %" + i + "0, %" + i + "1, %" + i + "2 : " + tile + "\n";
    src += "  %" + o + "8 = splat %" + o + " : " + ptrs + "\n";
    src += "  %" + o + "p = gep %" + o + "8, %r : " + ptrs + "\n";
    src += "  store %" + o + "p, %" + i + "f\n";
  }
  src += "  ret\n}\n";
  interp::Buffer x = buffer("x", Scalar::F32, 192), o = buffer("o", Scalar::F32, 64);
  interp::Buffer h = buffer("h", Scalar::F16, 192), ho = buffer("ho", Scalar::F16, 64);
  interp::Buffer g = buffer("g", Scalar::BF16, 192), go = buffer("go", Scalar::BF16, 64);
  interp::Buffer d = buffer("d", Scalar::F64, 192), dout = buffer("do", Scalar::F64, 64);
  for (interp::Buffer* b : {&x, &h, &g, &d}) fillUniform(*b, rng, -8, 8);
  const double e[] = {std::ldexp(1.0, -12), std::ldexp(1.0, -6), std::ldexp(1.0, -4), std::ldexp(1.0, -27)};
  interp::Buffer* in[] = {&x, &h, &g, &d};
  for (int k = 0; k < 4; ++k) {
    interp::writeElement(*in[k], 0, 1 + e[k]);
    interp::writeElement(*in[k], 64, 1 + e[k]);
    interp::writeElement(*in[k], 128, -(1 + 2 * e[k]));
  }
  std::vector<interp::KernelArg> args{buf(x), buf(o), buf(h), buf(ho), buf(g), buf(go), buf(d), buf(dout)};
  Compiled k = compile(src, args, {}, 3, lang::Language::TritonIr);
  runBoth(*k.fn, {1}, args);
  for (int k = 0; k < 4; ++k) {
    interp::Buffer* out[] = {&o, &ho, &go, &dout};
    EXPECT_EQ(interp::readElement(*out[k], 0), e[k] * e[k]) << k;
  }
  for (int i = 0; i < 64; ++i) {
    const float a = float(interp::readElement(x, i)), b = float(interp::readElement(x, 64 + i)),
                c = float(interp::readElement(x, 128 + i));
    EXPECT_EQ(interp::readElement(o, i), double(std::fma(a, b, c))) << i;
  }
}

// A masked load's `other` shows where the mask is off; the mask varies
// within rows and columns of a 2-D tile.
TEST(CpuBackend, MaskedLoadOther2D) {
  REQUIRE_CPU();
  FRESH_RNG();
  const char* src = R"(
    __global__ void k(half* a, half* c, int M, int N) {
      int rm[16] = 0 ... 16;
      int rn[32] = 0 ... 32;
      bool m[16, 32] = rm[:, newaxis] < M && rn[newaxis, :] < N;
      half* pa[16, 32] = a + rm[:, newaxis] * 32 + rn[newaxis, :];
      half x[16, 32] = m ? *pa : 7;
      half* pc[16, 32] = c + rm[:, newaxis] * 32 + rn[newaxis, :];
      *pc = x;
    })";
  interp::Buffer a = buffer("a", Scalar::F16, 512), c = buffer("c", Scalar::F16, 512);
  fillUniform(a, rng, -2, 2);
  std::vector<interp::KernelArg> args{buf(a), buf(c), num(11), num(19)};
  Compiled k = compile(src, args);
  runBoth(*k.fn, {1}, args);
  for (int r = 0; r < 16; ++r)
    for (int q = 0; q < 32; ++q)
      ASSERT_EQ(interp::readElement(c, r * 32 + q), r < 11 && q < 19 ? interp::readElement(a, r * 32 + q) : 7.0);
}

// Masks over indices (predicate.cpp) of every form the closed form reasons
// about, each at sizes that leave every lane on, some on, and none on:
// comparisons each way, with a negative stride, of 64-bit indices near the
// ends of their range, of 32-bit ones that wrap (where no lane may be taken
// for on), and/or/not of them, views (broadcast, trans, newaxis), a mask read
// in a loop's other block and as a value. Bytes as the interpreter's.
TEST(CpuBackend, MasksOverIndices) {
  REQUIRE_CPU();
  FRESH_RNG();
  const char* src = R"(
    __global__ void k(float* a, float* c, int* flags, int n, int m, long big, int base) {
      int i[64] = 0 ... 64;
      int rm[8] = 0 ... 8;
      int rn[16] = 0 ... 16;
      float* pa[64] = a + i;
      float x0[64] = *?(i < n) pa;
      float x1[64] = *?(n - i > 0 && i >= m) pa;
      float x2[64] = *?(i != n || i == m) pa;
      float x3[64] = *?(!(i < m)) pa;
      long wide[64] = big + i;
      float x4[64] = *?(wide <= 9223372036854775806 && wide > big + 3) pa;
      int wraps[64] = base + i;
      float x5[64] = *?(wraps >= base) pa;
      *?(i < n) (c + i) = x0 + x1 * 2.0f + x2 * 4.0f + x3 * 8.0f + x4 * 16.0f + x5 * 32.0f;
      bool m2[8, 16] = rm[:, newaxis] < m && rn[newaxis, :] < n;
      float* p2[8, 16] = a + 64 + rm[:, newaxis] * 16 + rn[newaxis, :];
      float y2[8, 16] = m2 ? *p2 : 5.0f;
      bool t2[16, 8] = trans(m2);
      float* q2[16, 8] = c + 64 + rn[:, newaxis] * 8 + rm[newaxis, :];
      *?(t2) q2 = trans(y2);
      bool mr[8] = rm < m;
      bool m3[8, 16] = mr[:, newaxis] && rn[newaxis, :] >= n - 9;
      *(flags + rm[:, newaxis] * 16 + rn[newaxis, :]) = m3 ? 1 : 0;
      float acc[64] = 0;
      for (int j = 0; j < 3; j++) {
        acc = acc + *?(i < n - j) pa;
      }
      *(c + 192 + i) = acc;
    })";
  const long kTop = 9223372036854775807L;
  for (auto [n, m, big, base] : std::vector<std::tuple<int, int, long, int>>{
           {64, 8, 5, 0}, {37, 3, kTop - 100, 2147483647 - 70}, {0, 0, kTop - 40, -5}, {100, 16, -1000, 2147483600}, {1, 9, 0, 7}}) {
    SCOPED_TRACE(testing::Message() << "n " << n << " m " << m << " big " << big << " base " << base);
    interp::Buffer a = buffer("a", Scalar::F32, 192), c = buffer("c", Scalar::F32, 256), flags = buffer("flags", Scalar::I32, 128);
    fillUniform(a, rng, -4, 4);
    std::vector<interp::KernelArg> args{buf(a), buf(c), buf(flags), num(n), num(m), num(big), num(base)};
    Compiled k = compile(src, args);
    runBoth(*k.fn, {1}, args);
  }
}

// A masked softmax row keeps no mask in its frame: x (the buffer a partial
// row is loaded into) and e, and the float sum's partials.
TEST(CpuBackend, RowMasksTakeNoFrame) {
  REQUIRE_CPU();
  FRESH_RNG();
  const char* src = R"(
    __global__ void k(float* x, float* y, int n) {
      int cols[1024] = 0 ... 1024;
      bool check[1024] = cols < n;
      float v[1024] = check ? *(x + cols) : -INFINITY;
      float e[1024] = exp(v - v[max]);
      *?(check) (y + cols) = e / e[+];
    })";
  for (int n : {1024, 1000}) {
    interp::Buffer x = buffer("x", Scalar::F32, 1024), y = buffer("y", Scalar::F32, 1024);
    fillUniform(x, rng, -5, 5);
    std::vector<interp::KernelArg> args{buf(x), buf(y), num(n)};
    Compiled k = compile(src, args);
    runBoth(*k.fn, {1}, args);
    EXPECT_LE(cpu::CpuKernel::compile(*k.fn)->frameBytes(), size_t(2 * 4096 + 256));
  }
}

// Element-wise tiles read once, by the next loop that reads them element by
// element (an element-wise op, a reduction, the value of a store), are
// computed inside that loop: `(x - m) * s`, `exp` of it, the sum of that and
// the store of `e / t` take no frame buffers of their own (the frame holds
// x and e). A store between the definition and its reader (to the memory x
// was read from in place) keeps the tile computed where it is defined. The
// bytes are the interpreter's in both cases.
TEST(CpuBackend, ElementwiseChainsComputedInTheirReadersLoops) {
  REQUIRE_CPU();
  FRESH_RNG();
  const char* chain = R"(
    __global__ void k(float* x, float* y, float* sums) {
      int i[1024] = 0 ... 1024;
      float v[1024] = *(x + i);
      float m = v[max];
      float e[1024] = exp((v - m) * 0.5f);
      float t = e[+];
      *(y + i) = e / t;
      *sums = t;
    })";
  interp::Buffer x = buffer("x", Scalar::F32, 1024), y = buffer("y", Scalar::F32, 1024),
                 sums = buffer("sums", Scalar::F32, 1);
  fillUniform(x, rng, -5, 5);
  std::vector<interp::KernelArg> args{buf(x), buf(y), buf(sums)};
  Compiled k = compile(chain, args);
  runBoth(*k.fn, {1}, args);
  // v and e in the frame (4 KB each); (v - m), its product, and e / t deferred.
  EXPECT_LE(cpu::CpuKernel::compile(*k.fn)->frameBytes(), size_t(2 * 4096 + 128));

  const char* storeBetween = R"(
    __global__ void k(float* x, float* y) {
      int i[1024] = 0 ... 1024;
      float v[1024] = *(x + i);
      float w[1024] = v + 1.0f;
      *(x + i) = v * 3.0f;
      *(y + i) = w;
    })";
  interp::Buffer x2 = buffer("x", Scalar::F32, 1024), y2 = buffer("y", Scalar::F32, 1024);
  fillUniform(x2, rng, -5, 5);
  std::vector<interp::KernelArg> args2{buf(x2), buf(y2)};
  Compiled k2 = compile(storeBetween, args2);
  std::vector<float> before(1024);
  for (int j = 0; j < 1024; ++j) before[size_t(j)] = float(interp::readElement(x2, j));
  runBoth(*k2.fn, {1}, args2);
  for (int j = 0; j < 1024; ++j) ASSERT_EQ(interp::readElement(y2, j), double(before[size_t(j)] + 1.0f)) << j;
}

// Sums, maxima and minima along each axis and of everything, in f32, f16
// and i32, against the interpreter (same order, so the same rounding) and
// a C++ sum of the f32 case.
TEST(CpuBackend, Reductions) {
  REQUIRE_CPU();
  FRESH_RNG();
  const char* src = R"(
    __global__ void k(TYPE* x, TYPE* r0, TYPE* r1, TYPE* mx, TYPE* mn, TYPE* all) {
      int rm[8] = 0 ... 8;
      int rn[64] = 0 ... 64;
      TYPE v[8, 64] = *(x + rm[:, newaxis] * 64 + rn[newaxis, :]);
      *(r0 + rn) = v[+, :];
      *(r1 + rm) = v[:, +];
      *(mx + rm) = v[:, max];
      *(mn + rn) = v[min, :];
      TYPE flat[512] = *(x + (0 ... 512));
      *all = flat[+];
    })";
  for (auto [type, kind] : {std::pair{"float", Scalar::F32}, {"half", Scalar::F16}, {"int", Scalar::I32}}) {
    SCOPED_TRACE(type);
    interp::Buffer x = buffer("x", kind, 512), r0 = buffer("r0", kind, 64), r1 = buffer("r1", kind, 8),
                   mx = buffer("mx", kind, 8), mn = buffer("mn", kind, 64), all = buffer("all", kind, 1);
    fillUniform(x, rng, -100, 100);
    std::vector<interp::KernelArg> args{buf(x), buf(r0), buf(r1), buf(mx), buf(mn), buf(all)};
    Compiled k = compile(src, args, {{"TYPE", type}});
    runBoth(*k.fn, {1}, args);
    if (kind == Scalar::F32) {  // row 0, in the sum's order (docs/IR.md)
      std::vector<float> row;
      for (int i = 0; i < 64; ++i) row.push_back(float(interp::readElement(x, i)));
      const float s = test::referenceSum(row, [](float a, float b) { return a + b; });
      EXPECT_EQ(interp::readElement(r1, 0), double(s));
    }
  }
}

// Float sums in the order of docs/IR.md (partial sums, then pairs), for
// lengths below, at and above the number of partials, along the last axis
// and the first, with values whose sums depend on the order (magnitudes
// from 1e-3 to 1e7): the CPU's bytes must be the interpreter's, and both
// the reference's.
TEST(CpuBackend, FloatSumsInTheirOrder) {
  REQUIRE_CPU();
  FRESH_RNG();
  const char* src = R"(
    __global__ void k(TYPE* x, TYPE* all, TYPE* rows, TYPE* cols) {
      TYPE flat[N] = *(x + (0 ... N));
      *all = flat[+];
      int r[4] = 0 ... 4;
      int c[N] = 0 ... N;
      TYPE v[4, N] = *(x + r[:, newaxis] * N + c[newaxis, :]);
      *(rows + r) = v[:, +];
      TYPE w[N, 4] = *(x + c[:, newaxis] * 4 + r[newaxis, :]);
      *(cols + r) = w[+, :];
    })";
  for (auto [type, kind] : {std::pair{"float", Scalar::F32}, {"double", Scalar::F64}, {"half", Scalar::F16}}) {
    for (int64_t n : {1, 2, 4, 16, 32, 64, 128, 1024}) {
      SCOPED_TRACE(std::string(type) + " N=" + std::to_string(n));
      interp::Buffer x = buffer("x", kind, size_t(4 * n)), all = buffer("all", kind, 1),
                     rows = buffer("rows", kind, 4), cols = buffer("cols", kind, 4);
      std::uniform_real_distribution<double> exponent(-3, kind == Scalar::F16 ? 4 : 7);
      for (int64_t i = 0; i < 4 * n; ++i)
        interp::writeElement(x, i, (rng() % 2 ? 1 : -1) * std::pow(10.0, exponent(rng)));
      std::vector<interp::KernelArg> args{buf(x), buf(all), buf(rows), buf(cols)};
      Compiled k = compile(src, args, {{"TYPE", type}, {"N", std::to_string(n)}});
      runBoth(*k.fn, {1}, args);
      auto round = [&](double v) {
        interp::Buffer one = buffer("one", kind, 1);
        interp::writeElement(one, 0, v);
        return interp::readElement(one, 0);
      };
      auto add = [&](double a, double b) { return round(a + b); };
      auto element = [&](int64_t i) { return interp::readElement(x, i); };
      // f16 sums of 1024 values up to 1e4 can overflow into inf - inf: a
      // NaN on both sides is the same result.
      auto same = [](double got, double want) { return (std::isnan(got) && std::isnan(want)) || got == want; };
      std::vector<double> flat;
      for (int64_t i = 0; i < n; ++i) flat.push_back(element(i));
      double want = test::referenceSum(flat, add);
      EXPECT_TRUE(same(interp::readElement(all, 0), want)) << interp::readElement(all, 0) << " vs " << want;
      for (int64_t r = 0; r < 4; ++r) {
        std::vector<double> row, col;
        for (int64_t i = 0; i < n; ++i) row.push_back(element(r * n + i)), col.push_back(element(i * 4 + r));
        double wantRow = test::referenceSum(row, add), wantCol = test::referenceSum(col, add);
        EXPECT_TRUE(same(interp::readElement(rows, r), wantRow)) << "row " << r << ": " << interp::readElement(rows, r) << " vs " << wantRow;
        EXPECT_TRUE(same(interp::readElement(cols, r), wantCol)) << "column " << r << ": " << interp::readElement(cols, r) << " vs " << wantCol;
      }
    }
  }
}

// Loads and stores whose consecutive elements run across the tile (a
// transpose): blocks transposed in registers where the shapes allow, for
// every element size, square and oblong tiles, leading dimensions known at
// compile time or not, and a leading dimension smaller than the tile, where
// lanes of the store share addresses and the last in row-major order must
// win, as on the interpreter.
TEST(CpuBackend, TransposedLoadsAndStores) {
  REQUIRE_CPU();
  FRESH_RNG();
  const char* src = R"(
    __global__ void k(TYPE* X, TYPE* Y, TYPE* Z, int ldx, int ldy) {
      int rm[TM] = 0 ... TM;
      int rn[TN] = 0 ... TN;
      TYPE x[TM, TN] = *(X + rm[:, newaxis] + rn[newaxis, :] * ldx);   // column-major in memory
      *(Y + rm[:, newaxis] * TN + rn[newaxis, :]) = x;                  // row-major
      *(Z + rm[:, newaxis] + rn[newaxis, :] * ldy) = x * 2;             // column-major again
    })";
  for (auto [type, kind] : {std::pair{"half", Scalar::F16}, {"float", Scalar::F32}, {"double", Scalar::F64},
                            {"int", Scalar::I32}, {"char", Scalar::I8}}) {
    for (auto [tm, tn] : std::vector<std::pair<int, int>>{{4, 4}, {16, 16}, {32, 8}, {8, 64}, {64, 128}, {2, 32}}) {
      for (int extra : {0, 5}) {
        SCOPED_TRACE(std::string(type) + " " + std::to_string(tm) + "x" + std::to_string(tn) + " ld +" +
                     std::to_string(extra));
        const int ldx = tm + extra, ldy = tm + extra;
        interp::Buffer X = buffer("X", kind, size_t(ldx * tn)), Y = buffer("Y", kind, size_t(tm * tn)),
                       Z = buffer("Z", kind, size_t(ldy * tn));
        fillUniform(X, rng, -50, 50);
        std::vector<interp::KernelArg> args{buf(X), buf(Y), buf(Z), num(ldx), num(ldy)};
        Compiled k = compile(src, args, {{"TYPE", type}, {"TM", std::to_string(tm)}, {"TN", std::to_string(tn)}});
        runBoth(*k.fn, {1}, args);
        for (int m = 0; m < tm; ++m)
          for (int n = 0; n < tn; ++n)
            ASSERT_EQ(interp::readElement(Y, m * tn + n), interp::readElement(X, m + n * ldx)) << m << ", " << n;
      }
    }
  }
  // ldy = 1: the store's lanes overlap; row-major order decides (runBoth).
  interp::Buffer X = buffer("X", Scalar::F32, 16 * 16), Y = buffer("Y", Scalar::F32, 256), Z = buffer("Z", Scalar::F32, 64);
  fillUniform(X, rng, -50, 50);
  std::vector<interp::KernelArg> args{buf(X), buf(Y), buf(Z), num(16), num(1)};
  Compiled k = compile(src, args, {{"TYPE", "float"}, {"TM", "16"}, {"TN", "16"}});
  runBoth(*k.fn, {1}, args);
}

// A load used only by element-wise operations is read where it lies, when
// they run: that must not happen across a store or an atomic that writes
// the loaded memory between the load and its use (WAY 1: a store, WAY 2:
// atomic adds), and is the plain case otherwise (WAY 0).
TEST(CpuBackend, LoadsReadInPlaceOnlyWhenNothingWritesBetween) {
  REQUIRE_CPU();
  FRESH_RNG();
  const char* src = R"(
    __global__ void k(float* p, float* q) {
      int r[64] = 0 ... 64;
      float x[64] = *(p + r);
#if WAY == 1
      *(p + r) = x * 3;
#elif WAY == 2
      atomic_add(p + r, x);
#endif
      *(q + r) = x + 1;
    })";
  for (int way = 0; way <= 2; ++way) {
    SCOPED_TRACE("WAY " + std::to_string(way));
    interp::Buffer p = buffer("p", Scalar::F32, 64), q = buffer("q", Scalar::F32, 64);
    fillUniform(p, rng, -10, 10);
    const interp::Buffer before = p;
    std::vector<interp::KernelArg> args{buf(p), buf(q)};
    Compiled k = compile(src, args, {{"WAY", std::to_string(way)}});
    runBoth(*k.fn, {1}, args);
    for (int i = 0; i < 64; ++i)
      ASSERT_EQ(float(interp::readElement(q, i)), float(interp::readElement(before, i)) + 1.0f) << i;
  }
}

// Tile phis that swap each iteration (a, b = b, a + b) and a transposed
// view of one: the edge copies must read every phi before writing any.
TEST(CpuBackend, TilePhisSwap) {
  REQUIRE_CPU();
  FRESH_RNG();
  const char* src = R"(
    __global__ void k(int* x, int* y, int* z, int n) {
      int r[8] = 0 ... 8;
      int a[8, 8] = *(x + r[:, newaxis] * 8 + r[newaxis, :]);
      int b[8, 8] = *(y + r[:, newaxis] * 8 + r[newaxis, :]);
      for (int i = 0; i < n; i++) {
        int t[8, 8] = a;
        a = b;
        b = t + ^b;
      }
      *(z + r[:, newaxis] * 8 + r[newaxis, :]) = a * 3 + b;
    })";
  interp::Buffer x = buffer("x", Scalar::I32, 64), y = buffer("y", Scalar::I32, 64), z = buffer("z", Scalar::I32, 64);
  fillUniform(x, rng, -50, 50);
  fillUniform(y, rng, -50, 50);
  for (int n : {0, 1, 2, 7}) {
    std::vector<interp::KernelArg> args{buf(x), buf(y), buf(z), num(n)};
    Compiled k = compile(src, args);
    runBoth(*k.fn, {1}, args);
  }
}

// Phis of tiles kept without buffers while their values allow: uniform
// (splats), affine with the same strides (a pointer tile advanced by a
// constant), and ones that must go to memory (strides that change each
// iteration, a uniform start then a loaded value).
TEST(CpuBackend, PhisThatStayUniformOrAffineOrNot) {
  REQUIRE_CPU();
  FRESH_RNG();
  const char* src = R"(
    __global__ void k(float* x, float* y, int n) {
      int r[16] = 0 ... 16;
      float* p[16] = x + r;
      int step[16] = 0;
      float acc[16] = 0;
      float u[16] = 1;
      for (int i = 0; i < n; i++) {
        acc = acc + *(p + step) * u;
        p = p + 16;
        step = step + r % 3;
        u = u * 2;
      }
      *(y + r) = acc;
    })";
  interp::Buffer x = buffer("x", Scalar::F32, 16 * 64), y = buffer("y", Scalar::F32, 16);
  fillUniform(x, rng, -1, 1);
  for (int n : {0, 1, 5, 30}) {
    std::vector<interp::KernelArg> args{buf(x), buf(y), num(n)};
    Compiled k = compile(src, args);
    runBoth(*k.fn, {1}, args);
  }
}

// Atomics from many programs on every core: integer sums and float sums of
// small integers are exact in any order; max/min; every exchanged value is
// seen exactly once; exactly one CAS from 0 succeeds.
TEST(CpuBackend, AtomicsRaceAcrossPrograms) {
  REQUIRE_CPU();
  FRESH_RNG();
  const char* src = R"(
    __global__ void k(int* counter, float* fsum, int* imax, int* imin, int* slot, int* seen, int* owner, int* won,
                      int* v) {
      int pid = get_program_id(0);
      int r[32] = 0 ... 32;
      int x[32] = *(v + pid * 32 + r);
      int one[32] = 1;
      atomic_add(counter + r % 4, one);
      float fx[32] = x;
      atomic_add(fsum + r % 8, fx);
      atomic_max(imax + r, x);
      atomic_min(imin + r, x);
      int old = atomic_xchg(slot, pid + 1);
      *(seen + pid) = old;
      int prev = atomic_cas(owner, 0, pid + 1);
      *(won + pid) = prev == 0;
    })";
  const int P = 2000;
  interp::Buffer counter = buffer("counter", Scalar::I32, 4), fsum = buffer("fsum", Scalar::F32, 8),
                 imax = buffer("imax", Scalar::I32, 32), imin = buffer("imin", Scalar::I32, 32),
                 slot = buffer("slot", Scalar::I32, 1), seen = buffer("seen", Scalar::I32, P),
                 owner = buffer("owner", Scalar::I32, 1), won = buffer("won", Scalar::I32, P),
                 v = buffer("v", Scalar::I32, P * 32);
  for (interp::Buffer* b : {&counter, &fsum, &slot, &owner}) std::fill(b->data.begin(), b->data.end(), 0);
  for (int i = 0; i < 32; ++i) interp::writeElement(imax, i, -1e9), interp::writeElement(imin, i, 1e9);
  fillUniform(v, rng, -1000, 1000);
  std::vector<interp::KernelArg> args{buf(counter), buf(fsum), buf(imax), buf(imin), buf(slot),
                                      buf(seen),    buf(owner), buf(won), buf(v)};
  Compiled k = compile(src, args);
  cpu::CpuKernel::compile(*k.fn)->run({P}, args);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(interp::readElement(counter, i), P * 8);
  for (int j = 0; j < 8; ++j) {
    double s = 0;
    for (int p = 0; p < P; ++p)
      for (int i = j; i < 32; i += 8) s += interp::readElement(v, p * 32 + i);
    EXPECT_EQ(interp::readElement(fsum, j), s) << j;  // |s| < 2^24: exact in every order
  }
  for (int i = 0; i < 32; ++i) {
    double hi = -1e9, lo = 1e9;
    for (int p = 0; p < P; ++p) hi = std::max(hi, interp::readElement(v, p * 32 + i)), lo = std::min(lo, interp::readElement(v, p * 32 + i));
    EXPECT_EQ(interp::readElement(imax, i), hi);
    EXPECT_EQ(interp::readElement(imin, i), lo);
  }
  // The exchanges form one chain: 0, then each program's id once.
  std::multiset<int> values{int(interp::readElement(slot, 0))};
  for (int p = 0; p < P; ++p) values.insert(int(interp::readElement(seen, p)));
  std::multiset<int> expected;
  for (int p = 0; p <= P; ++p) expected.insert(p);
  EXPECT_TRUE(values == expected) << "atomic_xchg lost or duplicated a value";
  int winners = 0;
  for (int p = 0; p < P; ++p) winners += int(interp::readElement(won, p));
  EXPECT_EQ(winners, 1);
  EXPECT_GE(interp::readElement(owner, 0), 1);
}

// Masked atomics on f16 and bf16 (compare-exchange loops) and float max with
// a NaN, against the interpreter on one program.
TEST(CpuBackend, MaskedSixteenBitAtomics) {
  REQUIRE_CPU();
  FRESH_RNG();
  const char* src = R"(
    __global__ void k(TYPE* acc, TYPE* v, TYPE* old, float* fm, float* fv) {
      int r[64] = 0 ... 64;
      bool m[64] = r % 3 != 0;
      TYPE x[64] = *(v + r);
      TYPE o[64] = 5;
      @m o = atomic_add(acc + r % 16, x);
      *(old + r) = o;
      float y[64] = *(fv + r);
      atomic_max(fm + r % 4, y);
    })";
  for (auto [type, kind] : {std::pair{"half", Scalar::F16}, {"bf16", Scalar::BF16}}) {
    SCOPED_TRACE(type);
    interp::Buffer acc = buffer("acc", kind, 16), v = buffer("v", kind, 64), old = buffer("old", kind, 64),
                   fm = buffer("fm", Scalar::F32, 4), fv = buffer("fv", Scalar::F32, 64);
    fillUniform(acc, rng, -4, 4);
    fillUniform(v, rng, -4, 4);
    fillUniform(fm, rng, -1, 1);
    fillUniform(fv, rng, -1, 1);
    interp::writeElement(fv, 9, NAN);
    std::vector<interp::KernelArg> args{buf(acc), buf(v), buf(old), buf(fm), buf(fv)};
    Compiled k = compile(src, args, {{"TYPE", type}});
    runBoth(*k.fn, {1}, args);
    EXPECT_TRUE(std::isnan(interp::readElement(fm, 1)));
  }
}

// Every f16 bit pattern through casts (to f32, bf16, i32, f64 and back),
// arithmetic rounded to f16, exp/sqrt/rsqrt/tanh rounded from f64, and
// doubles of every magnitude narrowed to f16 and bf16 with one rounding.
TEST(CpuBackend, SixteenBitRoundingOnEveryPattern) {
  REQUIRE_CPU();
  FRESH_RNG();
  const char* src = R"(
    __global__ void k(half* h, double* d, half* o1, bf16* o2, int* o3, half* o4, half* o5, half* o6, bf16* o7,
                      half* o8, bf16* o9, long* l, bf16* o10) {
      int i[1024] = get_program_id(0) * 1024 + 0 ... 1024;
      half x[1024] = *(h + i);
      float f[1024] = x;
      *(o1 + i) = (half)(f * 1.5);
      *(o2 + i) = (bf16)x;
      *(o3 + i) = (int)x;
      *(o4 + i) = x * x + x;
      *(o5 + i) = exp(x) - sqrt(x);
      *(o6 + i) = rsqrt(x) + tanh(x);
      double y[1024] = *(d + i);
      *(o7 + i) = (bf16)y;
      *(o8 + i) = (half)y;
      *(o9 + i) = (bf16)x / (bf16)3;
      *(o10 + i) = (bf16)*(l + i);
    })";
  const int N = 65536;
  interp::Buffer h = buffer("h", Scalar::F16, N), d = buffer("d", Scalar::F64, N), l = buffer("l", Scalar::I64, N);
  for (int i = 0; i < N; ++i) {
    const uint16_t bits = uint16_t(i);
    std::memcpy(h.data.data() + 2 * i, &bits, 2);
  }
  std::uniform_real_distribution<double> mant(1, 2);
  std::uniform_int_distribution<int> expo(-150, 140);
  std::uniform_int_distribution<int64_t> wide(INT64_MIN, INT64_MAX);
  std::uniform_int_distribution<int> shift(0, 63);
  for (int i = 0; i < N; ++i) {
    interp::writeElement(d, i, (i & 1 ? -1 : 1) * std::ldexp(mant(rng), expo(rng)));
    const int64_t v = wide(rng) >> shift(rng);
    std::memcpy(l.data.data() + 8 * i, &v, 8);
  }
  std::vector<interp::Buffer> outs;
  const Scalar kinds[] = {Scalar::F16, Scalar::BF16, Scalar::I32, Scalar::F16, Scalar::F16,
                          Scalar::F16, Scalar::BF16, Scalar::F16, Scalar::BF16, Scalar::BF16};
  outs.reserve(10);
  for (int o = 0; o < 10; ++o) outs.push_back(buffer("o" + std::to_string(o + 1), kinds[o], N));
  std::vector<interp::KernelArg> args{buf(h), buf(d)};  // then o1..o9, l, o10
  for (int o = 0; o < 9; ++o) args.push_back(buf(outs[size_t(o)]));
  args.push_back(buf(l));
  args.push_back(buf(outs[9]));
  Compiled k = compile(src, args);
  runBoth(*k.fn, {N / 1024}, args);
  // And against the conversions of support/float16.h, for the direct ones.
  for (int i = 0; i < N; i += 97) {
    const double y = interp::readElement(d, i);
    EXPECT_EQ(interp::readElement(outs[7], i), halfToFloat(doubleToHalf(y))) << y;
    EXPECT_EQ(interp::readElement(outs[6], i), bf16ToFloat(doubleToBf16(y))) << y;
  }
}

// MIN / -1 wraps; by zero: -1 and the dividend, as the interpreter.
TEST(CpuBackend, IntegerDivision) {
  REQUIRE_CPU();
  const char* src = R"(
    __global__ void k(int* a, int* b, int* q, int* r) {
      int i[16] = get_program_id(0) * 16 + 0 ... 16;
      int x[16] = *(a + i);
      int y[16] = *(b + i);
      *(q + i) = x / y;
      *(r + i) = x % y;
    })";
  interp::Buffer a = buffer("a", Scalar::I32, 64), b = buffer("b", Scalar::I32, 64), q = buffer("q", Scalar::I32, 64),
                 r = buffer("r", Scalar::I32, 64);
  for (int i = 0; i < 64; ++i) {
    interp::writeElement(a, i, i % 2 ? -2147483648.0 : i * 7 - 200);
    interp::writeElement(b, i, i % 3 == 0 ? -1 : i % 5 - 2 == 0 ? 3 : i % 5 - 2);
  }
  std::vector<interp::KernelArg> args{buf(a), buf(b), buf(q), buf(r)};
  Compiled k = compile(src, args);
  runBoth(*k.fn, {4}, args);
  EXPECT_EQ(interp::readElement(q, 3), -2147483648.0);  // MIN / -1
  EXPECT_EQ(interp::readElement(r, 3), 0);
  interp::writeElement(b, 37, 0);  // program 2
  interp::writeElement(b, 40, 0);
  runBoth(*k.fn, {4}, args);
  EXPECT_EQ(interp::readElement(q, 37), -1);
  EXPECT_EQ(interp::readElement(r, 37), interp::readElement(a, 37));
  EXPECT_EQ(interp::readElement(q, 40), -1);
  EXPECT_EQ(interp::readElement(r, 40), interp::readElement(a, 40));
}

// Integers read as unsigned and bitcasts (test/kernels/data/unsigned_ops.tir)
// on random bits of every width: the CPU's bytes are the interpreter's, and
// the results are C++'s unsigned arithmetic.
TEST(CpuBackend, UnsignedIntegersAndBitcasts) {
  REQUIRE_CPU();
  FRESH_RNG();
  std::ifstream in(std::string(TRITONC_SOURCE_DIR) + "/test/kernels/data/unsigned_ops.tir");
  std::stringstream text;
  text << in.rdbuf();
  const size_t n = 128;
  auto bits = [&](const std::string& name, Scalar k, size_t count) {
    interp::Buffer b = buffer(name, k, count);
    for (uint8_t& byte : b.data) byte = uint8_t(rng());
    // Small values too, where the high bits are zero.
    for (size_t i = 0; i < count; i += 3) {
      const size_t w = size_t(ir::byteSize(k));
      for (size_t j = 1; j < w; ++j) b.data[i * w + j] = 0;
    }
    return b;
  };
  interp::Buffer A8 = bits("A8", Scalar::I8, n), B8 = bits("B8", Scalar::I8, n), A16 = bits("A16", Scalar::I16, n),
                 B16 = bits("B16", Scalar::I16, n), A32 = bits("A32", Scalar::I32, n),
                 B32 = bits("B32", Scalar::I32, n), A64 = bits("A64", Scalar::I64, n),
                 B64 = bits("B64", Scalar::I64, n), F = buffer("F", Scalar::F32, n);
  // Shift amounts below the width too (random bits are mostly above it).
  for (size_t i = 1; i < n; i += 4) {
    interp::writeElement(B8, int64_t(i), double(rng() % 8));
    interp::writeElement(B32, int64_t(i), double(rng() % 32));
    interp::writeElement(B64, int64_t(i), double(rng() % 64));
  }
  fillUniform(F, rng, -1000, 6e9);
  interp::writeElement(F, 5, std::nan(""));
  interp::Buffer O8 = buffer("O8", Scalar::I8, 8 * n), O16 = buffer("O16", Scalar::I16, 8 * n),
                 O32 = buffer("O32", Scalar::I32, 8 * n), O64 = buffer("O64", Scalar::I64, 8 * n),
                 OF = buffer("OF", Scalar::F32, 3 * n), OH = buffer("OH", Scalar::F16, 2 * n),
                 OD = buffer("OD", Scalar::F64, 3 * n), M32 = bits("M32", Scalar::I32, 3 * n + 3),
                 M64 = bits("M64", Scalar::I64, 2 * n + 1), OB = buffer("OB", Scalar::BF16, 3 * n);
  const interp::Buffer M32in = M32, M64in = M64;
  std::vector<interp::KernelArg> args{buf(A8), buf(B8), buf(A16), buf(B16), buf(A32), buf(B32), buf(A64),
                                      buf(B64), buf(F),  buf(O8), buf(O16), buf(O32), buf(O64), buf(OF),
                                      buf(OH),  buf(OD), buf(M32), buf(M64), buf(OB)};
  Compiled k = compile(text.str(), args, {}, 3, lang::Language::TritonIr);
  runBoth(*k.fn, {1}, args);
  auto u = [](const interp::Buffer& b, size_t i) {
    uint64_t v = 0;
    const size_t w = size_t(ir::byteSize(b.elem));
    std::memcpy(&v, b.data.data() + i * w, w);
    return v;
  };
  uint32_t maxA = 0, minA = UINT32_MAX;
  uint8_t maxA8 = 0;
  uint64_t minA64 = UINT64_MAX;
  for (size_t i = 0; i < n; ++i) {
    SCOPED_TRACE("element " + std::to_string(i));
    const uint64_t a8 = u(A8, i), b8 = u(B8, i) ? u(B8, i) : 1, a32 = u(A32, i), b32r = u(B32, i);
    const uint64_t b32 = b32r ? b32r : 1, a64 = u(A64, i), b64 = u(B64, i) ? u(B64, i) : 1, a16 = u(A16, i);
    EXPECT_EQ(u(O8, i), a8 / b8);
    EXPECT_EQ(u(O8, n + i), a8 % b8);
    // a logical shift by the width or more: 0
    EXPECT_EQ(u(O8, 2 * n + i), u(B8, i) >= 8 ? 0 : a8 >> u(B8, i));
    EXPECT_EQ(u(O8, 3 * n + i), std::max(a8, u(B8, i)));
    EXPECT_EQ(u(O8, 5 * n + i), a8 / 16);
    EXPECT_EQ(u(O8, 6 * n + i), a8 < u(B8, i) ? 1u : 0u);
    EXPECT_EQ(u(O16, 5 * n + i), a16 % 3);
    EXPECT_EQ(u(O16, 6 * n + i), a8);         // zero-extended
    EXPECT_EQ(u(O16, 7 * n + i), a16);        // bitcast to f16 and back
    EXPECT_EQ(u(O32, i), a32 / b32);
    EXPECT_EQ(u(O32, n + i), a32 % b32);
    EXPECT_EQ(u(O32, 2 * n + i), b32r >= 32 ? 0 : a32 >> b32r);
    EXPECT_EQ(u(O32, 4 * n + i), std::min(a32, b32r));
    EXPECT_EQ(u(O32, 6 * n + i), uint32_t((a32 >= b32r ? 1u : 0u) + a16));
    EXPECT_EQ(u(O64, i), a64 / b64);
    EXPECT_EQ(u(O64, n + i), a64 % b64);
    EXPECT_EQ(u(O64, 2 * n + i), u(B64, i) >= 64 ? 0 : a64 >> u(B64, i));
    EXPECT_EQ(u(O64, 3 * n + i), std::max(a64, u(B64, i)));
    EXPECT_EQ(u(O64, 5 * n + i), a32);
    EXPECT_EQ(u(O64, 7 * n + i), a8);
    EXPECT_EQ(interp::readElement(OF, i), double(float(a32)));
    EXPECT_EQ(interp::readElement(OD, i), double(a64));
    EXPECT_EQ(interp::readElement(OB, i), double(bf16ToFloat(doubleToBf16(double(a32)))));  // one rounding
    EXPECT_EQ(interp::readElement(OD, 2 * n + i), std::max(double(a64), double(a32)));
    const double f = interp::readElement(F, i);
    const uint64_t sat = std::isnan(f) || f <= 0 ? 0 : f >= 4294967296.0 ? UINT32_MAX : uint64_t(f);
    uint32_t fb;
    const float ff = float(f);
    std::memcpy(&fb, &ff, 4);
    if (!std::isnan(f)) EXPECT_EQ(u(O32, 7 * n + i), uint32_t(sat) ^ fb);
    EXPECT_EQ(u(M32, 2 * n + i), u(M32in, i));  // the old values
    EXPECT_EQ(u(M32, i), std::max(u(M32in, i), a32));
    EXPECT_EQ(u(M32, n + i), std::min(u(M32in, n + i), b32r));
    EXPECT_EQ(u(M64, i), std::min(u(M64in, i), a64));
    maxA = std::max(maxA, uint32_t(a32)), minA = std::min(minA, uint32_t(a32));
    maxA8 = std::max(maxA8, uint8_t(a8)), minA64 = std::min(minA64, a64);
  }
  EXPECT_EQ(u(M32, 3 * n), maxA);
  EXPECT_EQ(u(M32, 3 * n + 1), minA);
  EXPECT_EQ(u(M32, 3 * n + 2), maxA8);
  EXPECT_EQ(u(M64, 2 * n), minA64);
}

// Every program of a 3-D grid runs once with its own ids and the grid's size.
TEST(CpuBackend, GridPrograms) {
  REQUIRE_CPU();
  const char* src = R"(
    __global__ void k(int* out) {
      int x = get_program_id(0);
      int y = get_program_id(1);
      int z = get_program_id(2);
      int nx = get_num_programs(0);
      int ny = get_num_programs(1);
      int nz = get_num_programs(2);
      int id = (z * ny + y) * nx + x;
      int* p = out + id;
      *p = *p + x * 10000 + y * 100 + z + nz * 1000000;
    })";
  const int X = 37, Y = 11, Z = 5;
  interp::Buffer out = buffer("out", Scalar::I32, X * Y * Z);
  std::fill(out.data.begin(), out.data.end(), 0);
  std::vector<interp::KernelArg> args{buf(out)};
  Compiled k = compile(src, args);
  auto kernel = cpu::CpuKernel::compile(*k.fn);
  kernel->run({X, Y, Z}, args);
  for (int z = 0; z < Z; ++z)
    for (int y = 0; y < Y; ++y)
      for (int x = 0; x < X; ++x)
        ASSERT_EQ(interp::readElement(out, (z * Y + y) * X + x), x * 10000 + y * 100 + z + Z * 1000000);
}

// A child of fork() (Python's multiprocessing, a data loader) has none of
// the parent's worker threads: its launches make a pool of their own.
TEST(CpuBackend, LaunchesAfterFork) {
  REQUIRE_CPU();
  const char* src = R"(
    __global__ void k(int* out) {
      int i[64] = get_program_id(0) * 64 + 0 ... 64;
      *(out + i) = i * 3;
    })";
  interp::Buffer out = buffer("out", Scalar::I32, 64 * 500);
  std::vector<interp::KernelArg> args{buf(out)};
  Compiled k = compile(src, args);
  auto kernel = cpu::CpuKernel::compile(*k.fn);
  kernel->run({500}, args);  // the parent's pool exists now
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::fill(out.data.begin(), out.data.end(), 0);
    kernel->run({500}, args);
    bool ok = true;
    for (int i = 0; i < 64 * 500; ++i) ok = ok && interp::readElement(out, i) == 3.0 * i;
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
}

// Arguments are checked as the interpreter checks them.
TEST(CpuBackend, ArgumentErrors) {
  REQUIRE_CPU();
  const char* src = "__global__ void k(int n __multipleof(8), float* out) { *out = n; }";
  interp::Buffer out = buffer("out", Scalar::F32, 1);
  lang::CompileOptions o;
  lang::CompileResult r = lang::compileSource(src, o);
  auto kernel = cpu::CpuKernel::compile(*r.module->functions()[0]);
  auto message = [&](interp::Grid g, std::vector<interp::KernelArg> args) -> std::string {
    try {
      kernel->run(g, args);
    } catch (const UserError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(message({1}, {num(8)}).find("takes 2 arguments but 1 was given"), std::string::npos);
  EXPECT_NE(message({1}, {num(12), buf(out)}).find("multipleof(8)"), std::string::npos);
  EXPECT_NE(message({1}, {num(8), num(3)}).find("needs a buffer"), std::string::npos);
  EXPECT_NE(message({1}, {buf(out), buf(out)}).find("is a scalar"), std::string::npos);
  EXPECT_NE(message({1}, {num(8), interp::KernelArg::ofDevicePtr(4096)}).find("GPU address"), std::string::npos);
  EXPECT_NE(message({0, 1, 1}, {num(8), buf(out)}).find("grid dimensions must be >= 1"), std::string::npos);
  EXPECT_EQ(message({3}, {num(16), buf(out)}), "");
  EXPECT_EQ(interp::readElement(out, 0), 16);
}

}  // namespace
