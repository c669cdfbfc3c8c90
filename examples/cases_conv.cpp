// Convolutions: the paper's fused shift convolution (Listing 8) and the dense
// convolution by implicit GEMM (paper 6.2.1).
#include <algorithm>
#include <cmath>

#include "cases.h"

namespace tritonc::examples {

namespace {

using interp::KernelArg;
using ir::Scalar;


// Shift convolution. Each of the K input channels is an H x W image stored
// zero-padded by one pixel on every side (Hp x Wp = (H+2) x (W+2)), channels
// Hp*Wp apart. Output pixel m = y*Wp + x (y < H, x < Wp: the last two columns
// of a row are don't-care pixels of the padded grid) reads channel k shifted by
// (sh, sw) in {0,1,2}^2, i.e. a shift of -1..+1 around the pixel:
//   delta[k] = k*Hp*Wp + sh*Wp + sw,  c[m + n*M] = sum_k a[m + delta[k]] * b[k*N + n].
// The kernel does not bounds-check `a` or `b`: `a` gets slack up to the last
// tile row (cdiv(M, TM) * TM) and `b` up to cdiv(N, TN) * TN columns.
Launch shiftConv(const Params& p, std::mt19937_64& rng) {
  Launch L;
  const int64_t H = p("H"), W = p("W"), K = p("K"), N = p("N");
  const int64_t Hp = H + 2, Wp = W + 2, M = H * Wp;
  const int64_t TM = p("TM"), TN = p("TN");
  // TK is `tunable {8}`: a one-value list is no tuning parameter, so it is not reported.
  if (K % p.get("TK", 8) != 0 || K > 512) throw std::invalid_argument("shift_conv: K must be a multiple of TK and <= 512");

  std::vector<int32_t> delta(static_cast<size_t>(K));
  std::uniform_int_distribution<int> shift(0, 2);
  int64_t maxDelta = 0;
  for (int64_t k = 0; k < K; ++k) {
    const int sh = shift(rng), sw = shift(rng);
    delta[size_t(k)] = int32_t(k * Hp * Wp + sh * Wp + sw);
    maxDelta = std::max<int64_t>(maxDelta, delta[size_t(k)]);
  }
  const int64_t aSize = std::max(K * Hp * Wp, maxDelta + cdiv(M, TM) * TM);
  interp::Buffer* a = L.newBuffer("a", Scalar::F32, aSize);
  std::uniform_real_distribution<double> dist(-1, 1);
  for (int64_t k = 0; k < K; ++k)  // random interiors; borders and slack stay 0
    for (int64_t y = 1; y <= H; ++y)
      for (int64_t x = 1; x <= W; ++x) writeElement(*a, k * Hp * Wp + y * Wp + x, dist(rng));
  interp::Buffer* b = L.newBuffer("b", Scalar::F32, K * N + cdiv(N, TN) * TN - N);
  fillRandom(*b, rng);
  interp::Buffer* c = L.newBuffer("c", Scalar::F32, M * N);
  poison(*c);
  interp::Buffer* d = L.newBuffer("delta", Scalar::I32, K);
  for (int64_t k = 0; k < K; ++k) writeElement(*d, k, delta[size_t(k)]);

  L.args = {P(a), P(b), P(c), I(M), I(N), I(K), P(d)};
  L.grid = {cdiv(M, TM), cdiv(N, TN), 1};
  L.sizes = "H=" + std::to_string(H) + " W=" + std::to_string(W) + " (M=" + std::to_string(M) +
            ") N=" + std::to_string(N) + " K=" + std::to_string(K);
  std::vector<double> ref(static_cast<size_t>(M * N));
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double acc = 0;
      for (int64_t k = 0; k < K; ++k) acc += readElement(*a, m + delta[size_t(k)]) * readElement(*b, k * N + n);
      ref[size_t(m + n * M)] = acc;
    }
  L.expected.push_back({c, std::move(ref)});
  L.tolerance = toleranceFor(Scalar::F32);
  return L;
}

// Dense convolution, stride 1, NCHW: X is B x C x H x W, Wt is K x C x R x S,
// Y is B x K x P x Q with P = H + 2*pad_h - R + 1 (and Q likewise).
Launch convImplicitGemm(const Params& p, std::mt19937_64& rng, Scalar t) {
  Launch L;
  const int64_t B = p("B"), C = p("C"), H = p("H"), W = p("W"), K = p("K"), R = p("R"), S = p("S");
  const int64_t ph = p("PH"), pw = p("PW");
  const int64_t P_ = H + 2 * ph - R + 1, Q = W + 2 * pw - S + 1;
  interp::Buffer* X = L.newBuffer("X", t, B * C * H * W);
  interp::Buffer* Wt = L.newBuffer("Wt", t, K * C * R * S);
  interp::Buffer* Y = L.newBuffer("Y", t, B * K * P_ * Q);
  fillRandom(*X, rng);
  fillRandom(*Wt, rng);
  poison(*Y);
  L.args = {P(X), P(Wt), P(Y), I(B), I(C), I(H), I(W), I(K), I(P_), I(Q), I(R), I(S), I(ph), I(pw)};
  L.grid = {cdiv(B * P_ * Q, p("TM")), cdiv(K, p("TN")), 1};
  L.sizes = "B=" + std::to_string(B) + " C=" + std::to_string(C) + " H=" + std::to_string(H) +
            " W=" + std::to_string(W) + " K=" + std::to_string(K) + " R=" + std::to_string(R) +
            " S=" + std::to_string(S) + " pad=" + std::to_string(ph) + "," + std::to_string(pw);
  std::vector<double> ref(static_cast<size_t>(B * K * P_ * Q));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t k = 0; k < K; ++k)
      for (int64_t y = 0; y < P_; ++y)
        for (int64_t x = 0; x < Q; ++x) {
          double acc = 0;
          for (int64_t c = 0; c < C; ++c)
            for (int64_t r = 0; r < R; ++r)
              for (int64_t s = 0; s < S; ++s) {
                const int64_t h = y + r - ph, w = x + s - pw;
                if (h < 0 || h >= H || w < 0 || w >= W) continue;
                acc += readElement(*X, ((b * C + c) * H + h) * W + w) * readElement(*Wt, ((k * C + c) * R + r) * S + s);
              }
          ref[size_t(((b * K + k) * P_ + y) * Q + x)] = acc;
        }
  L.expected.push_back({Y, std::move(ref)});
  L.tolerance = toleranceFor(t);
  return L;
}

}  // namespace

void addConvCases(std::vector<Case>& out) {
  // Tiles come from the file's `tunable` lists (the first values: the example table is not tuned).
  out.push_back({"shift_conv", "examples/shift_conv.tc", {},
                 {{"H", 10}, {"W", 10}, {"K", 32}, {"N", 32}},
                 {{"H", 16}, {"W", 16}, {"K", 64}, {"N", 48}},
                 [](const Params& p, std::mt19937_64& r) { return shiftConv(p, r); }});

  for (const char* type : {"float", "half"}) {
    const Scalar t = scalarOfType(type);
    const std::string sfx = t == Scalar::F16 ? "f16" : "f32";
    const std::vector<lang::Define> d = {{"TYPE", type}, {"TM", "32"}, {"TN", "16"}, {"TK", t == Scalar::F16 ? "16" : "8"}};
    auto build = [t](const Params& p, std::mt19937_64& r) { return convImplicitGemm(p, r, t); };
    // 3x3 with padding 1; every dimension ragged with respect to the tiles.
    out.push_back({"conv_implicit_gemm_3x3_" + sfx, "examples/conv_implicit_gemm.tc", d,
                   {{"B", 2}, {"C", 3}, {"H", 9}, {"W", 9}, {"K", 5}, {"R", 3}, {"S", 3}, {"PH", 1}, {"PW", 1}},
                   {{"B", 2}, {"C", 8}, {"H", 16}, {"W", 15}, {"K", 24}, {"R", 3}, {"S", 3}, {"PH", 1}, {"PW", 1}},
                   build});
    // Non-square filter, no padding, unequal H and W.
    out.push_back({"conv_implicit_gemm_2x3_" + sfx, "examples/conv_implicit_gemm.tc", d,
                   {{"B", 1}, {"C", 4}, {"H", 7}, {"W", 10}, {"K", 20}, {"R", 2}, {"S", 3}, {"PH", 0}, {"PW", 0}},
                   {{"B", 3}, {"C", 5}, {"H", 12}, {"W", 9}, {"K", 33}, {"R", 2}, {"S", 3}, {"PH", 0}, {"PW", 1}},
                   build});
  }
}

}  // namespace tritonc::examples
