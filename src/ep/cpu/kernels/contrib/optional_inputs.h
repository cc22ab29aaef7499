// ep/cpu/kernels/contrib/optional_inputs.h: the contrib kernels' reads of optional inputs (ONNX
// Runtime's contrib schemas leave many inputs out, or name them "").
//
// Layer: nxrt_ep_cpu kernel glue, shared by contrib/attention.cpp and contrib/transformer_ops.cpp.
#pragma once

#include <optional>

#include "ep/cpu/kernels/kernel_util.h"

namespace nxrt::cpu::kernels {

// The dims of input `i`, or nullopt when the node has fewer inputs or input `i` is absent.
inline std::optional<Shape> OptionalShape(const PrepareContext& ctx, int i) {
  if (i >= ctx.input_count() || !ctx.has_input(i)) return std::nullopt;
  return InputShape(ctx, i);
}

// The float data of input `i`, or nullptr when it is absent (the kernel's Prepare checked the
// dtype).
inline const float* OptionalFloats(const ComputeContext& ctx, int i) {
  const Tensor* t = i < ctx.input_count() ? ctx.input(i) : nullptr;
  return t != nullptr ? t->data<float>() : nullptr;
}

}  // namespace nxrt::cpu::kernels
