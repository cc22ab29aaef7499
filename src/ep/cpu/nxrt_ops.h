// ep/cpu/nxrt_ops.h: nxrt's own operator set, domain "com.nxrt" at version 1: the operators the
// level-2 graph passes create and the CPU EP's kernels run, and the activations a fused node
// carries in its `activation`, `activation_alpha` and `activation_beta` attributes.
//
// Layer: nxrt_ep_cpu, header only. The one definition both sides read: the kernel tables
// (kernels/<family>/register_<family>.cpp) register these op names, the fused kernels parse their
// activation through kFusedActivations (kernels/nn/fused_activation.h), and the optimizer's
// passes (src/optimizer, which sits above ep/cpu) create nodes of these names and fuse only the
// activations the target op takes. None of these ops has an ONNX schema.
// To add an activation: give it a row below with the math's enum value for each fused op that
// computes it (math/nn/conv.h ConvActivation, math/nn/matmul.h MatMulActivation), and teach the
// optimizer's activation matcher (optimizer/passes/activation_match.h) to recognise it.
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ep/cpu/math/nn/conv.h"
#include "ep/cpu/math/nn/matmul.h"

namespace nxrt::cpu::nxrt_ops {

inline constexpr std::string_view kDomain = "com.nxrt";
inline constexpr int kVersion = 1;

// FusedConv(X, W, B?, Z?): Conv's attributes plus the activation attributes, `channels_last`,
// `output_scale` and `output_shift` (made by conv_activation_fusion and nhwc_layout).
inline constexpr std::string_view kFusedConv = "FusedConv";
// FusedMatMul(A, B, bias?) and FusedGemm(A, B, C?): MatMul and Gemm (with Gemm's attributes)
// plus the activation attributes (made by matmul_activation_fusion).
inline constexpr std::string_view kFusedMatMul = "FusedMatMul";
inline constexpr std::string_view kFusedGemm = "FusedGemm";
// Gelu(X) with `approximate`: Gelu-20's semantics at any opset (made by gelu_fusion).
inline constexpr std::string_view kGelu = "Gelu";
// LayerNormalization: LayerNormalization-17's semantics at any opset (made by layer_norm_fusion).
inline constexpr std::string_view kLayerNormalization = "LayerNormalization";
// The pools on X [N, H, W, C] with the attributes of MaxPool-12, AveragePool-19 and
// GlobalAveragePool (made by nhwc_layout).
inline constexpr std::string_view kNhwcMaxPool = "NhwcMaxPool";
inline constexpr std::string_view kNhwcAveragePool = "NhwcAveragePool";
inline constexpr std::string_view kNhwcGlobalAveragePool = "NhwcGlobalAveragePool";

// One activation of the fused ops: its `activation` spelling, the defaults of activation_alpha
// and activation_beta, and the math that computes it for each fused op (nullopt: that op does
// not take it, so neither its kernel nor the optimizer uses it there).
struct FusedActivation {
  std::string_view name;
  float alpha = 0.0f;
  float beta = 0.0f;
  std::optional<nn::ConvActivation> conv;      // FusedConv's post-op
  std::optional<nn::MatMulActivation> matmul;  // FusedMatMul's and FusedGemm's epilogue
};

// Every activation, "" (none) first; a fused op's accepted names are listed in this order.
// LeakyRelu: alpha is the slope; Clip: alpha = min, beta = max; HardSigmoid:
// max(0, min(1, alpha * x + beta)); Swish: x * sigmoid(alpha * x); Gelu: the erf form, GeluTanh:
// the tanh approximation.
inline constexpr FusedActivation kFusedActivations[] = {
    {"", 0.0f, 0.0f, nn::ConvActivation::kNone, nn::MatMulActivation::kNone},
    {"Relu", 0.0f, 0.0f, nn::ConvActivation::kRelu, nn::MatMulActivation::kRelu},
    {"LeakyRelu", 0.01f, 0.0f, nn::ConvActivation::kLeakyRelu, nn::MatMulActivation::kLeakyRelu},
    {"Clip", std::numeric_limits<float>::lowest(), std::numeric_limits<float>::max(),
     nn::ConvActivation::kClip, nn::MatMulActivation::kClip},
    {"HardSigmoid", 0.2f, 0.5f, nn::ConvActivation::kHardSigmoid, std::nullopt},
    {"Sigmoid", 0.0f, 0.0f, nn::ConvActivation::kSigmoid, nn::MatMulActivation::kSigmoid},
    {"Tanh", 0.0f, 0.0f, nn::ConvActivation::kTanh, nn::MatMulActivation::kTanh},
    {"HardSwish", 0.0f, 0.0f, nn::ConvActivation::kHardSwish, std::nullopt},
    {"Gelu", 0.0f, 0.0f, std::nullopt, nn::MatMulActivation::kGeluErf},
    {"GeluTanh", 0.0f, 0.0f, std::nullopt, nn::MatMulActivation::kGeluTanh},
    {"Swish", 1.0f, 0.0f, nn::ConvActivation::kSwish, nn::MatMulActivation::kSwish},
};

// Which fused op's math a row is asked for: &FusedActivation::conv or &FusedActivation::matmul.
template <typename Kind>
using FusedOpMath = std::optional<Kind> FusedActivation::*;

// The activation names (without "") the fused op of `math` takes, in table order.
template <typename Kind>
std::vector<std::string> FusedActivationNames(FusedOpMath<Kind> math) {
  std::vector<std::string> names;
  for (const FusedActivation& a : kFusedActivations) {
    if (!a.name.empty() && (a.*math).has_value()) names.emplace_back(a.name);
  }
  return names;
}

}  // namespace nxrt::cpu::nxrt_ops
