#include "support/npy.h"

#include <cctype>
#include <fstream>
#include <iterator>
#include <limits>
#include <stdexcept>

namespace tritonc {

namespace {

const char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;
// No real array comes close; this keeps size arithmetic far from overflow.
constexpr int64_t kMaxBytes = int64_t(1) << 48;
constexpr size_t kMaxRank = 32;  // NumPy's own limit

struct DescrInfo {
  const char* canonical;
  ir::Scalar kind;
  int itemSize;
};
const DescrInfo kDescrs[] = {
    {"|b1", ir::Scalar::I1, 1},  {"|i1", ir::Scalar::I8, 1},   {"<i2", ir::Scalar::I16, 2},
    {"<i4", ir::Scalar::I32, 4}, {"<i8", ir::Scalar::I64, 8},  {"<f2", ir::Scalar::F16, 2},
    {"<f4", ir::Scalar::F32, 4}, {"<f8", ir::Scalar::F64, 8},  {"<u2", ir::Scalar::BF16, 2},
};

const DescrInfo* findDescr(const std::string& descr) {
  for (const DescrInfo& d : kDescrs) {
    if (descr == d.canonical) return &d;
    // One-byte types have no byte order; NumPy writes '|' but '<' means the same.
    if (d.itemSize == 1 && descr.size() == 3 && descr[0] == '<' && descr.substr(1) == d.canonical + 1)
      return &d;
  }
  return nullptr;
}

[[noreturn]] void fail(const std::string& name, const std::string& msg) {
  throw std::runtime_error(name + ": " + msg);
}

// The header is a Python dict literal, e.g.
//   {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
// This reads exactly that subset: strings, True/False, tuples of integers.
class HeaderParser {
 public:
  HeaderParser(const std::string& text, const std::string& name) : text_(text), name_(name) {}

  void parse(std::string* descr, bool* fortranOrder, std::vector<int64_t>* shape) {
    bool seenDescr = false, seenOrder = false, seenShape = false;
    expect('{');
    while (!peekIs('}')) {
      std::string key = parseString();
      expect(':');
      if (key == "descr") {
        *descr = parseString();
        seenDescr = true;
      } else if (key == "fortran_order") {
        *fortranOrder = parseBool();
        seenOrder = true;
      } else if (key == "shape") {
        *shape = parseShape();
        seenShape = true;
      } else {
        error("unexpected key '" + key + "'");
      }
      if (!peekIs('}')) expect(',');
    }
    expect('}');
    skipSpace();
    if (pos_ != text_.size()) error("unexpected text after the dict");
    if (!seenDescr || !seenOrder || !seenShape)
      error("the header must have the keys 'descr', 'fortran_order' and 'shape'");
  }

 private:
  [[noreturn]] void error(const std::string& msg) {
    fail(name_, "bad .npy header (" + msg + ") in: " + text_);
  }
  void skipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool peekIs(char c) {
    skipSpace();
    return pos_ < text_.size() && text_[pos_] == c;
  }
  void expect(char c) {
    if (!peekIs(c)) error(std::string("expected '") + c + "'");
    ++pos_;
  }
  std::string parseString() {
    skipSpace();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) error("expected a string");
    char quote = text_[pos_++];
    size_t end = text_.find(quote, pos_);
    if (end == std::string::npos) error("unterminated string");
    std::string s = text_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return s;
  }
  bool parseBool() {
    skipSpace();
    for (const char* word : {"True", "False"}) {
      std::string w(word);
      if (text_.compare(pos_, w.size(), w) == 0) {
        pos_ += w.size();
        return w == "True";
      }
    }
    error("expected True or False");
  }
  int64_t parseDim() {
    skipSpace();
    size_t start = pos_;
    int64_t v = 0;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      v = v * 10 + (text_[pos_++] - '0');
      if (v > kMaxBytes) error("dimension too large");
    }
    if (pos_ == start) error("expected a non-negative integer dimension");
    // Python 2 era files may write long integers as 3L.
    if (pos_ < text_.size() && text_[pos_] == 'L') ++pos_;
    return v;
  }
  std::vector<int64_t> parseShape() {
    std::vector<int64_t> shape;
    expect('(');
    while (!peekIs(')')) {
      shape.push_back(parseDim());
      if (shape.size() > kMaxRank) error("too many dimensions");
      if (!peekIs(')')) expect(',');
    }
    expect(')');
    return shape;
  }

  const std::string& text_;
  const std::string& name_;
  size_t pos_ = 0;
};

uint32_t readLittleEndian(const std::vector<uint8_t>& bytes, size_t pos, int n) {
  uint32_t v = 0;
  for (int i = 0; i < n; ++i) v |= uint32_t(bytes[pos + i]) << (8 * i);
  return v;
}

// Product of `shape`, or -1 if it exceeds kMaxBytes.
int64_t checkedCount(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) return -1;
    if (d != 0 && n > kMaxBytes / d) return -1;
    n *= d;
  }
  return n;
}

}  // namespace

int64_t NpyArray::numElements() const { return checkedCount(shape); }

int NpyArray::itemSize() const {
  const DescrInfo* d = findDescr(descr);
  return d ? d->itemSize : 0;
}

std::optional<ir::Scalar> scalarFromNpyDescr(const std::string& descr) {
  const DescrInfo* d = findDescr(descr);
  if (!d) return std::nullopt;
  return d->kind;
}

std::string npyDescrOf(ir::Scalar kind) {
  for (const DescrInfo& d : kDescrs)
    if (d.kind == kind) return d.canonical;
  throw std::invalid_argument(std::string("no .npy dtype for ") + ir::scalarName(kind));
}

NpyArray parseNpy(const std::vector<uint8_t>& bytes, const std::string& name) {
  if (bytes.size() < kMagicLen + 2 || std::string(bytes.begin(), bytes.begin() + kMagicLen) != kMagic)
    fail(name, "not a .npy file (bad magic)");
  const int major = bytes[kMagicLen];
  const int minor = bytes[kMagicLen + 1];
  if (major < 1 || major > 3 || minor != 0)
    fail(name, "unsupported .npy format version " + std::to_string(major) + "." + std::to_string(minor));
  const int lenBytes = major == 1 ? 2 : 4;
  const size_t headerStart = kMagicLen + 2 + lenBytes;
  if (bytes.size() < headerStart) fail(name, "truncated .npy file (no header length)");
  const size_t headerLen = readLittleEndian(bytes, kMagicLen + 2, lenBytes);
  if (headerLen > bytes.size() - headerStart)
    fail(name, "truncated .npy file (header of " + std::to_string(headerLen) + " bytes, file has " +
                   std::to_string(bytes.size()) + ")");
  const std::string header(bytes.begin() + headerStart, bytes.begin() + headerStart + headerLen);

  NpyArray out;
  bool fortranOrder = false;
  HeaderParser(header, name).parse(&out.descr, &fortranOrder, &out.shape);
  if (fortranOrder) fail(name, "Fortran-order arrays are not supported (save with C order)");
  const DescrInfo* d = findDescr(out.descr);
  if (!d)
    fail(name, "unsupported dtype '" + out.descr + "' (supported: |b1 |i1 <i2 <i4 <i8 <f2 <f4 <f8 <u2)");
  out.descr = d->canonical;
  const int64_t count = checkedCount(out.shape);
  if (count < 0 || count > kMaxBytes / d->itemSize) fail(name, "array shape is too large");
  const size_t dataBytes = size_t(count) * size_t(d->itemSize);
  const size_t available = bytes.size() - headerStart - headerLen;
  if (available != dataBytes)
    fail(name, std::string(available < dataBytes ? "truncated .npy file" : "size mismatch") + ": shape " +
                   ir::shapeToString(out.shape) + " of " + out.descr + " needs " + std::to_string(dataBytes) +
                   " data bytes, the file has " + std::to_string(available));
  out.data.assign(bytes.begin() + headerStart + headerLen, bytes.end());
  return out;
}

std::vector<uint8_t> serializeNpy(const NpyArray& array, const std::string& name) {
  const DescrInfo* d = findDescr(array.descr);
  if (!d) fail(name, "cannot write unsupported dtype '" + array.descr + "'");
  const int64_t count = checkedCount(array.shape);
  if (count < 0 || count > kMaxBytes / d->itemSize) fail(name, "array shape is too large");
  if (array.data.size() != size_t(count) * size_t(d->itemSize))
    fail(name, "cannot write: shape " + ir::shapeToString(array.shape) + " of " + array.descr + " needs " +
                   std::to_string(count * d->itemSize) + " bytes but the array holds " +
                   std::to_string(array.data.size()));

  std::string dict = std::string("{'descr': '") + d->canonical + "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < array.shape.size(); ++i) dict += (i ? ", " : "") + std::to_string(array.shape[i]);
  dict += array.shape.size() == 1 ? ",), }" : "), }";
  // Pad with spaces and end with '\n' so that the data starts 64-byte aligned.
  const size_t prefix = kMagicLen + 2 + 2;
  size_t total = prefix + dict.size() + 1;
  total = (total + 63) / 64 * 64;
  dict.append(total - prefix - dict.size() - 1, ' ');
  dict += '\n';
  if (dict.size() > 0xffff) fail(name, "header too long for .npy version 1.0");

  std::vector<uint8_t> out(kMagic, kMagic + kMagicLen);
  out.push_back(1);
  out.push_back(0);
  out.push_back(uint8_t(dict.size() & 0xff));
  out.push_back(uint8_t(dict.size() >> 8));
  out.insert(out.end(), dict.begin(), dict.end());
  out.insert(out.end(), array.data.begin(), array.data.end());
  return out;
}

NpyArray readNpy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot open for reading");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) fail(path, "read error");
  return parseNpy(bytes, path);
}

void writeNpy(const std::string& path, const NpyArray& array) {
  std::vector<uint8_t> bytes = serializeNpy(array, path);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) fail(path, "cannot open for writing");
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  out.close();
  if (!out) fail(path, "write error");
}

}  // namespace tritonc
