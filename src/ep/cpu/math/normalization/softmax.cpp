// ep/cpu/math/normalization/softmax.cpp: Softmax, LogSoftmax and Hardmax over [outer, axis_dim,
// inner].
//
// Layer: nxrt_cpu_math (framework-free reference math of the CPU EP).
// Rows with inner == 1 are contiguous and take plain loops (float Softmax and LogSoftmax rows on
// AVX-512 when the CPU has it, in simd_map.h's AVX2 or baseline build otherwise). Otherwise
// kSoftmaxLanes neighbouring rows (consecutive inner positions) are processed together so every
// pass reads contiguous segments. Hardmax finds each row's first maximum with arg_best.h.
#include "ep/cpu/math/normalization/softmax.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "core/cpu_features.h"
#include "ep/cpu/math/arg_best.h"
#include "ep/cpu/math/element_types.h"
#include "ep/cpu/math/fast_exp.h"
#include "ep/cpu/math/shape_util.h"
#include "ep/cpu/math/simd_map.h"

namespace nxrt::cpu::math {
namespace {

constexpr int64_t kSoftmaxLanes = 64;

// FastExp (fast_exp.h) on 16 lanes: the same range reduction, polynomial and special values.
// vscalefps multiplies by 2^n in one step, with the bits of FastExp's two power-of-2 factors (both
// exact, one rounding where the result is subnormal); a NaN x gives a NaN through it.
__attribute__((target("avx512f,fma"))) __m512 ExpAvx512(__m512 x) {
  const __m512 min = _mm512_set1_ps(-87.33654f), max = _mm512_set1_ps(88.72283f);
  const __m512 round = _mm512_set1_ps(12582912.0f);
  // Compare-and-move, and scalef in its masked form: GCC 12's unmasked min/max/scalef
  // intrinsics pass an undefined vector that its -Wmaybe-uninitialized flags.
  const __mmask16 below = _mm512_cmp_ps_mask(x, min, _CMP_LT_OQ);
  const __mmask16 above = _mm512_cmp_ps_mask(x, max, _CMP_GT_OQ);
  const __m512 clamped = _mm512_mask_mov_ps(_mm512_mask_mov_ps(x, below, min), above, max);
  const __m512 shifted = _mm512_fmadd_ps(clamped, _mm512_set1_ps(1.44269504088896341f), round);
  const __m512 n = _mm512_sub_ps(shifted, round);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693145751953125f), clamped);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(1.42860682030941723e-6f), r);
  __m512 p = _mm512_set1_ps(1.0f / 5040.0f);
  for (const float c : {1.0f / 720.0f, 1.0f / 120.0f, 1.0f / 24.0f, 1.0f / 6.0f, 0.5f, 1.0f,
                        1.0f}) {
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(c));
  }
  __m512 result = _mm512_mask_scalef_ps(p, 0xFFFF, p, n);
  result = _mm512_mask_mov_ps(result, below, _mm512_setzero_ps());
  return _mm512_mask_mov_ps(result, above, _mm512_set1_ps(std::numeric_limits<float>::infinity()));
}

// The lanes of v reduced by max (kMax) or sum as a tree of four shuffles, not a serial chain of
// 15 scalar steps, whose latency was as long as the work on a row of 128. Masked forms with every
// lane set: GCC 12's unmasked shuffle, permute and max pass an undefined vector that its
// -Wmaybe-uninitialized flags (as its own _mm512_reduce_*).
template <bool kMax>
__attribute__((target("avx512f"))) __m512 Combine(__m512 a, __m512 b) {
  return kMax ? _mm512_mask_max_ps(a, 0xFFFF, a, b) : _mm512_add_ps(a, b);
}

template <bool kMax>
__attribute__((target("avx512f"))) float Reduce(__m512 v) {
  constexpr __mmask16 kAll = 0xFFFF;
  // Halves, quarters, pairs within a quarter, neighbours.
  v = Combine<kMax>(v, _mm512_mask_shuffle_f32x4(v, kAll, v, v, _MM_SHUFFLE(1, 0, 3, 2)));
  v = Combine<kMax>(v, _mm512_mask_shuffle_f32x4(v, kAll, v, v, _MM_SHUFFLE(2, 3, 0, 1)));
  v = Combine<kMax>(v, _mm512_mask_permute_ps(v, kAll, v, _MM_SHUFFLE(1, 0, 3, 2)));
  v = Combine<kMax>(v, _mm512_mask_permute_ps(v, kAll, v, _MM_SHUFFLE(2, 3, 0, 1)));
  return _mm512_cvtss_f32(v);
}

// Float Softmax (log false) or LogSoftmax over `rows` contiguous rows of d (>= 1) elements, as
// SoftmaxRows does them (a NaN anywhere in a row makes the whole row NaN), 16 lanes at a time
// (BERT-base's attention rows of 128 at 2 threads: 350 -> 100 us per Softmax node).
__attribute__((target("avx512f,fma"))) void SoftmaxRowsAvx512(bool log, int64_t rows, int64_t d,
                                                              const float* x, float* y) {
  const __m512 minus_inf = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  const int64_t full = d / 16 * 16;
  const __mmask16 tail = static_cast<__mmask16>((1u << (d - full)) - 1);
  for (int64_t r = 0; r < rows; ++r, x += d, y += d) {
    // The maximum skips NaNs: a NaN's exponential makes the sum, and so the row, NaN.
    __m512 vmax = minus_inf;
    for (int64_t k = 0; k < d; k += 16) {
      const __mmask16 lanes = k < full ? __mmask16{0xFFFF} : tail;
      const __m512 v = _mm512_mask_loadu_ps(minus_inf, lanes, x + k);
      vmax = _mm512_mask_mov_ps(vmax, _mm512_cmp_ps_mask(v, vmax, _CMP_GT_OQ), v);
    }
    const float m = Reduce<true>(vmax);
    const __m512 vm = _mm512_set1_ps(m);
    __m512 vsum = _mm512_setzero_ps();
    for (int64_t k = 0; k < d; k += 16) {
      const __mmask16 lanes = k < full ? __mmask16{0xFFFF} : tail;
      const __m512 e = ExpAvx512(_mm512_sub_ps(_mm512_maskz_loadu_ps(lanes, x + k), vm));
      if (!log) _mm512_mask_storeu_ps(y + k, lanes, e);
      vsum = _mm512_add_ps(vsum, _mm512_maskz_mov_ps(lanes, e));
    }
    const float sum = Reduce<false>(vsum);
    // LogSoftmax is (x - m) - log(sum): m + log(sum) first would round log(sum) away for a
    // large m (a row of 1e7s would give -7 for -log(1000) = -6.9078).
    const __m512 log_sum = _mm512_set1_ps(log ? std::log(sum) : 0.0f);
    const __m512 inv = _mm512_set1_ps(1.0f / sum);
    for (int64_t k = 0; k < d; k += 16) {
      const __mmask16 lanes = k < full ? __mmask16{0xFFFF} : tail;
      const __m512 v =
          log ? _mm512_sub_ps(_mm512_sub_ps(_mm512_maskz_loadu_ps(lanes, x + k), vm), log_sum)
              : _mm512_mul_ps(_mm512_maskz_loadu_ps(lanes, y + k), inv);
      _mm512_mask_storeu_ps(y + k, lanes, v);
    }
  }
}

// Float Softmax (log false) or LogSoftmax over `rows` contiguous rows of d (>= 1) elements, as
// SoftmaxRowsAvx512 computes them, for simd_map.h's builds: the maximum skipping NaNs (a NaN's
// exponential makes the sum, and so the row, NaN), FastExp, and the sum, each in 16 partial
// results (a single running maximum or sum is a serial dependency the compiler may not reorder).
inline void SoftmaxRowsFloat(bool log, int64_t rows, int64_t d, const float* x, float* y) {
  constexpr int kLanes = 16;
  const int64_t full = d / kLanes * kLanes;
  for (int64_t r = 0; r < rows; ++r, x += d, y += d) {
    float partial[kLanes];
    std::fill_n(partial, kLanes, -std::numeric_limits<float>::infinity());
    for (int64_t k = 0; k < full; k += kLanes) {
      for (int j = 0; j < kLanes; ++j) partial[j] = x[k + j] > partial[j] ? x[k + j] : partial[j];
    }
    float m = partial[0];
    for (int j = 1; j < kLanes; ++j) m = partial[j] > m ? partial[j] : m;
    for (int64_t k = full; k < d; ++k) m = x[k] > m ? x[k] : m;
    std::fill_n(partial, kLanes, 0.0f);
    float tail = 0.0f;
    if (log) {
      for (int64_t k = 0; k < full; k += kLanes) {
        for (int j = 0; j < kLanes; ++j) partial[j] += FastExp(x[k + j] - m);
      }
      for (int64_t k = full; k < d; ++k) tail += FastExp(x[k] - m);
    } else {
      for (int64_t k = 0; k < full; k += kLanes) {
        for (int j = 0; j < kLanes; ++j) {
          const float e = FastExp(x[k + j] - m);
          y[k + j] = e;
          partial[j] += e;
        }
      }
      for (int64_t k = full; k < d; ++k) {
        y[k] = FastExp(x[k] - m);
        tail += y[k];
      }
    }
    float sum = tail;
    for (int j = 0; j < kLanes; ++j) sum += partial[j];
    if (log) {
      // (x - m) - log(sum), as SoftmaxRowsAvx512 says why.
      const float log_sum = std::log(sum);
      for (int64_t k = 0; k < d; ++k) y[k] = (x[k] - m) - log_sum;
    } else {
      const float inv = 1.0f / sum;
      for (int64_t k = 0; k < d; ++k) y[k] *= inv;
    }
  }
}

template <typename T>
void SoftmaxRows(SoftmaxKind kind, int64_t rows, int64_t d, const T* x, T* y) {
  using C = Compute<T>;
  if constexpr (std::is_same_v<T, float>) {
    if (kind != SoftmaxKind::kHardmax) {
      const bool log = kind == SoftmaxKind::kLogSoftmax;
      if (CpuHasAvx512()) {
        SoftmaxRowsAvx512(log, rows, d, x, y);
      } else {
        CallWidest([&] { SoftmaxRowsFloat(log, rows, d, x, y); });
      }
      return;
    }
  }
  for (int64_t r = 0; r < rows; ++r, x += d, y += d) {
    if (kind == SoftmaxKind::kHardmax) {
      // The first maximum wins; NaN beats numbers (ArgMax's rule).
      const int64_t arg = ArgBestRow<true>(x, d, false);
      std::fill_n(y, d, Store<T>(C{0}));
      y[arg] = Store<T>(C{1});
      continue;
    }
    C m = Load(x[0]);
    for (int64_t k = 1; k < d; ++k) m = MaxPropagateNan(m, static_cast<C>(Load(x[k])));
    C sum = 0;
    if (kind == SoftmaxKind::kLogSoftmax) {
      for (int64_t k = 0; k < d; ++k) sum += std::exp(Load(x[k]) - m);
      const C log_sum = std::log(sum);  // (x - m) - log(sum), as SoftmaxRowsAvx512 says why
      for (int64_t k = 0; k < d; ++k) y[k] = Store<T>((Load(x[k]) - m) - log_sum);
    } else if constexpr (kIsHalf<T>) {
      for (int64_t k = 0; k < d; ++k) sum += std::exp(Load(x[k]) - m);
      const C inv = C{1} / sum;
      for (int64_t k = 0; k < d; ++k) y[k] = Store<T>(std::exp(Load(x[k]) - m) * inv);
    } else {
      for (int64_t k = 0; k < d; ++k) {
        y[k] = std::exp(x[k] - m);
        sum += y[k];
      }
      const C inv = C{1} / sum;
      for (int64_t k = 0; k < d; ++k) y[k] *= inv;
    }
  }
}

template <typename T>
void SoftmaxTyped(SoftmaxKind kind, int64_t outer, int64_t d, int64_t inner, const void* in,
                  void* out) {
  using C = Compute<T>;
  const auto* x = static_cast<const T*>(in);
  auto* y = static_cast<T*>(out);
  if (d == 0) return;
  if (inner == 1) {
    SoftmaxRows(kind, outer, d, x, y);
    return;
  }
  if (kind == SoftmaxKind::kHardmax) {
    // A block of columns is written only after it is read, so y may be x.
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t c = 0; c < inner; c += kSoftmaxLanes) {
        const int64_t w = std::min(kSoftmaxLanes, inner - c);
        int64_t arg[kSoftmaxLanes];
        ArgBestColumns<true>(d, inner, w, false, x + o * d * inner + c, arg);
        T* yb = y + o * d * inner + c;
        for (int64_t k = 0; k < d; ++k) std::fill_n(yb + k * inner, w, Store<T>(C{0}));
        for (int64_t j = 0; j < w; ++j) yb[arg[j] * inner + j] = Store<T>(C{1});
      }
    }
    return;
  }
  for (int64_t o = 0; o < outer; ++o) {
    const T* xb = x + o * d * inner;
    T* yb = y + o * d * inner;
    for (int64_t c = 0; c < inner; c += kSoftmaxLanes) {
      const int64_t w = std::min(kSoftmaxLanes, inner - c);
      C m[kSoftmaxLanes];
      C sum[kSoftmaxLanes];
      for (int64_t j = 0; j < w; ++j) {
        m[j] = Load(xb[c + j]);
        sum[j] = 0;
      }
      for (int64_t k = 1; k < d; ++k) {
        const T* row = xb + k * inner + c;
        for (int64_t j = 0; j < w; ++j) m[j] = MaxPropagateNan(m[j], static_cast<C>(Load(row[j])));
      }
      for (int64_t k = 0; k < d; ++k) {
        const T* row = xb + k * inner + c;
        for (int64_t j = 0; j < w; ++j) sum[j] += std::exp(Load(row[j]) - m[j]);
      }
      for (int64_t k = 0; k < d; ++k) {
        const T* in_row = xb + k * inner + c;
        T* out_row = yb + k * inner + c;
        if (kind == SoftmaxKind::kLogSoftmax) {
          for (int64_t j = 0; j < w; ++j) {
            out_row[j] = Store<T>((Load(in_row[j]) - m[j]) - std::log(sum[j]));
          }
        } else {
          for (int64_t j = 0; j < w; ++j) {
            out_row[j] = Store<T>(std::exp(Load(in_row[j]) - m[j]) / sum[j]);
          }
        }
      }
    }
  }
}

const char* KindName(SoftmaxKind kind) {
  switch (kind) {
    case SoftmaxKind::kSoftmax: return "Softmax";
    case SoftmaxKind::kLogSoftmax: return "LogSoftmax";
    case SoftmaxKind::kHardmax: return "Hardmax";
  }
  return "unknown softmax kind";
}

}  // namespace

SoftmaxAxisMode SoftmaxAxisModeForOpset(int64_t opset) {
  return opset < 13 ? SoftmaxAxisMode::kFlattenFromAxis : SoftmaxAxisMode::kSingleAxis;
}

Result<SoftmaxPlan> PrepareSoftmax(SoftmaxKind kind, DataType type, const Shape& shape,
                                   int64_t axis, SoftmaxAxisMode mode) {
  const char* name = KindName(kind);
  NXRT_ASSIGN_OR_RETURN(const int64_t a,
                        NormalizeAxis(name, axis, static_cast<int64_t>(shape.size())));
  const auto ua = static_cast<size_t>(a);
  SoftmaxPlan plan;
  plan.kind = kind;
  plan.outer = Product(std::span(shape.data(), ua));
  if (mode == SoftmaxAxisMode::kFlattenFromAxis) {
    plan.axis_dim = Product(std::span(shape.data() + ua, shape.size() - ua));
    plan.inner = 1;
  } else {
    plan.axis_dim = shape[ua];
    plan.inner = Product(std::span(shape.data() + ua + 1, shape.size() - ua - 1));
  }
  NXRT_RETURN_IF_ERROR(DispatchType<FloatTypesBf16>(
      type, name, [&](auto tag) { plan.fn = &SoftmaxTyped<typename decltype(tag)::type>; }));
  return plan;
}

void RunSoftmax(const SoftmaxPlan& plan, const void* in, void* out) {
  plan.fn(plan.kind, plan.outer, plan.axis_dim, plan.inner, in, out);
}

Status Softmax(SoftmaxKind kind, const Tensor& in, int64_t axis, SoftmaxAxisMode mode,
               Tensor* out) {
  const char* name = KindName(kind);
  NXRT_RETURN_IF_ERROR(CheckInput(name, "input", in));
  NXRT_ASSIGN_OR_RETURN(SoftmaxPlan plan, PrepareSoftmax(kind, in.dtype(), in.shape(), axis, mode));
  NXRT_RETURN_IF_ERROR(PrepareOutput(name, in.dtype(), in.shape(), out));
  RunSoftmax(plan, in.raw_data(), out->mutable_raw_data());
  return Status::Ok();
}

}  // namespace nxrt::cpu::math
