// Matrix multiplications: the tutorial's dot kernels (plain, pre-fetched,
// rematerialized, fused transpositions) and the paper's bounds-checked C = A B^T.
// The kernels accumulate in f32 and store the result in TYPE; the reference
// accumulates the same (decoded) inputs in double.
#include <cmath>
#include <tuple>

#include "cases.h"

namespace tritonc::examples {

namespace {

using interp::KernelArg;
using ir::Scalar;


std::string mnk(int64_t M, int64_t N, int64_t K) {
  return "M=" + std::to_string(M) + " N=" + std::to_string(N) + " K=" + std::to_string(K);
}

// C = op(A) op(B) for the tutorial's row-major dot kernels; M, N, K are
// multiples of the tiles and the grid is (M / TM) x (N / TN).
//   A:   A[m*lda + k] (M x K), or transA: A[k*lda + m] (A^T stored K x M)
//   B:   B[k*ldb + n] (K x N), or transB: B[n*ldb + k] (B^T stored N x K)
//   C:   C[m*ldc + n]
// Each leading dimension has 8 elements of padding (they are __multipleof(8));
// the padding of C must stay untouched.
Launch dot(const Params& p, std::mt19937_64& rng, Scalar t, bool transA, bool transB) {
  Launch L;
  const int64_t M = p("M"), N = p("N"), K = p("K"), pad = 8;
  const int64_t lda = (transA ? M : K) + pad, ldb = (transB ? K : N) + pad, ldc = N + pad;
  interp::Buffer* A = L.newBuffer("A", t, (transA ? K : M) * lda);
  interp::Buffer* B = L.newBuffer("B", t, (transB ? N : K) * ldb);
  interp::Buffer* C = L.newBuffer("C", t, M * ldc);
  fillRandom(*A, rng);
  fillRandom(*B, rng);
  poison(*C);
  L.args = {P(A), P(B), P(C), I(M), I(N), I(K), I(lda), I(ldb), I(ldc)};
  L.grid = {M / p("TM"), N / p("TN"), 1};
  L.sizes = mnk(M, N, K) + " ld=" + std::to_string(lda) + "/" + std::to_string(ldb) + "/" + std::to_string(ldc);
  L.expected.push_back({C, referenceProduct(
                               *A, *B, M, N, K, [&](int64_t m, int64_t k) { return transA ? k * lda + m : m * lda + k; },
                               [&](int64_t k, int64_t n) { return transB ? n * ldb + k : k * ldb + n; },
                               [&](int64_t m, int64_t n) { return m * ldc + n; }, M * ldc)});
  L.tolerance = toleranceFor(t);
  return L;
}

// C = A B^T, column-major, any M, N, K: a[m + k*M], b[n + k*N], c[m + n*M].
Launch matmulNT(const Params& p, std::mt19937_64& rng) {
  Launch L;
  const int64_t M = p("M"), N = p("N"), K = p("K");
  interp::Buffer* a = L.newBuffer("a", Scalar::F32, M * K);
  interp::Buffer* b = L.newBuffer("b", Scalar::F32, N * K);
  interp::Buffer* c = L.newBuffer("c", Scalar::F32, M * N);
  fillRandom(*a, rng);
  fillRandom(*b, rng);
  poison(*c);
  L.args = {P(a), P(b), P(c), I(M), I(N), I(K)};
  L.grid = {cdiv(M, p("TM")), cdiv(N, p("TN")), 1};
  L.sizes = mnk(M, N, K);
  L.expected.push_back({c, referenceProduct(
                               *a, *b, M, N, K, [&](int64_t m, int64_t k) { return m + k * M; },
                               [&](int64_t k, int64_t n) { return n + k * N; }, [&](int64_t m, int64_t n) { return m + n * M; },
                               M * N)});
  L.tolerance = toleranceFor(Scalar::F32);
  return L;
}

// C = A B for matmul_int.tc: int32 inputs in [-100, 100], an exact reference.
Launch intDot(const Params& p, std::mt19937_64& rng) {
  Launch L;
  const int64_t M = p("M"), N = p("N"), K = p("K"), pad = 8;
  const int64_t lda = K + pad, ldb = N + pad, ldc = N + pad;
  interp::Buffer* A = L.newBuffer("A", Scalar::I32, M * lda);
  interp::Buffer* B = L.newBuffer("B", Scalar::I32, K * ldb);
  interp::Buffer* C = L.newBuffer("C", Scalar::I32, M * ldc);
  fillRandom(*A, rng, -100, 100);
  fillRandom(*B, rng, -100, 100);
  poison(*C);
  L.args = {P(A), P(B), P(C), I(M), I(N), I(K), I(lda), I(ldb), I(ldc)};
  L.grid = {M / p("TM"), N / p("TN"), 1};
  L.sizes = mnk(M, N, K);
  L.expected.push_back({C, referenceProduct(
                               *A, *B, M, N, K, [&](int64_t m, int64_t k) { return m * lda + k; },
                               [&](int64_t k, int64_t n) { return k * ldb + n; },
                               [&](int64_t m, int64_t n) { return m * ldc + n; }, M * ldc)});
  L.tolerance = 0;
  return L;
}

// C = A B for matmul_i8.tc: int8 inputs over their whole range, any M, N,
// K (masked; the rows of A and B padded to 16-byte multiples, C's by 4
// elements, which must stay untouched), an exact reference.
Launch i8Dot(const Params& p, std::mt19937_64& rng, bool transB) {
  Launch L;
  const int64_t M = p("M"), N = p("N"), K = p("K");
  auto padded = [](int64_t n) { return (n + 15) / 16 * 16 + 16; };
  const int64_t lda = padded(K), ldb = transB ? padded(K) : padded(N), ldc = N + 4;
  interp::Buffer* A = L.newBuffer("A", Scalar::I8, M * lda);
  interp::Buffer* B = L.newBuffer("B", Scalar::I8, (transB ? N : K) * ldb);
  interp::Buffer* C = L.newBuffer("C", Scalar::I32, M * ldc);
  fillRandom(*A, rng, -128, 128);
  fillRandom(*B, rng, -128, 128);
  poison(*C);
  L.args = {P(A), P(B), P(C), I(M), I(N), I(K), I(lda), I(ldb), I(ldc)};
  L.grid = {cdiv(M, p("TM")), cdiv(N, p("TN")), 1};
  L.sizes = mnk(M, N, K);
  L.expected.push_back({C, referenceProduct(
                               *A, *B, M, N, K, [&](int64_t m, int64_t k) { return m * lda + k; },
                               [&](int64_t k, int64_t n) { return transB ? n * ldb + k : k * ldb + n; },
                               [&](int64_t m, int64_t n) { return m * ldc + n; }, M * ldc)});
  L.tolerance = 0;
  return L;
}

const char* typeSuffix(const std::string& type) { return type == "half" ? "f16" : "f32"; }


}  // namespace

std::vector<lang::Define> fusedMacros(bool transA, bool transB) {
  std::vector<lang::Define> d;
  if (!transA)
    d = {{"USE_A", "a"}, {"STRIDE_AK", "1"}, {"STRIDE_AM", "lda"},
         {"BROADCAST_AK", "newaxis, :"}, {"BROADCAST_AM", ":, newaxis"}, {"SHAPE_A", "TM, TK"}};
  else
    d = {{"USE_A", "^a"}, {"STRIDE_AK", "lda"}, {"STRIDE_AM", "1"},
         {"BROADCAST_AK", ":, newaxis"}, {"BROADCAST_AM", "newaxis, :"}, {"SHAPE_A", "TK, TM"}};
  if (!transB)
    d.insert(d.end(), {{"USE_B", "b"}, {"STRIDE_BK", "ldb"}, {"STRIDE_BN", "1"},
                       {"BROADCAST_BK", ":, newaxis"}, {"BROADCAST_BN", "newaxis, :"}, {"SHAPE_B", "TK, TN"}});
  else
    d.insert(d.end(), {{"USE_B", "^b"}, {"STRIDE_BK", "1"}, {"STRIDE_BN", "ldb"},
                       {"BROADCAST_BK", "newaxis, :"}, {"BROADCAST_BN", ":, newaxis"}, {"SHAPE_B", "TN, TK"}});
  return d;
}

void addMatmulCases(std::vector<Case>& out) {
  // The tutorial's three dot kernels, f32 and f16, with non-square tiles.
  for (const char* stem : {"matmul", "matmul_prefetch", "matmul_remat"}) {
    for (const char* type : {"float", "half"}) {
      const Scalar t = scalarOfType(type);
      const bool f16 = t == Scalar::F16;
      out.push_back({std::string(stem) + "_" + typeSuffix(type), std::string("examples/") + stem + ".tc",
                     {{"TYPE", type}, {"TM", "32"}, {"TN", f16 ? "32" : "16"}, {"TK", f16 ? "16" : "8"}},
                     {{"M", 64}, {"N", 96}, {"K", 64}},
                     {{"M", 128}, {"N", 128}, {"K", 128}},
                     [t](const Params& p, std::mt19937_64& r) { return dot(p, r, t, false, false); }});
    }
  }

  // Tiles for the warpgroup tensor cores of sm_90a (64 rows per group of
  // four warps): K tiles of 16, 32 and 64 (the three swizzle widths), N up
  // to 256, f16 and bf16 accumulate alike.
  struct Wg {
    const char* tm; const char* tn; const char* tk; int warps;
  };
  for (Wg w : {Wg{"64", "64", "16", 4}, Wg{"64", "128", "32", 4}, Wg{"128", "256", "64", 8}, Wg{"128", "128", "64", 8}}) {
    Case c{std::string("matmul_f16_wg_") + w.tm + "x" + w.tn + "x" + w.tk, "examples/matmul.tc",
           {{"TYPE", "half"}, {"TM", w.tm}, {"TN", w.tn}, {"TK", w.tk}},
           {{"M", 128}, {"N", 256}, {"K", 128}},
           {{"M", 512}, {"N", 512}, {"K", 512}},
           [](const Params& p, std::mt19937_64& r) { return dot(p, r, Scalar::F16, false, false); }};
    c.numWarps = w.warps;
    out.push_back(c);
  }

  // f32 on tensor cores with tf32 inputs (on request): 10-bit mantissas, so
  // the tolerance is tf32's (the interpreter computes in f32).
  for (auto [tm, tn, tk] : {std::tuple<const char*, const char*, const char*>{"32", "32", "16"}, {"64", "64", "32"}}) {
    Case c{std::string("matmul_tf32_") + tm + "x" + tn + "x" + tk, "examples/matmul.tc",
           {{"TYPE", "float"}, {"TM", tm}, {"TN", tn}, {"TK", tk}},
           {{"M", 128}, {"N", 128}, {"K", 64}},
           {{"M", 512}, {"N", 512}, {"K", 512}},
           [](const Params& p, std::mt19937_64& r) {
             Launch l = dot(p, r, Scalar::F32, false, false);
             l.tolerance = 2e-2;  // relative to the largest value; tf32 rounds inputs to 11 bits
             return l;
           }};
    c.tf32 = true;
    out.push_back(c);
  }

  // Exact integer products on the FMA path: K tiles of 8 (read four k at a
  // time) and of 2 (one at a time); values up to +-100 so that sums of
  // products overflow nothing.
  for (auto [tk, k] : {std::pair<const char*, int64_t>{"8", 64}, {"2", 40}}) {
    out.push_back({std::string("matmul_int_tk") + tk, "examples/matmul_int.tc",
                   {{"TM", "32"}, {"TN", "32"}, {"TK", tk}},
                   {{"M", 64}, {"N", 96}, {"K", k}},
                   {{"M", 128}, {"N", 128}, {"K", 2 * k}},
                   [](const Params& p, std::mt19937_64& r) { return intDot(p, r); }});
  }

  // int8 into int32 on the tensor cores (matmul_i8.tc), B stored K x N
  // (mma.sync) or N x K (wgmma on sm_90a), at ragged sizes.
  for (bool transB : {false, true}) {
    std::vector<lang::Define> d = {{"TM", "64"}, {"TN", "64"}, {"TK", "64"}};
    for (auto& m : fusedMacros(false, transB))
      if (m.name.find("_B") != std::string::npos) d.push_back(m);
    out.push_back({std::string("matmul_i8_") + (transB ? "nt" : "nn"), "examples/matmul_i8.tc", d,
                   {{"M", 100}, {"N", 72}, {"K", 200}},
                   {{"M", 256}, {"N", 264}, {"K", 520}},
                   [transB](const Params& p, std::mt19937_64& r) { return i8Dot(p, r, transB); }});
  }

  // matmul_fused.tc in its four layouts ("nt": A as is, B transposed), f32
  // and f16, plus the tutorial's auto-tuning lists (the first values are used).
  for (bool transA : {false, true})
    for (bool transB : {false, true})
      for (const char* type : {"float", "half"}) {
        const Scalar t = scalarOfType(type);
        std::vector<lang::Define> d = {{"TYPE", type}, {"TM", "32"}, {"TN", "16"}, {"TK", "8"}};
        for (auto& m : fusedMacros(transA, transB)) d.push_back(m);
        out.push_back({std::string("matmul_fused_") + (transA ? "t" : "n") + (transB ? "t" : "n") + "_" +
                           typeSuffix(type),
                       "examples/matmul_fused.tc", d,
                       {{"M", 64}, {"N", 48}, {"K", 40}},
                       {{"M", 128}, {"N", 96}, {"K", 64}},
                       [t, transA, transB](const Params& p, std::mt19937_64& r) { return dot(p, r, t, transA, transB); }});
      }
  // The same in f16 with tiles of 16 multiples, whose operands mma.sync
  // reads with ldmatrix on sm_80 (.trans where the memory rows run along M
  // or N): TRITONC_GPU_ARCH=sm_80 puts that path on a newer GPU.
  for (bool transA : {false, true})
    for (bool transB : {false, true}) {
      std::vector<lang::Define> d = {{"TYPE", "half"}, {"TM", "64"}, {"TN", "32"}, {"TK", "32"}};
      for (auto& m : fusedMacros(transA, transB)) d.push_back(m);
      out.push_back({std::string("matmul_fused_") + (transA ? "t" : "n") + (transB ? "t" : "n") + "_f16_64x32x32",
                     "examples/matmul_fused.tc", d,
                     {{"M", 128}, {"N", 96}, {"K", 96}},
                     {{"M", 512}, {"N", 512}, {"K", 512}},
                     [transA, transB](const Params& p, std::mt19937_64& r) { return dot(p, r, Scalar::F16, transA, transB); }});
    }
  // f32 with tf32 inputs in the four layouts, tiles wgmma covers: on sm_90a
  // "nt" (both operands K-contiguous) runs on wgmma's tf32 steps from shared
  // memory, "tt" with A from registers, "nn" transposed (C^T = B^T A^T, B
  // from registers), "tn" (neither K-contiguous) and every layout on sm_80
  // on mma.sync. (The kernel masks K only.)
  for (bool transA : {false, true})
    for (bool transB : {false, true}) {
      std::vector<lang::Define> d = {{"TYPE", "float"}, {"TM", "64"}, {"TN", "64"}, {"TK", "32"}};
      for (auto& m : fusedMacros(transA, transB)) d.push_back(m);
      Case c{std::string("matmul_fused_") + (transA ? "t" : "n") + (transB ? "t" : "n") + "_tf32_64x64x32",
             "examples/matmul_fused.tc", d,
             {{"M", 128}, {"N", 128}, {"K", 96}},
             {{"M", 512}, {"N", 512}, {"K", 512}},
             [transA, transB](const Params& p, std::mt19937_64& r) {
               Launch l = dot(p, r, Scalar::F32, transA, transB);
               l.tolerance = 2e-2;  // tf32: 10-bit mantissas (wgmma truncates the inputs, mma.sync rounds)
               return l;
             }};
      c.tf32 = true;
      out.push_back(c);
    }
  {
    std::vector<lang::Define> d = {{"TYPE", "half"}, {"TM", "[32, 64, 128]"}, {"TN", "[32, 64, 128]"}, {"TK", "[8, 16]"}};
    for (auto& m : fusedMacros(false, true)) d.push_back(m);
    out.push_back({"matmul_fused_nt_f16_tuned", "examples/matmul_fused.tc", d,
                   {{"M", 64}, {"N", 64}, {"K", 32}},
                   {{"M", 128}, {"N", 128}, {"K", 128}},
                   [](const Params& p, std::mt19937_64& r) { return dot(p, r, Scalar::F16, false, true); }});
  }

  // The paper's C = A B^T with `tunable` tiles: ragged sizes, no -D.
  out.push_back({"matmul_nt", "examples/matmul_nt.tc", {},
                 {{"M", 37}, {"N", 53}, {"K", 29}},
                 {{"M", 100}, {"N", 75}, {"K", 61}},
                 [](const Params& p, std::mt19937_64& r) { return matmulNT(p, r); }});
}

}  // namespace tritonc::examples
