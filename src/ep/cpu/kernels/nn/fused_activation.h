// ep/cpu/kernels/nn/fused_activation.h: the activation attributes of nxrt's fused kernels
// (com.nxrt:FusedConv, FusedMatMul, FusedGemm, made by the optimizer's fusion passes):
// `activation` (a name of ep/cpu/nxrt_ops.h kFusedActivations the op takes, "" for none),
// `activation_alpha` and `activation_beta`, whose defaults depend on the activation.
//
// Layer: nxrt_ep_cpu (kernel glue).
#pragma once

#include <string>
#include <string_view>

#include "ep/cpu/nxrt_ops.h"
#include "nxrt/node_info.h"
#include "nxrt/status.h"

namespace nxrt::cpu::kernels {

// A parsed activation: the math's enum value for the op and its two parameters.
template <typename Kind>
struct FusedActivationArgs {
  Kind kind;
  float alpha = 0.0f;
  float beta = 0.0f;
};

// The node's activation, looked up in kFusedActivations among the rows the op of `math` takes
// (&nxrt_ops::FusedActivation::conv or ::matmul). Errors: kInvalidModel naming the attribute,
// its value and the accepted names (in table order; "" shown as '').
template <typename Kind>
Result<FusedActivationArgs<Kind>> ParseFusedActivation(const NodeInfo& node,
                                                       nxrt_ops::FusedOpMath<Kind> math) {
  NXRT_ASSIGN_OR_RETURN(std::string name, node.GetString("activation", ""));
  std::string accepted;
  for (const nxrt_ops::FusedActivation& def : nxrt_ops::kFusedActivations) {
    if (!(def.*math).has_value()) continue;
    if (def.name == name) {
      FusedActivationArgs<Kind> activation{*(def.*math)};
      NXRT_ASSIGN_OR_RETURN(activation.alpha, node.GetFloat("activation_alpha", def.alpha));
      NXRT_ASSIGN_OR_RETURN(activation.beta, node.GetFloat("activation_beta", def.beta));
      return activation;
    }
    if (!accepted.empty()) accepted += ", ";
    accepted += def.name.empty() ? std::string("''") : std::string(def.name);
  }
  return node.Error(StatusCode::kInvalidModel, "attribute 'activation' is '", name,
                    "', expected one of ", accepted);
}

}  // namespace nxrt::cpu::kernels
