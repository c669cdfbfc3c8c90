// The GPU IR's text form and verifier (docs/GPU_IR.md): layouts printed once
// and referred to by name, GPU instructions with their attributes, round
// trips, and the errors of malformed GPU IR.
#include <gtest/gtest.h>

#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "support/diagnostic.h"
#include "target/interp/interpreter.h"

namespace tritonc::ir {
namespace {

// A pipelined K loop as the GPU passes leave it: a two-stage ring filled by
// masked asynchronous copies, read by a wgmma that accumulates in place.
const char* const kPipelined = R"(target "sm_90a" num_warps(4)

#blocked0 = blocked<spt=[1, 8], tpw=[4, 8], wpc=[4, 1], order=[1, 0]>
#slice0 = slice<dim=1, parent=#blocked0>
#shared0 = shared<order=[1, 0], swizzle=128>
#mma0 = mma<v=3, wpc=[4, 1]>

kernel @k(%a: f16* aligned(16), %n: i32) shared(32768) {
entry:
  %r = range 0 : i32<64, #slice0>
  %r2 = reshape %r : i32<64, 1, #blocked0>
  %rb = broadcast %r2 : i32<64, 64, #blocked0>
  %pa = splat %a : f16*<64, 64, #blocked0>
  %p = gep %pa, %rb : f16*<64, 64, #blocked0>
  %sn = splat %n : i32<64, 64, #blocked0>
  %m = cmp lt %rb, %sn : i1<64, 64, #blocked0>
  %ring = local_alloc : f16<2, 64, 64, #shared0> {smem = 0}
  %s0 = mem_index %ring, i32 0 : f16<64, 64, #shared0>
  async_copy %s0, %p, %m {vec = 8}
  async_commit
  %acc0 = splat f32 0 : f32<64, 64, #mma0>
  br loop

loop:
  %i = phi [i32 0, entry], [%i.next, loop] : i32
  %acc = phi [%acc0, entry], [%acc.w, loop] : f32<64, 64, #mma0>
  async_wait 0
  barrier
  fence_async_shared
  %s = mem_index %ring, %i : f16<64, 64, #shared0>
  %acc.d = dot_async %s, %s, %acc : f32<64, 64, #mma0>
  %acc.w = dot_wait 1 %acc.d : f32<64, 64, #mma0>
  %i.next = add %i, i32 1 : i32
  %c = cmp lt %i.next, i32 4 : i1
  cond_br %c, loop, exit

exit:
  %done = dot_wait 0 %acc.w : f32<64, 64, #mma0>
  %b = convert_layout %done : f32<64, 64, #blocked0>
  %h = cast %b : f16<64, 64, #blocked0>
  store %p, %h, %m {vec = 8}
  ret
}
)";

TEST(GpuIrText, RoundTripsAndVerifies) {
  std::unique_ptr<Module> m = parseModule(kPipelined);
  EXPECT_EQ(printModule(*m), kPipelined);
  EXPECT_EQ(verifyModule(*m), "");
  EXPECT_EQ(m->target, "sm_90a");
  EXPECT_EQ(m->numWarps, 4);
  EXPECT_EQ(m->functions()[0]->sharedBytes, 32768);
}

TEST(GpuIrText, LayoutsAreInterned) {
  std::unique_ptr<Module> m = parseModule(kPipelined);
  const Function& f = *m->functions()[0];
  const Instruction* r2 = f.blocks()[0]->instructions()[1].get();
  const Instruction* rb = f.blocks()[0]->instructions()[2].get();
  EXPECT_EQ(r2->type().layout, rb->type().layout);
  EXPECT_EQ(r2->type().layout->kind, LayoutKind::Blocked);
  const Layout* slice = f.blocks()[0]->instructions()[0]->type().layout;
  EXPECT_EQ(slice->kind, LayoutKind::Slice);
  EXPECT_EQ(slice->parent, r2->type().layout);
  Layout copy = *r2->type().layout;
  EXPECT_EQ(m->layout(copy), r2->type().layout);
}

// Names are given in order of first use, whatever the text called them.
TEST(GpuIrText, LayoutNamesAreRenumbered) {
  std::string text = R"(target "sm_80" num_warps(1)
#zz = blocked<spt=[1], tpw=[32], wpc=[1], order=[0]>
kernel @k(%p: f32*) {
entry:
  %r = range 0 : i32<32, #zz>
  %q = splat %p : f32*<32, #zz>
  %a = gep %q, %r : f32*<32, #zz>
  %x = load %a : f32<32, #zz> {vec = 1}
  store %a, %x {vec = 1}
  ret
}
)";
  std::string printed = printModule(*parseModule(text));
  EXPECT_NE(printed.find("#blocked0 = blocked<spt=[1], tpw=[32], wpc=[1], order=[0]>"), std::string::npos) << printed;
  EXPECT_NE(printed.find("%x = load %a : f32<32, #blocked0> {vec = 1}"), std::string::npos) << printed;
}

void expectParseError(const std::string& text, const std::string& message) {
  try {
    parseModule(text);
    ADD_FAILURE() << "no error for:\n" << text;
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
  }
}

TEST(GpuIrText, ParseErrors) {
  expectParseError("target \"sm_80\"\n", "expected 'num_warps(N)'");
  expectParseError("target \"sm_80\" num_warps(3)\n", "num_warps must be a power of two");
  expectParseError("target \"sm_80\" num_warps(4)\n#b = blocked<spt=[1], tpw=[16], wpc=[1], order=[0]>\n",
                   "tpw must multiply to 32");
  expectParseError("target \"sm_80\" num_warps(4)\n#b = blocked<spt=[1], nope=[1]>\n",
                   "unknown parameter 'nope' of a blocked layout");
  expectParseError("target \"sm_80\" num_warps(4)\n#b = twisted<>\n", "unknown layout kind 'twisted'");
  expectParseError("target \"sm_80\" num_warps(4)\nkernel @k() {\nentry:\n  %r = range 0 : i32<8, #nope>\n  ret\n}\n",
                   "use of undefined layout '#nope'");
  expectParseError("target \"sm_80\" num_warps(4)\n#s = shared<order=[1, 0], pad=8, swizzle=128>\n",
                   "padded or swizzled, not both");
  expectParseError("target \"sm_80\" num_warps(4)\nkernel @k() {\nentry:\n  barrier {bogus = 1}\n  ret\n}\n",
                   "unknown attribute 'bogus'");
  expectParseError("target \"sm_80\" num_warps(4)\nkernel @k(%p: f16* aligned(3)) {\nentry:\n  ret\n}\n",
                   "'aligned' needs a power of two");
  // (a slice of a dimension its parent lacks used to corrupt the heap when lowered)
  expectParseError("target \"sm_80\" num_warps(4)\n#b = blocked<spt=[1, 1], tpw=[4, 8], wpc=[4, 1], order=[1, 0]>\n"
                   "#s = slice<dim=5, parent=#b>\n",
                   "slice dim 5 is not a dimension of its parent (rank 2)");
}

std::string verifyText(const std::string& text) { return verifyModule(*parseModule(text)); }

const char* const kHeader = R"(target "sm_80" num_warps(4)
#b = blocked<spt=[1, 4], tpw=[8, 4], wpc=[4, 1], order=[1, 0]>
#c = blocked<spt=[4, 1], tpw=[4, 8], wpc=[1, 4], order=[0, 1]>
#s = shared<order=[1, 0], pad=8>
#m = mma<v=2, wpc=[2, 2]>
#a0 = dot_operand<op=0, parent=#m>
#a1 = dot_operand<op=1, parent=#m>
kernel @k(%p: f16*, %i: i32) {
entry:
)";

void expectVerifyError(const std::string& body, const std::string& problem) {
  std::string message = verifyText(std::string(kHeader) + body + "  ret\n}\n");
  EXPECT_NE(message.find(problem), std::string::npos) << "message:\n" << message << "\nexpected: " << problem;
}

// A pre-fetch's iteration guard (`splat {guard = 1}`) splats a condition;
// a tma_copy's optional issue predicate is a scalar i1.
TEST(GpuIrText, GuardsAndIssuePredicates) {
  const std::string guarded = "kernel @k(%n: i32) {\nentry:\n"
                              "  %c = cmp gt %n, i32 0 : i1\n  %g = splat %c : i1<8> {guard = 1}\n  ret\n}\n";
  std::unique_ptr<Module> m = parseModule(guarded);
  EXPECT_EQ(printModule(*m), guarded);
  EXPECT_EQ(verifyModule(*m), "");
  EXPECT_EQ(m->functions()[0]->blocks()[0]->instructions()[1]->sub, kSplatIterationGuard);
  EXPECT_NE(verifyText("kernel @k(%n: i32) {\nentry:\n  %g = splat %n : i32<8> {guard = 1}\n  ret\n}\n")
                .find("a guard 'splat' splats a condition (i1)"),
            std::string::npos);
  expectParseError("kernel @k(%n: i32) {\nentry:\n  %g = add %n, i32 1 : i32 {guard = 1}\n  ret\n}\n",
                   "marks a splat (a pre-fetch's iteration guard)");
  expectParseError("kernel @k(%c: i1, %n: i32) {\nentry:\n  %g = select %c, %n, i32 1 : i32 {guard = 1}\n  ret\n}\n",
                   "marks a splat (a pre-fetch's iteration guard)");
  const std::string copy = R"(target "sm_90a" num_warps(4)

#shared0 = shared<order=[0]>
#shared1 = shared<order=[1, 0], swizzle=128>

kernel @k(%a: f16* aligned(16), %n: i32) shared(16400) {
entry:
  %bars = local_alloc : i64<1, 1, #shared0> {smem = 16384}
  tma_init %bars
  %ring = local_alloc : f16<1, 64, 64, #shared1> {smem = 0}
  %s = mem_index %ring, i32 0 : f16<64, 64, #shared1>
  %go = cmp gt %n, i32 0 : i1
  tma_copy %s, %bars, i32 0, %a, i32 64, %n, i32 64, i32 0, i32 0, i1 1, ISSUE
  tma_wait %bars, i32 0, i32 0
  ret
}
)";
  auto with = [&](const std::string& issue) {
    std::string t = copy;
    t.replace(t.find("ISSUE"), 5, issue);
    return t;
  };
  std::unique_ptr<Module> c = parseModule(with("%go"));
  EXPECT_EQ(printModule(*c), with("%go"));
  EXPECT_EQ(verifyModule(*c), "");
  EXPECT_NE(verifyText(with("%n")).find("a scalar i1 issue predicate"), std::string::npos);
}

// A multicast tma_copy's stage splits in halves, one per program of the
// pair: by swizzle blocks (an even number of them), or else by rows that
// halve into multiples of 1024 bytes (a K-contiguous B of one block).
TEST(GpuIrVerifier, MulticastStagesSplitInHalves) {
  const std::string copy = R"(target "sm_90a" num_warps(4)

#shared0 = shared<order=[0]>
#shared1 = shared<order=[1, 0], swizzle=128>

kernel @k(%a: f16* aligned(16), %n: i32) shared(40000) {
entry:
  %bars = local_alloc : i64<1, 1, #shared0> {smem = 32768}
  tma_init %bars {cluster = 1}
  %ring = local_alloc : f16<1, SHAPE, #shared1> {smem = 0}
  %s = mem_index %ring, i32 0 : f16<SHAPE, #shared1>
  tma_copy %s, %bars, i32 0, %a, i32 128, %n, i32 128, i32 0, i32 0, i1 1 {multicast = 2}
  tma_wait %bars, i32 0, i32 0
  ret
}
)";
  auto with = [&](const std::string& shape) {
    std::string t = copy;
    for (size_t at; (at = t.find("SHAPE")) != std::string::npos;) t.replace(at, 5, shape);
    return t;
  };
  EXPECT_EQ(verifyText(with("64, 128")), "");  // two 128-byte blocks: one each
  EXPECT_EQ(verifyText(with("128, 64")), "");  // one block: 64 rows (8 KB) each
  EXPECT_EQ(verifyText(with("16, 64")), "");   // one block: 8 rows (1 KB) each
  EXPECT_NE(verifyText(with("8, 64")).find("a multicast 'tma_copy' needs a stage that splits in halves"),
            std::string::npos);  // 4 rows (512 bytes) each would break the swizzle pattern
  // {along = y}: the pair along the grid's y axis (num_ctas = 4); printed
  // back as it was, `along = x` being the default; only on a multicast copy.
  auto along = [&](const std::string& attrs) {
    std::string t = with("64, 128");
    t.replace(t.find("{multicast = 2}"), 15, attrs);
    return t;
  };
  EXPECT_EQ(verifyText(along("{multicast = 2, along = y}")), "");
  EXPECT_NE(printModule(*parseModule(along("{multicast = 2, along = y}"))).find("{multicast = 2, along = y}"),
            std::string::npos);
  EXPECT_NE(printModule(*parseModule(along("{multicast = 2, along = x}"))).find("{multicast = 2}\n"),
            std::string::npos);
  EXPECT_NE(verifyText(along("{along = y}")).find("'along = y' marks a multicast 'tma_copy'"), std::string::npos);
  expectParseError(along("{multicast = 2, along = z}"), "'along = x' or 'along = y'");
}

TEST(GpuIrVerifier, LayoutRules) {
  // Every tile has a layout, of the tile's rank.
  expectVerifyError("  %r = range 0 : i32<32>\n", "the result has no layout");
  expectVerifyError("  %r = range 0 : i32<32, #b>\n", "layout of rank 2");
  // Element-wise operands share the result's layout.
  expectVerifyError("  %x = splat %i : i32<32, 32, #b>\n  %y = splat %i : i32<32, 32, #c>\n  %z = add %x, %y : i32<32, 32, #b>\n",
                    "operand types differ");
  // A conversion changes the layout only.
  expectVerifyError("  %x = splat %i : i32<32, 32, #b>\n  %y = convert_layout %x : i32<32, 16, #c>\n",
                    "changes only the layout");
  // Buffers come from local_alloc and mem_index only; only local_load and dots read them.
  expectVerifyError("  %x = splat %i : i32<32, 32, #s>\n", "only local_alloc, mem_index and trans make buffers");
  expectVerifyError("  %x = local_alloc : f16<32, 32, #s>\n  %y = cast %x : f32<32, 32, #s>\n",
                    "only local_alloc, mem_index and trans make buffers");
  expectVerifyError("  %x = local_alloc : f16<32, 32, #b>\n", "its type needs a shared layout");
  expectVerifyError("  %x = local_alloc : f16<32, 32, #s>\n  %y = mem_index %x, i32 0 : f16<32, 32, #s>\n",
                    "selects a stage of a buffer with a leading stage dimension");
  expectVerifyError("  %x = local_alloc : f16<2, 32, 32, #s>\n  %y = mem_index %x, i32 2 : f16<32, 32, #s>\n",
                    "'mem_index' selects stage 2 of a buffer of 2 stages");
  // An mma.sync dot takes dot operands of its own layout.
  expectVerifyError("  %x = splat f16 0 : f16<32, 16, #b>\n  %y = splat f16 0 : f16<16, 32, #b>\n"
                    "  %z = splat f32 0 : f32<32, 32, #m>\n  %d = dot %x, %y, %z : f32<32, 32, #m>\n",
                    "takes its operands as dot_operand 0 and 1");
  // A reduction's result is the slice of its operand's layout.
  expectVerifyError("  %x = splat %i : i32<32, 32, #b>\n  %y = reduce add 1 %x : i32<32, #b>\n", "layout of rank 2");
  // Copies write a single stage whose shape is the pointers'.
  expectVerifyError("  %x = local_alloc : f16<2, 32, 32, #s>\n  %q = splat %p : f16*<32, 32, #b>\n  async_copy %x, %q\n",
                    "writes one buffer (a single stage)");
  // Hand-written GPU IR the lowering crashed on or stopped with an internal
  // error: vectors wider than a thread's contiguous elements, copies that are
  // not 4, 8 or 16 bytes, layouts over other warps than num_warps.
  expectVerifyError("  %q = splat %p : f16*<32, 32, #b>\n  %v = load %q : f16<32, 32, #b> {vec = 8}\n",
                    "{vec = 8} needs 8 elements contiguous in each thread; the layout of f16*<32, 32, #b");
  expectVerifyError("  %x = local_alloc : f16<32, 32, #s>\n  %q = splat %p : f16*<32, 32, #b>\n"
                    "  async_copy %x, %q {vec = 1}\n",
                    "'async_copy' copies 4, 8 or 16 bytes at a time, not 1 x f16");
  std::string twoWarps = std::string(kHeader);
  twoWarps.replace(twoWarps.find("num_warps(4)"), 12, "num_warps(2)");
  std::string message = verifyText(twoWarps + "  %x = splat %i : i32<32, 32, #b>\n  ret\n}\n");
  EXPECT_NE(message.find("spreads over 4 warps, which the 2 of num_warps do not cover"), std::string::npos) << message;
}

// wgmma's buffers are swizzled (MN-major ones by 128 bytes): a hand-written
// dot_async of unswizzled buffers is refused (the lowering stopped on it).
TEST(GpuIrVerifier, WgmmaReadsSwizzledBuffers) {
  auto dot = [](const std::string& sharedA, const std::string& sharedB) {
    return std::string("target \"sm_90a\" num_warps(4)\n#m = mma<v=3, wpc=[4, 1]>\n#sa = ") + sharedA +
           "\n#sb = " + sharedB +
           "\nkernel @k() {\nentry:\n  %a = local_alloc : f16<64, 32, #sa>\n  %b = local_alloc : f16<32, 64, #sb>\n"
           "  %z = splat f32 0 : f32<64, 64, #m>\n  %d = dot_async %a, %b, %z : f32<64, 64, #m>\n  ret\n}\n";
  };
  EXPECT_EQ(verifyText(dot("shared<order=[1, 0], swizzle=64>", "shared<order=[1, 0], swizzle=128>")), "");
  EXPECT_NE(verifyText(dot("shared<order=[1, 0], swizzle=64>", "shared<order=[1, 0]>")).find("wgmma reads swizzled "
                                                                                              "buffers: B is"),
            std::string::npos);
  EXPECT_NE(verifyText(dot("shared<order=[0, 1], swizzle=64>", "shared<order=[1, 0], swizzle=128>"))
                .find("MN-major buffer with the 128-byte swizzle only: A is"),
            std::string::npos);
}

// A transposed wgmma (C^T = B^T A^T, a tf32 B stored K x N): A's K-major
// buffer, B in registers (dot_operand 1 of the result); its layouts print
// and parse back. 8-bit and tf32 buffers are K-major only; the transposed
// form is wgmma's only.
TEST(GpuIrVerifier, TransposedWgmmaReadsBFromRegisters) {
  auto dot = [](const std::string& sharedA, const std::string& b) {
    return std::string("target \"sm_90a\" num_warps(4)\n\n#shared0 = ") + sharedA +
           "\n#shared1 = shared<order=[1, 0], pad=8>\n#mma0 = mma<v=3, wpc=[4, 1], transposed=1>\n"
           "#dot0 = dot_operand<op=1, parent=#mma0>\n\nkernel @k() {\nentry:\n"
           "  %a = local_alloc : f32<64, 32, #shared0>\n  %s = local_alloc : f32<32, 64, #shared1>\n" +
           b + "  %z = splat f32 0 : f32<64, 64, #mma0>\n  %d = dot_async %a, %b, %z : f32<64, 64, #mma0>\n  ret\n}\n";
  };
  std::string good = dot("shared<order=[1, 0], swizzle=128>", "  %b = local_load %s : f32<32, 64, #dot0>\n");
  std::unique_ptr<Module> m = parseModule(good);
  EXPECT_EQ(printModule(*m), good);
  EXPECT_EQ(verifyModule(*m), "");
  EXPECT_NE(verifyText(dot("shared<order=[1, 0], swizzle=128>", "  %b = local_alloc : f32<32, 64, #shared1>\n"))
                .find("reads A from shared memory and B from registers"),
            std::string::npos);
  EXPECT_NE(verifyText(dot("shared<order=[0, 1], swizzle=128>", "  %b = local_load %s : f32<32, 64, #dot0>\n"))
                .find("wgmma reads 8-bit and tf32 operands K-major only: A is"),
            std::string::npos);
  expectParseError("target \"sm_80\" num_warps(4)\n#m = mma<v=2, wpc=[2, 2], transposed=1>\n",
                   "only wgmma (v=3) accumulators are transposed");
  expectParseError("target \"sm_80\" num_warps(4)\n#m = mma<v=3, wpc=[4, 1], transposed=2>\n",
                   "transposed must be 0 or 1");
}

TEST(GpuIrVerifier, TritonIrRejectsGpuInstructions) {
  EXPECT_NE(verifyText("kernel @k() {\nentry:\n  fence_async_shared\n  ret\n}\n").find("without a GPU target"),
            std::string::npos);
  // `barrier` is Triton-IR too (__debug_barrier()).
  EXPECT_EQ(verifyText("kernel @k() {\nentry:\n  barrier\n  ret\n}\n"), "");
}

TEST(GpuIrVerifier, AcceptsWellFormedDots) {
  std::string body = "  %x = splat f16 0 : f16<32, 16, #a0>\n  %y = splat f16 0 : f16<16, 32, #a1>\n"
                     "  %z = splat f32 0 : f32<32, 32, #m>\n  %d = dot %x, %y, %z : f32<32, 32, #m>\n"
                     "  %u = local_alloc : f16<32, 16, #s>\n  %v = local_alloc : f16<16, 32, #s>\n"
                     "  %w = splat f32 0 : f32<32, 32, #b>\n  %e = dot %u, %v, %w : f32<32, 32, #b>\n";
  EXPECT_EQ(verifyText(std::string(kHeader) + body + "  ret\n}\n"), "");
}

}  // namespace
}  // namespace tritonc::ir

namespace tritonc::ir {
namespace {

// Warp specialization's text (gpu/warp_specialize.cpp): producer_warps(1) on
// the function, roles on the instructions, the stages' barriers of the
// consumers' frees. `body` goes between the barriers' allocation and `ret`.
std::string specialized(const std::string& body) {
  return std::string(R"(target "sm_90a" num_warps(4)

#shared0 = shared<order=[0]>

kernel @k(%n: i32) shared(64) producer_warps(1) {
entry:
  %free = local_alloc : i64<2, 1, #shared0> {smem = 0, role = both}
  stage_init 4 %free {role = both}
)") + body + "  ret {role = both}\n}\n";
}

TEST(GpuIrText, WarpSpecializationRoundTrips) {
  std::string text = specialized(
      "  %s = add %n, i32 1 : i32 {role = producer}\n"
      "  tma_wait %free, i32 0, i32 1 {role = producer}\n"
      "  stage_release %free, i32 0, i1 1\n"
      "  barrier {cluster = arrive, role = both}\n"
      "  barrier {cluster = wait, role = both}\n");
  std::unique_ptr<Module> m = parseModule(text);
  EXPECT_EQ(printModule(*m), text);
  EXPECT_EQ(verifyModule(*m), "");
  EXPECT_EQ(m->functions()[0]->producerWarps, 1);
  expectParseError(specialized("  stage_init 0 %free {role = both}\n"), "between 1 and 1024 arrivals");
  expectParseError(specialized("  tma_wait %free, i32 0, i32 1 {role = everyone}\n"), "expected 'producer' or 'both'");
  expectParseError(specialized("  barrier {cluster = later, role = both}\n"), "mark the halves of a barrier");
  std::string two = specialized("");
  two.replace(two.find("producer_warps(1)"), 17, "producer_warps(2)");
  expectParseError(two, "one producer warp");
}

// gpu-program-order's mark round-trips after the other function
// attributes; a group of no rows is refused.
TEST(GpuIrText, GroupedProgramsRoundTrips) {
  const std::string text = "target \"sm_90a\" num_warps(4)\n\nkernel @k(%n: i32) shared(0) grouped_programs(16) {\n"
                           "entry:\n  %x = program_id 0 : i32\n  ret\n}\n";
  std::unique_ptr<Module> m = parseModule(text);
  EXPECT_EQ(printModule(*m), text);
  EXPECT_EQ(m->functions()[0]->groupedPrograms, 16);
  std::string none = text;
  none.replace(none.find("grouped_programs(16)"), 20, "grouped_programs(0)");
  expectParseError(none, "rows of tiles per group must be between 1 and 1024");
}

TEST(GpuIrVerifier, RolesUseOnlyTheirOwnValues) {
  auto problem = [](const std::string& body) { return verifyModule(*parseModule(specialized(body))); };
  EXPECT_NE(problem("  %s = add %n, i32 1 : i32 {role = producer}\n  %t = add %s, i32 1 : i32\n")
                .find("a consumer instruction uses a value that only the producer computes"),
            std::string::npos);
  EXPECT_NE(problem("  %s = add %n, i32 1 : i32\n  %t = add %s, i32 1 : i32 {role = both}\n")
                .find("a both instruction uses a value that only the consumer computes"),
            std::string::npos);
  EXPECT_NE(problem("  barrier {role = both}\n").find("the consumers' own"), std::string::npos);
  EXPECT_NE(problem("  tma_init %free\n").find("runs in every warp"), std::string::npos);
  EXPECT_EQ(problem("  barrier\n  barrier {cluster = 1, role = both}\n"), "");
  // Without producer warps, no role.
  EXPECT_NE(verifyModule(*parseModule("target \"sm_90a\" num_warps(4)\nkernel @k() {\nentry:\n  ret {role = both}\n}\n"))
                .find("a role in a function without producer warps"),
            std::string::npos);
}

// The interpreter counts the phases the barriers complete: a wait for one
// that nothing before it completed would wait for ever.
TEST(GpuIrInterp, WaitsNeedTheirPhaseCompletedBefore) {
  auto run = [](const std::string& body) {
    std::unique_ptr<Module> m = parseModule(specialized(body));
    interp::runKernel(*m->functions()[0], interp::Grid{1, 1, 1}, {interp::KernelArg::ofInt(3)});
  };
  // A fresh barrier passes a wait for parity 1 (the phase before its first).
  EXPECT_NO_THROW(run("  tma_wait %free, i32 1, i32 1 {role = producer}\n"));
  // Parity 0 of stage 0 needs one release of stage 0 first.
  EXPECT_NO_THROW(run("  stage_release %free, i32 0, i1 1\n  tma_wait %free, i32 0, i32 0 {role = producer}\n"));
  for (const char* body : {"  tma_wait %free, i32 0, i32 0 {role = producer}\n",
                           "  stage_release %free, i32 1, i1 1\n  tma_wait %free, i32 0, i32 0 {role = producer}\n",
                           "  stage_release %free, i32 0, i1 0\n  tma_wait %free, i32 0, i32 0 {role = producer}\n"}) {
    try {
      run(body);
      ADD_FAILURE() << "no error for:\n" << body;
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find("nothing before it completes that phase"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace tritonc::ir
