// Buffers in shared memory (GPU IR types with a shared layout): their sizes,
// alignments and the byte offset of each element, shared by the passes that
// plan shared memory (pipelining, allocation) and the PTX lowering.
//   shared<order=O, pad=P>:     rows along O[0] of (extent + P) elements, the
//                               other dimensions outer, in O's order;
//   shared<order=O, swizzle=B>: (2-D) O[0] cut in blocks of B bytes; each
//                               block holds every row's B bytes (rows B bytes
//                               apart), blocks one after the other; the 16-byte
//                               chunks of a row are permuted by XOR with bits of
//                               the row, as wgmma's descriptors expect:
//                               offset o -> o ^ (((o >> 7) & (B / 16 - 1)) << 4).
// A buffer whose rank is one more than its layout's has a leading dimension
// of stages, each stage aligned (1024 bytes when swizzled: where the
// swizzle pattern restarts; else 16).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace tritonc::gpu {

int64_t sharedAlignment(const ir::Type& t);
// Bytes of one stage (the whole buffer when it has no stages), aligned.
int64_t sharedStageBytes(const ir::Type& t);
int64_t sharedStages(const ir::Type& t);  // 1 without a stage dimension
int64_t sharedBytes(const ir::Type& t);   // all stages
// The byte offset in a stage of the element at `idx` (the stage's dimensions).
int64_t sharedOffset(const ir::Type& t, const std::vector<int64_t>& idx);
// The shape of one stage.
ir::Shape stageShape(const ir::Type& t);
// Whether copies of `vecBytes` bytes of consecutive elements along the
// layout's fastest dimension land contiguously and aligned.
bool sharedVectorFits(const ir::Type& t, int64_t vecBytes);

// The most shared memory one program may use on `arch` (bytes, with the
// opt-in above 48 KB).
int64_t maxSharedBytes(const std::string& arch);

}  // namespace tritonc::gpu
