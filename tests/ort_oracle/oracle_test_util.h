// ort_oracle/oracle_test_util.h: GoogleTest helpers for tests that need ONNX Runtime.
//
// Layer: test support (tests only). A test fixture deriving from OracleTest gets `oracle()` or
// is skipped, with the reason, when the ORT library has not been fetched (scripts/bootstrap.sh
// not run). A library that exists but fails to load is a test failure, not a skip.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>

#include "ort_oracle/ort_oracle.h"

namespace nxrt::oracle {

class OracleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string path = OrtOracle::DefaultLibraryPath();
    std::error_code error;
    if (!std::filesystem::exists(path, error)) {
      GTEST_SKIP() << "ONNX Runtime is not at '" << path
                   << "': run scripts/bootstrap.sh (or set NXRT_ORT_LIBRARY)";
    }
    Result<OrtOracle> loaded = OrtOracle::Load(path);
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    oracle_.emplace(std::move(loaded).value());
  }

  const OrtOracle& oracle() const { return *oracle_; }

 private:
  std::optional<OrtOracle> oracle_;
};

}  // namespace nxrt::oracle
