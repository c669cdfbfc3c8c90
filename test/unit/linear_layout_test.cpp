// Linear layouts (lib/gpu/linear_layout.h): every layout covers its tile
// exactly (each element held by the same number of threads), agrees with
// the element maps written out directly from the layouts' definitions (the
// blocked tiling of the paper, mma.sync's and wgmma's fragment tables), and
// tells which changes of layout keep elements in their threads.
#include "gpu/linear_layout.h"

#include <gtest/gtest.h>

#include <map>

#include "gpu/layouts.h"

namespace tritonc::gpu {
namespace {

int64_t product(const ir::Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

// Every element is held by (threads with zero bases) copies, nothing else.
void expectCovers(const LinearLayout& ll, int numWarps) {
  std::map<Index, int> count;
  for (unsigned w = 0; w < unsigned(numWarps); ++w)
    for (unsigned l = 0; l < 32; ++l)
      for (size_t r = 0; r < ll.numRegs(); ++r) {
        Index i = ll.index(r, l, w);
        for (size_t d = 0; d < i.size(); ++d) ASSERT_LT(i[d], ll.shape[d]) << ll.toString();
        ++count[i];
      }
  EXPECT_EQ(int64_t(count.size()), product(ll.shape)) << ll.toString();
  int copies = 1 << (__builtin_popcount(ll.replicatedLaneMask()) + __builtin_popcount(ll.replicatedWarpMask()));
  for (auto& [idx, n] : count) EXPECT_EQ(n, copies) << ll.toString();
}

// The blocked tiling spelled out (hierarchical tiling, paper 5.2.1): thread
// position p_d = (warp_d * tpw_d + lane_d) * spt_d, wrapped in min(shape,
// tile); its j-th element along d is at p_d + (j / spt) * tile + j % spt.
std::map<Index, int> blockedByDefinition(const ir::Layout& l, const ir::Shape& s, unsigned lane, unsigned warp) {
  size_t r = s.size();
  Index laneC(r), warpC(r);
  unsigned ls = lane, ws = warp;
  for (int d : l.order) {
    laneC[size_t(d)] = ls % unsigned(l.threadsPerWarp[size_t(d)]);
    ls /= unsigned(l.threadsPerWarp[size_t(d)]);
    warpC[size_t(d)] = ws % unsigned(l.warpsPerCta[size_t(d)]);
    ws /= unsigned(l.warpsPerCta[size_t(d)]);
  }
  std::vector<std::vector<int64_t>> perDim(r);
  for (size_t d = 0; d < r; ++d) {
    int64_t spt = l.sizePerThread[d], tile = spt * l.threadsPerWarp[d] * l.warpsPerCta[d];
    int64_t base = ((warpC[d] * l.threadsPerWarp[d] + laneC[d]) * spt) % std::min(s[d], tile);
    int64_t count = std::min(spt, s[d]) * std::max<int64_t>(1, s[d] / tile);
    for (int64_t j = 0; j < count; ++j) perDim[d].push_back(base + (j / spt) * tile + j % spt);
  }
  std::map<Index, int> out;
  std::function<void(size_t, Index&)> rec = [&](size_t d, Index& i) {
    if (d == r) { ++out[i]; return; }
    for (int64_t v : perDim[d]) { i[d] = v; rec(d + 1, i); }
  };
  Index i(r);
  rec(0, i);
  return out;
}

std::map<Index, int> heldBy(const LinearLayout& ll, unsigned lane, unsigned warp) {
  std::map<Index, int> out;
  for (size_t r = 0; r < ll.numRegs(); ++r) ++out[ll.index(r, lane, warp)];
  return out;
}

TEST(LinearLayout, BlockedMatchesTheTilingDefinition) {
  ir::Module m;
  struct Case { ir::Shape shape; int warps; std::vector<int> order; int64_t vec; };
  for (const Case& c : {Case{{128, 64}, 4, {1, 0}, 8}, Case{{64, 128}, 8, {1, 0}, 8}, Case{{16, 8}, 4, {1, 0}, 4},
                        Case{{256}, 4, {0}, 4}, Case{{32, 32}, 4, {0, 1}, 4}, Case{{8}, 4, {0}, 1},
                        Case{{2, 64, 16}, 2, {2, 1, 0}, 2}}) {
    const ir::Layout* l = blockedLayout(m, c.shape, c.warps, c.order, c.vec);
    LinearLayout ll = toLinear(l, c.shape);
    SCOPED_TRACE(l->key());
    expectCovers(ll, c.warps);
    for (unsigned w = 0; w < unsigned(c.warps); ++w)
      for (unsigned lane = 0; lane < 32; lane += 5) EXPECT_EQ(heldBy(ll, lane, w), blockedByDefinition(*l, c.shape, lane, w));
    EXPECT_EQ(ll.contiguousRegs(size_t(c.order[0])), std::min(c.vec, c.shape[size_t(c.order[0])]));
  }
}

// mma.sync m16n8 accumulators (PTX ISA, "Matrix fragments for mma.m16n8k16"):
// row = warp_m * M/wm + 16 i + g + 8 (c / 2), col = warp_n * N/wn + 8 j + 2 t + c % 2.
TEST(LinearLayout, MmaV2MatchesTheFragmentTable) {
  ir::Module m;
  for (auto [M, N, wm, wn] : {std::tuple<int64_t, int64_t, int64_t, int64_t>{128, 128, 2, 2}, {64, 32, 4, 1},
                              {32, 256, 1, 8}, {16, 8, 1, 1}}) {
    const ir::Layout* l = mmaLayout(m, 2, wm, wn);
    LinearLayout ll = toLinear(l, {M, N});
    expectCovers(ll, int(wm * wn));
    for (unsigned w = 0; w < unsigned(wm * wn); ++w)
      for (unsigned lane = 0; lane < 32; ++lane) {
        std::map<Index, int> expected;
        int64_t g = lane / 4, t = lane % 4, rowBase = (w % wm) * (M / wm) + g, colBase = (w / wm) * (N / wn) + 2 * t;
        for (int64_t i = 0; i < M / wm / 16; ++i)
          for (int64_t j = 0; j < N / wn / 8; ++j)
            for (int c = 0; c < 4; ++c) ++expected[{rowBase + 16 * i + 8 * (c / 2), colBase + 8 * j + c % 2}];
        ASSERT_EQ(heldBy(ll, lane, w), expected) << "warp " << w << " lane " << lane;
      }
  }
}

// wgmma m64nNk16 accumulators: warp w of a warpgroup holds rows 16 (w % 4) +
// g + 8 (c / 2) of each 64-row block, columns 8 j + 2 t + c % 2.
TEST(LinearLayout, MmaV3MatchesTheFragmentTable) {
  ir::Module m;
  for (auto [M, N, wm, wn] : {std::tuple<int64_t, int64_t, int64_t, int64_t>{128, 128, 8, 1}, {128, 256, 4, 1},
                              {64, 256, 4, 2}, {256, 128, 8, 1}}) {
    LinearLayout ll = toLinear(mmaLayout(m, 3, wm, wn), {M, N});
    expectCovers(ll, int(wm * wn));
    int64_t groupsM = wm / 4, rowsPerGroup = M / groupsM, colsPerGroup = N / wn;
    for (unsigned w = 0; w < unsigned(wm * wn); ++w)
      for (unsigned lane = 0; lane < 32; lane += 3) {
        std::map<Index, int> expected;
        int64_t group = w / 4, gm = group % groupsM, gn = group / groupsM;
        int64_t g = lane / 4, t = lane % 4;
        for (int64_t i = 0; i < rowsPerGroup / 64; ++i)
          for (int64_t j = 0; j < colsPerGroup / 8; ++j)
            for (int c = 0; c < 4; ++c)
              ++expected[{gm * rowsPerGroup + 64 * i + 16 * (w % 4) + g + 8 * (c / 2), gn * colsPerGroup + 8 * j + 2 * t + c % 2}];
        ASSERT_EQ(heldBy(ll, lane, w), expected) << "warp " << w << " lane " << lane;
      }
  }
}

// mma.sync m16n8k16 operands: A (g, 2t + k%2 + 8 (k/2)) rows +8 for a1/a3;
// B (2t + 8 b + k%2, g). Warps along N hold copies of A, along M of B.
TEST(LinearLayout, DotOperandsMatchTheFragmentTables) {
  ir::Module m;
  const ir::Layout* acc = mmaLayout(m, 2, 2, 2);
  LinearLayout a = toLinear(dotOperandLayout(m, 0, acc), {64, 32}, 16);
  LinearLayout b = toLinear(dotOperandLayout(m, 1, acc), {32, 64}, 16);
  expectCovers(a, 4);
  expectCovers(b, 4);
  EXPECT_EQ(a.replicatedWarpMask(), 2u);  // warp bit 1 (along N)
  EXPECT_EQ(b.replicatedWarpMask(), 1u);  // warp bit 0 (along M)
  for (unsigned lane = 0; lane < 32; ++lane) {
    int64_t g = lane / 4, t = lane % 4;
    // Register 0..7 of A: a0 = (g, 2t), (g, 2t+1); a1 = (g+8, ..); a2 = (g, 2t+8, ..); a3.
    for (size_t r = 0; r < 8; ++r) {
      Index expected{g + 8 * int64_t(r >> 1 & 1), 2 * t + int64_t(r & 1) + 8 * int64_t(r >> 2 & 1)};
      EXPECT_EQ(a.index(r, lane, 0), expected) << "A register " << r << " lane " << lane;
    }
    for (size_t r = 0; r < 4; ++r) {
      Index expected{2 * t + int64_t(r & 1) + 8 * int64_t(r >> 1 & 1), g};
      EXPECT_EQ(b.index(r, lane, 0), expected) << "B register " << r << " lane " << lane;
    }
  }
  // tf32 (m16n8k8): a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4); b0 (t, g), b1 (t+4, g).
  LinearLayout a32 = toLinear(dotOperandLayout(m, 0, acc), {64, 32}, 32);
  LinearLayout b32 = toLinear(dotOperandLayout(m, 1, acc), {32, 64}, 32);
  expectCovers(a32, 4);
  expectCovers(b32, 4);
  for (unsigned lane = 0; lane < 32; ++lane) {
    int64_t g = lane / 4, t = lane % 4;
    for (size_t r = 0; r < 4; ++r)
      EXPECT_EQ(a32.index(r, lane, 0), (Index{g + 8 * int64_t(r & 1), t + 4 * int64_t(r >> 1)}));
    for (size_t r = 0; r < 2; ++r) EXPECT_EQ(b32.index(r, lane, 0), (Index{t + 4 * int64_t(r), g}));
  }
}

// A transposed wgmma (C^T = B^T A^T): each thread holds, at (m, n) of the
// M x N result, what wgmma's N x M accumulator has at (n, m); B's registers
// (K x N) are the tf32 A fragment of wgmma (per warp a0 (g, t), a1 (g+8, t),
// a2 (g, t+4), a3 (g+8, t+4) of N x K, warps 16 rows of N apart).
TEST(LinearLayout, TransposedWgmmaIsTheSwappedTable) {
  ir::Module m;
  const ir::Layout* plain = mmaLayout(m, 3, 8, 1);
  const ir::Layout* flipped = mmaLayout(m, 3, 8, 1, /*transposed=*/true);
  EXPECT_NE(plain, flipped);
  LinearLayout p = toLinear(plain, {256, 128}), t = toLinear(flipped, {128, 256});
  expectCovers(t, 8);
  for (unsigned w = 0; w < 8; ++w)
    for (unsigned lane = 0; lane < 32; lane += 3)
      for (size_t r = 0; r < p.numRegs(); ++r) {
        Index i = p.index(r, lane, w);
        ASSERT_EQ(t.index(r, lane, w), (Index{i[1], i[0]})) << "warp " << w << " lane " << lane << " register " << r;
      }
  LinearLayout b = toLinear(dotOperandLayout(m, 1, flipped), {32, 256}, 32);
  expectCovers(b, 8);
  for (unsigned w = 0; w < 8; ++w)
    for (unsigned lane = 0; lane < 32; ++lane) {
      int64_t g = lane / 4, t4 = lane % 4, n0 = (w / 4) * 128 + 16 * (w % 4);
      for (size_t r = 0; r < 4; ++r)
        EXPECT_EQ(b.index(r, lane, w), (Index{t4 + 4 * int64_t(r >> 1), n0 + g + 8 * int64_t(r & 1)}))
            << "warp " << w << " lane " << lane << " register " << r;
    }
}

TEST(LinearLayout, SlicesHoldOneElementPerRowOrColumn) {
  ir::Module m;
  const ir::Layout* acc = mmaLayout(m, 2, 4, 1);
  LinearLayout rows = toLinear(sliceLayout(m, 1, acc), {128});
  expectCovers(rows, 4);
  EXPECT_EQ(rows.numRegs(), 4u);                  // rows g, g+8, g+16, g+24 of the warp's 32
  EXPECT_EQ(rows.replicatedLaneMask(), 3u);       // the four lanes of a row (t) hold copies
  const ir::Layout* b = blockedLayout(m, {64, 128}, 4, {1, 0}, 4);
  LinearLayout cols = toLinear(sliceLayout(m, 0, b), {128});
  expectCovers(cols, 4);
  EXPECT_EQ(cols.contiguousRegs(0), 4);
}

TEST(LinearLayout, WhichChangesKeepElementsInTheirThreads) {
  ir::Module m;
  m.target = "sm_80";
  m.numWarps = 4;
  const ir::Layout* b = blockedLayout(m, {64, 64}, 4, {1, 0}, 8);
  const ir::Layout* c = blockedLayout(m, {64, 64}, 4, {0, 1}, 8);
  LinearLayout lb = toLinear(b, {64, 64}), lc = toLinear(c, {64, 64});
  EXPECT_TRUE(sameThreads(lb, lb, identityDims(2)));
  EXPECT_FALSE(sameThreads(lb, lc, identityDims(2)));
  // Broadcast [64, 1] -> [64, 64] in one blocked layout: each thread has its row's value.
  std::vector<int64_t> srcReg;
  EXPECT_TRUE(sameThreads(toLinear(b, {64, 1}), lb, {0, -1}, &srcReg));
  EXPECT_EQ(srcReg.size(), lb.numRegs());
  // The transposed layout of a blocked one transposes in registers.
  const ir::Layout* t = transposedLayout(m, b);
  EXPECT_TRUE(sameThreads(lb, toLinear(t, {64, 64}), {1, 0}));
  EXPECT_FALSE(sameThreads(lb, lb, {1, 0}));
  // A reshape adding a unit dimension to a slice lands in the parent.
  const ir::Layout* s = sliceLayout(m, 1, b);
  EXPECT_EQ(reshapeResultLayout(m, {64}, {64, 1}, s), b);
  EXPECT_EQ(reshapeOperandLayout(m, {64}, {64, 1}, b), s);
  EXPECT_TRUE(sameThreads(toLinear(s, {64}), toLinear(b, {64, 1}), {0}));
  // mma accumulators of m16n8k16 are the A operand of the next m16n8k16 (in pairs):
  // the FlashAttention register reuse.
  const ir::Layout* acc = mmaLayout(m, 2, 4, 1);
  EXPECT_TRUE(sameThreads(toLinear(acc, {64, 64}), toLinear(dotOperandLayout(m, 0, acc), {64, 64}, 16), identityDims(2)));
  const ir::Layout* acc3 = mmaLayout(m, 3, 4, 1);
  EXPECT_TRUE(sameThreads(toLinear(acc3, {64, 64}), toLinear(dotOperandLayout(m, 0, acc3), {64, 64}, 16), identityDims(2)));
}

}  // namespace
}  // namespace tritonc::gpu
