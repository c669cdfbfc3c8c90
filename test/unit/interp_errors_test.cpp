// What the interpreter reports for wrong programs and wrong launches: every
// report is a UserError at the faulting instruction's location, naming the
// kernel, the program, the tile element and the buffer.
#include "interp_helpers.h"

using namespace interp_test;
using ir::CmpPred;

namespace {
const SourceLoc kLoc{12, 7};

}  // namespace

TEST(InterpErrors, OutOfBoundsLoadNamesEverything) {
  Kernel k("oob");
  ir::Value* a = k.ptrParam(Scalar::F32, "a");
  ir::Value* out = k.ptrParam(Scalar::F32, "out");
  ir::Value* offs = k.blockOffsets(32);
  k.b.setLoc(kLoc);
  ir::Value* load = k.b.load(k.pointers(a, offs));
  k.b.setLoc({});
  k.b.store(k.pointers(out, offs), load);
  k.b.ret();
  // 100 elements, 4 programs of 32: program 3 reads a[96..127]; a[100] is lane 4.
  interp::Buffer A = makeBuffer("a", std::vector<float>(100, 1.0f)), O = poisoned("out", Scalar::F32, 128);
  UserError e = expectUserError([&] { k.run({4}, {buf(A), buf(O)}); });
  expectMentions(e.what(), {"out-of-bounds load", "kernel 'oob'", "program (3, 0, 0)", "tile element [4]",
                            "'a' + 400 bytes", "'a' holds 400 bytes (100 x f32)"});
  EXPECT_EQ(e.loc(), static_cast<ir::Instruction*>(load)->loc);
  EXPECT_EQ(e.loc(), kLoc);
  // Programs 0..2 ran before the fault.
  EXPECT_EQ(contents<float>(O)[95], 1.0f);
}

TEST(InterpErrors, OutOfBoundsStoreOfA2DTile) {
  const int64_t R = 4, C = 8;
  Kernel k("store2d");
  ir::Value* out = k.ptrParam(Scalar::I32, "out");
  ir::Value* rows = k.b.binary(Opcode::Mul, k.b.reshape(k.b.range(0, R), {R, 1}), k.b.splat(k.b.i32(C), {R, 1}));
  ir::Value* offs = k.b.binary(Opcode::Add, k.b.broadcast(rows, {R, C}),
                               k.b.broadcast(k.b.reshape(k.b.range(0, C), {1, C}), {R, C}));
  k.b.setLoc(kLoc);
  ir::Instruction* store = k.b.store(k.pointers(out, offs), offs);
  k.b.setLoc({});
  k.b.ret();
  interp::Buffer O = poisoned("out", Scalar::I32, 30);
  UserError e = expectUserError([&] { k.run({1}, {buf(O)}); });
  expectMentions(e.what(), {"out-of-bounds store", "kernel 'store2d'", "program (0, 0, 0)", "tile element [3, 6]",
                            "'out' + 120 bytes", "'out' holds 120 bytes (30 x i32)"});
  EXPECT_EQ(e.loc(), store->loc);
}

TEST(InterpErrors, NegativeOffsetAndUnnamedBuffer) {
  Kernel k("neg");
  ir::Value* a = k.ptrParam(Scalar::F32, "input");
  ir::Value* out = k.ptrParam(Scalar::F32, "out");
  k.b.setLoc(kLoc);
  k.b.store(out, k.b.load(k.at(a, -1)));
  k.b.ret();
  interp::Buffer A = makeBuffer("", std::vector<float>(4, 0.0f)), O = poisoned("out", Scalar::F32, 1);
  UserError e = expectUserError([&] { k.run({1}, {buf(A), buf(O)}); });
  // A scalar access has no tile element; the parameter names an unnamed buffer.
  expectMentions(e.what(), {"out-of-bounds load", "program (0, 0, 0), address = 'input' - 4 bytes",
                            "'input' holds 16 bytes (4 x f32)"});
  EXPECT_EQ(std::string(e.what()).find("tile element"), std::string::npos) << e.what();
  EXPECT_EQ(e.loc(), kLoc);
}

TEST(InterpErrors, MisalignedAccess) {
  Kernel k("misaligned");
  ir::Value* a = k.ptrParam(Scalar::F32, "a");
  ir::Value* out = k.ptrParam(Scalar::F32, "out");
  ir::Value* bytes = k.b.cast(a, Type::pointer(Scalar::I8));
  ir::Value* p = k.b.cast(k.b.gep(bytes, k.b.i32(2)), Type::pointer(Scalar::F32));
  k.b.setLoc(kLoc);
  k.b.store(out, k.b.load(p));
  k.b.ret();
  interp::Buffer A = makeBuffer("a", std::vector<float>(4, 0.0f)), O = poisoned("out", Scalar::F32, 1);
  UserError e = expectUserError([&] { k.run({1}, {buf(A), buf(O)}); });
  expectMentions(e.what(), {"misaligned load", "kernel 'misaligned'", "'a' + 2 bytes", "not a multiple of 4"});
  EXPECT_EQ(e.loc(), kLoc);
}

TEST(InterpErrors, WildAndNullPointers) {
  for (int64_t address : {int64_t(1234), int64_t(0)}) {
    Kernel k("wild");
    ir::Value* out = k.ptrParam(Scalar::F32, "out");
    ir::Value* p = k.b.cast(k.b.i64(address), Type::pointer(Scalar::F32));
    k.b.setLoc(kLoc);
    k.b.store(k.b.splat(p, {4}), k.b.splat(k.f32(1), {4}));
    k.b.setLoc({});
    k.b.store(out, k.f32(0));
    k.b.ret();
    interp::Buffer O = poisoned("out", Scalar::F32, 1);
    UserError e = expectUserError([&] { k.run({1}, {buf(O)}); });
    const std::string hex = address ? "0x4d2" : "0x0";
    expectMentions(e.what(), {"store through a wild pointer", "kernel 'wild'", "tile element [0]",
                              "address " + hex + " is in no buffer",
                              "a pointer made from an integer, such as an address loaded from a tensor, runs on the CPU "
                              "back end or the GPU"});
    EXPECT_EQ(e.loc(), kLoc);
  }
}

TEST(InterpErrors, FaultsOnlyWhereALaneIsOutside) {
  Kernel k("copy");
  ir::Value* a = k.ptrParam(Scalar::F32, "a");
  ir::Value* out = k.ptrParam(Scalar::F32, "out");
  ir::Value* offs = k.blockOffsets(16);
  k.b.store(k.pointers(out, offs), k.b.load(k.pointers(a, offs)));
  k.b.ret();
  // Every lane in bounds: no error.
  interp::Buffer A = makeBuffer("a", std::vector<float>(32, 2.0f)), O = poisoned("out", Scalar::F32, 32);
  k.run({2}, {buf(A), buf(O)});
  EXPECT_EQ(contents<float>(O), std::vector<float>(32, 2.0f));
  // One element short: the unmasked load of program 1 faults at lane 15.
  interp::Buffer Short = makeBuffer("a", std::vector<float>(31, 2.0f));
  UserError e = expectUserError([&] { k.run({2}, {buf(Short), buf(O)}); });
  expectMentions(e.what(), {"program (1, 0, 0)", "tile element [15]", "'a' + 124 bytes"});
}

TEST(InterpErrors, ArgumentsThatDoNotFitTheParameters) {
  Kernel k("args");
  k.intParam("n");
  k.ptrParam(Scalar::F32, "a");
  k.b.ret();
  interp::Buffer A = makeBuffer("a", std::vector<float>(4, 0.0f));
  UserError e = expectUserError([&] { k.run({1}, {num(4)}); });
  expectMentions(e.what(), {"kernel 'args' takes 2 arguments but 1 was given"});
  e = expectUserError([&] { k.run({1}, {num(4), buf(A), num(1)}); });
  expectMentions(e.what(), {"takes 2 arguments but 3 were given"});
  e = expectUserError([&] { k.run({1}, {num(4), num(0)}); });
  expectMentions(e.what(), {"argument 1 ('a', f32*)", "needs a buffer", "an integer"});
  e = expectUserError([&] { k.run({1}, {num(4), interp::KernelArg::ofBuffer(nullptr)}); });
  expectMentions(e.what(), {"argument 1 ('a', f32*)", "a null buffer"});
  e = expectUserError([&] { k.run({1}, {buf(A), buf(A)}); });
  expectMentions(e.what(), {"argument 0 ('n', i32)", "is a scalar", "a buffer"});
}

TEST(InterpErrors, GridMustBePositive) {
  Kernel k("grid");
  k.b.ret();
  UserError e = expectUserError([&] { k.run({2, 0, 1}, {}); });
  expectMentions(e.what(), {"kernel 'grid'", "grid dimensions must be >= 1", "(2, 0, 1)"});
}

TEST(InterpErrors, GridBeyondTheGpuLimitsIsRefusedBeforeRunning) {
  // A program that would fault if it ran: the refusal comes first.
  Kernel k("huge");
  k.b.setLoc(kLoc);
  k.b.binary(ir::Opcode::Div, k.b.i32(1), k.b.i32(0));
  k.b.ret();
  const int64_t big = int64_t(1) << 30;
  UserError e = expectUserError([&] { k.run({big, big, big}, {}); });
  expectMentions(e.what(), {"kernel 'huge'", "grid (1073741824, 1073741824, 1073741824) is beyond the GPU's limits",
                            "x < 2^31, y and z <= 65535"});
  // The limits themselves, and one past each.
  EXPECT_EQ(interp::gridProblem({interp::kMaxGridX, 65535, 65535}), "");
  EXPECT_EQ(interp::kMaxGridX, 2147483647);
  EXPECT_NE(interp::gridProblem({interp::kMaxGridX + 1, 1, 1}), "");
  EXPECT_NE(interp::gridProblem({1, 65536, 1}), "");
  EXPECT_NE(interp::gridProblem({1, 1, 65536}), "");
}

TEST(InterpErrors, RunawayLoopIsStopped) {
  Kernel k("forever");
  ir::BasicBlock* loop = k.fn->addBlock("loop");
  k.b.br(loop);
  k.b.setInsertPoint(loop);
  k.b.setLoc(kLoc);
  k.b.br(loop);
  interp::RunOptions options;
  options.maxStepsPerProgram = 1000;
  UserError e = expectUserError([&] { k.run({1}, {}, options); });
  expectMentions(e.what(), {"kernel 'forever'", "program (0, 0, 0)", "more than 1000 instructions"});
  EXPECT_EQ(e.loc(), kLoc);
}

TEST(InterpErrors, BrokenMultipleOfPromises) {
  // n + range(0, 4) promises that its run starts at a multiple of 4 (Triton's
  // meaning): n = 8 keeps it, n = 6 does not.
  Kernel k("promise");
  ir::Argument* n = k.intParam("n");
  ir::Value* out = k.ptrParam(Scalar::I32, "out");
  k.b.setLoc(kLoc);
  ir::Value* m = k.b.multipleOf(k.b.binary(Opcode::Add, k.b.splat(n, {4}), k.b.range(0, 4)), 4);
  k.b.setLoc({});
  k.b.store(k.pointers(out, k.b.range(0, 4)), m);
  k.b.ret();
  interp::Buffer O = poisoned("out", Scalar::I32, 4);
  k.run({1}, {num(8), buf(O)});
  EXPECT_EQ(contents<int32_t>(O), (std::vector<int32_t>{8, 9, 10, 11}));
  UserError e = expectUserError([&] { k.run({1}, {num(6), buf(O)}); });
  expectMentions(e.what(), {"multiple_of 4 does not hold", "kernel 'promise'", "tile element [0] is 6",
                            "not a multiple where the analysis reads one"});
  EXPECT_EQ(e.loc(), kLoc);
  interp::RunOptions lax;
  lax.checkMultipleOf = false;
  O = poisoned("out", Scalar::I32, 4);
  k.run({1}, {num(6), buf(O)}, lax);
  EXPECT_EQ(contents<int32_t>(O), (std::vector<int32_t>{6, 7, 8, 9}));
  // A parameter's multipleof(N) attribute is a promise too.
  n->attrs.multipleOf = 16;
  e = expectUserError([&] { k.run({1}, {num(8), buf(O)}); });
  EXPECT_NE(std::string(e.what()).find("argument 0 ('n', i32) is declared multipleof(16) but was given 8"),
            std::string::npos)
      << e.what();
}

TEST(InterpErrors, MultipleOfRunsAlongEitherDimension) {
  // A 4x4 tile 4r + c (each row a run from a multiple of 4) where the
  // element equal to `brk` has 3 added: the run breaks there.
  Kernel k("promise2d");
  ir::Value* out = k.ptrParam(Scalar::I32, "out");
  ir::Argument* brk = k.intParam("brk");
  ir::Value* rows = k.b.broadcast(k.b.reshape(k.b.range(0, 4), {4, 1}), {4, 4});
  ir::Value* cols = k.b.broadcast(k.b.reshape(k.b.range(0, 4), {1, 4}), {4, 4});
  ir::Value* index = k.b.binary(Opcode::Add, k.b.binary(Opcode::Mul, rows, k.b.splat(k.b.i32(4), {4, 4})), cols);
  ir::Value* hit = k.b.cmp(ir::CmpPred::Eq, index, k.b.splat(brk, {4, 4}));
  ir::Value* v = k.b.select(hit, k.b.binary(Opcode::Add, index, k.b.splat(k.b.i32(3), {4, 4})), index);
  k.b.setLoc(kLoc);
  ir::Value* m = k.b.multipleOf(v, 4);
  k.b.setLoc({});
  k.b.store(k.pointers(out, index), m);
  k.b.ret();
  interp::Buffer O = poisoned("out", Scalar::I32, 16);
  k.run({1}, {buf(O), num(-1)});
  std::vector<int32_t> want(16);
  for (int j = 0; j < 16; ++j) want[size_t(j)] = j;
  EXPECT_EQ(contents<int32_t>(O), want);
  UserError e = expectUserError([&] { k.run({1}, {buf(O), num(6)}); });
  expectMentions(e.what(), {"multiple_of 4 does not hold", "tile element [1, 2] is 9"});
  // 4 + 3 = 7 breaks the run of row 1 at its start; column 0 holds 0, 7,
  // 8, 12: 7 is neither a multiple nor 0 + 1.
  e = expectUserError([&] { k.run({1}, {buf(O), num(4)}); });
  expectMentions(e.what(), {"tile element [1, 0] is 7"});
}

TEST(InterpErrors, MultipleOfAlongConstantAndPlainDimensions) {
  // Along dimension 1 the values make runs: their starts must be multiples
  // (cols + 1 starts at 1). Down the columns nothing is checked: cols
  // broadcast down the rows has equal neighbours there, as rows clamped with
  // a select may have by coincidence, which the values cannot tell apart;
  // rows * 4 + cols starts its rows at multiples of 4.
  Kernel k("promise_dims");
  ir::Value* out = k.ptrParam(Scalar::I32, "out");
  ir::Argument* which = k.intParam("which");
  ir::Value* rows = k.b.broadcast(k.b.reshape(k.b.range(0, 4), {4, 1}), {4, 4});
  ir::Value* cols = k.b.broadcast(k.b.reshape(k.b.range(0, 4), {1, 4}), {4, 4});
  ir::Value* four = k.b.splat(k.b.i32(4), {4, 4});
  ir::Value* index = k.b.binary(Opcode::Add, k.b.binary(Opcode::Mul, rows, four), cols);
  ir::Value* shifted = k.b.binary(Opcode::Add, cols, k.b.splat(k.b.i32(1), {4, 4}));
  ir::Value* pickCols = k.b.cmp(ir::CmpPred::Eq, k.b.splat(which, {4, 4}), k.b.splat(k.b.i32(0), {4, 4}));
  ir::Value* pickShifted = k.b.cmp(ir::CmpPred::Eq, k.b.splat(which, {4, 4}), k.b.splat(k.b.i32(2), {4, 4}));
  k.b.setLoc(kLoc);
  ir::Value* m = k.b.multipleOf(k.b.select(pickShifted, shifted, k.b.select(pickCols, cols, index)), 4);
  k.b.setLoc({});
  k.b.store(k.pointers(out, index), m);
  k.b.ret();
  interp::Buffer O = poisoned("out", Scalar::I32, 16);
  k.run({1}, {buf(O), num(1)});  // 4r + c: rows start at multiples of 4
  k.run({1}, {buf(O), num(0)});  // c: runs start at 0; nothing down the columns
  UserError e = expectUserError([&] { k.run({1}, {buf(O), num(2)}); });
  expectMentions(e.what(), {"multiple_of 4 does not hold", "tile element [0, 0] is 1"});
}

TEST(InterpErrors, StoreIntoReadonlyBuffer) {
  Kernel k("ro");
  ir::Argument* a = k.ptrParam(Scalar::F32, "a");
  a->attrs.readonly = true;
  k.ptrParam(Scalar::F32, "b");
  k.b.setLoc(kLoc);
  k.b.store(k.at(a, 1), k.f32(1));
  k.b.ret();
  interp::Buffer A = makeBuffer("a", std::vector<float>(4, 0.0f)), B = makeBuffer("b", std::vector<float>(1, 0.0f));
  UserError e = expectUserError([&] { k.run({1}, {buf(A), buf(B)}); });
  expectMentions(e.what(), {"store into a read-only buffer", "'a' + 4 bytes", "only passed to readonly parameters"});
  EXPECT_EQ(e.loc(), kLoc);
  // Also passed to a writable parameter: the store is allowed.
  k.run({1}, {buf(A), buf(A)});
  EXPECT_EQ(contents<float>(A)[1], 1.0f);
}

TEST(InterpErrors, OutOfBoundsAtomic) {
  Kernel k("atom");
  ir::Value* c = k.ptrParam(Scalar::I32, "counter");
  k.b.setLoc(kLoc);
  k.b.atomicRmw(ir::AtomicKind::Add, k.pointers(c, k.b.range(0, 2)), k.b.splat(k.b.i32(1), {2}));
  k.b.ret();
  interp::Buffer C = makeBuffer<int32_t>("counter", {0});
  UserError e = expectUserError([&] { k.run({1}, {buf(C)}); });
  expectMentions(e.what(), {"out-of-bounds atomic_rmw", "tile element [1]", "'counter' + 4 bytes"});
  EXPECT_EQ(e.loc(), kLoc);
}

// IR that the verifier would refuse is an InternalError, never a crash.
TEST(InterpErrors, MalformedIRIsAnInternalError) {
  Kernel k("broken");
  ir::Value* out = k.ptrParam(Scalar::F32, "out");
  k.b.store(out, k.f32(1));  // no terminator
  EXPECT_THROW(interp::runKernel(*k.fn, {1}, {}), InternalError);
  Kernel k2("broken2");
  ir::Value* x = k2.ptrParam(Scalar::F32, "x");
  k2.b.create(Opcode::Load, Type::scalar(Scalar::F32).withShape({4}), {x});  // 1 pointer, 4 results
  k2.b.ret();
  interp::Buffer X = makeBuffer("x", std::vector<float>(4, 0.0f));
  EXPECT_THROW(interp::runKernel(*k2.fn, {1}, {buf(X)}), InternalError);
}
