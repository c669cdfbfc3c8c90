// Launch specialization: what the launch's actual arguments promise about
// alignment, recorded on the kernel's parameters so that the axis analysis
// (and so vectorization) can use it, as Triton does. A pointer whose address
// is a multiple of 16 bytes gets aligned(16); an integer gets multipleof(D)
// for the largest D of 16, 8, 4, 2 that divides it (Triton stops at 16 or
// nothing, which leaves a leading dimension of 7000 f16 unvectorized though
// its rows are 16-byte aligned). The key says which, so that each
// combination compiles once.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ir/ir.h"
#include "runtime/config.h"
#include "target/interp/interpreter.h"

namespace tritonc::runtime {

struct ArgFacts {
  bool isPointer = false;
  uint64_t address = 0;  // pointers
  int64_t value = 0;     // integers
  bool isInt = false;
};

// The key, one letter per parameter ("AAD8N"): A pointer aligned to 16 bytes,
// P other pointer, D integer divisible by 16, 8 / 4 / 2 integer divisible by
// that (and no more of 16), 1 the integer 1 (its uses become the constant),
// N other odd integer, M negative integer, F float.
// Integers that are not negative are also marked `nonneg` (index arithmetic
// from them keeps the runs of divisions and remainders: analysis/axis_info.h).
std::string specializationKey(const ir::Function& fn, const std::vector<ArgFacts>& args);
std::string specializationKey(const std::vector<ArgFacts>& args);

// The largest of 16, 8, 4, 2 that divides `v` (1 when it is odd).
int64_t intDivisor(int64_t v);
// What the specialization reads of an integer: 0 when it is negative, -1
// for 1, else intDivisor(v) (the launch memo compares launches by it).
int64_t intFact(int64_t v);

// Facts of host-side launch arguments: a buffer is passed at its start, which
// every allocator (host or device) aligns to at least 16 bytes. Integers are
// taken as the kernel sees them: wrapped to their parameter's kind
// (`paramKinds`, from parameterKinds(); empty: as given), so that 2^32 - 1
// passed for an i32 is -1, negative, not a value with facts.
std::vector<ArgFacts> factsOf(const std::vector<interp::KernelArg>& args,
                              const std::vector<ir::Scalar>& paramKinds = {});
// The facts of a launch described by name (`tritonc emit --arg`, compile
// reports): every pointer 16-byte aligned, the named integers with their
// values (wrapped as the kernel sees them), the others unknown. Throws
// UserError for a name that is not an integer parameter of `fn`.
std::vector<ArgFacts> factsOfNamedIntegers(const ir::Function& fn,
                                           const std::vector<std::pair<std::string, int64_t>>& ints);
std::vector<ArgFacts> factsOfNamedIntegers(const std::string& kernel, const std::vector<Param>& params,
                                           const std::vector<std::pair<std::string, int64_t>>& ints);
// Facts that promise nothing: pointers of any alignment, integers of any
// value (key letters P and F): code for them runs every launch.
std::vector<ArgFacts> genericFacts(const std::vector<Param>& params);
// Per parameter: its integer kind, or ir::Scalar::F32 for the others (no wrapping).
std::vector<ir::Scalar> parameterKinds(const ir::Function& fn);
std::vector<ir::Scalar> parameterKinds(const std::vector<Param>& params);
// `v` as a parameter of kind `k` holds it (integers wrap; others unchanged).
int64_t asParameter(int64_t v, const std::vector<ir::Scalar>& paramKinds, size_t index);

// Adds the facts to the parameters of `fn` (never weakens what the source said).
void applySpecialization(ir::Function& fn, const std::vector<ArgFacts>& args);

// Whether a launch with key `launch` may run code compiled for key
// `assumed` (of the same kernel): every fact `assumed` promises holds for
// the launch (an aligned pointer for A, a non-negative integer divisible by
// 16 for D, or by 8, 4 or 2, one that is not negative for N, the integer 1
// for 1; P, F and M promise nothing).
bool keySatisfies(const std::string& launch, const std::string& assumed);
// How much `key` promises (more: more specialized code), to prefer among
// the keys a launch satisfies.
int keyStrength(const std::string& key);

// The CPU back end does not pre-fetch tiles ahead of their loop iteration:
// its cores reorder loads and prefetch cache lines themselves, and a tile
// loaded early only adds copies between iterations (a 2048^3 matmul ran 17%
// slower and compiled twice as long with 3 stages). num_stages is this there.
constexpr int kCpuNumStages = 1;

}  // namespace tritonc::runtime
