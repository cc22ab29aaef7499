// ep/cpu/kernels/quant/register_quant.cpp: the quantization family's kernel table.
//
// Layer: nxrt_ep_cpu. One entry per (op, opset range) with the dtypes of the ONNX schema in force
// over that range (onnx/defs/quantization/defs.cc and old.cc, math/defs.cc, nn/defs.cc; opsets
// 19 and 21 from the ONNX changelog), restricted to what math/quant/quant.h computes: float8 from
// opset 19, int4/uint4 (and int16/uint16) from 21.
#include <string_view>
#include <utility>
#include <vector>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/quant/quant.h"
#include "ep/cpu/kernels/register.h"

namespace nxrt::cpu {
namespace {

using kernels::Bind;
using kernels::OnnxKernel;
using Types = std::vector<DataType>;

Types Int8s() { return {DataType::kInt8, DataType::kUint8}; }
Types Int8And16s() {
  return {DataType::kInt8, DataType::kUint8, DataType::kInt16, DataType::kUint16};
}
Types Floats19() { return {DataType::kFloat, DataType::kFloat16, DataType::kBFloat16}; }
Types Float8s() {
  return {DataType::kFloat8E4M3FN, DataType::kFloat8E4M3FNUZ, DataType::kFloat8E5M2,
          DataType::kFloat8E5M2FNUZ};
}
// QuantizeLinear-21's y (and DequantizeLinear-21's x besides int32).
Types Quantized21() {
  return kernels::Union(Int8And16s(), kernels::Union(Float8s(), {DataType::kInt4,
                                                                 DataType::kUint4}));
}

}  // namespace

Status RegisterQuantKernels(ep::OpRegistry& registry) {
  const Types f32 = {DataType::kFloat};
  const Types quantize_x10 = {DataType::kFloat, DataType::kInt32};
  const Types quantize_x19 = {DataType::kFloat, DataType::kFloat16, DataType::kBFloat16,
                              DataType::kInt32};
  std::vector<ep::KernelDef> defs;

  // QuantizeLinear: x T1, y_scale (float, T1 at 19-20, T2 from 21), y_zero_point and y T2/T3.
  for (auto [since, until] : {std::pair{10, 12}, {13, 18}}) {
    defs.push_back(OnnxKernel("QuantizeLinear", since, until,
                              {Bind("T1", {0}, {}, quantize_x10), Bind("S", {1}, {}, f32),
                               Bind("T2", {2}, {0}, Int8s())},
                              kernels::QuantizeLinearFactory()));
  }
  defs.push_back(OnnxKernel("QuantizeLinear", 19, 20,
                            {Bind("T1", {0, 1}, {}, quantize_x19),
                             Bind("T2", {2}, {0}, kernels::Union(Int8s(), Float8s()))},
                            kernels::QuantizeLinearFactory()));
  defs.push_back(OnnxKernel("QuantizeLinear", 21, kLatest,
                            {Bind("T1", {0}, {}, quantize_x19), Bind("T2", {1}, {}, quantize_x19),
                             Bind("T3", {2}, {0}, Quantized21())},
                            kernels::QuantizeLinearFactory()));

  // DequantizeLinear: x and x_zero_point T/T1, x_scale float (T2 from 19), y the scale's type.
  const Types dequantize_x = {DataType::kInt8, DataType::kUint8, DataType::kInt32};
  for (auto [since, until] : {std::pair{10, 12}, {13, 18}}) {
    defs.push_back(OnnxKernel("DequantizeLinear", since, until,
                              {Bind("T", {0, 2}, {}, dequantize_x), Bind("S", {1}, {0}, f32)},
                              kernels::DequantizeLinearFactory()));
  }
  defs.push_back(OnnxKernel("DequantizeLinear", 19, 20,
                            {Bind("T1", {0, 2}, {}, kernels::Union(dequantize_x, Float8s())),
                             Bind("T2", {1}, {0}, Floats19())},
                            kernels::DequantizeLinearFactory()));
  defs.push_back(OnnxKernel("DequantizeLinear", 21, kLatest,
                            {Bind("T1", {0, 2}, {}, kernels::Union(Quantized21(), dequantize_x)),
                             Bind("T2", {1}, {0}, Floats19())},
                            kernels::DequantizeLinearFactory()));

  defs.push_back(OnnxKernel("DynamicQuantizeLinear", 11, kLatest,
                            {Bind("T1", {0}, {1}, f32),
                             Bind("T2", {}, {0, 2}, {DataType::kUint8})},
                            kernels::DynamicQuantizeLinearFactory()));

  // MatMulInteger / ConvInteger: T1 the first operand and its zero point, T2 the second, T3 int32.
  const auto integer = [&](const char* op, ep::KernelFactory factory) {
    return OnnxKernel(op, 10, kLatest,
                      {Bind("T1", {0, 2}, {}, Int8s()), Bind("T2", {1, 3}, {}, Int8s()),
                       Bind("T3", {}, {0}, {DataType::kInt32})},
                      std::move(factory));
  };
  defs.push_back(integer("MatMulInteger", kernels::MatMulIntegerFactory()));
  defs.push_back(integer("ConvInteger", kernels::ConvIntegerFactory()));

  // QLinearMatMul / QLinearConv: scales float (float, float16, bfloat16 for QLinearMatMul-21).
  const auto qlinear = [&](const char* op, int since, int until, Types scales,
                           ep::KernelFactory factory) {
    std::vector<ep::TypeConstraint> types = {
        Bind("T1", {0, 2}, {}, Int8s()), Bind("S", {1, 4, 6}, {}, std::move(scales)),
        Bind("T2", {3, 5}, {}, Int8s()), Bind("T3", {7}, {0}, Int8s())};
    if (std::string_view(op) == "QLinearConv") {
      types.push_back(Bind("T4", {8}, {}, {DataType::kInt32}));
    }
    return OnnxKernel(op, since, until, std::move(types), std::move(factory));
  };
  defs.push_back(qlinear("QLinearMatMul", 10, 20, f32, kernels::QLinearMatMulFactory()));
  defs.push_back(qlinear("QLinearMatMul", 21, kLatest, Floats19(),
                         kernels::QLinearMatMulFactory()));
  defs.push_back(qlinear("QLinearConv", 10, kLatest, f32, kernels::QLinearConvFactory()));
  return kernels::RegisterAll(registry, std::move(defs));
}

}  // namespace nxrt::cpu
