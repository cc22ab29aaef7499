// ep/cpu/math/nn/pool.cpp: MaxPool, AveragePool, LpPool and the Global pools. Layer: nxrt_cpu_math.
#include "ep/cpu/math/nn/pool.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "ep/cpu/math/nn_common.h"
#include "ep/cpu/math/simd_map.h"

namespace nxrt::cpu::nn {

namespace {

std::string_view PoolName(PoolKind kind, bool global) {
  switch (kind) {
    case PoolKind::kMax:
      return global ? "GlobalMaxPool" : "MaxPool";
    case PoolKind::kAverage:
      return global ? "GlobalAveragePool" : "AveragePool";
    case PoolKind::kLp:
      return global ? "GlobalLpPool" : "LpPool";
  }
  return "Pool";
}

// The element types of the pools: the float types; MaxPool also int8 and uint8.
using MaxPoolTypes = math::Concat<math::FloatTypes, math::TypeList<int8_t, uint8_t>>;

template <typename F>
Status VisitPoolType(std::string_view op, PoolKind kind, DataType dtype, F&& f) {
  if (kind == PoolKind::kMax) return math::DispatchType<MaxPoolTypes>(dtype, op, f);
  return math::DispatchType<math::FloatTypes>(dtype, op, f);
}

Status CheckInput(std::string_view op, PoolKind kind, DataType dtype,
                  std::span<const int64_t> x_shape) {
  NXRT_RETURN_IF_ERROR(VisitPoolType(op, kind, dtype, [](auto) {}));
  NXRT_RETURN_IF_ERROR(CheckShape(op, "input X", x_shape));
  if (x_shape.size() < 3) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": X ", Str(x_shape),
                      " needs rank >= 3 ([N, C, spatial...])");
  }
  return Status::Ok();
}

// |v|^p and sum^(1/p) of LpPool: the ONNX default p = 2 (and p = 1) without std::pow, which
// costs tens of nanoseconds per element.
double LpTerm(double v, double p) {
  if (p == 2.0) return v * v;
  if (p == 1.0) return std::fabs(v);
  return std::pow(std::fabs(v), p);
}

double LpRoot(double sum, double p) {
  if (p == 2.0) return std::sqrt(sum);
  if (p == 1.0) return sum;
  return std::pow(sum, 1.0 / p);
}

template <typename T>
void PoolTyped(const PoolPlan& plan, const T* x, T* y, int64_t* indices, int64_t begin,
               int64_t end) {
  using A = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const size_t nsp = plan.input_spatial.size();
  const WindowGeometry& g = plan.geometry;
  const int64_t in_size = Product(plan.input_spatial);
  const int64_t out_size = Product(g.output);
  const std::vector<int64_t> row_strides = ContiguousStrides(plan.input_spatial);
  std::vector<int64_t> col_strides(nsp, 1);
  for (size_t d = 1; d < nsp; ++d) col_strides[d] = col_strides[d - 1] * plan.input_spatial[d - 1];
  const bool column_major = plan.attributes.storage_order == 1;
  const double p = plan.attributes.p;
  std::vector<int64_t> o(nsp), k(nsp);
  std::vector<AxisTaps> taps(nsp);
  for (int64_t plane = begin; plane < end; ++plane) {
    const T* xp = x + plane * in_size;
    std::fill(o.begin(), o.end(), 0);
    for (int64_t oi = 0; oi < out_size; ++oi) {
      A best = std::numeric_limits<A>::lowest();
      int64_t best_index = -1;
      double sum = 0.0;
      // The window reads the box of its per-dim input taps, in row-major tap order; it counts
      // their product, or the product of the per-dim taps inside the padded input.
      int64_t valid = 1, padded = 1;
      for (size_t d = 0; d < nsp; ++d) {
        taps[d] = TapsAt(g, d, plan.input_spatial[d], o[d]);
        valid *= taps[d].end - taps[d].begin;
        padded *= taps[d].padded;
        k[d] = taps[d].begin;
      }
      for (int64_t tap = 0; tap < valid; ++tap) {
        int64_t off = 0, col_off = 0;
        for (size_t d = 0; d < nsp; ++d) {
          const int64_t c = taps[d].first + k[d] * g.dilations[d];
          off += c * row_strides[d];
          col_off += c * col_strides[d];
        }
        const A v = static_cast<A>(ToAcc(xp[off]));
        if (plan.kind == PoolKind::kMax) {
          bool take = v > best || best_index < 0;
          if constexpr (std::is_floating_point_v<A>) take = take || std::isnan(v);
          if (take && !(best_index >= 0 && std::isnan(static_cast<double>(best)))) {
            best = v;
            best_index = column_major ? col_off : off;
          }
        } else if (plan.kind == PoolKind::kAverage) {
          sum += static_cast<double>(v);
        } else {
          sum += LpTerm(static_cast<double>(v), p);
        }
        for (size_t d = nsp; d-- > 0;) {
          if (++k[d] < taps[d].end) break;
          k[d] = taps[d].begin;
        }
      }
      T& out = y[plane * out_size + oi];
      if (plan.kind == PoolKind::kMax) {
        out = FromAcc<T>(best);
        if (indices != nullptr) {
          indices[plane * out_size + oi] = best_index < 0 ? -1 : plane * in_size + best_index;
        }
      } else if (plan.kind == PoolKind::kAverage) {
        const int64_t count = plan.attributes.count_include_pad ? padded : valid;
        out = FromAcc<T>(static_cast<A>(count > 0 ? sum / static_cast<double>(count) : 0.0));
      } else {
        out = FromAcc<T>(static_cast<A>(LpRoot(sum, p)));
      }
      for (size_t d = nsp; d-- > 0;) {
        if (++o[d] < g.output[d]) break;
        o[d] = 0;
      }
    }
  }
}

// The NaN-safe form of one MaxPool output row: taps in PoolTyped's row-major order, so the first
// NaN of a window wins (same bits as the general path). `lowest` where no tap is an input.
template <typename T>
void MaxPoolRowKeepingNan(const PoolPlan& plan, const T* xp, int64_t oh, T* yr) {
  const WindowGeometry& g = plan.geometry;
  const int64_t in_w = plan.input_spatial[1], out_w = g.output[1];
  const int64_t dh = g.dilations[0], dw = g.dilations[1];
  std::fill(yr, yr + out_w, std::numeric_limits<T>::lowest());
  const AxisTaps rows = TapsAt(g, 0, plan.input_spatial[0], oh);
  for (int64_t th = rows.begin; th < rows.end; ++th) {
    const T* xr = xp + (rows.first + th * dh) * in_w;
    for (int64_t ow = 0; ow < out_w; ++ow) {
      const AxisTaps cols = TapsAt(g, 1, in_w, ow);
      T best = yr[ow];
      for (int64_t tw = cols.begin; tw < cols.end; ++tw) {
        const T v = xr[cols.first + tw * dw];
        // Keep a NaN once taken; take a NaN or a larger value otherwise.
        best = best != best ? best : (v > best || v != v ? v : best);
      }
      yr[ow] = best;
    }
  }
}

// out[ow] = op over taps t < kw of row[ow * stride + t * dilation]; S is the stride when known at
// compile time (1 and 2 vectorise as contiguous and pairwise loads), 0 when it is `stride`.
template <int S, typename T, typename Op>
inline void ReduceColumns(const T* row, int64_t out_w, int64_t kw, int64_t stride,
                          int64_t dilation, T init, const Op& op, T* out) {
  const int64_t s = S > 0 ? S : stride;
  for (int64_t ow = 0; ow < out_w; ++ow) out[ow] = init;
  for (int64_t t = 0; t < kw; ++t) {
    const T* r = row + t * dilation;
    for (int64_t ow = 0; ow < out_w; ++ow) out[ow] = op(out[ow], r[ow * s]);
  }
}

template <typename T, typename Op>
inline void ReduceColumnsAnyStride(const T* row, int64_t out_w, int64_t kw, int64_t stride,
                                   int64_t dilation, T init, const Op& op, T* out) {
  if (stride == 1) {
    ReduceColumns<1>(row, out_w, kw, stride, dilation, init, op, out);
  } else if (stride == 2) {
    ReduceColumns<2>(row, out_w, kw, stride, dilation, init, op, out);
  } else {
    ReduceColumns<0>(row, out_w, kw, stride, dilation, init, op, out);
  }
}

// 2-D MaxPool without Indices, AveragePool and LpPool with p = 1 or 2 (a sum of |x| or x², then for
// p = 2 its square root, where AveragePool divides) over float/double, planes [begin, end), in the
// widest build the CPU runs (simd_map.h). Per output row: the valid kernel rows reduced column by
// column (contiguous loads: max, or sum) into a row buffer that holds the left and right padding as
// the reduction's identity (lowest, or 0), then each output reduces its kernel columns of that
// buffer, branch-free. A max is exact in any order, and the taps a window reads are the product of
// its valid rows and columns, so this is the general path's max; AveragePool divides the sum by the
// product of the per-axis counts (inputs, or positions inside the padded input with
// count_include_pad), which is the general path's count. The vertical pass also notes whether a row
// held a NaN; such an output row is redone by MaxPoolRowKeepingNan (first NaN of a window wins,
// same bits as the general path). A window with no input tap gives lowest, as there.
// Pool2d's row buffer: the input row with its left padding, up to the last column a window reads.
int64_t Pool2dRowWidth(const PoolPlan& plan) {
  const WindowGeometry& g = plan.geometry;
  return std::max(g.pads_begin[1] + plan.input_spatial[1],
                  (g.output[1] - 1) * g.strides[1] + (g.kernel[1] - 1) * g.dilations[1] + 1);
}

// Whether Pool2d suits the plan: its buffer stays within a few times an input row plus an output
// row, and a window is at most about twice as wide as the input row. A stride, dilation or
// padding far beyond the input would make the buffer larger than the tensors themselves, and a
// wider kernel has its column pass read mostly padding (out_w x kw per row); the general path
// visits only the taps that read the input, without a buffer.
bool Pool2dFits(const PoolPlan& plan) {
  const int64_t in_w = plan.input_spatial[1];
  return Pool2dRowWidth(plan) <= 4 * (in_w + plan.geometry.output[1]) + 256 &&
         plan.geometry.kernel[1] <= 2 * in_w + 16;
}

template <typename T>
void Pool2d(const PoolPlan& plan, const T* x, T* y, int64_t begin, int64_t end) {
  const WindowGeometry& g = plan.geometry;
  const bool max = plan.kind == PoolKind::kMax;
  const int64_t in_h = plan.input_spatial[0], in_w = plan.input_spatial[1];
  const int64_t out_h = g.output[0], out_w = g.output[1];
  const int64_t kw = g.kernel[1], dh = g.dilations[0];
  const int64_t sw = g.strides[1], dw = g.dilations[1], left = g.pads_begin[1];
  const int64_t width = Pool2dRowWidth(plan);
  const T identity = max ? std::numeric_limits<T>::lowest() : T{0};
  std::vector<T> buffer(width, identity);
  const std::vector<T> no_row(in_w, identity);
  // Inputs (or padded positions) per output row and column; a window counts their product.
  const auto axis_count = [&](size_t d, int64_t o) {
    const AxisTaps taps = TapsAt(g, d, plan.input_spatial[d], o);
    return plan.attributes.count_include_pad ? taps.padded : taps.end - taps.begin;
  };
  // A zero count divides a zero sum: 1 instead keeps the output 0 without a branch.
  std::vector<T> column_count(out_w);
  for (int64_t ow = 0; ow < out_w; ++ow) {
    column_count[ow] = static_cast<T>(std::max<int64_t>(axis_count(1, ow), 1));
  }
  const auto row_max = [](T a, T v) { return v > a ? v : a; };
  const auto row_sum = [](T a, T v) { return a + v; };
  // LpPool with p = 2 (or 1): the sum of squares (or of |x|), then its square root.
  const bool lp = plan.kind == PoolKind::kLp;
  const bool lp1 = lp && plan.attributes.p == 1.0;
  const auto term = [lp, lp1](T v) { return lp ? (lp1 ? std::fabs(v) : v * v) : v; };
  math::CallWidest([&] {
    T* row = buffer.data() + left;
    for (int64_t plane = begin; plane < end; ++plane) {
      const T* xp = x + plane * in_h * in_w;
      T* yp = y + plane * out_h * out_w;
      for (int64_t oh = 0; oh < out_h; ++oh) {
        T* yr = yp + oh * out_w;
        uint32_t nan = 0;
        // The valid kernel rows: the first two (a row of the identity standing in for a
        // missing one) in one pass, then one pass per further row.
        const AxisTaps rows = TapsAt(g, 0, in_h, oh);
        const auto row_at = [&](int64_t th) { return xp + (rows.first + th * dh) * in_w; };
        const T* first[2] = {no_row.data(), no_row.data()};
        int64_t th = rows.begin;
        for (int64_t taken = 0; th < rows.end && taken < 2; ++th) first[taken++] = row_at(th);
        const T* r0 = first[0];
        const T* r1 = first[1];
        if (max) {
          for (int64_t c = 0; c < in_w; ++c) {
            nan |= (r0[c] != r0[c]) | (r1[c] != r1[c]);
            row[c] = row_max(r0[c], r1[c]);
          }
        } else {
          for (int64_t c = 0; c < in_w; ++c) row[c] = term(r0[c]) + term(r1[c]);
        }
        for (; th < rows.end; ++th) {
          const T* xr = row_at(th);
          if (max) {
            for (int64_t c = 0; c < in_w; ++c) {
              nan |= xr[c] != xr[c];
              row[c] = row_max(row[c], xr[c]);
            }
          } else {
            for (int64_t c = 0; c < in_w; ++c) row[c] += term(xr[c]);
          }
        }
        if (max) {
          ReduceColumnsAnyStride(buffer.data(), out_w, kw, sw, dw, identity, row_max, yr);
          if (nan != 0) MaxPoolRowKeepingNan(plan, xp, oh, yr);
        } else if (lp) {
          ReduceColumnsAnyStride(buffer.data(), out_w, kw, sw, dw, identity, row_sum, yr);
          if (!lp1) {
            for (int64_t ow = 0; ow < out_w; ++ow) yr[ow] = std::sqrt(yr[ow]);
          }
        } else {
          ReduceColumnsAnyStride(buffer.data(), out_w, kw, sw, dw, identity, row_sum, yr);
          const T rows = static_cast<T>(std::max<int64_t>(axis_count(0, oh), 1));
          for (int64_t ow = 0; ow < out_w; ++ow) yr[ow] /= rows * column_count[ow];
        }
      }
    }
  });
}

}  // namespace

Result<PoolPlan> PreparePool(PoolKind kind, DataType dtype, std::span<const int64_t> x_shape,
                             const PoolAttributes& attributes) {
  const std::string_view op = PoolName(kind, false);
  NXRT_RETURN_IF_ERROR(CheckInput(op, kind, dtype, x_shape));
  const size_t nsp = x_shape.size() - 2;
  if (attributes.kernel_shape.size() != nsp) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": kernel_shape ",
                      Str(attributes.kernel_shape), " has ", attributes.kernel_shape.size(),
                      " entries, expected ", nsp, " for X ", Str(x_shape));
  }
  if (kind == PoolKind::kLp && !(attributes.p > 0)) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": p is ", attributes.p, ", expected > 0");
  }
  if (attributes.storage_order != 0 && attributes.storage_order != 1) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": storage_order is ",
                      attributes.storage_order, ", expected 0 or 1");
  }
  PoolPlan plan;
  plan.dtype = dtype;
  plan.kind = kind;
  plan.attributes = attributes;
  plan.planes = x_shape[0] * x_shape[1];
  plan.input_spatial.assign(x_shape.begin() + 2, x_shape.end());
  WindowAttributes window;
  window.auto_pad = attributes.auto_pad;
  window.strides = attributes.strides;
  window.dilations = attributes.dilations;
  window.pads = attributes.pads;
  window.ceil_mode = attributes.ceil_mode;
  NXRT_ASSIGN_OR_RETURN(plan.geometry, ComputeWindowGeometry(op, plan.input_spatial,
                                                             attributes.kernel_shape, window));
  plan.output_shape = {x_shape[0], x_shape[1]};
  plan.output_shape.insert(plan.output_shape.end(), plan.geometry.output.begin(),
                           plan.geometry.output.end());
  plan.work_per_plane = Product(plan.geometry.output) * Product(plan.geometry.kernel);
  return plan;
}

Result<PoolPlan> PrepareGlobalPool(PoolKind kind, DataType dtype, std::span<const int64_t> x_shape,
                                   double p) {
  const std::string_view op = PoolName(kind, true);
  NXRT_RETURN_IF_ERROR(CheckInput(op, kind, dtype, x_shape));
  if (kind == PoolKind::kLp && !(p > 0)) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": p is ", p, ", expected > 0");
  }
  PoolPlan plan;
  plan.dtype = dtype;
  plan.kind = kind;
  plan.global = true;
  plan.attributes.p = p;
  plan.planes = x_shape[0] * x_shape[1];
  plan.input_spatial.assign(x_shape.begin() + 2, x_shape.end());
  plan.output_shape = {x_shape[0], x_shape[1]};
  plan.output_shape.resize(x_shape.size(), 1);
  plan.work_per_plane = Product(plan.input_spatial);
  return plan;
}

namespace {

// GlobalMaxPool and GlobalAveragePool of one float/double plane in the widest build the CPU runs:
// the maximum skipping NaNs in 64 running maxima (a plane holding a NaN then takes the scalar
// loop, whose first NaN wins), the sum in 8 double partial sums (kind kMax or kAverage).
template <typename T>
void GlobalPoolPlaneSimd(PoolKind kind, const T* x, int64_t n, T* y) {
  if (kind == PoolKind::kMax) {
    constexpr int64_t kBlock = 64;
    const int64_t full = n / kBlock * kBlock;
    T lanes[kBlock];
    std::fill_n(lanes, kBlock, std::numeric_limits<T>::lowest());
    uint32_t nan = 0;
    for (int64_t i = 0; i < full; i += kBlock) {
      for (int64_t j = 0; j < kBlock; ++j) {
        nan |= x[i + j] != x[i + j];
        lanes[j] = x[i + j] > lanes[j] ? x[i + j] : lanes[j];
      }
    }
    T best = std::numeric_limits<T>::lowest();
    for (int64_t j = 0; j < kBlock; ++j) best = lanes[j] > best ? lanes[j] : best;
    for (int64_t i = full; i < n; ++i) {
      nan |= x[i] != x[i];
      best = x[i] > best ? x[i] : best;
    }
    if (nan != 0) {
      for (int64_t i = 0; i < n; ++i) {
        if (x[i] != x[i]) {
          best = x[i];
          break;
        }
      }
    }
    *y = best;
    return;
  }
  constexpr int kLanes = 8;
  const int64_t full = n / kLanes * kLanes;
  double lanes[kLanes] = {};
  for (int64_t i = 0; i < full; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) lanes[j] += static_cast<double>(x[i + j]);
  }
  double sum = 0.0;
  for (int j = 0; j < kLanes; ++j) sum += lanes[j];
  for (int64_t i = full; i < n; ++i) sum += static_cast<double>(x[i]);
  *y = static_cast<T>(n > 0 ? sum / static_cast<double>(n) : 0.0);
}

template <typename T>
void GlobalPoolTyped(const PoolPlan& plan, const T* x, T* y, int64_t begin, int64_t end) {
  using A = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const int64_t in_size = Product(plan.input_spatial);
  const double p = plan.attributes.p;
  if constexpr (std::is_floating_point_v<T>) {
    if (plan.kind != PoolKind::kLp) {
      math::CallWidest([&] {
        for (int64_t plane = begin; plane < end; ++plane) {
          GlobalPoolPlaneSimd(plan.kind, x + plane * in_size, in_size, y + plane);
        }
      });
      return;
    }
  }
  for (int64_t plane = begin; plane < end; ++plane) {
    const T* xp = x + plane * in_size;
    if (plan.kind == PoolKind::kMax) {
      A best = std::numeric_limits<A>::lowest();
      for (int64_t i = 0; i < in_size; ++i) {
        const A v = static_cast<A>(ToAcc(xp[i]));
        if constexpr (std::is_floating_point_v<A>) {
          if (std::isnan(v)) {
            best = v;
            break;
          }
        }
        best = std::max(best, v);
      }
      y[plane] = FromAcc<T>(best);
      continue;
    }
    double sum = 0.0;
    for (int64_t i = 0; i < in_size; ++i) {
      const double v = static_cast<double>(ToAcc(xp[i]));
      sum += plan.kind == PoolKind::kAverage ? v : LpTerm(v, p);
    }
    const double r = plan.kind == PoolKind::kAverage
                         ? (in_size > 0 ? sum / static_cast<double>(in_size) : 0.0)
                         : LpRoot(sum, p);
    y[plane] = FromAcc<T>(static_cast<A>(r));
  }
}

}  // namespace

Status PoolPlanes(const PoolPlan& plan, const void* x, void* y, int64_t* indices,
                  int64_t plane_begin, int64_t plane_end) {
  const int64_t begin = std::clamp<int64_t>(plane_begin, 0, plan.planes);
  const int64_t end = std::clamp<int64_t>(plane_end, begin, plan.planes);
  return VisitPoolType(
      PoolName(plan.kind, plan.global), plan.kind, plan.dtype, [&](auto tag) -> Status {
        using T = typename decltype(tag)::type;
        const T* xt = static_cast<const T*>(x);
        T* yt = static_cast<T*>(y);
        if (plan.global) {
          GlobalPoolTyped<T>(plan, xt, yt, begin, end);
        } else if constexpr (std::is_floating_point_v<T>) {
          const bool fast_kind =
              plan.kind == PoolKind::kAverage ||
              (plan.kind == PoolKind::kMax && indices == nullptr) ||
              (plan.kind == PoolKind::kLp && (plan.attributes.p == 1 || plan.attributes.p == 2));
          if (fast_kind && plan.input_spatial.size() == 2 && Pool2dFits(plan)) {
            Pool2d<T>(plan, xt, yt, begin, end);
          } else {
            PoolTyped<T>(plan, xt, yt, indices, begin, end);
          }
        } else {
          PoolTyped<T>(plan, xt, yt, indices, begin, end);
        }
        return Status::Ok();
      });
}

Status Pool(const PoolPlan& plan, const void* x, void* y, int64_t* indices) {
  return PoolPlanes(plan, x, y, indices, 0, plan.planes);
}

}  // namespace nxrt::cpu::nn
