// ep/cpu/kernels/tensor/tensor_util.cpp: the helpers the tensor family's glue shares (tensor.h).
//
// Layer: nxrt_ep_cpu (kernel glue).
#include "ep/cpu/kernels/tensor/tensor.h"

namespace nxrt::cpu::kernels {

Status AsRuntimeError(const Status& status) {
  if (status.ok() || status.code() == StatusCode::kRuntimeError) return status;
  return Status(StatusCode::kRuntimeError, status.message());
}

Status AttributeError(const NodeInfo& node, std::string_view attribute, std::string_view value,
                      const Status& status) {
  if (status.ok()) return status;
  return node.Error(StatusCode::kInvalidModel, "attribute '", attribute, "' is '", value,
                    "': ", status.message());
}

}  // namespace nxrt::cpu::kernels
