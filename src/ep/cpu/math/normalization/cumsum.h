// ep/cpu/math/normalization/cumsum.h: ONNX CumSum (inclusive or exclusive, forward or reverse).
//
// Layer: nxrt_cpu_math (framework-free reference math of the CPU EP; no IR, no EP API).
// ONNX source: CumSum-14 (CumSum-11 on fewer types). y[..., j, ...] is the sum of x along `axis`
// over i <= j (i < j when exclusive; i >= j / i > j when reverse). Types: all numeric; the 16-bit
// floats accumulate in float, integers wrap.
#pragma once

#include <cstdint>

#include "nxrt/data_type.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::math {

struct CumSumAttrs {
  bool exclusive = false;
  bool reverse = false;
};

using CumSumFn = void (*)(int64_t outer, int64_t axis_dim, int64_t inner, const CumSumAttrs& attrs,
                          const void* in, void* out);

struct CumSumPlan {
  int64_t outer = 1;
  int64_t axis_dim = 1;
  int64_t inner = 1;
  CumSumAttrs attrs;
  CumSumFn fn = nullptr;
};

// `axis` in [-rank, rank) (the glue reads it from the int32/int64 axis tensor).
// Errors: kInvalidArgument (axis; rank 0), kUnsupported (type).
Result<CumSumPlan> PrepareCumSum(DataType type, const Shape& shape, int64_t axis,
                                 const CumSumAttrs& attrs);

// Writes the output (the input's shape and type); `out` may be the input buffer.
void RunCumSum(const CumSumPlan& plan, const void* in, void* out);

// Prepare + run on a contiguous tensor; an undefined `*out` is allocated.
Status CumSum(const Tensor& in, int64_t axis, const CumSumAttrs& attrs, Tensor* out);

}  // namespace nxrt::cpu::math
