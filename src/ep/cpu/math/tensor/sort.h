// ep/cpu/math/tensor/sort.h: ordering ops (ONNX TopK, Unique) as reference math.
//
// Layer: nxrt_cpu_math (framework-free; no IR, no EP API). Both order elements by value with one
// total order: numbers ascending, with every NaN above +inf and NaNs equal to each other (so a
// NaN counts as the largest value); bools false < true; strings by bytes. Prepare* functions
// check shapes and return a plan (kInvalidArgument naming the op and both values); compute
// functions take contiguous buffers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "nxrt/data_type.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::nn {

struct TopKPlan {
  DataType dtype = DataType::kUndefined;
  Shape output_shape;  // input shape with `k` at the axis
  int64_t outer = 0;
  int64_t axis_dim = 0;
  int64_t inner = 0;
  int64_t k = 0;
  bool largest = true;
};

// TopK (ONNX opset 1: `k` attribute; 10: `k` input; 11: `largest`, `sorted`, negative axis,
// integer types): the k largest (or smallest) elements along `axis`, k in [0, axis dim]. Values
// come out sorted (best first; `sorted=0` leaves the order to the implementation, and sorted is
// a valid order); equal values keep the lower index first, as the spec requires. Numeric dtypes.
Result<TopKPlan> PrepareTopK(DataType dtype, std::span<const int64_t> shape, int64_t axis,
                             int64_t k, bool largest);
// `values` (dtype) and `indices` (int64) both have plan.output_shape; `scratch` holds
// plan.k int64 values (TopKScratchBytes). Computes the rows [row_begin, row_end) of the
// outer * inner rows along the axis (row o * inner + i); ranges run concurrently with a scratch
// each.
size_t TopKScratchBytes(const TopKPlan& plan);
Status TopK(const TopKPlan& plan, const void* input, void* values, int64_t* indices,
            int64_t* scratch, int64_t row_begin, int64_t row_end);

// Unique (ONNX opset 11): the distinct elements (no axis: of the flattened input) or the distinct
// slices along `axis` (compared element by element in row-major order). Numeric, bool and string
// dtypes.
struct UniquePlan {
  DataType dtype = DataType::kUndefined;
  Shape input_shape;
  bool has_axis = false;
  int64_t axis = 0;
  int64_t outer = 1;     // flattened: 1
  int64_t items = 0;     // slices along the axis (flattened: the element count)
  int64_t inner = 1;     // flattened: 1
  bool sorted = true;
};

Result<UniquePlan> PrepareUnique(DataType dtype, std::span<const int64_t> shape, bool has_axis,
                                 int64_t axis, bool sorted);

// What Unique found: one entry per distinct item, in output order (ascending when sorted, else
// by first occurrence).
struct UniqueResult {
  std::vector<int64_t> first;    // index of the first occurrence of each distinct item
  std::vector<int64_t> counts;   // occurrences of each
  std::vector<int64_t> inverse;  // for every input item, its position among the distinct ones
};

Result<UniqueResult> FindUnique(const UniquePlan& plan, const void* input);
// The output Y's shape: the input's with the axis dim set to the distinct count ([count] when
// flattened).
Shape UniqueOutputShape(const UniquePlan& plan, const UniqueResult& result);
// Writes the distinct items into `output` (UniqueOutputShape, contiguous).
void GatherUnique(const UniquePlan& plan, const UniqueResult& result, const void* input,
                  void* output);

}  // namespace nxrt::cpu::nn
