// The on-disk kernel cache: compiled artifacts, one file per key, shared by
// every process of the user. Entries are validated on every load (format,
// full key, payload checksum) so that a crash mid-write, a disk error or a
// hash collision costs a recompile, never a wrong kernel.
//
// Entry file `<first 32 hex chars of sha256(key)>.tck`:
//   "tritonc-cache 2\n"
//   <key length, decimal> "\n" <key bytes> "\n"
//   <payload length, decimal> "\n"
//   <checksum64 of the payload, 16 hex> "\n"   (fast; SHA-256 names the file)
//   <payload bytes>            (exactly the length above; nothing after)
#pragma once
#include <cstddef>
#include <optional>
#include <string>

namespace tritonc::runtime {

// Compiled artifacts on disk, one file per key.
class DiskCache {
 public:
  explicit DiskCache(std::string directory);  // created (with parents) on first store
  // $TRITONC_CACHE_DIR if set and non-empty; else $XDG_CACHE_HOME/tritonc (when
  // absolute, as the XDG spec asks); else $HOME/.cache/tritonc; else
  // /tmp/tritonc-cache-<uid>.
  static std::string defaultDirectory();
  const std::string& directory() const;
  // The file that holds (or would hold) the entry for `key`.
  std::string entryPath(const std::string& key) const;
  // The payload stored under `key`, or nullopt when missing. A truncated,
  // corrupt (checksum mismatch), foreign (bad magic / other format version /
  // other key) entry is treated as missing, removed (best effort), and `*why`
  // (when given) says why in one line (e.g. "checksum mismatch"). Never throws.
  std::optional<std::string> load(const std::string& key, std::string* why = nullptr) const;
  // Writes atomically (temporary file in the same directory, then rename()),
  // so readers never see a partial entry and concurrent stores of one key all
  // succeed. Returns false with `*why` when the directory cannot be written.
  // Never throws.
  bool store(const std::string& key, const std::string& payload, std::string* why = nullptr) const;
  // Removes every entry (and leftover temporary files); returns how many
  // files were removed. Other files in the directory are left alone.
  size_t clear() const;

 private:
  std::string directory_;
};

}  // namespace tritonc::runtime
