// ep/cpu/kernels/contrib/contrib_test_util.h: what the contrib kernels' tests share (not part of
// the library): random inputs, running a one-node model in ONNX Runtime 1.30, and comparing
// float outputs within a relative tolerance.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "ep/cpu/kernels/tensor/single_op_test_util.h"
#include "ep/cpu/math/testing/nn_test_util.h"
#include "ort_oracle/ort_oracle.h"

namespace nxrt::cpu::kernels::testing {

using nn::testing::Count;
using nn::testing::RandomInt;

inline Tensor RandomFloats(std::mt19937& rng, const Shape& shape, double lo, double hi) {
  return Tensor::FromVector<float>(
             shape, nn::testing::RandomVector<float>(rng, Count(shape), lo, hi))
      .value();
}

inline Tensor RandomBytes(std::mt19937& rng, const Shape& shape) {
  Tensor t = Tensor::Allocate(DataType::kUint8, shape).value();
  for (int64_t i = 0; i < t.element_count(); ++i) {
    t.mutable_data<uint8_t>()[i] = static_cast<uint8_t>(rng());
  }
  return t;
}

inline std::vector<double> AsDoubles(const Tensor& t) {
  std::vector<double> out;
  for (int64_t i = 0; i < t.element_count(); ++i) out.push_back(t.data<float>()[i]);
  return out;
}

// Every element of float `got` within `tolerance` * max(1, |want|) of `want`.
inline void ExpectClose(const Tensor& got, const std::vector<double>& want, double tolerance,
                        const std::string& what) {
  ASSERT_EQ(got.dtype(), DataType::kFloat) << what;
  ASSERT_EQ(got.element_count(), static_cast<int64_t>(want.size())) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    const double g = got.data<float>()[i];
    ASSERT_LE(std::fabs(g - want[i]), tolerance * std::max(1.0, std::fabs(want[i])))
        << what << ": element " << i << " is " << g << ", expected " << want[i];
  }
}

// The outputs of `model` run by ONNX Runtime (graph inputs `feeds`). The model's file is named
// by the test and the process, so the same test run at once from several builds on one machine
// does not read another's model.
inline Result<std::vector<Tensor>> RunOrt(const oracle::OrtOracle& ort,
                                          const cpu::testing::SingleOpModel& model,
                                          const std::vector<NamedTensor>& feeds) {
  const std::string path = ::testing::TempDir() + "nxrt_contrib_test_" +
                           ::testing::UnitTest::GetInstance()->current_test_info()->name() +
                           "_" + std::to_string(getpid()) + ".onnx";
  NXRT_ASSIGN_OR_RETURN(std::string bytes, model.Serialize());
  std::ofstream(path, std::ios::binary) << bytes;
  Result<std::vector<NamedTensor>> out = ort.Run(path, feeds);
  std::remove(path.c_str());
  if (!out.ok()) return out.status();
  std::vector<Tensor> tensors;
  for (NamedTensor& t : *out) tensors.push_back(std::move(t.tensor));
  return tensors;
}

// Runs `model` in nxrt (with `options`) and ONNX Runtime and expects every output within
// `tolerance` (relative to max(1, |ORT's value|)); returns nxrt's outputs.
inline std::vector<Tensor> ExpectMatchesOrt(const oracle::OrtOracle& ort,
                                            const cpu::testing::SingleOpModel& model,
                                            const std::vector<NamedTensor>& feeds,
                                            double tolerance, const std::string& what,
                                            const SessionOptions& options = {}) {
  Result<std::vector<Tensor>> expected = RunOrt(ort, model, feeds);
  EXPECT_TRUE(expected.ok()) << what << ": ORT: " << expected.status().ToString();
  Result<std::vector<Tensor>> got = model.Run(options);
  EXPECT_TRUE(got.ok()) << what << ": " << got.status().ToString();
  if (!expected.ok() || !got.ok()) return {};
  EXPECT_EQ(got->size(), expected->size()) << what;
  for (size_t i = 0; i < std::min(got->size(), expected->size()); ++i) {
    EXPECT_EQ((*got)[i].shape(), (*expected)[i].shape()) << what << " output " << i;
    if ((*got)[i].shape() != (*expected)[i].shape()) continue;
    ExpectClose((*got)[i], AsDoubles((*expected)[i]), tolerance,
                what + " output " + std::to_string(i));
  }
  return std::move(got).value();
}

}  // namespace nxrt::cpu::kernels::testing
