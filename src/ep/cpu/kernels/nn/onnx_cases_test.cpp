// ep/cpu/kernels/nn/onnx_cases_test.cpp: every ONNX backend node test of the nn family
// (ep/cpu/math/nn/testing/onnx_node_cases.h: Conv, ConvTranspose, the pools, Gemm, MatMul, LSTM,
// GRU, RNN) rebuilt as a one-node model at its opset and run through the session; the outputs are
// compared with the test's expected outputs (ONNX's own reference).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "ep/cpu/kernels/tensor/single_op_test_util.h"
#include "ep/cpu/math/element_types.h"
#include "ep/cpu/math/nn/testing/onnx_node_cases.h"
#include "ep/cpu/math/testing/nn_test_util.h"

namespace nxrt::cpu::kernels::testing {
namespace {

using nn::testing::AllClose;
using nn::testing::NodeCase;
using nn::testing::NodeCaseTensor;

// The generator keeps int and ints (float and floats, string and strings) alike; these are the
// scalar attributes of the ops involved.
bool IsScalar(const std::string& name) {
  static const std::set<std::string> kScalars = {
      "group",       "ceil_mode", "count_include_pad", "storage_order", "p",
      "transA",      "transB",    "hidden_size",       "input_forget",  "linear_before_reset",
      "layout",      "alpha",     "beta",              "clip",          "auto_pad",
      "direction",   "broadcast"};
  return kScalars.count(name) > 0;
}

// The element types of the cases' tensors.
using CaseTypes = math::TypeList<float, double, int32_t, int64_t, uint8_t>;

Result<Tensor> ToTensor(const NodeCaseTensor& t) {
  Tensor tensor;
  NXRT_RETURN_IF_ERROR(
      math::DispatchType<CaseTypes>(t.dtype(), "tensor '" + t.name + "'", [&](auto tag) -> Status {
        using T = typename decltype(tag)::type;
        NXRT_ASSIGN_OR_RETURN(tensor, Tensor::FromVector<T>(t.shape, t.As<T>()));
        return Status::Ok();
      }));
  return tensor;
}

// The elements of `t` as doubles.
std::vector<double> AsDoubles(const Tensor& t) {
  std::vector<double> out;
  const Status status = math::DispatchType<CaseTypes>(t.dtype(), "output", [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (const T v : Values<T>(t)) out.push_back(static_cast<double>(v));
  });
  EXPECT_TRUE(status.ok()) << status.ToString();
  return out;
}

OpCase ToOpCase(const NodeCase& c) {
  OpCase op(c.op, c.opset);
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    const NodeCaseTensor& t = c.Input(i);
    if (!t.present()) {
      op.inputs.push_back(Omitted());
      continue;
    }
    Result<Tensor> tensor = ToTensor(t);
    EXPECT_TRUE(tensor.ok()) << tensor.status().ToString();
    op.inputs.push_back(tensor.ok() ? In(*tensor) : Omitted());
  }
  for (const auto& [name, values] : c.ints) {
    op.attributes.push_back(IsScalar(name) && values.size() == 1 ? IntAttr(name, values[0])
                                                                 : IntsAttr(name, values));
  }
  for (const auto& [name, values] : c.floats) {
    if (IsScalar(name) && values.size() == 1) {
      op.attributes.push_back(FloatAttr(name, static_cast<float>(values[0])));
    } else {
      op.attributes.push_back(FloatsAttr(name, std::vector<float>(values.begin(), values.end())));
    }
  }
  for (const auto& [name, values] : c.strings) {
    if (IsScalar(name) && values.size() == 1) {
      op.attributes.push_back(StringAttr(name, values[0]));
    } else {
      op.attributes.push_back(cpu::testing::StringsAttr(name, values));
    }
  }
  op.num_outputs = static_cast<int>(c.outputs.size());
  return op;
}

TEST(NnOnnxNodeCases, EveryCasePassesThroughTheSession) {
  int ran = 0;
  for (const char* op : {"Conv", "ConvTranspose", "MaxPool", "AveragePool", "LpPool",
                         "GlobalMaxPool", "GlobalAveragePool", "GlobalLpPool", "Gemm", "MatMul",
                         "LSTM", "GRU", "RNN"}) {
    for (const NodeCase* c : nn::testing::OnnxNodeCases(op)) {
      SCOPED_TRACE(c->name);
      ++ran;
      NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> outputs, RunOp(ToOpCase(*c)));
      ASSERT_EQ(outputs.size(), c->outputs.size());
      for (size_t i = 0; i < outputs.size(); ++i) {
        const NodeCaseTensor& expected = c->Output(i);
        if (!expected.present()) continue;
        EXPECT_EQ(outputs[i].shape(), expected.shape) << "output " << i;
        EXPECT_TRUE(AllClose(AsDoubles(outputs[i]), expected.As<double>(), 1e-4, 1e-5)) << "output " << i;
      }
    }
  }
  EXPECT_GE(ran, 60);
}

}  // namespace
}  // namespace nxrt::cpu::kernels::testing
