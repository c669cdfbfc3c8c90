// Kernels as users write them: masked matrix products at ragged sizes (A B
// and A B^T), split-K with atomic additions, an NHWC convolution, and fused
// attention. Every size here is chosen not to divide the tiles.
#include <cmath>
#include <limits>
#include <tuple>

#include "cases.h"

namespace tritonc::examples {

namespace {

using interp::KernelArg;
using ir::Scalar;

KernelArg F(double v) { return KernelArg::ofFloat(v); }

// Row-major C = A B (B stored K x N) or A B^T (B stored N x K) with
// leading dimensions padded by PAD elements (0 by default): the padding of
// C must keep its poison. bench/kernels/matmul_masked*.tc.
Launch maskedDot(const Params& p, std::mt19937_64& rng, Scalar t, bool transB) {
  Launch L;
  const int64_t M = p("M"), N = p("N"), K = p("K"), pad = p.get("PAD", 0);
  const int64_t lda = K + pad, ldb = (transB ? K : N) + pad, ldc = N + pad;
  interp::Buffer* A = L.newBuffer("A", t, M * lda);
  interp::Buffer* B = L.newBuffer("B", t, (transB ? N : K) * ldb);
  interp::Buffer* C = L.newBuffer("C", t, M * ldc);
  fillRandom(*A, rng);
  fillRandom(*B, rng);
  poison(*C);
  L.args = {P(A), P(B), P(C), I(M), I(N), I(K), I(lda), I(ldb), I(ldc)};
  L.grid = {cdiv(M, p("TM")), cdiv(N, p("TN")), 1};
  L.sizes = "M=" + std::to_string(M) + " N=" + std::to_string(N) + " K=" + std::to_string(K) +
            " pad=" + std::to_string(pad);
  L.expected.push_back({C, referenceProduct(
                               *A, *B, M, N, K, [&](int64_t m, int64_t k) { return m * lda + k; },
                               [&](int64_t k, int64_t n) { return transB ? n * ldb + k : k * ldb + n; },
                               [&](int64_t m, int64_t n) { return m * ldc + n; }, M * ldc)});
  L.tolerance = toleranceFor(t);
  return L;
}

// Split-K: C (f32) starts at zero and every program adds its slice of K.
Launch splitK(const Params& p, std::mt19937_64& rng, Scalar t) {
  Launch L;
  const int64_t M = p("M"), N = p("N"), K = p("K");
  interp::Buffer* A = L.newBuffer("A", t, M * K);
  interp::Buffer* B = L.newBuffer("B", t, K * N);
  interp::Buffer* C = L.newBuffer("C", Scalar::F32, M * N);  // zero: the kernel accumulates
  fillRandom(*A, rng);
  fillRandom(*B, rng);
  L.args = {P(A), P(B), P(C), I(M), I(N), I(K), I(K), I(N), I(N)};
  L.grid = {cdiv(M, p("TM")), cdiv(N, p("TN")), p("SPLIT")};
  L.sizes = "M=" + std::to_string(M) + " N=" + std::to_string(N) + " K=" + std::to_string(K) +
            " split=" + std::to_string(p("SPLIT"));
  L.expected.push_back({C, referenceProduct(
                               *A, *B, M, N, K, [&](int64_t m, int64_t k) { return m * K + k; },
                               [&](int64_t k, int64_t n) { return k * N + n; }, [&](int64_t m, int64_t n) { return m * N + n; },
                               M * N)});
  L.tolerance = 1e-4;
  return L;
}

// NHWC convolution, stride 1: X is B x H x W x C, Wt is K x R x S x C, Y is
// B x P x Q x K with P = H + 2*pad_h - R + 1 (and Q likewise). With
// `splitK` (conv_nhwc_splitk.tc), Y is f32 and starts at zero.
Launch convNhwc(const Params& p, std::mt19937_64& rng, Scalar t, bool splitK = false) {
  Launch L;
  const int64_t B = p("B"), C = p("C"), H = p("H"), W = p("W"), K = p("K"), R = p("R"), S = p("S");
  const int64_t ph = p("PH"), pw = p("PW");
  const int64_t P_ = H + 2 * ph - R + 1, Q = W + 2 * pw - S + 1;
  interp::Buffer* X = L.newBuffer("X", t, B * H * W * C);
  interp::Buffer* Wt = L.newBuffer("Wt", t, K * R * S * C);
  interp::Buffer* Y = L.newBuffer("Y", splitK ? Scalar::F32 : t, B * P_ * Q * K);
  fillRandom(*X, rng);
  fillRandom(*Wt, rng);
  if (!splitK) poison(*Y);  // (split-K adds into it)
  L.args = {P(X), P(Wt), P(Y), I(B), I(C), I(H), I(W), I(K), I(P_), I(Q), I(R), I(S), I(ph), I(pw)};
  L.grid = {cdiv(B * P_ * Q, p("TM")), cdiv(K, p("TN")), splitK ? p("SPLIT") : 1};
  L.sizes = "B=" + std::to_string(B) + " C=" + std::to_string(C) + " H=" + std::to_string(H) +
            " W=" + std::to_string(W) + " K=" + std::to_string(K) + " R=" + std::to_string(R) +
            " S=" + std::to_string(S) + " pad=" + std::to_string(ph) + "," + std::to_string(pw);
  std::vector<double> ref(size_t(B * P_ * Q * K));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t y = 0; y < P_; ++y)
      for (int64_t x = 0; x < Q; ++x)
        for (int64_t k = 0; k < K; ++k) {
          double acc = 0;
          for (int64_t r = 0; r < R; ++r)
            for (int64_t s = 0; s < S; ++s) {
              const int64_t h = y + r - ph, w = x + s - pw;
              if (h < 0 || h >= H || w < 0 || w >= W) continue;
              for (int64_t c = 0; c < C; ++c)
                acc += readElement(*X, ((b * H + h) * W + w) * C + c) * readElement(*Wt, ((k * R + r) * S + s) * C + c);
            }
          ref[size_t(((b * P_ + y) * Q + x) * K + k)] = acc;
        }
  L.expected.push_back({Y, std::move(ref)});
  L.tolerance = toleranceFor(t);
  return L;
}

// Attention: O = softmax(Q K^T / sqrt(HEAD), masked when causal) V per
// (batch, head); Q, K, V, O are BH x L x HEAD.
Launch attention(const Params& p, std::mt19937_64& rng, Scalar t, bool causal) {
  Launch L;
  const int64_t BH = p("BH"), Len = p("L"), D = p("HEAD");
  const double scale = 1 / std::sqrt(double(D));
  interp::Buffer* Qb = L.newBuffer("Q", t, BH * Len * D);
  interp::Buffer* Kb = L.newBuffer("K", t, BH * Len * D);
  interp::Buffer* Vb = L.newBuffer("V", t, BH * Len * D);
  interp::Buffer* Ob = L.newBuffer("O", t, BH * Len * D);
  fillRandom(*Qb, rng, -2, 2);
  fillRandom(*Kb, rng, -2, 2);
  fillRandom(*Vb, rng);
  poison(*Ob);
  L.args = {P(Qb), P(Kb), P(Vb), P(Ob), I(Len), F(scale)};
  L.grid = {cdiv(Len, p("BM")), BH, 1};
  L.sizes = "BH=" + std::to_string(BH) + " L=" + std::to_string(Len) + " HEAD=" + std::to_string(D) +
            (causal ? " causal" : "");
  std::vector<double> ref(size_t(BH * Len * D));
  std::vector<double> s(static_cast<size_t>(Len));
  for (int64_t bh = 0; bh < BH; ++bh) {
    const int64_t base = bh * Len * D;
    for (int64_t i = 0; i < Len; ++i) {
      const int64_t last = causal ? i : Len - 1;
      double mx = -std::numeric_limits<double>::infinity(), sum = 0;
      for (int64_t j = 0; j <= last; ++j) {
        double dotp = 0;
        for (int64_t d = 0; d < D; ++d) dotp += readElement(*Qb, base + i * D + d) * readElement(*Kb, base + j * D + d);
        s[size_t(j)] = dotp * scale;
        mx = std::max(mx, s[size_t(j)]);
      }
      for (int64_t j = 0; j <= last; ++j) sum += s[size_t(j)] = std::exp(s[size_t(j)] - mx);
      for (int64_t d = 0; d < D; ++d) {
        double o = 0;
        for (int64_t j = 0; j <= last; ++j) o += s[size_t(j)] * readElement(*Vb, base + j * D + d);
        ref[size_t(base + i * D + d)] = o / sum;
      }
    }
  }
  L.expected.push_back({Ob, std::move(ref)});
  L.tolerance = toleranceFor(t);
  return L;
}

}  // namespace

void addMaskedCases(std::vector<Case>& out) {
  // Masked products at ragged sizes: small tiles (mma.sync or FMA), and the
  // warpgroup tiles of sm_90a with eight warps; A B and A B^T; f16, bf16, f32
  // (64 x 128 at 4 warps: FMA register blocks of 8 x 8 results a thread).
  struct Mm {
    const char* type; const char* tm; const char* tn; const char* tk; int warps;
  };
  for (bool transB : {false, true})
    for (Mm m : {Mm{"half", "32", "32", "16", 4}, Mm{"half", "128", "128", "64", 8}, Mm{"bf16", "64", "64", "32", 4},
                 Mm{"float", "32", "32", "16", 4}, Mm{"float", "64", "128", "32", 4}}) {
      const Scalar t = scalarOfType(m.type);
      const char* sfx = t == Scalar::F16 ? "f16" : t == Scalar::BF16 ? "bf16" : "f32";
      // The large tiles get leading dimensions that are multiples of 8 (16-byte
      // rows, the async-copy path); the others odd ones (element-wise loads).
      const bool big = std::string(m.tm) == "128" || std::string(m.tn) == "128";
      Case c{std::string("matmul_masked_") + (transB ? "nt_" : "nn_") + sfx + "_" + m.tm + "x" + m.tn + "x" + m.tk,
             transB ? "bench/kernels/matmul_masked_nt.tc" : "bench/kernels/matmul_masked.tc",
             {{"TYPE", m.type}, {"TM", m.tm}, {"TN", m.tn}, {"TK", m.tk}},
             big ? std::map<std::string, int64_t>{{"M", 77}, {"N", 72}, {"K", 88}}
                 : std::map<std::string, int64_t>{{"M", 77}, {"N", 45}, {"K", 50}},
             {{"M", 300}, {"N", 200}, {"K", 136}, {"PAD", 8}},
             [t, transB](const Params& p, std::mt19937_64& r) { return maskedDot(p, r, t, transB); }};
      c.numWarps = m.warps;
      out.push_back(c);
    }

  // f32 with tf32 inputs at the warpgroup tiles: x @ w.T (B K-contiguous)
  // on wgmma's tf32 steps from TMA rings (K tiles of one and of two 128-byte
  // swizzle blocks), A B on mma.sync.
  struct Tf32 {
    bool transB; const char* tm; const char* tn; const char* tk; int warps;
  };
  for (Tf32 m : {Tf32{true, "128", "128", "32", 8}, Tf32{true, "64", "64", "64", 4}, Tf32{false, "128", "128", "32", 8}}) {
    Case c{std::string("matmul_masked_") + (m.transB ? "nt" : "nn") + "_tf32_" + m.tm + "x" + m.tn + "x" + m.tk,
           m.transB ? "bench/kernels/matmul_masked_nt.tc" : "bench/kernels/matmul_masked.tc",
           {{"TYPE", "float"}, {"TM", m.tm}, {"TN", m.tn}, {"TK", m.tk}},
           {{"M", 77}, {"N", 136}, {"K", 100}},
           {{"M", 300}, {"N", 200}, {"K", 392}, {"PAD", 8}},
           [transB = m.transB](const Params& p, std::mt19937_64& r) {
             Launch l = maskedDot(p, r, Scalar::F32, transB);
             l.tolerance = 2e-2;  // tf32: 10-bit mantissas
             return l;
           }};
    c.numWarps = m.warps;
    c.tf32 = true;
    out.push_back(c);
  }

  // num_ctas = 2 (gpu-multicast on sm_90a): B's boxes (two 128-byte
  // blocks) multicast to pairs of programs along M; an even grid x (test: 2)
  // launches clusters of two, an odd one (demo: 5) each program alone.
  {
    Case c{"matmul_masked_nn_f16_128x128x64_num_ctas_2", "bench/kernels/matmul_masked.tc",
           {{"TYPE", "half"}, {"TM", "128"}, {"TN", "128"}, {"TK", "64"}, {"num_ctas", "2"}},
           {{"M", 200}, {"N", 136}, {"K", 88}},
           {{"M", 520}, {"N", 200}, {"K", 136}, {"PAD", 8}},
           [](const Params& p, std::mt19937_64& r) { return maskedDot(p, r, Scalar::F16, false); }};
    c.numWarps = 8;
    out.push_back(c);
  }

  // num_ctas = 4: A's boxes (one 128-byte block, halved by rows) multicast
  // to pairs along N too, in clusters of 2 x 2 where both grid extents are
  // even (test of the first: 4 x 2), of 2 x 1 or 1 x 2 where one is (demo of
  // the first: 4 x 3; test of the second: 3 x 2), alone where neither is.
  for (const auto& [suffix, test, demo] :
       {std::tuple<const char*, std::map<std::string, int64_t>, std::map<std::string, int64_t>>{
            "", {{"M", 200}, {"N", 200}, {"K", 88}}, {{"M", 250}, {"N", 330}, {"K", 136}, {"PAD", 8}}},
        {"_odd_x", {{"M", 150}, {"N", 250}, {"K", 72}}, {{"M", 190}, {"N", 300}, {"K", 200}, {"PAD", 8}}}}) {
    Case c{std::string("matmul_masked_nn_f16_64x128x64_num_ctas_4") + suffix, "bench/kernels/matmul_masked.tc",
           {{"TYPE", "half"}, {"TM", "64"}, {"TN", "128"}, {"TK", "64"}, {"num_ctas", "4"}},
           test, demo,
           [](const Params& p, std::mt19937_64& r) { return maskedDot(p, r, Scalar::F16, false); }};
    c.numWarps = 4;
    out.push_back(c);
  }

  out.push_back({"matmul_splitk_f16", "examples/matmul_splitk.tc",
                 {{"TYPE", "half"}, {"TM", "64"}, {"TN", "64"}, {"TK", "32"}, {"SPLIT", "3"}},
                 {{"M", 70}, {"N", 72}, {"K", 200}},
                 {{"M", 130}, {"N", 200}, {"K", 1000}},
                 [](const Params& p, std::mt19937_64& r) { return splitK(p, r, Scalar::F16); }});

  for (const char* type : {"half", "float"}) {
    const Scalar t = scalarOfType(type);
    const std::string sfx = t == Scalar::F16 ? "f16" : "f32";
    out.push_back({"conv_nhwc_3x3_" + sfx, "examples/conv_nhwc.tc",
                   {{"TYPE", type}, {"TM", "64"}, {"TN", "32"}, {"TK", "32"}},
                   {{"B", 2}, {"C", 8}, {"H", 9}, {"W", 7}, {"K", 20}, {"R", 3}, {"S", 3}, {"PH", 1}, {"PW", 1}},
                   {{"B", 2}, {"C", 16}, {"H", 16}, {"W", 15}, {"K", 40}, {"R", 3}, {"S", 3}, {"PH", 1}, {"PW", 1}},
                   [t](const Params& p, std::mt19937_64& r) { return convNhwc(p, r, t); }});
  }
  // Few output pixels, deep reduction: split-K with atomic additions.
  out.push_back({"conv_nhwc_splitk_f16", "examples/conv_nhwc_splitk.tc",
                 {{"TYPE", "half"}, {"TM", "64"}, {"TN", "32"}, {"TK", "32"}, {"SPLIT", "3"}},
                 {{"B", 2}, {"C", 24}, {"H", 5}, {"W", 6}, {"K", 40}, {"R", 3}, {"S", 3}, {"PH", 0}, {"PW", 1}},
                 {{"B", 2}, {"C", 64}, {"H", 7}, {"W", 7}, {"K", 72}, {"R", 3}, {"S", 3}, {"PH", 1}, {"PW", 1}},
                 [](const Params& p, std::mt19937_64& r) {
                   Launch l = convNhwc(p, r, Scalar::F16, true);
                   l.tolerance = 1e-4;  // f32 sums of f16 products
                   return l;
                 }});
  out.push_back({"conv_nhwc_5x10_f16", "examples/conv_nhwc.tc",
                 {{"TYPE", "half"}, {"TM", "64"}, {"TN", "32"}, {"TK", "32"}},
                 {{"B", 1}, {"C", 3}, {"H", 12}, {"W", 14}, {"K", 5}, {"R", 5}, {"S", 10}, {"PH", 0}, {"PW", 0}},
                 {{"B", 2}, {"C", 32}, {"H", 20}, {"W", 24}, {"K", 32}, {"R", 5}, {"S", 10}, {"PH", 0}, {"PW", 0}},
                 [](const Params& p, std::mt19937_64& r) { return convNhwc(p, r, Scalar::F16); }});

  for (bool causal : {false, true})
    for (const char* head : {"64", "32"}) {
      Case c{std::string("attention_f16_d") + head + (causal ? "_causal" : ""), "examples/attention.tc",
             {{"TYPE", "half"}, {"BM", "64"}, {"BN", "32"}, {"HEAD", head}, {"CAUSAL", causal ? "1" : "0"}},
             {{"BH", 2}, {"L", 100}},
             {{"BH", 3}, {"L", 300}},
             [causal](const Params& p, std::mt19937_64& r) { return attention(p, r, Scalar::F16, causal); }};
      out.push_back(c);
    }
}

}  // namespace tritonc::examples
