// Printer and parser of the Triton-IR text form (docs/IR.md): round trips,
// exact printed forms, and errors (message and line:col) on malformed text.
#include <gtest/gtest.h>

#include <cmath>

#include "ir/builder.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"

namespace tritonc::ir {
namespace {

// Already in printed form: print(parse(text)) must reproduce them exactly.
const char* const kAddKernel = R"(source "examples/add.tc"

kernel @add(%N: i32, %a: f32* aligned(16), %b: f32* readonly, %c: f32*) {
entry:
  %pid = program_id 0 : i32
  %0 = range 0 : i32<8>
  %1 = mul %pid, i32 8 : i32
  %2 = splat %1 : i32<8>
  %off = add %2, %0 : i32<8>
  %3 = splat %N : i32<8>
  %mask = cmp lt %off, %3 : i1<8>
  %4 = splat %a : f32*<8>
  %5 = gep %4, %off : f32*<8>
  %6 = splat f32 0 : f32<8>
  %x = load %5, %mask, %6 : f32<8>
  %7 = splat %b : f32*<8>
  %8 = gep %7, %off : f32*<8>
  %y = load %8, %mask, %6 : f32<8>
  %z = add %x, %y : f32<8>
  %9 = splat %c : f32*<8>
  %10 = gep %9, %off : f32*<8>
  store %10, %z, %mask
  ret
}
)";

// A loop whose phis refer to values defined further down (forward references).
const char* const kLoopKernel = R"(kernel @sum(%n: i32, %out: f32*) {
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
)";

// Every opcode at least once.
const char* const kAllOpcodes = R"(combine @pick(%v: f32, %i: i32, %w: f32, %j: i32) {
entry:
  %gt = cmp gt %w, %v : i1
  %m = select %gt, %w, %v : f32
  %k = select %gt, %j, %i : i32
  ret %m, %k
}

kernel @all(%p: f32* aligned(16) noalias, %q: i32* readonly, %n: i32 multipleof(8), %t: f32* constant(4)) {
entry:
  %pid = program_id 0 : i32
  %np = num_programs 1 : i32
  %r = range 0 : i32<8>
  %base = mul %pid, i32 8 : i32
  %base8 = splat %base : i32<8>
  %offs = add %base8, %r : i32<8>
  %offs.m = multiple_of 8 %offs : i32<8>
  %n8 = splat %n : i32<8>
  %mask = cmp lt %offs.m, %n8 : i1<8>
  %p8 = splat %p : f32*<8>
  %ptrs = gep %p8, %offs.m : f32*<8>
  %zero = splat f32 0 : f32<8>
  %x = load %ptrs, %mask, %zero : f32<8>
  %y = load %ptrs : f32<8>
  %a1 = sub %x, %y : f32<8>
  %a2 = mul %a1, %y : f32<8>
  %a3 = div %a2, %y : f32<8>
  %a4 = rem %a3, %y : f32<8>
  %a5 = max %a4, %y : f32<8>
  %a6 = min %a5, %y : f32<8>
  %i1 = and %offs, %r : i32<8>
  %i2 = or %i1, %r : i32<8>
  %i3 = xor %i2, %r : i32<8>
  %i4 = shl %i3, %r : i32<8>
  %i5 = shr %i4, %r : i32<8>
  %i6 = not %i5 : i32<8>
  %i7 = neg %i6 : i32<8>
  %i8 = abs %i7 : i32<8>
  %u1 = exp %a6 : f32<8>
  %u2 = log %u1 : f32<8>
  %u3 = sqrt %u2 : f32<8>
  %u4 = rsqrt %u3 : f32<8>
  %u5 = sin %u4 : f32<8>
  %u6 = cos %u5 : f32<8>
  %u7 = tanh %u6 : f32<8>
  %u8 = floor %u7 : f32<8>
  %u9 = ceil %u8 : f32<8>
  %s = select %mask, %u9, %y : f32<8>
  %s2 = select i1 1, %x, %s : f32<8>
  %fm = fma %s2, %u9, %y : f32<8>
  %fm2 = fma f32 1.5, f32 2, f32 0.5 : f32
  %x2 = reshape %s2 : f32<2, 4>
  %x3 = trans %x2 : f32<4, 2>
  %col = reshape %x3 : f32<8, 1>
  %bc = broadcast %col : f32<8, 8>
  %acc = splat f32 0 : f32<8, 8>
  %h = cast %bc : f16<8, 8>
  %d = dot %h, %h, %acc : f32<8, 8>
  %red = reduce add 1 %d : f32<8>
  %sum = reduce max 0 %red : f32
  %srt = sort descending 0 %red : f32<8>
  %ord = argsort ascending 0 %srt : i32<8>
  %best = scan_fn @pick 0 0 %red, %ord : f32<8>
  %at = scan_fn @pick 1 0 %red, %ord : i32<8>
  %top = reduce_fn @pick 0 0 %red, %ord : f32
  %di = cast %d : i32<8, 8>
  %hist = histogram %ord : i32<16>
  %histm = histogram %ord, %mask : i32<4>
  %where = reduce_fn @pick 1 1 %d, %di : i32<8>
  %old = atomic_rmw add %ptrs, %red, %mask : f32<8>
  %old2 = atomic_rmw xchg %p, f32 1.5 : f32
  %qi = gep %q, i32 4 : i32*
  %old3 = atomic_cas %qi, i32 0, i32 1 : i32
  %old4 = atomic_cas %q, i32 0, i32 1, i1 1 : i32
  %old5 = atomic_rmw add %p, f32 1.5 : f32 {sem = acq_rel}
  %old6 = atomic_cas %q, i32 0, i32 1 : i32 {sem = acquire, scope = cta}
  %old7 = atomic_rmw max %q, i32 3 : i32 {scope = sys}
  %pi = cast %p : i64
  %pp = cast %pi : f32*
  %tv = load %t : f32
  print " x: ", %x, %pid
  print hex "", %i8
  print "done"
  assert %mask, "in \"range\""
  store %ptrs, %old, %mask
  store %pp, %sum
  %cond = cmp eq %pid, i32 0 : i1
  cond_br %cond, then, done

then:
  br done

done:
  %z = phi [%np, then], [i32 0, entry] : i32
  ret
}
)";

std::string reprint(const std::string& text, PrintOptions opts = {}) {
  return printModule(*parseModule(text), opts);
}

// print(parse(text)) == print(parse(print(parse(text)))), and the module verifies.
void expectStableRoundTrip(const std::string& text) {
  auto m = parseModule(text);
  EXPECT_EQ(verifyModule(*m), "");
  std::string once = printModule(*m);
  EXPECT_EQ(once, reprint(once));
  PrintOptions withLocs;
  withLocs.locations = true;
  std::string located = printModule(*m, withLocs);
  EXPECT_EQ(located, reprint(located, withLocs));
}

TEST(IrText, CanonicalTextsPrintUnchanged) {
  for (const char* text : {kAddKernel, kLoopKernel, kAllOpcodes}) {
    EXPECT_EQ(reprint(text), text);
    expectStableRoundTrip(text);
  }
}

TEST(IrText, ForwardReferencesResolveToTheirDefinitions) {
  auto m = parseModule(kLoopKernel);
  const Function* f = m->function("sum");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->blocks().size(), 3u);
  const BasicBlock* loop = f->blocks()[1].get();
  const Instruction* phi = loop->instructions()[0].get();
  const Instruction* next = loop->instructions()[4].get();
  EXPECT_EQ(next->name(), "i.next");
  EXPECT_EQ(phi->operand(1), next);
  EXPECT_EQ(phi->blocks[1], loop);
  EXPECT_EQ(phi->blocks[0], f->entry());
  EXPECT_EQ(next->users().size(), 2u);  // the phi and the cmp
}

TEST(IrText, ForwardBranchesKeepTheTextualBlockOrder) {
  const char* text = R"(kernel @k() {
a:
  br c

b:
  ret

c:
  br b
}
)";
  auto m = parseModule(text);
  const Function* f = m->function("k");
  ASSERT_EQ(f->blocks().size(), 3u);
  EXPECT_EQ(f->blocks()[0]->name(), "a");
  EXPECT_EQ(f->blocks()[1]->name(), "b");
  EXPECT_EQ(f->blocks()[2]->name(), "c");
  EXPECT_EQ(reprint(text), text);
  EXPECT_EQ(verifyModule(*m), "");
}

TEST(IrText, FreeFormLayoutAndCommentsAreAccepted) {
  const char* text =
      "; a comment line\n"
      "kernel @k(%a:i32,%b :i32) { entry: %s = add %a,%b:i32 ; trailing\n"
      "  %t = splat %s : i32< 2 ,4 > ret }";
  EXPECT_EQ(reprint(text),
            "kernel @k(%a: i32, %b: i32) {\nentry:\n  %s = add %a, %b : i32\n"
            "  %t = splat %s : i32<2, 4>\n  ret\n}\n");
}

TEST(IrText, ConstantsPrintToRoundTrip) {
  struct Case {
    const char* in;
    const char* out;
  };
  const Case cases[] = {
      {"f32 1", "f32 1"},          {"f32 1.0", "f32 1"},
      {"f32 -2.5", "f32 -2.5"},    {"f32 1e30", "f32 1e+30"},
      {"f32 0.1", "f32 0.1"},      {"f64 0.1", "f64 0.10000000000000001"},
      {"f32 inf", "f32 inf"},      {"f32 -inf", "f32 -inf"},
      {"f64 nan", "f64 nan"},      {"f16 -nan", "f16 nan"},
      {"f64 -0", "f64 -0"},        {"bf16 0.5", "bf16 0.5"},
      {"f16 65504", "f16 65504"},  {"i64 -9223372036854775808", "i64 -9223372036854775808"},
      {"i8 -128", "i8 -128"},      {"i1 1", "i1 1"},
      {"i16 32767", "i16 32767"},  {"f64 1.5e-300", "f64 1.5000000000000001e-300"},
  };
  for (const Case& c : cases) {
    std::string text = std::string("kernel @k() {\nentry:\n  %x = splat ") + c.in + " : i8<2>\n  ret\n}\n";
    std::string expected = std::string("kernel @k() {\nentry:\n  %x = splat ") + c.out + " : i8<2>\n  ret\n}\n";
    EXPECT_EQ(reprint(text), expected) << c.in;
    EXPECT_EQ(reprint(expected), expected) << c.in;
  }
}

TEST(IrText, ParsedConstantsHaveTheirValues) {
  auto m = parseModule(
      "kernel @k() {\nentry:\n  %a = add f32 1, f32 -inf : f32\n  %b = add f64 nan, i64 -7 : f64\n  ret\n}\n");
  const auto& insts = m->function("k")->entry()->instructions();
  auto constant = [&](size_t inst, size_t op) {
    return static_cast<const Constant*>(insts[inst]->operand(op));
  };
  EXPECT_EQ(constant(0, 0)->type(), Type::scalar(Scalar::F32));
  EXPECT_EQ(constant(0, 0)->f, 1.0);
  EXPECT_TRUE(std::isinf(constant(0, 1)->f) && constant(0, 1)->f < 0);
  EXPECT_TRUE(std::isnan(constant(1, 0)->f));
  EXPECT_EQ(constant(1, 1)->i, -7);
  // Constants are interned per module.
  auto m2 = parseModule("kernel @k() {\nentry:\n  %a = add i32 3, i32 3 : i32\n  ret\n}\n");
  const Instruction* add = m2->function("k")->entry()->instructions()[0].get();
  EXPECT_EQ(add->operand(0), add->operand(1));
}

TEST(IrText, AttributesAndSourceAreParsed) {
  auto m = parseModule(
      "source \"dir/we\\\"ird\\\\name\\x01.tc\"\n"
      "kernel @k(%n: i32 multipleof(16), %p: f16* aligned(8) readonly noalias, %t: i32* constant(12)) {\n"
      "entry:\n  ret\n}\n");
  EXPECT_EQ(m->sourceFile, "dir/we\"ird\\name\x01.tc");
  const Function* f = m->function("k");
  EXPECT_EQ(f->argument(0)->attrs.multipleOf, 16);
  EXPECT_EQ(f->argument(1)->attrs.aligned, 8);
  EXPECT_TRUE(f->argument(1)->attrs.readonly);
  EXPECT_TRUE(f->argument(1)->attrs.noalias);
  EXPECT_FALSE(f->argument(2)->attrs.readonly);
  EXPECT_EQ(f->argument(2)->attrs.constantTable, 12);
  EXPECT_EQ(f->argument(1)->type(), Type::pointer(Scalar::F16));
  std::string printed = printModule(*m);
  EXPECT_EQ(printed.substr(0, printed.find('\n')), "source \"dir/we\\\"ird\\\\name\\x01.tc\"");
  expectStableRoundTrip(printed);
}

TEST(IrText, LocationsArePrintedOnRequest) {
  const char* text = R"(kernel @k(%a: i32) loc(1:1) {
entry:
  %x = add %a, %a : i32 loc(3:7)
  store %p, %x loc(4:3)
  ret
}
)";
  // %p is undefined above; use a parameter instead.
  std::string fixed = text;
  fixed.replace(fixed.find("(%a: i32)"), 9, "(%a: i32, %p: i32*)");
  PrintOptions withLocs;
  withLocs.locations = true;
  EXPECT_EQ(reprint(fixed, withLocs), fixed);
  auto m = parseModule(fixed);
  const Instruction* add = m->function("k")->entry()->instructions()[0].get();
  EXPECT_EQ(add->loc, (SourceLoc{3, 7}));
  EXPECT_EQ(m->function("k")->loc, (SourceLoc{1, 1}));
  std::string plain = printModule(*m);
  EXPECT_EQ(plain.find("loc("), std::string::npos);
  EXPECT_NE(plain.find("  %x = add %a, %a : i32\n"), std::string::npos);
}

TEST(IrText, BuilderModulePrintsAsExpected) {
  Module m;
  Function* f = m.addFunction("add");
  f->addArgument(Type::scalar(Scalar::I32), "N");
  Argument* a = f->addArgument(Type::pointer(Scalar::F32), "a");
  a->attrs.aligned = 16;
  Argument* c = f->addArgument(Type::pointer(Scalar::F32), "c");
  Builder b(m);
  b.setInsertPoint(f->addBlock("entry"));
  Value* pid = b.programId(0);
  pid->setName("pid");
  Value* r = b.range(0, 8);
  Value* base = b.binary(Opcode::Mul, pid, b.i32(8));
  Value* off = b.binary(Opcode::Add, b.splat(base, {8}), r);
  off->setName("off");
  b.setLoc(SourceLoc{7, 12});
  Value* x = b.load(b.gep(b.splat(a, {8}), off));
  x->setName("x");
  Value* y = b.unary(Opcode::Exp, x);
  y->setName("x");  // a repeated hint gets a suffix
  b.setLoc(SourceLoc{});
  b.store(b.gep(b.splat(c, {8}), off), y);
  b.ret();
  const char* expected = R"(kernel @add(%N: i32, %a: f32* aligned(16), %c: f32*) {
entry:
  %pid = program_id 0 : i32
  %0 = range 0 : i32<8>
  %1 = mul %pid, i32 8 : i32
  %2 = splat %1 : i32<8>
  %off = add %2, %0 : i32<8>
  %3 = splat %a : f32*<8>
  %4 = gep %3, %off : f32*<8>
  %x = load %4 : f32<8>
  %x.1 = exp %x : f32<8>
  %5 = splat %c : f32*<8>
  %6 = gep %5, %off : f32*<8>
  store %6, %x.1
  ret
}
)";
  EXPECT_EQ(printModule(m), expected);
  EXPECT_EQ(printFunction(*f), expected);
  EXPECT_EQ(verifyModule(m), "");
  PrintOptions withLocs;
  withLocs.locations = true;
  std::string located = printModule(m, withLocs);
  EXPECT_NE(located.find("  %x = load %4 : f32<8> loc(7:12)\n"), std::string::npos);
  EXPECT_NE(located.find("  %6 = gep %5, %off : f32*<8>\n"), std::string::npos);
  expectStableRoundTrip(printModule(m));

  // printInstruction uses the names of the enclosing function.
  const Instruction* store = f->entry()->instructions()[11].get();
  EXPECT_EQ(printInstruction(*store), "store %6, %x.1");
  EXPECT_EQ(printInstruction(*static_cast<Instruction*>(off)), "%off = add %2, %0 : i32<8>");
}

TEST(IrText, NamesAreMadeUnique) {
  Module m;
  Function* f = m.addFunction("k");
  f->addArgument(Type::scalar(Scalar::I32), "");     // unnamed: %0
  Argument* x = f->addArgument(Type::scalar(Scalar::I32), "x");
  Builder b(m);
  b.setInsertPoint(f->addBlock(""));
  Value* v1 = b.binary(Opcode::Add, x, x);
  v1->setName("x");  // x.1
  Value* v2 = b.binary(Opcode::Add, v1, x);
  v2->setName("x.1");  // taken: x.1.1
  Value* v3 = b.binary(Opcode::Add, v2, x);
  v3->setName("3");  // digits only count as unnamed: %1
  Value* v4 = b.binary(Opcode::Add, v3, x);
  v4->setName("a b");  // not a name character: a_b
  Value* v5 = b.binary(Opcode::Add, v4, x);  // %2
  BasicBlock* next = f->addBlock("bb0");       // the first block was given bb0: bb0.1
  b.br(next);
  b.setInsertPoint(next);
  b.binary(Opcode::Add, v5, x)->setName("x");  // x.2
  b.ret();
  const char* expected = R"(kernel @k(%0: i32, %x: i32) {
bb0:
  %x.1 = add %x, %x : i32
  %x.1.1 = add %x.1, %x : i32
  %1 = add %x.1.1, %x : i32
  %a_b = add %1, %x : i32
  %2 = add %a_b, %x : i32
  br bb0.1

bb0.1:
  %x.2 = add %2, %x : i32
  ret
}
)";
  EXPECT_EQ(printModule(m), expected);
  EXPECT_EQ(reprint(expected), expected);
  EXPECT_EQ(verifyModule(m), "");
}

TEST(IrText, NumberedNamesAreRenumbered) {
  // Hand-written numbers need not be dense or ordered; the printer renumbers.
  const char* text = "kernel @k(%7: i32) {\nentry:\n  %42 = add %7, %7 : i32\n  %3 = mul %42, %7 : i32\n  ret\n}\n";
  EXPECT_EQ(reprint(text),
            "kernel @k(%0: i32) {\nentry:\n  %1 = add %0, %0 : i32\n  %2 = mul %1, %0 : i32\n  ret\n}\n");
}

TEST(IrText, MultipleKernelsAndEmptyPhi) {
  const char* text = R"(kernel @a() {
entry:
  ret
}

kernel @b(%x: i64) {
entry:
  %p = phi : i64
  ret
}
)";
  EXPECT_EQ(reprint(text), text);
}

// ---- malformed text ---------------------------------------------------------

void expectParseError(const std::string& text, uint32_t line, uint32_t col, const std::string& message) {
  try {
    parseModule(text);
    ADD_FAILURE() << "no error for:\n" << text;
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos)
        << "message: " << e.what() << "\nexpected: " << message;
    EXPECT_EQ(e.loc().line, line) << e.what();
    EXPECT_EQ(e.loc().col, col) << e.what();
  }
}

// Wraps `body` (instructions of the entry block) into a kernel; the body
// starts on line 3, column 1.
std::string kernel(const std::string& body) {
  return "kernel @k(%a: i32, %b: f32, %p: f32*) {\nentry:\n" + body + "}\n";
}

TEST(IrTextErrors, MissingColonAfterOperands) {
  // Points just past the last operand, not at the next line.
  expectParseError(kernel("  %x = add %a, %a\n  ret\n"), 3, 18, "expected ':' after operand list");
  expectParseError(kernel("  %x = add %a, %a ret\n"), 3, 19, "expected ':' after operand list");
}

TEST(IrTextErrors, UnknownOpcode) {
  expectParseError(kernel("  %x = foo %a, %a : i32\n  ret\n"), 3, 8, "unknown opcode 'foo'");
  expectParseError(kernel("  bar %a\n"), 3, 3, "unknown opcode 'bar'");
}

TEST(IrTextErrors, UndefinedValue) {
  expectParseError(kernel("  %y = add %a, %a : i32\n  %z = add %y, %x : i32\n  ret\n"), 4, 16,
                   "use of undefined value '%x'");
}

TEST(IrTextErrors, Redefinition) {
  expectParseError(kernel("  %x = add %a, %a : i32\n  %x = add %a, %a : i32\n  ret\n"), 4, 3,
                   "redefinition of '%x'");
  expectParseError("kernel @k(%a: i32, %a: i32) {\nentry:\n  ret\n}\n", 1, 20, "redefinition of '%a'");
}

TEST(IrTextErrors, UnknownType) {
  expectParseError(kernel("  %x = add %a, %a : f33\n  ret\n"), 3, 21, "unknown type 'f33'");
  expectParseError(kernel("  %x = add %a, f33 1 : i32\n  ret\n"), 3, 16, "unknown type 'f33'");
  expectParseError("kernel @k(%a: void*) {\nentry:\n  ret\n}\n", 1, 19, "'void*' is not a type");
  expectParseError("kernel @k(%a: f32**) {\nentry:\n  ret\n}\n", 1, 19, "pointers to pointers");
}

TEST(IrTextErrors, BlocksUndefinedOrRedefined) {
  expectParseError(kernel("  br nowhere\n"), 3, 6, "use of undefined block 'nowhere'");
  expectParseError(kernel("  br entry\nentry:\n  ret\n"), 4, 1, "redefinition of block 'entry'");
  expectParseError("kernel @k() {\n  ret\n}\n", 2, 3, "expected a block label");
}

TEST(IrTextErrors, OperandCounts) {
  expectParseError(kernel("  %x = add %a, %a, %a : i32\n  ret\n"), 3, 20, "'add' expects 2 operands, got 3");
  expectParseError(kernel("  %x = load %p, %p : f32\n  ret\n"), 3, 20, "'load' expects 1 or 3 operands, got 2");
  expectParseError(kernel("  %x = add %a %a : i32\n  ret\n"), 3, 15, "expected ',' between operands");
}

TEST(IrTextErrors, SubKindNames) {
  expectParseError(kernel("  %x = cmp foo %a, %a : i1\n  ret\n"), 3, 12, "unknown comparison predicate 'foo'");
  expectParseError(kernel("  %x = reduce prod 0 %a : i32\n  ret\n"), 3, 15, "unknown reduction kind 'prod'");
  expectParseError(kernel("  %x = sort up 0 %a : i32\n  ret\n"), 3, 13,
                   "unknown sort order ('ascending' or 'descending') 'up'");
  expectParseError(kernel("  %x = atomic_rmw sub %p, %b : f32\n  ret\n"), 3, 19, "unknown atomic kind 'sub'");
  expectParseError(kernel("  %x = scan_fn 0 0 %a : i32\n  ret\n"), 3, 16,
                   "expected the combine function (such as '@add') after 'scan_fn'");
  expectParseError(kernel("  %x = scan_fn @f 300 0 %a : i32\n  ret\n"), 3, 19,
                   "a scan_fn result position must be between 0 and 255");
  expectParseError(kernel("  %x = reduce add %a : i32\n  ret\n"), 3, 19, "expected a reduction axis");
  expectParseError(kernel("  %x = atomic_rmw add %p, %b : f32 {sem = seq_cst}\n  ret\n"), 3, 43,
                   "unknown sem 'seq_cst'");
  expectParseError(kernel("  %x = add %a, %a : i32 {sem = relaxed}\n  ret\n"), 3, 26,
                   "'sem' is an attribute of atomic_rmw and atomic_cas");
}

TEST(IrTextErrors, TileShapeLimits) {
  expectParseError(kernel("  %x = splat %a : i32<1, 1, 1, 1, 1, 1, 1, 1, 1>\n  ret\n"), 3, 47,
                   "at most 8 dimensions");
  expectParseError(kernel("  %x = splat %a : i32<4096, 8192>\n  ret\n"), 3, 29, "more than 16777216 elements");
  expectParseError(kernel("  %x = splat %a : i32<0>\n  ret\n"), 3, 23, "tile dimension must be between 1");
  expectParseError(kernel("  %x = splat %a : i32<99999999999999999999>\n  ret\n"), 3, 23, "out of range");
  expectParseError(kernel("  %x = splat %a : i32<8 8>\n  ret\n"), 3, 25, "expected ',' or '>'");
}

TEST(IrTextErrors, BadConstants) {
  expectParseError(kernel("  %x = add %a, i8 300 : i8\n  ret\n"), 3, 19, "integer constant 300 does not fit in i8");
  expectParseError(kernel("  %x = add %a, i32 1.5 : i32\n  ret\n"), 3, 20, "expected an integer after 'i32'");
  expectParseError(kernel("  %x = add %a, i32<4> 1 : i32\n  ret\n"), 3, 16, "must be a scalar");
  expectParseError(kernel("  %x = add %b, f32 1e999 : f32\n  ret\n"), 3, 20, "out of range");
  expectParseError(kernel("  %x = add %a, 8x : i32\n  ret\n"), 3, 16, "malformed number");
  expectParseError(kernel("  %x = add %a, i1 -1 : i1\n  ret\n"), 3, 19, "does not fit in i1");
}

TEST(IrTextErrors, ResultsWhereNoneBelongAndViceVersa) {
  expectParseError(kernel("  %x = store %p, %b\n  ret\n"), 3, 8, "'store' does not produce a value");
  expectParseError(kernel("  add %a, %a : i32\n  ret\n"), 3, 3, "'add' produces a value");
  expectParseError(kernel("  store %p, %b : f32\n  ret\n"), 3, 16, "'store' has no result type");
}

TEST(IrTextErrors, LexicalErrors) {
  expectParseError("source \"abc\nkernel @k() {\n}\n", 1, 8, "unterminated string");
  expectParseError("source \"a\\qb\"\n", 1, 10, "invalid escape sequence");
  expectParseError(kernel("  %x = add %a, $3 : i32\n  ret\n"), 3, 16, "unexpected character '$'");
  expectParseError(kernel("  %x = add %a, % : i32\n  ret\n"), 3, 16, "expected a name after '%'");
}

TEST(IrTextErrors, ModuleStructure) {
  expectParseError(kernel("  ret\n") + kernel("  ret\n"), 5, 8, "redefinition of function '@k'");
  expectParseError("kernel @k() {\nentry:\n  ret\n", 3, 6, "expected '}' at the end of '@k'");
  expectParseError("kernel @k() {\nentry:\n  ret\n}\nsource \"x\"\n", 5, 1, "'source' must come before");
  expectParseError("func @k() {\n}\n", 1, 1, "expected 'kernel'");
  expectParseError("kernel @k(%a: i32 restrict) {\n}\n", 1, 19, "unknown parameter attribute 'restrict'");
  expectParseError("kernel @k(%a: i32 multipleof(0)) {\n}\n", 1, 30, "'multipleof' needs a positive number");
  expectParseError("kernel @k(%a: i32) loc(1:x) {\n}\n", 1, 26, "expected a column number");
}

TEST(IrTextErrors, PhiSyntax) {
  expectParseError(kernel("  %x = phi [%a entry] : i32\n  ret\n"), 3, 16, "expected ',' between the phi value and its block");
  expectParseError(kernel("  %x = phi [%a, entry], %b : i32\n  ret\n"), 3, 25, "expected '['");
  expectParseError(kernel("  %x = phi [%a, entry] i32\n  ret\n"), 3, 24, "expected ':' after operand list");
}

// Every prefix of a valid module and many one-character mutations either parse
// or throw UserError: never another exception, never a crash.
TEST(IrTextErrors, TruncatedAndMutatedInputNeverCrash) {
  std::string text = kAllOpcodes;
  auto tryParse = [](const std::string& t) {
    try {
      auto m = parseModule(t);
      verifyModule(*m);  // the verifier must cope with whatever parsed
      printModule(*m);
    } catch (const UserError&) {
    }
  };
  for (size_t n = 0; n <= text.size(); n += 3) tryParse(text.substr(0, n));
  const char replacements[] = {'%', ',', ':', '<', '>', '[', ']', '0', '9', 'x', ' ', '\n', '-', '*', '@', '"'};
  for (size_t i = 0; i < text.size(); i += 7)
    for (char c : replacements) {
      std::string mutated = text;
      mutated[i] = c;
      tryParse(mutated);
    }
}

TEST(IrTextErrors, CacheOperatorsAndVolatileOnTheirOwnInstructions) {
  // A load takes ca, cg, cv and volatile; a store wb, cg, cs, wt.
  expectParseError(kernel("  %x = load %p : f32 {cache = wb}\n  ret\n"), 3, 31, "'cache' is an attribute of load");
  expectParseError(kernel("  store %p, %b {cache = cv}\n  ret\n"), 3, 25, "'cache' is an attribute of load");
  expectParseError(kernel("  store %p, %b {volatile = 1}\n  ret\n"), 3, 28, "'volatile = 1' marks a load");
  const std::string ok = kernel("  %x = load %p : f32 {cache = cv, volatile = 1}\n  store %p, %x {cache = wt}\n  ret\n");
  EXPECT_EQ(reprint(ok), ok);
  auto m = parseModule(ok);
  const Instruction* load = m->function("k")->entry()->instructions()[0].get();
  EXPECT_TRUE(load->hasSideEffects());  // volatile: never removed, merged or moved
}

TEST(IrTextErrors, EvictionPrioritiesOnLoadsAndStores) {
  // first / last on loads and stores, beside a cache operator; normal prints as nothing.
  expectParseError(kernel("  %x = load %p : f32 {evict = soon}\n  ret\n"), 3, 31, "'evict' is an attribute of load and store");
  expectParseError(kernel("  %x = add %b, %b : f32 {evict = last}\n  ret\n"), 3, 34, "'evict' is an attribute of load and store");
  const std::string ok = kernel("  %x = load %p : f32 {cache = cg, evict = last}\n  store %p, %x {evict = first}\n  ret\n");
  EXPECT_EQ(reprint(ok), ok);
  EXPECT_EQ(reprint(kernel("  %x = load %p : f32 {evict = normal}\n  store %p, %x\n  ret\n")),
            kernel("  %x = load %p : f32\n  store %p, %x\n  ret\n"));
  auto m = parseModule(ok);
  const Instruction* load = m->function("k")->entry()->instructions()[0].get();
  EXPECT_FALSE(load->hasSideEffects());  // a hint: the load may still be merged or moved
}

}  // namespace
}  // namespace tritonc::ir
