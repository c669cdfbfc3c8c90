// analysis/pointer_roots: the kernel arguments a pointer is computed from
// (pre-fetching's test of whether a load may move ahead of a loop's writes).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "analysis/pointer_roots.h"
#include "ir/parser.h"

namespace tritonc::analysis {
namespace {

const char* kKernel = R"(kernel @k(%A: f32*, %B: f32*, %n: i32, %addr: i64, %c: i1) {
entry:
  %r = range 0 : i32<16>
  %sa = splat %A : f32*<16>
  %pa = gep %sa, %r : f32*<16>
  %sb = splat %B : f32*<16>
  %pb = gep %sb, %r : f32*<16>
  %either = select %c, %A, %B : f32*
  %made = cast %addr : f32*
  %aa = cast %A : i64
  %back = cast %aa : f32*
  br loop
loop:
  %p = phi [%pa, entry], [%next, loop] : f32*<16>
  %next = gep %p, %r : f32*<16>
  %d = cmp lt %n, i32 4 : i1
  cond_br %d, loop, done
done:
  ret
}
)";

class PointerRootsTest : public ::testing::Test {
 protected:
  void SetUp() override { m_ = ir::parseModule(kKernel); }
  const ir::Value* named(const std::string& name) const {
    const ir::Function& f = *m_->functions()[0];
    for (auto& a : f.arguments())
      if (a->name() == name) return a.get();
    for (auto& bb : f.blocks())
      for (auto& i : bb->instructions())
        if (i->name() == name) return i.get();
    ADD_FAILURE() << "no value %" << name;
    return nullptr;
  }
  // The roots' names, or "?" where some origin is not an argument.
  std::string roots(const std::string& name) const {
    std::set<const ir::Argument*> r;
    if (!pointerRoots(named(name), &r)) return "?";
    std::string out;
    for (const ir::Argument* a : r) out += (out.empty() ? "" : ",") + a->name();
    return out;
  }
  std::unique_ptr<ir::Module> m_;
};

TEST_F(PointerRootsTest, ThroughSplatsGepsPhisAndSelects) {
  EXPECT_EQ(roots("A"), "A");
  EXPECT_EQ(roots("pa"), "A");
  EXPECT_EQ(roots("pb"), "B");
  EXPECT_EQ(roots("next"), "A");  // around the loop's phi
  std::string both = roots("either");
  EXPECT_TRUE(both == "A,B" || both == "B,A") << both;
}

TEST_F(PointerRootsTest, PointersMadeFromIntegersHaveNoKnownRoots) {
  EXPECT_EQ(roots("made"), "?");
  EXPECT_EQ(roots("back"), "?");  // through an integer, even one computed from A
}

}  // namespace
}  // namespace tritonc::analysis
