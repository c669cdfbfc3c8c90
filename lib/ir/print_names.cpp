#include "ir/print_names.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <unordered_set>

#include "ir/op_rules.h"

namespace tritonc::ir {

namespace {

bool isNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}

bool allDigits(const std::string& s) {
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return !s.empty();
}

// Hands out unique names: the first request for a hint gets it bare, later
// ones get `hint.1`, `hint.2`, ... skipping any name already taken (a hint may
// itself look like `x.1`).
class UniqueNames {
 public:
  std::string take(const std::string& hint) {
    std::string name = hint;
    unsigned& suffix = nextSuffix_[hint];
    while (taken_.count(name)) name = hint + "." + std::to_string(++suffix);
    taken_.insert(name);
    return name;
  }

 private:
  std::unordered_set<std::string> taken_;
  std::unordered_map<std::string, unsigned> nextSuffix_;
};

}  // namespace

bool printsResult(const Instruction& inst) {
  return producesValue(inst.opcode()) || !inst.type().isVoid();
}

std::string sanitizeName(const std::string& hint) {
  std::string out = hint;
  for (char& c : out)
    if (!isNameChar(c)) c = '_';
  return out;
}

LayoutNames::LayoutNames(const Module* m) {
  if (!m) return;
  for (auto& f : m->functions()) {
    for (auto& arg : f->arguments()) add(arg->type().layout);
    for (auto& bb : f->blocks())
      for (auto& inst : bb->instructions()) add(inst->type().layout);
  }
}

void LayoutNames::add(const Layout* l) {
  if (!l || names_.count(l)) return;
  if (l->parent) add(l->parent);
  names_[l] = "#" + std::string(l->stem()) + std::to_string(counts_[l->stem()]++);
  ordered_.push_back(l);
}

std::string LayoutNames::name(const Layout* l) const {
  auto it = names_.find(l);
  return it != names_.end() ? it->second : "#" + l->key();
}

NameTable::NameTable(const Function* f) : layouts_(f ? f->parent() : nullptr) {
  if (!f) return;
  // Hints never consist of digits only (those count as unnamed), so the
  // numbers given to unnamed values cannot collide with a hint.
  UniqueNames valueNames;
  unsigned nextNumber = 0;
  auto nameValue = [&](const Value* v) {
    std::string hint = sanitizeName(v->name());
    if (hint.empty() || allDigits(hint))
      values_[v] = "%" + std::to_string(nextNumber++);
    else
      values_[v] = "%" + valueNames.take(hint);
  };
  for (auto& arg : f->arguments()) nameValue(arg.get());
  for (auto& bb : f->blocks())
    for (auto& inst : bb->instructions())
      if (printsResult(*inst)) nameValue(inst.get());

  // Labels are lexed as words, so they must not start with a digit.
  UniqueNames labels;
  size_t index = 0;
  for (auto& bb : f->blocks()) {
    std::string hint = sanitizeName(bb->name());
    if (hint.empty()) hint = "bb" + std::to_string(index);
    else if (std::isdigit(static_cast<unsigned char>(hint[0]))) hint = "_" + hint;
    blocks_[bb.get()] = labels.take(hint);
    ++index;
  }
}

std::string NameTable::value(const Value* v) const {
  if (v->valueKind() == ValueKind::Constant) return printConstant(*static_cast<const Constant*>(v));
  auto it = values_.find(v);
  if (it != values_.end()) return it->second;
  return "%?" + sanitizeName(v->name());
}

std::string NameTable::block(const BasicBlock* bb) const {
  if (!bb) return "?null";
  auto it = blocks_.find(bb);
  if (it != blocks_.end()) return it->second;
  return "?" + sanitizeName(bb->name());
}

std::string printConstant(const Constant& c) {
  const Type& t = c.type();
  std::string out = typeToString(t) + " ";
  if (!t.isFloat()) return out + std::to_string(c.i);
  if (std::isnan(c.f)) return out + "nan";
  if (std::isinf(c.f)) return out + (c.f < 0 ? "-inf" : "inf");
  // Enough digits to read back the same float of the constant's width.
  char buf[40];
  std::snprintf(buf, sizeof buf, t.kind == Scalar::F64 ? "%.17g" : "%.9g", c.f);
  return out + buf;
}

}  // namespace tritonc::ir
