// The printed names of one function's values and blocks (docs/IR.md, "Names"),
// shared by the printer and the verifier so that error messages show an
// instruction exactly as printFunction shows it.
#pragma once
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/ir.h"

namespace tritonc::ir {

// The printed names of a module's layouts (GPU IR): `#blocked0`, `#mma1`, ...
// numbered per kind in the order of first use (parameters, then instructions
// in block order, parents before the slices and operands made of them).
class LayoutNames {
 public:
  explicit LayoutNames(const Module* m);
  std::string name(const Layout* l) const;
  // The layouts in definition order (parents first).
  const std::vector<const Layout*>& ordered() const { return ordered_; }
  // For typeToString: `context` is a LayoutNames.
  static std::string lookup(const Layout* l, const void* context) {
    return static_cast<const LayoutNames*>(context)->name(l);
  }

 private:
  void add(const Layout* l);
  std::unordered_map<const Layout*, std::string> names_;
  std::unordered_map<std::string, int> counts_;
  std::vector<const Layout*> ordered_;
};

class NameTable {
 public:
  // Names every parameter, instruction and block of `f`; with nullptr the
  // table is empty and names fall back to the hints.
  explicit NameTable(const Function* f);

  // "%x", "%3", or for a constant "i32 4". A value that is not part of the
  // function (a bug the verifier reports) prints as "%?hint".
  std::string value(const Value* v) const;
  // "entry", "loop.1", "bb3"; "?hint" for a block not in the function.
  std::string block(const BasicBlock* bb) const;
  // A type with its layout by name.
  std::string type(const Type& t) const { return typeToString(t, LayoutNames::lookup, &layouts_); }
  const LayoutNames& layouts() const { return layouts_; }

 private:
  LayoutNames layouts_;
  std::unordered_map<const Value*, std::string> values_;
  std::unordered_map<const BasicBlock*, std::string> blocks_;
};

// Whether `inst` prints as `%r = ... : T`: opcodes with a result, and any
// instruction with a non-void type (malformed, but printed faithfully).
bool printsResult(const Instruction& inst);
// Makes a hint printable: characters outside [A-Za-z0-9_.] become '_'.
std::string sanitizeName(const std::string& hint);
// "f32 0.5", "i32 -3", "f64 -inf", "f16 nan".
std::string printConstant(const Constant& c);
// One instruction without indentation or newline (printer.cpp).
std::string printInstructionWith(const Instruction& inst, const NameTable& names,
                                 bool withLocation);

}  // namespace tritonc::ir
