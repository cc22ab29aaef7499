// ep/cpu/kernels/nn/matmul_test.cpp: MatMul and Gemm kernels against naive references written
// from the ONNX definitions: broadcast batches, 1-D operands, every Gemm attribute and C shape,
// constant weights re-prepared for a new activation shape.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <utility>
#include <string>

#include "ep/cpu/kernels/tensor/single_op_test_util.h"
#include "ep/cpu/math/testing/nn_test_util.h"

namespace nxrt::cpu::kernels::testing {
namespace {

using nn::testing::AllClose;
using nn::testing::Count;
using nn::testing::ForEachIndex;
using nn::testing::Offset;
using nn::testing::RandomInt;
using nn::testing::RandomVector;

// NumPy matmul of a [..., M, K] and b [..., K, N] (rank 1 promoted and dropped) in double.
std::vector<double> MatMulRef(const std::vector<double>& a, Shape as, const std::vector<double>& b,
                              Shape bs, Shape& out_shape) {
  const bool a1 = as.size() == 1, b1 = bs.size() == 1;
  if (a1) as.insert(as.begin(), 1);
  if (b1) bs.push_back(1);
  const int64_t m = as[as.size() - 2], k = as.back(), n = bs.back();
  Shape ab(as.begin(), as.end() - 2), bb(bs.begin(), bs.end() - 2);
  while (ab.size() < bb.size()) ab.insert(ab.begin(), 1);
  while (bb.size() < ab.size()) bb.insert(bb.begin(), 1);
  Shape batch(ab.size());
  for (size_t d = 0; d < ab.size(); ++d) batch[d] = std::max(ab[d], bb[d]);
  Shape full = batch;
  full.push_back(m);
  full.push_back(n);
  std::vector<double> out(Count(full));
  ForEachIndex(full, [&](const std::vector<int64_t>& i) {
    std::vector<int64_t> ai, bi;
    for (size_t d = 0; d < batch.size(); ++d) {
      ai.push_back(ab[d] == 1 ? 0 : i[d]);
      bi.push_back(bb[d] == 1 ? 0 : i[d]);
    }
    Shape a_full = ab, b_full = bb;
    a_full.push_back(m);
    a_full.push_back(k);
    b_full.push_back(k);
    b_full.push_back(n);
    double sum = 0;
    for (int64_t kk = 0; kk < k; ++kk) {
      std::vector<int64_t> aj = ai, bj = bi;
      aj.push_back(i[batch.size()]);
      aj.push_back(kk);
      bj.push_back(kk);
      bj.push_back(i[batch.size() + 1]);
      sum += a[Offset(a_full, aj)] * b[Offset(b_full, bj)];
    }
    out[Offset(full, i)] = sum;
  });
  out_shape = batch;
  if (!a1) out_shape.push_back(m);
  if (!b1) out_shape.push_back(n);
  return out;
}

TEST(MatMulKernel, BroadcastBatchesAndVectorsMatchReference) {
  std::mt19937 rng(91);
  for (int iter = 0; iter < 40; ++iter) {
    const int64_t m = RandomInt(rng, 1, 5), k = RandomInt(rng, 0, 6), n = RandomInt(rng, 1, 5);
    Shape as = {m, k}, bs = {k, n};
    for (int64_t extra = RandomInt(rng, 0, 2); extra > 0; --extra) {
      const int64_t d = RandomInt(rng, 1, 3);
      as.insert(as.begin(), RandomInt(rng, 0, 1) ? d : 1);
      bs.insert(bs.begin(), RandomInt(rng, 0, 1) ? d : 1);
    }
    if (iter % 7 == 0) as = {k};
    if (iter % 5 == 0) bs = {k};
    if (iter % 3 == 0 && bs.size() > 2) bs.erase(bs.begin());
    const std::vector<double> a = RandomVector<double>(rng, Count(as));
    const std::vector<double> b = RandomVector<double>(rng, Count(bs));
    Shape out_shape;
    const std::vector<double> expected = MatMulRef(a, as, b, bs, out_shape);
    const bool use_float = iter % 2 == 0;
    OpCase op{"MatMul", iter % 3 == 0 ? 9 : 13};
    if (use_float) {
      op.inputs = {In(Tensor::FromVector<float>(as, std::vector<float>(a.begin(), a.end())).value()),
                   Const(Tensor::FromVector<float>(bs, std::vector<float>(b.begin(), b.end()))
                             .value())};
    } else {
      op.inputs = {In(Tensor::FromVector<double>(as, a).value()),
                   In(Tensor::FromVector<double>(bs, b).value())};
    }
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    ASSERT_EQ(y[0].shape(), out_shape) << ShapeToString(as) << " x " << ShapeToString(bs);
    if (use_float) {
      EXPECT_TRUE(AllClose(Values<float>(y[0]), expected, 1e-5, 1e-5));
    } else {
      EXPECT_TRUE(AllClose(Values<double>(y[0]), expected, 1e-12, 1e-12));
    }
  }
}

TEST(MatMulKernel, ConstantWeightsReprepareForANewActivationShape) {
  std::mt19937 rng(92);
  const std::vector<float> w = RandomVector<float>(rng, 12);
  const OpInput weight = Const(Tensor::FromVector<float>({4, 3}, w).value());
  std::vector<std::vector<OpInput>> runs;
  std::vector<std::vector<double>> expected;
  for (int64_t m : {2, 5, 2}) {
    const std::vector<float> a = RandomVector<float>(rng, m * 4);
    runs.push_back({In(Tensor::FromVector<float>({m, 4}, a).value()), weight});
    Shape out_shape;
    expected.push_back(MatMulRef(std::vector<double>(a.begin(), a.end()), {m, 4},
                                 std::vector<double>(w.begin(), w.end()), {4, 3}, out_shape));
  }
  OpCase op{"MatMul", 13, runs[0]};
  NXRT_ASSERT_OK_AND_ASSIGN(auto results, RunOpSequence(op, runs));
  for (size_t r = 0; r < runs.size(); ++r) {
    EXPECT_TRUE(AllClose(Values<float>(results[r][0]), expected[r], 1e-5, 1e-5)) << "run " << r;
  }
}

// One row times a constant B (nxrt's own column-unit kernels, gemv.h on AVX-512) at 1 and 2
// threads: sizes small enough to stay on one thread and large enough that the units split over
// two, N with a tail past the last 64-column unit, odd K, a NaN and an infinity in B (their
// columns are NaN and an infinity of B's sign), as MatMul and as Gemm with a C row.
TEST(MatMulKernel, OneRowOnColumnUnitsAtOneAndTwoThreads) {
  std::mt19937 rng(1616);
  for (const auto& [k, n] : {std::pair<int64_t, int64_t>{37, 129}, {1001, 777}, {2049, 1000}}) {
    const std::vector<float> a = RandomVector<float>(rng, k);
    std::vector<float> b = RandomVector<float>(rng, k * n);
    const std::vector<float> c = RandomVector<float>(rng, n);
    b[(k / 2) * n + n / 3] = NAN;
    b[(k - 1) * n + n - 1] = -INFINITY;
    std::vector<double> want(static_cast<size_t>(n));
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t i = 0; i < k; ++i) sum += static_cast<double>(a[i]) * b[i * n + j];
      want[j] = sum;
    }
    ASSERT_TRUE(std::isnan(want[n / 3]));
    ASSERT_EQ(want[n - 1], a[k - 1] > 0 ? -INFINITY : INFINITY);
    std::vector<double> want_gemm = want;
    for (int64_t j = 0; j < n; ++j) want_gemm[j] += c[j];
    const OpInput a_in = In(Tensor::FromVector<float>({1, k}, a).value());
    const OpInput b_in = Const(Tensor::FromVector<float>({k, n}, b).value());
    const OpInput c_in = Const(Tensor::FromVector<float>({n}, c).value());
    for (int threads : {1, 2}) {
      for (bool gemm : {false, true}) {
        SCOPED_TRACE(::testing::Message() << (gemm ? "Gemm" : "MatMul") << " K " << k << " N "
                                          << n << " at " << threads << " thread(s)");
        const OpCase op = gemm ? OpCase("Gemm", 13, {a_in, b_in, c_in}) : OpCase("MatMul", 13,
                                                                                 {a_in, b_in});
        NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op, AsWritten(threads)));
        const std::vector<float> got = Values<float>(y[0]);
        const std::vector<double>& expected = gemm ? want_gemm : want;
        ASSERT_EQ(got.size(), expected.size());
        for (size_t j = 0; j < got.size(); ++j) {
          if (std::isnan(expected[j]) || std::isinf(expected[j])) {
            ASSERT_EQ(std::isnan(got[j]), std::isnan(expected[j])) << "column " << j;
            if (std::isinf(expected[j])) ASSERT_EQ(got[j], expected[j]) << "column " << j;
          } else {
            ASSERT_NEAR(got[j], expected[j], 1e-4 + 1e-4 * std::fabs(expected[j]))
                << "column " << j;
          }
        }
      }
    }
  }
}

TEST(MatMulKernel, Int32AndMismatchedK) {
  OpCase op{"MatMul", 13,
            {In(Tensor::FromVector<int32_t>({2, 2}, {1, 2, 3, 4}).value()),
             In(Tensor::FromVector<int32_t>({2, 1}, {5, 6}).value())}};
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
  EXPECT_EQ(Values<int32_t>(y[0]), (std::vector<int32_t>{17, 39}));
  op.inputs[1] = In(Tensor::Allocate(DataType::kInt32, {3, 1}).value());
  Result<std::vector<Tensor>> bad = RunOp(op);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("[2,2]"), std::string::npos) << bad.status().message();
  op.opset = 8;
  EXPECT_EQ(RunOp(op).status().code(), StatusCode::kInvalidModel);  // ints from opset 9
}

// Issue 6: zero-sized dims. [1,0,K] x [K,N] gives [1,0,N]; K = 0 gives zeros.
TEST(MatMulKernel, Issue6ZeroSizedDims) {
  OpCase empty_m{"MatMul", 13,
                 {In(Tensor::Allocate(DataType::kFloat, {1, 0, 3}).value()),
                  In(Tensor::Allocate(DataType::kFloat, {3, 4}).value())}};
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(empty_m));
  EXPECT_EQ(y[0].shape(), (Shape{1, 0, 4}));
  OpCase empty_k{"MatMul", 13,
                 {In(Tensor::Allocate(DataType::kFloat, {2, 0}).value()),
                  In(Tensor::Allocate(DataType::kFloat, {0, 3}).value())}};
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> zeros, RunOp(empty_k));
  EXPECT_EQ(zeros[0].shape(), (Shape{2, 3}));
  EXPECT_EQ(Values<float>(zeros[0]), std::vector<float>(6, 0.0f));
}

TEST(GemmKernel, AttributesAndCShapesMatchReference) {
  std::mt19937 rng(93);
  for (int iter = 0; iter < 40; ++iter) {
    const int64_t m = RandomInt(rng, 1, 5), k = RandomInt(rng, 1, 6), n = RandomInt(rng, 1, 5);
    const bool ta = RandomInt(rng, 0, 1), tb = RandomInt(rng, 0, 1);
    const float alpha = iter % 2 ? 1.0f : 0.5f, beta = iter % 3 ? 1.0f : -2.0f;
    const std::vector<Shape> c_shapes = {{}, {n}, {m, 1}, {1, n}, {m, n}, {1}};
    const int c_form = iter % 7;  // 6: no C (opset 11+)
    const Shape as = ta ? Shape{k, m} : Shape{m, k};
    const Shape bs = tb ? Shape{n, k} : Shape{k, n};
    const std::vector<float> a = RandomVector<float>(rng, Count(as));
    const std::vector<float> b = RandomVector<float>(rng, Count(bs));
    OpCase op{"Gemm", c_form == 6 ? 11 : (iter % 2 ? 9 : 13),
              {In(Tensor::FromVector<float>(as, a).value()),
               Const(Tensor::FromVector<float>(bs, b).value())},
              {IntAttr("transA", ta), IntAttr("transB", tb), FloatAttr("alpha", alpha),
               FloatAttr("beta", beta)}};
    std::vector<float> c;
    Shape cs;
    if (c_form < 6) {
      cs = c_shapes[c_form];
      c = RandomVector<float>(rng, Count(cs));
      op.inputs.push_back(In(Tensor::FromVector<float>(cs, c).value()));
    }
    std::vector<double> expected(m * n);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t kk = 0; kk < k; ++kk) {
          sum += static_cast<double>(ta ? a[kk * m + i] : a[i * k + kk]) *
                 (tb ? b[j * k + kk] : b[kk * n + j]);
        }
        double cv = 0;
        if (!c.empty()) {
          const int64_t ci = cs.size() == 2 && cs[0] == m ? i : 0;
          const int64_t cj = !cs.empty() && cs.back() == n ? j : 0;
          cv = c[cs.size() == 2 ? ci * cs[1] + cj : cj];
        }
        expected[i * n + j] = alpha * sum + beta * cv;
      }
    }
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    ASSERT_EQ(y[0].shape(), (Shape{m, n}));
    EXPECT_TRUE(AllClose(Values<float>(y[0]), expected, 1e-5, 1e-5)) << "iteration " << iter;
  }
}

TEST(GemmKernel, RankThreeInputIsAnError) {
  OpCase op{"Gemm", 13,
            {In(Tensor::Allocate(DataType::kFloat, {1, 2, 3}).value()),
             In(Tensor::Allocate(DataType::kFloat, {3, 2}).value())}};
  EXPECT_FALSE(RunOp(op).ok());
}

}  // namespace
}  // namespace nxrt::cpu::kernels::testing
