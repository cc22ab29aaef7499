// ep/cpu/kernels/nn/fused_activation.h: the activation attributes of nxrt's fused kernels
// (com.nxrt:FusedConv, FusedMatMul, FusedGemm, made by the optimizer's fusion passes):
// `activation` (a name from the kernel's table, "" for none), `activation_alpha` and
// `activation_beta`, whose defaults depend on the activation.
//
// Layer: nxrt_ep_cpu (kernel glue).
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "nxrt/node_info.h"
#include "nxrt/status.h"

namespace nxrt::cpu::kernels {

// One accepted activation: its attribute spelling, the kernel's enum value and the defaults of
// activation_alpha and activation_beta.
template <typename Kind>
struct FusedActivationDef {
  std::string_view name;
  Kind kind;
  float alpha = 0.0f;
  float beta = 0.0f;
};

template <typename Kind>
struct FusedActivation {
  Kind kind;
  float alpha = 0.0f;
  float beta = 0.0f;
};

// The node's activation looked up in `table`. Errors: kInvalidModel naming the attribute, its
// value and the accepted names (in table order; "" shown as '').
template <typename Kind>
Result<FusedActivation<Kind>> ParseFusedActivation(
    const NodeInfo& node, std::span<const FusedActivationDef<Kind>> table) {
  NXRT_ASSIGN_OR_RETURN(std::string name, node.GetString("activation", ""));
  for (const FusedActivationDef<Kind>& def : table) {
    if (def.name != name) continue;
    FusedActivation<Kind> activation{def.kind};
    NXRT_ASSIGN_OR_RETURN(activation.alpha, node.GetFloat("activation_alpha", def.alpha));
    NXRT_ASSIGN_OR_RETURN(activation.beta, node.GetFloat("activation_beta", def.beta));
    return activation;
  }
  std::string accepted;
  for (const FusedActivationDef<Kind>& def : table) {
    if (!accepted.empty()) accepted += ", ";
    accepted += def.name.empty() ? std::string("''") : std::string(def.name);
  }
  return node.Error(StatusCode::kInvalidModel, "attribute 'activation' is '", name,
                    "', expected one of ", accepted);
}

}  // namespace nxrt::cpu::kernels
