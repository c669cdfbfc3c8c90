#include "gpu/shared_memory.h"

#include "support/diagnostic.h"

namespace tritonc::gpu {

namespace {

int64_t alignUp(int64_t v, int64_t a) { return (v + a - 1) / a * a; }

const ir::Layout& layoutOf(const ir::Type& t) {
  if (!t.isShared()) throw InternalError("not a buffer in shared memory: " + ir::typeToString(t));
  return *t.layout;
}

}  // namespace

ir::Shape stageShape(const ir::Type& t) {
  const ir::Layout& l = layoutOf(t);
  if (t.shape.size() == l.order.size()) return t.shape;
  return ir::Shape(t.shape.begin() + 1, t.shape.end());
}

int64_t sharedStages(const ir::Type& t) {
  const ir::Layout& l = layoutOf(t);
  return t.shape.size() == l.order.size() ? 1 : t.shape[0];
}

int64_t sharedAlignment(const ir::Type& t) { return layoutOf(t).swizzle ? 1024 : 16; }

int64_t sharedStageBytes(const ir::Type& t) {
  const ir::Layout& l = layoutOf(t);
  ir::Shape s = stageShape(t);
  int64_t esize = ir::byteSize(t.kind);
  size_t fast = size_t(l.order[0]);
  int64_t rows = 1;
  for (size_t d = 0; d < s.size(); ++d)
    if (d != fast) rows *= s[d];
  int64_t bytes;
  if (l.swizzle) {
    int64_t blocks = (s[fast] * esize + l.swizzle - 1) / l.swizzle;
    bytes = blocks * rows * l.swizzle;
  } else {
    bytes = rows * (s[fast] + l.pad) * esize;
  }
  return alignUp(bytes, sharedAlignment(t));
}

int64_t sharedBytes(const ir::Type& t) { return sharedStages(t) * sharedStageBytes(t); }

int64_t sharedOffset(const ir::Type& t, const std::vector<int64_t>& idx) {
  const ir::Layout& l = layoutOf(t);
  ir::Shape s = stageShape(t);
  int64_t esize = ir::byteSize(t.kind);
  size_t fast = size_t(l.order[0]);
  if (l.swizzle) {
    size_t outer = size_t(l.order[1]);
    int64_t perBlock = l.swizzle / esize;
    int64_t block = idx[fast] / perBlock;
    int64_t o = idx[outer] * l.swizzle + (idx[fast] % perBlock) * esize;
    o ^= ((o >> 7) & (l.swizzle / 16 - 1)) << 4;
    return block * s[outer] * l.swizzle + o;
  }
  int64_t offset = 0, stride = 1;
  for (size_t k = 0; k < l.order.size(); ++k) {
    size_t d = size_t(l.order[k]);
    offset += idx[d] * stride;
    stride *= s[d] + (k == 0 ? l.pad : 0);
  }
  return offset * esize;
}

bool sharedVectorFits(const ir::Type& t, int64_t vecBytes) {
  const ir::Layout& l = layoutOf(t);
  if (vecBytes > 16 || (vecBytes & (vecBytes - 1))) return false;
  if (l.swizzle) return vecBytes <= 16;  // within one 16-byte chunk
  ir::Shape s = stageShape(t);
  int64_t rowBytes = (s[size_t(l.order[0])] + l.pad) * ir::byteSize(t.kind);
  return rowBytes % vecBytes == 0;
}

int64_t maxSharedBytes(const std::string& arch) {
  if (arch.rfind("sm_90", 0) == 0) return 227 * 1024;
  if (arch == "sm_80" || arch == "sm_87") return 163 * 1024;
  return 99 * 1024;  // sm_86, sm_89
}

}  // namespace tritonc::gpu
