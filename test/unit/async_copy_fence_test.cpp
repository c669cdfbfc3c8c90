// gpu-insert-barriers' switch for cp.async's bytes read by warpgroup MMAs:
// fenced for the async proxy by default, not with
// TRITONC_FENCE_ASYNC_COPIES=0 (kept to compare: it measured slower);
// stores from registers are fenced either way.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "gpu/passes.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "transform/pass_manager.h"

namespace tritonc {
namespace {

// Both operands of the first dot copied by cp.async; the second dot's B
// stored from registers.
const char* const kKernel = R"(target "sm_90a" num_warps(4)

#blocked0 = blocked<spt=[1, 8], tpw=[8, 4], wpc=[4, 1], order=[1, 0]>
#slice0 = slice<dim=1, parent=#blocked0>
#slice1 = slice<dim=0, parent=#blocked0>
#mma0 = mma<v=3, wpc=[4, 1]>
#shared0 = shared<order=[1, 0], swizzle=128>

kernel @k(%a: f16* aligned(16), %b: f16* aligned(16)) shared(16384) {
entry:
  %r = range 0 : i32<64, #slice0>
  %r2 = reshape %r : i32<64, 1, #blocked0>
  %rows = broadcast %r2 : i32<64, 64, #blocked0>
  %s64 = splat i32 64 : i32<64, 64, #blocked0>
  %off = mul %rows, %s64 : i32<64, 64, #blocked0>
  %q = range 0 : i32<64, #slice1>
  %q2 = reshape %q : i32<1, 64, #blocked0>
  %cols = broadcast %q2 : i32<64, 64, #blocked0>
  %lin = add %off, %cols : i32<64, 64, #blocked0>
  %pa = splat %a : f16*<64, 64, #blocked0>
  %aa = gep %pa, %lin : f16*<64, 64, #blocked0>
  %pb = splat %b : f16*<64, 64, #blocked0>
  %ab = gep %pb, %lin : f16*<64, 64, #blocked0>
  %sa = local_alloc : f16<64, 64, #shared0> {smem = 0}
  %sb = local_alloc : f16<64, 64, #shared0> {smem = 8192}
  async_copy %sa, %aa {vec = 8}
  async_copy %sb, %ab {vec = 8}
  async_commit
  async_wait 0
  %z = splat f32 0 : f32<64, 64, #mma0>
  %d = dot %sa, %sb, %z : f32<64, 64, #mma0>
  %va = load %aa : f16<64, 64, #blocked0> {vec = 8}
  local_store %sb, %va
  %d2 = dot %sa, %sb, %d : f32<64, 64, #mma0>
  ret
}
)";

// The fences and barriers of kKernel after the pass, in order.
std::string fencesAndBarriers(const char* setting) {
  if (setting) setenv("TRITONC_FENCE_ASYNC_COPIES", setting, 1);
  else unsetenv("TRITONC_FENCE_ASYNC_COPIES");
  std::unique_ptr<ir::Module> m = ir::parseModule(kKernel);
  gpu::runInsertBarriers(*m->functions()[0], transform::PipelineOptions{});
  unsetenv("TRITONC_FENCE_ASYNC_COPIES");
  std::string out;
  for (const auto& bb : m->functions()[0]->blocks())
    for (const auto& inst : bb->instructions()) {
      const std::string text = ir::printInstruction(*inst);
      if (text.find("fence_async_shared") != std::string::npos) out += "fence ";
      else if (text.find("barrier") != std::string::npos) out += "barrier ";
      else if (text.find(" = dot ") != std::string::npos) out += "dot ";
    }
  return out;
}

TEST(AsyncCopyFence, CopiedOperandsAreFencedByDefault) {
  EXPECT_EQ(fencesAndBarriers(nullptr), "fence barrier dot barrier fence barrier dot ");
  EXPECT_EQ(fencesAndBarriers("1"), "fence barrier dot barrier fence barrier dot ");
  EXPECT_TRUE(gpu::fenceAsyncCopiesFromEnvironment());
}

TEST(AsyncCopyFence, TheSwitchDropsOnlyTheCopiesFence) {
  EXPECT_EQ(fencesAndBarriers("0"), "barrier dot barrier fence barrier dot ");
  setenv("TRITONC_FENCE_ASYNC_COPIES", "0", 1);
  EXPECT_FALSE(gpu::fenceAsyncCopiesFromEnvironment());
  unsetenv("TRITONC_FENCE_ASYNC_COPIES");
}

}  // namespace
}  // namespace tritonc
