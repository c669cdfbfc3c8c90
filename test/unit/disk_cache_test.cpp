// The kernel cache on disk (runtime/disk_cache.h) and its SHA-256
// (runtime/hash.h): published test vectors, hits and misses, every kind of
// damaged entry (which must read as a miss and be removed), concurrent
// writers in separate processes, and the default location.
#include "runtime/disk_cache.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "runtime/hash.h"

using namespace tritonc::runtime;

namespace {

// A fresh directory under /tmp, removed with its contents at scope exit.
class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/disk_cache_test.XXXXXX";
    const char* made = ::mkdtemp(pattern);
    if (!made) ADD_FAILURE() << "mkdtemp failed";
    path_ = made ? made : "";
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string randomBytes(std::mt19937_64& rng, size_t n) {
  std::string s(n, '\0');
  for (char& c : s) c = char(rng() & 0xff);
  // Make sure NUL bytes are present whatever the draw.
  for (size_t i = 0; i < n; i += 997) s[i] = '\0';
  return s;
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void writeFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
}

bool exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

std::vector<std::string> listDir(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) names.push_back(e.path().filename().string());
  return names;
}

// Expects `key` to read as a miss whose reason contains `fragment`, and the
// damaged file to be gone afterwards.
void expectRejected(const DiskCache& cache, const std::string& key, const std::string& fragment) {
  std::string why;
  const std::optional<std::string> got = cache.load(key, &why);
  EXPECT_FALSE(got.has_value());
  EXPECT_NE(why.find(fragment), std::string::npos) << "why: " << why;
  EXPECT_EQ(why.find('\n'), std::string::npos) << "why must be one line: " << why;
  EXPECT_FALSE(exists(cache.entryPath(key))) << "damaged entry not removed";
}

// ---------------------------------------------------------------- SHA-256

TEST(Sha256, FipsVectors) {
  EXPECT_EQ(sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256Hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmn"
                      "opqrsmnopqrstnopqrstu"),
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

TEST(Sha256, MillionA) {
  const char* expected = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
  EXPECT_EQ(sha256Hex(std::string(1000000, 'a')), expected);
  Sha256 h;
  const std::string thousand(1000, 'a');
  for (int i = 0; i < 1000; ++i) h.update(thousand);
  EXPECT_EQ(h.hexDigest(), expected);
}

// Padding edges (55/56 bytes: one or two final blocks; 64: empty last
// block). Expected values from coreutils sha256sum.
TEST(Sha256, BlockBoundaries) {
  const std::vector<std::pair<size_t, const char*>> cases = {
      {55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"},
      {56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"},
      {63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"},
      {64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"},
      {65, "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0"},
      {119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"},
      {120, "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c"},
      {128, "6836cf13bac400e9105071cd6af47084dfacad4e5e302c94bfed24e013afb73e"},
  };
  for (const auto& [n, hex] : cases) EXPECT_EQ(sha256Hex(std::string(n, 'a')), hex) << n << " bytes";
}

TEST(Sha256, IncrementalEqualsOneShot) {
  std::mt19937_64 rng(20240607);
  for (int trial = 0; trial < 50; ++trial) {
    const std::string data = randomBytes(rng, rng() % 20000);
    const std::string expected = sha256Hex(data);
    Sha256 h;
    size_t pos = 0;
    while (pos < data.size()) {
      // Mostly small chunks (crossing block edges at odd offsets), some large.
      const size_t want = rng() % 8 == 0 ? rng() % 5000 : rng() % 130;
      const size_t n = std::min(want, data.size() - pos);
      h.update(data.data() + pos, n);
      pos += n;
      if (rng() % 16 == 0) {
        EXPECT_EQ(h.hexDigest(), sha256Hex(data.substr(0, pos)));  // digest() is non-destructive
      }
    }
    EXPECT_EQ(h.hexDigest(), expected) << "trial " << trial << ", " << data.size() << " bytes";
    EXPECT_EQ(expected.size(), 64u);
  }
}

// ---------------------------------------------------------------- DiskCache

TEST(DiskCache, MissThenStoreThenHit) {
  TempDir tmp;
  std::mt19937_64 rng(1);
  const std::string dir = tmp.path() + "/nested/not/yet/there";
  DiskCache cache(dir);
  EXPECT_EQ(cache.directory(), dir);
  const std::vector<size_t> sizes = {0, 1, 1u << 20, size_t(rng() % ((1u << 20) + 1)), size_t(rng() % 4096)};
  for (size_t k = 0; k < sizes.size(); ++k) {
    const std::string key = "kernel source+options+sm_90+compiler " + std::to_string(k);
    const std::string payload = randomBytes(rng, sizes[k]);
    std::string why;
    EXPECT_FALSE(cache.load(key, &why).has_value());
    EXPECT_EQ(why, "not cached");
    ASSERT_TRUE(cache.store(key, payload, &why)) << why;
    const std::optional<std::string> got = cache.load(key);
    ASSERT_TRUE(got.has_value()) << sizes[k] << " bytes";
    EXPECT_EQ(got->size(), payload.size());
    EXPECT_TRUE(*got == payload) << sizes[k] << " bytes";
    // A second hit reads the same (a hit does not consume the entry).
    EXPECT_EQ(cache.load(key), payload);
  }
  const std::string name = cache.entryPath("x").substr(dir.size() + 1);
  EXPECT_EQ(name.size(), 32u + 4u);
  EXPECT_EQ(name, sha256Hex("x").substr(0, 32) + ".tck");
}

TEST(DiskCache, DifferentKeysDoNotCollide) {
  TempDir tmp;
  DiskCache cache(tmp.path());
  std::vector<std::string> keys = {"", std::string(1, '\0'), std::string("k1\0", 3), "k1", "k1\n", "K1"};
  for (int i = 0; i < 200; ++i) keys.push_back("key-" + std::to_string(i));
  auto payloadOf = [](size_t i, const std::string& key) { return "payload " + std::to_string(i) + ":" + key; };
  for (size_t i = 0; i < keys.size(); ++i) ASSERT_TRUE(cache.store(keys[i], payloadOf(i, keys[i])));
  for (size_t i = 0; i < keys.size(); ++i) EXPECT_EQ(cache.load(keys[i]), payloadOf(i, keys[i])) << "key #" << i;
  EXPECT_EQ(listDir(tmp.path()).size(), keys.size());
}

TEST(DiskCache, OverwriteReplaces) {
  TempDir tmp;
  std::mt19937_64 rng(2);
  DiskCache cache(tmp.path());
  const std::string first = randomBytes(rng, 5000), second = randomBytes(rng, 300);
  ASSERT_TRUE(cache.store("k", first));
  ASSERT_TRUE(cache.store("k", second));
  EXPECT_EQ(cache.load("k"), second);
  ASSERT_TRUE(cache.store("k", first));
  EXPECT_EQ(cache.load("k"), first);
  EXPECT_EQ(listDir(tmp.path()).size(), 1u);
}

TEST(DiskCache, TruncatedEntryIsMissAndRemoved) {
  TempDir tmp;
  std::mt19937_64 rng(3);
  DiskCache cache(tmp.path());
  const std::string key = "truncated kernel", payload = randomBytes(rng, 10000);
  ASSERT_TRUE(cache.store(key, payload));
  const std::string path = cache.entryPath(key);
  const std::string full = readFile(path);
  const size_t header = full.size() - payload.size();
  ASSERT_GT(header, 16u + 16u);
  // Every part of the layout, then random cuts.
  std::vector<size_t> cuts = {0, 1, 8, 15, 16, 17, 18, 19 + key.size() / 2, header - 18, header - 1,
                              header, header + 1, full.size() - 1};
  for (int i = 0; i < 20; ++i) cuts.push_back(rng() % full.size());
  for (size_t cut : cuts) {
    SCOPED_TRACE("cut at " + std::to_string(cut) + " of " + std::to_string(full.size()));
    writeFile(path, full);
    ASSERT_EQ(::truncate(path.c_str(), off_t(cut)), 0);
    expectRejected(cache, key, "truncated");
  }
  ASSERT_TRUE(cache.store(key, payload));
  EXPECT_EQ(cache.load(key), payload);
}

TEST(DiskCache, FlippedPayloadByteIsChecksumMismatch) {
  TempDir tmp;
  std::mt19937_64 rng(4);
  DiskCache cache(tmp.path());
  const std::string key = "k", payload = randomBytes(rng, 4096);
  ASSERT_TRUE(cache.store(key, payload));
  const std::string path = cache.entryPath(key);
  const std::string full = readFile(path);
  const size_t header = full.size() - payload.size();
  const std::vector<size_t> offsets = {0, payload.size() - 1, rng() % payload.size(), rng() % payload.size()};
  for (size_t offset : offsets) {
    SCOPED_TRACE("payload byte " + std::to_string(offset));
    std::string damaged = full;
    damaged[header + offset] ^= char(1 + rng() % 255);
    writeFile(path, damaged);
    expectRejected(cache, key, "checksum");
  }
  // Damage in the header is caught too (as some kind of bad entry).
  for (size_t offset = 0; offset < header; ++offset) {
    std::string damaged = full;
    damaged[offset] ^= 0x20;
    writeFile(path, damaged);
    std::string why;
    EXPECT_FALSE(cache.load(key, &why).has_value()) << "header byte " << offset;
    EXPECT_FALSE(why.empty());
  }
  // Bytes appended after the payload.
  writeFile(path, full + "x");
  expectRejected(cache, key, "trailing");
}

TEST(DiskCache, GarbageOrOtherVersionIsMiss) {
  TempDir tmp;
  std::mt19937_64 rng(5);
  DiskCache cache(tmp.path());
  const std::string key = "k";
  writeFile(cache.entryPath(key), randomBytes(rng, 4096));
  expectRejected(cache, key, "magic");
  writeFile(cache.entryPath(key), "ELF\x7f not a cache entry\n");
  expectRejected(cache, key, "magic");
  // A later format version (same name, other layout) is not ours to read.
  ASSERT_TRUE(cache.store(key, "payload"));
  std::string full = readFile(cache.entryPath(key));
  full.replace(0, 16, "tritonc-cache 9\n");
  writeFile(cache.entryPath(key), full);
  expectRejected(cache, key, "version");
}

TEST(DiskCache, EntryOfAnotherKeyIsForeign) {
  TempDir tmp;
  DiskCache cache(tmp.path());
  ASSERT_TRUE(cache.store("kernel-A", "payload A"));
  // Same key length (the bytes are compared) and another length.
  for (const std::string other : {"kernel-B", "a key of another length"}) {
    SCOPED_TRACE(other);
    std::filesystem::copy_file(cache.entryPath("kernel-A"), cache.entryPath(other),
                               std::filesystem::copy_options::overwrite_existing);
    expectRejected(cache, other, "key");
  }
  EXPECT_EQ(cache.load("kernel-A"), "payload A");
}

// Several processes writing one key at once (the normal case when a test
// suite launches the same kernel in parallel jobs): every store succeeds,
// no reader ever sees a partial entry, no temporary file survives.
TEST(DiskCache, ConcurrentStoresFromProcesses) {
  TempDir tmp;
  std::mt19937_64 rng(6);
  DiskCache cache(tmp.path() + "/shared");
  const std::string key = "shared kernel", payload = randomBytes(rng, 256 * 1024);
  constexpr int kChildren = 8, kRounds = 50;
  int gate[2];
  ASSERT_EQ(::pipe(gate), 0);
  std::fflush(nullptr);  // or buffered output would be written by every child
  std::vector<pid_t> children;
  for (int c = 0; c < kChildren; ++c) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      // Child: no gtest here; the exit status is the verdict.
      ::close(gate[1]);
      char byte;
      if (::read(gate[0], &byte, 1) < 0) ::_exit(10);  // EOF once every child exists
      for (int r = 0; r < kRounds; ++r) {
        std::optional<std::string> got = cache.load(key);
        if (got && *got != payload) ::_exit(3);
        if (!cache.store(key, payload)) ::_exit(2);
        got = cache.load(key);
        if (!got) ::_exit(4);  // someone stored already, so it can't be missing
        if (*got != payload) ::_exit(3);
      }
      ::_exit(0);
    }
    children.push_back(pid);
  }
  ::close(gate[0]);
  ::close(gate[1]);
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status)) << "child " << pid << " died, status " << status;
    EXPECT_EQ(WEXITSTATUS(status), 0) << "child " << pid << " (2 store failed, 3 wrong bytes, 4 missing)";
  }
  EXPECT_EQ(cache.load(key), payload);
  const std::vector<std::string> names = listDir(cache.directory());
  ASSERT_EQ(names.size(), 1u) << "leftover files, e.g. " << names.back();
  EXPECT_EQ(names[0], sha256Hex(key).substr(0, 32) + ".tck");
}

// Saves and restores environment variables around a test.
class EnvGuard {
 public:
  explicit EnvGuard(std::vector<std::string> names) {
    for (std::string& n : names) {
      const char* v = std::getenv(n.c_str());
      saved_.push_back({n, v ? std::optional<std::string>(v) : std::nullopt});
    }
  }
  ~EnvGuard() {
    for (const auto& [name, value] : saved_) {
      if (value) ::setenv(name.c_str(), value->c_str(), 1);
      else ::unsetenv(name.c_str());
    }
  }

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

TEST(DiskCache, DefaultDirectoryHonoursEnvironment) {
  const std::string before = DiskCache::defaultDirectory();
  {
    EnvGuard guard({"TRITONC_CACHE_DIR", "XDG_CACHE_HOME", "HOME"});
    ::setenv("TRITONC_CACHE_DIR", "/some/where/kernels", 1);
    ::setenv("XDG_CACHE_HOME", "/xdg", 1);
    ::setenv("HOME", "/home/someone", 1);
    EXPECT_EQ(DiskCache::defaultDirectory(), "/some/where/kernels");
    ::setenv("TRITONC_CACHE_DIR", "", 1);  // empty means unset
    EXPECT_EQ(DiskCache::defaultDirectory(), "/xdg/tritonc");
    ::unsetenv("TRITONC_CACHE_DIR");
    EXPECT_EQ(DiskCache::defaultDirectory(), "/xdg/tritonc");
    ::setenv("XDG_CACHE_HOME", "relative/path", 1);  // invalid per the XDG spec
    EXPECT_EQ(DiskCache::defaultDirectory(), "/home/someone/.cache/tritonc");
    ::unsetenv("XDG_CACHE_HOME");
    EXPECT_EQ(DiskCache::defaultDirectory(), "/home/someone/.cache/tritonc");
    ::unsetenv("HOME");
    EXPECT_EQ(DiskCache::defaultDirectory(), "/tmp/tritonc-cache-" + std::to_string(::getuid()));
  }
  EXPECT_EQ(DiskCache::defaultDirectory(), before);  // the environment was restored
}

TEST(DiskCache, UnwritableLocationFailsWithoutThrowing) {
  TempDir tmp;
  const std::string file = tmp.path() + "/regular-file";
  writeFile(file, "not a directory");
  for (const std::string& dir : {file + "/sub/dir", file}) {
    SCOPED_TRACE(dir);
    DiskCache cache(dir);
    std::string why;
    bool stored = true;
    EXPECT_NO_THROW(stored = cache.store("k", "payload", &why));
    EXPECT_FALSE(stored);
    EXPECT_FALSE(why.empty());
    EXPECT_NE(why.find(file), std::string::npos) << why;
    std::optional<std::string> got;
    EXPECT_NO_THROW(got = cache.load("k", &why));
    EXPECT_FALSE(got.has_value());
    EXPECT_EQ(cache.clear(), 0u);
  }
  EXPECT_EQ(readFile(file), "not a directory");
}

TEST(DiskCache, ClearRemovesEntriesOnly) {
  TempDir tmp;
  DiskCache cache(tmp.path());
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(cache.store("k" + std::to_string(i), "p"));
  writeFile(cache.entryPath("k0") + ".tmp.12345.deadbeef", "left by a crashed writer");
  writeFile(tmp.path() + "/notes.txt", "not ours");
  EXPECT_EQ(cache.clear(), 6u);
  for (int i = 0; i < 5; ++i) EXPECT_FALSE(cache.load("k" + std::to_string(i)).has_value());
  EXPECT_EQ(listDir(tmp.path()), std::vector<std::string>{"notes.txt"});
  EXPECT_EQ(cache.clear(), 0u);
}

}  // namespace
