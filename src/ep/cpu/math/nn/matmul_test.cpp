// ep/cpu/math/nn/matmul_test.cpp: tests of MatMul and Gemm (oneDNN float path and reference
// dtypes): the ONNX backend and pytorch cases (onnx_node_cases.inc), a naive double-precision
// matmul written in the test with broadcasting, 1-D promotion, zero-sized dims, concurrent runs of
// one plan, nxrt's own kernels on packed constant B, and shape errors. CMakeLists.txt runs the
// MatMul and Gemm tests a second time as on a CPU with AVX2 but not AVX-512.
#include "ep/cpu/math/nn/matmul.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <numbers>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/cpu_features.h"
#include "ep/cpu/math/nn/dnnl_threads.h"
#include "ep/cpu/math/nn/testing/onnx_node_cases.h"
#include "ep/cpu/math/nn_common.h"
#include "ep/cpu/math/testing/nn_test_util.h"

namespace nxrt::cpu::nn {
namespace {

using testing::AllClose;
using testing::Count;
using testing::ForEachIndex;
using testing::Offset;
using testing::RandomInt;

// NumPy matmul in double, from the definition.
std::vector<double> NaiveMatMul(const Shape& a_shape, const std::vector<double>& a,
                                const Shape& b_shape, const std::vector<double>& b,
                                Shape* out_shape) {
  Shape as = a_shape, bs = b_shape;
  if (as.size() == 1) as.insert(as.begin(), 1);
  if (bs.size() == 1) bs.push_back(1);
  const int64_t m = as[as.size() - 2], k = as.back(), n = bs.back();
  const size_t rank = std::max(as.size(), bs.size());
  while (as.size() < rank) as.insert(as.begin(), 1);
  while (bs.size() < rank) bs.insert(bs.begin(), 1);
  Shape full(rank);
  for (size_t d = 0; d + 2 < rank; ++d) full[d] = std::max(as[d], bs[d]);
  full[rank - 2] = m;
  full[rank - 1] = n;
  std::vector<double> y(Count(full), 0.0);
  ForEachIndex(full, [&](const std::vector<int64_t>& o) {
    std::vector<int64_t> ai(rank), bi(rank);
    for (size_t d = 0; d + 2 < rank; ++d) {
      ai[d] = as[d] == 1 ? 0 : o[d];
      bi[d] = bs[d] == 1 ? 0 : o[d];
    }
    double s = 0;
    for (int64_t p = 0; p < k; ++p) {
      ai[rank - 2] = o[rank - 2];
      ai[rank - 1] = p;
      bi[rank - 2] = p;
      bi[rank - 1] = o[rank - 1];
      s += a[Offset(as, ai)] * b[Offset(bs, bi)];
    }
    y[Offset(full, o)] = s;
  });
  out_shape->assign(full.begin(), full.end() - 2);
  if (a_shape.size() > 1) out_shape->push_back(m);
  if (b_shape.size() > 1) out_shape->push_back(n);
  return y;
}

template <typename T>
std::vector<T> Cast(const std::vector<double>& v) {
  std::vector<T> out;
  for (double x : v) out.push_back(static_cast<T>(x));
  return out;
}

TEST(MatMulTest, OnnxBackendAndPytorchCases) {
  int count = 0;
  for (const char* op : {"MatMul", "Gemm"}) {
    for (const testing::NodeCase* c : testing::OnnxNodeCases(op)) {
      SCOPED_TRACE(c->name);
      ++count;
      const auto& a = c->Input(0);
      const auto& b = c->Input(1);
      const auto& cc = c->Input(2);
      const auto& y = c->Output(0);
      for (DataType dtype : {DataType::kFloat, DataType::kDouble}) {
        Shape shape;
        std::vector<double> out(Count(y.shape));
        if (std::string(op) == "MatMul") {
          NXRT_ASSERT_OK_AND_ASSIGN(MatMulPlan plan, PrepareMatMul(dtype, a.shape, b.shape));
          shape = plan.output_shape;
          if (dtype == DataType::kFloat) {
            std::vector<float> yf(out.size());
            NXRT_ASSERT_OK(MatMul(plan, a.As<float>().data(), b.As<float>().data(), yf.data()));
            out.assign(yf.begin(), yf.end());
          } else {
            NXRT_ASSERT_OK(MatMul(plan, a.data.data(), b.data.data(), out.data()));
          }
        } else {
          GemmAttributes attr;
          attr.trans_a = c->Int("transA", 0) != 0;
          attr.trans_b = c->Int("transB", 0) != 0;
          attr.alpha = static_cast<float>(c->Float("alpha", 1.0));
          attr.beta = static_cast<float>(c->Float("beta", 1.0));
          const auto c_shape =
              cc.present() ? std::optional<std::span<const int64_t>>(cc.shape) : std::nullopt;
          NXRT_ASSERT_OK_AND_ASSIGN(GemmPlan plan,
                                    PrepareGemm(dtype, a.shape, b.shape, c_shape, attr));
          shape = plan.output_shape;
          if (dtype == DataType::kFloat) {
            std::vector<float> yf(out.size());
            NXRT_ASSERT_OK(Gemm(plan, a.As<float>().data(), b.As<float>().data(),
                                cc.As<float>().data(), yf.data()));
            out.assign(yf.begin(), yf.end());
          } else {
            NXRT_ASSERT_OK(Gemm(plan, a.data.data(), b.data.data(), cc.data.data(), out.data()));
          }
        }
        ASSERT_EQ(shape, y.shape);
        EXPECT_TRUE(AllClose(out, y.Values(), 1e-5, 1e-5)) << DataTypeName(dtype);
      }
    }
  }
  EXPECT_GE(count, 15);
}

TEST(MatMulTest, RandomBroadcastShapesFloatThroughOneDnn) {
  std::mt19937 rng(41);
  for (int iter = 0; iter < 60; ++iter) {
    const int64_t m = RandomInt(rng, 1, 9), n = RandomInt(rng, 1, 9), k = RandomInt(rng, 1, 9);
    const int64_t batch_rank = RandomInt(rng, 0, 3);
    Shape batch = testing::RandomShape(rng, batch_rank, 1, 3);
    Shape a_shape, b_shape;
    for (int64_t d : batch) a_shape.push_back(RandomInt(rng, 0, 1) ? d : 1);
    for (int64_t d : batch) b_shape.push_back(RandomInt(rng, 0, 1) ? d : 1);
    if (RandomInt(rng, 0, 2) == 0) b_shape.clear();  // B shared by all batches
    a_shape.insert(a_shape.end(), {m, k});
    b_shape.insert(b_shape.end(), {k, n});
    if (iter % 10 == 3) a_shape = {k};  // 1-D promotion of A
    if (iter % 10 == 7) b_shape = {k};  // 1-D promotion of B
    const std::vector<double> a = testing::RandomVector<double>(rng, Count(a_shape));
    const std::vector<double> b = testing::RandomVector<double>(rng, Count(b_shape));
    Shape want_shape;
    const std::vector<double> want = NaiveMatMul(a_shape, a, b_shape, b, &want_shape);
    NXRT_ASSERT_OK_AND_ASSIGN(MatMulPlan plan, PrepareMatMul(DataType::kFloat, a_shape, b_shape));
    ASSERT_EQ(plan.output_shape, want_shape)
        << ShapeToString(a_shape) << " x " << ShapeToString(b_shape);
    EXPECT_TRUE(plan.dnnl != nullptr || plan.column_units > 0);  // not the reference loops
    std::vector<float> y(Count(want_shape));
    NXRT_ASSERT_OK(MatMul(plan, Cast<float>(a).data(), Cast<float>(b).data(), y.data()));
    EXPECT_TRUE(AllClose(y, want, 1e-5, 1e-5))
        << ShapeToString(a_shape) << " x " << ShapeToString(b_shape);
  }
}

TEST(MatMulTest, ReferenceDtypes) {
  std::mt19937 rng(42);
  const Shape a_shape = {2, 1, 3, 4}, b_shape = {3, 4, 5};
  std::vector<double> a, b;
  for (int64_t i = 0; i < Count(a_shape); ++i)
    a.push_back(static_cast<double>(RandomInt(rng, -9, 9)));
  for (int64_t i = 0; i < Count(b_shape); ++i)
    b.push_back(static_cast<double>(RandomInt(rng, -9, 9)));
  Shape shape;
  const std::vector<double> want = NaiveMatMul(a_shape, a, b_shape, b, &shape);
  {
    NXRT_ASSERT_OK_AND_ASSIGN(MatMulPlan plan, PrepareMatMul(DataType::kDouble, a_shape, b_shape));
    std::vector<double> y(want.size());
    NXRT_ASSERT_OK(MatMul(plan, a.data(), b.data(), y.data()));
    EXPECT_EQ(y, want);
  }
  {
    NXRT_ASSERT_OK_AND_ASSIGN(MatMulPlan plan, PrepareMatMul(DataType::kInt32, a_shape, b_shape));
    std::vector<int32_t> y(want.size());
    NXRT_ASSERT_OK(MatMul(plan, Cast<int32_t>(a).data(), Cast<int32_t>(b).data(), y.data()));
    EXPECT_EQ(y, Cast<int32_t>(want));
  }
  {
    NXRT_ASSERT_OK_AND_ASSIGN(MatMulPlan plan, PrepareMatMul(DataType::kInt64, a_shape, b_shape));
    std::vector<int64_t> y(want.size());
    NXRT_ASSERT_OK(MatMul(plan, Cast<int64_t>(a).data(), Cast<int64_t>(b).data(), y.data()));
    EXPECT_EQ(y, Cast<int64_t>(want));
  }
  {
    std::vector<Float16> ah, bh;
    for (double v : a) ah.push_back(Float16(static_cast<float>(v)));
    for (double v : b) bh.push_back(Float16(static_cast<float>(v)));
    NXRT_ASSERT_OK_AND_ASSIGN(MatMulPlan plan, PrepareMatMul(DataType::kFloat16, a_shape, b_shape));
    std::vector<Float16> y(want.size());
    NXRT_ASSERT_OK(MatMul(plan, ah.data(), bh.data(), y.data()));
    for (size_t i = 0; i < y.size(); ++i) EXPECT_EQ(static_cast<float>(y[i]), want[i]);
  }
}

TEST(MatMulTest, ZeroSizedDims) {
  // [1,0,K] x [K,N] -> [1,0,N]; K = 0 gives zeros.
  NXRT_ASSERT_OK_AND_ASSIGN(MatMulPlan empty,
                            PrepareMatMul(DataType::kFloat, Shape{1, 0, 3}, Shape{3, 4}));
  EXPECT_EQ(empty.output_shape, (Shape{1, 0, 4}));
  NXRT_ASSERT_OK(MatMul(empty, nullptr, nullptr, nullptr));
  NXRT_ASSERT_OK_AND_ASSIGN(MatMulPlan k0,
                            PrepareMatMul(DataType::kFloat, Shape{2, 0}, Shape{0, 3}));
  EXPECT_EQ(k0.output_shape, (Shape{2, 3}));
  std::vector<float> y(6, 7.0f);
  NXRT_ASSERT_OK(MatMul(k0, nullptr, nullptr, y.data()));
  EXPECT_EQ(y, std::vector<float>(6, 0.0f));
}

TEST(MatMulTest, ShapeErrorsNameBothShapes) {
  auto r = PrepareMatMul(DataType::kFloat, Shape{2, 3}, Shape{4, 5});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("[2,3]"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("[4,5]"), std::string::npos) << r.status().message();
  auto batch = PrepareMatMul(DataType::kFloat, Shape{2, 2, 3}, Shape{3, 3, 5});
  ASSERT_FALSE(batch.ok());
  EXPECT_NE(batch.status().message().find("[3,3,5]"), std::string::npos);
  EXPECT_EQ(PrepareMatMul(DataType::kInt8, Shape{2, 3}, Shape{3, 5}).status().code(),
            StatusCode::kUnsupported);
}

TEST(MatMulTest, OnePlanRunsFromSeveralThreads) {
  std::mt19937 rng(43);
  const Shape a_shape = {4, 33, 47}, b_shape = {47, 29};
  const std::vector<double> a = testing::RandomVector<double>(rng, Count(a_shape));
  const std::vector<double> b = testing::RandomVector<double>(rng, Count(b_shape));
  Shape shape;
  const std::vector<double> want = NaiveMatMul(a_shape, a, b_shape, b, &shape);
  NXRT_ASSERT_OK_AND_ASSIGN(MatMulPlan plan, PrepareMatMul(DataType::kFloat, a_shape, b_shape));
  const std::vector<float> af = Cast<float>(a), bf = Cast<float>(b);
  std::vector<int> failures(4, 0);
  std::vector<std::thread> threads;
  // Each thread runs its own copy: copies share the primitive, each binds its own buffers.
  std::vector<MatMulPlan> copies(4, plan);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      SetDnnlThreads(t % 2 + 1);
      for (int run = 0; run < 20; ++run) {
        std::vector<float> y(want.size());
        if (!MatMul(copies[t], af.data(), bf.data(), y.data()).ok() ||
            !AllClose(y, want, 1e-5, 1e-5)) {
          ++failures[t];
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures, std::vector<int>(4, 0));
  SetDnnlThreads(1);
  EXPECT_EQ(DnnlThreads(), 1);
}

// A constant B packed at Prepare, one or two threads, batches folded into M or broadcast in one
// batched primitive (attention's [B,H,S,D] x [B,H,D,S] and broadcast batch dims), with the
// caller's scratchpad.
TEST(MatMulTest, PackedConstantBBatchedAndThreads) {
  std::mt19937 rng(45);
  struct Case {
    Shape a, b;
    bool constant_b;
  };
  const Case cases[] = {{{1, 300}, {300, 200}, true},         {{64, 128}, {128, 96}, true},
                        {{2, 3, 17, 128}, {128, 40}, true},   {{2, 4, 33, 16}, {2, 4, 16, 33}, false},
                        {{2, 1, 9, 8}, {1, 3, 8, 5}, false},  {{5, 7}, {3, 7, 4}, false}};
  for (const Case& c : cases) {
    const std::vector<double> a = testing::RandomVector<double>(rng, Count(c.a));
    const std::vector<double> b = testing::RandomVector<double>(rng, Count(c.b));
    Shape shape;
    const std::vector<double> want = NaiveMatMul(c.a, a, c.b, b, &shape);
    const std::vector<float> af = Cast<float>(a), bf = Cast<float>(b);
    for (int threads : {1, 2}) {
      MatMulOptions options;
      options.threads = threads;
      options.constant_b = c.constant_b ? bf.data() : nullptr;
      NXRT_ASSERT_OK_AND_ASSIGN(MatMulPlan plan,
                                PrepareMatMul(DataType::kFloat, c.a, c.b, options));
      EXPECT_TRUE(plan.dnnl != nullptr || plan.column_units > 0);
      EXPECT_EQ(plan.output_shape, shape);
      std::vector<std::byte> scratch(plan.scratchpad_bytes + 64);
      const size_t skew = (64 - reinterpret_cast<uintptr_t>(scratch.data()) % 64) % 64;
      const std::span<std::byte> pad(scratch.data() + skew, plan.scratchpad_bytes);
      for (int run = 0; run < 2; ++run) {
        std::vector<float> y(want.size(), -1.0f);
        NXRT_ASSERT_OK(MatMul(plan, af.data(), c.constant_b ? nullptr : bf.data(), y.data(),
                              pad));
        EXPECT_TRUE(AllClose(y, want, 1e-4, 1e-4)) << ShapeToString(c.a) << " x " << ShapeToString(c.b);
      }
    }
  }
}

// One row of A times a constant B, at 1 and 2 threads: on an AVX-512 CPU these run gemv.h's
// kernel on oneDNN's 64-column panels (tails in K and N, bias and activations, batch dims of 1,
// Gemm with transB and C as bias), whole or as units in pieces (out
// of range ends clamped), as kernels spread them over threads.
TEST(MatMulTest, OneRowTimesPackedB) {
  std::mt19937 rng(48);
  struct Case {
    Shape a, b;
    MatMulActivation activation;
  };
  const Case cases[] = {{{1, 300}, {300, 900}, MatMulActivation::kNone},
                        {{1, 1, 257}, {257, 1100}, MatMulActivation::kRelu},
                        {{1, 1024}, {1024, 4100}, MatMulActivation::kGeluErf}};
  for (const Case& c : cases) {
    SCOPED_TRACE(ShapeToString(c.b));
    const int64_t k = c.b[0], n = c.b[1];
    const std::vector<double> a = testing::RandomVector<double>(rng, k);
    const std::vector<double> b = testing::RandomVector<double>(rng, k * n);
    const std::vector<double> bias = testing::RandomVector<double>(rng, n);
    Shape shape;
    std::vector<double> want = NaiveMatMul(c.a, a, c.b, b, &shape);
    for (int64_t j = 0; j < n; ++j) {
      double v = want[j] + bias[j];
      if (c.activation == MatMulActivation::kRelu) v = std::max(v, 0.0);
      if (c.activation == MatMulActivation::kGeluErf) v = 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
      want[j] = v;
    }
    const std::vector<float> af = Cast<float>(a), bf = Cast<float>(b), biasf = Cast<float>(bias);
    for (int threads : {1, 2}) {
      MatMulOptions options;
      options.threads = threads;
      options.constant_b = bf.data();
      options.epilogue = {true, c.activation, 0.0f, 0.0f};
      NXRT_ASSERT_OK_AND_ASSIGN(MatMulPlan plan, PrepareMatMul(DataType::kFloat, c.a, c.b, options));
      ASSERT_EQ(plan.output_shape, shape);
      std::vector<float> y(n, -1.0f);
      NXRT_ASSERT_OK(MatMul(plan, af.data(), nullptr, y.data(), {}, biasf.data()));
      EXPECT_TRUE(AllClose(y, want, 1e-4, 1e-4)) << "threads " << threads;
      if (CpuHasAvx512()) {
        ASSERT_GT(plan.column_units, 0);
        std::vector<float> pieces(n, -1.0f);
        const int64_t cut = plan.column_units / 3 + 1;
        MatMulColumnUnits(plan, af.data(), nullptr, biasf.data(), pieces.data(), cut,
                          plan.column_units + 5);
        MatMulColumnUnits(plan, af.data(), nullptr, biasf.data(), pieces.data(), -1, cut);
        EXPECT_EQ(pieces, y);
      }
    }
    // Gemm: B stored transposed, C a row added as the bias.
    std::vector<float> bt(k * n);
    for (int64_t p = 0; p < k; ++p) {
      for (int64_t j = 0; j < n; ++j) bt[j * k + p] = bf[p * n + j];
    }
    GemmAttributes attr;
    attr.trans_b = true;
    GemmOptions options;
    options.threads = 2;
    options.constant_b = bt.data();
    options.epilogue.activation = c.activation;
    const Shape a2 = {1, k}, b2 = {n, k}, c2 = {n};
    NXRT_ASSERT_OK_AND_ASSIGN(
        GemmPlan plan, PrepareGemm(DataType::kFloat, a2, b2,
                                   std::optional<std::span<const int64_t>>(c2), attr, options));
    std::vector<float> y(n, -1.0f);
    NXRT_ASSERT_OK(Gemm(plan, af.data(), nullptr, biasf.data(), y.data()));
    EXPECT_TRUE(AllClose(y, want, 1e-4, 1e-4)) << "Gemm";
    if (CpuHasAvx512()) {
      ASSERT_GT(plan.column_units, 0);
      std::vector<float> pieces(n, -1.0f);
      GemmColumnUnits(plan, af.data(), biasf.data(), pieces.data(), 1, plan.column_units);
      GemmColumnUnits(plan, af.data(), biasf.data(), pieces.data(), 0, 1);
      EXPECT_EQ(pieces, y) << "Gemm units";
    }
  }
}

// Several rows of A times a constant B with a bias and each activation, at 1 and 2 threads: on a
// CPU with AVX2 but not AVX-512 (or under NXRT_MAX_ISA=avx2, as the test list runs this file a
// second time) these run sgemm_avx2.h's kernel on 16-column panels (batches folded into M, tails
// in M, K and N, Gemm with transB and C as bias), whole or as column units in pieces; a later
// plan of another M shares or re-lays out the packed copy with the original freed. Elsewhere the
// same products run on oneDNN.
TEST(MatMulTest, ManyRowsTimesPackedB) {
  std::mt19937 rng(49);
  struct Case {
    Shape a, b;
    MatMulActivation activation;
  };
  const Case cases[] = {{{2, 3}, {3, 5}, MatMulActivation::kNone},
                        {{2, 3, 7, 33}, {33, 70}, MatMulActivation::kRelu},
                        {{13, 300}, {300, 129}, MatMulActivation::kGeluErf},
                        {{1, 40, 513}, {513, 300}, MatMulActivation::kGeluTanh},
                        {{9, 64}, {64, 48}, MatMulActivation::kClip},
                        {{6, 20}, {20, 17}, MatMulActivation::kSwish},
                        {{5, 16}, {16, 16}, MatMulActivation::kSigmoid}};
  const bool own_kernel = !CpuHasAvx512() && CpuHasAvx2();
  for (const Case& c : cases) {
    SCOPED_TRACE(ShapeToString(c.a) + " x " + ShapeToString(c.b));
    const int64_t k = c.b[0], n = c.b[1];
    const std::vector<double> a = testing::RandomVector<double>(rng, Count(c.a));
    const std::vector<double> b = testing::RandomVector<double>(rng, k * n);
    const std::vector<double> bias = testing::RandomVector<double>(rng, n);
    Shape shape;
    std::vector<double> want = NaiveMatMul(c.a, a, c.b, b, &shape);
    for (size_t i = 0; i < want.size(); ++i) {
      double v = want[i] + bias[i % n];
      switch (c.activation) {
        case MatMulActivation::kRelu: v = std::max(v, 0.0); break;
        case MatMulActivation::kClip: v = std::min(std::max(v, -0.2), 0.3); break;
        case MatMulActivation::kSigmoid: v = 1 / (1 + std::exp(-v)); break;
        case MatMulActivation::kGeluErf: v = 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); break;
        case MatMulActivation::kGeluTanh:
          v = 0.5 * v *
              (1 + std::tanh(std::sqrt(2 / std::numbers::pi) * (v + 0.044715 * v * v * v)));
          break;
        case MatMulActivation::kSwish: v = v / (1 + std::exp(-0.1 * v)); break;
        default: break;
      }
      want[i] = v;
    }
    const float alpha = c.activation == MatMulActivation::kClip ? -0.2f : 0.1f;
    const std::vector<float> af = Cast<float>(a), biasf = Cast<float>(bias);
    std::vector<float> bf = Cast<float>(b);
    std::shared_ptr<const PackedWeights> packed;
    for (int threads : {1, 2}) {
      MatMulOptions options;
      options.threads = threads;
      options.constant_b = bf.data();
      options.epilogue = {true, c.activation, alpha, 0.3f};
      NXRT_ASSERT_OK_AND_ASSIGN(MatMulPlan plan,
                                PrepareMatMul(DataType::kFloat, c.a, c.b, options));
      ASSERT_EQ(plan.output_shape, shape);
      EXPECT_EQ(plan.column_units > 0, own_kernel);
      std::vector<float> y(want.size(), -1.0f);
      NXRT_ASSERT_OK(MatMul(plan, af.data(), nullptr, y.data(), {}, biasf.data()));
      EXPECT_TRUE(AllClose(y, want, 1e-4, 1e-4)) << "threads " << threads;
      if (plan.column_units > 0) {
        std::vector<float> pieces(want.size(), -1.0f);
        const int64_t cut = plan.column_units / 2;
        MatMulColumnUnits(plan, af.data(), nullptr, biasf.data(), pieces.data(), cut,
                          plan.column_units);
        MatMulColumnUnits(plan, af.data(), nullptr, biasf.data(), pieces.data(), 0, cut);
        EXPECT_EQ(pieces, y);
      }
      packed = plan.packed_b;
    }
    // The original B freed: plans of 2 rows (the same packed copy on AVX2) and of one row (its
    // own layout) from the published copy.
    ASSERT_NE(packed, nullptr);
    std::fill(bf.begin(), bf.end(), std::numeric_limits<float>::quiet_NaN());
    for (int64_t rows : {2, 1}) {
      const Shape a2 = {rows, k};
      MatMulOptions options;
      options.prepacked_b = packed;
      options.epilogue = {true, c.activation, alpha, 0.3f};
      NXRT_ASSERT_OK_AND_ASSIGN(MatMulPlan plan, PrepareMatMul(DataType::kFloat, a2, c.b, options));
      if (own_kernel && rows > 1) EXPECT_EQ(plan.packed_b, packed);
      std::vector<float> y(rows * n, -1.0f);
      NXRT_ASSERT_OK(MatMul(plan, af.data(), nullptr, y.data(), {}, biasf.data()));
      const std::vector<double> first(want.begin(), want.begin() + rows * n);
      EXPECT_TRUE(AllClose(y, first, 1e-4, 1e-4)) << rows << " rows from the packed copy";
    }
    // Gemm: B stored transposed, C a row added as the bias.
    const int64_t m = Count(c.a) / k;
    std::vector<float> bt(k * n);
    for (int64_t p = 0; p < k; ++p) {
      for (int64_t j = 0; j < n; ++j) bt[j * k + p] = static_cast<float>(b[p * n + j]);
    }
    GemmAttributes attr;
    attr.trans_b = true;
    GemmOptions options;
    options.threads = 2;
    options.constant_b = bt.data();
    options.epilogue = {false, c.activation, alpha, 0.3f};
    const Shape a2 = {m, k}, b2 = {n, k}, c2 = {n};
    NXRT_ASSERT_OK_AND_ASSIGN(
        GemmPlan plan, PrepareGemm(DataType::kFloat, a2, b2,
                                   std::optional<std::span<const int64_t>>(c2), attr, options));
    EXPECT_EQ(plan.column_units > 0, own_kernel);
    std::vector<float> y(m * n, -1.0f);
    NXRT_ASSERT_OK(Gemm(plan, af.data(), nullptr, biasf.data(), y.data()));
    EXPECT_TRUE(AllClose(y, want, 1e-4, 1e-4)) << "Gemm";
  }
}

// Several rows of A times a B that is not constant (attention's products: batch dims, broadcast
// in A or B), with and without a bias and activation, at 1 and 2 threads: on a CPU with AVX2 but
// not AVX-512 these run sgemm_avx2.h's kernel reading B as given, per output batch (whole, or as
// units in pieces across batches); elsewhere on oneDNN.
TEST(MatMulTest, ManyRowsTimesVaryingB) {
  std::mt19937 rng(50);
  struct Case {
    Shape a, b;
    MatMulActivation activation;
  };
  const Case cases[] = {{{1, 12, 18, 64}, {1, 12, 64, 18}, MatMulActivation::kNone},
                        {{1, 3, 20, 20}, {1, 3, 20, 64}, MatMulActivation::kNone},
                        {{2, 1, 9, 8}, {1, 3, 8, 70}, MatMulActivation::kGeluErf},
                        {{3, 2, 300}, {300, 17}, MatMulActivation::kRelu},
                        {{5, 7}, {3, 7, 130}, MatMulActivation::kTanh}};
  const bool own_kernel = !CpuHasAvx512() && CpuHasAvx2();
  for (const Case& c : cases) {
    SCOPED_TRACE(ShapeToString(c.a) + " x " + ShapeToString(c.b));
    const int64_t n = c.b.back();
    const std::vector<double> a = testing::RandomVector<double>(rng, Count(c.a));
    const std::vector<double> b = testing::RandomVector<double>(rng, Count(c.b));
    const std::vector<double> bias = testing::RandomVector<double>(rng, n);
    const bool with_bias = c.activation != MatMulActivation::kNone;
    Shape shape;
    std::vector<double> want = NaiveMatMul(c.a, a, c.b, b, &shape);
    for (size_t i = 0; with_bias && i < want.size(); ++i) {
      double v = want[i] + bias[i % n];
      if (c.activation == MatMulActivation::kRelu) v = std::max(v, 0.0);
      if (c.activation == MatMulActivation::kTanh) v = std::tanh(v);
      if (c.activation == MatMulActivation::kGeluErf) {
        v = 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
      }
      want[i] = v;
    }
    const std::vector<float> af = Cast<float>(a), bf = Cast<float>(b), biasf = Cast<float>(bias);
    for (int threads : {1, 2}) {
      MatMulOptions options;
      options.threads = threads;
      options.epilogue = {with_bias, c.activation, 0.0f, 0.0f};
      NXRT_ASSERT_OK_AND_ASSIGN(MatMulPlan plan,
                                PrepareMatMul(DataType::kFloat, c.a, c.b, options));
      ASSERT_EQ(plan.output_shape, shape);
      EXPECT_EQ(plan.column_units_read_b, own_kernel);
      std::vector<float> y(want.size(), -1.0f);
      NXRT_ASSERT_OK(MatMul(plan, af.data(), bf.data(), y.data(), {}, biasf.data()));
      EXPECT_TRUE(AllClose(y, want, 1e-4, 1e-4)) << "threads " << threads;
      if (plan.column_units > 0) {
        std::vector<float> pieces(want.size(), -1.0f);
        const int64_t cut = plan.column_units / 2 + 1;  // inside a batch when it has 2 units
        MatMulColumnUnits(plan, af.data(), bf.data(), biasf.data(), pieces.data(), cut,
                          plan.column_units);
        MatMulColumnUnits(plan, af.data(), bf.data(), biasf.data(), pieces.data(), 0, cut);
        EXPECT_EQ(pieces, y);
      }
    }
  }
}

// Bias [N] and each activation, on oneDNN (float) and on the reference loops (double).
TEST(MatMulTest, BiasAndActivationEpilogue) {
  std::mt19937 rng(46);
  const Shape a_shape = {2, 6, 11}, b_shape = {11, 7};
  const std::vector<double> a = testing::RandomVector<double>(rng, Count(a_shape));
  const std::vector<double> b = testing::RandomVector<double>(rng, Count(b_shape));
  const std::vector<double> bias = testing::RandomVector<double>(rng, 7);
  Shape shape;
  const std::vector<double> product = NaiveMatMul(a_shape, a, b_shape, b, &shape);
  const MatMulActivation activations[] = {
      MatMulActivation::kNone,    MatMulActivation::kRelu, MatMulActivation::kLeakyRelu,
      MatMulActivation::kClip,    MatMulActivation::kSigmoid, MatMulActivation::kTanh,
      MatMulActivation::kGeluErf, MatMulActivation::kGeluTanh, MatMulActivation::kSwish};
  for (MatMulActivation act : activations) {
    MatMulOptions options;
    options.epilogue = {true, act, act == MatMulActivation::kClip ? -0.2f : 0.1f, 0.3f};
    std::vector<double> want = product;
    for (size_t i = 0; i < want.size(); ++i) {
      double v = want[i] + bias[i % 7];
      switch (act) {
        case MatMulActivation::kNone: break;
        case MatMulActivation::kRelu: v = std::max(v, 0.0); break;
        case MatMulActivation::kLeakyRelu: v = v < 0 ? 0.1 * v : v; break;
        case MatMulActivation::kClip: v = std::min(std::max(v, -0.2), 0.3); break;
        case MatMulActivation::kSigmoid: v = 1 / (1 + std::exp(-v)); break;
        case MatMulActivation::kTanh: v = std::tanh(v); break;
        case MatMulActivation::kGeluErf: v = 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); break;
        case MatMulActivation::kGeluTanh:
          v = 0.5 * v * (1 + std::tanh(std::sqrt(2 / std::numbers::pi) * (v + 0.044715 * v * v * v)));
          break;
        case MatMulActivation::kSwish: v = v / (1 + std::exp(-0.1 * v)); break;
      }
      want[i] = v;
    }
    NXRT_ASSERT_OK_AND_ASSIGN(MatMulPlan fp, PrepareMatMul(DataType::kFloat, a_shape, b_shape,
                                                           options));
    EXPECT_TRUE(fp.dnnl != nullptr || fp.column_units > 0);
    std::vector<float> yf(want.size());
    NXRT_ASSERT_OK(MatMul(fp, Cast<float>(a).data(), Cast<float>(b).data(), yf.data(), {},
                          Cast<float>(bias).data()));
    EXPECT_TRUE(AllClose(yf, want, 1e-5, 1e-5)) << static_cast<int>(act);
    NXRT_ASSERT_OK_AND_ASSIGN(MatMulPlan dp, PrepareMatMul(DataType::kDouble, a_shape, b_shape,
                                                           options));
    std::vector<double> yd(want.size());
    NXRT_ASSERT_OK(MatMul(dp, a.data(), b.data(), yd.data(), {}, bias.data()));
    EXPECT_TRUE(AllClose(yd, want, 1e-7, 1e-7)) << static_cast<int>(act);  // float attributes
  }
  MatMulOptions relu;
  relu.epilogue.activation = MatMulActivation::kRelu;
  EXPECT_EQ(PrepareMatMul(DataType::kInt32, a_shape, b_shape, relu).status().code(),
            StatusCode::kUnsupported);
  // Gemm with an activation after alpha * A B^T + beta * C (C [M, N]: the sum post-op).
  const Shape ga = {12, 11}, gb = {7, 11}, gc = {12, 7};
  const std::vector<double> c = testing::RandomVector<double>(rng, 12 * 7);
  std::vector<double> want(12 * 7);
  for (int64_t i = 0; i < 12; ++i) {
    for (int64_t j = 0; j < 7; ++j) {
      double acc = 0;
      for (int64_t k = 0; k < 11; ++k) acc += a[i * 11 + k] * b[j * 11 + k];
      want[i * 7 + j] = std::tanh(0.5 * acc + 2.0 * c[i * 7 + j]);
    }
  }
  GemmOptions gemm_options;
  gemm_options.epilogue.activation = MatMulActivation::kTanh;
  const GemmAttributes attributes{false, true, 0.5f, 2.0f};
  for (DataType dtype : {DataType::kFloat, DataType::kDouble}) {
    NXRT_ASSERT_OK_AND_ASSIGN(GemmPlan plan,
                              PrepareGemm(dtype, ga, gb, gc, attributes, gemm_options));
    if (dtype == DataType::kFloat) {
      std::vector<float> y(want.size());
      NXRT_ASSERT_OK(Gemm(plan, Cast<float>(a).data(), Cast<float>(b).data(),
                          Cast<float>(c).data(), y.data()));
      EXPECT_TRUE(AllClose(y, want, 1e-5, 1e-5)) << "float Gemm + Tanh";
    } else {
      std::vector<double> y(want.size());
      NXRT_ASSERT_OK(Gemm(plan, a.data(), b.data(), c.data(), y.data()));
      EXPECT_TRUE(AllClose(y, want, 1e-7, 1e-7)) << "double Gemm + Tanh";
    }
  }
  gemm_options.epilogue.bias = true;
  EXPECT_EQ(PrepareGemm(DataType::kFloat, ga, gb, gc, attributes, gemm_options).status().code(),
            StatusCode::kUnsupported);
}

// C as a [N] row with unit scales runs as oneDNN's bias, with B constant (packed) or not.
TEST(GemmTest, RowCAsBiasWithPackedB) {
  std::mt19937 rng(47);
  const int64_t m = 3, n = 70, k = 50;
  for (int iter = 0; iter < 4; ++iter) {
    GemmAttributes attr;
    attr.trans_b = iter & 1;
    const Shape a_shape = {m, k}, b_shape = attr.trans_b ? Shape{n, k} : Shape{k, n};
    const Shape c_shape = iter & 2 ? Shape{1, n} : Shape{n};
    const std::vector<float> a = Cast<float>(testing::RandomVector<double>(rng, m * k));
    const std::vector<float> b = Cast<float>(testing::RandomVector<double>(rng, n * k));
    const std::vector<float> c = Cast<float>(testing::RandomVector<double>(rng, n));
    std::vector<double> want(m * n);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double s = c[j];
        for (int64_t p = 0; p < k; ++p) s += a[i * k + p] * (attr.trans_b ? b[j * k + p] : b[p * n + j]);
        want[i * n + j] = s;
      }
    }
    GemmOptions options;
    options.constant_b = iter < 2 ? b.data() : nullptr;
    NXRT_ASSERT_OK_AND_ASSIGN(GemmPlan plan,
                              PrepareGemm(DataType::kFloat, a_shape, b_shape,
                                          std::optional<std::span<const int64_t>>(c_shape), attr,
                                          options));
    EXPECT_TRUE(plan.c_as_bias);
    std::vector<float> y(m * n);
    NXRT_ASSERT_OK(Gemm(plan, a.data(), b.data(), c.data(), y.data()));
    EXPECT_TRUE(AllClose(y, want, 1e-5, 1e-5)) << "iteration " << iter;
  }
}

TEST(GemmTest, RandomTransposesScalesAndBroadcastC) {
  std::mt19937 rng(44);
  const Shape c_shapes[] = {{}, {1}, {5}, {1, 5}, {4, 1}, {4, 5}};
  for (int iter = 0; iter < 48; ++iter) {
    const int64_t m = 4, n = 5, k = RandomInt(rng, 1, 7);
    GemmAttributes attr;
    attr.trans_a = iter & 1;
    attr.trans_b = iter & 2;
    attr.alpha = iter % 3 == 0 ? 1.0f : 0.5f;
    attr.beta = iter % 4 == 0 ? 0.0f : 2.0f;
    const bool use_c = iter % 7 != 0;
    const Shape c_shape = c_shapes[iter % 6];
    const Shape a_shape = attr.trans_a ? Shape{k, m} : Shape{m, k};
    const Shape b_shape = attr.trans_b ? Shape{n, k} : Shape{k, n};
    const std::vector<double> a = testing::RandomVector<double>(rng, Count(a_shape));
    const std::vector<double> b = testing::RandomVector<double>(rng, Count(b_shape));
    const std::vector<double> c = testing::RandomVector<double>(rng, Count(c_shape));
    std::vector<double> want(m * n);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (int64_t p = 0; p < k; ++p) {
          s += (attr.trans_a ? a[p * m + i] : a[i * k + p]) *
               (attr.trans_b ? b[j * k + p] : b[p * n + j]);
        }
        const int64_t ci = c_shape.size() == 2
                               ? (c_shape[0] == 1 ? 0 : i) * c_shape[1] + (c_shape[1] == 1 ? 0 : j)
                               : (c_shape.empty() || c_shape[0] == 1 ? 0 : j);
        want[i * n + j] = attr.alpha * s + (use_c ? attr.beta * c[ci] : 0.0);
      }
    }
    const std::optional<std::span<const int64_t>> cs =
        use_c ? std::optional<std::span<const int64_t>>(c_shape) : std::nullopt;
    for (DataType dtype : {DataType::kFloat, DataType::kDouble}) {
      NXRT_ASSERT_OK_AND_ASSIGN(GemmPlan plan, PrepareGemm(dtype, a_shape, b_shape, cs, attr));
      ASSERT_EQ(plan.output_shape, (Shape{m, n}));
      if (dtype == DataType::kFloat) {
        EXPECT_NE(plan.dnnl, nullptr);
        std::vector<float> y(m * n);
        NXRT_ASSERT_OK(Gemm(plan, Cast<float>(a).data(), Cast<float>(b).data(),
                            Cast<float>(c).data(), y.data()));
        EXPECT_TRUE(AllClose(y, want, 1e-5, 1e-5)) << "iteration " << iter;
      } else {
        std::vector<double> y(m * n);
        NXRT_ASSERT_OK(Gemm(plan, a.data(), b.data(), c.data(), y.data()));
        EXPECT_TRUE(AllClose(y, want, 1e-12, 1e-12)) << "iteration " << iter;
      }
    }
  }
}

// ONNX gemm_all_attributes-style integer case: alpha 2, beta 3, transB, C [1, N].
TEST(GemmTest, IntegerReference) {
  const std::vector<int64_t> a = {1, 2, 3, 4, 5, 6};  // [2,3]
  const std::vector<int64_t> b = {1, 0, 1, 0, 1, 1};  // [2,3] transposed -> [3,2]
  const std::vector<int64_t> c = {10, 20};
  GemmAttributes attr;
  attr.trans_b = true;
  attr.alpha = 2.0f;
  attr.beta = 3.0f;
  const Shape c_shape = {1, 2};
  NXRT_ASSERT_OK_AND_ASSIGN(GemmPlan plan,
                            PrepareGemm(DataType::kInt64, Shape{2, 3}, Shape{2, 3}, c_shape, attr));
  std::vector<int64_t> y(4);
  NXRT_ASSERT_OK(Gemm(plan, a.data(), b.data(), c.data(), y.data()));
  // A @ B^T = [[4, 5], [10, 11]] -> 2 * that + 3 * [10, 20].
  EXPECT_EQ(y, (std::vector<int64_t>{38, 70, 50, 82}));
}

TEST(GemmTest, ZeroKGivesBetaC) {
  const std::vector<float> c = {1, 2, 3};
  GemmAttributes attr;
  attr.beta = 2.0f;
  const Shape c_shape = {3};
  NXRT_ASSERT_OK_AND_ASSIGN(GemmPlan plan,
                            PrepareGemm(DataType::kFloat, Shape{2, 0}, Shape{0, 3}, c_shape, attr));
  std::vector<float> y(6, -1.0f);
  NXRT_ASSERT_OK(Gemm(plan, nullptr, nullptr, c.data(), y.data()));
  EXPECT_EQ(y, (std::vector<float>{2, 4, 6, 2, 4, 6}));
}

TEST(GemmTest, ShapeErrors) {
  auto k = PrepareGemm(DataType::kFloat, Shape{2, 3}, Shape{4, 5}, std::nullopt, {});
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.status().message().find("[2,3]"), std::string::npos) << k.status().message();
  EXPECT_NE(k.status().message().find("[4,5]"), std::string::npos) << k.status().message();
  const Shape bad_c = {3, 5};
  auto c = PrepareGemm(DataType::kFloat, Shape{2, 3}, Shape{3, 5}, bad_c, {});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("[3,5]"), std::string::npos) << c.status().message();
  EXPECT_NE(c.status().message().find("[2,5]"), std::string::npos) << c.status().message();
  EXPECT_FALSE(PrepareGemm(DataType::kFloat, Shape{2, 3, 1}, Shape{3, 5}, std::nullopt, {}).ok());
}

}  // namespace
}  // namespace nxrt::cpu::nn
