// optimizer/passes/activation_match.h: recognises the activation applied to a value, for the
// level-2 fusions that move it into a MatMul, Gemm or Conv epilogue (matmul_activation_fusion,
// conv_activation_fusion).
//
// Layer: nxrt_optimizer, internal. Matched forms, all nodes of the default domain unless said,
// every constant a one-element float initializer:
//   Relu; LeakyRelu (alpha); Sigmoid; Tanh; HardSigmoid (alpha, beta); HardSwish (opset 14);
//   Clip with constant min/max (inputs from opset 11, attributes before; absent = unbounded);
//   Max(x, c) / Min(x, c), either order, c a one-element constant of rank at most x's: Clip
//     with min c / max c and the other bound infinite;
//   Gelu (opset 20 or com.nxrt, approximate "none" → "Gelu", "tanh" → "GeluTanh");
//   Swish: Mul(x, Sigmoid(x)), or Mul(x, Sigmoid(Mul(x, beta))) with alpha = beta;
//   HardSwish written out: Mul(x, HardSigmoid(x, alpha = 1/6, beta = 1/2)), or
//     Div(Mul(x, Clip(Add(x, 3), 0, 6)), 6) with the Div also as Mul(·, 1/6)
//     (PaddlePaddle's export of hardswish below opset 14).
// Binary ops match in either operand order. x must be read by the pattern's nodes only and be
// no graph output; every intermediate value is read once, by the next node of the pattern.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "optimizer/graph_editor.h"

namespace nxrt::opt::fuse {

struct Activation {
  std::string name;  // the fused kernels' `activation` attribute: "Relu", "HardSwish", ...
  float alpha = 0.0f;
  float beta = 0.0f;
  std::vector<ir::NodeId> nodes;  // the nodes computing it, the one writing `output` last
  ir::ValueId output = ir::kNoValue;
};

// The activation reading `x` (and nothing else reading it), when its name is in `allowed`.
std::optional<Activation> MatchActivation(const GraphEditor& editor, ir::ValueId x,
                                          const std::vector<std::string>& allowed);

// The value of `v` when it is a one-element float constant of rank at most `max_rank` (a
// broadcast operand of higher rank would raise the other operand's rank).
std::optional<float> ScalarFloat(const GraphEditor& editor, ir::ValueId v, size_t max_rank = 0);

// True when `v` is a float tensor by its type or as a constant.
bool IsFloatTensor(const GraphEditor& editor, ir::ValueId v);

// True when some input of `n` is a float tensor (IsFloatTensor). For MatMul, Gemm and Conv, whose
// inputs share one type T, that makes T float; models often give no types to intermediate
// values, but weights are constants and graph inputs are typed.
bool HasFloatOperand(const GraphEditor& editor, const ir::Node& n);

// The fused node's activation attributes: `activation`, `activation_alpha`, `activation_beta`.
void AddActivationAttributes(const Activation* activation, ir::Node& node);

}  // namespace nxrt::opt::fuse
