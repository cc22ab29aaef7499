// ep/cpu/math/nn/det.h: Det, the determinant of square matrices (ONNX opset 11;
// onnx/defs/math/defs.cc) for the CPU EP.
//
// Layer: nxrt_cpu_math (framework-free; no IR, no EP API). X [*, M, M] → Y [*]: one determinant
// per trailing M x M matrix, by LU decomposition with partial pivoting in double (float16 loads
// as float); a 0 x 0 matrix has determinant 1, a singular one 0.
#pragma once

#include <cstdint>
#include <span>

#include "nxrt/data_type.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::math {

struct DetPlan {
  Shape output_shape;
  int64_t batch = 0, m = 0;
  void (*fn)(const DetPlan&, const void* x, void* y, double* scratch, int64_t begin,
             int64_t end) = nullptr;
};

// Errors: kInvalidArgument for X of rank < 2 or whose last two dims differ (shape printed);
// kUnsupported for a dtype other than float, double, float16 (bfloat16 too, for opset 22).
Result<DetPlan> PrepareDet(DataType dtype, std::span<const int64_t> x_shape);

// Scratch doubles one matrix needs (M * M); a concurrent range needs its own scratch.
int64_t DetScratchElements(const DetPlan& plan);

// Writes the determinants of matrices [begin, end) of the batch using `scratch`.
void Det(const DetPlan& plan, const void* x, void* y, double* scratch, int64_t begin, int64_t end);

}  // namespace nxrt::cpu::math
