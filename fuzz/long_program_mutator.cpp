// A libFuzzer custom mutator that makes programs long and deep (issue 15:
// 100,000-term chains and 100,000-fold nesting crashed the front end, and
// byte-level mutations of 4 KB inputs never write such programs). Most
// mutations are libFuzzer's own; one in four splices in a "tower" of
// object-like macros, ten copies of a fragment per level and up to five
// levels (100,000 copies in a few hundred bytes of source), and uses it
// where the fragment fits: a chain link before a ';', a prefix operator after
// an '=', parentheses around an expression, statements after a '{'.
#include <cstdint>
#include <cstring>
#include <random>
#include <string>

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t maxSize);

namespace {

enum class Site { BeforeSemicolon, AfterAssign, AroundExpression, AfterBrace };

struct Fragment {
  Site site;
  const char* unit;   // repeated
  const char* close;  // AroundExpression: repeated after the expression, as many times
};

const Fragment kFragments[] = {
    {Site::BeforeSemicolon, "+ x", nullptr},   {Site::BeforeSemicolon, "&& x", nullptr},
    {Site::BeforeSemicolon, "< x", nullptr},   {Site::BeforeSemicolon, "* x", nullptr},
    {Site::BeforeSemicolon, "- 1", nullptr},   {Site::BeforeSemicolon, "+ 1", nullptr},
    {Site::BeforeSemicolon, "|| x", nullptr},  {Site::BeforeSemicolon, "[:]", nullptr},
    {Site::BeforeSemicolon, "@ x", nullptr},   {Site::BeforeSemicolon, "++", nullptr},
    {Site::AfterAssign, "-", nullptr},         {Site::AfterAssign, "!", nullptr},
    {Site::AfterAssign, "~", nullptr},         {Site::AfterAssign, "(int)", nullptr},
    {Site::AfterAssign, "x ? x :", nullptr},   {Site::AfterAssign, "x =", nullptr},
    {Site::AroundExpression, "(", ")"},        {Site::AroundExpression, "exp(", ")"},
    {Site::AroundExpression, "x ? (", ") : x"},
    {Site::AfterBrace, "for (int i = 0; i < 2; i++) x += i;", nullptr},
    {Site::AfterBrace, "if (x)", nullptr},     {Site::AfterBrace, "{", nullptr},
    {Site::AfterBrace, "__debug_barrier();", nullptr},
};

// `#define P1 u u ... u` (ten), `#define P2 P1 ... P1`, ... up to `levels`.
std::string tower(const std::string& prefix, const std::string& unit, int levels) {
  std::string out = "#define " + prefix + "1";
  for (int i = 0; i < 10; ++i) out += " " + unit;
  out += "\n";
  for (int l = 2; l <= levels; ++l) {
    out += "#define " + prefix + std::to_string(l);
    for (int i = 0; i < 10; ++i) out += " " + prefix + std::to_string(l - 1);
    out += "\n";
  }
  return out;
}

// A random position just before (or after) an occurrence of `c`; npos if none.
size_t randomPlace(const std::string& s, char c, std::minstd_rand& rng, bool after) {
  size_t n = 0;
  for (char ch : s) n += ch == c;
  if (n == 0) return std::string::npos;
  size_t k = rng() % n;
  for (size_t i = 0; i < s.size(); ++i)
    if (s[i] == c && k-- == 0) return after ? i + 1 : i;
  return std::string::npos;
}

// Where the macros go: after the leading `//` lines (the `// define:` header).
size_t afterHeader(const std::string& s) {
  size_t pos = 0;
  while (pos < s.size() && s.compare(pos, 2, "//") == 0) {
    size_t nl = s.find('\n', pos);
    if (nl == std::string::npos) return s.size();
    pos = nl + 1;
  }
  return pos;
}

// The program grown by one tower; empty when the input has no place for it.
std::string grow(const std::string& in, std::minstd_rand& rng) {
  const Fragment& f = kFragments[rng() % (sizeof kFragments / sizeof kFragments[0])];
  const int levels = 1 + int(rng() % 5);
  const std::string prefix = "FZ" + std::to_string(rng() % 1000) + "_";
  const std::string use = " " + prefix + std::to_string(levels) + " ";
  std::string out = in;
  switch (f.site) {
    case Site::BeforeSemicolon: {
      size_t at = randomPlace(out, ';', rng, false);
      if (at == std::string::npos) return "";
      out.insert(at, use);
      break;
    }
    case Site::AfterAssign: {
      size_t at = randomPlace(out, '=', rng, true);
      if (at == std::string::npos) return "";
      out.insert(at, use);
      break;
    }
    case Site::AroundExpression: {
      size_t at = randomPlace(out, '=', rng, true);
      size_t end = at == std::string::npos ? at : out.find(';', at);
      if (end == std::string::npos) return "";
      const std::string closing = " " + prefix + "c" + std::to_string(levels) + " ";
      out.insert(end, closing);
      out.insert(at, use);
      out.insert(afterHeader(out), tower(prefix + "c", f.close, levels));
      break;
    }
    case Site::AfterBrace: {
      size_t at = randomPlace(out, '{', rng, true);
      if (at == std::string::npos) return "";
      out.insert(at, use);
      break;
    }
  }
  out.insert(afterHeader(out), tower(prefix, f.unit, levels));
  return out;
}

}  // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t maxSize, unsigned int seed) {
  std::minstd_rand rng(seed);
  if (rng() % 4 == 0) {
    std::string grown = grow(std::string(reinterpret_cast<const char*>(data), size), rng);
    if (!grown.empty() && grown.size() <= maxSize) {
      std::memcpy(data, grown.data(), grown.size());
      return grown.size();
    }
  }
  return LLVMFuzzerMutate(data, size, maxSize);
}
