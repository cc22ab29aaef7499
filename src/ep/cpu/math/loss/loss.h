// ep/cpu/math/loss/loss.h: NegativeLogLikelihoodLoss over log-probabilities, the second half of
// SoftmaxCrossEntropyLoss (whose first half is LogSoftmax along axis 1,
// math/normalization/softmax.h).
//
// Layer: nxrt_cpu_math (framework-free reference math of the CPU EP; no IR, no EP API).
// ONNX sources: NegativeLogLikelihoodLoss-12/-13 and SoftmaxCrossEntropyLoss-12/-13
// (onnx/defs/math/defs.cc). Shapes: input [N, C] or [N, C, d1, ..., dk], target [N] or
// [N, d1, ..., dk] (int32 or int64 class indices), optional weight [C]. Per element (n, d):
//   loss[n, d] = -input[n, target[n, d], d] * weight[target[n, d]]   (weight 1 when absent)
// and 0 with weight 0 where target[n, d] == ignore_index. Reduction "none" keeps the [N, d...]
// losses; "sum" adds them; "mean" divides the sum by the sum of the applied weights (the count of
// non-ignored elements without weights), which is NaN when every element is ignored (0 / 0, as
// ONNX's reference computes). Sums accumulate in double; types float, double, float16,
// bfloat16 (16-bit floats loaded as float and rounded once on store).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "nxrt/data_type.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::math {

enum class LossReduction { kNone, kSum, kMean };

// "none", "sum", "mean" → the reduction; kInvalidArgument for anything else (naming the value).
Result<LossReduction> ParseLossReduction(std::string_view name);

struct NllLossPlan;
// Fails with kInvalidArgument when a target (not ignore_index) is outside [0, C), naming it.
using NllLossFn = Status (*)(const NllLossPlan& plan, const void* input, const void* target,
                             const void* weight, void* loss);

struct NllLossPlan {
  int64_t batch = 0;    // N
  int64_t classes = 0;  // C
  int64_t inner = 1;    // d1 * ... * dk
  std::optional<int64_t> ignore_index;
  LossReduction reduction = LossReduction::kMean;
  Shape loss_shape;  // [N, d1, ..., dk] for kNone, [] otherwise
  NllLossFn fn = nullptr;
};

// Checks the shapes (input rank >= 2; target = input without dim 1; weight [C]) and resolves the
// typed loop. Errors: kInvalidArgument naming the input and both shapes, kUnsupported for the
// types.
Result<NllLossPlan> PrepareNllLoss(DataType type, DataType index_type, const Shape& input_shape,
                                   const Shape& target_shape, const Shape* weight_shape,
                                   std::optional<int64_t> ignore_index, LossReduction reduction);

// Writes plan.loss_shape elements of `type` into `loss`; `weight` may be null.
Status RunNllLoss(const NllLossPlan& plan, const void* input, const void* target,
                  const void* weight, void* loss);

}  // namespace nxrt::cpu::math
