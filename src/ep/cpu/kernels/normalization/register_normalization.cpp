// ep/cpu/kernels/normalization/register_normalization.cpp: the normalisation family's kernel
// table.
//
// Layer: nxrt_ep_cpu. One entry per (op, opset range) with the dtypes of the ONNX schema in force
// (onnx/defs/math/defs.cc, nn/defs.cc and their old.cc; GroupNormalization from the ONNX
// changelog). Softmax, LogSoftmax and Hardmax change semantics at opset 13 (one axis instead of
// the flattened trailing block); BatchNormalization-6 has `is_test`, and its statistics got their
// own type variables at 14 and 15.
#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/normalization/normalization.h"
#include "ep/cpu/kernels/register.h"
#include "ep/cpu/nxrt_ops.h"

namespace nxrt::cpu {
namespace {

using kernels::Bind;
using kernels::OnnxKernel;
using kernels::SameType;
using math::SoftmaxAxisMode;
using math::SoftmaxKind;
using Types = std::vector<DataType>;

}  // namespace

Status RegisterNormalizationKernels(ep::OpRegistry& registry) {
  using kernels::FloatTypes;
  using kernels::FloatTypesBf16;
  std::vector<ep::KernelDef> defs;
  const std::pair<const char*, SoftmaxKind> softmaxes[] = {
      {"Softmax", SoftmaxKind::kSoftmax},
      {"LogSoftmax", SoftmaxKind::kLogSoftmax},
      {"Hardmax", SoftmaxKind::kHardmax}};
  for (auto [op, kind] : softmaxes) {
    defs.push_back(SameType(op, 1, 12, FloatTypes(),
                            kernels::SoftmaxFactory(kind, SoftmaxAxisMode::kFlattenFromAxis)));
    defs.push_back(SameType(op, 13, kLatest, FloatTypesBf16(),
                            kernels::SoftmaxFactory(kind, SoftmaxAxisMode::kSingleAxis)));
  }
  defs.push_back(OnnxKernel("LayerNormalization", 17, kLatest,
                            {Bind("T", {0, 1, 2}, {0}, FloatTypesBf16()),
                             Bind("U", {}, {1, 2}, {DataType::kFloat, DataType::kBFloat16})},
                            kernels::LayerNormFactory()));
  // com.nxrt:LayerNormalization: what layer_norm_fusion makes of a decomposed LayerNormalization
  // (ReduceMean, Sub, Pow, Sqrt, Div, ...); the same semantics as LayerNormalization-17.
  defs.push_back(
      kernels::NxrtKernel(nxrt_ops::kLayerNormalization,
                          {Bind("T", {0, 1, 2}, {0}, FloatTypesBf16()),
                           Bind("U", {}, {1, 2}, {DataType::kFloat, DataType::kBFloat16})},
                          kernels::LayerNormFactory()));

  defs.push_back(OnnxKernel("BatchNormalization", 6, 6,
                            {Bind("T", {0, 1, 2, 3, 4}, {0}, FloatTypes())},
                            kernels::BatchNormFactory(/*has_is_test=*/true),
                            kernels::BatchNormCheck()));
  defs.push_back(OnnxKernel("BatchNormalization", 7, 13,
                            {Bind("T", {0, 1, 2, 3, 4}, {0}, FloatTypes())},
                            kernels::BatchNormFactory(/*has_is_test=*/false),
                            kernels::BatchNormCheck()));
  defs.push_back(OnnxKernel("BatchNormalization", 14, 14,
                            {Bind("T", {0, 1, 2}, {0}, FloatTypesBf16()),
                             Bind("U", {3, 4}, {}, FloatTypesBf16())},
                            kernels::BatchNormFactory(/*has_is_test=*/false),
                            kernels::BatchNormCheck()));
  defs.push_back(OnnxKernel("BatchNormalization", 15, kLatest,
                            {Bind("T", {0}, {0}, FloatTypesBf16()),
                             Bind("T1", {1, 2}, {}, FloatTypesBf16()),
                             Bind("T2", {3, 4}, {}, FloatTypesBf16())},
                            kernels::BatchNormFactory(/*has_is_test=*/false),
                            kernels::BatchNormCheck()));
  defs.push_back(OnnxKernel("InstanceNormalization", 6, kLatest,
                            {Bind("T", {0, 1, 2}, {0}, FloatTypes())},
                            kernels::InstanceNormFactory()));
  defs.push_back(OnnxKernel("GroupNormalization", 18, kLatest,
                            {Bind("T", {0, 1, 2}, {0}, FloatTypesBf16())},
                            kernels::GroupNormFactory()));
  defs.push_back(SameType("LpNormalization", 1, kLatest, FloatTypes(), kernels::LpNormFactory()));
  defs.push_back(SameType("MeanVarianceNormalization", 9, 12, FloatTypes(),
                          kernels::MvnFactory()));
  defs.push_back(SameType("MeanVarianceNormalization", 13, kLatest, FloatTypesBf16(),
                          kernels::MvnFactory()));

  const Types cumsum11 = {DataType::kUint32, DataType::kUint64, DataType::kInt32,
                          DataType::kInt64,  DataType::kFloat,  DataType::kDouble};
  const Types index = {DataType::kInt32, DataType::kInt64};
  defs.push_back(OnnxKernel("CumSum", 11, 13,
                            {Bind("T", {0}, {0}, cumsum11), Bind("T2", {1}, {}, index)},
                            kernels::CumSumFactory()));
  defs.push_back(OnnxKernel("CumSum", 14, kLatest,
                            {Bind("T", {0}, {0}, kernels::Union(cumsum11, FloatTypesBf16())),
                             Bind("T2", {1}, {}, index)},
                            kernels::CumSumFactory()));
  return kernels::RegisterAll(registry, std::move(defs));
}

}  // namespace nxrt::cpu
