// ep/cpu/math/nn_common.h: shared helpers of the CPU EP's tensor and nn reference math.
//
// Layer: nxrt_cpu_math (framework-free math under the CPU EP; no IR, no EP API). Holds what
// several ops need: axis normalisation, shape checks with messages that print both shapes,
// element-size dispatch for dtype-agnostic data movement (strings included), a strided copy
// engine, a per-axis index-map gather, and the float conversions of numeric kernels.
// Extend it only with helpers used by at least two ops; op-specific code stays in the op's file.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "ep/cpu/math/element_types.h"
#include "ep/cpu/math/shape_util.h"
#include "nxrt/data_type.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::nn {

// 16-byte trivially copyable element (complex128), used by element-size dispatch.
struct Bytes16 {
  uint64_t lo;
  uint64_t hi;
};

// shape_util.h's: NormalizeAxis (an ONNX axis in [-rank, rank) into [0, rank), or
// kInvalidArgument naming `op` and the accepted range) and Product (1 for no dims, saturating at
// INT64_MAX).
using math::NormalizeAxis;
using math::Product;

// `bytes` rounded up to a multiple of 64: the alignment of each part of a workspace.
inline size_t Align64(size_t bytes) { return (bytes + 63) / 64 * 64; }

// kInvalidArgument unless every dim is >= 0; `what` names the tensor ("Conv input X").
Status CheckShape(std::string_view op, std::string_view what, std::span<const int64_t> shape);

// kInvalidArgument for kUndefined and unknown dtypes; `op` names the caller.
Status CheckDataType(std::string_view op, DataType dtype);

// NumPy (multidirectional) broadcast of two shapes; kInvalidArgument with both shapes when a
// pair of dims is neither equal nor 1.
Result<Shape> BroadcastShapes(std::string_view op, std::span<const int64_t> a,
                              std::span<const int64_t> b);

// Strides (in elements) that read a tensor of `shape` as if broadcast to `target` (rank of
// target >= rank of shape, right-aligned): 0 for broadcast dims. `shape` must broadcast to target.
std::vector<int64_t> BroadcastStrides(std::span<const int64_t> shape,
                                      std::span<const int64_t> target);

// Calls f(std::type_identity<E>{}) with E the storage type that moves one element of `dtype`:
// uint8_t/uint16_t/uint32_t/uint64_t/Bytes16 by size, std::string for kString. `dtype` must have
// passed CheckDataType.
template <typename F>
decltype(auto) VisitElement(DataType dtype, F&& f) {
  if (dtype == DataType::kString) return f(std::type_identity<std::string>{});
  switch (DataTypeSize(dtype)) {
    case 1:
      return f(std::type_identity<uint8_t>{});
    case 2:
      return f(std::type_identity<uint16_t>{});
    case 4:
      return f(std::type_identity<uint32_t>{});
    case 8:
      return f(std::type_identity<uint64_t>{});
    default:
      return f(std::type_identity<Bytes16>{});
  }
}

// Copies `count` contiguous elements of `dtype` (string-aware).
void CopyElements(DataType dtype, const void* src, void* dst, int64_t count);

// Strided copy of a view: for every index i of `shape`,
//   dst[sum i_k * dst_strides_k] = src[sum i_k * src_strides_k]
// with strides in elements (negative and zero strides allowed in `src`). `src` and `dst` point
// at the element of index 0. Adjacent dims that are contiguous in both are merged, and the
// innermost run is copied with memcpy when possible.
void StridedCopy(DataType dtype, std::span<const int64_t> shape, const void* src,
                 std::span<const int64_t> src_strides, void* dst,
                 std::span<const int64_t> dst_strides);

// The same view with size-1 dims dropped and dims contiguous in both strides merged (what
// StridedCopy does first): fewer, longer dims, so the outermost one can be split across threads.
void CoalesceView(Shape& shape, std::vector<int64_t>& src_strides,
                  std::vector<int64_t>& dst_strides);

// Gather through one index map per axis: out has shape {maps[k].size()}, contiguous, and
//   out[i_0, ..., i_n] = in[maps[0][i_0], ..., maps[n][i_n]]  (`in` contiguous, `in_shape`)
// or the fill element `fill` (null: zero) when any maps[k][i_k] is -1. Used by Pad (reflect,
// edge, wrap, constant) and Resize (nearest).
void GatherByAxisMaps(DataType dtype, std::span<const int64_t> in_shape, const void* in,
                      const std::vector<std::vector<int64_t>>& maps, const void* fill, void* out);

// Message helper: "[2,3]" for a shape span.
inline std::string Str(std::span<const int64_t> shape) { return ShapeToString(shape); }

// Float conversions for numeric kernels: Float16/BFloat16 compute in float, the others natively.
template <typename T>
struct AccumulatorOf {
  using type = T;
};
template <>
struct AccumulatorOf<Float16> {
  using type = float;
};
template <>
struct AccumulatorOf<BFloat16> {
  using type = float;
};
template <typename T>
using Acc = typename AccumulatorOf<T>::type;

template <typename T>
Acc<T> ToAcc(T v) {
  if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
    return static_cast<float>(v);
  } else {
    return v;
  }
}

template <typename T, typename A>
T FromAcc(A v) {
  if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
    return T(static_cast<float>(v));
  } else {
    return static_cast<T>(v);
  }
}

// Reads index `i` of an int32 or int64 index buffer as int64.
inline int64_t ReadIndex(DataType index_type, const void* indices, int64_t i) {
  return index_type == DataType::kInt32 ? static_cast<const int32_t*>(indices)[i]
                                        : static_cast<const int64_t*>(indices)[i];
}

// kInvalidArgument unless `index_type` is int32 or int64.
Status CheckIndexType(std::string_view op, DataType index_type);

// `index` (negative counts from the end) resolved against an axis of size `dim`; kInvalidArgument
// naming `op`, the index's `position` in its tensor, the `axis` and the accepted range otherwise.
Result<int64_t> ResolveIndex(std::string_view op, int64_t index, int64_t dim, int64_t position,
                             int64_t axis);

// The walk of GatherElements and ScatterElements: for each position j of an int32/int64 index
// tensor of `index_shape` (row-major), visit(j, offset) with the offset, in a contiguous tensor of
// `strides` whose `axis` has `axis_dim` elements, of the element index j addresses: j's own
// coordinates with the one on `axis` replaced by the index's value. Stops at the first index out
// of range with ResolveIndex's error.
template <typename Visit>
Status ForEachIndexedElement(std::string_view op, DataType index_type, const void* indices,
                             std::span<const int64_t> index_shape,
                             std::span<const int64_t> strides, int64_t axis, int64_t axis_dim,
                             Visit&& visit) {
  const size_t rank = index_shape.size();
  const int64_t count = Product(index_shape);
  std::vector<int64_t> idx(rank, 0);
  int64_t base = 0;  // offset of idx with idx[axis] taken as 0
  for (int64_t j = 0; j < count; ++j) {
    NXRT_ASSIGN_OR_RETURN(const int64_t i,
                          ResolveIndex(op, ReadIndex(index_type, indices, j), axis_dim, j, axis));
    visit(j, base + i * strides[axis]);
    for (size_t k = rank; k-- > 0;) {
      const int64_t step = static_cast<int64_t>(k) == axis ? 0 : strides[k];
      if (++idx[k] < index_shape[k]) {
        base += step;
        break;
      }
      base -= step * (index_shape[k] - 1);
      idx[k] = 0;
    }
  }
  return Status::Ok();
}

}  // namespace nxrt::cpu::nn
