// The CFG machinery that must stay linear in the number of blocks (issue 15):
// dominance in constant time, predecessor maps, loops with their blocks in
// function order. Checked against definitions on random graphs, and on a
// function of many sequential loops.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "ir/builder.h"
#include "ir/cfg.h"
#include "ir/dominators.h"
#include "transform/loops.h"

namespace tritonc::ir {
namespace {

// A function of `n` blocks whose terminators branch on an i1 argument to
// random blocks (or return).
std::unique_ptr<Module> randomCfg(std::mt19937_64& rng, size_t n) {
  auto m = std::make_unique<Module>();
  Function* f = m->addFunction("k");
  Value* c = f->addArgument(Type::scalar(Scalar::I1), "c");
  std::vector<BasicBlock*> blocks;
  for (size_t i = 0; i < n; ++i) blocks.push_back(f->addBlock("b" + std::to_string(i)));
  Builder b(*m);
  std::uniform_int_distribution<size_t> pick(0, n - 1);
  for (BasicBlock* bb : blocks) {
    b.setInsertPoint(bb);
    switch (rng() % 4) {
      case 0: b.ret(); break;
      case 1: b.br(blocks[pick(rng)]); break;
      default: b.condBr(c, blocks[pick(rng)], blocks[pick(rng)]); break;
    }
  }
  return m;
}

// Blocks reached from the entry without passing through `avoid`.
std::set<const BasicBlock*> reachedAvoiding(const Function& f, const BasicBlock* avoid) {
  std::set<const BasicBlock*> seen;
  std::vector<const BasicBlock*> work;
  if (f.entry() != avoid) work.push_back(f.entry());
  while (!work.empty()) {
    const BasicBlock* bb = work.back();
    work.pop_back();
    if (!seen.insert(bb).second) continue;
    for (BasicBlock* s : bb->successors())
      if (s != avoid) work.push_back(s);
  }
  return seen;
}

TEST(CfgScaling, DominanceMatchesItsDefinitionOnRandomGraphs) {
  std::mt19937_64 rng(15);
  for (int trial = 0; trial < 200; ++trial) {
    auto m = randomCfg(rng, 1 + rng() % 40);
    const Function& f = *m->functions()[0];
    DominatorTree dom(f);
    std::set<const BasicBlock*> reachable = reachedAvoiding(f, nullptr);
    for (auto& a : f.blocks()) {
      // a dominates b: b is reachable, and not without a.
      std::set<const BasicBlock*> without = reachedAvoiding(f, a.get());
      for (auto& b : f.blocks()) {
        bool expected = reachable.count(b.get()) && reachable.count(a.get()) &&
                        (a == b || !without.count(b.get()));
        EXPECT_EQ(dom.dominates(a.get(), b.get()), expected)
            << "trial " << trial << ": " << a->name() << " dominates " << b->name();
      }
      EXPECT_EQ(dom.isReachable(a.get()), reachable.count(a.get()) != 0);
      EXPECT_EQ(dom.rpoIndex(a.get()) >= 0, reachable.count(a.get()) != 0);
    }
  }
}

TEST(CfgScaling, PredecessorMapAndLoopsMatchTheirDefinitions) {
  std::mt19937_64 rng(16);
  for (int trial = 0; trial < 200; ++trial) {
    auto m = randomCfg(rng, 1 + rng() % 40);
    Function& f = *m->functions()[0];
    PredecessorMap preds = predecessorMap(f);
    for (auto& bb : f.blocks()) EXPECT_EQ(preds[bb.get()], f.predecessors(bb.get())) << "trial " << trial;
    DominatorTree dom(f);
    for (const transform::Loop& loop : transform::findLoops(f, dom)) {
      std::vector<BasicBlock*> inOrder;
      for (auto& bb : f.blocks()) {
        bool member = loop.blocks.count(bb.get()) != 0;
        EXPECT_EQ(loop.contains(bb.get()), member);
        if (member) inOrder.push_back(bb.get());
      }
      EXPECT_EQ(loop.blocksInOrder, inOrder) << "trial " << trial;
      EXPECT_EQ(loop.headerPredecessors, f.predecessors(loop.header)) << "trial " << trial;
    }
  }
}

TEST(CfgScaling, TwentyThousandSequentialLoops) {
  // entry -> (header_i <-> body_i) -> ... -> exit: a dominator tree as deep
  // as the function is long.
  constexpr int kLoops = 20000;
  Module m;
  Function* f = m.addFunction("k");
  Value* c = f->addArgument(Type::scalar(Scalar::I1), "c");
  Builder b(m);
  BasicBlock* entry = f->addBlock("entry");
  std::vector<BasicBlock*> headers, bodies;
  for (int i = 0; i < kLoops; ++i) {
    headers.push_back(f->addBlock("h"));
    bodies.push_back(f->addBlock("b"));
  }
  BasicBlock* exit = f->addBlock("exit");
  b.setInsertPoint(entry);
  b.br(headers[0]);
  for (int i = 0; i < kLoops; ++i) {
    b.setInsertPoint(headers[size_t(i)]);
    b.condBr(c, bodies[size_t(i)], i + 1 < kLoops ? headers[size_t(i) + 1] : exit);
    b.setInsertPoint(bodies[size_t(i)]);
    b.br(headers[size_t(i)]);
  }
  b.setInsertPoint(exit);
  b.ret();
  DominatorTree dom(*f);
  EXPECT_TRUE(dom.dominates(entry, exit));
  EXPECT_TRUE(dom.dominates(headers[0], headers[kLoops - 1]));
  EXPECT_TRUE(dom.dominates(headers[100], bodies[100]));
  EXPECT_FALSE(dom.dominates(bodies[100], headers[101]));
  EXPECT_EQ(dom.idom(exit), headers[kLoops - 1]);
  std::vector<transform::Loop> loops = transform::findLoops(*f, dom);
  ASSERT_EQ(loops.size(), size_t(kLoops));
  for (const transform::Loop& loop : loops) {
    ASSERT_EQ(loop.blocksInOrder.size(), 2u);
    EXPECT_EQ(loop.latch, loop.blocksInOrder[1]);
    EXPECT_EQ(loop.headerPredecessors.size(), 2u);
  }
}

}  // namespace
}  // namespace tritonc::ir
