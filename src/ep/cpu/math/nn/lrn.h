// ep/cpu/math/nn/lrn.h: LRN, local response normalisation across channels (ONNX opsets 1, 13;
// onnx/defs/nn/defs.cc) for the CPU EP.
//
// Layer: nxrt_cpu_math (framework-free; no IR, no EP API). X [N, C, D...]:
//   square_sum[n, c, d] = sum of x[n, i, d]^2 for i in [c - floor((size - 1) / 2),
//                         c + ceil((size - 1) / 2)] ∩ [0, C)
//   y = x / (bias + alpha / size * square_sum)^beta
// computed in double (float for the 16-bit types' storage round trip).
#pragma once

#include <cstdint>
#include <span>

#include "nxrt/data_type.h"
#include "nxrt/status.h"

namespace nxrt::cpu::nn {

struct LrnAttributes {
  float alpha = 1e-4f;
  float beta = 0.75f;
  float bias = 1.0f;
  int64_t size = 1;
};

struct LrnPlan {
  LrnAttributes attributes;
  int64_t batch = 0, channels = 0, pixels = 1;
  void (*fn)(const LrnPlan&, const void* x, void* y) = nullptr;
};

// Errors: kInvalidArgument for X of rank < 3 (printed); kUnsupported for a dtype other than
// float, double, float16, bfloat16.
Result<LrnPlan> PrepareLrn(DataType dtype, std::span<const int64_t> x_shape,
                           const LrnAttributes& attributes);
void Lrn(const LrnPlan& plan, const void* x, void* y);

}  // namespace nxrt::cpu::nn
