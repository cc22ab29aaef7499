// ort_oracle/sha256.h: SHA-256 (FIPS 180-4) for keying the reference-output cache.
//
// Layer: test support (nxrt_ort_oracle), standard library only. Streaming: feed bytes with
// Update, read the digest once with HexDigest.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace nxrt::oracle {

class Sha256 {
 public:
  Sha256();

  // Appends `bytes` to the message.
  void Update(std::span<const uint8_t> bytes);
  void Update(std::string_view text);
  // Appends `value` as 8 little-endian bytes (lengths and counts in keys).
  void UpdateU64(uint64_t value);

  // The 32-byte digest of everything fed so far. Finishes the hash: call once.
  std::array<uint8_t, 32> Digest();
  // Digest() as 64 lower-case hex characters.
  std::string HexDigest();

 private:
  void Compress(const uint8_t* block);

  std::array<uint32_t, 8> state_;
  std::array<uint8_t, 64> buffer_{};
  size_t buffered_ = 0;
  uint64_t total_bytes_ = 0;
};

}  // namespace nxrt::oracle
