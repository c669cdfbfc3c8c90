// Reductions, atomics, lane order of stores and argument conversion in the
// interpreter, against C++ references.
#include <cmath>

#include "interp_helpers.h"
#include "support/float16.h"
#include "support/sum_order_reference.h"

using namespace interp_test;
using ir::AtomicKind;
using ir::CmpPred;
using ir::ReduceKind;

// A [4, 8] f32 tile reduced along each axis and to a scalar; max and min in
// index order, sums in the order of docs/IR.md (partial sums, then pairs).
TEST(InterpReduce, AlongEachAxisInTheirOrder) {
  INTERP_TEST_RNG();
  const int64_t R = 4, C = 8;
  Kernel k("reduce");
  ir::Value* x = k.ptrParam(Scalar::F32, "x");
  ir::Value* sum0 = k.ptrParam(Scalar::F32, "sum0");
  ir::Value* sum1 = k.ptrParam(Scalar::F32, "sum1");
  ir::Value* max1 = k.ptrParam(Scalar::F32, "max1");
  ir::Value* min0 = k.ptrParam(Scalar::F32, "min0");
  ir::Value* total = k.ptrParam(Scalar::F32, "total");
  ir::Value* rows = k.b.binary(Opcode::Mul, k.b.reshape(k.b.range(0, R), {R, 1}), k.b.splat(k.b.i32(C), {R, 1}));
  ir::Value* offs = k.b.binary(Opcode::Add, k.b.broadcast(rows, {R, C}),
                               k.b.broadcast(k.b.reshape(k.b.range(0, C), {1, C}), {R, C}));
  ir::Value* v = k.b.load(k.pointers(x, offs));
  k.b.store(k.pointers(sum0, k.b.range(0, C)), k.b.reduce(ReduceKind::Add, 0, v));
  k.b.store(k.pointers(sum1, k.b.range(0, R)), k.b.reduce(ReduceKind::Add, 1, v));
  k.b.store(k.pointers(max1, k.b.range(0, R)), k.b.reduce(ReduceKind::Max, 1, v));
  k.b.store(k.pointers(min0, k.b.range(0, C)), k.b.reduce(ReduceKind::Min, 0, v));
  k.b.store(total, k.b.reduce(ReduceKind::Add, 0, k.b.reshape(v, {R * C})));
  k.b.ret();

  const std::vector<float> xs = randomFloats(rng, size_t(R * C), -1000, 1000);
  interp::Buffer X = makeBuffer("x", xs);
  interp::Buffer S0 = poisoned("sum0", Scalar::F32, C), S1 = poisoned("sum1", Scalar::F32, R);
  interp::Buffer M1 = poisoned("max1", Scalar::F32, R), N0 = poisoned("min0", Scalar::F32, C);
  interp::Buffer T = poisoned("total", Scalar::F32, 1);
  k.run({1}, {buf(X), buf(S0), buf(S1), buf(M1), buf(N0), buf(T)});
  auto at = [&](int64_t r, int64_t c) { return xs[size_t(r * C + c)]; };
  auto add = [](float a, float b) { return a + b; };
  EXPECT_EQ(contents<float>(T)[0], test::referenceSum(xs, add));
  for (int64_t c = 0; c < C; ++c) {
    std::vector<float> column;
    float m = at(0, c);
    for (int64_t r = 0; r < R; ++r) column.push_back(at(r, c)), m = std::min(m, at(r, c));
    EXPECT_EQ(contents<float>(S0)[size_t(c)], test::referenceSum(column, add)) << c;
    EXPECT_EQ(contents<float>(N0)[size_t(c)], m) << c;
  }
  for (int64_t r = 0; r < R; ++r) {
    std::vector<float> row;
    float m = at(r, 0);
    for (int64_t c = 0; c < C; ++c) row.push_back(at(r, c)), m = std::max(m, at(r, c));
    EXPECT_EQ(contents<float>(S1)[size_t(r)], test::referenceSum(row, add)) << r;
    EXPECT_EQ(contents<float>(M1)[size_t(r)], m) << r;
  }
}

TEST(InterpReduce, NaNPropagatesAndIntegersWrap) {
  INTERP_TEST_RNG();
  const int64_t n = 16;
  Kernel k("reduce2");
  ir::Value* x = k.ptrParam(Scalar::F32, "x");
  ir::Value* z = k.ptrParam(Scalar::F32, "z");
  ir::Value* i8s = k.ptrParam(Scalar::I8, "i8s");
  ir::Value* fout = k.ptrParam(Scalar::F32, "fout");
  ir::Value* iout = k.ptrParam(Scalar::I8, "iout");
  ir::Value* offs = k.b.range(0, n);
  ir::Value* vx = k.b.load(k.pointers(x, offs));
  ir::Value* vz = k.b.load(k.pointers(z, offs));
  ir::Value* vi = k.b.load(k.pointers(i8s, offs));
  k.b.store(k.at(fout, 0), k.b.reduce(ReduceKind::Max, 0, vx));
  k.b.store(k.at(fout, 1), k.b.reduce(ReduceKind::Min, 0, vx));
  k.b.store(k.at(fout, 2), k.b.reduce(ReduceKind::Add, 0, vz));
  k.b.store(k.at(iout, 0), k.b.reduce(ReduceKind::Add, 0, vi));
  k.b.store(k.at(iout, 1), k.b.reduce(ReduceKind::Max, 0, vi));
  k.b.store(k.at(iout, 2), k.b.reduce(ReduceKind::Min, 0, vi));
  k.b.ret();

  std::vector<float> xs = randomFloats(rng, n);
  xs[rng() % n] = std::nanf("");
  const auto is = randomInts<int8_t>(rng, n, -128, 127);
  interp::Buffer X = makeBuffer("x", xs), Z = makeBuffer("z", std::vector<float>(n, -0.0f)), I = makeBuffer("i8s", is);
  interp::Buffer F = poisoned("fout", Scalar::F32, 3), IO = poisoned("iout", Scalar::I8, 3);
  k.run({1}, {buf(X), buf(Z), buf(I), buf(F), buf(IO)});
  const auto fv = contents<float>(F);
  EXPECT_TRUE(std::isnan(fv[0]));
  EXPECT_TRUE(std::isnan(fv[1]));
  EXPECT_EQ(fv[2], 0.0f);
  EXPECT_TRUE(std::signbit(fv[2])) << "a sum of -0.0s is -0.0";
  uint8_t sum = 0;
  int8_t mx = -128, mn = 127;
  for (int8_t v : is) sum = uint8_t(sum + uint8_t(v)), mx = std::max(mx, v), mn = std::min(mn, v);
  EXPECT_EQ(contents<int8_t>(IO), (std::vector<int8_t>{int8_t(sum), mx, mn}));
}

// Every program adds 1 from 10 of its 16 lanes to one counter: the old
// values come back in program order, then lane order; masked lanes get 0.
TEST(InterpAtomics, CounterAddReturnsOldValuesInOrder) {
  const int64_t lanes = 16, active = 10, programs = 4;
  Kernel k("count");
  ir::Value* counter = k.ptrParam(Scalar::I32, "counter");
  ir::Value* olds = k.ptrParam(Scalar::I32, "olds");
  ir::Value* offs = k.blockOffsets(lanes);
  ir::Value* mask = k.b.cmp(CmpPred::Lt, k.b.range(0, lanes), k.b.splat(k.b.i32(active), {lanes}));
  ir::Value* old = k.b.atomicRmw(AtomicKind::Add, k.b.splat(counter, {lanes}), k.b.splat(k.b.i32(1), {lanes}), mask);
  k.b.store(k.pointers(olds, offs), old);
  k.b.ret();
  interp::Buffer C = makeBuffer<int32_t>("counter", {0}), O = poisoned("olds", Scalar::I32, lanes * programs);
  k.run({programs}, {buf(C), buf(O)});
  EXPECT_EQ(contents<int32_t>(C)[0], active * programs);
  const auto ov = contents<int32_t>(O);
  for (int64_t p = 0; p < programs; ++p)
    for (int64_t j = 0; j < lanes; ++j)
      EXPECT_EQ(ov[size_t(p * lanes + j)], j < active ? p * active + j : 0) << p << "," << j;
}

TEST(InterpAtomics, EveryKind) {
  INTERP_TEST_RNG();
  const AtomicKind kinds[] = {AtomicKind::Add, AtomicKind::Xchg, AtomicKind::Max,
                              AtomicKind::Min, AtomicKind::And,  AtomicKind::Or};
  const int64_t n = 6;
  Kernel k("atomics");
  ir::Value* mem = k.ptrParam(Scalar::I32, "mem");
  ir::Value* vals = k.ptrParam(Scalar::I32, "vals");
  ir::Value* olds = k.ptrParam(Scalar::I32, "olds");
  ir::Value* fmem = k.ptrParam(Scalar::F32, "fmem");
  ir::Value* folds = k.ptrParam(Scalar::F32, "folds");
  for (int64_t i = 0; i < n; ++i)
    k.b.store(k.at(olds, i), k.b.atomicRmw(kinds[i], k.at(mem, i), k.b.load(k.at(vals, i))));
  k.b.store(k.at(folds, 0), k.b.atomicRmw(AtomicKind::Add, k.at(fmem, 0), k.f32(0.1)));
  k.b.store(k.at(folds, 1), k.b.atomicRmw(AtomicKind::Max, k.at(fmem, 1), k.f32(2.5)));
  k.b.store(k.at(folds, 2), k.b.atomicRmw(AtomicKind::Xchg, k.at(fmem, 2), k.f32(-1)));
  k.b.ret();
  const auto m0 = randomInts<int32_t>(rng, n, INT32_MIN, INT32_MAX);
  const auto v0 = randomInts<int32_t>(rng, n, INT32_MIN, INT32_MAX);
  interp::Buffer M = makeBuffer("mem", m0), V = makeBuffer("vals", v0), O = poisoned("olds", Scalar::I32, n);
  interp::Buffer FM = makeBuffer<float>("fmem", {1.0f, 3.0f, 4.0f}), FO = poisoned("folds", Scalar::F32, 3);
  k.run({1}, {buf(M), buf(V), buf(O), buf(FM), buf(FO)});
  EXPECT_EQ(contents<int32_t>(O), m0);
  const std::vector<int32_t> expected = {int32_t(uint32_t(m0[0]) + uint32_t(v0[0])), v0[1], std::max(m0[2], v0[2]),
                                         std::min(m0[3], v0[3]), m0[4] & v0[4], m0[5] | v0[5]};
  EXPECT_EQ(contents<int32_t>(M), expected);
  EXPECT_EQ(contents<float>(FO), (std::vector<float>{1.0f, 3.0f, 4.0f}));
  EXPECT_EQ(contents<float>(FM), (std::vector<float>{1.0f + 0.1f, 3.0f, -1.0f}));
}

// Only the first program finds the lock free; masked-off lanes neither
// compare nor write, and yield 0.
TEST(InterpAtomics, CompareAndSwap) {
  const int64_t programs = 5, lanes = 4;
  Kernel k("cas");
  ir::Value* lock = k.ptrParam(Scalar::I32, "lock");
  ir::Value* olds = k.ptrParam(Scalar::I32, "olds");
  ir::Value* flags = k.ptrParam(Scalar::I32, "flags");
  ir::Value* flagOlds = k.ptrParam(Scalar::I32, "flagOlds");
  ir::Value* me = k.b.binary(Opcode::Add, k.b.programId(0), k.b.i32(1));
  k.b.store(k.b.gep(olds, k.b.programId(0)), k.b.atomicCas(lock, k.b.i32(0), me));
  ir::Value* offs = k.b.range(0, lanes);
  ir::Value* mask = k.b.cmp(CmpPred::Lt, offs, k.b.splat(k.b.i32(2), {lanes}));
  ir::Value* old = k.b.atomicCas(k.pointers(flags, offs), k.b.splat(k.b.i32(0), {lanes}),
                                 k.b.splat(k.b.i32(9), {lanes}), mask);
  k.b.store(k.pointers(flagOlds, offs), old);
  k.b.ret();
  interp::Buffer L = makeBuffer<int32_t>("lock", {0}), O = poisoned("olds", Scalar::I32, programs);
  interp::Buffer F = makeBuffer<int32_t>("flags", {0, 5, 0, 0}), FO = poisoned("flagOlds", Scalar::I32, lanes);
  k.run({programs}, {buf(L), buf(O), buf(F), buf(FO)});
  EXPECT_EQ(contents<int32_t>(L)[0], 1);
  EXPECT_EQ(contents<int32_t>(O), (std::vector<int32_t>{0, 1, 1, 1, 1}));
  // flags[0] swapped by program 0; flags[1] never matched 0; lanes 2, 3 masked.
  EXPECT_EQ(contents<int32_t>(F), (std::vector<int32_t>{9, 5, 0, 0}));
  EXPECT_EQ(contents<int32_t>(FO), (std::vector<int32_t>{9, 5, 0, 0})) << "last program's view";
}

TEST(InterpMemory, StoresRunInLaneOrder) {
  Kernel k("lanes");
  ir::Value* out = k.ptrParam(Scalar::I32, "out");
  k.b.store(k.b.splat(out, {8}), k.b.range(10, 8));  // every lane to out[0]
  k.b.ret();
  interp::Buffer O = poisoned("out", Scalar::I32, 1);
  k.run({1}, {buf(O)});
  EXPECT_EQ(contents<int32_t>(O)[0], 17);
}

TEST(InterpArgs, ScalarsAreConvertedToTheParameterType) {
  Kernel k("args");
  ir::Value* f = k.param(Type::scalar(Scalar::F32), "f");
  ir::Value* i8 = k.param(Type::scalar(Scalar::I8), "i8");
  ir::Value* h = k.param(Type::scalar(Scalar::F16), "h");
  ir::Value* i = k.param(Type::scalar(Scalar::I32), "i");
  ir::Value* fo = k.ptrParam(Scalar::F32, "fo");
  ir::Value* io = k.ptrParam(Scalar::I8, "io");
  ir::Value* ho = k.ptrParam(Scalar::F16, "ho");
  ir::Value* i32o = k.ptrParam(Scalar::I32, "i32o");
  k.b.store(fo, f);
  k.b.store(io, i8);
  k.b.store(ho, h);
  k.b.store(i32o, i);
  k.b.ret();
  interp::Buffer FO = poisoned("fo", Scalar::F32, 1), IO = poisoned("io", Scalar::I8, 1);
  interp::Buffer HO = poisoned("ho", Scalar::F16, 1), I32O = poisoned("i32o", Scalar::I32, 1);
  k.run({1}, {interp::KernelArg::ofFloat(0.1), num(300), num(3), interp::KernelArg::ofFloat(-2.9), buf(FO), buf(IO),
              buf(HO), buf(I32O)});
  EXPECT_EQ(contents<float>(FO)[0], 0.1f);
  EXPECT_EQ(contents<int8_t>(IO)[0], 44);
  EXPECT_EQ(contents<uint16_t>(HO)[0], floatToHalf(3.0f));
  EXPECT_EQ(contents<int32_t>(I32O)[0], -2);
}

// The same buffer passed twice aliases: writes through one pointer are
// visible through the other.
TEST(InterpArgs, OneBufferPassedTwiceAliases) {
  Kernel k("alias");
  ir::Value* a = k.ptrParam(Scalar::I32, "a");
  ir::Value* b = k.ptrParam(Scalar::I32, "b");
  k.b.store(k.at(a, 0), k.b.i32(42));
  k.b.store(k.at(b, 1), k.b.load(k.at(b, 0)));
  k.b.ret();
  interp::Buffer X = poisoned("x", Scalar::I32, 2);
  k.run({1}, {buf(X), buf(X)});
  EXPECT_EQ(contents<int32_t>(X), (std::vector<int32_t>{42, 42}));
}
