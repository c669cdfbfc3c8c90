// SHA-256 (FIPS 180-4), written here so that the kernel cache needs no
// crypto library. Used for cache file names and payload checksums, where a
// strong hash makes accidental collisions a non-issue.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace tritonc::runtime {

// Incremental hashing: update() any number of times, then digest(). digest()
// does not disturb the running state, so more data may follow.
class Sha256 {
 public:
  Sha256();
  void update(const void* data, size_t size);
  void update(const std::string& data) { update(data.data(), data.size()); }
  std::array<uint8_t, 32> digest() const;
  std::string hexDigest() const;  // 64 lowercase hex characters

 private:
  static void compress(uint32_t state[8], const uint8_t block[64]);
  uint32_t state_[8];
  uint8_t buffer_[64];
  size_t buffered_ = 0;
  uint64_t totalBytes_ = 0;
};

// The SHA-256 of `data` as 64 lowercase hex characters.
std::string sha256Hex(const std::string& data);

// A fast 64-bit checksum (not cryptographic): detects damaged cache payloads
// at several GB/s, where SHA-256 would cost a millisecond per entry.
uint64_t checksum64(const void* data, size_t size);
std::string checksum64Hex(const void* data, size_t size);  // 16 lowercase hex digits

}  // namespace tritonc::runtime
