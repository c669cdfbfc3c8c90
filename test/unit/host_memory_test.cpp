// Host memory bound to a launch (runtime/host_memory.h): overlapping
// arguments share one buffer at their offsets, empty ones split nothing, and
// only changed bytes inside arguments go back (read-only ones refused).
#include "runtime/host_memory.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "support/diagnostic.h"

namespace tritonc::runtime {
namespace {

HostRange rangeOf(float* p, size_t elements, const std::string& name, bool readOnly = false) {
  HostRange r;
  r.address = reinterpret_cast<uint64_t>(p);
  r.bytes = elements * sizeof(float);
  r.elem = ir::Scalar::F32;
  r.name = name;
  r.who = "argument '" + name + "'";
  r.readOnly = readOnly;
  return r;
}

float* at(const interp::KernelArg& a, size_t i) {
  return reinterpret_cast<float*>(a.buffer->data.data() + a.offset) + i;
}

std::vector<float> randomFloats(size_t n) {
  std::mt19937 rng{std::random_device{}()};
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

TEST(HostMemory, OverlappingRangesShareOneBufferAcrossAnEmptyOneBetween) {
  std::vector<float> mem = randomFloats(32), before = mem;
  HostMemory h;
  // x = mem[0:8], e = mem[2:2] (empty, inside x), y = mem[4:12]; given out of address order.
  std::vector<interp::KernelArg> a = h.bind({rangeOf(&mem[4], 8, "y"), rangeOf(&mem[2], 0, "e"), rangeOf(&mem[0], 8, "x")});
  ASSERT_EQ(a[0].buffer, a[2].buffer);
  EXPECT_NE(a[1].buffer, a[0].buffer);
  EXPECT_EQ(a[2].offset, 0u);
  EXPECT_EQ(a[0].offset, 16u);
  EXPECT_EQ(a[0].bufferBytes(), 32u);  // its own bytes, not to the buffer's end
  *at(a[2], 5) = 42.0f;                // x[5] is y[1]
  EXPECT_EQ(*at(a[0], 1), 42.0f);
  h.copyBack();
  EXPECT_EQ(mem[5], 42.0f);
  for (size_t i = 0; i < mem.size(); ++i)
    if (i != 5) EXPECT_EQ(mem[i], before[i]) << i;
}

TEST(HostMemory, OnlyChangedBytesInsideArgumentsGoBack) {
  std::vector<float> mem = randomFloats(16);
  HostMemory h;
  std::vector<interp::KernelArg> a = h.bind({rangeOf(&mem[0], 6, "x"), rangeOf(&mem[4], 6, "y")});
  ASSERT_EQ(a[0].buffer, a[1].buffer);
  mem[1] = 7.0f;  // the caller's memory changes meanwhile (another view): an unchanged byte keeps it
  *at(a[1], 5) = 3.0f;
  h.copyBack();
  EXPECT_EQ(mem[9], 3.0f);
  EXPECT_EQ(mem[1], 7.0f);
}

TEST(HostMemory, AStoreIntoAReadOnlyArgumentIsRefusedEvenWhereAWritableOneOverlapsIt) {
  std::vector<float> mem = randomFloats(16);
  HostMemory h;
  std::vector<interp::KernelArg> a = h.bind({rangeOf(&mem[0], 8, "w"), rangeOf(&mem[4], 4, "r", true)});
  *at(a[0], 1) = 5.0f;  // only w's
  *at(a[0], 6) = 6.0f;  // w's and r's
  try {
    h.copyBack();
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("argument 'r' is read-only"), std::string::npos) << e.what();
  }
  EXPECT_EQ(mem[1], 5.0f);
}

TEST(HostMemory, OneArrayTwiceGoesBackWhole) {
  std::vector<float> mem = randomFloats(8);
  HostMemory h;
  std::vector<interp::KernelArg> a = h.bind({rangeOf(mem.data(), 8, "a"), rangeOf(mem.data(), 8, "c")});
  ASSERT_EQ(a[0].buffer, a[1].buffer);
  EXPECT_EQ(a[0].offset, 0u);
  *at(a[1], 7) = 9.0f;
  EXPECT_EQ(*at(a[0], 7), 9.0f);
  h.copyBack();
  EXPECT_EQ(mem[7], 9.0f);
}

}  // namespace
}  // namespace tritonc::runtime
