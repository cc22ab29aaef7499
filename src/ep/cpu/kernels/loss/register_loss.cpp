// ep/cpu/kernels/loss/register_loss.cpp: the loss family's kernel table.
//
// Layer: nxrt_ep_cpu. One entry per (op, opset range) with the dtypes of the ONNX schema in force
// (onnx/defs/math/defs.cc and old.cc): NegativeLogLikelihoodLoss-12 and -13 take float16, float
// and double; SoftmaxCrossEntropyLoss-13 adds bfloat16. Both take int32 or int64 targets.
#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/loss/loss.h"
#include "ep/cpu/kernels/register.h"

namespace nxrt::cpu {

Status RegisterLossKernels(ep::OpRegistry& registry) {
  using kernels::Bind;
  using kernels::OnnxKernel;
  const std::vector<DataType> index = {DataType::kInt32, DataType::kInt64};
  std::vector<ep::KernelDef> defs;
  defs.push_back(OnnxKernel("NegativeLogLikelihoodLoss", 12, ep::kLatestOpset,
                            {Bind("T", {0, 2}, {0}, kernels::FloatTypes()),
                             Bind("Tind", {1}, {}, index)},
                            kernels::NllLossFactory()));
  defs.push_back(OnnxKernel("SoftmaxCrossEntropyLoss", 12, 12,
                            {Bind("T", {0, 2}, {0, 1}, kernels::FloatTypes()),
                             Bind("Tind", {1}, {}, index)},
                            kernels::SoftmaxCrossEntropyFactory()));
  defs.push_back(OnnxKernel("SoftmaxCrossEntropyLoss", 13, ep::kLatestOpset,
                            {Bind("T", {0, 2}, {0, 1}, kernels::FloatTypesBf16()),
                             Bind("Tind", {1}, {}, index)},
                            kernels::SoftmaxCrossEntropyFactory()));
  return kernels::RegisterAll(registry, std::move(defs));
}

}  // namespace nxrt::cpu
