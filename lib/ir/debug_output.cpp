#include "ir/debug_output.h"

#include <cstdio>
#include <cstring>

#include "support/float16.h"

namespace tritonc::ir {

namespace {

// `text` inside a printf format: every '%' doubled.
std::string escapePercent(const std::string& text) {
  std::string out;
  for (char c : text) {
    out += c;
    if (c == '%') out += '%';
  }
  return out;
}

// printf of one integer with `conversion`, passed as the type it names
// (int for %d and %x, long long for the "ll" ones).
std::string format(const std::string& conversion, long long v) {
  char buf[64];
  if (conversion.find("ll") != std::string::npos) std::snprintf(buf, sizeof buf, conversion.c_str(), v);
  else std::snprintf(buf, sizeof buf, conversion.c_str(), int(v));
  return buf;
}

// The bits of `v`'s element of `kind`, as hex prints them.
unsigned long long elementBits(Scalar kind, PrintedElement v) {
  switch (kind) {
    case Scalar::F64: {
      uint64_t u;
      std::memcpy(&u, &v.f, 8);
      return u;
    }
    case Scalar::F32: {
      float f = float(v.f);
      uint32_t u;
      std::memcpy(&u, &f, 4);
      return u;
    }
    case Scalar::F16: return doubleToHalf(v.f);
    case Scalar::BF16: return doubleToBf16(v.f);
    default: {
      int bits = bitWidth(kind);
      return bits >= 64 ? (unsigned long long)v.i : (unsigned long long)v.i & ((1ULL << bits) - 1);
    }
  }
}

}  // namespace

std::string devicePrintPrefix(const std::string& prefix, bool hasValues) {
  std::string p = prefix;
  auto endsWith = [&](const char* tail) {
    size_t n = std::strlen(tail);
    return p.size() >= n && p.compare(p.size() - n, n, tail) == 0;
  };
  if (hasValues && !endsWith(" ")) p += " ";
  if (hasValues && !endsWith(": ")) p = p.substr(0, p.size() - 1) + ": ";
  if (p.size() > 2 && p[0] != ' ') p = " " + p;
  return p;
}

std::string printValueConversion(Scalar kind, bool hex) {
  int bits = kind == Scalar::Ptr ? 64 : bitWidth(kind);
  if (hex) {
    int digits = bits < 4 ? 1 : bits / 4;
    return "0x%0" + std::to_string(digits) + (bits > 32 ? "llx" : "x");
  }
  if (kind == Scalar::Ptr) return "0x%llx";
  if (isFloatKind(kind)) return "%f";
  return bits > 32 ? "%lld" : "%d";
}

int printIndexWidth(int64_t size) {
  int width = 0;
  for (int64_t p = 1; p < size; p *= 10) ++width;
  return width;
}

std::string printLineFormat(const Instruction& print, int operand) {
  std::string out = "pid (%d, %d, %d)";
  if (operand < 0) return out + escapePercent(print.text) + "\n";
  const Type& t = print.operand(size_t(operand))->type();
  out += " idx (";
  for (size_t d = 0; d < t.shape.size(); ++d) {
    int w = printIndexWidth(t.shape[d]);
    out += (d ? ", %" : "%") + (w ? std::to_string(w) : std::string()) + "d";
  }
  out += ")" + escapePercent(print.text);
  if (print.numOperands() > 1) out += "(operand " + std::to_string(operand) + ") ";
  return out + printValueConversion(t.kind, print.sub == kPrintHex) + "\n";
}

std::string printLine(const std::string& prefix, bool hex, int operand, int numOperands, const Type& type,
                      const int64_t pid[3], const std::vector<int64_t>& index, PrintedElement value) {
  std::string out = "pid (" + std::to_string(pid[0]) + ", " + std::to_string(pid[1]) + ", " +
                    std::to_string(pid[2]) + ")";
  if (operand < 0) return out + prefix + "\n";
  out += " idx (";
  for (size_t d = 0; d < type.shape.size() && d < index.size(); ++d) {
    std::string i = std::to_string(index[d]);
    int w = printIndexWidth(type.shape[d]);
    out += (d ? ", " : "") + std::string(i.size() < size_t(w) ? size_t(w) - i.size() : 0, ' ') + i;
  }
  out += ")" + prefix;
  if (numOperands > 1) out += "(operand " + std::to_string(operand) + ") ";
  const std::string conversion = printValueConversion(type.kind, hex);
  if (hex) return out + format(conversion, (long long)elementBits(type.kind, value)) + "\n";
  if (isFloatKind(type.kind)) {
    char buf[512];  // %f of 1e308 has 309 digits before the point
    std::snprintf(buf, sizeof buf, "%f", value.f);
    return out + buf + "\n";
  }
  return out + format(conversion, (long long)value.i) + "\n";
}

std::string assertionFailure(const std::string& message, const std::string& kernel, const int64_t pid[3],
                             const std::vector<int64_t>& index) {
  std::string out = "device assertion failed" + (message.empty() ? "" : ": " + message) + " (kernel '" + kernel +
                    "', program (" + std::to_string(pid[0]) + ", " + std::to_string(pid[1]) + ", " +
                    std::to_string(pid[2]) + ")";
  if (!index.empty()) {
    out += ", tile element [";
    for (size_t d = 0; d < index.size(); ++d) out += (d ? ", " : "") + std::to_string(index[d]);
    out += "]";
  }
  return out + ")";
}

std::string assertionFailureFormat(const std::string& file, SourceLoc loc, const std::string& message,
                                   const std::string& kernel, size_t rank) {
  std::string where = file.empty() ? "<kernel>" : file;
  if (loc.known()) where += ":" + std::to_string(loc.line) + ":" + std::to_string(loc.col);
  std::string out = escapePercent(where) + ": error: device assertion failed" +
                    (message.empty() ? "" : ": " + escapePercent(message)) + " (kernel '" + escapePercent(kernel) +
                    "', program (%d, %d, %d)";
  if (rank > 0) {
    out += ", tile element [";
    for (size_t d = 0; d < rank; ++d) out += d ? ", %d" : "%d";
    out += "]";
  }
  return out + ")\n";
}

std::vector<int64_t> elementIndex(const Shape& shape, int64_t flat) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
  return index;
}

}  // namespace tritonc::ir
