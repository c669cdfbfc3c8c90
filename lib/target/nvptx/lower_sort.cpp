// PTX lowering of sort (tl.sort), as gpu::sortPlan lays it out: a bitonic
// sort whose compare-and-swap rounds run in registers wherever a thread
// holds both elements of its pairs.
//   1. Every element goes to the scratch as its key (an integer that orders
//      as the element does: floats' bits with the magnitude flipped below
//      zero, IEEE totalOrder; inverted for a descending sort), row-major
//      with the axis last; each thread then reads its chunk of consecutive
//      keys of a row.
//   2. Each thread sorts its chunk in registers (every stage of the network
//      up to the chunk's length; directions alternate between chunks).
//   3. Each merge of a longer length (a loop in the PTX: its code is
//      written once) pairs the thread with the one `m` chunks away, for m
//      halving from half the merged length to 1: within a warp by
//      shuffles, across warps through the scratch; each keeps the lower or
//      upper of its pairs. The merge ends in registers, on the chunk's own
//      halves.
//   4. The chunks go back to the scratch, and each thread reads the
//      elements of its layout from their places.
// A result that keeps the first K (a top-k, SortPlan::partial) sorts each
// chunk, keeps its first K, and halves the lists of a row pairwise instead
// of merging chunks (a loop too): each thread takes its partner's list
// reversed, keeps the elementwise minimum (the first K of both, a bitonic
// sequence) and sorts it in registers; the row's first thread stores it.
// The PTX is O(chunk * log2(chunk)^2) lines, whatever the length: a
// network written out element by element (the Python DSL's before the op)
// made 29k lines at 1024 elements and 123k at 4096.
#include <algorithm>

#include "gpu/scratch.h"
#include "target/nvptx/lowering.h"

namespace tritonc::nvptx {

using ir::Scalar;

void FunctionLowering::lowerSort(const ir::Instruction& sort) {
  const ir::Value* src = sort.operand(0);
  const ir::Type& t = sort.type();
  const Scalar k = src->type().kind;
  const bool indices = sort.opcode() == ir::Opcode::ArgSort;
  if (sort.smem < 0)
    throw UserError(sort.loc, "'sort' moves its keys through shared memory: it needs its scratch there "
                              "({smem = OFFSET}, as gpu-allocate-shared places it)");
  const gpu::SortPlan p = gpu::sortPlan(sort);
  if (p.threads != 32 * int64_t(opts_.numWarps))
    throw InternalError("sort planned for " + std::to_string(p.threads) + " threads in a program of " +
                        std::to_string(32 * opts_.numWarps));
  const bool wide = p.key == Scalar::I64;
  const RegClass kc = wide ? RegClass::B64 : RegClass::B32;
  const std::string bits = wide ? "b64" : "b32", sgn = wide ? "s64" : "s32", uns = wide ? "u64" : "u32";
  const int64_t kb = wide ? 8 : 4;
  const bool descending = ir::SortOrder(sort.sub) == ir::SortOrder::Descending;
  const bool isFloat = ir::isFloatKind(k);
  const size_t axis = size_t(sort.imm);
  const std::string base = sharedAddress(sort.smem);

  // Floats' bits with the magnitude flipped below zero (an involution).
  auto flipNegative = [&](const std::string& key, bool w64) {
    std::string m = newReg(w64 ? RegClass::B64 : RegClass::B32);
    emit(std::string(w64 ? "shr.s64 " : "shr.s32 ") + m + ", " + key + ", " + (w64 ? "63" : "31") + ";");
    emit(std::string(w64 ? "shr.u64 " : "shr.u32 ") + m + ", " + m + ", 1;");
    emit(std::string(w64 ? "xor.b64 " : "xor.b32 ") + key + ", " + key + ", " + m + ";");
  };
  // argsort's keys: the element's (inverted for a descending sort) above
  // its position `at` (so equal elements keep the order of their positions).
  auto toKey = [&](const std::string& v, const std::string& at) {
    const bool packed = indices;
    const RegClass ec = packed || !wide ? RegClass::B32 : RegClass::B64;
    const std::string eb = ec == RegClass::B64 ? "b64" : "b32";
    std::string key = newReg(ec);
    if (k == Scalar::F16 || k == Scalar::BF16) emit("cvt.s32.s16 " + key + ", " + v + ";");
    else emit("mov." + eb + " " + key + ", " + v + ";");  // narrow integers are sign-extended already
    if (isFloat) flipNegative(key, ec == RegClass::B64);
    if (descending) emit("not." + eb + " " + key + ", " + key + ";");
    if (!packed) return key;
    std::string high = newReg(RegClass::B64), low = newReg(RegClass::B64);
    emit("cvt.s64.s32 " + high + ", " + key + ";");
    emit("shl.b64 " + high + ", " + high + ", 32;");
    emit("cvt.u64.u32 " + low + ", " + at + ";");
    emit("or.b64 " + high + ", " + high + ", " + low + ";");
    return high;
  };
  auto fromKey = [&](const std::string& key) {
    if (indices) {
      std::string position = newReg(RegClass::B32);
      emit("cvt.u32.u64 " + position + ", " + key + ";");
      return position;
    }
    if (descending) emit("not." + bits + " " + key + ", " + key + ";");
    if (isFloat) flipNegative(key, wide);
    std::string v = newReg(regClassOf(k));
    if (k == Scalar::F16 || k == Scalar::BF16) emit("cvt.u16.u32 " + v + ", " + key + ";");
    else emit("mov." + bits + " " + v + ", " + key + ";");
    return v;
  };
  // The shared-memory address of the key at byte `byte` (a register) of the unpadded rows.
  auto padded = [&](const std::string& byte) {
    std::string pad = newReg(RegClass::B32), addr = newReg(RegClass::B32);
    emit("shr.u32 " + pad + ", " + byte + ", 7;");
    emit("shl.b32 " + pad + ", " + pad + ", 4;");
    emit("add.s32 " + addr + ", " + byte + ", " + pad + ";");
    emit("add.s32 " + addr + ", " + addr + ", " + base + ";");
    return addr;
  };
  // The address of each element of the tile: row-major over the other
  // dimensions, the axis last.
  std::vector<int64_t> rowStride(t.shape.size(), 0);
  for (int64_t s = 1, d = int64_t(t.shape.size()) - 1; d >= 0; --d) {
    if (size_t(d) == axis) continue;
    rowStride[size_t(d)] = s * p.n;
    s *= t.shape[size_t(d)];
  }
  // (A result shorter along the axis reads the first places of each row.)
  auto elementAddress = [&](const ir::Type& of, size_t r) {
    const std::vector<std::string> at = indexRegs(of, r);
    std::string lin = newReg(RegClass::B32);
    emit("mov.u32 " + lin + ", " + at[axis] + ";");
    for (size_t d = 0; d < t.shape.size(); ++d)
      if (d != axis) emit("mad.lo.u32 " + lin + ", " + at[d] + ", " + std::to_string(rowStride[d]) + ", " + lin + ";");
    emit("shl.b32 " + lin + ", " + lin + ", " + std::to_string(log2Of(kb)) + ";");
    return padded(lin);
  };
  const std::string st = "st.shared." + bits + " [", ld = "ld.shared." + bits + " ";

  // 1. The keys to the scratch (one copy of each element).
  const Placement& sp = placement(src->type());
  for (size_t r = 0; r < sp.ll.numRegs(); ++r) {
    std::string key = toKey(elem(src, r), indices ? indexRegs(src->type(), r)[axis] : "");
    std::string addr = elementAddress(src->type(), r);
    emit((sp.owner.empty() ? "" : "@" + sp.owner + " ") + st + addr + "], " + key + ";");
  }
  barrier();

  // The thread's place: `mine` (a thread beyond the active ones repeats
  // the one whose number it has in its low bits, and stores nothing).
  std::string mine = tid(), storing;
  if (p.active < p.threads) {
    mine = newReg(RegClass::B32);
    emit("and.b32 " + mine + ", " + tid() + ", " + std::to_string(p.active - 1) + ";");
    storing = newReg(RegClass::Pred);
    emit("setp.lt.u32 " + storing + ", " + tid() + ", " + std::to_string(p.active) + ";");
  }
  // Vectors of up to 16 bytes along a chunk (or the first keys of one); a
  // chunk of 128 bytes or more starts a padded line, a shorter one lies
  // inside one.
  auto chunkAccess = [&](const std::string& chunkBase, const std::vector<std::string>& keys, bool store,
                         const std::string& pred) {
    const int64_t per = std::min<int64_t>(int64_t(keys.size()), 16 / kb);
    for (int64_t v = 0; v < int64_t(keys.size()); v += per) {
      std::vector<std::string> part(keys.begin() + v, keys.begin() + v + per);
      std::string at = "[" + chunkBase + "+" + std::to_string(gpu::sortPadded(v * kb)) + "]";
      std::string vec = per == 1 ? "" : ".v" + std::to_string(per);
      if (store) emit((pred.empty() ? "" : "@" + pred + " ") + "st.shared" + vec + "." + bits + " " + at + ", " +
                      (per == 1 ? part[0] : braces(part)) + ";");
      else emit("ld.shared" + vec + "." + bits + " " + (per == 1 ? part[0] : braces(part)) + ", " + at + ";");
    }
  };
  auto chunkBaseOf = [&](const std::string& thread, int64_t c) {
    std::string byte = newReg(RegClass::B32);
    emit("mad.lo.u32 " + byte + ", " + thread + ", " + std::to_string(p.chunks * p.chunk * kb) + ", " +
         std::to_string(c * p.chunk * kb) + ";");
    return padded(byte);
  };
  std::vector<std::string> chunkBase(size_t(p.chunks));
  std::vector<std::vector<std::string>> keys(size_t(p.chunks));
  for (int64_t c = 0; c < p.chunks; ++c) {
    chunkBase[size_t(c)] = chunkBaseOf(mine, c);
    for (int64_t j = 0; j < p.chunk; ++j) keys[size_t(c)].push_back(newReg(kc));
    chunkAccess(chunkBase[size_t(c)], keys[size_t(c)], false, "");
  }

  // other[j] = the key in register j (k - 1 - j where `reversed`) of the
  // thread `m` places away in its row: by shuffles within a warp, through
  // the chunks' places in the scratch across warps (m >= 32, possible where
  // `acrossWarps`).
  auto fromPartner = [&](const std::vector<std::string>& ks, const std::vector<std::string>& other,
                         const std::string& m, bool reversed, bool acrossWarps) {
    const size_t k = ks.size();
    const std::string throughShared = newLabel("sort_shared"), done = newLabel("sort_partner");
    if (acrossWarps) {
      std::string far = newReg(RegClass::Pred);
      emit("setp.ge.u32 " + far + ", " + m + ", 32;");
      emit("@" + far + " bra " + throughShared + ";");
    }
    for (size_t j = 0; j < k; ++j) {
      const std::string& mineAt = ks[reversed ? k - 1 - j : j];
      if (wide) {
        std::string lo = newReg(RegClass::B32), hi = newReg(RegClass::B32);
        emit("mov.b64 {" + lo + ", " + hi + "}, " + mineAt + ";");
        emit("shfl.sync.bfly.b32 " + lo + ", " + lo + ", " + m + ", 31, -1;");
        emit("shfl.sync.bfly.b32 " + hi + ", " + hi + ", " + m + ", 31, -1;");
        emit("mov.b64 " + other[j] + ", {" + lo + ", " + hi + "};");
      } else {
        emit("shfl.sync.bfly.b32 " + other[j] + ", " + mineAt + ", " + m + ", 31, -1;");
      }
    }
    if (!acrossWarps) return;
    emit("bra.uni " + done + ";");
    label(throughShared);
    barrier();  // every read of the chunks' places before is done
    chunkAccess(chunkBase[0], ks, true, storing);
    barrier();
    std::string partner = newReg(RegClass::B32);
    emit("xor.b32 " + partner + ", " + mine + ", " + m + ";");
    chunkAccess(chunkBaseOf(partner, 0), reversed ? std::vector<std::string>(other.rbegin(), other.rend()) : other,
                false, "");
    label(done);
  };

  // Compare and swap in place: lo gets the smaller key where `asc` holds
  // (a predicate register, or "" for always, "!" for never).
  auto exchange = [&](const std::string& lo, const std::string& hi, const std::string& asc) {
    std::string mn = newReg(kc), mx = newReg(kc);
    emit("min." + sgn + " " + mn + ", " + lo + ", " + hi + ";");
    emit("max." + sgn + " " + mx + ", " + lo + ", " + hi + ";");
    if (asc.empty() || asc == "!") {
      bool up = asc.empty();
      emit("mov." + bits + " " + lo + ", " + (up ? mn : mx) + ";");
      emit("mov." + bits + " " + hi + ", " + (up ? mx : mn) + ";");
    } else {
      emit("selp." + bits + " " + lo + ", " + mn + ", " + mx + ", " + asc + ";");
      emit("selp." + bits + " " + hi + ", " + mx + ", " + mn + ", " + asc + ";");
    }
  };
  // The stages of one merge of length `size` that stay in a chunk (strides below it).
  auto inChunk = [&](std::vector<std::string>& ks, int64_t size, int64_t fromStride, const std::string& asc) {
    for (int64_t s = fromStride; s >= 1; s /= 2)
      for (int64_t j = 0; j < int64_t(ks.size()); ++j)
        if ((j & s) == 0) exchange(ks[size_t(j)], ks[size_t(j + s)], size < p.chunk ? ((j & size) ? "!" : "") : asc);
  };

  // 2. Each chunk sorted in registers. At its own length the direction is
  // the chunk's (every other chunk of a row descends).
  std::string part, chunkAsc;
  if (p.perRow > 1) {
    part = newReg(RegClass::B32);
    emit("and.b32 " + part + ", " + mine + ", " + std::to_string(p.perRow - 1) + ";");
    std::string low = newReg(RegClass::B32);
    chunkAsc = newReg(RegClass::Pred);
    emit("and.b32 " + low + ", " + part + ", 1;");
    emit("setp.eq.u32 " + chunkAsc + ", " + low + ", 0;");
  }
  // A bitonic sequence of keys sorted ascending.
  auto sortBitonic = [&](std::vector<std::string>& ks) {
    for (int64_t s = int64_t(ks.size()) / 2; s >= 1; s /= 2)
      for (int64_t j = 0; j < int64_t(ks.size()); ++j)
        if ((j & s) == 0) exchange(ks[size_t(j)], ks[size_t(j + s)], "");
  };
  if (!p.partial) {
    for (int64_t size = 2; size <= p.chunk; size *= 2)
      for (auto& ks : keys) inChunk(ks, size, size / 2, chunkAsc);
  } else {
    // A top-k's chunk: runs of K sorted ascending, then halved pairwise to
    // its first K (the first K of two runs: the minimum of one and the
    // other reversed, a bitonic sequence, sorted).
    const int64_t k = p.keep;
    for (auto& ks : keys) {
      for (int64_t size = 2; size <= k; size *= 2)
        for (int64_t s = size / 2; s >= 1; s /= 2)
          for (int64_t j = 0; j < int64_t(ks.size()); ++j)
            if ((j & s) == 0) exchange(ks[size_t(j)], ks[size_t(j + s)], size < k && (j & size) ? "!" : "");
      while (int64_t(ks.size()) > k) {
        std::vector<std::string> halved;
        for (int64_t r = 0; r < int64_t(ks.size()); r += 2 * k) {
          std::vector<std::string> run(ks.begin() + r, ks.begin() + r + k);
          for (int64_t j = 0; j < k; ++j)
            emit("min." + sgn + " " + run[size_t(j)] + ", " + run[size_t(j)] + ", " + ks[size_t(r + 2 * k - 1 - j)] + ";");
          sortBitonic(run);
          halved.insert(halved.end(), run.begin(), run.end());
        }
        ks = halved;
      }
    }
  }

  // 3, for a top-k: the lists of a row halved pairwise (one chunk per thread here).
  if (p.partial && p.perRow > 1) {
    std::vector<std::string>& ks = keys[0];
    const int64_t k = p.keep;
    std::string m = newReg(RegClass::B32), more = newReg(RegClass::Pred);
    std::vector<std::string> other;
    for (int64_t j = 0; j < k; ++j) other.push_back(newReg(kc));
    const std::string pairLoop = newLabel("topk_pair");
    emit("mov.u32 " + m + ", 1;");
    label(pairLoop);
    fromPartner(ks, other, m, /*reversed=*/true, p.perRow > 32);
    for (int64_t j = 0; j < k; ++j) emit("min." + sgn + " " + ks[size_t(j)] + ", " + ks[size_t(j)] + ", " + other[size_t(j)] + ";");
    sortBitonic(ks);
    emit("shl.b32 " + m + ", " + m + ", 1;");
    emit("setp.lt.u32 " + more + ", " + m + ", " + std::to_string(p.perRow) + ";");
    emit("@" + more + " bra " + pairLoop + ";");
  }

  // 3. The merges across threads (one chunk per thread here).
  if (!p.partial && p.perRow > 1) {
    std::vector<std::string>& ks = keys[0];
    std::string span = newReg(RegClass::B32), m = newReg(RegClass::B32), more = newReg(RegClass::Pred);
    std::vector<std::string> other;
    for (int64_t j = 0; j < p.chunk; ++j) other.push_back(newReg(kc));
    const std::string mergeLoop = newLabel("sort_merge"), strideLoop = newLabel("sort_stride");
    emit("mov.u32 " + span + ", 2;");  // the merged length in chunks
    label(mergeLoop);
    emit("shr.u32 " + m + ", " + span + ", 1;");
    label(strideLoop);
    fromPartner(ks, other, m, /*reversed=*/false, p.perRow > 32);
    // The lower of the pair keeps the smaller keys where the merged block
    // ascends: `upper` (m's bit of the place) against `descends` (span's).
    std::string a = newReg(RegClass::B32), b = newReg(RegClass::B32), upper = newReg(RegClass::Pred),
                descends = newReg(RegClass::Pred), keepMax = newReg(RegClass::Pred);
    emit("and.b32 " + a + ", " + part + ", " + m + ";");
    emit("and.b32 " + b + ", " + part + ", " + span + ";");
    emit("setp.ne.u32 " + upper + ", " + a + ", 0;");
    emit("setp.ne.u32 " + descends + ", " + b + ", 0;");
    emit("xor.pred " + keepMax + ", " + upper + ", " + descends + ";");
    for (int64_t j = 0; j < p.chunk; ++j) {
      std::string mn = newReg(kc), mx = newReg(kc);
      emit("min." + sgn + " " + mn + ", " + ks[size_t(j)] + ", " + other[size_t(j)] + ";");
      emit("max." + sgn + " " + mx + ", " + ks[size_t(j)] + ", " + other[size_t(j)] + ";");
      emit("selp." + bits + " " + ks[size_t(j)] + ", " + mx + ", " + mn + ", " + keepMax + ";");
    }
    emit("shr.u32 " + m + ", " + m + ", 1;");
    emit("setp.ne.u32 " + more + ", " + m + ", 0;");
    emit("@" + more + " bra " + strideLoop + ";");
    // The rest of the merge inside the chunk, in the block's direction.
    std::string asc = newReg(RegClass::Pred);
    emit("setp.eq.u32 " + asc + ", " + b + ", 0;");
    inChunk(ks, 2 * p.chunk, p.chunk / 2, asc);
    emit("shl.b32 " + span + ", " + span + ", 1;");
    emit("setp.le.u32 " + more + ", " + span + ", " + std::to_string(p.perRow) + ";");
    emit("@" + more + " bra " + mergeLoop + ";");
  }

  // 4. Back to the scratch (a top-k's list from the first thread of its
  // row, at the row's first places), then each element from its place.
  barrier();
  std::string storer = storing;
  if (p.partial && p.perRow > 1) {
    std::string first = newReg(RegClass::Pred);
    emit("setp.eq.u32 " + first + ", " + part + ", 0;");
    if (!storing.empty()) emit("and.pred " + first + ", " + first + ", " + storing + ";");
    storer = first;
  }
  for (int64_t c = 0; c < p.chunks; ++c) chunkAccess(chunkBase[size_t(c)], keys[size_t(c)], true, storer);
  barrier();
  std::vector<std::string> out(numRegs(t));
  for (size_t r = 0; r < out.size(); ++r) {
    std::string key = newReg(kc);
    emit(ld + key + ", [" + elementAddress(t, r) + "];");
    out[r] = fromKey(key);
  }
  define(&sort, out);
}

}  // namespace tritonc::nvptx
