// Turns `--arg NAME=SPEC` options into interpreter arguments, by parameter name.
// SPEC: `@file.npy` (a buffer), an integer or float literal (a scalar), or
// `zeros:DTYPE:D0xD1...` / `rand:DTYPE:D0xD1...` (a new buffer).
#pragma once
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "runtime/config.h"
#include "target/interp/interpreter.h"

namespace tritonc::cli {

// What binding needs of a kernel: its name and parameters, and the size of
// each `__constant__` table parameter (0: none, or unknown for a .tck file).
struct Signature {
  std::string kernel;
  std::vector<runtime::Param> params;
  std::vector<int64_t> constantTables;
};
Signature signatureOf(const ir::Function& fn);

struct BoundArgs {
  std::vector<std::unique_ptr<interp::Buffer>> buffers;  // owned, by parameter order of creation
  std::vector<interp::KernelArg> args;                   // parameter order
  std::map<std::string, interp::Buffer*> byName;         // pointer parameters
};

// Throws UserError (no location) naming the argument at fault: unknown name,
// missing argument, a buffer for a scalar, a scalar for a pointer, a dtype that
// is not the pointee type, a malformed SPEC.
BoundArgs bindArguments(const Signature& sig, const std::vector<std::pair<std::string, std::string>>& specs,
                        std::mt19937_64& rng);
BoundArgs bindArguments(const ir::Function& fn, const std::vector<std::pair<std::string, std::string>>& specs,
                        std::mt19937_64& rng);

// "f32" etc. to a kind; nullopt if unknown (also accepts "bool").
std::optional<ir::Scalar> dtypeFromName(const std::string& s);

}  // namespace tritonc::cli
