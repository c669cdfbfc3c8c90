// Types of Triton-IR values: a scalar kind, an optional pointee kind (for
// pointers) and a tile shape (empty for scalars). `i32<8, 8>`, `f32*<16>`,
// `i1`, `f16*` are printed and parsed by typeToString / parseType. In the GPU
// IR a tile type also has a layout (layout.h), interned by the module:
// `f16<128, 64, #blocked0>`; a shared layout makes it a buffer in shared
// memory rather than registers.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tritonc::ir {

struct Layout;

// F8E4M3 and F8E5M2 (support/float8.h) are storage types: loaded, stored,
// moved, selected and converted (cast, bitcast), never computed on; the
// verifier refuses arithmetic on them. They come last so that the values of
// the others stay what they were.
enum class Scalar : uint8_t { Void, I1, I8, I16, I32, I64, F16, BF16, F32, F64, Ptr, F8E4M3, F8E5M2 };

using Shape = std::vector<int64_t>;

struct Type {
  Scalar kind = Scalar::Void;
  Scalar pointee = Scalar::Void;  // element kind when kind == Ptr
  Shape shape;                    // empty: a scalar
  const Layout* layout = nullptr;  // GPU IR tiles only (owned by the module)

  static Type scalar(Scalar k) { return Type{k, Scalar::Void, {}}; }
  static Type pointer(Scalar elem, Shape s = {}) { return Type{Scalar::Ptr, elem, std::move(s)}; }
  static Type voidTy() { return Type{}; }

  bool isVoid() const { return kind == Scalar::Void; }
  bool isTile() const { return !shape.empty(); }
  bool isPtr() const { return kind == Scalar::Ptr; }
  bool isBool() const { return kind == Scalar::I1; }
  bool isInt() const;    // i1..i64
  bool isFloat() const;  // f8e4m3, f8e5m2, f16, bf16, f32, f64
  bool isFp8() const;    // f8e4m3, f8e5m2: storage only
  int64_t numElements() const;
  Type element() const { return Type{kind, pointee, {}, nullptr}; }  // drop the shape and layout
  // These keep the layout: callers that change what it means set another.
  Type withShape(Shape s) const { return Type{kind, pointee, std::move(s), layout}; }
  Type withKind(Scalar k) const { return Type{k, Scalar::Void, shape, layout}; }
  Type withLayout(const Layout* l) const { return Type{kind, pointee, shape, l}; }
  Type pointeeType() const { return Type{pointee, Scalar::Void, shape, layout}; }  // keeps shape
  bool isShared() const;  // a buffer in shared memory (GPU IR)
  bool operator==(const Type& o) const {
    return kind == o.kind && pointee == o.pointee && shape == o.shape && layout == o.layout;
  }
  bool operator!=(const Type& o) const { return !(*this == o); }
};

bool isIntKind(Scalar k);
bool isFloatKind(Scalar k);
bool isFp8Kind(Scalar k);
int bitWidth(Scalar k);     // i1 -> 1, f16 -> 16, ptr -> 64
int byteSize(Scalar k);     // storage size in memory: i1 -> 1, ptr -> 8
const char* scalarName(Scalar k);            // "i32", "f16", "bf16", "ptr"
std::optional<Scalar> scalarFromName(const std::string& s);
std::string shapeToString(const Shape& s);   // "[16, 8]"
// Layouts print by name where `layoutName` is given (the printer's aliases),
// else written out in full.
std::string typeToString(const Type& t, std::string (*layoutName)(const Layout*, const void*) = nullptr,
                         const void* context = nullptr);
// Parses the whole of `text` as a type; returns nullopt if it is not one.
std::optional<Type> parseType(const std::string& text);
// Whether two programs can each fill half of a tensor copy's stage (a
// swizzled 2-D buffer; a multicast tma_copy): its row of swizzle blocks has
// an even number of them, or its rows halve into multiples of 1024 bytes,
// where the swizzle pattern (period at most 1024 bytes) carries on.
bool tmaStageSplitsInHalves(const Type& stage);

}  // namespace tritonc::ir
