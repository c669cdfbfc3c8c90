#include "ir/type.h"

#include <cctype>

#include "ir/layout.h"

namespace tritonc::ir {

bool isIntKind(Scalar k) { return k >= Scalar::I1 && k <= Scalar::I64; }
bool isFloatKind(Scalar k) { return (k >= Scalar::F16 && k <= Scalar::F64) || isFp8Kind(k); }
bool isFp8Kind(Scalar k) { return k == Scalar::F8E4M3 || k == Scalar::F8E5M2; }
bool Type::isInt() const { return isIntKind(kind); }
bool Type::isFloat() const { return isFloatKind(kind); }
bool Type::isFp8() const { return isFp8Kind(kind); }
bool Type::isShared() const { return layout && layout->isShared(); }

int64_t Type::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

int bitWidth(Scalar k) {
  switch (k) {
    case Scalar::Void: return 0;
    case Scalar::I1: return 1;
    case Scalar::I8: case Scalar::F8E4M3: case Scalar::F8E5M2: return 8;
    case Scalar::I16: case Scalar::F16: case Scalar::BF16: return 16;
    case Scalar::I32: case Scalar::F32: return 32;
    case Scalar::I64: case Scalar::F64: case Scalar::Ptr: return 64;
  }
  return 0;
}

int byteSize(Scalar k) { return k == Scalar::I1 ? 1 : bitWidth(k) / 8; }

const char* scalarName(Scalar k) {
  switch (k) {
    case Scalar::Void: return "void";
    case Scalar::I1: return "i1";
    case Scalar::I8: return "i8";
    case Scalar::I16: return "i16";
    case Scalar::I32: return "i32";
    case Scalar::I64: return "i64";
    case Scalar::F16: return "f16";
    case Scalar::BF16: return "bf16";
    case Scalar::F32: return "f32";
    case Scalar::F64: return "f64";
    case Scalar::Ptr: return "ptr";
    case Scalar::F8E4M3: return "f8e4m3";
    case Scalar::F8E5M2: return "f8e5m2";
  }
  return "?";
}

std::optional<Scalar> scalarFromName(const std::string& s) {
  static const Scalar all[] = {Scalar::Void, Scalar::I1,   Scalar::I8,  Scalar::I16,
                               Scalar::I32,  Scalar::I64,  Scalar::F16, Scalar::BF16,
                               Scalar::F32,  Scalar::F64,  Scalar::F8E4M3, Scalar::F8E5M2};
  for (Scalar k : all)
    if (s == scalarName(k)) return k;
  return std::nullopt;
}

std::string shapeToString(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

std::string typeToString(const Type& t, std::string (*layoutName)(const Layout*, const void*), const void* context) {
  std::string out = t.isPtr() ? std::string(scalarName(t.pointee)) + "*" : scalarName(t.kind);
  if (t.isTile()) {
    out += "<";
    for (size_t i = 0; i < t.shape.size(); ++i) out += (i ? ", " : "") + std::to_string(t.shape[i]);
    if (t.layout) out += ", " + (layoutName ? layoutName(t.layout, context) : "#" + t.layout->key());
    out += ">";
  }
  return out;
}

std::optional<Type> parseType(const std::string& text) {
  size_t i = 0;
  while (i < text.size() && std::isalnum(static_cast<unsigned char>(text[i]))) ++i;
  auto kind = scalarFromName(text.substr(0, i));
  if (!kind) return std::nullopt;
  Type t = Type::scalar(*kind);
  if (i < text.size() && text[i] == '*') {
    if (*kind == Scalar::Void) return std::nullopt;
    t = Type::pointer(*kind);
    ++i;
  }
  if (i < text.size() && text[i] == '<') {
    ++i;
    for (;;) {
      while (i < text.size() && text[i] == ' ') ++i;
      size_t start = i;
      while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
      if (start == i || i - start > 12) return std::nullopt;
      t.shape.push_back(std::stoll(text.substr(start, i - start)));
      while (i < text.size() && text[i] == ' ') ++i;
      if (i < text.size() && text[i] == ',') { ++i; continue; }
      if (i < text.size() && text[i] == '>') { ++i; break; }
      return std::nullopt;
    }
  }
  if (i != text.size()) return std::nullopt;
  return t;
}

bool tmaStageSplitsInHalves(const Type& stage) {
  const Layout& l = *stage.layout;
  const size_t fast = size_t(l.order[0]);
  if (stage.shape[fast] * byteSize(stage.kind) / l.swizzle % 2 == 0) return true;
  const int64_t rows = stage.shape[1 - fast];
  return rows % 2 == 0 && rows / 2 * l.swizzle % 1024 == 0;
}

}  // namespace tritonc::ir
