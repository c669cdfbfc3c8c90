// The shared machinery of the example table: buffers, poison, comparison,
// parameters and compilation. The cases themselves live in cases_*.cpp.
#include "cases.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>


namespace tritonc::examples {

const char* presetName(Preset p) { return p == Preset::Test ? "test" : "demo"; }

std::optional<Preset> presetFromName(const std::string& s) {
  if (s == "test") return Preset::Test;
  if (s == "demo") return Preset::Demo;
  return std::nullopt;
}

int64_t Params::operator()(const std::string& name) const {
  auto it = values.find(name);
  if (it == values.end()) throw std::out_of_range("example parameter '" + name + "' is not set");
  return it->second;
}

int64_t Params::get(const std::string& name, int64_t fallback) const {
  auto it = values.find(name);
  return it == values.end() ? fallback : it->second;
}

interp::Buffer* Launch::newBuffer(const std::string& name, ir::Scalar elem, int64_t elements) {
  auto b = std::make_unique<interp::Buffer>();
  b->name = name;
  b->elem = elem;
  b->shape = {elements};
  b->data.assign(size_t(elements) * size_t(ir::byteSize(elem)), 0);
  buffers.push_back(std::move(b));
  return buffers.back().get();
}

bool Launch::isOutput(const interp::Buffer* b) const {
  for (auto& e : expected)
    if (e.buffer == b) return true;
  return false;
}

Launch Launch::clone() const {
  Launch c;
  std::map<const interp::Buffer*, interp::Buffer*> map;
  for (auto& b : buffers) {
    c.buffers.push_back(std::make_unique<interp::Buffer>(*b));
    map[b.get()] = c.buffers.back().get();
  }
  c.args = args;
  for (auto& a : c.args)
    if (a.buffer) a.buffer = map.at(a.buffer);
  c.grid = grid;
  c.sizes = sizes;
  c.expected = expected;
  for (auto& e : c.expected) e.buffer = map.at(e.buffer);
  c.tolerance = tolerance;
  return c;
}

void fillRandom(interp::Buffer& b, std::mt19937_64& rng, double lo, double hi) {
  std::uniform_real_distribution<double> dist(lo, hi);
  const bool isFloat = ir::isFloatKind(b.elem);
  for (int64_t i = 0, n = b.numElements(); i < n; ++i) {
    double v = dist(rng);
    writeElement(b, i, isFloat ? v : std::floor(v));
  }
}

namespace {

// The poison of one element, as bytes: a quiet NaN for floats, 0x5A for integers.
std::vector<uint8_t> poisonBytes(ir::Scalar k) {
  const int size = ir::byteSize(k);
  std::vector<uint8_t> bytes(size_t(size), 0x5A);
  uint64_t nan = 0;
  switch (k) {
    case ir::Scalar::F16: nan = 0x7E00; break;
    case ir::Scalar::BF16: nan = 0x7FC0; break;
    case ir::Scalar::F32: nan = 0x7FC00000u; break;
    case ir::Scalar::F64: nan = 0x7FF8000000000000ull; break;
    default: return bytes;
  }
  std::memcpy(bytes.data(), &nan, size_t(size));  // little endian
  return bytes;
}

std::string formatValue(double v) {
  std::ostringstream ss;
  ss.precision(8);
  ss << v;
  return ss.str();
}

}  // namespace

void poison(interp::Buffer& b) {
  const std::vector<uint8_t> bytes = poisonBytes(b.elem);
  for (size_t i = 0; i < b.data.size(); ++i) b.data[i] = bytes[i % bytes.size()];
}

bool isPoison(const interp::Buffer& b, int64_t i) {
  const std::vector<uint8_t> bytes = poisonBytes(b.elem);
  return std::memcmp(b.data.data() + size_t(i) * bytes.size(), bytes.data(), bytes.size()) == 0;
}

Comparison compareOutputs(const Launch& launch) {
  Comparison result;
  for (const Expected& e : launch.expected) {
    const interp::Buffer& b = *e.buffer;
    if (int64_t(e.ref.size()) != b.numElements())
      throw std::logic_error("reference of '" + b.name + "' has " + std::to_string(e.ref.size()) +
                             " elements, the buffer " + std::to_string(b.numElements()));
    double scale = 1;
    for (double r : e.ref)
      if (!std::isnan(r)) scale = std::max(scale, std::fabs(r));
    for (size_t i = 0; i < e.ref.size(); ++i) {
      const double r = e.ref[i];
      const double out = readElement(b, int64_t(i));
      double err = 0;
      std::string what;
      if (std::isnan(r)) {
        if (isPoison(b, int64_t(i))) continue;
        err = INFINITY;
        what = b.name + "[" + std::to_string(i) + "] = " + formatValue(out) +
               " was written, but lies outside the output";
      } else {
        err = std::isfinite(out) ? std::fabs(out - r) / scale : INFINITY;
        what = b.name + "[" + std::to_string(i) + "] = " + formatValue(out) + ", expected " + formatValue(r);
      }
      if (err > result.maxError || (result.worst.empty() && err > 0)) {
        result.maxError = err;
        result.worst = what;
      }
    }
  }
  return result;
}

Params paramsFor(const Case& c, Preset preset, const lang::CompileResult& compiled) {
  Params p;
  p.values = preset == Preset::Test ? c.testSizes : c.demoSizes;
  auto setIfInteger = [&](const std::string& name, const std::string& text) {
    char* end = nullptr;
    long long v = std::strtoll(text.c_str(), &end, 10);
    if (!text.empty() && *end == 0) p.values[name] = v;
  };
  for (const lang::Define& d : c.defines) {
    std::vector<std::string> values = lang::defineValues(d);
    if (!values.empty()) setIfInteger(d.name, values.front());
  }
  for (const lang::TuningParam& t : compiled.tuning)
    if (t.chosen < t.values.size()) setIfInteger(t.name, t.values[t.chosen]);
  return p;
}

std::string readTextFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open '" + path + "'");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

lang::CompileResult compileCase(const Case& c, const std::string& root) {
  lang::CompileOptions opts;
  opts.filename = c.file;
  opts.defines = c.defines;
  return lang::compileSource(readTextFile(root + "/" + c.file), opts);
}

const ir::Function& kernelOf(const ir::Module& m) {
  if (m.functions().size() != 1)
    throw std::runtime_error("expected one kernel in the module, found " + std::to_string(m.functions().size()));
  return *m.functions().front();
}

uint64_t caseSeed(uint64_t seed, const std::string& caseName) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a: stable across standard libraries
  for (unsigned char ch : caseName) h = (h ^ ch) * 1099511628211ull;
  uint64_t z = seed + h + 0x9E3779B97F4A7C15ull;  // splitmix64 finalizer
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

std::vector<double> referenceProduct(const interp::Buffer& A, const interp::Buffer& B, int64_t M, int64_t N, int64_t K,
                                     const Index2& a, const Index2& b, const Index2& c, int64_t size) {
  std::vector<double> ref(size_t(size), NAN);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double acc = 0;
      for (int64_t k = 0; k < K; ++k) acc += readElement(A, a(m, k)) * readElement(B, b(k, n));
      ref[size_t(c(m, n))] = acc;
    }
  return ref;
}

double toleranceFor(ir::Scalar k) {
  return k == ir::Scalar::F16 || k == ir::Scalar::BF16 ? 1e-2 : 1e-4;
}

ir::Scalar scalarOfType(const std::string& typeMacro) {
  if (typeMacro == "float") return ir::Scalar::F32;
  if (typeMacro == "half") return ir::Scalar::F16;
  if (typeMacro == "bf16") return ir::Scalar::BF16;
  if (typeMacro == "double") return ir::Scalar::F64;
  throw std::invalid_argument("no element type for TYPE=" + typeMacro);
}

const std::vector<Case>& allCases() {
  static const std::vector<Case> cases = [] {
    std::vector<Case> v;
    addBasicCases(v);
    addMatmulCases(v);
    addConvCases(v);
    addMaskedCases(v);
    addTileCases(v);
    return v;
  }();
  return cases;
}

}  // namespace tritonc::examples
