#include "runtime/kernel_pack.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>

#include "runtime/hash.h"
#include "runtime/version.h"
#include "support/diagnostic.h"

namespace tritonc::runtime {

namespace {

constexpr const char* kMagic = "tritonc-kernels ";
constexpr size_t kMaxRecordName = 32;

// ---- writing ----

void record(std::string& out, const std::string& name, const std::string& value) {
  out += name + " " + std::to_string(value.size()) + "\n" + value + "\n";
}

std::string defineText(const lang::Define& d) { return d.name + "=" + d.value; }

// ---- reading ----

struct PackError {
  std::string what;
};
[[noreturn]] void bad(const std::string& what) { throw PackError{what}; }

bool isIdentifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

// A decimal number of at most 19 digits, the whole of `s`.
bool parseCount(const std::string& s, uint64_t& out) {
  if (s.empty() || s.size() > 19) return false;
  out = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    out = out * 10 + uint64_t(c - '0');
  }
  return true;
}

int parseSmallInt(const std::string& what, const std::string& s, int lo, int hi) {
  uint64_t v = 0;
  if (!parseCount(s, v) || v < uint64_t(lo) || v > uint64_t(hi))
    bad(what + " is '" + s + "' (expected " + std::to_string(lo) + " to " + std::to_string(hi) + ")");
  return int(v);
}

lang::Define parseMacro(const std::string& s) {
  size_t eq = s.find('=');
  lang::Define d{s.substr(0, eq), eq == std::string::npos ? "" : s.substr(eq + 1)};
  if (eq == std::string::npos || !isIdentifier(d.name)) bad("bad macro '" + s + "' (expected NAME=VALUE)");
  return d;
}

bool validTarget(const std::string& t) {
  if (t == "cpu" || t == "interp") return true;
  if (t.rfind("sm_", 0) != 0 || t.size() < 5) return false;
  size_t digits = 3;
  while (digits < t.size() && std::isdigit(static_cast<unsigned char>(t[digits]))) ++digits;
  return digits >= 5 && (digits == t.size() || (digits + 1 == t.size() && t[digits] == 'a'));
}

bool validLetter(char c, const ir::Type& t) {
  if (t.isPtr()) return c == 'A' || c == 'P';
  if (t.isFloat()) return c == 'F';
  return std::string("D8421NMF").find(c) != std::string::npos;
}

// The records of the payload, in order.
class RecordReader {
 public:
  explicit RecordReader(const std::string& payload) : s_(payload) {}
  bool next(std::string& name, std::string& value) {
    if (at_ == s_.size()) return false;
    size_t nl = s_.find('\n', at_);
    if (nl == std::string::npos || nl - at_ > kMaxRecordName + 21) bad("a record header is cut short");
    std::string header = s_.substr(at_, nl - at_);
    size_t sp = header.find(' ');
    uint64_t length = 0;
    if (sp == std::string::npos || !parseCount(header.substr(sp + 1), length))
      bad("malformed record header '" + header + "'");
    name = header.substr(0, sp);
    at_ = nl + 1;
    if (length > s_.size() - at_ || s_.size() - at_ - length < 1 || s_[at_ + length] != '\n')
      bad("record '" + name + "' runs past the end of the payload");
    value = s_.substr(at_, length);
    at_ += length + 1;
    return true;
  }

 private:
  const std::string& s_;
  size_t at_ = 0;
};

KernelPack parsePayload(const std::string& payload) {
  KernelPack pack;
  RecordReader records(payload);
  std::string name, value;
  PackEntry* entry = nullptr;
  auto needEntry = [&]() -> PackEntry& {
    if (!entry) bad("record '" + name + "' comes before any 'entry'");
    return *entry;
  };
  while (records.next(name, value)) {
    if (name == "producer") {
      pack.producer = value;
    } else if (name == "kernel") {
      if (!isIdentifier(value)) bad("bad kernel name '" + value + "'");
      pack.kernel = value;
    } else if (name == "source-file") {
      pack.sourceFile = value;
    } else if (name == "param") {
      if (entry) bad("a 'param' record after the first entry");
      size_t sp = value.find(' ');
      std::optional<ir::Type> t = sp == std::string::npos ? std::nullopt : paramTypeFromText(value.substr(sp + 1));
      if (!t || !isIdentifier(value.substr(0, sp))) bad("bad parameter '" + value + "' (expected NAME TYPE)");
      pack.params.push_back({value.substr(0, sp), *t});
    } else if (name == "entry") {
      pack.entries.emplace_back();
      entry = &pack.entries.back();
    } else if (name == "target") {
      if (!validTarget(value)) bad("unknown target '" + value + "' (expected sm_XX, sm_XXa, cpu or interp)");
      needEntry().target = value;
    } else if (name == "tuned") {
      needEntry().tuned.push_back(parseMacro(value));
    } else if (name == "macro") {
      needEntry().fixed.push_back(parseMacro(value));
    } else if (name == "num-warps") {
      int w = parseSmallInt("num-warps", value, 1, 32);
      if (w & (w - 1)) bad("num-warps is " + value + " (expected a power of two)");
      needEntry().numWarps = w;
    } else if (name == "num-stages") {
      needEntry().numStages = parseSmallInt("num-stages", value, 1, 8);
    } else if (name == "specialization") {
      needEntry().specialization = value;
    } else if (name == "shared-bytes") {
      needEntry().sharedBytes = unsigned(parseSmallInt("shared-bytes", value, 0, 1 << 30));
    } else if (name == "ptx" || name == "ir") {
      if (!needEntry().code.empty()) bad("an entry with two 'ptx' or 'ir' records");
      if (value.empty()) bad("an empty '" + name + "' record");
      if ((name == "ptx") != entry->onGpu())
        bad("a '" + name + "' record in an entry for target '" + entry->target + "'");
      entry->code = value;
    } else if (name == "cubin") {
      needEntry().cubin = value;
    } else {
      bad("unknown record '" + name.substr(0, kMaxRecordName) + "'");
    }
  }
  if (pack.kernel.empty()) bad("no 'kernel' record");
  if (pack.entries.empty()) bad("no entries: the file holds no code");
  for (size_t i = 0; i < pack.entries.size(); ++i) {
    const PackEntry& e = pack.entries[i];
    std::string which = "entry " + std::to_string(i + 1);
    if (e.target.empty()) bad(which + " has no target");
    if (e.code.empty()) bad(which + " has no code");
    if (!e.cubin.empty() && !e.onGpu()) bad(which + " (" + e.target + ") has a cubin");
    if (e.specialization.size() != pack.params.size())
      bad(which + "'s specialization '" + e.specialization + "' does not have one letter per parameter (" +
          std::to_string(pack.params.size()) + ")");
    for (size_t k = 0; k < pack.params.size(); ++k)
      if (!validLetter(e.specialization[k], pack.params[k].type))
        bad(which + "'s specialization '" + e.specialization + "' has '" + std::string(1, e.specialization[k]) +
            "' for parameter '" + pack.params[k].name + "' (" + paramTypeText(pack.params[k].type) + ")");
  }
  return pack;
}

}  // namespace

std::string serializePack(const KernelPack& pack) {
  std::string payload;
  record(payload, "producer", pack.producer);
  record(payload, "kernel", pack.kernel);
  record(payload, "source-file", pack.sourceFile);
  for (const Param& p : pack.params) record(payload, "param", p.name + " " + paramTypeText(p.type));
  for (const PackEntry& e : pack.entries) {
    record(payload, "entry", "");
    record(payload, "target", e.target);
    for (const lang::Define& d : e.tuned) record(payload, "tuned", defineText(d));
    for (const lang::Define& d : e.fixed) record(payload, "macro", defineText(d));
    record(payload, "num-warps", std::to_string(e.numWarps));
    record(payload, "num-stages", std::to_string(e.numStages));
    record(payload, "specialization", e.specialization);
    if (e.onGpu()) record(payload, "shared-bytes", std::to_string(e.sharedBytes));
    record(payload, e.onGpu() ? "ptx" : "ir", e.code);
    if (!e.cubin.empty()) record(payload, "cubin", e.cubin);
  }
  return std::string(kMagic) + std::to_string(kPackFormatVersion) + "\n" + std::to_string(payload.size()) + " " +
         checksum64Hex(payload.data(), payload.size()) + "\n" + payload;
}

KernelPack parsePack(const std::string& bytes, const std::string& path) {
  try {
    size_t nl = bytes.find('\n');
    std::string first = bytes.substr(0, nl == std::string::npos ? std::min<size_t>(bytes.size(), 40) : nl);
    if (bytes.rfind(kMagic, 0) != 0) {
      if (bytes.rfind("tritonc-cache ", 0) == 0)
        bad("an entry of tritonc's kernel cache, not a file written by `tritonc compile`");
      bad(bytes.empty() ? "the file is empty" : "not a .tck file of `tritonc compile` (it does not start with 'tritonc-kernels')");
    }
    uint64_t version = 0;
    if (nl == std::string::npos || !parseCount(first.substr(std::string(kMagic).size()), version))
      bad("a malformed first line '" + first.substr(0, 40) + "'");
    if (version != uint64_t(kPackFormatVersion))
      bad("format version " + std::to_string(version) + "; this tritonc (" + versionString() + ") reads version " +
          std::to_string(kPackFormatVersion) + ": compile the kernel again with it");
    size_t nl2 = bytes.find('\n', nl + 1);
    if (nl2 == std::string::npos) bad("truncated: the header is cut short");
    std::string header = bytes.substr(nl + 1, nl2 - nl - 1);
    size_t sp = header.find(' ');
    uint64_t length = 0;
    if (sp == std::string::npos || !parseCount(header.substr(0, sp), length) || header.size() - sp - 1 != 16)
      bad("a malformed header line '" + header.substr(0, 60) + "'");
    const size_t have = bytes.size() - nl2 - 1;
    if (have < length)
      bad("truncated: " + std::to_string(have) + " of its " + std::to_string(length) + " bytes of payload are there");
    if (have > length) bad("damaged: " + std::to_string(have - length) + " bytes follow the payload");
    if (checksum64Hex(bytes.data() + nl2 + 1, have) != header.substr(sp + 1))
      bad("damaged: the checksum does not match the contents");
    return parsePayload(bytes.substr(nl2 + 1));
  } catch (const PackError& e) {
    throw PackFileError(SourceLoc{}, path + ": " + e.what);
  }
}

KernelPack readPack(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw PackFileError(SourceLoc{}, "'" + path + "' is a directory, not a .tck file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw PackFileError(SourceLoc{}, "cannot open '" + path + "'");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw PackFileError(SourceLoc{}, "cannot read '" + path + "'");
  return parsePack(ss.str(), path);
}

void writePack(const KernelPack& pack, const std::string& path) {
  const std::string bytes = serializePack(pack);
  const std::string temp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(std::random_device{}());
  {
    std::ofstream out(temp, std::ios::binary);
    out.write(bytes.data(), std::streamsize(bytes.size()));
    out.close();
    if (!out) {
      std::remove(temp.c_str());
      throw UserError(SourceLoc{}, "cannot write '" + path + "'");
    }
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    std::remove(temp.c_str());
    throw UserError(SourceLoc{}, "cannot write '" + path + "' (renaming the temporary file failed)");
  }
}

}  // namespace tritonc::runtime
