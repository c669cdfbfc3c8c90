// The reference interpreter on kernels built with ir::Builder, against C++
// references: masks, loops with phis, tile shapes, dot, a whole matmul. The
// element semantics (casts, integer edge cases, rounding, atomics) are in
// interp_semantics_test.cpp, the error reports in interp_errors_test.cpp.
#include <chrono>
#include <cmath>
#include <iostream>

#include "interp_helpers.h"
#include "support/float16.h"

using namespace interp_test;
using ir::CmpPred;

namespace {

// acc + a @ b in float, each product and sum rounded to float, in k order.
std::vector<float> referenceDot(const std::vector<float>& a, const std::vector<float>& b, std::vector<float> acc,
                                int64_t M, int64_t N, int64_t K) {
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j)
      for (int64_t k = 0; k < K; ++k) {
        volatile float product = a[size_t(i * K + k)] * b[size_t(k * N + j)];  // no fused multiply-add
        acc[size_t(i * N + j)] = acc[size_t(i * N + j)] + product;
      }
  return acc;
}

// Offsets of a row-major [rows, cols] tile inside a matrix with `stride` columns,
// starting at (rowStart + 0.., colStart + 0..) given as 1-D i32 tiles.
ir::Value* tileOffsets(Kernel& k, ir::Value* rowIdx, ir::Value* colIdx, int64_t stride) {
  const int64_t rows = rowIdx->type().shape[0], cols = colIdx->type().shape[0];
  ir::Value* r = k.b.reshape(rowIdx, {rows, 1});
  r = k.b.binary(Opcode::Mul, r, k.b.splat(k.b.i32(stride), {rows, 1}));
  ir::Value* c = k.b.reshape(colIdx, {1, cols});
  return k.b.binary(Opcode::Add, k.b.broadcast(r, {rows, cols}), k.b.broadcast(c, {rows, cols}));
}

}  // namespace

TEST(Interp, VectorAddWithRaggedMask) {
  INTERP_TEST_RNG();
  const int64_t n = std::uniform_int_distribution<int64_t>(1, 1000)(rng);
  const int64_t block = 64;
  Kernel k("add");
  ir::Value* N = k.intParam("N");
  ir::Value* a = k.ptrParam(Scalar::F32, "a");
  ir::Value* b = k.ptrParam(Scalar::F32, "b");
  ir::Value* c = k.ptrParam(Scalar::F32, "c");
  ir::Value* offs = k.blockOffsets(block);
  ir::Value* mask = k.b.cmp(CmpPred::Lt, offs, k.b.splat(N, {block}));
  ir::Value* zero = k.b.constant(Type::scalar(Scalar::F32).withShape({block}), 0);
  ir::Value* va = k.b.load(k.pointers(a, offs), mask, zero);
  ir::Value* vb = k.b.load(k.pointers(b, offs), mask, zero);
  k.b.store(k.pointers(c, offs), k.b.binary(Opcode::Add, va, vb), mask);
  k.b.ret();

  // Buffers of exactly n elements: lanes past the end must stay masked off.
  interp::Buffer A = makeBuffer("a", randomFloats(rng, size_t(n)));
  interp::Buffer B = makeBuffer("b", randomFloats(rng, size_t(n)));
  interp::Buffer C = poisoned("c", Scalar::F32, size_t(n));
  k.run({(n + block - 1) / block}, {num(n), buf(A), buf(B), buf(C)});
  const auto av = contents<float>(A), bv = contents<float>(B), cv = contents<float>(C);
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(cv[size_t(i)], av[size_t(i)] + bv[size_t(i)]) << "i = " << i;
}

TEST(Interp, MaskedLoadsYieldOther) {
  INTERP_TEST_RNG();
  const int64_t block = 64;
  const int64_t n = std::uniform_int_distribution<int64_t>(1, block - 1)(rng);
  Kernel k("masked");
  ir::Value* N = k.intParam("N");
  ir::Value* a = k.ptrParam(Scalar::F32, "a");
  ir::Value* out = k.ptrParam(Scalar::F32, "out");
  ir::Value* offs = k.b.range(0, block);
  ir::Value* mask = k.b.cmp(CmpPred::Lt, offs, k.b.splat(N, {block}));
  ir::Value* other = k.b.splat(k.f32(-7.5), {block});
  k.b.store(k.pointers(out, offs), k.b.load(k.pointers(a, offs), mask, other));
  k.b.ret();

  interp::Buffer A = makeBuffer("a", randomFloats(rng, size_t(n)));
  interp::Buffer O = poisoned("out", Scalar::F32, size_t(block));
  k.run({1}, {num(n), buf(A), buf(O)});
  const auto av = contents<float>(A), ov = contents<float>(O);
  for (int64_t i = 0; i < block; ++i) EXPECT_EQ(ov[size_t(i)], i < n ? av[size_t(i)] : -7.5f) << i;
}

// sum = 0; for (i = 0; i < n; ++i) sum += x[i];  with i32 wrap-around.
TEST(Interp, LoopWithPhisSums) {
  INTERP_TEST_RNG();
  const int64_t n = std::uniform_int_distribution<int64_t>(0, 500)(rng);
  Kernel k("sum");
  ir::Value* N = k.intParam("n");
  ir::Value* x = k.ptrParam(Scalar::I32, "x");
  ir::Value* out = k.ptrParam(Scalar::I32, "out");
  ir::BasicBlock* entry = k.b.block();
  ir::BasicBlock* header = k.fn->addBlock("header");
  ir::BasicBlock* body = k.fn->addBlock("body");
  ir::BasicBlock* exit = k.fn->addBlock("exit");
  k.b.br(header);
  k.b.setInsertPoint(header);
  const Type i32 = Type::scalar(Scalar::I32);
  ir::Instruction* i = k.b.phi(i32);
  ir::Instruction* acc = k.b.phi(i32);
  k.b.condBr(k.b.cmp(CmpPred::Lt, i, N), body, exit);
  k.b.setInsertPoint(body);
  ir::Value* acc2 = k.b.binary(Opcode::Add, acc, k.b.load(k.b.gep(x, i)));
  ir::Value* i2 = k.b.binary(Opcode::Add, i, k.b.i32(1));
  k.b.br(header);
  for (auto [phi, init, next] : {std::tuple{i, k.b.i32(0), i2}, std::tuple{acc, k.b.i32(0), acc2}}) {
    phi->addOperand(init);
    phi->blocks.push_back(entry);
    phi->addOperand(next);
    phi->blocks.push_back(body);
  }
  k.b.setInsertPoint(exit);
  k.b.store(out, acc);
  k.b.ret();

  auto xs = randomInts<int32_t>(rng, size_t(n), INT32_MIN, INT32_MAX);
  interp::Buffer X = makeBuffer("x", xs);
  interp::Buffer O = poisoned("out", Scalar::I32, 1);
  k.run({1}, {num(n), buf(X), buf(O)});
  uint32_t expected = 0;
  for (int32_t v : xs) expected += uint32_t(v);
  EXPECT_EQ(contents<int32_t>(O)[0], int32_t(expected));
}

// (f0, f1) = (f1, f0 + f1) and (x, y) = (y, x), n times: right only if a
// block's phis are assigned in parallel on each edge.
TEST(Interp, PhisTakeTheirValuesInParallel) {
  INTERP_TEST_RNG();
  // Odd and >= 3, so that the swap ends on a state that sequential phis get wrong.
  const int64_t n = 2 * std::uniform_int_distribution<int64_t>(1, 50)(rng) + 1;
  Kernel k("fib");
  ir::Value* N = k.intParam("n");
  ir::Value* out = k.ptrParam(Scalar::I32, "out");
  ir::BasicBlock* entry = k.b.block();
  ir::BasicBlock* loop = k.fn->addBlock("loop");
  ir::BasicBlock* exit = k.fn->addBlock("exit");
  k.b.condBr(k.b.cmp(CmpPred::Gt, N, k.b.i32(0)), loop, exit);
  k.b.setInsertPoint(loop);
  const Type i32 = Type::scalar(Scalar::I32);
  ir::Instruction* f0 = k.b.phi(i32);
  ir::Instruction* f1 = k.b.phi(i32);
  ir::Instruction* i = k.b.phi(i32);
  ir::Instruction* x = k.b.phi(i32);
  ir::Instruction* y = k.b.phi(i32);
  ir::Value* sum = k.b.binary(Opcode::Add, f0, f1);
  ir::Value* i2 = k.b.binary(Opcode::Add, i, k.b.i32(1));
  k.b.condBr(k.b.cmp(CmpPred::Lt, i2, N), loop, exit);
  // phi = [fromEntry, entry], [fromLoop, loop]
  auto incoming = [&](ir::Instruction* phi, ir::Value* fromEntry, ir::Value* fromLoop) {
    phi->addOperand(fromEntry);
    phi->blocks.push_back(entry);
    phi->addOperand(fromLoop);
    phi->blocks.push_back(loop);
  };
  incoming(f0, k.b.i32(0), f1);
  incoming(f1, k.b.i32(1), sum);
  incoming(i, k.b.i32(0), i2);
  incoming(x, k.b.i32(3), y);
  incoming(y, k.b.i32(5), x);
  k.b.setInsertPoint(exit);
  ir::Instruction* r0 = k.b.phi(i32);
  ir::Instruction* r1 = k.b.phi(i32);
  ir::Instruction* rx = k.b.phi(i32);
  incoming(r0, k.b.i32(0), f1);
  incoming(r1, k.b.i32(1), sum);
  incoming(rx, k.b.i32(5), x);  // the last x seen inside the loop is y's old value
  k.b.store(k.at(out, 0), r0);
  k.b.store(k.at(out, 1), r1);
  k.b.store(k.at(out, 2), rx);
  k.b.ret();

  interp::Buffer O = poisoned("out", Scalar::I32, 3);
  k.run({1}, {num(n), buf(O)});
  uint32_t a = 0, b = 1;
  for (int64_t j = 0; j < n; ++j) {
    uint32_t s = a + b;
    a = b;
    b = s;
  }
  // Inside iteration j (0-based) x is 3 for even j, 5 for odd j; the exit sees x of the last one.
  const int32_t lastX = (n - 1) % 2 == 0 ? 3 : 5;
  EXPECT_EQ(contents<int32_t>(O), (std::vector<int32_t>{int32_t(a), int32_t(b), lastX})) << "n = " << n;
}

// A 2-D tile built from ranges with reshape + broadcast, scaled by a row,
// stored transposed and flattened.
TEST(Interp, TwoDimensionalTileShapes) {
  INTERP_TEST_RNG();
  const int64_t R = 8, C = 16;
  Kernel k("tiles");
  ir::Value* in = k.ptrParam(Scalar::F32, "in");
  ir::Value* scale = k.ptrParam(Scalar::F32, "scale");
  ir::Value* outT = k.ptrParam(Scalar::F32, "outT");
  ir::Value* outFlat = k.ptrParam(Scalar::F32, "outFlat");
  ir::Value* x = k.b.load(k.pointers(in, tileOffsets(k, k.b.range(0, R), k.b.range(0, C), C)));
  ir::Value* row = k.b.reshape(k.b.load(k.pointers(scale, k.b.range(0, C))), {1, C});
  ir::Value* y = k.b.binary(Opcode::Mul, x, k.b.broadcast(row, {R, C}));
  k.b.store(k.pointers(outT, tileOffsets(k, k.b.range(0, C), k.b.range(0, R), R)), k.b.trans(y));
  k.b.store(k.pointers(outFlat, k.b.range(0, R * C)), k.b.reshape(y, {R * C}));
  k.b.ret();

  interp::Buffer In = makeBuffer("in", randomFloats(rng, size_t(R * C)));
  interp::Buffer S = makeBuffer("scale", randomFloats(rng, size_t(C)));
  interp::Buffer OT = poisoned("outT", Scalar::F32, size_t(R * C));
  interp::Buffer OF = poisoned("outFlat", Scalar::F32, size_t(R * C));
  k.run({1}, {buf(In), buf(S), buf(OT), buf(OF)});
  const auto iv = contents<float>(In), sv = contents<float>(S), tv = contents<float>(OT), fv = contents<float>(OF);
  for (int64_t r = 0; r < R; ++r)
    for (int64_t c = 0; c < C; ++c) {
      const float expected = iv[size_t(r * C + c)] * sv[size_t(c)];
      ASSERT_EQ(tv[size_t(c * R + r)], expected) << r << "," << c;
      ASSERT_EQ(fv[size_t(r * C + c)], expected) << r << "," << c;
    }
}

// One dot of [M, K] x [K, N] + acc, for f32, f16 and bf16 inputs (f32 acc).
TEST(Interp, DotMatchesSequentialReference) {
  INTERP_TEST_RNG();
  const int64_t M = 16, N = 32, K = 8;
  for (Scalar in : {Scalar::F32, Scalar::F16, Scalar::BF16}) {
    SCOPED_TRACE(ir::scalarName(in));
    Kernel k("dot");
    ir::Value* a = k.ptrParam(in, "a");
    ir::Value* b = k.ptrParam(in, "b");
    ir::Value* c = k.ptrParam(Scalar::F32, "c");
    ir::Value* out = k.ptrParam(Scalar::F32, "out");
    ir::Value* cOff = tileOffsets(k, k.b.range(0, M), k.b.range(0, N), N);
    ir::Value* va = k.b.load(k.pointers(a, tileOffsets(k, k.b.range(0, M), k.b.range(0, K), K)));
    ir::Value* vb = k.b.load(k.pointers(b, tileOffsets(k, k.b.range(0, K), k.b.range(0, N), N)));
    k.b.store(k.pointers(out, cOff), k.b.dot(va, vb, k.b.load(k.pointers(c, cOff))));
    k.b.ret();

    // Inputs as their own type and as the floats they stand for.
    auto inputs = [&](size_t count, interp::Buffer* buffer, const char* name) {
      std::vector<float> values = randomFloats(rng, count);
      if (in == Scalar::F32) {
        *buffer = makeBuffer(name, values);
        return values;
      }
      std::vector<uint16_t> bits;
      for (float& v : values) {
        bits.push_back(in == Scalar::F16 ? floatToHalf(v) : floatToBf16(v));
        v = in == Scalar::F16 ? halfToFloat(bits.back()) : bf16ToFloat(bits.back());
      }
      *buffer = makeBuffer(name, bits, in);
      return values;
    };
    interp::Buffer A, B;
    const std::vector<float> av = inputs(size_t(M * K), &A, "a"), bv = inputs(size_t(K * N), &B, "b");
    const std::vector<float> cv = randomFloats(rng, size_t(M * N));
    interp::Buffer Cb = makeBuffer("c", cv);
    interp::Buffer O = poisoned("out", Scalar::F32, size_t(M * N));
    k.run({1}, {buf(A), buf(B), buf(Cb), buf(O)});
    EXPECT_EQ(contents<float>(O), referenceDot(av, bv, cv, M, N, K));
  }
}

TEST(Interp, IntegerDotWraps) {
  INTERP_TEST_RNG();
  const int64_t M = 4, N = 8, K = 16;
  Kernel k("idot");
  ir::Value* a = k.ptrParam(Scalar::I32, "a");
  ir::Value* b = k.ptrParam(Scalar::I32, "b");
  ir::Value* out = k.ptrParam(Scalar::I32, "out");
  ir::Value* va = k.b.load(k.pointers(a, tileOffsets(k, k.b.range(0, M), k.b.range(0, K), K)));
  ir::Value* vb = k.b.load(k.pointers(b, tileOffsets(k, k.b.range(0, K), k.b.range(0, N), N)));
  ir::Value* zero = k.b.constant(Type::scalar(Scalar::I32).withShape({M, N}), 0);
  k.b.store(k.pointers(out, tileOffsets(k, k.b.range(0, M), k.b.range(0, N), N)), k.b.dot(va, vb, zero));
  k.b.ret();
  auto av = randomInts<int32_t>(rng, size_t(M * K), INT32_MIN, INT32_MAX);
  auto bv = randomInts<int32_t>(rng, size_t(K * N), INT32_MIN, INT32_MAX);
  interp::Buffer A = makeBuffer("a", av), B = makeBuffer("b", bv), O = poisoned("out", Scalar::I32, size_t(M * N));
  k.run({1}, {buf(A), buf(B), buf(O)});
  const auto ov = contents<int32_t>(O);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      uint32_t r = 0;
      for (int64_t kk = 0; kk < K; ++kk) r += uint32_t(av[size_t(i * K + kk)]) * uint32_t(bv[size_t(kk * N + j)]);
      ASSERT_EQ(ov[size_t(i * N + j)], int32_t(r)) << i << "," << j;
    }
}

// C = A @ B for 256^3 f32 with 32x32 tiles and K steps of 8: the pointers and
// the accumulator are loop-carried phis, as a compiled Triton kernel has them.
TEST(Interp, MatmulKernelIsExactAndFast) {
  INTERP_TEST_RNG();
  const int64_t S = 256, BM = 32, BN = 32, BK = 8;
  Kernel k("matmul");
  ir::Value* a = k.ptrParam(Scalar::F32, "a");
  ir::Value* b = k.ptrParam(Scalar::F32, "b");
  ir::Value* c = k.ptrParam(Scalar::F32, "c");
  ir::Value* rm = k.blockOffsets(BM, 0);
  ir::Value* rn = k.blockOffsets(BN, 1);
  ir::Value* rk = k.b.range(0, BK);
  ir::Value* pa0 = k.pointers(a, tileOffsets(k, rm, rk, S));
  ir::Value* pb0 = k.pointers(b, tileOffsets(k, rk, rn, S));
  ir::Value* acc0 = k.b.constant(Type::scalar(Scalar::F32).withShape({BM, BN}), 0);
  ir::Value* stepA = k.b.splat(k.b.i32(BK), {BM, BK});
  ir::Value* stepB = k.b.splat(k.b.i32(BK * S), {BK, BN});
  ir::BasicBlock* entry = k.b.block();
  ir::BasicBlock* loop = k.fn->addBlock("loop");
  ir::BasicBlock* exit = k.fn->addBlock("exit");
  k.b.br(loop);
  k.b.setInsertPoint(loop);
  ir::Instruction* kk = k.b.phi(Type::scalar(Scalar::I32));
  ir::Instruction* acc = k.b.phi(acc0->type());
  ir::Instruction* pa = k.b.phi(pa0->type());
  ir::Instruction* pb = k.b.phi(pb0->type());
  ir::Value* acc2 = k.b.dot(k.b.load(pa), k.b.load(pb), acc);
  ir::Value* pa2 = k.b.gep(pa, stepA);
  ir::Value* pb2 = k.b.gep(pb, stepB);
  ir::Value* kk2 = k.b.binary(Opcode::Add, kk, k.b.i32(BK));
  k.b.condBr(k.b.cmp(CmpPred::Lt, kk2, k.b.i32(S)), loop, exit);
  for (auto [phi, init, next] : {std::tuple<ir::Instruction*, ir::Value*, ir::Value*>{kk, k.b.i32(0), kk2},
                                 {acc, acc0, acc2}, {pa, pa0, pa2}, {pb, pb0, pb2}}) {
    phi->addOperand(init);
    phi->blocks.push_back(entry);
    phi->addOperand(next);
    phi->blocks.push_back(loop);
  }
  k.b.setInsertPoint(exit);
  k.b.store(k.pointers(c, tileOffsets(k, rm, rn, S)), acc2);
  k.b.ret();

  const std::vector<float> av = randomFloats(rng, size_t(S * S)), bv = randomFloats(rng, size_t(S * S));
  interp::Buffer A = makeBuffer("a", av), B = makeBuffer("b", bv), C = poisoned("c", Scalar::F32, size_t(S * S));
  const auto start = std::chrono::steady_clock::now();
  k.run({S / BM, S / BN}, {buf(A), buf(B), buf(C)});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "[ timing   ] 256x256x256 f32 matmul interpreted in " << seconds * 1000 << " ms\n";
#ifdef NDEBUG
  EXPECT_LT(seconds, 1.0);
#endif
  EXPECT_EQ(contents<float>(C), referenceDot(av, bv, std::vector<float>(size_t(S * S), 0.0f), S, S, S));
}

TEST(Interp, ProgramIdsAndNumPrograms) {
  Kernel k("ids");
  ir::Value* ids = k.ptrParam(Scalar::I32, "ids");
  ir::Value* dims = k.ptrParam(Scalar::I32, "dims");
  auto mul = [&](ir::Value* x, ir::Value* y) { return k.b.binary(Opcode::Mul, x, y); };
  auto add = [&](ir::Value* x, ir::Value* y) { return k.b.binary(Opcode::Add, x, y); };
  ir::Value* p[3] = {k.b.programId(0), k.b.programId(1), k.b.programId(2)};
  ir::Value* np[3] = {k.b.numPrograms(0), k.b.numPrograms(1), k.b.numPrograms(2)};
  ir::Value* linear = add(p[0], mul(np[0], add(p[1], mul(np[1], p[2]))));
  k.b.store(k.b.gep(ids, linear), add(p[0], add(mul(p[1], k.b.i32(10)), mul(p[2], k.b.i32(100)))));
  k.b.store(k.b.gep(dims, linear), add(np[0], add(mul(np[1], k.b.i32(10)), mul(np[2], k.b.i32(100)))));
  k.b.ret();
  interp::Buffer I = poisoned("ids", Scalar::I32, 12), D = poisoned("dims", Scalar::I32, 12);
  k.run({3, 2, 2}, {buf(I), buf(D)});
  std::vector<int32_t> expectIds;
  for (int z = 0; z < 2; ++z)
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 3; ++x) expectIds.push_back(x + 10 * y + 100 * z);
  EXPECT_EQ(contents<int32_t>(I), expectIds);
  EXPECT_EQ(contents<int32_t>(D), std::vector<int32_t>(12, 223));
}
