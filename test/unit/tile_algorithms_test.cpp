// Triton-C's tile operations beyond Triton (SPEC R27; lang/irgen_tiles.cpp):
// element indexing, slices, sort, topk and topk_indices, and gather (the
// IR's own op, as the Python DSL's tl.gather), on the interpreter
// and (where built) the CPU back end, which must give the interpreter's
// bytes. Every value comes through a pick exactly: -0.0, infinities, NaN.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "unit/cpu_test_helpers.h"

namespace {

using namespace tritonc;
using namespace tritonc::cpu_test;
using ir::Scalar;

const char* kSource = R"(
__global__ void k(float* X, float* N, float* Y, int* I, float* S) {
  int c[16] = 0 ... 16;
  float x[16] = *(X + c);
  *(Y + (0 ... 8)) = x[8:16];
  *(Y + 8 + (0 ... 16)) = sort(x);
  *(Y + 24 + (0 ... 16)) = sort(x, 1);
  *(Y + 40 + (0 ... 4)) = topk(x, 4);
  *(I + (0 ... 4)) = topk_indices(x, 4);
  float n[4, 4] = *(N + (0 ... 4)[:, newaxis] * 4 + (0 ... 4)[newaxis, :]);
  *(Y + 44 + (0 ... 4)) = n[:, 2];
  *(Y + 48 + (0 ... 2)) = n[1, 2:4];
  *(S) = x[9];
  *(S + 1) = n[3, 0];
  *(S + 2) = x[:4][3];
})";

uint64_t bitsOf(double v) {
  uint64_t u;
  std::memcpy(&u, &v, 8);
  return u;
}

// `got` holds `want` exactly: the same bits as a double (NaN: any NaN).
void expectSame(double got, double want, const std::string& what) {
  if (std::isnan(want)) {
    EXPECT_TRUE(std::isnan(got)) << what << ": " << got;
  } else {
    EXPECT_EQ(bitsOf(got), bitsOf(want)) << what << ": " << got << ", want " << want;
  }
}

TEST(TileAlgorithms, IndicesSlicesSortAndTopkKeepEveryValue) {
  FRESH_RNG();
  interp::Buffer X = buffer("X", Scalar::F32, 16), N = buffer("N", Scalar::F32, 16);
  interp::Buffer Y = buffer("Y", Scalar::F32, 50), I = buffer("I", Scalar::I32, 4), S = buffer("S", Scalar::F32, 3);
  // Distinct values (the network's order of equal keys is its own), -0.0 among them.
  std::vector<double> x;
  for (int i = 0; i < 13; ++i) x.push_back(double(float(double(int64_t(rng() % 2000) - 1000) / 8 + i * 1e-3)));
  x.push_back(-0.0);
  x.push_back(INFINITY);
  x.push_back(-INFINITY);
  std::shuffle(x.begin(), x.end(), rng);
  std::swap(x[9], *std::find_if(x.begin(), x.end(), [](double v) { return v == 0; }));  // x[9] = -0.0
  for (int i = 0; i < 16; ++i) interp::writeElement(X, i, x[size_t(i)]);
  std::vector<double> n(16);
  for (int i = 0; i < 16; ++i) n[size_t(i)] = std::uniform_real_distribution<double>(-1, 1)(rng);
  n[1 * 4 + 2] = -0.0, n[2 * 4 + 2] = NAN, n[3 * 4 + 0] = -0.0, n[1 * 4 + 3] = -INFINITY;
  for (int i = 0; i < 16; ++i) interp::writeElement(N, i, float(n[size_t(i)]));
  std::vector<interp::KernelArg> args{buf(X), buf(N), buf(Y), buf(I), buf(S)};
  Compiled k = compile(kSource, args);
  if (cpu::available()) {
    runBoth(*k.fn, {1}, args);  // leaves the CPU's results, checked equal to the interpreter's
  } else {
    interp::runKernel(*k.fn, {1}, args);
  }
  std::vector<double> up = x;
  std::sort(up.begin(), up.end());
  std::vector<int> order(16);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) { return x[size_t(a)] > x[size_t(b)]; });
  auto nf = [&](int r, int c) { return double(float(n[size_t(r * 4 + c)])); };
  for (int i = 0; i < 8; ++i) expectSame(interp::readElement(Y, i), x[size_t(8 + i)], "x[8:16]");
  for (int i = 0; i < 16; ++i) {
    // -0.0 sorts among the values, its sign kept.
    expectSame(interp::readElement(Y, 8 + i), double(float(up[size_t(i)])), "sort(x)");
    expectSame(interp::readElement(Y, 24 + i), double(float(up[size_t(15 - i)])), "sort(x, 1)");
  }
  for (int i = 0; i < 4; ++i) {
    expectSame(interp::readElement(Y, 40 + i), double(float(x[size_t(order[size_t(i)])])), "topk(x, 4)");
    EXPECT_EQ(interp::readElement(I, i), order[size_t(i)]) << "topk_indices(x, 4)";
    expectSame(interp::readElement(Y, 44 + i), nf(i, 2), "n[:, 2]");
  }
  expectSame(interp::readElement(Y, 48), nf(1, 2), "n[1, 2:4]");
  expectSame(interp::readElement(Y, 49), nf(1, 3), "n[1, 2:4]");
  expectSame(interp::readElement(S, 0), -0.0, "x[9]");
  expectSame(interp::readElement(S, 1), -0.0, "n[3, 0]");
  expectSame(interp::readElement(S, 2), double(float(x[3])), "x[:4][3]");
}

const char* kGatherSource = R"(
__global__ void g(float* X, int* I, long* J, float* Y) {
  float x[8, 16] = *(X + (0 ... 8)[:, newaxis] * 16 + (0 ... 16)[newaxis, :]);
  int i[8, 32] = *(I + (0 ... 8)[:, newaxis] * 32 + (0 ... 32)[newaxis, :]);
  long j[4, 16] = *(J + (0 ... 4)[:, newaxis] * 16 + (0 ... 16)[newaxis, :]);
  *(Y + (0 ... 8)[:, newaxis] * 32 + (0 ... 32)[newaxis, :]) = gather(x, i, 1);
  *(Y + 256 + (0 ... 4)[:, newaxis] * 16 + (0 ... 16)[newaxis, :]) = gather(x, j, 0);
})";

TEST(TileAlgorithms, GatherAlongEitherAxisIsTakeAlongAxis) {
  FRESH_RNG();
  interp::Buffer X = buffer("X", Scalar::F32, 128), I = buffer("I", Scalar::I32, 256);
  interp::Buffer J = buffer("J", Scalar::I64, 64), Y = buffer("Y", Scalar::F32, 320);
  std::vector<double> x(128);
  for (int k = 0; k < 128; ++k) {
    x[size_t(k)] = double(float(std::uniform_real_distribution<double>(-4, 4)(rng)));
    interp::writeElement(X, k, x[size_t(k)]);
  }
  x[37] = -0.0;
  interp::writeElement(X, 37, -0.0);
  std::vector<int64_t> i(256), j(64);
  for (int k = 0; k < 256; ++k) interp::writeElement(I, k, double(i[size_t(k)] = int64_t(rng() % 16)));
  for (int k = 0; k < 64; ++k) interp::writeElement(J, k, double(j[size_t(k)] = int64_t(rng() % 8)));
  for (int k = 0; k < 320; ++k) interp::writeElement(Y, k, NAN);
  std::vector<interp::KernelArg> args{buf(X), buf(I), buf(J), buf(Y)};
  Compiled c = compile(kGatherSource, args);
  if (cpu::available()) {
    runBoth(*c.fn, {1}, args);
  } else {
    interp::runKernel(*c.fn, {1}, args);
  }
  for (int r = 0; r < 8; ++r)
    for (int k = 0; k < 32; ++k)
      expectSame(interp::readElement(Y, r * 32 + k), x[size_t(r * 16 + i[size_t(r * 32 + k)])], "gather(x, i, 1)");
  for (int r = 0; r < 4; ++r)
    for (int k = 0; k < 16; ++k)
      expectSame(interp::readElement(Y, 256 + r * 16 + k), x[size_t(j[size_t(r * 16 + k)] * 16 + k)],
                 "gather(x, j, 0)");
}

}  // namespace
