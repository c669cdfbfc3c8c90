// Alignment / contiguity / divisibility analysis of integer and pointer
// values (what Triton calls axis info). For each dimension of a value:
//   contiguity:   values come in runs of this many consecutive integers
//                 (pointers: consecutive elements) along the dimension;
//   divisibility: the largest power of two dividing the first value of every
//                 run (pointers: the byte address); with contiguity 1, every value;
//   constancy:    values come in runs of this many equal values;
//   nonNegative:  every value is >= 0 (ranges from 0, program ids and sums,
//                 products, quotients and remainders of such; integer
//                 overflow, undefined for index arithmetic, is ignored as
//                 Triton does). Truncating division and remainder keep runs
//                 only for non-negative dividends.
// Scalars are described as one dimension of size 1. Facts come from ranges,
// constants, `multiple_of` / `__multipleof`, `max_contiguous`, pointer
// alignment (`aligned`, which the launch will set when it specializes on
// 16-byte alignment) and arithmetic; loop phis and selects take the meet
// over their inputs (iterated to a fixed point; where the meet's runs are
// shorter than an input's, only what divides that input's values at the
// shorter runs' starts counts). The GPU back end derives vector widths
// from it.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace tritonc::analysis {

struct AxisInfo {
  std::vector<int64_t> contiguity, divisibility, constancy;
  bool nonNegative = false;
  bool operator==(const AxisInfo& o) const {
    return contiguity == o.contiguity && divisibility == o.divisibility && constancy == o.constancy &&
           nonNegative == o.nonNegative;
  }
};

// Divisibility is capped here: "divisible by anything we care about" (zero).
constexpr int64_t kMaxDivisibility = int64_t(1) << 30;

class AxisInfoAnalysis {
 public:
  explicit AxisInfoAnalysis(const ir::Function& f);
  // The facts about `v` (constants and arguments included).
  AxisInfo get(const ir::Value* v) const;
  // How many elements a load or store through the pointer tile `ptr` can move
  // per access (of at most `maxBytes`), along its most contiguous dimension
  // (returned in `dim` when given).
  int64_t vectorWidth(const ir::Value* ptr, int64_t maxBytes = 16, size_t* dim = nullptr) const;

 private:
  AxisInfo compute(const ir::Instruction& i) const;
  AxisInfo computeRuns(const ir::Instruction& i) const;  // contiguity, divisibility, constancy
  bool nonNegative(const ir::Instruction& i) const;
  std::map<const ir::Value*, AxisInfo> info_;
};

// The function printed with each integer/pointer instruction annotated by its
// axis info, and loads/stores by their vector width.
std::string printAxisInfo(const ir::Function& f);

}  // namespace tritonc::analysis
