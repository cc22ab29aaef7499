// ep/cpu/kernels/nn/lrn_test.cpp: LRN run as a one-node model against a reference written in the
// test from the ONNX definition (random shapes, sizes and attributes; fixed seed).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "ep/cpu/kernels/tensor/single_op_test_util.h"
#include "ep/cpu/math/testing/nn_test_util.h"

namespace nxrt::cpu::kernels::testing {
namespace {

using nn::testing::AllClose;
using nn::testing::Count;
using nn::testing::RandomInt;
using nn::testing::RandomShape;
using nn::testing::RandomVector;

TEST(LrnKernel, RandomShapesAndSizesMatchReference) {
  std::mt19937 rng(901);
  for (int iter = 0; iter < 16; ++iter) {
    Shape shape = RandomShape(rng, RandomInt(rng, 3, 4), 1, 5);
    shape[1] = RandomInt(rng, 1, 7);
    const int64_t size = RandomInt(rng, 1, 5);
    // Attributes are floats in the model: draw them as floats.
    const float alpha = RandomVector<float>(rng, 1, 1e-4, 0.5)[0];
    const float beta = RandomVector<float>(rng, 1, 0.5, 1)[0];
    const float bias = RandomVector<float>(rng, 1, 1, 2)[0];
    const std::vector<double> x = RandomVector<double>(rng, Count(shape), -2, 2);
    const int64_t c_count = shape[1];
    const int64_t pixels = Count(shape) / (shape[0] * c_count);
    std::vector<double> expected(x.size());
    for (int64_t n = 0; n < shape[0]; ++n)
      for (int64_t c = 0; c < c_count; ++c)
        for (int64_t d = 0; d < pixels; ++d) {
          double sum = 0;
          for (int64_t i = c - (size - 1) / 2; i <= c + size / 2; ++i) {
            if (i < 0 || i >= c_count) continue;
            sum += x[(n * c_count + i) * pixels + d] * x[(n * c_count + i) * pixels + d];
          }
          const int64_t at = (n * c_count + c) * pixels + d;
          expected[at] = x[at] / std::pow(double(bias) + double(alpha) / double(size) * sum, double(beta));
        }
    OpCase op{"LRN", 13,
              {In(Tensor::FromVector<double>(shape, x).value())},
              {FloatAttr("alpha", alpha), FloatAttr("beta", beta), FloatAttr("bias", bias),
               IntAttr("size", size)}};
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    EXPECT_TRUE(AllClose(Values<double>(y[0]), expected, 1e-9, 1e-9)) << "iter " << iter;
  }
}

}  // namespace
}  // namespace nxrt::cpu::kernels::testing
