// The .tck format (runtime/kernel_pack.h, docs/TCK_FORMAT.md): packs with
// random contents (binary cubins included) survive writing and reading;
// every truncation, every flipped bit, another format version, a cache
// entry, an empty or foreign file, and payloads that are well checksummed
// but malformed are each a PackFileError naming the file and the problem,
// never a crash or another exception.
#include "runtime/kernel_pack.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "runtime/hash.h"

using namespace tritonc;
using namespace tritonc::runtime;

namespace {

std::mt19937_64 freshRng(uint64_t* seed) {
  *seed = (uint64_t(std::random_device{}()) << 32) ^ std::random_device{}();
  return std::mt19937_64(*seed);
}

std::string randomText(std::mt19937_64& rng, size_t maxLength) {
  std::string s(rng() % (maxLength + 1), ' ');
  for (char& c : s) c = "abcXYZ019_ \n\t%@=*[],"[rng() % 21];
  return s;
}

std::string randomBytes(std::mt19937_64& rng, size_t maxLength) {
  std::string s(rng() % (maxLength + 1), '\0');
  for (char& c : s) c = char(rng() & 0xFF);
  return s;
}

// A pack with `entries` entries of random contents (valid: the reader
// checks what it can, so letters fit the parameters' types).
KernelPack randomPack(std::mt19937_64& rng, size_t entries) {
  KernelPack p;
  p.kernel = "k" + std::to_string(rng() % 1000);
  p.sourceFile = randomText(rng, 40);
  p.producer = "tritonc test " + randomText(rng, 10);
  const char* const types[] = {"f16*", "f32*", "i32", "i64", "f32", "i1", "bf16*", "i8*"};
  const size_t nparams = 1 + rng() % 6;
  for (size_t k = 0; k < nparams; ++k)
    p.params.push_back({"p" + std::to_string(k), *paramTypeFromText(types[rng() % 8])});
  const char* const targets[] = {"sm_80", "sm_90a", "cpu", "interp"};
  for (size_t i = 0; i < entries; ++i) {
    PackEntry e;
    e.target = targets[rng() % 4];
    for (size_t m = rng() % 3; m-- > 0;) e.tuned.push_back({"T" + std::to_string(m), std::to_string(rng() % 256)});
    for (size_t m = rng() % 3; m-- > 0;) e.fixed.push_back({"F" + std::to_string(m), randomText(rng, 8)});
    e.numWarps = 1 << (rng() % 6);
    e.numStages = 1 + int(rng() % 8);
    for (const Param& prm : p.params) {
      const std::string letters = prm.type.isPtr() ? "AP" : prm.type.isFloat() ? "F" : "D8421NMF";
      e.specialization += letters[rng() % letters.size()];
    }
    e.code = "x" + randomText(rng, 300);
    if (e.onGpu()) {
      e.sharedBytes = unsigned(rng() % 200000);
      if (rng() % 2) e.cubin = randomBytes(rng, 400);
    }
    p.entries.push_back(e);
  }
  return p;
}

void expectSame(const KernelPack& a, const KernelPack& b) {
  EXPECT_EQ(a.kernel, b.kernel);
  EXPECT_EQ(a.sourceFile, b.sourceFile);
  EXPECT_EQ(a.producer, b.producer);
  ASSERT_EQ(a.params.size(), b.params.size());
  for (size_t k = 0; k < a.params.size(); ++k) {
    EXPECT_EQ(a.params[k].name, b.params[k].name);
    EXPECT_EQ(a.params[k].type, b.params[k].type);
  }
  ASSERT_EQ(a.entries.size(), b.entries.size());
  for (size_t i = 0; i < a.entries.size(); ++i) {
    const PackEntry &x = a.entries[i], &y = b.entries[i];
    EXPECT_EQ(x.target, y.target);
    EXPECT_EQ(x.config().text(), y.config().text());
    ASSERT_EQ(x.fixed.size(), y.fixed.size());
    for (size_t m = 0; m < x.fixed.size(); ++m) EXPECT_EQ(x.fixed[m].value, y.fixed[m].value);
    EXPECT_EQ(x.specialization, y.specialization);
    EXPECT_EQ(x.sharedBytes, y.sharedBytes);
    EXPECT_EQ(x.code, y.code);
    EXPECT_EQ(x.cubin, y.cubin);
  }
}

// What parsing `bytes` throws: the PackFileError's message, or a failure.
std::string parseError(const std::string& bytes) {
  try {
    parsePack(bytes, "k.tck");
  } catch (const PackFileError& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("WRONG EXCEPTION: ") + e.what();
  }
  return "PARSED";
}

// A file around `payload`, with a correct header and checksum.
std::string wrap(const std::string& payload) {
  return "tritonc-kernels " + std::to_string(kPackFormatVersion) + "\n" + std::to_string(payload.size()) + " " +
         checksum64Hex(payload.data(), payload.size()) + "\n" + payload;
}

std::string rec(const std::string& name, const std::string& value) {
  return name + " " + std::to_string(value.size()) + "\n" + value + "\n";
}

// The payload of a minimal valid pack (kernel k(f32* x, i32 n), one interp entry),
// with `entryExtra` records added to its entry.
std::string validPayload(const std::string& entryExtra = "", const std::string& specialization = "AD") {
  return rec("producer", "test") + rec("kernel", "k") + rec("source-file", "k.tc") + rec("param", "x f32*") +
         rec("param", "n i32") + rec("entry", "") + rec("target", "interp") + rec("num-warps", "4") +
         rec("num-stages", "3") + rec("specialization", specialization) + entryExtra + rec("ir", "kernel @k() {}");
}

TEST(KernelPack, RandomPacksRoundTrip) {
  uint64_t seed;
  std::mt19937_64 rng = freshRng(&seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (int round = 0; round < 50; ++round) {
    KernelPack p = randomPack(rng, 1 + rng() % 8);
    expectSame(p, parsePack(serializePack(p), "k.tck"));
  }
}

TEST(KernelPack, FilesRoundTripAndMissingFilesAreNamed) {
  uint64_t seed;
  std::mt19937_64 rng = freshRng(&seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::string dir = std::filesystem::temp_directory_path() / ("kernel_pack_test." + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  KernelPack p = randomPack(rng, 4);
  writePack(p, dir + "/k.tck");
  expectSame(p, readPack(dir + "/k.tck"));
  try {
    readPack(dir + "/missing.tck");
    ADD_FAILURE() << "a missing file was read";
  } catch (const PackFileError& e) {
    EXPECT_NE(std::string(e.what()).find("missing.tck"), std::string::npos) << e.what();
  }
  try {
    readPack(dir);
    ADD_FAILURE() << "a directory was read";
  } catch (const PackFileError& e) {
    EXPECT_NE(std::string(e.what()).find("directory"), std::string::npos) << e.what();
  }
  EXPECT_THROW(writePack(p, dir + "/no/such/folder/k.tck"), UserError);
  std::filesystem::remove_all(dir);
}

TEST(KernelPack, EveryTruncationIsNamed) {
  uint64_t seed;
  std::mt19937_64 rng = freshRng(&seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::string bytes = serializePack(randomPack(rng, 3));
  for (size_t n = 0; n < bytes.size(); ++n) {
    std::string why = parseError(bytes.substr(0, n));
    ASSERT_EQ(why.rfind("k.tck: ", 0), 0u) << "prefix of " << n << " bytes: " << why;
    if (n > 64) {
      EXPECT_NE(why.find("truncated"), std::string::npos) << n << ": " << why;
    }
  }
}

TEST(KernelPack, EveryFlippedBitIsCaught) {
  uint64_t seed;
  std::mt19937_64 rng = freshRng(&seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::string bytes = serializePack(randomPack(rng, 2));
  for (size_t at = 0; at < bytes.size(); ++at) {
    std::string damaged = bytes;
    damaged[at] = char(damaged[at] ^ (1 << (rng() % 8)));
    std::string why = parseError(damaged);
    ASSERT_EQ(why.rfind("k.tck: ", 0), 0u) << "byte " << at << ": " << why;
  }
  // Bytes added at the end are damage too.
  EXPECT_NE(parseError(bytes + "x").find("damaged"), std::string::npos);
}

TEST(KernelPack, OtherFilesAreNamedForWhatTheyAre) {
  EXPECT_NE(parseError("").find("empty"), std::string::npos);
  EXPECT_NE(parseError("\x7f" "ELF\2\1\1").find("not a .tck file"), std::string::npos);
  EXPECT_NE(parseError("tritonc-cache 2\n12\nkey...").find("kernel cache"), std::string::npos);
  std::string v2 = wrap(validPayload());
  v2.replace(0, std::string("tritonc-kernels 1").size(), "tritonc-kernels 2");
  std::string why = parseError(v2);
  EXPECT_NE(why.find("format version 2"), std::string::npos) << why;
  EXPECT_NE(why.find("reads version 1"), std::string::npos) << why;
  EXPECT_NE(parseError("tritonc-kernels x\n").find("malformed"), std::string::npos);
  EXPECT_EQ(parseError(wrap(validPayload())), "PARSED");
}

TEST(KernelPack, MalformedPayloadsAreNamed) {
  struct Bad {
    std::string payload, expected;
  };
  const Bad bad[] = {
      {validPayload(rec("flavour", "x")), "unknown record 'flavour'"},
      {validPayload("", "A"), "one letter per parameter"},
      {validPayload("", "DD"), "'D' for parameter 'x'"},
      {validPayload("", "AA"), "'A' for parameter 'n'"},
      {validPayload(rec("num-warps", "3")), "power of two"},
      {validPayload(rec("num-stages", "9")), "num-stages"},
      {validPayload(rec("tuned", "=4")), "bad macro"},
      {validPayload(rec("cubin", "xx")), "has a cubin"},
      {validPayload(rec("ptx", ".entry k")), "'ptx' record in an entry for target 'interp'"},
      {rec("kernel", "k") + rec("param", "x f32*"), "no entries"},
      {rec("param", "x f32*") + rec("entry", ""), "no 'kernel' record"},
      {rec("kernel", "k") + rec("param", "x float4"), "bad parameter"},
      {rec("kernel", "k") + rec("target", "cpu"), "before any 'entry'"},
      {rec("kernel", "1k"), "bad kernel name"},
      {validPayload() + rec("param", "y i32"), "after the first entry"},
      {validPayload().substr(0, validPayload().size() - 1) + "x", "runs past the end"},
      {validPayload() + "kernel 99\nk\n", "runs past the end"},
      {validPayload() + "kernel\n", "malformed record header"},
      {rec("kernel", "k") + rec("param", "x f32*") + rec("entry", "") + rec("target", "sm_9x"), "unknown target"},
  };
  for (const Bad& b : bad) {
    std::string why = parseError(wrap(b.payload));
    EXPECT_NE(why.find(b.expected), std::string::npos) << "expected '" << b.expected << "', got: " << why;
    EXPECT_EQ(why.rfind("k.tck: ", 0), 0u) << why;
  }
}

// Well-checksummed garbage, made of real record names with random values
// and lengths: parsed or refused, nothing else.
TEST(KernelPack, ChecksummedGarbageIsRefusedOrRead) {
  uint64_t seed;
  std::mt19937_64 rng = freshRng(&seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  const char* const names[] = {"kernel", "param", "entry", "target", "tuned", "macro", "num-warps", "num-stages",
                               "specialization", "shared-bytes", "ptx", "ir", "cubin", "producer", "source-file"};
  for (int round = 0; round < 3000; ++round) {
    std::string payload;
    for (size_t r = rng() % 12; r-- > 0;) {
      std::string value = rng() % 3 ? randomText(rng, 12) : randomBytes(rng, 12);
      std::string record = rec(names[rng() % 15], value);
      if (rng() % 8 == 0) record = record.substr(0, rng() % (record.size() + 1));  // cut anywhere
      payload += record;
    }
    std::string why = parseError(wrap(payload));
    ASSERT_TRUE(why == "PARSED" || why.rfind("k.tck: ", 0) == 0) << why;
  }
}

}  // namespace
