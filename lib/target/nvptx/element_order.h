// The order of a run of element-wise PTX. The lowering of an element-wise
// instruction writes one line (or a few) per element a thread holds, the
// instructions one after the other: a chain of N instructions over a tile
// of E elements per thread keeps E values of every link alive at once, and
// where E is large (a 32K-wide row over 128 threads: 256) ptxas spills
// what its scheduler does not move back together. A run of such
// instructions is emitted instead element by element (element 0 through
// the whole chain, then element 1, ...): each line keyed by the element it
// was written for, lines put out in the order of their keys, as soon as
// the lines they depend on are out (reads after writes, writes after reads
// and writes of the same register), so that the order is always one the
// registers allow. A run whose lines are not all plain instructions (a
// label, a scoped block, memory, a branch) keeps its order, and so does a
// run over fewer than kElementOrderMinElements elements per thread: on the
// H200 (2026-12-02) element order made Liger's JSD (256 elements per
// thread, 9 KB of stack in instruction order) 2.5x faster, and its GeGLU
// and SwiGLU forward kernels (32 elements, no spills either way) 25 % and
// 7 % slower (ptxas schedules those better from instruction order).
#pragma once
#include <string>
#include <vector>

namespace tritonc::nvptx {

struct ElementLine {
  int element;       // the element it was written for; -1: none (as early as allowed)
  std::string text;  // one line of PTX, as emitted (indented, ';'-terminated)
};

constexpr int kElementOrderMinElements = 128;

// `lines` in element order where every line is a plain instruction and
// some line is for element minElements - 1 or above, else as they are.
std::vector<std::string> orderByElement(const std::vector<ElementLine>& lines,
                                        int minElements = kElementOrderMinElements);

}  // namespace tritonc::nvptx
