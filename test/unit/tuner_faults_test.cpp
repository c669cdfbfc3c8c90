// The tuner's answers to faulting kernels (issue 15), without a GPU: device
// copies sized like PyTorch's caching allocator's segments
// (target/nvptx/allocation_slack.h), which CUDA errors are fatal to the
// context, and the one report of a fault with its interpreter command line
// (runtime/fault_report.h).
#include <gtest/gtest.h>

#include <random>

#include "runtime/fault_report.h"
#include "target/nvptx/allocation_slack.h"
#include "target/nvptx/cuda_driver.h"

using namespace tritonc;

namespace {

constexpr size_t kMiB = size_t(1) << 20;

TEST(AllocationSlack, SegmentsAsPyTorchAllocatesThem) {
  // Up to 1 MiB: a 2 MiB segment; under 10 MiB: 20 MiB; then multiples of 2 MiB.
  EXPECT_EQ(nvptx::allocationWithSlack(0), 2 * kMiB);
  EXPECT_EQ(nvptx::allocationWithSlack(1), 2 * kMiB);
  EXPECT_EQ(nvptx::allocationWithSlack(4000), 2 * kMiB);
  EXPECT_EQ(nvptx::allocationWithSlack(kMiB), 2 * kMiB);
  EXPECT_EQ(nvptx::allocationWithSlack(kMiB + 1), 20 * kMiB);
  EXPECT_EQ(nvptx::allocationWithSlack(10 * kMiB - 1), 20 * kMiB);
  EXPECT_EQ(nvptx::allocationWithSlack(10 * kMiB), 10 * kMiB);
  EXPECT_EQ(nvptx::allocationWithSlack(10 * kMiB + 1), 12 * kMiB);
  // The B: 1760 x 7000 halves, 24.6 MB, gets 26 MiB (read past by up to TN - 1 elements).
  EXPECT_EQ(nvptx::allocationWithSlack(size_t(1760) * 7000 * 2), 24 * kMiB);
  EXPECT_EQ(nvptx::allocationWithSlack(size_t(7000) * 1760 * 2 + 1), 24 * kMiB);
  EXPECT_EQ(nvptx::allocationWithSlack(24 * kMiB + 1), 26 * kMiB);
  EXPECT_EQ(nvptx::allocationWithSlack(SIZE_MAX - 5), SIZE_MAX - 5);  // no wrap-around
  std::mt19937_64 rng(std::random_device{}());
  for (int i = 0; i < 10000; ++i) {
    size_t bytes = size_t(rng() % (size_t(1) << (rng() % 36)));
    size_t got = nvptx::allocationWithSlack(bytes);
    ASSERT_GE(got, bytes);
    ASSERT_GE(got, 2 * kMiB) << bytes;
    ASSERT_EQ(got % (2 * kMiB), 0u) << bytes;
    if (bytes >= 10 * kMiB) {
      ASSERT_LT(got - bytes, 2 * kMiB) << bytes;
    }
  }
}

TEST(GpuFaults, ContextFatalErrorsAreTheStickyOnes) {
  for (int fatal : {700, 702, 710, 714, 715, 716, 717, 718, 719}) EXPECT_TRUE(nvptx::isContextFatal(fatal)) << fatal;
  // Out of memory, bad arguments, too many resources: the context survives.
  for (int other : {0, 1, 2, 200, 201, 209, 218, 300, 400, 701, 999}) EXPECT_FALSE(nvptx::isContextFatal(other)) << other;
}

runtime::Config matmulConfig() {
  runtime::Config c;
  c.values = {{"TM", "128"}, {"TN", "128"}};
  c.fixed = {{"TYPE", "half"}, {"TK", "32"}};
  c.numWarps = 8;
  c.numStages = 4;
  return c;
}

TEST(GpuFaults, TheInterpreterCommandRepeatsTheLaunch) {
  std::vector<runtime::Param> params = {{"A", ir::Type::pointer(ir::Scalar::F16)},
                                        {"B", ir::Type::pointer(ir::Scalar::F16)},
                                        {"flags", ir::Type::pointer(ir::Scalar::I1)},
                                        {"M", ir::Type::scalar(ir::Scalar::I32)},
                                        {"scale", ir::Type::scalar(ir::Scalar::F32)}};
  interp::Buffer a;
  a.elem = ir::Scalar::F16;
  a.data.resize(1760 * 1760 * 2);
  std::vector<interp::KernelArg> args = {
      interp::KernelArg::ofBuffer(&a), interp::KernelArg::ofDevicePtr(0x7f0000000000, 1760 * 7000 * 2),
      interp::KernelArg::ofDevicePtr(0x7f0000100000, 0), interp::KernelArg::ofInt(1760),
      interp::KernelArg::ofFloat(0.5)};
  std::string cmd = runtime::interpreterCommand(std::string(TRITONC_SOURCE_DIR) + "/examples/matmul.tc", "dot",
                                                matmulConfig(), params, args, interp::Grid{14, 55, 1});
  EXPECT_EQ(cmd, "tritonc run " + std::string(TRITONC_SOURCE_DIR) +
                     "/examples/matmul.tc -DTYPE=half -DTK=32 -DTM=128 -DTN=128 --num-warps 8 --num-stages 4 "
                     "--kernel dot --backend interp --grid 14,55,1 --arg A=rand:f16:3097600 --arg "
                     "B=rand:f16:12320000 --arg flags=rand:bool:ELEMENTS --arg M=1760 --arg scale=0.5");
  // A source that is not a file (Python's "<python>") stands as KERNEL.tc;
  // words the shell would split or expand are quoted.
  runtime::Config odd;
  odd.fixed = {{"EXPR", "(a + b) * 2"}};
  std::string q = runtime::interpreterCommand("<python>", "k", odd, {}, {}, interp::Grid{1, 1, 1});
  EXPECT_EQ(q.rfind("tritonc run KERNEL.tc '-DEXPR=(a + b) * 2' --num-warps 4", 0), 0u) << q;
}

TEST(GpuFaults, TheReportSaysWhatHappenedOnce) {
  std::string r = runtime::gpuFaultReport("dot", matmulConfig(),
                                          "running failed for kernel 'dot': CUDA_ERROR_ILLEGAL_ADDRESS: an illegal "
                                          "memory access was encountered",
                                          "tritonc run matmul.tc --backend interp", /*whileTuning=*/true);
  EXPECT_EQ(r.rfind("kernel 'dot' faulted on the GPU in configuration TM=128 TN=128 num_warps=8 num_stages=4 while "
                    "tuning: running failed for kernel 'dot': CUDA_ERROR_ILLEGAL_ADDRESS",
                    0),
            0u)
      << r;
  EXPECT_NE(r.find("restart"), std::string::npos) << r;
  EXPECT_NE(r.find("PyTorch's caching allocator"), std::string::npos) << r;
  EXPECT_NE(r.find("\n  tritonc run matmul.tc --backend interp"), std::string::npos) << r;
  EXPECT_EQ(r.find("CUDA_ERROR", r.find("CUDA_ERROR") + 1), std::string::npos) << "the error is said twice: " << r;
  std::string launch = runtime::gpuFaultReport("dot", matmulConfig(), "CUDA_ERROR_MISALIGNED_ADDRESS", "cmd", false);
  EXPECT_EQ(launch.find("while tuning"), std::string::npos) << launch;
  EXPECT_EQ(launch.find("allocator"), std::string::npos) << launch;
}

// A failed device assertion (CUDA_ERROR_ASSERT) is said to be one, not an access out of bounds.
TEST(GpuFaults, TheReportNamesAFailedAssertion) {
  std::string r = runtime::gpuFaultReport(
      "dot", matmulConfig(), "launching failed for kernel 'dot': CUDA_ERROR_ASSERT: device-side assert triggered",
      "tritonc run matmul.tc --backend interp", /*whileTuning=*/false);
  EXPECT_NE(r.find("\nA device assertion failed: the kernel printed which one, for which program and element, on "
                   "stdout. The process's CUDA context is lost"),
            std::string::npos)
      << r;
  EXPECT_EQ(r.find("out of bounds"), std::string::npos) << r;
  EXPECT_NE(r.find("reports a failed assertion at its line"), std::string::npos) << r;
  EXPECT_NE(r.find("\n  tritonc run matmul.tc --backend interp"), std::string::npos) << r;
}

}  // namespace
