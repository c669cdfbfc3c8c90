// Types of Triton-IR values: a scalar kind, an optional pointee kind (for
// pointers) and a tile shape (empty for scalars). `i32<8, 8>`, `f32*<16>`,
// `i1`, `f16*` are printed and parsed by typeToString / parseType.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tritonc::ir {

enum class Scalar : uint8_t { Void, I1, I8, I16, I32, I64, F16, BF16, F32, F64, Ptr };

using Shape = std::vector<int64_t>;

struct Type {
  Scalar kind = Scalar::Void;
  Scalar pointee = Scalar::Void;  // element kind when kind == Ptr
  Shape shape;                    // empty: a scalar

  static Type scalar(Scalar k) { return Type{k, Scalar::Void, {}}; }
  static Type pointer(Scalar elem, Shape s = {}) { return Type{Scalar::Ptr, elem, std::move(s)}; }
  static Type voidTy() { return Type{}; }

  bool isVoid() const { return kind == Scalar::Void; }
  bool isTile() const { return !shape.empty(); }
  bool isPtr() const { return kind == Scalar::Ptr; }
  bool isBool() const { return kind == Scalar::I1; }
  bool isInt() const;    // i1..i64
  bool isFloat() const;  // f16, bf16, f32, f64
  int64_t numElements() const;
  Type element() const { return Type{kind, pointee, {}}; }        // drop the shape
  Type withShape(Shape s) const { return Type{kind, pointee, std::move(s)}; }
  Type withKind(Scalar k) const { return Type{k, Scalar::Void, shape}; }
  Type pointeeType() const { return Type{pointee, Scalar::Void, shape}; }  // keeps shape
  bool operator==(const Type& o) const {
    return kind == o.kind && pointee == o.pointee && shape == o.shape;
  }
  bool operator!=(const Type& o) const { return !(*this == o); }
};

bool isIntKind(Scalar k);
bool isFloatKind(Scalar k);
int bitWidth(Scalar k);     // i1 -> 1, f16 -> 16, ptr -> 64
int byteSize(Scalar k);     // storage size in memory: i1 -> 1, ptr -> 8
const char* scalarName(Scalar k);            // "i32", "f16", "bf16", "ptr"
std::optional<Scalar> scalarFromName(const std::string& s);
std::string shapeToString(const Shape& s);   // "[16, 8]"
std::string typeToString(const Type& t);
// Parses the whole of `text` as a type; returns nullopt if it is not one.
std::optional<Type> parseType(const std::string& text);

}  // namespace tritonc::ir
