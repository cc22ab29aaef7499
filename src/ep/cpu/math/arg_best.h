// ep/cpu/math/arg_best.h: the index of the largest (or smallest) element along an axis, for
// ArgMax/ArgMin (reduction/reduce.cpp) and Hardmax (normalization/softmax.cpp).
//
// Layer: nxrt_cpu_math (header only; a helper two families share). Semantics, ONNX's ArgMax-13
// and NumPy's: ties give the first index, or the last with `select_last`; NaN counts as greater
// than (ArgMax) and less than (ArgMin) every number, so the first NaN wins (the last with
// `select_last`). Both walks are branch-free and run in the widest SIMD build (simd_map.h):
//   ArgBestRow      one contiguous row: 16 interleaved lanes each keep their best value and its
//                   index, the lanes merge pairwise (best value, then first (last) index), then
//                   the tail.
//   ArgBestColumns  `width` neighbouring columns of a [axis, stride] block: blocks of 64 columns
//                   keep a best value and index per column while the axis is walked row by row.
// T is any element type of element_types.h; the 16-bit floats compare in float.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "ep/cpu/math/element_types.h"
#include "ep/cpu/math/simd_map.h"

namespace nxrt::cpu::math {

namespace arg_best_internal {

// Whether v, met after the current best b, replaces it.
template <bool kIsMax, typename C>
bool Replaces(C v, C b, bool select_last) {
  const bool v_nan = v != v;
  const bool b_nan = b != b;
  const bool beats = kIsMax ? v > b : v < b;
  const bool ties = kIsMax ? v >= b : v <= b;
  // First: a strictly better number, or the first NaN. Last: a better or equal number, any NaN.
  return select_last ? (ties | v_nan) : (beats | (v_nan & !b_nan));
}

// Index lanes as wide as the compared values where the indices fit, so the compare masks and
// the index blends have the same lane count.
template <typename C>
using LaneIndex = std::conditional_t<(sizeof(C) >= 8), int64_t, int32_t>;

}  // namespace arg_best_internal

// The index of the best of x[0, n) (n >= 1).
template <bool kIsMax, typename T>
int64_t ArgBestRow(const T* x, int64_t n, bool select_last) {
  using namespace arg_best_internal;
  using C = Compute<T>;
  using I = LaneIndex<C>;
  constexpr int kRowLanes = 16;
  int64_t k = 0;
  C best = Load(x[0]);
  int64_t index = 0;
  if (n >= 2 * kRowLanes && n <= std::numeric_limits<I>::max()) {
    CallWidest([&] {
      // Locals, not captured arrays and counters, which GCC would store back every step.
      C b[kRowLanes];
      I at[kRowLanes];
      const T* row = x;
      const int64_t count = n;
      const bool last = select_last;
      for (int j = 0; j < kRowLanes; ++j) {
        b[j] = Load(row[j]);
        at[j] = static_cast<I>(j);
      }
      int64_t i = kRowLanes;
      for (; i + kRowLanes <= count; i += kRowLanes) {
        for (int j = 0; j < kRowLanes; ++j) {
          const C v = Load(row[i + j]);
          const bool take = Replaces<kIsMax>(v, b[j], last);
          b[j] = take ? v : b[j];
          at[j] = take ? static_cast<I>(i + j) : at[j];
        }
      }
      // The lanes merge pairwise, a tree whose halves vectorise (a serial merge after the loop
      // took as long as the loop over a row of 128): the better value, and between equal ones
      // (NaN equal to NaN) the first (last) index. Each lane holds the first (last) index of
      // its own best, so the merge gives the row's.
      for (int h = kRowLanes / 2; h > 0; h /= 2) {
        for (int j = 0; j < h; ++j) {
          const C v = b[j + h];
          const C w = b[j];
          const bool v_nan = v != v;
          const bool w_nan = w != w;
          const bool beats = (kIsMax ? v > w : v < w) | (v_nan & !w_nan);
          const bool equal = (v == w) | (v_nan & w_nan);
          const bool preferred = last ? at[j + h] > at[j] : at[j + h] < at[j];
          const bool take = beats | (equal & preferred);
          b[j] = take ? v : w;
          at[j] = take ? at[j + h] : at[j];
        }
      }
      best = b[0];
      index = at[0];
      k = i;
    });
  } else {
    k = 1;
  }
  // The rest comes after every index seen so far.
  for (; k < n; ++k) {
    const C v = Load(x[k]);
    if (Replaces<kIsMax>(v, best, select_last)) {
      best = v;
      index = k;
    }
  }
  return index;
}

// out[j] = the index d of the best x[d * stride + j] over d in [0, axis_dim), for j < width
// (axis_dim >= 1).
template <bool kIsMax, typename T>
void ArgBestColumns(int64_t axis_dim, int64_t stride, int64_t width, bool select_last, const T* x,
                    int64_t* out) {
  using namespace arg_best_internal;
  using C = Compute<T>;
  constexpr int64_t kColumns = 64;
  const auto walk = [&](auto index_tag) {
    using I = decltype(index_tag);
    for (int64_t c = 0; c < width; c += kColumns) {
      const int64_t w = std::min(kColumns, width - c);
      C best[kColumns];
      I index[kColumns];
      for (int64_t j = 0; j < w; ++j) {
        best[j] = Load(x[c + j]);
        index[j] = 0;
      }
      CallWidest([&] {
        // Locals, as in ArgBestRow.
        C b[kColumns];
        I at[kColumns];
        std::copy_n(best, w, b);
        std::copy_n(index, w, at);
        const T* block = x + c;
        const int64_t rows = axis_dim;
        const int64_t ld = stride;
        const int64_t width_here = w;
        const bool last = select_last;
        for (int64_t d = 1; d < rows; ++d) {
          const T* row = block + d * ld;
          for (int64_t j = 0; j < width_here; ++j) {
            const C v = Load(row[j]);
            const bool take = Replaces<kIsMax>(v, b[j], last);
            b[j] = take ? v : b[j];
            at[j] = take ? static_cast<I>(d) : at[j];
          }
        }
        std::copy_n(b, w, best);
        std::copy_n(at, w, index);
      });
      for (int64_t j = 0; j < w; ++j) out[c + j] = index[j];
    }
  };
  if (axis_dim <= std::numeric_limits<LaneIndex<C>>::max()) {
    walk(LaneIndex<C>{});
  } else {
    walk(int64_t{});
  }
}

}  // namespace nxrt::cpu::math
