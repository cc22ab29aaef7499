// ep/cpu/math/elementwise/where.h: ONNX Where (select X or Y by a bool condition, three-way
// broadcast).
//
// Layer: nxrt_cpu_math (framework-free reference math of the CPU EP; no IR, no EP API).
// ONNX source: Where-16 (Where-9 on fewer types). The element type of X and Y may be any type,
// strings included; the copy is dispatched by element size, so every type shares one loop.
#pragma once

#include "ep/cpu/math/broadcast.h"
#include "nxrt/data_type.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::math {

using WhereFn = void (*)(const BroadcastGeometry& geometry, const bool* condition, const void* x,
                         const void* y, void* out);

struct WherePlan {
  DataType type = DataType::kUndefined;
  Shape out_shape;
  BroadcastGeometry geometry;  // inputs: condition, X, Y
  WhereFn fn = nullptr;
};

// Checks that X and Y have one type (any defined type) and that the three shapes broadcast.
// Errors: kInvalidArgument with the types or shapes.
Result<WherePlan> PrepareWhere(const Shape& condition_shape, DataType type, const Shape& x_shape,
                               DataType y_type, const Shape& y_shape);

// out[i] = condition[i] ? x[i] : y[i] over the broadcast.
void RunWhere(const WherePlan& plan, const bool* condition, const void* x, const void* y,
              void* out);

// Prepare + run on contiguous tensors; `condition` must be bool.
Status Where(const Tensor& condition, const Tensor& x, const Tensor& y, Tensor* out);

}  // namespace nxrt::cpu::math
