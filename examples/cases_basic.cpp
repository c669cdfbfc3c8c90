// Element-wise and row-wise examples: vector addition, transposition, ReLU,
// softmax and layer normalization. Layouts follow each .tc file's header.
#include <cmath>

#include "cases.h"

namespace tritonc::examples {

namespace {

using interp::KernelArg;
using ir::Scalar;

KernelArg F(double v) { return KernelArg::ofFloat(v); }

// The value `v` as stored in an element of kind `t` (what the kernel can produce at best).
double roundTo(Scalar t, double v) {
  interp::Buffer tmp;
  tmp.elem = t;
  tmp.data.resize(size_t(ir::byteSize(t)));
  writeElement(tmp, 0, v);
  return readElement(tmp, 0);
}

// c = a + b over N elements; grid N / block. The sum is rounded to the
// element type, as the kernel adds in that type.
Launch vectorAdd(const Params& p, std::mt19937_64& rng, Scalar t, int64_t block) {
  Launch L;
  const int64_t n = p("N");
  interp::Buffer* a = L.newBuffer("a", t, n);
  interp::Buffer* b = L.newBuffer("b", t, n);
  interp::Buffer* c = L.newBuffer("c", t, n);
  fillRandom(*a, rng);
  fillRandom(*b, rng);
  poison(*c);
  L.args = {I(n), P(a), P(b), P(c)};
  L.grid = {n / block, 1, 1};
  L.sizes = "N=" + std::to_string(n);
  std::vector<double> ref(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) ref[size_t(i)] = roundTo(t, readElement(*a, i) + readElement(*b, i));
  L.expected.push_back({c, std::move(ref)});
  L.tolerance = toleranceFor(t);
  return L;
}

// Y = X^T: X is M x N column-major (X[m + n*ldx]), Y[n + m*ldy]. The gaps
// between columns of Y (ldy > N) must stay untouched.
Launch transpose(const Params& p, std::mt19937_64& rng, Scalar t) {
  Launch L;
  const int64_t M = p("M"), N = p("N");
  const int64_t ldx = M + p.get("PADX", 0), ldy = N + p.get("PADY", 0);
  interp::Buffer* X = L.newBuffer("X", t, ldx * N);
  interp::Buffer* Y = L.newBuffer("Y", t, ldy * M);
  fillRandom(*X, rng);
  poison(*Y);
  L.args = {P(X), P(Y), I(M), I(N), I(ldx), I(ldy)};
  L.grid = {cdiv(M, p("TM")), cdiv(N, p("TN")), 1};
  L.sizes = "M=" + std::to_string(M) + " N=" + std::to_string(N) + " ldx=" + std::to_string(ldx) +
            " ldy=" + std::to_string(ldy);
  std::vector<double> ref(size_t(ldy * M), NAN);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) ref[size_t(n + m * ldy)] = readElement(*X, m + n * ldx);
  L.expected.push_back({Y, std::move(ref)});
  L.tolerance = 0;  // a copy is exact
  return L;
}

// A = max(A, 0) in place; A is M x N column-major. Tiles default to 8 x 8
// (the file's #ifndef) when not given with -D.
Launch relu(const Params& p, std::mt19937_64& rng) {
  Launch L;
  const int64_t M = p("M"), N = p("N");
  interp::Buffer* A = L.newBuffer("A", Scalar::F32, M * N);
  fillRandom(*A, rng);
  L.args = {P(A), I(M), I(N)};
  L.grid = {cdiv(M, p.get("TM", 8)), cdiv(N, p.get("TN", 8)), 1};
  L.sizes = "M=" + std::to_string(M) + " N=" + std::to_string(N);
  std::vector<double> ref(static_cast<size_t>(M * N));
  for (int64_t i = 0; i < M * N; ++i) ref[size_t(i)] = std::max(readElement(*A, i), 0.0);
  L.expected.push_back({A, std::move(ref)});
  L.tolerance = 0;
  return L;
}

// Row-wise softmax of a ROWS x N matrix, rows ldx / ldy apart; one program per row.
Launch softmax(const Params& p, std::mt19937_64& rng, Scalar t) {
  Launch L;
  const int64_t rows = p("ROWS"), N = p("N");
  const int64_t ldx = N + p.get("PADX", 0), ldy = N + p.get("PADY", 0);
  interp::Buffer* X = L.newBuffer("X", t, rows * ldx);
  interp::Buffer* Y = L.newBuffer("Y", t, rows * ldy);
  fillRandom(*X, rng, -4, 4);
  poison(*Y);
  L.args = {P(X), P(Y), I(N), I(ldx), I(ldy)};
  L.grid = {rows, 1, 1};
  L.sizes = "rows=" + std::to_string(rows) + " N=" + std::to_string(N) + " ldx=" + std::to_string(ldx) +
            " ldy=" + std::to_string(ldy);
  std::vector<double> ref(size_t(rows * ldy), NAN);
  for (int64_t r = 0; r < rows; ++r) {
    double mx = -INFINITY, sum = 0;
    for (int64_t n = 0; n < N; ++n) mx = std::max(mx, readElement(*X, r * ldx + n));
    for (int64_t n = 0; n < N; ++n) sum += std::exp(readElement(*X, r * ldx + n) - mx);
    for (int64_t n = 0; n < N; ++n) ref[size_t(r * ldy + n)] = std::exp(readElement(*X, r * ldx + n) - mx) / sum;
  }
  L.expected.push_back({Y, std::move(ref)});
  L.tolerance = toleranceFor(t);
  return L;
}

// Layer normalization of each row of a ROWS x N matrix (X and Y share ld),
// with f32 weights and biases; population variance, as the kernel divides by N.
Launch layernorm(const Params& p, std::mt19937_64& rng, Scalar t) {
  Launch L;
  const int64_t rows = p("ROWS"), N = p("N"), ld = N + p.get("PAD", 0);
  const double eps = 1e-5;
  interp::Buffer* X = L.newBuffer("X", t, rows * ld);
  interp::Buffer* Y = L.newBuffer("Y", t, rows * ld);
  interp::Buffer* W = L.newBuffer("Wt", Scalar::F32, N);
  interp::Buffer* B = L.newBuffer("Bias", Scalar::F32, N);
  fillRandom(*X, rng, -2, 3);
  fillRandom(*W, rng, 0.5, 1.5);
  fillRandom(*B, rng, -0.5, 0.5);
  poison(*Y);
  L.args = {P(X), P(Y), P(W), P(B), I(N), I(ld), F(eps)};
  L.grid = {rows, 1, 1};
  L.sizes = "rows=" + std::to_string(rows) + " N=" + std::to_string(N) + " ld=" + std::to_string(ld);
  std::vector<double> ref(size_t(rows * ld), NAN);
  for (int64_t r = 0; r < rows; ++r) {
    double mean = 0, var = 0;
    for (int64_t n = 0; n < N; ++n) mean += readElement(*X, r * ld + n);
    mean /= double(N);
    for (int64_t n = 0; n < N; ++n) var += std::pow(readElement(*X, r * ld + n) - mean, 2);
    const double rstd = 1 / std::sqrt(var / double(N) + eps);
    for (int64_t n = 0; n < N; ++n)
      ref[size_t(r * ld + n)] =
          (readElement(*X, r * ld + n) - mean) * rstd * readElement(*W, n) + readElement(*B, n);
  }
  L.expected.push_back({Y, std::move(ref)});
  L.tolerance = toleranceFor(t);
  return L;
}

const char* typeSuffix(const std::string& type) { return type == "half" ? "f16" : "f32"; }

}  // namespace

void addBasicCases(std::vector<Case>& out) {
  out.push_back({"vector_add", "examples/vector_add.tc", {}, {{"N", 1024}}, {{"N", 16384}},
                 [](const Params& p, std::mt19937_64& r) { return vectorAdd(p, r, Scalar::F32, 32); }});
  for (auto [size, type] : {std::pair{32, "float"}, {128, "float"}, {256, "half"}}) {
    const Scalar t = scalarOfType(type);
    out.push_back({"vector_add_param_" + std::to_string(size) + "_" + typeSuffix(type),
                   "examples/vector_add_param.tc",
                   {{"SIZE", std::to_string(size)}, {"TYPE", type}},
                   {{"N", 2048}},
                   {{"N", 32768}},
                   [t](const Params& p, std::mt19937_64& r) { return vectorAdd(p, r, t, p("SIZE")); }});
  }

  // Transpositions: tiles of several shapes, including non-square ones.
  struct T { const char* file; const char* stem; const char* type; int tm, tn; int64_t m, n, dm, dn, pad; };
  const T transposes[] = {
      {"examples/transpose.tc", "transpose", "float", 16, 16, 64, 96, 256, 192, 3},
      {"examples/transpose.tc", "transpose", "float", 32, 16, 64, 48, 128, 256, 5},
      {"examples/transpose.tc", "transpose", "half", 16, 32, 48, 64, 160, 128, 1},
      {"examples/transpose_multipleof.tc", "transpose_multipleof", "float", 32, 32, 64, 96, 256, 128, 8},
      {"examples/transpose_multipleof.tc", "transpose_multipleof", "float", 32, 16, 96, 64, 128, 256, 8},
      {"examples/transpose_multipleof.tc", "transpose_multipleof", "half", 16, 64, 48, 128, 160, 256, 16},
      {"examples/transpose_checked.tc", "transpose_checked", "float", 16, 32, 45, 77, 201, 133, 3},
      {"examples/transpose_checked.tc", "transpose_checked", "float", 32, 16, 45, 77, 201, 133, 0},
      {"examples/transpose_checked.tc", "transpose_checked", "half", 32, 32, 45, 77, 133, 201, 7},
  };
  for (const T& c : transposes) {
    const Scalar t = scalarOfType(c.type);
    out.push_back({std::string(c.stem) + "_" + typeSuffix(c.type) + "_" + std::to_string(c.tm) + "x" +
                       std::to_string(c.tn),
                   c.file,
                   {{"TYPE", c.type}, {"TM", std::to_string(c.tm)}, {"TN", std::to_string(c.tn)}},
                   {{"M", c.m}, {"N", c.n}, {"PADX", c.pad}, {"PADY", c.pad}},
                   {{"M", c.dm}, {"N", c.dn}, {"PADX", c.pad}, {"PADY", c.pad}},
                   [t](const Params& p, std::mt19937_64& r) { return transpose(p, r, t); }});
  }

  out.push_back({"relu", "examples/relu.tc", {}, {{"M", 45}, {"N", 37}}, {{"M", 300}, {"N", 211}},
                 [](const Params& p, std::mt19937_64& r) { return relu(p, r); }});
  out.push_back({"relu_16x8", "examples/relu.tc", {{"TM", "16"}, {"TN", "8"}}, {{"M", 45}, {"N", 37}},
                 {{"M", 300}, {"N", 211}}, [](const Params& p, std::mt19937_64& r) { return relu(p, r); }});

  for (const char* type : {"float", "half"}) {
    const Scalar t = scalarOfType(type);
    out.push_back({std::string("softmax_") + typeSuffix(type), "examples/softmax.tc",
                   {{"TYPE", type}, {"BLOCK", "128"}},
                   {{"ROWS", 8}, {"N", 100}, {"PADX", 7}, {"PADY", 3}},
                   {{"ROWS", 64}, {"N", 100}, {"PADX", 7}, {"PADY", 3}},
                   [t](const Params& p, std::mt19937_64& r) { return softmax(p, r, t); }});
    out.push_back({std::string("layernorm_") + typeSuffix(type), "examples/layernorm.tc",
                   {{"TYPE", type}, {"BLOCK", "128"}},
                   {{"ROWS", 8}, {"N", 100}, {"PAD", 5}},
                   {{"ROWS", 64}, {"N", 100}, {"PAD", 5}},
                   [t](const Params& p, std::mt19937_64& r) { return layernorm(p, r, t); }});
  }
}

}  // namespace tritonc::examples
