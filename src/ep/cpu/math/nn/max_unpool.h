// ep/cpu/math/nn/max_unpool.h: MaxUnpool (ONNX opsets 9, 11; onnx/defs/nn/defs.cc) for the CPU EP.
//
// Layer: nxrt_cpu_math (framework-free; no IR, no EP API). X [N, C, D...] and I (int64, X's shape,
// MaxPool's flat indices) → Y. The unpooled shape is
// U = [N, C, (D_i - 1) * stride_i + kernel_i - pad_begin_i - pad_end_i ...]; the indices are
// row-major offsets into U, and U.flat[I[k]] = X.flat[k] (a later k wins a repeated index),
// every other element 0. Y is U, or, with the optional output_shape input (N, C as X's, every
// spatial dim >= U's), U placed at Y's origin with zeros after it (ONNX's reference
// implementation, onnx/reference/ops/op_max_unpool.py).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "nxrt/data_type.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::nn {

struct MaxUnpoolAttributes {
  std::vector<int64_t> kernel_shape;  // required (spatial)
  std::vector<int64_t> strides;       // empty: 1
  std::vector<int64_t> pads;          // [begin..., end...]; empty: 0
};

struct MaxUnpoolPlan {
  Shape output_shape;
  Shape unpooled_shape;  // U
  int64_t input_count = 0, output_count = 0, unpooled_count = 0;
  void (*fn)(const MaxUnpoolPlan&, const void* x, const int64_t* indices, void* y) = nullptr;
};

// Errors: kInvalidArgument for X rank < 3, I's shape differing from X's, a kernel_shape,
// strides or pads of the wrong length or non-positive kernel/stride or negative pad, a computed
// dim <= 0, or an output_shape whose rank, N or C differ from X's or whose spatial dims are
// smaller than U's (values printed);
// kUnsupported for a dtype other than float, double, float16, bfloat16.
Result<MaxUnpoolPlan> PrepareMaxUnpool(DataType dtype, std::span<const int64_t> x_shape,
                                       std::span<const int64_t> indices_shape,
                                       const MaxUnpoolAttributes& attributes,
                                       std::optional<std::span<const int64_t>> output_shape);

// kRuntimeError naming the position when an index lies outside [0, elements of U).
Status MaxUnpool(const MaxUnpoolPlan& plan, const void* x, const int64_t* indices, void* y);

}  // namespace nxrt::cpu::nn
