// ep/cpu/math/nn/nhwc_pool.cpp: channels-last MaxPool, AveragePool and GlobalAveragePool.
// Layer: nxrt_cpu_math.
#include "ep/cpu/math/nn/nhwc_pool.h"

#include <immintrin.h>

#include <algorithm>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

#include "core/cpu_features.h"
#include "ep/cpu/math/nn_common.h"

namespace nxrt::cpu::nn {

namespace {

// Channels per unit of the global pool: its double accumulators live on the stack.
constexpr int64_t kGlobalChannelBlock = 256;

Status CheckNhwcInput(std::string_view op, DataType dtype, std::span<const int64_t> x_shape) {
  if (dtype != DataType::kFloat && dtype != DataType::kDouble) {
    return MakeStatus(StatusCode::kUnsupported, op, ": element type ", DataTypeName(dtype),
                      " is not supported (expected float or double)");
  }
  if (x_shape.size() != 4) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": X ", Str(x_shape),
                      " must have rank 4 ([N, H, W, C])");
  }
  return Status::Ok();
}

Shape NchwOf(std::span<const int64_t> nhwc) { return {nhwc[0], nhwc[3], nhwc[1], nhwc[2]}; }

// y = max(y, x) over one row of channels; a NaN in x is taken and then kept.
template <typename T>
void MaxRow(const T* __restrict x, T* __restrict y, int64_t channels) {
  for (int64_t c = 0; c < channels; ++c) y[c] = x[c] > y[c] || x[c] != x[c] ? x[c] : y[c];
}

// y = the max of `count` (>= 1) rows of channels, same start and NaN rule as MaxRow, on AVX-512:
// each block of 16 channels stays in a register across the window instead of going through y
// once per tap (ResNet-18's 3x3 stride-2 pool over 64x112x112: 0.65 -> 0.29 ms per run at one
// thread).
__attribute__((target("avx512f"))) void MaxRowsAvx512(const float* const* rows, int count,
                                                       float* y, int64_t channels) {
  // From the lowest float, as the scalar rule: a window of -inf gives the lowest float too.
  const __m512 lowest = _mm512_set1_ps(std::numeric_limits<float>::lowest());
  int64_t c = 0;
  for (; c + 16 <= channels; c += 16) {
    __m512 acc = lowest;
    for (int t = 0; t < count; ++t) {
      const __m512 x = _mm512_loadu_ps(rows[t] + c);
      const __mmask16 take = _mm512_cmp_ps_mask(x, acc, _CMP_GT_OQ) |
                             _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
      acc = _mm512_mask_mov_ps(acc, take, x);
    }
    _mm512_storeu_ps(y + c, acc);
  }
  if (c < channels) {
    const __mmask16 tail = static_cast<__mmask16>((1u << (channels - c)) - 1);
    __m512 acc = lowest;
    for (int t = 0; t < count; ++t) {
      const __m512 x = _mm512_maskz_loadu_ps(tail, rows[t] + c);
      const __mmask16 take = _mm512_cmp_ps_mask(x, acc, _CMP_GT_OQ) |
                             _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
      acc = _mm512_mask_mov_ps(acc, take, x);
    }
    _mm512_mask_storeu_ps(y + c, tail, acc);
  }
}

template <typename T>
void AddRow(const T* __restrict x, T* __restrict y, int64_t channels) {
  for (int64_t c = 0; c < channels; ++c) y[c] += x[c];
}

// Output rows [begin, end) (unit = n * H' + oh) of a windowed pool.
template <typename T>
void WindowPool(const NhwcPoolPlan& plan, const T* x, T* y, int64_t begin, int64_t end) {
  const PoolPlan& p = plan.pool;
  const WindowGeometry& g = p.geometry;
  const int64_t in_h = p.input_spatial[0], in_w = p.input_spatial[1], ch = plan.channels;
  const int64_t out_h = g.output[0], out_w = g.output[1], kh = g.kernel[0], kw = g.kernel[1];
  const int64_t dh = g.dilations[0], dw = g.dilations[1];
  const bool max = p.kind == PoolKind::kMax;
  const bool include_pad = p.attributes.count_include_pad;
  const T init = max ? std::numeric_limits<T>::lowest() : T(0);
  [[maybe_unused]] const bool fast_max = CpuHasAvx512();
  for (int64_t unit = begin; unit < end; ++unit) {
    const int64_t n = unit / out_h, oh = unit % out_h;
    const T* xn = x + n * in_h * in_w * ch;
    const AxisTaps rows = TapsAt(g, 0, in_h, oh);
    for (int64_t ow = 0; ow < out_w; ++ow) {
      T* yp = y + (unit * out_w + ow) * ch;
      const AxisTaps cols = TapsAt(g, 1, in_w, ow);
      const auto pixel = [&](int64_t th, int64_t tw) {
        return xn + ((rows.first + th * dh) * in_w + cols.first + tw * dw) * ch;
      };
      if constexpr (std::is_same_v<T, float>) {
        // The window's input rows, when they fit the fast path's list.
        constexpr int kMaxTaps = 64;
        const float* taps[kMaxTaps];
        int count = 0;
        if (max && fast_max && kh * kw <= kMaxTaps) {
          for (int64_t th = rows.begin; th < rows.end; ++th) {
            for (int64_t tw = cols.begin; tw < cols.end; ++tw) taps[count++] = pixel(th, tw);
          }
          if (count > 0) {
            MaxRowsAvx512(taps, count, yp, ch);
            continue;
          }
        }
      }
      std::fill(yp, yp + ch, init);
      for (int64_t th = rows.begin; th < rows.end; ++th) {
        for (int64_t tw = cols.begin; tw < cols.end; ++tw) {
          if (max) {
            MaxRow(pixel(th, tw), yp, ch);
          } else {
            AddRow(pixel(th, tw), yp, ch);
          }
        }
      }
      if (max) continue;
      // The window is a product of per-dim tap sets: so are its counts.
      const int64_t count = include_pad ? rows.padded * cols.padded
                                        : (rows.end - rows.begin) * (cols.end - cols.begin);
      if (count == 0) continue;  // the sum is 0, as pool.h gives
      const T divisor = static_cast<T>(count);
      for (int64_t c = 0; c < ch; ++c) yp[c] /= divisor;
    }
  }
}

// Units [begin, end) (unit = n * blocks + block) of the global average pool.
template <typename T>
void GlobalAveragePool(const NhwcPoolPlan& plan, const T* x, T* y, int64_t begin, int64_t end) {
  const int64_t ch = plan.channels;
  const int64_t pixels = Product(plan.pool.input_spatial);
  const int64_t blocks = (ch + kGlobalChannelBlock - 1) / kGlobalChannelBlock;
  double sum[kGlobalChannelBlock];
  for (int64_t unit = begin; unit < end; ++unit) {
    const int64_t n = unit / blocks, c0 = unit % blocks * kGlobalChannelBlock;
    const int64_t width = std::min(kGlobalChannelBlock, ch - c0);
    std::fill(sum, sum + width, 0.0);
    const T* xn = x + n * pixels * ch + c0;
    for (int64_t i = 0; i < pixels; ++i) {
      const T* xp = xn + i * ch;
      for (int64_t c = 0; c < width; ++c) sum[c] += static_cast<double>(xp[c]);
    }
    T* yp = y + n * ch + c0;
    const double divisor = pixels > 0 ? static_cast<double>(pixels) : 1.0;
    for (int64_t c = 0; c < width; ++c) yp[c] = static_cast<T>(sum[c] / divisor);
  }
}

}  // namespace

Result<NhwcPoolPlan> PrepareNhwcPool(PoolKind kind, DataType dtype,
                                     std::span<const int64_t> x_shape,
                                     const PoolAttributes& attributes) {
  const std::string_view op = kind == PoolKind::kMax ? "NhwcMaxPool" : "NhwcAveragePool";
  if (kind == PoolKind::kLp) {
    return MakeStatus(StatusCode::kUnsupported, "NhwcPool: LpPool has no channels-last form");
  }
  NXRT_RETURN_IF_ERROR(CheckNhwcInput(op, dtype, x_shape));
  PoolAttributes nchw_attributes = attributes;
  nchw_attributes.storage_order = 0;
  Result<PoolPlan> pool = PreparePool(kind, dtype, NchwOf(x_shape), nchw_attributes);
  if (!pool.ok()) {
    return pool.status().WithContext(std::string(op) + " (X read as [N, C, H, W])");
  }
  NhwcPoolPlan plan;
  plan.dtype = dtype;
  plan.pool = *std::move(pool);
  const WindowGeometry& g = plan.pool.geometry;
  plan.channels = x_shape[3];
  plan.output_shape = {x_shape[0], g.output[0], g.output[1], plan.channels};
  plan.units = x_shape[0] * g.output[0];
  plan.work_per_unit = g.output[1] * g.kernel[0] * g.kernel[1] * plan.channels;
  return plan;
}

Result<NhwcPoolPlan> PrepareNhwcGlobalAveragePool(DataType dtype,
                                                  std::span<const int64_t> x_shape) {
  constexpr std::string_view kOp = "NhwcGlobalAveragePool";
  NXRT_RETURN_IF_ERROR(CheckNhwcInput(kOp, dtype, x_shape));
  Result<PoolPlan> pool = PrepareGlobalPool(PoolKind::kAverage, dtype, NchwOf(x_shape));
  if (!pool.ok()) return pool.status().WithContext(std::string(kOp) + " (X read as [N, C, H, W])");
  NhwcPoolPlan plan;
  plan.dtype = dtype;
  plan.pool = *std::move(pool);
  plan.channels = x_shape[3];
  plan.output_shape = {x_shape[0], 1, 1, plan.channels};
  const int64_t blocks = (plan.channels + kGlobalChannelBlock - 1) / kGlobalChannelBlock;
  plan.units = x_shape[0] * blocks;
  plan.work_per_unit = x_shape[1] * x_shape[2] * std::min(kGlobalChannelBlock, plan.channels);
  return plan;
}

void NhwcPoolUnits(const NhwcPoolPlan& plan, const void* x, void* y, int64_t unit_begin,
                   int64_t unit_end) {
  const int64_t begin = std::clamp<int64_t>(unit_begin, 0, plan.units);
  const int64_t end = std::clamp<int64_t>(unit_end, begin, plan.units);
  const auto run = [&](auto* yt) {
    using T = std::remove_pointer_t<decltype(yt)>;
    const T* xt = static_cast<const T*>(x);
    if (plan.pool.global) {
      GlobalAveragePool<T>(plan, xt, yt, begin, end);
    } else {
      WindowPool<T>(plan, xt, yt, begin, end);
    }
  };
  if (plan.dtype == DataType::kFloat) {
    run(static_cast<float*>(y));
  } else if (plan.dtype == DataType::kDouble) {
    run(static_cast<double*>(y));
  }
}

}  // namespace nxrt::cpu::nn
