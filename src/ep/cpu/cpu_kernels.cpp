// ep/cpu/cpu_kernels.cpp: the CPU EP's kernel table, family by family.
//
// Layer: nxrt_ep_cpu. The one place that says which kernels the CPU EP has: each family function
// (kernels/register.h) registers its entries, one per (op, opset range, dtypes). Called once from
// the CpuExecutionProvider constructor; no static registration anywhere.
#include "ep/cpu/cpu_execution_provider.h"
#include "ep/cpu/kernels/register.h"

namespace nxrt::cpu {

Status RegisterCpuKernels(ep::OpRegistry& registry) {
  NXRT_RETURN_IF_ERROR(RegisterElementwiseKernels(registry));
  NXRT_RETURN_IF_ERROR(RegisterReductionKernels(registry));
  NXRT_RETURN_IF_ERROR(RegisterNormalizationKernels(registry));
  NXRT_RETURN_IF_ERROR(RegisterShapeKernels(registry));
  NXRT_RETURN_IF_ERROR(RegisterTensorKernels(registry));
  NXRT_RETURN_IF_ERROR(RegisterNnKernels(registry));
  NXRT_RETURN_IF_ERROR(RegisterStringKernels(registry));
  NXRT_RETURN_IF_ERROR(RegisterQuantKernels(registry));
  NXRT_RETURN_IF_ERROR(RegisterSignalKernels(registry));
  NXRT_RETURN_IF_ERROR(RegisterLossKernels(registry));
  NXRT_RETURN_IF_ERROR(RegisterRandomKernels(registry));
  NXRT_RETURN_IF_ERROR(RegisterTrainingKernels(registry));
  NXRT_RETURN_IF_ERROR(RegisterContribKernels(registry));
  return Status::Ok();
}

}  // namespace nxrt::cpu
