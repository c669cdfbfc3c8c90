#include "ir/layout.h"

namespace tritonc::ir {

namespace {

template <typename T>
std::string list(const std::vector<T>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

bool powerOfTwo(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

bool isPermutation(const std::vector<int>& order, size_t rank) {
  if (order.size() != rank) return false;
  std::vector<bool> seen(rank, false);
  for (int d : order) {
    if (d < 0 || size_t(d) >= rank || seen[size_t(d)]) return false;
    seen[size_t(d)] = true;
  }
  return true;
}

}  // namespace

const char* layoutKindName(LayoutKind k) {
  switch (k) {
    case LayoutKind::Blocked: return "blocked";
    case LayoutKind::Slice: return "slice";
    case LayoutKind::Mma: return "mma";
    case LayoutKind::DotOperand: return "dot_operand";
    case LayoutKind::Shared: return "shared";
  }
  return "?";
}

const char* Layout::stem() const { return kind == LayoutKind::DotOperand ? "dot" : layoutKindName(kind); }

std::string Layout::body(const std::string& parentName) const {
  std::string s = std::string(layoutKindName(kind)) + "<";
  switch (kind) {
    case LayoutKind::Blocked:
      s += "spt=" + list(sizePerThread) + ", tpw=" + list(threadsPerWarp) + ", wpc=" + list(warpsPerCta) +
           ", order=" + list(order);
      break;
    case LayoutKind::Slice: s += "dim=" + std::to_string(dim) + ", parent=" + parentName; break;
    case LayoutKind::Mma:
      s += "v=" + std::to_string(version) + ", wpc=" + list(warpsPerCta);
      if (transposed) s += ", transposed=1";
      break;
    case LayoutKind::DotOperand: s += "op=" + std::to_string(opIdx) + ", parent=" + parentName; break;
    case LayoutKind::Shared:
      s += "order=" + list(order);
      if (pad) s += ", pad=" + std::to_string(pad);
      if (swizzle) s += ", swizzle=" + std::to_string(swizzle);
      break;
  }
  return s + ">";
}

std::string Layout::key() const { return body(parent ? "#" + parent->key() : "?"); }

std::string Layout::check() const {
  auto allPow2 = [](const std::vector<int64_t>& v) {
    for (int64_t x : v)
      if (!powerOfTwo(x)) return false;
    return true;
  };
  switch (kind) {
    case LayoutKind::Blocked: {
      size_t r = sizePerThread.size();
      if (r == 0 || threadsPerWarp.size() != r || warpsPerCta.size() != r)
        return "spt, tpw and wpc must have one entry per dimension";
      if (!isPermutation(order, r)) return "order must list each dimension once";
      if (!allPow2(sizePerThread) || !allPow2(threadsPerWarp) || !allPow2(warpsPerCta))
        return "spt, tpw and wpc must be powers of two";
      int64_t lanes = 1;
      for (int64_t t : threadsPerWarp) lanes *= t;
      if (lanes != 32) return "tpw must multiply to 32 (the threads of a warp)";
      return "";
    }
    case LayoutKind::Slice: {
      if (!parent || !parent->isDistributed()) return "a slice needs a distributed parent";
      // The parent's rank: blocked its entries, mma and dot_operand 2, a slice one less than its own.
      size_t rank = 2;
      int sliced = 0;
      for (const Layout* p = parent; p && p->kind == LayoutKind::Slice; p = p->parent) ++sliced;
      const Layout* root = parent;
      while (root && root->kind == LayoutKind::Slice) root = root->parent;
      if (root && root->kind == LayoutKind::Blocked) rank = root->sizePerThread.size();
      int64_t parentRank = int64_t(rank) - sliced;
      if (dim < 0 || dim >= parentRank)
        return "slice dim " + std::to_string(dim) + " is not a dimension of its parent (rank " +
               std::to_string(parentRank) + ")";
      return "";
    }
    case LayoutKind::Mma:
      if (version != 2 && version != 3) return "mma version must be 2 (mma.sync) or 3 (wgmma)";
      if (warpsPerCta.size() != 2 || !allPow2(warpsPerCta)) return "mma wpc must be two powers of two";
      if (version == 3 && warpsPerCta[0] % 4 != 0)
        return transposed ? "a transposed wgmma needs a multiple of 4 warps along N"
                          : "wgmma needs a multiple of 4 warps along M";
      if (transposed && version != 3) return "only wgmma (v=3) accumulators are transposed";
      return "";
    case LayoutKind::DotOperand:
      if (!parent || parent->kind != LayoutKind::Mma) return "a dot_operand needs an mma parent";
      if (opIdx != 0 && opIdx != 1) return "dot_operand op must be 0 (A) or 1 (B)";
      return "";
    case LayoutKind::Shared:
      if (order.empty() || !isPermutation(order, order.size())) return "order must list each dimension once";
      if (pad < 0) return "pad must not be negative";
      if (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128) return "swizzle must be 32, 64 or 128";
      if (swizzle && pad) return "a layout is padded or swizzled, not both";
      return "";
  }
  return "unknown layout kind";
}

}  // namespace tritonc::ir
