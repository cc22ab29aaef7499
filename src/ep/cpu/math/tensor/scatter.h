// ep/cpu/math/tensor/scatter.h: ScatterElements (and legacy Scatter) and ScatterND (ONNX) as
// reference math.
//
// Layer: nxrt_cpu_math (framework-free; no IR, no EP API). The output starts as a copy of the data
// and the updates are written (reduction none: every dtype, strings included) or combined
// (add/mul/max/min: numeric dtypes, float16/bfloat16 in float) at the indexed places, in index
// order. Indices are int32 or int64; negative ones count from the end. An index out of range
// returns kInvalidArgument naming the index, its position and the axis size.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "nxrt/data_type.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::nn {

enum class ScatterReduction { kNone, kAdd, kMul, kMax, kMin };

// "none", "add", "mul", "max" or "min" (ONNX attribute spelling); kInvalidArgument otherwise.
Result<ScatterReduction> ParseScatterReduction(std::string_view reduction);

struct ScatterElementsPlan {
  DataType dtype = DataType::kUndefined;
  DataType index_type = DataType::kInt64;
  ScatterReduction reduction = ScatterReduction::kNone;
  Shape data_shape;     // = the output shape
  Shape updates_shape;  // = the indices shape
  int64_t axis = 0;
};

// ScatterElements (ONNX opset 11, 13, 16 add/mul, 18 max/min) and Scatter (opset 9, 11):
// indices and updates have one shape, of the data's rank and no larger than the data along
// every axis but `axis`; output[i with i[axis] = indices[i]] (op)= updates[i].
// Errors: kInvalidArgument with the shapes; kUnsupported for a reduction on a non-numeric dtype.
Result<ScatterElementsPlan> PrepareScatterElements(DataType dtype,
                                                   std::span<const int64_t> data_shape,
                                                   DataType index_type,
                                                   std::span<const int64_t> indices_shape,
                                                   std::span<const int64_t> updates_shape,
                                                   int64_t axis, ScatterReduction reduction);

// `output` may be the same buffer as `data` (in place); otherwise the data is copied first.
Status ScatterElements(const ScatterElementsPlan& plan, const void* data, const void* indices,
                       const void* updates, void* output);

struct ScatterNDPlan {
  DataType dtype = DataType::kUndefined;
  DataType index_type = DataType::kInt64;
  ScatterReduction reduction = ScatterReduction::kNone;
  Shape data_shape;  // = the output shape
  // Internal: number of index tuples, tuple length, elements per updated slice.
  int64_t tuples = 0;
  int64_t k = 0;
  int64_t slice = 0;
};

// ScatterND (ONNX opset 11, 13, 16 add/mul, 18 max/min): indices [..., k] with 1 <= k <=
// rank(data); updates must have shape indices[:-1] + data[k:].
Result<ScatterNDPlan> PrepareScatterND(DataType dtype, std::span<const int64_t> data_shape,
                                       DataType index_type, std::span<const int64_t> indices_shape,
                                       std::span<const int64_t> updates_shape,
                                       ScatterReduction reduction);

// `output` may be the same buffer as `data` (in place); otherwise the data is copied first.
Status ScatterND(const ScatterNDPlan& plan, const void* data, const void* indices,
                 const void* updates, void* output);

}  // namespace nxrt::cpu::nn
