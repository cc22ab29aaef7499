// ep/cpu/math/shape_util.h: axis normalisation, multi-index iteration and Tensor checks shared by
// the math families.
//
// Layer: nxrt_cpu_math (framework-free reference math of the CPU EP; no IR, no EP API).
// Messages follow the project template: lower-case, concrete values, the op named first.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::math {

// Product of `dims` (1 for none). Dims must already be validated (>= 0, no overflow).
int64_t Product(std::span<const int64_t> dims);

// `axis` in [0, rank) for an ONNX axis in [-rank, rank); kInvalidArgument otherwise, e.g.
// "Softmax: axis 3 is out of range for rank 2 (accepted: [-2, 1])".
Result<int64_t> NormalizeAxis(std::string_view op, int64_t axis, int64_t rank);

// A rank-long mask with true at every axis of `axes` (each normalised as NormalizeAxis);
// kInvalidArgument for an out-of-range or repeated axis.
Result<std::vector<bool>> AxesMask(std::string_view op, std::span<const int64_t> axes,
                                   int64_t rank);

// A tensor's shape split into the axes kept and the axes reduced (by a mask), with adjacent axes
// of the same kind merged and size-1 axes dropped. Strides are those of the contiguous input.
// The kept axes in order are exactly the layout of the contiguous reduced output.
struct AxesSplit {
  std::vector<int64_t> kept_dims;
  std::vector<int64_t> kept_strides;
  std::vector<int64_t> reduced_dims;
  std::vector<int64_t> reduced_strides;
  int64_t kept_count = 1;     // product of the kept dims (output element count)
  int64_t reduced_count = 1;  // product of the reduced dims (elements per output)
  bool inner_reduced = false;  // the input's innermost non-1 axis is reduced
};
AxesSplit SplitAxes(std::span<const int64_t> shape, const std::vector<bool>& reduced);

// Calls fn(offsets) for every multi-index of `dims` (row-major, last index fastest), where
// offsets[k] = sum_i index[i] * strides[k][i]. Calls fn once with zero offsets for empty `dims`
// and never when a dim is 0.
template <size_t K, typename Fn>
void ForEachOffset(std::span<const int64_t> dims, const std::array<const int64_t*, K>& strides,
                   Fn&& fn) {
  for (int64_t d : dims) {
    if (d == 0) return;
  }
  std::array<int64_t, K> offsets{};
  const size_t rank = dims.size();
  if (rank == 0) {
    fn(offsets);
    return;
  }
  // Ranks up to 8 keep the multi-index on the stack: this runs once per output element.
  int64_t small_index[8] = {};
  std::vector<int64_t> large_index(rank > 8 ? rank : 0, 0);
  int64_t* index = rank > 8 ? large_index.data() : small_index;
  while (true) {
    fn(offsets);
    size_t axis = rank;
    while (true) {
      if (axis == 0) return;
      --axis;
      for (size_t k = 0; k < K; ++k) offsets[k] += strides[k][axis];
      if (++index[axis] < dims[axis]) break;
      for (size_t k = 0; k < K; ++k) offsets[k] -= strides[k][axis] * dims[axis];
      index[axis] = 0;
    }
  }
}

// One-operand ForEachOffset.
template <typename Fn>
void ForEachOffset(std::span<const int64_t> dims, std::span<const int64_t> strides, Fn&& fn) {
  ForEachOffset<1>(dims, std::array<const int64_t*, 1>{strides.data()},
                   [&](const std::array<int64_t, 1>& offsets) { fn(offsets[0]); });
}

// kInvalidArgument unless `t` is defined and contiguous; `what` names it ("Add input A").
Status CheckInput(std::string_view op, std::string_view what, const Tensor& t);

// Makes `*out` a contiguous tensor of `dtype` and `shape`: allocates it when it is undefined,
// otherwise checks that it already matches (kInvalidArgument naming both shapes/types).
Status PrepareOutput(std::string_view op, DataType dtype, const Shape& shape, Tensor* out);

}  // namespace nxrt::cpu::math
