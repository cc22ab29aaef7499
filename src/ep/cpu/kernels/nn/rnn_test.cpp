// ep/cpu/kernels/nn/rnn_test.cpp: the LSTM, GRU and RNN kernels' glue: opset 14's `layout`
// (batch-first tensors give the transposed results of layout 0), optional outputs, and
// attribute errors. The recurrences themselves are checked against ONNX's node tests
// (onnx_cases_test.cpp) and the math's own tests.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "ep/cpu/kernels/tensor/single_op_test_util.h"
#include "ep/cpu/math/testing/nn_test_util.h"

namespace nxrt::cpu::kernels::testing {
namespace {

using nn::testing::AllClose;
using nn::testing::Count;
using nn::testing::RandomVector;

// Swaps the first two dims of a rank-3 (or the first and third of a rank-4) tensor: [a, b, ...]
// -> [b, a, ...], or [s, d, b, h] -> [b, s, d, h] when `y` is set.
std::vector<float> SwapLeading(const std::vector<float>& v, const Shape& shape, bool y) {
  std::vector<float> out(v.size());
  if (!y) {
    const int64_t a = shape[0], b = shape[1], inner = Count(shape) / (a * b);
    for (int64_t i = 0; i < a; ++i) {
      for (int64_t j = 0; j < b; ++j) {
        for (int64_t k = 0; k < inner; ++k) out[(j * a + i) * inner + k] = v[(i * b + j) * inner + k];
      }
    }
    return out;
  }
  const int64_t s = shape[0], d = shape[1], b = shape[2], h = shape[3];
  for (int64_t si = 0; si < s; ++si) {
    for (int64_t di = 0; di < d; ++di) {
      for (int64_t bi = 0; bi < b; ++bi) {
        for (int64_t hi = 0; hi < h; ++hi) {
          out[((bi * s + si) * d + di) * h + hi] = v[((si * d + di) * b + bi) * h + hi];
        }
      }
    }
  }
  return out;
}

TEST(RnnKernels, Layout1IsTheBatchFirstFormOfLayout0) {
  std::mt19937 rng(121);
  const int64_t seq = 3, batch = 2, input = 4, hidden = 3, dirs = 2;
  for (auto [op_type, gates] : {std::pair{"LSTM", 4}, {"GRU", 3}, {"RNN", 1}}) {
    const std::vector<float> x = RandomVector<float>(rng, seq * batch * input);
    const std::vector<float> w = RandomVector<float>(rng, dirs * gates * hidden * input);
    const std::vector<float> r = RandomVector<float>(rng, dirs * gates * hidden * hidden);
    const std::vector<float> h0 = RandomVector<float>(rng, dirs * batch * hidden);
    const OpInput w_in = Const(Tensor::FromVector<float>({dirs, gates * hidden, input}, w).value());
    const OpInput r_in =
        Const(Tensor::FromVector<float>({dirs, gates * hidden, hidden}, r).value());
    const std::vector<AttributeValue> attributes = {IntAttr("hidden_size", hidden),
                                                    StringAttr("direction", "bidirectional")};
    OpCase seq_first{op_type, 14,
                     {In(Tensor::FromVector<float>({seq, batch, input}, x).value()), w_in, r_in,
                      Omitted(), Omitted(),
                      In(Tensor::FromVector<float>({dirs, batch, hidden}, h0).value())},
                     attributes, 2};
    OpCase batch_first = seq_first;
    batch_first.inputs[0] = In(Tensor::FromVector<float>(
                                   {batch, seq, input}, SwapLeading(x, {seq, batch, input}, false))
                                   .value());
    batch_first.inputs[5] = In(Tensor::FromVector<float>(
                                   {batch, dirs, hidden},
                                   SwapLeading(h0, {dirs, batch, hidden}, false))
                                   .value());
    batch_first.attributes.push_back(IntAttr("layout", 1));
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> a, RunOp(seq_first));
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> b, RunOp(batch_first));
    ASSERT_EQ(a[0].shape(), (Shape{seq, dirs, batch, hidden})) << op_type;
    ASSERT_EQ(b[0].shape(), (Shape{batch, seq, dirs, hidden})) << op_type;
    ASSERT_EQ(b[1].shape(), (Shape{batch, dirs, hidden})) << op_type;
    EXPECT_TRUE(AllClose(Values<float>(b[0]),
                         SwapLeading(Values<float>(a[0]), a[0].shape(), true), 1e-6, 1e-6))
        << op_type;
    EXPECT_TRUE(AllClose(Values<float>(b[1]),
                         SwapLeading(Values<float>(a[1]), a[1].shape(), false), 1e-6, 1e-6))
        << op_type;
  }
}

TEST(RnnKernels, BadDirectionAndActivationNameTheAttribute) {
  OpCase op{"LSTM", 14,
            {In(Tensor::Allocate(DataType::kFloat, {1, 1, 2}).value()),
             Const(Tensor::Allocate(DataType::kFloat, {1, 4, 2}).value()),
             Const(Tensor::Allocate(DataType::kFloat, {1, 4, 1}).value())},
            {StringAttr("direction", "sideways")}};
  Result<std::vector<Tensor>> direction = RunOp(op);
  ASSERT_FALSE(direction.ok());
  EXPECT_NE(direction.status().message().find("attribute 'direction' is 'sideways'"),
            std::string::npos)
      << direction.status().message();
  op.attributes = {cpu::testing::StringsAttr("activations", {"Sigmoid", "Swish", "Tanh"})};
  Result<std::vector<Tensor>> activation = RunOp(op);
  ASSERT_FALSE(activation.ok());
  EXPECT_NE(activation.status().message().find("attribute 'activations'"), std::string::npos)
      << activation.status().message();
}

}  // namespace
}  // namespace nxrt::cpu::kernels::testing
