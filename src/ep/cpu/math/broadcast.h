// ep/cpu/math/broadcast.h: NumPy multidirectional broadcasting: output shapes and an iteration
// plan that elementwise kernels walk in long contiguous runs.
//
// Layer: nxrt_cpu_math (framework-free reference math of the CPU EP; no IR, no EP API).
// ONNX source: docs/Broadcasting.md (multidirectional and unidirectional broadcasting).
//
// A BroadcastGeometry is built once per shape combination (prepare); compute calls ForEachRun,
// which hands the kernel runs of `n` output elements together with each input's start offset.
// Inside a run every input advances by its inner stride, which is 1 (contiguous), 0 (a broadcast
// scalar) or, never for contiguous inputs, something else. Dims are collapsed first (adjacent
// dims whose strides chain for every input merge, size-1 dims vanish), so same-shape operands
// are one run, a scalar operand is one run with stride 0, and [N,C] + [C] is N runs of C.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "ep/cpu/math/shape_util.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::math {

// The broadcast of `shapes` (right-aligned; each dim pair equal or one of them 1; a 0 dim
// broadcasts only with 0 or 1). kInvalidArgument otherwise:
// "<op>: cannot broadcast [2,3] with [4] (dim -1: 3 vs 4)".
Result<Shape> BroadcastShapes(std::string_view op, std::span<const Shape> shapes);
Result<Shape> BroadcastShapes(std::string_view op, const Shape& a, const Shape& b);

// The collapsed iteration space of contiguous inputs broadcast to one contiguous output.
struct BroadcastGeometry {
  // Collapsed dims, outermost first; never empty (a scalar output is {1}).
  std::vector<int64_t> dims;
  // strides[k][i]: element stride of input k along dims[i] (0 where input k is broadcast).
  std::vector<std::vector<int64_t>> strides;
  int64_t output_count = 0;

  int64_t run_length() const { return dims.back(); }
  int64_t inner_stride(size_t input) const { return strides[input].back(); }
};

// The geometry of `inputs` broadcast to `output_shape`; each input must broadcast to it
// unidirectionally (kInvalidArgument naming both shapes otherwise).
Result<BroadcastGeometry> MakeBroadcastGeometry(std::string_view op, const Shape& output_shape,
                                                std::span<const Shape> input_shapes);

// Calls fn(offsets, n) for consecutive runs of the output in order: the run covers `n` output
// elements starting where the previous one ended, and input k starts at element offsets[k].
// K must equal the number of inputs of `geometry`.
template <size_t K, typename Fn>
void ForEachRun(const BroadcastGeometry& geometry, Fn&& fn) {
  if (geometry.output_count == 0) return;
  std::array<const int64_t*, K> outer_strides;
  for (size_t k = 0; k < K; ++k) outer_strides[k] = geometry.strides[k].data();
  const std::span<const int64_t> outer(geometry.dims.data(), geometry.dims.size() - 1);
  const int64_t n = geometry.run_length();
  ForEachOffset<K>(outer, outer_strides,
                   [&](const std::array<int64_t, K>& offsets) { fn(offsets, n); });
}

// ForEachRun restricted to output elements [begin, end): fn(offsets, n) for consecutive pieces
// of runs, each starting where the previous one ended (the first at `begin`), input k at element
// offsets[k]. Pieces of one output split over threads cover it exactly once.
template <size_t K, typename Fn>
void ForEachRunInRange(const BroadcastGeometry& geometry, int64_t begin, int64_t end, Fn&& fn) {
  const int64_t length = geometry.run_length();
  if (length == 0) return;
  for (int64_t pos = begin; pos < end;) {
    int64_t run = pos / length;
    const int64_t first = pos % length;
    const int64_t n = std::min(length - first, end - pos);
    std::array<int64_t, K> offsets{};
    for (size_t d = geometry.dims.size() - 1; d-- > 0;) {
      const int64_t index = run % geometry.dims[d];
      run /= geometry.dims[d];
      for (size_t k = 0; k < K; ++k) offsets[k] += index * geometry.strides[k][d];
    }
    for (size_t k = 0; k < K; ++k) offsets[k] += first * geometry.strides[k].back();
    fn(offsets, n);
    pos += n;
  }
}

}  // namespace nxrt::cpu::math
