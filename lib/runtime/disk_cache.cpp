#include "runtime/disk_cache.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <random>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/hash.h"

namespace tritonc::runtime {

namespace {

constexpr std::string_view kMagic = "tritonc-cache 2\n";
constexpr std::string_view kMagicName = "tritonc-cache ";  // the part every version shares
constexpr std::string_view kExtension = ".tck";
constexpr std::string_view kTempMarker = ".tck.tmp.";
constexpr size_t kMaxDigits = 19;  // fits in uint64_t

void setWhy(std::string* why, std::string text) {
  if (why) *why = std::move(text);
}

std::string errnoText(const std::string& what, const std::string& path, int err) {
  return what + " " + path + ": " + std::strerror(err);
}

// Closes on scope exit, so every early return releases the descriptor.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

bool isDirectory(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// mkdir -p. 0700: the cache holds code that will be run, so other users
// must not be able to plant entries.
bool makeDirectories(const std::string& path, std::string& error) {
  if (path.empty()) {
    error = "empty cache directory name";
    return false;
  }
  if (isDirectory(path)) return true;
  for (size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    const std::string prefix = path.substr(0, slash);
    if (!prefix.empty() && prefix.back() != '/' && ::mkdir(prefix.c_str(), 0700) != 0 && errno != EEXIST) {
      error = errnoText("cannot create directory", prefix, errno);
      return false;
    }
    if (slash == std::string::npos) break;
  }
  if (!isDirectory(path)) {
    error = "not a directory: " + path;
    return false;
  }
  return true;
}

bool writeAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += n;
    size -= size_t(n);
  }
  return true;
}

// Reads to end of file (entries are replaced by rename, never modified in
// place, so the size seen by fstat is only a hint).
bool readAll(int fd, std::string& out, size_t sizeHint) {
  out.clear();
  out.resize(sizeHint + 1);
  size_t used = 0;
  for (;;) {
    if (used == out.size()) out.resize(out.size() * 2);
    const ssize_t n = ::read(fd, &out[used], out.size() - used);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (n == 0) break;
    used += size_t(n);
  }
  out.resize(used);
  return true;
}

// Random suffix of temporary file names. The pid already separates
// processes and O_EXCL catches any clash; this separates threads.
std::string randomSuffix() {
  thread_local std::mt19937_64 engine = [] {
    uint64_t seed = uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
    seed ^= uint64_t(reinterpret_cast<uintptr_t>(&seed));
    try {
      std::random_device device;
      seed ^= uint64_t(device()) << 32 | device();
    } catch (...) {
    }
    return std::mt19937_64(seed);
  }();
  static const char kHex[] = "0123456789abcdef";
  uint64_t r = engine();
  std::string out;
  for (int i = 0; i < 16; ++i, r >>= 4) out += kHex[r & 15];
  return out;
}

// A decimal number ended by '\n' at `pos`. Returns "" on success, else why.
std::string readNumber(const std::string& file, size_t& pos, uint64_t& value) {
  const size_t nl = file.find('\n', pos);
  if (nl == std::string::npos) return "truncated (in the header)";
  if (nl == pos || nl - pos > kMaxDigits) return "corrupt header (bad length field)";
  value = 0;
  for (size_t i = pos; i < nl; ++i) {
    if (file[i] < '0' || file[i] > '9') return "corrupt header (bad length field)";
    value = value * 10 + uint64_t(file[i] - '0');
  }
  pos = nl + 1;
  return "";
}

// Checks an entry read from disk against the format and `key`. On success
// returns "" and leaves the payload's offset and size; else says why.
std::string checkEntry(const std::string& file, const std::string& key, size_t& payloadOffset,
                       size_t& payloadSize) {
  if (file.empty()) return "truncated (empty file)";
  const size_t common = std::min(file.size(), kMagic.size());
  if (file.compare(0, common, kMagic.data(), common) != 0) {
    if (file.compare(0, kMagicName.size(), kMagicName.data(), kMagicName.size()) == 0)
      return "other format version";
    return "bad magic (not a tritonc cache entry)";
  }
  if (file.size() < kMagic.size()) return "truncated (in the header)";
  size_t pos = kMagic.size();

  uint64_t keySize = 0;
  if (std::string err = readNumber(file, pos, keySize); !err.empty()) return err;
  if (keySize != key.size()) return "foreign entry (other key)";
  if (file.size() - pos < keySize + 1) return "truncated (in the key)";
  if (file.compare(pos, keySize, key) != 0) return "foreign entry (other key)";
  pos += keySize;
  if (file[pos] != '\n') return "corrupt header (after the key)";
  ++pos;

  uint64_t size = 0;
  if (std::string err = readNumber(file, pos, size); !err.empty()) return err;
  if (file.size() - pos < 17) return "truncated (in the checksum)";
  const std::string checksum = file.substr(pos, 16);
  for (char c : checksum)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return "corrupt header (bad checksum field)";
  if (file[pos + 16] != '\n') return "corrupt header (after the checksum)";
  pos += 17;

  const size_t remaining = file.size() - pos;
  if (remaining < size) return "truncated (payload has " + std::to_string(remaining) + " of " +
                               std::to_string(size) + " bytes)";
  if (remaining > size) return "corrupt entry (trailing bytes after the payload)";
  if (checksum64Hex(file.data() + pos, size_t(size)) != checksum) return "checksum mismatch";
  payloadOffset = pos;
  payloadSize = size_t(size);
  return "";
}

bool endsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix.data()) == 0;
}

}  // namespace

DiskCache::DiskCache(std::string directory) : directory_(std::move(directory)) {}

std::string DiskCache::defaultDirectory() {
  auto env = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v ? v : "";
  };
  if (std::string dir = env("TRITONC_CACHE_DIR"); !dir.empty()) return dir;
  if (std::string xdg = env("XDG_CACHE_HOME"); !xdg.empty() && xdg[0] == '/') return xdg + "/tritonc";
  if (std::string home = env("HOME"); !home.empty()) return home + "/.cache/tritonc";
  return "/tmp/tritonc-cache-" + std::to_string(::getuid());
}

const std::string& DiskCache::directory() const { return directory_; }

std::string DiskCache::entryPath(const std::string& key) const {
  std::string path = directory_;
  if (!path.empty() && path.back() != '/') path += '/';
  return path + sha256Hex(key).substr(0, 32) + std::string(kExtension);
}

std::optional<std::string> DiskCache::load(const std::string& key, std::string* why) const {
  try {
    const std::string path = entryPath(key);
    Fd file;
    file.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (file.fd < 0) {
      const int err = errno;
      setWhy(why, err == ENOENT ? "not cached" : errnoText("cannot open", path, err));
      return std::nullopt;
    }
    struct stat st;
    if (::fstat(file.fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      setWhy(why, "not a regular file: " + path);
      return std::nullopt;
    }
    std::string bytes;
    if (!readAll(file.fd, bytes, size_t(st.st_size))) {
      setWhy(why, errnoText("cannot read", path, errno));
      return std::nullopt;
    }
    size_t offset = 0, size = 0;
    const std::string reason = checkEntry(bytes, key, offset, size);
    if (!reason.empty()) {
      // Remove only the file we read: another process may have renamed a
      // good entry over it meanwhile.
      struct stat now;
      if (::stat(path.c_str(), &now) == 0 && now.st_dev == st.st_dev && now.st_ino == st.st_ino)
        ::unlink(path.c_str());
      setWhy(why, reason);
      return std::nullopt;
    }
    bytes.erase(0, offset);
    return bytes;
  } catch (const std::exception& e) {
    setWhy(why, std::string("cannot load cache entry: ") + e.what());
  } catch (...) {
    setWhy(why, "cannot load cache entry: unknown error");
  }
  return std::nullopt;
}

bool DiskCache::store(const std::string& key, const std::string& payload, std::string* why) const {
  try {
    std::string error;
    if (!makeDirectories(directory_, error)) {
      setWhy(why, error);
      return false;
    }
    const std::string header = std::string(kMagic) + std::to_string(key.size()) + "\n" + key + "\n" +
                               std::to_string(payload.size()) + "\n" + checksum64Hex(payload.data(), payload.size()) + "\n";
    const std::string path = entryPath(key);
    std::string temp;
    Fd file;
    for (int attempt = 0; attempt < 16 && file.fd < 0; ++attempt) {
      temp = path + ".tmp." + std::to_string(::getpid()) + "." + randomSuffix();
      file.fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
      if (file.fd < 0 && errno != EEXIST) break;
    }
    if (file.fd < 0) {
      setWhy(why, errnoText("cannot create", temp, errno));
      return false;
    }
    // No fsync: after a crash a lost or short entry fails validation on
    // load and is recompiled, which is cheaper than syncing every store.
    bool ok = writeAll(file.fd, header.data(), header.size()) &&
              writeAll(file.fd, payload.data(), payload.size());
    int err = errno;
    const int fd = file.fd;
    file.fd = -1;
    if (::close(fd) != 0 && ok) {
      ok = false;
      err = errno;
    }
    if (!ok) {
      ::unlink(temp.c_str());
      setWhy(why, errnoText("cannot write", temp, err));
      return false;
    }
    if (::rename(temp.c_str(), path.c_str()) != 0) {
      err = errno;
      ::unlink(temp.c_str());
      setWhy(why, errnoText("cannot rename into", path, err));
      return false;
    }
    return true;
  } catch (const std::exception& e) {
    setWhy(why, std::string("cannot store cache entry: ") + e.what());
  } catch (...) {
    setWhy(why, "cannot store cache entry: unknown error");
  }
  return false;
}

size_t DiskCache::clear() const {
  try {
    std::vector<std::string> names;
    {
      std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(directory_.c_str()), &::closedir);
      if (!dir) return 0;
      // Collected first: unlinking while reading the directory may skip names.
      while (const dirent* entry = ::readdir(dir.get())) {
        const std::string name = entry->d_name;
        if (endsWith(name, kExtension) || name.find(kTempMarker) != std::string::npos) names.push_back(name);
      }
    }
    size_t removed = 0;
    const std::string prefix = directory_.empty() || directory_.back() == '/' ? directory_ : directory_ + "/";
    for (const std::string& name : names)
      if (::unlink((prefix + name).c_str()) == 0) ++removed;
    return removed;
  } catch (...) {
    return 0;
  }
}

}  // namespace tritonc::runtime
