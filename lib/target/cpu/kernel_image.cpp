// A compiled CPU kernel as bytes (CpuKernel::image / fromImage), so that a
// disk cache can hand machine code to a later process, which links it
// without running LLVM's optimizer or code generator. Every field is
// "<decimal length>:<bytes>", so names and the object file need no escaping:
//   "tritonc-cpu-image 3", name, line, column, frame bytes, the assertion
//   element's frame offset,
//   parameter count, then per parameter: name, pointer (0/1), element kind,
//     aligned, multipleof, nonneg (0/1),
//   error-site count, then per site: line, column, what, assertion (0/1),
//     the rank of its condition's shape, then each dimension,
//   the object file.
// The reader checks every length against what is left and every number's
// syntax; anything else is a UserError, so a damaged cache entry costs a
// recompile.
#include <charconv>

#include "target/cpu/cpu_kernel_impl.h"

namespace tritonc::cpu {

namespace {

// 3: error sites carry whether they are assertions and their shapes (a
// kernel linked from an image 2 reported a failed assertion as an error
// without its element).
constexpr const char* kMagic = "tritonc-cpu-image 3";

void put(std::string& out, const std::string& field) {
  out += std::to_string(field.size());
  out += ':';
  out += field;
}

void put(std::string& out, int64_t v) { put(out, std::to_string(v)); }

class Reader {
 public:
  explicit Reader(const std::string& bytes) : s_(bytes) {}
  std::string field() {
    const size_t colon = s_.find(':', at_);
    if (colon == std::string::npos || colon == at_ || colon - at_ > 19) fail();
    const size_t n = size_t(number(s_.substr(at_, colon - at_)));
    if (n > s_.size() - colon - 1) fail();
    std::string f = s_.substr(colon + 1, n);
    at_ = colon + 1 + n;
    return f;
  }
  int64_t integer() { return number(field()); }
  bool done() const { return at_ == s_.size(); }
  [[noreturn]] static void fail() { throw UserError(SourceLoc{}, "not a CPU kernel image (truncated or damaged)"); }

 private:
  static int64_t number(const std::string& text) {
    int64_t v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size()) fail();
    return v;
  }
  const std::string& s_;
  size_t at_ = 0;
};

}  // namespace

std::string CpuKernel::image() const {
  const Impl& k = *impl_;
  std::string out;
  put(out, kMagic);
  put(out, k.name);
  put(out, int64_t(k.loc.line));
  put(out, int64_t(k.loc.col));
  put(out, int64_t(k.frameBytes));
  put(out, k.assertElementOffset);
  put(out, int64_t(k.params.size()));
  for (const ParamInfo& p : k.params) {
    put(out, p.name);
    put(out, p.type.isPtr() ? 1 : 0);
    put(out, ir::scalarName(p.type.isPtr() ? p.type.pointee : p.type.kind));
    put(out, p.attrs.aligned);
    put(out, p.attrs.multipleOf);
    put(out, p.attrs.nonNegative ? 1 : 0);
  }
  put(out, int64_t(k.errors.size()));
  for (const detail::ErrorSite& e : k.errors) {
    put(out, int64_t(e.loc.line));
    put(out, int64_t(e.loc.col));
    put(out, e.what);
    put(out, e.assertion ? 1 : 0);
    put(out, int64_t(e.shape.size()));
    for (int64_t d : e.shape) put(out, d);
  }
  put(out, k.object);
  return out;
}

std::unique_ptr<CpuKernel> CpuKernel::fromImage(const std::string& bytes) {
  Reader r(bytes);
  if (r.field() != kMagic) Reader::fail();
  auto impl = std::make_unique<Impl>();
  impl->name = r.field();
  impl->loc.line = uint32_t(r.integer());
  impl->loc.col = uint32_t(r.integer());
  const int64_t frame = r.integer();
  if (frame < 0) Reader::fail();
  impl->frameBytes = size_t(frame);
  impl->assertElementOffset = r.integer();
  if (impl->assertElementOffset < -1 || impl->assertElementOffset >= frame) Reader::fail();
  const int64_t params = r.integer();
  if (params < 0 || params > 100000) Reader::fail();
  for (int64_t i = 0; i < params; ++i) {
    ParamInfo p;
    p.name = r.field();
    const bool pointer = r.integer() != 0;
    std::optional<ir::Scalar> kind = ir::scalarFromName(r.field());
    if (!kind) Reader::fail();
    p.type = pointer ? ir::Type::pointer(*kind) : ir::Type::scalar(*kind);
    p.attrs.aligned = r.integer();
    p.attrs.multipleOf = r.integer();
    p.attrs.nonNegative = r.integer() != 0;
    impl->params.push_back(std::move(p));
  }
  const int64_t errors = r.integer();
  if (errors < 0 || errors > 1000000) Reader::fail();
  for (int64_t i = 0; i < errors; ++i) {
    detail::ErrorSite e;
    e.loc.line = uint32_t(r.integer());
    e.loc.col = uint32_t(r.integer());
    e.what = r.field();
    e.assertion = r.integer() != 0;
    const int64_t rank = r.integer();
    if (rank < 0 || rank > 8) Reader::fail();
    for (int64_t d = 0; d < rank; ++d) {
      const int64_t n = r.integer();
      if (n < 1) Reader::fail();
      e.shape.push_back(n);
    }
    impl->errors.push_back(std::move(e));
  }
  impl->object = r.field();
  if (!r.done() || impl->object.empty()) Reader::fail();
  impl->link(llvm::MemoryBuffer::getMemBufferCopy(impl->object, "tritonc-cached-kernel"));
  return std::unique_ptr<CpuKernel>(new CpuKernel(std::move(impl)));
}

}  // namespace tritonc::cpu
