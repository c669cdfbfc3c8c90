// CPU kernel images (kernel_image.cpp), the disk cache's form of machine
// code: a kernel linked from its image computes what the compiled one does,
// reports its errors at the same source lines and checks its parameters'
// promises; a truncated or damaged image is refused with an error, never
// linked.
#include <gtest/gtest.h>

#include <random>

#include "unit/cpu_test_helpers.h"

namespace {

using namespace tritonc;
using namespace tritonc::cpu_test;
using ir::Scalar;

const char* kDivide = R"(
__global__ void k(int* a, int* b, int* c, int n __multipleof(4)) {
  int i[64] = get_program_id(0) * 64 + 0 ... 64;
  bool m[64] = i < n;
  @m __debug_assert(*(b + i) != 0, "a divisor of zero");
  @m *(c + i) = *(a + i) / (m ? *(b + i) : 1);
})";

std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(CpuKernelImage, LinkedKernelRunsChecksAndReportsAsCompiled) {
  REQUIRE_CPU();
  FRESH_RNG();
  const int n = 200;
  interp::Buffer a = buffer("a", Scalar::I32, n), b = buffer("b", Scalar::I32, n);
  interp::Buffer c1 = buffer("c", Scalar::I32, n), c2 = buffer("c", Scalar::I32, n);
  fillUniform(a, rng, -1000, 1000);
  fillUniform(b, rng, 1, 50);
  std::vector<interp::KernelArg> args1{buf(a), buf(b), buf(c1), num(n)}, args2{buf(a), buf(b), buf(c2), num(n)};
  Compiled k = compile(kDivide, args1);
  std::unique_ptr<cpu::CpuKernel> compiled = cpu::CpuKernel::compile(*k.fn);
  const std::string image = compiled->image();
  std::unique_ptr<cpu::CpuKernel> linked = cpu::CpuKernel::fromImage(image);
  EXPECT_EQ(linked->name(), "k");
  EXPECT_EQ(linked->frameBytes(), compiled->frameBytes());
  EXPECT_EQ(linked->image(), image);
  const interp::Grid grid{(n + 63) / 64, 1, 1};
  compiled->run(grid, args1);
  linked->run(grid, args2);
  for (int i = 0; i < n; ++i) {
    const int64_t want = int64_t(interp::readElement(a, i)) / int64_t(interp::readElement(b, i));
    ASSERT_EQ(interp::readElement(c2, i), double(want)) << "c[" << i << "]";
  }
  // The same error, at the same line and column, from both.
  interp::writeElement(b, 77, 0);
  const std::string fromCompiled = errorOf([&] { compiled->run(grid, args1); });
  const std::string fromImage = errorOf([&] { linked->run(grid, args2); });
  EXPECT_NE(fromImage.find("a divisor of zero"), std::string::npos) << fromImage;
  EXPECT_NE(fromImage.find("program (1, 0, 0)"), std::string::npos) << fromImage;
  EXPECT_EQ(fromImage, fromCompiled);
  // The parameters' promises are checked as before.
  std::vector<interp::KernelArg> odd{buf(a), buf(b), buf(c2), num(n - 1)};
  EXPECT_NE(errorOf([&] { linked->run(grid, odd); }).find("is declared multipleof("), std::string::npos);
}

TEST(CpuKernelImage, DamagedImagesAreRefused) {
  REQUIRE_CPU();
  FRESH_RNG();
  interp::Buffer a = buffer("a", Scalar::I32, 64);
  std::vector<interp::KernelArg> args{buf(a), buf(a), buf(a), num(64)};
  Compiled k = compile(kDivide, args);
  const std::string image = cpu::CpuKernel::compile(*k.fn)->image();
  // Every truncation of the fields before the object, and some within it.
  std::vector<size_t> cuts;
  for (size_t i = 0; i < 200 && i < image.size(); ++i) cuts.push_back(i);
  for (int i = 0; i < 20; ++i) cuts.push_back(size_t(rng() % image.size()));
  for (size_t cut : cuts)
    EXPECT_THROW(cpu::CpuKernel::fromImage(image.substr(0, cut)), UserError) << "cut at " << cut;
  EXPECT_THROW(cpu::CpuKernel::fromImage(image + "x"), UserError);
  EXPECT_THROW(cpu::CpuKernel::fromImage("20:tritonc-cpu-image 99"), UserError);
  EXPECT_THROW(cpu::CpuKernel::fromImage(""), UserError);
  // Lengths that are not numbers, or point past the end.
  EXPECT_THROW(cpu::CpuKernel::fromImage("x9:tritonc-cpu-image 1"), UserError);
  EXPECT_THROW(cpu::CpuKernel::fromImage("99999999999999999999:x"), UserError);
  // A well-formed image whose object file is not one: refused at link time.
  // The object is the last field: walk the fields to its bytes, scramble them.
  std::string garbage = image;
  size_t at = 0, objectStart = 0, objectLength = 0;
  while (at < garbage.size()) {
    const size_t colon = garbage.find(':', at);
    objectLength = std::stoul(garbage.substr(at, colon - at));
    objectStart = colon + 1;
    at = objectStart + objectLength;
  }
  ASSERT_GT(objectLength, 100u);
  for (size_t i = objectStart; i < objectStart + objectLength; ++i) garbage[i] = char(rng());
  EXPECT_ANY_THROW(cpu::CpuKernel::fromImage(garbage));
}

}  // namespace
