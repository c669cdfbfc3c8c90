// Examples of the tile operations beyond Triton (SPEC R27): slices of a tile
// (RoPE's halves of a head dimension) and top-k with indices and element
// indexing (mixture-of-experts gating). References in plain C++ loops.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "cases.h"

namespace tritonc::examples {

namespace {

using ir::Scalar;

// Y[:, :HALF] = x1 cos - x2 sin, Y[:, HALF:] = x2 cos + x1 sin per row;
// the padding between rows of Y keeps its poison.
Launch rope(const Params& p, std::mt19937_64& rng, Scalar t) {
  Launch L;
  const int64_t rows = p("ROWS"), half = p("HALF"), ld = 2 * half + p.get("PAD", 0);
  interp::Buffer* X = L.newBuffer("X", t, rows * ld);
  interp::Buffer* Y = L.newBuffer("Y", t, rows * ld);
  interp::Buffer* C = L.newBuffer("C", Scalar::F32, rows * half);
  interp::Buffer* S = L.newBuffer("S", Scalar::F32, rows * half);
  fillRandom(*X, rng, -2, 2);
  for (int64_t i = 0; i < rows * half; ++i) {
    const double angle = std::uniform_real_distribution<double>(-3.2, 3.2)(rng);
    writeElement(*C, i, std::cos(angle));
    writeElement(*S, i, std::sin(angle));
  }
  poison(*Y);
  L.args = {P(X), P(Y), P(C), P(S), I(rows), I(ld)};
  L.grid = {cdiv(rows, p("TM")), 1, 1};
  L.sizes = "ROWS=" + std::to_string(rows) + " HALF=" + std::to_string(half) + " ld=" + std::to_string(ld);
  std::vector<double> ref(size_t(rows * ld), NAN);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < half; ++j) {
      const double x1 = readElement(*X, r * ld + j), x2 = readElement(*X, r * ld + half + j);
      const double c = readElement(*C, r * half + j), s = readElement(*S, r * half + j);
      ref[size_t(r * ld + j)] = x1 * c - x2 * s;
      ref[size_t(r * ld + half + j)] = x2 * c + x1 * s;
    }
  L.expected.push_back({Y, std::move(ref)});
  L.tolerance = toleranceFor(t);
  return L;
}

// Per token: the K largest of N distinct logits, largest first, their
// indices, a softmax over them, and the first index.
Launch topkGating(const Params& p, std::mt19937_64& rng, Scalar t) {
  Launch L;
  const int64_t tokens = p("TOKENS"), n = p("N"), k = p("TOPK"), ld = n + p.get("PAD", 0);
  interp::Buffer* Lg = L.newBuffer("L", t, tokens * ld);
  interp::Buffer* W = L.newBuffer("W", Scalar::F32, tokens * k);
  interp::Buffer* E = L.newBuffer("E", Scalar::I32, tokens * k);
  interp::Buffer* Best = L.newBuffer("Best", Scalar::I32, tokens);
  fillRandom(*Lg, rng);  // the padding between rows: read by nobody
  // Distinct logits (a shuffled grid, exact in f16), so that the order is unique.
  std::vector<int64_t> order(static_cast<size_t>(n));
  for (int64_t r = 0; r < tokens; ++r) {
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    for (int64_t j = 0; j < n; ++j) writeElement(*Lg, r * ld + j, double(order[size_t(j)] - n / 2) / 64);
  }
  poison(*W);
  poison(*E);
  poison(*Best);
  L.args = {P(Lg), P(W), P(E), P(Best), I(n), I(ld)};
  L.grid = {tokens, 1, 1};
  L.sizes = "TOKENS=" + std::to_string(tokens) + " N=" + std::to_string(n) + " TOPK=" + std::to_string(k);
  std::vector<double> w(static_cast<size_t>(tokens * k)), e(static_cast<size_t>(tokens * k)), best(static_cast<size_t>(tokens));
  std::vector<int64_t> idx(static_cast<size_t>(n));
  for (int64_t r = 0; r < tokens; ++r) {
    std::iota(idx.begin(), idx.end(), 0);
    auto logit = [&](int64_t j) { return readElement(*Lg, r * ld + j); };
    std::sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) { return logit(a) > logit(b); });
    double sum = 0;
    for (int64_t j = 0; j < k; ++j) sum += std::exp(logit(idx[size_t(j)]) - logit(idx[0]));
    for (int64_t j = 0; j < k; ++j) {
      w[size_t(r * k + j)] = std::exp(logit(idx[size_t(j)]) - logit(idx[0])) / sum;
      e[size_t(r * k + j)] = double(idx[size_t(j)]);
    }
    best[size_t(r)] = double(idx[0]);
  }
  L.expected.push_back({W, std::move(w)});
  L.expected.push_back({E, std::move(e)});
  L.expected.push_back({Best, std::move(best)});
  L.tolerance = 1e-4;
  return L;
}

}  // namespace

void addTileCases(std::vector<Case>& out) {
  for (auto [type, tm, half] : {std::tuple{"float", 16, 32}, {"half", 8, 64}}) {
    const Scalar t = scalarOfType(type);
    out.push_back({std::string("rope_") + (t == Scalar::F16 ? "f16" : "f32"), "examples/rope.tc",
                   {{"TYPE", type}, {"TM", std::to_string(tm)}, {"HALF", std::to_string(half)}},
                   {{"ROWS", 37}, {"PAD", 3}},
                   {{"ROWS", 1000}, {"PAD", 3}},
                   [t](const Params& p, std::mt19937_64& r) { return rope(p, r, t); }});
  }
  for (auto [type, block, k] : {std::tuple{"float", 128, 4}, {"half", 64, 8}}) {
    const Scalar t = scalarOfType(type);
    out.push_back({std::string("topk_gating_") + (t == Scalar::F16 ? "f16" : "f32") + "_k" + std::to_string(k),
                   "examples/topk_gating.tc",
                   {{"TYPE", type}, {"BLOCK", std::to_string(block)}, {"TOPK", std::to_string(k)}},
                   {{"TOKENS", 9}, {"N", block - 5}, {"PAD", 2}},
                   {{"TOKENS", 512}, {"N", block - 5}, {"PAD", 2}},
                   [t](const Params& p, std::mt19937_64& r) { return topkGating(p, r, t); }});
  }
}

}  // namespace tritonc::examples
