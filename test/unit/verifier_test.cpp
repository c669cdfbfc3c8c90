// The verifier (docs/IR.md, "Verifier") and the dominator tree it uses.
#include <gtest/gtest.h>

#include <algorithm>

#include "ir/builder.h"
#include "ir/dominators.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"

namespace tritonc::ir {
namespace {

std::string verifyText(const std::string& text) { return verifyModule(*parseModule(text)); }

// A kernel @k whose entry block holds `body`.
std::string kernel(const std::string& body) {
  return "kernel @k(%a: i32, %b: f32, %p: f32*, %q: i32*) {\nentry:\n" + body + "}\n";
}

// The verifier's message holds `in @k, block BLOCK: 'INST': PROBLEM`.
void expectError(const std::string& text, const std::string& block, const std::string& inst,
                 const std::string& problem) {
  std::string message = verifyText(text);
  std::string expected = "in @k, block " + block + ": '" + inst + "': " + problem;
  EXPECT_NE(message.find(expected), std::string::npos) << "message:\n" << message << "\nexpected:\n" << expected;
}

void expectEntryError(const std::string& body, const std::string& inst, const std::string& problem) {
  expectError(kernel(body), "entry", inst, problem);
}

// Two-way branch on %a == 0 into blocks l and r that meet in join.
std::string diamond(const std::string& left, const std::string& right, const std::string& join) {
  return kernel("  %c = cmp eq %a, i32 0 : i1\n  cond_br %c, l, r\nl:\n" + left + "  br join\nr:\n" + right +
                "  br join\njoin:\n" + join + "  ret\n");
}

TEST(Verifier, MessageNamesFunctionBlockAndInstruction) {
  std::string text =
      "kernel @add(%0: i32, %x: f32) {\nentry:\n  %1 = splat %0 : i32<8>\n  %2 = splat %x : f32<8>\n"
      "  %3 = add %1, %2 : i32<8>\n  ret\n}\n";
  EXPECT_EQ(verifyText(text),
            "in @add, block entry: '%3 = add %1, %2 : i32<8>': operand types differ (i32<8> vs f32<8>)");
}

TEST(Verifier, ArithmeticRules) {
  expectEntryError("  %x = and %b, %b : f32\n  ret\n", "%x = and %b, %b : f32",
                   "'and' requires integer operands, not f32");
  expectEntryError("  %x = exp %a : i32\n  ret\n", "%x = exp %a : i32", "'exp' requires a float operand, not i32");
  expectEntryError("  %x = add %a, %a : i64\n  ret\n", "%x = add %a, %a : i64",
                   "result type i64 differs from operand type i32");
  expectEntryError("  %x = add %p, %p : f32*\n  ret\n", "%x = add %p, %p : f32*",
                   "'add' does not apply to pointers; use 'gep'");
  expectEntryError("  %x = neg %b : i32\n  ret\n", "%x = neg %b : i32", "result type i32 differs from operand type f32");
}

TEST(Verifier, FmaTakesThreeFloatsOfItsType) {
  expectEntryError("  %x = fma %a, %a, %a : i32\n  ret\n", "%x = fma %a, %a, %a : i32", "'fma' takes floats, not i32");
  expectEntryError("  %x = fma %b, %b, %a : f32\n  ret\n", "%x = fma %b, %b, %a : f32",
                   "operand 3 has type i32, not the result type f32");
  expectEntryError("  %v = splat %b : f32<4>\n  %x = fma %v, %b, %v : f32<4>\n  ret\n", "%x = fma %v, %b, %v : f32<4>",
                   "operand 2 has type f32, not the result type f32<4>");
  EXPECT_EQ(verifyText(kernel("  %x = fma %b, %b, f32 1 : f32\n  ret\n")), "");
}

TEST(Verifier, CmpAndCast) {
  expectEntryError("  %x = cmp lt %a, %a : i32\n  ret\n", "%x = cmp lt %a, %a : i32",
                   "result type must be i1, not i32");
  expectEntryError("  %v = splat %a : i32<8>\n  %x = cmp lt %v, %v : i1\n  ret\n", "%x = cmp lt %v, %v : i1",
                   "result type must be i1<8>, not i1");
  expectEntryError("  %v = splat %a : i32<8>\n  %x = cast %v : f32<4>\n  ret\n", "%x = cast %v : f32<4>",
                   "'cast' must keep the shape and layout (i32<8> to f32<4>)");
  expectEntryError("  %x = cast %p : f32\n  ret\n", "%x = cast %p : f32", "cannot cast f32* to f32");
}

// The instructions that read integers as unsigned take integers only; ucast
// converts integers (not float to float), bitcast keeps the bit width.
TEST(Verifier, UnsignedOpsAndBitcasts) {
  for (const char* op : {"udiv", "urem", "ushr", "umax", "umin"}) {
    const std::string inst = std::string("%x = ") + op + " %b, %b : f32";
    expectEntryError("  " + inst + "\n  ret\n", inst, std::string("'") + op + "' requires integer operands, not f32");
  }
  expectEntryError("  %x = cmp ult %b, %b : i1\n  ret\n", "%x = cmp ult %b, %b : i1",
                   "'cmp ult' compares integers, not f32");
  expectEntryError("  %x = ucast %b : f64\n  ret\n", "%x = ucast %b : f64",
                   "'ucast' converts between integers, or integers and floats, not f32 to f64");
  expectEntryError("  %x = ucast %p : i64\n  ret\n", "%x = ucast %p : i64",
                   "'ucast' converts between integers, or integers and floats, not f32* to i64");
  expectEntryError("  %x = bitcast %a : f16\n  ret\n", "%x = bitcast %a : f16",
                   "'bitcast' reinterprets numbers of one bit width (not i1), not i32 as f16");
  expectEntryError("  %v = splat %b : f32<8>\n  %x = reduce umax 0 %v : f32\n  ret\n", "%x = reduce umax 0 %v : f32",
                   "'reduce umax' requires integers, not f32<8>");
  expectEntryError("  %x = atomic_rmw umin %p, %b : f32\n  ret\n", "%x = atomic_rmw umin %p, %b : f32",
                   "'atomic_rmw umin' requires integers, not f32");
  expectEntryError("  %x = atomic_rmw xor %p, %b : f32\n  ret\n", "%x = atomic_rmw xor %p, %b : f32",
                   "'atomic_rmw xor' requires integers, not f32");
  expectEntryError("  %x = maxnum %a, %a : i32\n  ret\n", "%x = maxnum %a, %a : i32",
                   "'maxnum' requires a float operand, not i32");
  expectEntryError("  %v = splat %a : i32<8>\n  %x = reduce minnum 0 %v : i32\n  ret\n",
                   "%x = reduce minnum 0 %v : i32", "'reduce minnum' requires floats, not i32<8>");
  EXPECT_EQ(verifyText(kernel("  %x = udiv %a, %a : i32\n  %y = cmp uge %x, %a : i1\n  %z = ucast %a : f32\n"
                              "  %w = bitcast %z : i32\n  %u = ucast %b : i64\n  ret\n")),
            "");
}

// fp8 is a storage type: converted to and from floats, bitcast to i8,
// loaded, stored and selected, multiplied in a dot into f32; never
// otherwise computed on, never cast to integers.
TEST(Verifier, Fp8IsStorageOnly) {
  const std::string k8 = "kernel @k(%a: i32, %b: f32, %p: f8e4m3*, %q: f8e5m2*) {\nentry:\n";
  auto expectFp8Error = [&](const std::string& body, const std::string& inst, const std::string& problem) {
    expectError(k8 + body + "}\n", "entry", inst, problem);
  };
  expectFp8Error("  %x = load %p : f8e4m3\n  %y = add %x, %x : f8e4m3\n  ret\n", "%y = add %x, %x : f8e4m3",
                 "'add' does not compute on fp8 (f8e4m3): cast to f16 or f32 first");
  expectFp8Error("  %x = load %q : f8e5m2\n  %y = cmp lt %x, %x : i1\n  ret\n", "%y = cmp lt %x, %x : i1",
                 "'cmp' does not compute on fp8 (f8e5m2): cast to f16 or f32 first");
  expectFp8Error("  %x = load %p : f8e4m3\n  %y = cast %x : i32\n  ret\n", "%y = cast %x : i32",
                 "'cast' converts fp8 to and from floats only, not f8e4m3 to i32");
  expectFp8Error("  %x = cast %b : f8e5m2\n  %y = atomic_rmw xchg %q, %x : f8e5m2\n  ret\n",
                 "%y = atomic_rmw xchg %q, %x : f8e5m2",
                 "'atomic_rmw' does not compute on fp8 (f8e5m2*): cast to f16 or f32 first");
  // A dot of fp8 tiles (of either format) into f32 is the one computation on them.
  expectFp8Error("  %v = splat %b : f32<16, 16>\n  %x = cast %v : f8e4m3<16, 16>\n  %h = cast %v : f16<16, 16>\n"
                 "  %d = dot %x, %x, %h : f16<16, 16>\n  ret\n",
                 "%d = dot %x, %x, %h : f16<16, 16>",
                 "'dot' does not compute on fp8 (f8e4m3<16, 16>): cast to f16 or f32 first");
  EXPECT_EQ(verifyText(k8 + "  %v = splat %b : f32<16, 16>\n  %x = cast %v : f8e4m3<16, 16>\n"
                            "  %y = cast %v : f8e5m2<16, 16>\n  %d = dot %x, %y, %v : f32<16, 16>\n  ret\n}\n"),
            "");
  std::string fine = k8 +
      "  %x = load %p : f8e4m3\n  %y = cast %x : f8e5m2\n  store %q, %y\n  %z = cast %x : f32\n"
      "  %w = bitcast %x : i8\n  %c = cmp eq %a, i32 0 : i1\n  %s = select %c, %x, f8e4m3 1.5 : f8e4m3\n"
      "  store %p, %s\n  ret\n}\n";
  EXPECT_EQ(verifyText(fine), "");
  // The text round trip keeps the types and the constant.
  EXPECT_EQ(printModule(*parseModule(fine)), printModule(*parseModule(printModule(*parseModule(fine)))));
  EXPECT_NE(printModule(*parseModule(fine)).find("f8e4m3 1.5"), std::string::npos);
}

TEST(Verifier, SelectCondition) {
  expectEntryError("  %c = splat i1 1 : i1<4>\n  %v = splat %b : f32<8>\n  %x = select %c, %v, %v : f32<8>\n  ret\n",
                   "%x = select %c, %v, %v : f32<8>",
                   "condition must be i1 of the result's shape (and layout) or a scalar i1, not i1<4>");
  expectEntryError("  %x = select %a, %b, %b : f32\n  ret\n", "%x = select %a, %b, %b : f32",
                   "condition must be i1 of the result's shape (and layout) or a scalar i1, not i32");
}

TEST(Verifier, ShapeOps) {
  expectEntryError("  %v = splat %a : i32<8>\n  %x = splat %v : i32<8>\n  ret\n", "%x = splat %v : i32<8>",
                   "'splat' operand must be a scalar, not i32<8>");
  expectEntryError("  %v = splat %a : i32<8>\n  %x = reshape %v : i32<4, 4>\n  ret\n", "%x = reshape %v : i32<4, 4>",
                   "'reshape' must keep the number of elements (i32<8> to i32<4, 4>)");
  expectEntryError("  %v = splat %a : i32<2, 1>\n  %x = broadcast %v : i32<4, 8>\n  ret\n",
                   "%x = broadcast %v : i32<4, 8>",
                   "'broadcast' can only grow dimensions of size 1 (i32<2, 1> to i32<4, 8>)");
  expectEntryError("  %v = splat %a : i32<2, 1>\n  %x = broadcast %v : i32<2, 1, 8>\n  ret\n",
                   "%x = broadcast %v : i32<2, 1, 8>", "'broadcast' must keep the rank");
  expectEntryError("  %v = splat %a : i32<2, 4>\n  %x = trans %v : i32<2, 4>\n  ret\n", "%x = trans %v : i32<2, 4>",
                   "'trans' result must be i32<4, 2>, not i32<2, 4>");
  expectEntryError("  %v = splat %a : i32<8>\n  %x = reshape %v : f32<8>\n  ret\n", "%x = reshape %v : f32<8>",
                   "'reshape' must keep the element type (i32<8> to f32<8>)");
}

TEST(Verifier, RangeAndProgramIds) {
  expectEntryError("  %x = range 0 : i32<4, 4>\n  ret\n", "%x = range 0 : i32<4, 4>",
                   "'range' result must be a 1-D i32 tile, not i32<4, 4>");
  expectEntryError("  %x = range 2147483647 : i32<2>\n  ret\n", "%x = range 2147483647 : i32<2>",
                   "'range' values do not fit in i32");
  expectEntryError("  %x = program_id 3 : i32\n  ret\n", "%x = program_id 3 : i32", "axis must be 0, 1 or 2, not 3");
  expectEntryError("  %x = num_programs 0 : i64\n  ret\n", "%x = num_programs 0 : i64",
                   "'num_programs' result must be i32, not i64");
}

TEST(Verifier, GepLoadStore) {
  expectEntryError("  %x = gep %p, %b : f32*\n  ret\n", "%x = gep %p, %b : f32*", "'gep' offset must be an integer, not f32");
  expectEntryError("  %o = splat %a : i32<8>\n  %x = gep %p, %o : f32*\n  ret\n", "%x = gep %p, %o : f32*",
                   "'gep' offset shape must match the result (i32<8> vs f32*)");
  expectEntryError("  %x = load %p : i32\n  ret\n", "%x = load %p : i32", "'load' result must be f32, not i32");
  expectEntryError("  %x = load %a : i32\n  ret\n", "%x = load %a : i32", "'load' needs a pointer operand, not i32");
  std::string setup = "  %ps = splat %p : f32*<8>\n  %m = splat i1 1 : i1<4>\n  %z = splat f32 0 : f32<8>\n";
  expectEntryError(setup + "  %x = load %ps, %m, %z : f32<8>\n  ret\n", "%x = load %ps, %m, %z : f32<8>",
                   "mask must be i1<8> (the pointer's shape), not i1<4>");
  expectEntryError(setup + "  %m8 = splat i1 0 : i1<8>\n  %x = load %ps, %m8, %b : f32<8>\n  ret\n",
                   "%x = load %ps, %m8, %b : f32<8>", "'other' must have the result type f32<8>, not f32");
  expectEntryError("  store %p, %a\n  ret\n", "store %p, %a", "stored value must be f32 (the pointee type), not i32");
  expectEntryError(setup + "  store %ps, %z, %m\n  ret\n", "store %ps, %z, %m",
                   "mask must be i1<8> (the pointer's shape), not i1<4>");
}

TEST(Verifier, Dot) {
  std::string c = "  %C = splat %b : f32<16, 16>\n";
  expectEntryError(c + "  %A = splat %b : f32<16, 8>\n  %B = splat %b : f32<4, 16>\n  %x = dot %A, %B, %C : f32<16, 16>\n  ret\n",
                   "%x = dot %A, %B, %C : f32<16, 16>", "'dot' inner dimensions differ (f32<16, 8> @ f32<4, 16>)");
  expectEntryError("  %A = splat %b : f32<16, 8>\n  %B = splat %b : f32<8, 16>\n  %I = splat %a : i32<16, 16>\n"
                   "  %x = dot %A, %B, %I : f32<16, 16>\n  ret\n",
                   "%x = dot %A, %B, %I : f32<16, 16>",
                   "'dot' accumulator must have the result type f32<16, 16>, not i32<16, 16>");
  expectEntryError(c + "  %A = splat %b : f32<16, 8>\n  %B = splat %b : f32<8, 32>\n  %x = dot %A, %B, %C : f32<16, 16>\n  ret\n",
                   "%x = dot %A, %B, %C : f32<16, 16>", "'dot' result shape must be [16, 32], not [16, 16]");
  expectEntryError(c + "  %x = dot %b, %b, %C : f32<16, 16>\n  ret\n", "%x = dot %b, %b, %C : f32<16, 16>",
                   "'dot' operands must be 2-D tiles (f32, f32)");
}

TEST(Verifier, Reduce) {
  std::string v = "  %v = splat %b : f32<4, 8>\n";
  expectEntryError(v + "  %x = reduce add 2 %v : f32<4>\n  ret\n", "%x = reduce add 2 %v : f32<4>",
                   "reduction axis 2 is out of range for f32<4, 8>");
  expectEntryError(v + "  %x = reduce min 1 %v : f32<8>\n  ret\n", "%x = reduce min 1 %v : f32<8>",
                   "'reduce' result must be f32<4>, not f32<8>");
  expectEntryError("  %x = reduce max 0 %b : f32\n  ret\n", "%x = reduce max 0 %b : f32",
                   "'reduce' needs a tile operand, not f32");
}

TEST(Verifier, AtomicsAndMultipleOf) {
  expectEntryError("  %x = atomic_rmw and %p, %b : f32\n  ret\n", "%x = atomic_rmw and %p, %b : f32",
                   "'atomic_rmw and' requires integers, not f32");
  expectEntryError("  %x = atomic_rmw add %p, %b : i32\n  ret\n", "%x = atomic_rmw add %p, %b : i32",
                   "'atomic_rmw' result must be f32, not i32");
  expectEntryError("  %x = atomic_cas %q, %a, %b : i32\n  ret\n", "%x = atomic_cas %q, %a, %b : i32",
                   "stored value must be i32 (the pointee type), not f32");
  expectEntryError("  %x = atomic_cas %q, %a, %a, %a : i32\n  ret\n", "%x = atomic_cas %q, %a, %a, %a : i32",
                   "mask must be i1 (the pointer's shape), not i32");
  expectEntryError("  %x = multiple_of 0 %a : i32\n  ret\n", "%x = multiple_of 0 %a : i32",
                   "'multiple_of' divisor must be positive, not 0");
  expectEntryError("  %x = multiple_of 8 %b : f32\n  ret\n", "%x = multiple_of 8 %b : f32",
                   "'multiple_of' applies to integers and pointers, not f32");
  // Pointers promise their byte address (Triton's tl.multiple_of(ptrs, 16)).
  EXPECT_EQ(verifyText(kernel("  %x = multiple_of 16 %p : f32*\n  ret\n")), "");
}

TEST(Verifier, TransPermutations) {
  std::string v = "  %v = splat %b : f32<2, 4, 8>\n";
  EXPECT_EQ(verifyText(kernel(v + "  %x = trans [2, 0, 1] %v : f32<8, 2, 4>\n  ret\n")), "");
  expectEntryError(v + "  %x = trans %v : f32<8, 4, 2>\n  ret\n", "%x = trans %v : f32<8, 4, 2>",
                   "'trans' without a permutation needs a 2-D tile, not f32<2, 4, 8>");
  expectEntryError(v + "  %x = trans [0, 0, 1] %v : f32<2, 2, 4>\n  ret\n", "%x = trans [0, 0, 1] %v : f32<2, 2, 4>",
                   "'trans' permutation is not one of the 3 dimensions of f32<2, 4, 8>");
  expectEntryError(v + "  %x = trans [0, 1] %v : f32<2, 4>\n  ret\n", "%x = trans [0, 1] %v : f32<2, 4>",
                   "'trans' permutation is not one of the 3 dimensions");
  expectEntryError(v + "  %x = trans [1, 2] %v : f32<4, 8, 2>\n  ret\n", "%x = trans [1, 2] %v : f32<4, 8, 2>",
                   "'trans' permutation is not one of the 3 dimensions");
  expectEntryError(v + "  %x = trans [0, 2, 1] %v : f32<2, 4, 8>\n  ret\n", "%x = trans [0, 2, 1] %v : f32<2, 4, 8>",
                   "'trans' result must be f32<2, 8, 4>, not f32<2, 4, 8>");
}

TEST(Verifier, ExtractSlice) {
  std::string v = "  %v = splat %b : f32<4, 8>\n";
  EXPECT_EQ(verifyText(kernel(v + "  %x = extract_slice 1 4 %v : f32<4, 4>\n  ret\n")), "");
  expectEntryError(v + "  %x = extract_slice 1 6 %v : f32<4, 4>\n  ret\n", "%x = extract_slice 1 6 %v : f32<4, 4>",
                   "'extract_slice' elements 6 to 10 are not inside the 8 of axis 1 of f32<4, 8>");
  expectEntryError(v + "  %x = extract_slice 2 0 %v : f32<4, 8>\n  ret\n", "%x = extract_slice 2 0 %v : f32<4, 8>",
                   "'extract_slice' axis 2 is out of range for f32<4, 8>");
  expectEntryError(v + "  %x = extract_slice 1 0 %v : f32<2, 4>\n  ret\n", "%x = extract_slice 1 0 %v : f32<2, 4>",
                   "'extract_slice' keeps every dimension but the axis (f32<4, 8> to f32<2, 4>)");
  expectEntryError(v + "  %x = extract_slice 1 0 %v : i32<4, 4>\n  ret\n", "%x = extract_slice 1 0 %v : i32<4, 4>",
                   "'extract_slice' must keep the element type");
  expectEntryError("  %x = extract_slice 0 0 %b : f32\n  ret\n", "%x = extract_slice 0 0 %b : f32",
                   "'extract_slice' takes a tile and keeps its rank");
}

TEST(Verifier, Scan) {
  std::string v = "  %v = splat %b : f32<4, 8>\n  %i = splat %a : i32<4, 8>\n";
  EXPECT_EQ(verifyText(kernel(v + "  %x = scan add 1 %v : f32<4, 8>\n  %y = scan umax 0 %i : i32<4, 8>\n  ret\n")), "");
  expectEntryError(v + "  %x = scan add 2 %v : f32<4, 8>\n  ret\n", "%x = scan add 2 %v : f32<4, 8>",
                   "scan axis 2 is out of range for f32<4, 8>");
  expectEntryError(v + "  %x = scan add 0 %v : f32<8, 4>\n  ret\n", "%x = scan add 0 %v : f32<8, 4>",
                   "'scan' result must be f32<4, 8>, not f32<8, 4>");
  expectEntryError(v + "  %x = scan umax 0 %v : f32<4, 8>\n  ret\n", "%x = scan umax 0 %v : f32<4, 8>",
                   "'scan umax' requires integers, not f32<4, 8>");
  expectEntryError("  %x = scan add 0 %b : f32\n  ret\n", "%x = scan add 0 %b : f32",
                   "'scan' needs a tile operand, not f32");
  EXPECT_EQ(verifyText(kernel(v + "  %x = scan mul 1 %v : f32<4, 8>\n  ret\n")), "");
  expectEntryError(v + "  %x = reduce mul 1 %v : f32<4>\n  ret\n", "%x = reduce mul 1 %v : f32<4>",
                   "'reduce mul' does not exist (scans only)");
}

TEST(Verifier, Gather) {
  std::string v = "  %v = splat %b : f32<4, 8>\n  %i = range 0 : i32<16>\n  %j = reshape %i : i32<4, 4>\n";
  EXPECT_EQ(verifyText(kernel(v + "  %x = gather 1 %v, %j : f32<4, 4>\n  ret\n")), "");
  expectEntryError(v + "  %x = gather 0 %v, %j : f32<4, 4>\n  ret\n", "%x = gather 0 %v, %j : f32<4, 4>",
                   "'gather' index must match the source in every dimension but the axis (f32<4, 8>, i32<4, 4>)");
  expectEntryError(v + "  %x = gather 2 %v, %j : f32<4, 4>\n  ret\n", "%x = gather 2 %v, %j : f32<4, 4>",
                   "'gather' axis 2 is out of range for f32<4, 8>");
  expectEntryError(v + "  %x = gather 1 %v, %j : f32<4, 8>\n  ret\n", "%x = gather 1 %v, %j : f32<4, 8>",
                   "'gather' result must have the source's element type and the index's shape");
  expectEntryError(v + "  %x = gather 0 %v, %i : f32<16>\n  ret\n", "%x = gather 0 %v, %i : f32<16>",
                   "'gather' takes a tile and an index tile of its rank (f32<4, 8>, i32<16>)");
  expectEntryError(v + "  %f = splat %b : f32<4, 4>\n  %x = gather 1 %v, %f : f32<4, 4>\n  ret\n",
                   "%x = gather 1 %v, %f : f32<4, 4>", "'gather' indices must be integers, not f32<4, 4>");
}

TEST(Verifier, SortAndArgsort) {
  std::string v = "  %v = splat %b : f32<4, 8>\n  %d = cast %b : f64\n  %h = splat %d : f64<8>\n";
  EXPECT_EQ(verifyText(kernel(v + "  %x = sort descending 1 %v : f32<4, 8>\n  %y = argsort ascending 0 %v : i32<4, 8>\n"
                                  "  %z = sort ascending 0 %h : f64<8>\n  ret\n")),
            "");
  expectEntryError(v + "  %x = sort ascending 2 %v : f32<4, 8>\n  ret\n", "%x = sort ascending 2 %v : f32<4, 8>",
                   "sort axis 2 is out of range for f32<4, 8>");
  expectEntryError(v + "  %x = sort ascending 1 %v : f32<8, 4>\n  ret\n", "%x = sort ascending 1 %v : f32<8, 4>",
                   "'sort' result must be f32<4, 8> or its first K along axis 1 (a power of two), not f32<8, 4>");
  expectEntryError(v + "  %x = argsort ascending 1 %v : f32<4, 8>\n  ret\n", "%x = argsort ascending 1 %v : f32<4, 8>",
                   "'argsort' result must be i32<4, 8> or its first K along axis 1 (a power of two), not f32<4, 8>");
  EXPECT_EQ(verifyText(kernel(v + "  %x = sort descending 1 %v : f32<4, 2>\n  %y = argsort descending 0 %v : i32<1, 8>\n"
                                  "  ret\n")),
            "");
  expectEntryError(v + "  %x = sort ascending 1 %v : f32<4, 3>\n  ret\n", "%x = sort ascending 1 %v : f32<4, 3>",
                   "'sort' result must be f32<4, 8> or its first K along axis 1");
  expectEntryError(v + "  %x = argsort descending 0 %h : i32<8>\n  ret\n", "%x = argsort descending 0 %h : i32<8>",
                   "'argsort' sorts elements of up to 32 bits, not f64<8>");
  expectEntryError("  %v = splat %b : f32<6>\n  %x = sort ascending 0 %v : f32<6>\n  ret\n",
                   "%x = sort ascending 0 %v : f32<6>", "'sort' needs a power-of-two length along its axis, not 6");
  expectEntryError("  %c = cmp lt %a, %a : i1\n  %v = splat %c : i1<8>\n  %x = sort ascending 0 %v : i1<8>\n  ret\n",
                   "%x = sort ascending 0 %v : i1<8>", "'sort' sorts integers of 8 to 64 bits");
  expectEntryError("  %x = sort ascending 0 %b : f32\n  ret\n", "%x = sort ascending 0 %b : f32",
                   "'sort' needs a tile operand, not f32");
}

// scan_fn and the combine functions it names.
TEST(Verifier, ScanFnAndCombineFunctions) {
  const std::string pick =
      "combine @pick(%v: f32, %i: i32, %w: f32, %j: i32) {\nentry:\n  %gt = cmp gt %w, %v : i1\n"
      "  %m = select %gt, %w, %v : f32\n  %k = select %gt, %j, %i : i32\n  ret %m, %k\n}\n\n";
  const std::string v = "  %v = splat %b : f32<4, 8>\n  %n = splat %a : i32<4, 8>\n";
  EXPECT_EQ(verifyText(pick + kernel(v + "  %x = scan_fn @pick 0 1 %v, %n : f32<4, 8>\n"
                                         "  %y = scan_fn @pick 1 0 %v, %n : i32<4, 8>\n  ret\n")),
            "");
  auto scanError = [&](const std::string& inst, const std::string& problem) {
    expectError(pick + kernel(v + "  " + inst + "\n  ret\n"), "entry", inst, problem);
  };
  scanError("%x = scan_fn @pick 1 0 %v, %n : f32<4, 8>", "'scan_fn' result must be i32<4, 8> (operand 1's type)");
  scanError("%x = scan_fn @pick 2 0 %v, %n : f32<4, 8>", "'scan_fn' result 2 is not among its 2 operands");
  scanError("%x = scan_fn @pick 0 2 %v, %n : f32<4, 8>", "scan axis 2 is out of range for f32<4, 8>");
  scanError("%x = scan_fn @nothing 0 0 %v, %n : f32<4, 8>",
            "'scan_fn' names no combine function of the module: '@nothing'");
  scanError("%x = scan_fn @pick 0 0 %v : f32<4, 8>",
            "'scan_fn' of 1 tiles needs a combine function of 2 arguments; @pick has 4");
  scanError("%x = scan_fn @pick 0 0 %n, %v : i32<4, 8>",
            "argument 0 of @pick is f32, where 'scan_fn' combines elements of i32<4, 8>");
  scanError("%x = scan_fn @pick 0 0 %b, %a : f32", "'scan_fn' scans tiles, not f32");
  // reduce_fn: the operand's type without the axis (a scalar from 1-D tiles).
  EXPECT_EQ(verifyText(pick + kernel(v + "  %x = reduce_fn @pick 0 1 %v, %n : f32<4>\n"
                                         "  %y = reduce_fn @pick 1 0 %v, %n : i32<8>\n  ret\n")),
            "");
  scanError("%x = reduce_fn @pick 0 1 %v, %n : f32<8>",
            "'reduce_fn' result must be f32<4> (operand 0's type without the axis), not f32<8>");
  scanError("%x = reduce_fn @pick 1 1 %v, %n : i32<4, 8>",
            "'reduce_fn' result must be i32<4> (operand 1's type without the axis), not i32<4, 8>");
  scanError("%x = reduce_fn @nothing 0 0 %v, %n : f32<8>",
            "'reduce_fn' names no combine function of the module: '@nothing'");
  // A kernel's ret gives nothing; a combine function's its tuple.
  expectEntryError("  ret %a\n", "ret %a", "a kernel's 'ret' has no operands");
  auto combinerError = [&](const std::string& body, const std::string& problem) {
    std::string message = verifyText("combine @c(%x: f32, %y: f32) {\nentry:\n" + body + "}\n");
    EXPECT_NE(message.find(problem), std::string::npos) << "message:\n" << message << "\nexpected:\n" << problem;
  };
  combinerError("  ret %x, %y\n", "'ret' of a combine function of 2 arguments gives 1 values, not 2");
  combinerError("  %i = cast %x : i32\n  ret %i\n", "'ret' value 0 must be f32 (argument 0's type), not i32");
  combinerError("  %p = program_id 0 : i32\n  ret %x\n", "a combine function computes element-wise only");
  combinerError("  %t = splat %x : f32<4>\n  ret %x\n", "a combine function computes element-wise only");
  combinerError("  %t = add %x, %y : f32<4>\n  ret %x\n", "a combine function computes on scalars");
  combinerError("  br next\n\nnext:\n  ret %x\n", "a combine function has one block");
  EXPECT_NE(verifyText("combine @c(%x: f32, %y: i32) {\nentry:\n  ret %x\n}\n").find("must have one type"),
            std::string::npos);
  EXPECT_NE(verifyText("combine @c(%x: f32) {\nentry:\n  ret %x\n}\n").find("two of each tuple element"),
            std::string::npos);
}

TEST(Verifier, Histogram) {
  const std::string v = "  %r = range 0 : i32<8>\n  %m = cmp lt %r, %r : i1<8>\n  %f = splat %b : f32<8>\n";
  EXPECT_EQ(verifyText(kernel(v + "  %h = histogram %r : i32<16>\n  %g = histogram %r, %m : i32<2>\n  ret\n")), "");
  expectEntryError(v + "  %h = histogram %f : i32<16>\n  ret\n", "%h = histogram %f : i32<16>",
                   "'histogram' counts a 1-D tile of integers, not f32<8>");
  expectEntryError(v + "  %h = histogram %r, %r : i32<16>\n  ret\n", "%h = histogram %r, %r : i32<16>",
                   "'histogram' mask must be i1 of the counted tile's shape, not i32<8>");
  expectEntryError(v + "  %h = histogram %r : i64<16>\n  ret\n", "%h = histogram %r : i64<16>",
                   "'histogram' result must be a 1-D i32 tile (one count per bin), not i64<16>");
}

TEST(Verifier, MaxContiguous) {
  EXPECT_EQ(verifyText(kernel("  %r = range 0 : i32<8>\n  %x = max_contiguous 0 8 %r : i32<8>\n  ret\n")), "");
  expectEntryError("  %x = max_contiguous 0 8 %a : i32\n  ret\n", "%x = max_contiguous 0 8 %a : i32",
                   "'max_contiguous' applies to tiles of integers or pointers, not i32");
  expectEntryError("  %v = splat %b : f32<8>\n  %x = max_contiguous 0 8 %v : f32<8>\n  ret\n",
                   "%x = max_contiguous 0 8 %v : f32<8>", "'max_contiguous' applies to tiles of integers or pointers");
  expectEntryError("  %v = splat %a : i32<8>\n  %x = max_contiguous 1 8 %v : i32<8>\n  ret\n",
                   "%x = max_contiguous 1 8 %v : i32<8>", "'max_contiguous' axis 1 is out of range for i32<8>");
  expectEntryError("  %v = splat %a : i32<8>\n  %x = max_contiguous 0 0 %v : i32<8>\n  ret\n",
                   "%x = max_contiguous 0 0 %v : i32<8>", "'max_contiguous' run length must be positive, not 0");
}

TEST(Verifier, PhiRules) {
  expectError(diamond("", "", "  %x = phi [i32 1, l] : i32\n"), "join", "%x = phi [i32 1, l] : i32",
              "no incoming value for predecessor 'r'");
  expectError(diamond("", "", "  %x = phi [i32 1, l], [i32 2, r], [i32 3, entry] : i32\n"), "join",
              "%x = phi [i32 1, l], [i32 2, r], [i32 3, entry] : i32", "incoming block 'entry' is not a predecessor");
  expectError(diamond("", "", "  %x = phi [i32 1, l], [i32 2, l], [i32 2, r] : i32\n"), "join",
              "%x = phi [i32 1, l], [i32 2, l], [i32 2, r] : i32", "more than one incoming value for predecessor 'l'");
  expectError(diamond("", "", "  %x = phi [i32 1, l], [f32 2, r] : i32\n"), "join",
              "%x = phi [i32 1, l], [f32 2, r] : i32", "incoming value 1 has type f32, not the phi's type i32");
  expectError(diamond("", "", "  %y = add %a, %a : i32\n  %x = phi [i32 1, l], [i32 2, r] : i32\n"), "join",
              "%x = phi [i32 1, l], [i32 2, r] : i32", "phi after a non-phi instruction; phis must come first");
}

TEST(Verifier, Terminators) {
  expectEntryError("  ret\n  %x = add %a, %a : i32\n  ret\n", "ret", "terminator in the middle of the block");
  EXPECT_NE(verifyText(kernel("  %x = add %a, %a : i32\n")).find(
                "in @k, block entry: block does not end with a terminator"),
            std::string::npos);
  EXPECT_NE(verifyText(kernel("  br next\nnext:\n")).find("in @k, block next: block is empty"), std::string::npos);
  expectEntryError("  cond_br %a, next, next\nnext:\n  ret\n", "cond_br %a, next, next",
                   "'cond_br' condition must be a scalar i1, not i32");
}

TEST(Verifier, Dominance) {
  expectEntryError("  %x = add %y, %a : i32\n  %y = add %a, %a : i32\n  ret\n", "%x = add %y, %a : i32",
                   "%y is used before its definition");
  expectEntryError("  %x = add %x, %a : i32\n  ret\n", "%x = add %x, %a : i32", "instruction uses its own result");
  expectError(diamond("  %v = add %a, %a : i32\n", "", "  %w = add %v, %a : i32\n"), "join", "%w = add %v, %a : i32",
              "%v is defined in block l, which does not dominate this use");
  expectError(diamond("  %v = add %a, %a : i32\n", "", "  %w = phi [%v, l], [%v, r] : i32\n"), "join",
              "%w = phi [%v, l], [%v, r] : i32", "%v is defined in block l, which does not dominate incoming block r");
  // Reachable code may not use a value defined in unreachable code.
  expectError(kernel("  br next\ndead:\n  %v = add %a, %a : i32\n  br next\nnext:\n  %w = add %v, %a : i32\n  ret\n"),
              "next", "%w = add %v, %a : i32", "%v is defined in block dead, which does not dominate this use");
}

TEST(Verifier, UnreachableBlocksSkipDominance) {
  // dead and dead2 use each other's values: fine, since neither is reachable.
  EXPECT_EQ(verifyText(kernel("  ret\ndead:\n  %y = add %x, %a : i32\n  br dead2\ndead2:\n"
                              "  %x = add %y, %a : i32\n  br dead\n")),
            "");
}

TEST(Verifier, Parameters) {
  std::string m = verifyText("kernel @k(%a: i32 aligned(16), %p: f32* multipleof(4), %t: i32 constant(8)) {\nentry:\n  ret\n}\n");
  EXPECT_NE(m.find("in @k: parameter %a: aligned(16) applies to pointers, not i32"), std::string::npos) << m;
  EXPECT_NE(m.find("in @k: parameter %p: multipleof(4) applies to integers, not f32*"), std::string::npos) << m;
  EXPECT_NE(m.find("in @k: parameter %t: constant(8) applies to pointers, not i32"), std::string::npos) << m;
  EXPECT_EQ(std::count(m.begin(), m.end(), '\n'), 2) << "one problem per line";
  m = verifyText("kernel @k(%v: f32<8>, %w: void) {\nentry:\n  ret\n}\n");
  EXPECT_NE(m.find("in @k: parameter %v must be a scalar or a pointer, not f32<8>"), std::string::npos) << m;
  EXPECT_NE(m.find("in @k: parameter %w has type void"), std::string::npos) << m;
}

// ---- modules the parser cannot express, built with the builder --------------

TEST(Verifier, BuilderMadeProblems) {
  Module m;
  Function* g = m.addFunction("g");
  Argument* gArg = g->addArgument(Type::scalar(Scalar::I32), "y");
  Builder b(m);
  BasicBlock* gEntry = g->addBlock("entry");
  b.setInsertPoint(gEntry);
  Value* foreign = b.binary(Opcode::Add, gArg, gArg);
  foreign->setName("x");
  b.ret();

  Function* f = m.addFunction("f");
  Argument* a = f->addArgument(Type::scalar(Scalar::I32), "a");
  Argument* p = f->addArgument(Type::pointer(Scalar::I32), "p");
  b.setInsertPoint(f->addBlock("entry"));
  b.binary(Opcode::Add, foreign, a);                        // %0: operand of another function
  b.binary(Opcode::Mul, gArg, a);                           // %1: parameter of another function
  Instruction* st = b.store(p, a);
  b.binary(Opcode::Sub, a, st);                             // %2: void operand
  b.create(Opcode::Add, Type::scalar(Scalar::I32), {a});    // %3: one operand
  b.load(p, b.boolean(true));                               // %4: load without 'other'
  b.create(Opcode::Br, Type::voidTy(), {});                 // br without target
  b.br(gEntry);                                             // a block of @g

  std::string msg = verifyModule(m);
  auto expectLine = [&](const std::string& line) {
    EXPECT_NE(msg.find(line), std::string::npos) << "message:\n" << msg << "\nexpected:\n" << line;
  };
  expectLine("in @f, block entry: '%0 = add %?x, %a : i32': operand %?x is not an instruction of this function");
  expectLine("in @f, block entry: '%1 = mul %?y, %a : i32': operand %?y is not a parameter of this function");
  // A store has no name: it prints as "%?".
  expectLine("in @f, block entry: '%2 = sub %a, %? : i32': operand 1 has no value (void type)");
  expectLine("in @f, block entry: '%3 = add %a : i32': 'add' expects 2 operands, got 1");
  expectLine("in @f, block entry: '%4 = load %p, i1 1 : i32': 'load' expects 1 or 3 operands, got 2");
  expectLine("in @f, block entry: 'br': 'br' expects 1 block operands, got 0");
  expectLine("in @f, block entry: 'br': terminator in the middle of the block");
  expectLine("in @f, block entry: 'br ?entry': block '?entry' is not a block of this function");
}

TEST(Verifier, ModuleLevelProblems) {
  Module m;
  m.addFunction("k");
  Function* k2 = m.addFunction("k");
  Builder b(m);
  b.setInsertPoint(k2->addBlock("entry"));
  b.ret();
  std::string msg = verifyModule(m);
  EXPECT_NE(msg.find("in @k: function has no blocks"), std::string::npos) << msg;
  EXPECT_NE(msg.find("more than one function is named @k"), std::string::npos) << msg;
}

// ---- well-formed modules ----------------------------------------------------

TEST(Verifier, WellFormedModulesPass) {
  EXPECT_EQ(verifyText(diamond("  %v = add %a, %a : i32\n", "", "  %w = phi [%v, l], [%a, r] : i32\n")), "");
  EXPECT_EQ(verifyText(R"(kernel @sum(%n: i32, %out: f32*) {
entry:
  br loop
loop:
  %i = phi [i32 0, entry], [%i.next, loop] : i32
  %acc = phi [f32 0, entry], [%acc.next, loop] : f32
  %x = cast %i : f32
  %acc.next = add %acc, %x : f32
  %i.next = add %i, i32 1 : i32
  %done = cmp ge %i.next, %n : i1
  cond_br %done, exit, loop
exit:
  store %out, %acc.next
  ret
}
)"),
            "");
  // Entry-block values are usable everywhere; a branch may name one block twice.
  EXPECT_EQ(verifyText(kernel("  %v = add %a, %a : i32\n  %c = cmp ne %v, i32 0 : i1\n  cond_br %c, t, t\n"
                              "t:\n  %w = phi [%v, entry] : i32\n  ret\n")),
            "");

  Module m;
  Function* f = m.addFunction("k");
  Argument* p = f->addArgument(Type::pointer(Scalar::F16), "p");
  Builder b(m);
  b.setInsertPoint(f->addBlock("entry"));
  Value* ptrs = b.gep(b.splat(p, {16}), b.range(0, 16));
  Value* x = b.load(ptrs, b.splat(b.boolean(true), {16}), b.constant(Type::scalar(Scalar::F16).withShape({16}), 0));
  Value* row = b.reshape(x, {1, 16});
  Value* tile = b.broadcast(row, {16, 16});
  Value* prod = b.dot(tile, b.trans(tile), b.constant(Type::scalar(Scalar::F32).withShape({16, 16}), 0));
  Value* red = b.reduce(ReduceKind::Add, 0, prod);
  b.store(ptrs, b.cast(red, Type::scalar(Scalar::F16).withShape({16})));
  b.ret();
  EXPECT_EQ(verifyModule(m), "") << printModule(m);
}

// ---- dominator tree ---------------------------------------------------------

TEST(Dominators, DiamondLoopAndUnreachable) {
  auto m = parseModule(R"(kernel @k(%c: i1) {
entry:
  cond_br %c, l, r
l:
  br join
r:
  br join
join:
  cond_br %c, join, exit
exit:
  ret
dead:
  br join
}
)");
  const Function& f = *m->function("k");
  auto block = [&](size_t i) { return f.blocks()[i].get(); };
  DominatorTree dom(f);
  EXPECT_EQ(dom.idom(block(0)), nullptr);
  EXPECT_EQ(dom.idom(block(1)), block(0));
  EXPECT_EQ(dom.idom(block(3)), block(0));  // join: neither l nor r dominates it
  EXPECT_EQ(dom.idom(block(4)), block(3));
  EXPECT_TRUE(dom.dominates(block(0), block(4)));
  EXPECT_TRUE(dom.dominates(block(3), block(3)));
  EXPECT_FALSE(dom.dominates(block(1), block(3)));
  EXPECT_FALSE(dom.isReachable(block(5)));
  EXPECT_FALSE(dom.dominates(block(0), block(5)));
  EXPECT_EQ(dom.reversePostOrder().size(), 5u);
  EXPECT_EQ(dom.reversePostOrder().front(), block(0));
}

TEST(Dominators, IrreducibleLoop) {
  // a and b jump into each other, each entered from the entry: only the entry dominates them.
  auto m = parseModule(R"(kernel @k(%c: i1) {
entry:
  cond_br %c, a, b
a:
  cond_br %c, b, exit
b:
  cond_br %c, a, exit
exit:
  ret
}
)");
  const Function& f = *m->function("k");
  DominatorTree dom(f);
  EXPECT_EQ(dom.idom(f.blocks()[1].get()), f.entry());
  EXPECT_EQ(dom.idom(f.blocks()[2].get()), f.entry());
  EXPECT_EQ(dom.idom(f.blocks()[3].get()), f.entry());
}

}  // namespace
}  // namespace tritonc::ir
