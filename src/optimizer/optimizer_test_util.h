// optimizer/optimizer_test_util.h: checks a graph pass on a small model, before and after.
//
// Layer: tests of nxrt_optimizer only. A test writes an ONNX model with ir/onnx_test_models.h,
// then (1) applies passes to the loaded IR and looks at the node list, and (2) runs the model
// through nxrt::Session with no optimisation and with only the passes under test, on the same
// random inputs (fixed seed), and compares every output: the pass must not change results
// beyond float rounding.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ir/onnx_loader.h"
#include "ir/onnx_test_models.h"
#include "nxrt/session.h"
#include "optimizer/optimizer.h"

namespace nxrt::opt::testing {

using ir::testing::AddIntAttribute;
using ir::testing::AddNode;
using ir::testing::FillFloatTensor;
using ir::testing::FillInt64Tensor;
using ir::testing::FillValueInfo;
using ir::testing::MakeModel;
using ir::testing::Serialize;

inline ir::Model Load(const onnx::ModelProto& proto) {
  const std::vector<std::byte> bytes = Serialize(proto);
  Result<ir::Model> model = ir::LoadModelFromBytes(bytes);
  EXPECT_TRUE(model.ok()) << model.status().message();
  return std::move(model).value();
}

// Every pass name except those in `keep` and those that always run: the disabled list that runs
// only `keep` (and the level-0 passes).
inline std::vector<std::string> AllPassesBut(const std::vector<std::string>& keep) {
  std::vector<std::string> disabled;
  for (const auto& pass : AllPasses()) {
    if (pass->level() == 0) continue;
    const std::string name(pass->name());
    if (std::find(keep.begin(), keep.end(), name) == keep.end()) disabled.push_back(name);
  }
  return disabled;
}

// Loads `proto`, runs only `passes` (at level 2) and returns the rewritten model.
inline ir::Model Optimize(const onnx::ModelProto& proto, const std::vector<std::string>& passes) {
  ir::Model model = Load(proto);
  Result<std::vector<PassReport>> r = OptimizeModel(model, {2, AllPassesBut(passes)});
  EXPECT_TRUE(r.ok()) << r.status().message();
  return model;
}

// Adds an INTS attribute `name` = `values` to `node`.
inline void AddIntsAttribute(onnx::NodeProto* node, const std::string& name,
                             const std::vector<int64_t>& values) {
  onnx::AttributeProto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t v : values) a->add_ints(v);
}

// The graph's nodes in order as "Op" (default domain) or "domain:Op".
inline std::vector<std::string> OpTypes(const ir::Graph& graph) {
  std::vector<std::string> ops;
  for (const ir::Node& n : graph.nodes) {
    ops.push_back(n.domain.empty() ? n.op_type : n.domain + ":" + n.op_type);
  }
  return ops;
}

// A float tensor of `shape` with values uniform in [lo, hi), from a fixed seed.
inline Tensor RandomFloats(std::vector<int64_t> shape, uint32_t seed, float lo = -1, float hi = 1) {
  Tensor t = Tensor::Allocate(DataType::kFloat, shape).value();
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  float* p = t.mutable_data<float>();
  for (int64_t i = 0; i < t.element_count(); ++i) p[i] = dist(rng);
  return t;
}

// The values of RandomFloats(shape, seed, lo, hi) as a vector (for initializers).
inline std::vector<float> Floats(std::vector<int64_t> shape, uint32_t seed, float lo = -1,
                                 float hi = 1) {
  const Tensor t = RandomFloats(std::move(shape), seed, lo, hi);
  return {t.span<float>().begin(), t.span<float>().end()};
}

// Runs `proto` with no optimisation and with only `passes`, on `inputs`, and expects every
// output to agree within |a - b| <= atol + rtol * |b|. Returns the optimised session's pass
// report, so a test can also check that the pass rewrote something.
inline std::vector<OptimizerPassStats> ExpectSameResults(const onnx::ModelProto& proto,
                                                         const std::vector<NamedTensor>& inputs,
                                                         const std::vector<std::string>& passes,
                                                         float rtol = 1e-5f, float atol = 1e-5f) {
  const std::vector<std::byte> bytes = Serialize(proto);
  SessionOptions plain;
  plain.intra_op_threads = 1;
  plain.optimization_level = 0;
  SessionOptions optimised = plain;
  optimised.optimization_level = 2;
  optimised.disabled_optimizers = AllPassesBut(passes);
  auto reference = Session::CreateFromBytes(bytes, plain);
  auto session = Session::CreateFromBytes(bytes, optimised);
  EXPECT_TRUE(reference.ok()) << reference.status().message();
  EXPECT_TRUE(session.ok()) << session.status().message();
  if (!reference.ok() || !session.ok()) return {};
  auto expected = (*reference)->Run(inputs);
  auto actual = (*session)->Run(inputs);
  EXPECT_TRUE(expected.ok()) << expected.status().message();
  EXPECT_TRUE(actual.ok()) << actual.status().message();
  if (!expected.ok() || !actual.ok()) return {};
  EXPECT_EQ(expected->size(), actual->size());
  for (size_t o = 0; o < std::min(expected->size(), actual->size()); ++o) {
    const Tensor& e = (*expected)[o].tensor;
    const Tensor& a = (*actual)[o].tensor;
    EXPECT_EQ(e.dtype(), a.dtype());
    EXPECT_EQ(std::vector<int64_t>(e.shape().begin(), e.shape().end()),
              std::vector<int64_t>(a.shape().begin(), a.shape().end()));
    if (e.element_count() != a.element_count()) continue;
    if (e.dtype() != DataType::kFloat) {
      EXPECT_EQ(0, std::memcmp(e.raw_data(), a.raw_data(), e.byte_size())) << "output " << o;
      continue;
    }
    const float* pe = e.data<float>();
    const float* pa = a.data<float>();
    int64_t bad = 0;
    for (int64_t i = 0; i < e.element_count() && bad < 5; ++i) {
      const bool close = std::fabs(pa[i] - pe[i]) <= atol + rtol * std::fabs(pe[i]);
      EXPECT_TRUE(close) << "output " << o << " element " << i << ": " << pa[i] << " vs " << pe[i];
      bad += close ? 0 : 1;
    }
  }
  return (*session)->OptimizerPasses();
}

// The rewrite count `pass` reported, or -1 when it did not run.
inline int Rewrites(const std::vector<OptimizerPassStats>& stats, const std::string& pass) {
  for (const OptimizerPassStats& s : stats) {
    if (s.pass == pass) return s.rewrites;
  }
  return -1;
}

}  // namespace nxrt::opt::testing
