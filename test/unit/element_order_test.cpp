// orderByElement (target/nvptx/element_order.h): a run of element-wise PTX
// goes out element by element where its register dependencies allow, and
// as it is where a line is not a plain instruction.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "target/nvptx/element_order.h"

namespace tritonc::nvptx {
namespace {

std::vector<std::string> texts(const std::vector<ElementLine>& lines) {
  std::vector<std::string> t;
  for (const ElementLine& l : lines) t.push_back(l.text);
  return t;
}

TEST(ElementOrder, ChainsGoOutElementByElement) {
  // ex2 then add over two elements, written instruction by instruction.
  const std::vector<ElementLine> lines = {{0, "  ex2.approx.f32 %f10, %f0;"},
                                          {1, "  ex2.approx.f32 %f11, %f1;"},
                                          {0, "  add.f32 %f20, %f10, %f5;"},
                                          {1, "  add.f32 %f21, %f11, %f5;"}};
  EXPECT_EQ(orderByElement(lines, 0),
            (std::vector<std::string>{"  ex2.approx.f32 %f10, %f0;", "  add.f32 %f20, %f10, %f5;",
                                      "  ex2.approx.f32 %f11, %f1;", "  add.f32 %f21, %f11, %f5;"}));
}

TEST(ElementOrder, UntaggedLinesGoAsEarlyAsAllowed) {
  // A splat's mov (no element) read by both elements' lines.
  const std::vector<ElementLine> lines = {{0, "  mul.f32 %f10, %f0, %f0;"},
                                          {1, "  mul.f32 %f11, %f1, %f1;"},
                                          {-1, "  mov.f32 %f5, 0f3F800000;"},
                                          {0, "  add.f32 %f20, %f10, %f5;"},
                                          {1, "  add.f32 %f21, %f11, %f5;"}};
  EXPECT_EQ(orderByElement(lines, 0),
            (std::vector<std::string>{"  mov.f32 %f5, 0f3F800000;", "  mul.f32 %f10, %f0, %f0;",
                                      "  add.f32 %f20, %f10, %f5;", "  mul.f32 %f11, %f1, %f1;",
                                      "  add.f32 %f21, %f11, %f5;"}));
}

TEST(ElementOrder, RegisterReuseKeepsItsOrder) {
  // %t is written for element 1 after element 0 reads it (a write after a
  // read), and element 0's second line reads what element 1 wrote first.
  const std::vector<ElementLine> lines = {{1, "  mov.b32 %r1, 7;"},
                                          {0, "  mov.b32 %t, %r0;"},
                                          {0, "  add.s32 %r10, %t, 1;"},
                                          {1, "  mov.b32 %t, %r1;"},
                                          {1, "  add.s32 %r11, %t, 1;"},
                                          {0, "  add.s32 %r12, %r10, %r1;"}};
  EXPECT_EQ(orderByElement(lines, 0),
            (std::vector<std::string>{"  mov.b32 %t, %r0;", "  add.s32 %r10, %t, 1;", "  mov.b32 %r1, 7;",
                                      "  add.s32 %r12, %r10, %r1;", "  mov.b32 %t, %r1;",
                                      "  add.s32 %r11, %t, 1;"}));
}

TEST(ElementOrder, GuardsPairsAndVectorsAreRegisters) {
  // A guard is read; `%p|%q` and `{...}` destinations are written.
  const std::vector<ElementLine> lines = {{0, "  setp.lt.f32 %p1|%p2, %f0, %f1;"},
                                          {1, "  mov.b32 {%h0, %h1}, %r3;"},
                                          {0, "  @%p1 mov.f32 %f9, %f1;"},
                                          {1, "  add.f16 %h2, %h0, %h1;"},
                                          {0, "  selp.f32 %f8, %f0, %f1, %p2;"}};
  EXPECT_EQ(orderByElement(lines, 0),
            (std::vector<std::string>{"  setp.lt.f32 %p1|%p2, %f0, %f1;", "  @%p1 mov.f32 %f9, %f1;",
                                      "  selp.f32 %f8, %f0, %f1, %p2;", "  mov.b32 {%h0, %h1}, %r3;",
                                      "  add.f16 %h2, %h0, %h1;"}));
}

TEST(ElementOrder, NarrowRunsStayAsTheyAre) {
  // Elements 0 and 1 only: ordered from two elements up, not from three.
  const std::vector<ElementLine> lines = {{0, "  neg.f32 %f10, %f0;"},
                                          {1, "  neg.f32 %f11, %f1;"},
                                          {0, "  abs.f32 %f20, %f10;"}};
  EXPECT_EQ(orderByElement(lines, 3), texts(lines));
  EXPECT_EQ(orderByElement(lines, 2),
            (std::vector<std::string>{"  neg.f32 %f10, %f0;", "  abs.f32 %f20, %f10;", "  neg.f32 %f11, %f1;"}));
}

TEST(ElementOrder, RunsWithOtherLinesStayAsTheyAre) {
  for (const std::string odd : {"  ld.global.f32 %f3, [%rd1];", "$L_next:", "  { .reg .b32 %tmp;",
                                "  bar.sync 0;", "  add.f32 %f3, %f1, %f2; // why", "  @%p1 bra $L_x;"}) {
    const std::vector<ElementLine> lines = {{1, "  mul.f32 %f11, %f1, %f1;"}, {-1, odd},
                                            {0, "  mul.f32 %f10, %f0, %f0;"}};
    EXPECT_EQ(orderByElement(lines, 0), texts(lines)) << odd;
  }
}

// Random runs: whatever the order chosen, every register ends with the value
// the lines compute in their written order (each line evaluated as a hash of
// its opcode and the values it reads; a guarded line may leave its
// destination as it was).
TEST(ElementOrder, RandomRunsComputeWhatTheirOrderComputes) {
  std::mt19937 rng(std::random_device{}());
  auto evaluate = [](const std::vector<std::string>& order) {
    std::map<std::string, unsigned long> reg;
    for (const std::string& line : order) {
      // "  [@%pG ]op %dst, %a, %b;"
      std::string s = line.substr(2, line.size() - 3);
      bool guarded = s[0] == '@';
      std::string guard;
      if (guarded) {
        guard = s.substr(1, s.find(' ') - 1);
        s = s.substr(s.find(' ') + 1);
      }
      const std::string op = s.substr(0, s.find(' '));
      std::vector<std::string> ops;
      for (size_t k = s.find(' ') + 1; k < s.size();) {
        size_t e = s.find(", ", k);
        ops.push_back(s.substr(k, e == std::string::npos ? std::string::npos : e - k));
        k = e == std::string::npos ? s.size() : e + 2;
      }
      if (guarded && reg[guard] % 2 == 0) continue;
      unsigned long h = std::hash<std::string>{}(op);
      for (size_t n = 1; n < ops.size(); ++n) h = h * 1000003u ^ reg[ops[n]];
      reg[ops[0]] = h;
    }
    return reg;
  };
  const std::vector<std::string> regs = {"%r0", "%r1", "%r2", "%r3", "%r4", "%r5", "%p0", "%p1"};
  const std::vector<std::string> opcodes = {"add.s32", "mul.lo.s32", "xor.b32", "mov.b32"};
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<ElementLine> lines;
    const int n = 2 + int(rng() % 14);
    for (int k = 0; k < n; ++k) {
      std::string line = "  ";
      if (rng() % 5 == 0) line += "@" + regs[6 + rng() % 2] + " ";
      const std::string op = opcodes[rng() % opcodes.size()];
      line += op + " " + regs[rng() % regs.size()] + ", " + regs[rng() % regs.size()];
      if (op != "mov.b32") line += ", " + regs[rng() % regs.size()];
      lines.push_back({int(rng() % 4) - 1, line + ";"});
    }
    const std::vector<std::string> ordered = orderByElement(lines, 0);
    ASSERT_EQ(ordered.size(), lines.size());
    EXPECT_EQ(evaluate(ordered), evaluate(texts(lines))) << "trial " << trial;
  }
}

}  // namespace
}  // namespace tritonc::nvptx
