// ep/cpu/math/normalization/softmax.h: Softmax, LogSoftmax and Hardmax with both ONNX axis
// semantics.
//
// Layer: nxrt_cpu_math (framework-free reference math of the CPU EP; no IR, no EP API).
// ONNX sources: Softmax/LogSoftmax/Hardmax-1 and -11 (the input is coerced to 2-D at `axis`:
// every row of prod(shape[axis:]) elements is normalised as a whole) and -13 (normalised along
// `axis` only). Example: [[[0,1],[2,3]]] with axis=1 gives [0.032059, 0.087144, 0.236883,
// 0.643914] at opset 11 (all four values form one row) but [[[0.1192, 0.1192], [0.8808, 0.8808]]]
// at opset 13.
//
// Softmax subtracts the row maximum before exp; LogSoftmax is x - max - log(sum(exp(x - max))).
// Hardmax puts 1 at the first maximum of each row and 0 elsewhere. A NaN in a row makes the whole
// Softmax/LogSoftmax row NaN and is Hardmax's maximum. Types: float, double, float16, bfloat16
// (the 16-bit floats computed in float).
#pragma once

#include <cstdint>

#include "nxrt/data_type.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::math {

enum class SoftmaxKind { kSoftmax, kLogSoftmax, kHardmax };

// How `axis` selects the normalised elements.
enum class SoftmaxAxisMode {
  kFlattenFromAxis,  // opset 1-12: the trailing block shape[axis:] is one row
  kSingleAxis,       // opset 13+: only shape[axis]
};

// kFlattenFromAxis below opset 13, kSingleAxis from 13 on.
SoftmaxAxisMode SoftmaxAxisModeForOpset(int64_t opset);

using SoftmaxFn = void (*)(SoftmaxKind kind, int64_t outer, int64_t axis_dim, int64_t inner,
                           const void* in, void* out);

struct SoftmaxPlan {
  SoftmaxKind kind = SoftmaxKind::kSoftmax;
  int64_t outer = 1;     // rows before the normalised block
  int64_t axis_dim = 1;  // elements normalised together
  int64_t inner = 1;     // stride between them (1 in kFlattenFromAxis mode)
  SoftmaxFn fn = nullptr;
};

// `axis` in [-rank, rank). Errors: kInvalidArgument (axis), kUnsupported (type).
Result<SoftmaxPlan> PrepareSoftmax(SoftmaxKind kind, DataType type, const Shape& shape,
                                   int64_t axis, SoftmaxAxisMode mode);

// Writes the output (same shape and type as the input; may be the input buffer).
void RunSoftmax(const SoftmaxPlan& plan, const void* in, void* out);

// Prepare + run on a contiguous tensor; an undefined `*out` is allocated.
Status Softmax(SoftmaxKind kind, const Tensor& in, int64_t axis, SoftmaxAxisMode mode,
               Tensor* out);

}  // namespace nxrt::cpu::math
