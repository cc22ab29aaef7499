// ort_oracle/sha256_test.cpp: SHA-256 against the FIPS 180-4 example vectors.
//
// Layer: tests of nxrt_ort_oracle.
#include "ort_oracle/sha256.h"

#include <gtest/gtest.h>

namespace nxrt::oracle {
namespace {

std::string HashOf(std::string_view text) {
  Sha256 hash;
  hash.Update(text);
  return hash.HexDigest();
}

TEST(Sha256Test, FipsExampleVectors) {
  EXPECT_EQ(HashOf(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(HashOf("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(HashOf("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(HashOf(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256Test, PiecewiseUpdatesEqualOneUpdate) {
  std::string text;
  for (int i = 0; i < 300; ++i) text += static_cast<char>('a' + i % 26);
  for (size_t split : {0u, 1u, 55u, 56u, 63u, 64u, 65u, 128u, 299u}) {
    Sha256 hash;
    hash.Update(std::string_view(text).substr(0, split));
    hash.Update(std::string_view(text).substr(split));
    EXPECT_EQ(hash.HexDigest(), HashOf(text)) << "split at " << split;
  }
}

}  // namespace
}  // namespace nxrt::oracle
