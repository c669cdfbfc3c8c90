// Grids on the command line that depend on the configuration, as the seed's
// `grid = lambda opt: [cdiv(M, opt.d('TM')), ...]`: each dimension is a
// product and ceiling-quotient of integers and names (integer arguments,
// tuning parameters, macros), e.g. `--grid M/TM,N/TN`. `/` rounds up.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "target/interp/interpreter.h"

namespace tritonc::cli {

struct GridSpec {
  std::vector<std::string> dims;  // one expression per dimension (1 to 3)
  std::string text;
};

// Throws UserError (no location) on a malformed grid.
GridSpec parseGridSpec(const std::string& text);
// Evaluates each dimension; `lookup` gives a name's value (nullopt: unknown name, an error).
interp::Grid evaluateGrid(const GridSpec& g, const std::function<std::optional<int64_t>(const std::string&)>& lookup);
// Whether the grid names nothing (plain integers).
bool isConstantGrid(const GridSpec& g);

}  // namespace tritonc::cli
