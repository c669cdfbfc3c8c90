// What `print` and `assert` write at run time (docs/IR.md, "Debugging
// output"), defined once for every back end: the interpreter and the CPU
// back end render lines on the host with the functions below; the PTX back
// end emits printf formats (vprintf) that print the same text.
//
// A print line is Triton's device_print format:
//   pid (X, Y, Z) idx (I, J)PREFIX(operand K) VALUE
// with each index padded to the digits of its dimension's size minus one
// (Triton's ceil(log10(size))), "(operand K) " only when the print has
// several values, VALUE as printf's %f (floats), %d / %lld (integers; i1
// as 0 or 1), %p (pointers), or with `hex` the element's bits as 0x and
// two digits per byte (one digit for i1). A print without values writes
// "pid (X, Y, Z)PREFIX". Scalars print with "idx ()".
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace tritonc::ir {

// Triton's device_print rule for the prefix a user writes, which the front
// ends apply before they build a print: with values, it ends in ": "
// ("x" -> "x: "); longer than 2 characters, it starts with a space
// ("x: " -> " x: "), so that lines read "pid (0, 0, 0) idx (3) x: 1.500000".
std::string devicePrintPrefix(const std::string& prefix, bool hasValues);

// The printf conversion of one value of `kind`: "%f", "%d", "%lld", "%p",
// or with `hex` "0x%08x", "0x%016llx", ...
std::string printValueConversion(Scalar kind, bool hex);

// Width of the indices of a dimension of `size` elements (0: no padding).
int printIndexWidth(int64_t size);

// The printf format of the lines of `print`'s value `operand` (-1: the line
// of a print without values). Its arguments: the program id (3 x %d), the
// element's index (one %d per dimension of the value), the value.
std::string printLineFormat(const Instruction& print, int operand);

// One element of a printed value, as the interpreter holds it: integers
// and pointers in `i` (sign-extended), floats in `f` (exact in their kind).
struct PrintedElement {
  int64_t i = 0;
  double f = 0;
};

// The line printf(printLineFormat(print, operand), pid..., index..., value)
// writes, rendered on the host (for operand -1, `value` and `index` are not
// read). `index` has one entry per dimension of the value.
std::string printLine(const std::string& prefix, bool hex, int operand, int numOperands, const Type& type,
                      const int64_t pid[3], const std::vector<int64_t>& index, PrintedElement value);

// The message of a failed assertion: "device assertion failed: MESSAGE
// (kernel 'K', program (X, Y, Z), tile element [I, J])"; the element is
// left out for a scalar condition.
std::string assertionFailure(const std::string& message, const std::string& kernel, const int64_t pid[3],
                             const std::vector<int64_t>& index);

// The same as a printf format for the GPU, with the diagnostic's location
// in front ("FILE:LINE:COL: error: "), '%' escaped, and %d for the program
// id (3) and the element's index (`rank` of them); ends with a newline.
std::string assertionFailureFormat(const std::string& file, SourceLoc loc, const std::string& message,
                                   const std::string& kernel, size_t rank);

// The row-major index of element `flat` of a tile of `shape`.
std::vector<int64_t> elementIndex(const Shape& shape, int64_t flat);

}  // namespace tritonc::ir
