// ep/cpu/math/reduction/reduce.h: reductions over arbitrary axes (ReduceSum ... ReduceSumSquare)
// and ArgMax/ArgMin.
//
// Layer: nxrt_cpu_math (framework-free reference math of the CPU EP; no IR, no EP API).
// ONNX sources: Reduce*-18 (axes as an optional input, noop_with_empty_axes) and Reduce*-1/11/13
// (axes attribute; ReduceSum-13 already takes axes as an input); ReduceMax/ReduceMin-20 (bool);
// ArgMax/ArgMin-13 (select_last_index since 12).
//
// Semantics:
//   axes: each in [-rank, rank), no repeats. Empty (or absent) axes reduce every axis, unless
//     noop_with_empty_axes, in which case nothing is reduced and each output element is the
//     reduction of its single input element (the input itself for Sum/Mean/Max/Min/Prod/
//     LogSumExp, |x| for L1/L2, x² for SumSquare, log x for LogSum; as the ONNX reference does).
//   keepdims: reduced axes stay as 1 (true) or are removed (false).
//   Zero-length reduced axes give the identity: 0 for Sum/L1/L2/SumSquare, 1 for Prod, the
//     lowest value (-inf for floating types) for Max, the highest (+inf) for Min, -inf for
//     LogSum/LogSumExp, NaN for a floating Mean (0 for an integer Mean).
//   Accumulation: float for float/float16/bfloat16 (8 partial sums per run), double for double,
//     int64/uint64 for integers (wrapping), double for integer L2/LogSum/LogSumExp, whose results
//     truncate toward zero. Max/Min propagate NaN.
// Two phases: PrepareReduce normalises axes, computes the output shape and collapses the axes;
// RunReduce walks bound buffers (no allocation, cannot fail).
// To add a reduction: one line in reduce_kinds.inc and a reducer in reduce.cpp.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "ep/cpu/math/shape_util.h"
#include "nxrt/data_type.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::math {

enum class ReduceKind {
#define NXRT_REDUCE_KIND(name, reducer, types) k##name,
#include "ep/cpu/math/reduction/reduce_kinds.inc"
#undef NXRT_REDUCE_KIND
};

// The ONNX op type of `kind`, e.g. "ReduceLogSumExp".
std::string_view ReduceKindName(ReduceKind kind);

struct ReduceAttrs {
  bool keepdims = true;
  bool noop_with_empty_axes = false;
};

using ReduceFn = void (*)(const AxesSplit& split, const void* in, void* out);

struct ReducePlan {
  ReduceKind kind = ReduceKind::kSum;
  DataType type = DataType::kUndefined;  // input and output element type
  Shape out_shape;
  AxesSplit split;
  ReduceFn fn = nullptr;
};

// Normalises `axes` for `in_shape`, computes the output shape and resolves the compute function.
// Types: all numeric types; ReduceMax/ReduceMin also bool. Errors: kInvalidArgument for an axis
// out of range or repeated, kUnsupported for other types.
Result<ReducePlan> PrepareReduce(ReduceKind kind, DataType type, const Shape& in_shape,
                                 std::span<const int64_t> axes, const ReduceAttrs& attrs);

// Reduces the contiguous input into the contiguous output of plan.out_shape.
void RunReduce(const ReducePlan& plan, const void* in, void* out);

// Prepare + run on a contiguous tensor; an undefined `*out` is allocated.
Status Reduce(ReduceKind kind, const Tensor& in, std::span<const int64_t> axes,
              const ReduceAttrs& attrs, Tensor* out);

// ArgMax / ArgMin along one axis; the output is int64 indices along that axis.
// Ties give the first index, or the last with select_last_index. NaN counts as greater than (for
// ArgMax) and less than (for ArgMin) every number, so the first NaN wins as in NumPy.
struct ArgReduceAttrs {
  int64_t axis = 0;
  bool keepdims = true;
  bool select_last_index = false;
};

// Reduces `outer` blocks of [axis_dim, inner] elements at `in` (block o at o·axis_dim·inner),
// each over its columns [0, width) (width <= inner), into out[o·inner + column]. The kernel glue
// passes a column range by offsetting `in` and `out` and narrowing `width`.
using ArgReduceFn = void (*)(int64_t outer, int64_t axis_dim, int64_t inner, int64_t width,
                             bool select_last, const void* in, int64_t* out);

struct ArgReducePlan {
  Shape out_shape;
  int64_t outer = 1;     // product of the dims before the axis
  int64_t axis_dim = 1;  // the axis' length (>= 1)
  int64_t inner = 1;     // product of the dims after the axis
  bool select_last_index = false;
  ArgReduceFn fn = nullptr;
};

// Types: all numeric. Errors: kInvalidArgument for an axis out of range or a zero-length axis
// (there is no index to return), kUnsupported for other types.
Result<ArgReducePlan> PrepareArgReduce(bool is_max, DataType type, const Shape& in_shape,
                                       const ArgReduceAttrs& attrs);

void RunArgReduce(const ArgReducePlan& plan, const void* in, int64_t* out);

// Prepare + run on a contiguous tensor; an undefined `*out` is allocated (int64).
Status ArgMax(const Tensor& in, const ArgReduceAttrs& attrs, Tensor* out);
Status ArgMin(const Tensor& in, const ArgReduceAttrs& attrs, Tensor* out);

}  // namespace nxrt::cpu::math
