// ep/cpu/math/softmax.cpp: Softmax, LogSoftmax and Hardmax over [outer, axis_dim, inner].
//
// Layer: nxrt_cpu_math (framework-free reference math of the CPU EP).
// Rows with inner == 1 are contiguous and take plain loops. Otherwise kLanes neighbouring rows
// (consecutive inner positions) are processed together so every pass reads contiguous segments.
#include "ep/cpu/math/softmax.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "ep/cpu/math/element_types.h"
#include "ep/cpu/math/fast_exp.h"
#include "ep/cpu/math/shape_util.h"

namespace nxrt::cpu::math {
namespace {

constexpr int64_t kLanes = 64;

// Hardmax: whether v replaces the running maximum m (the first maximum wins; NaN beats numbers).
template <typename C>
bool Beats(C v, C m) {
  return (v > m || IsNan(v)) && !IsNan(m);
}

template <typename T>
void SoftmaxRows(SoftmaxKind kind, int64_t rows, int64_t d, const T* x, T* y) {
  using C = Compute<T>;
  for (int64_t r = 0; r < rows; ++r, x += d, y += d) {
    if (kind == SoftmaxKind::kHardmax) {
      C m = Load(x[0]);
      int64_t arg = 0;
      for (int64_t k = 1; k < d; ++k) {
        if (Beats(Load(x[k]), m)) {
          m = Load(x[k]);
          arg = k;
        }
      }
      for (int64_t k = 0; k < d; ++k) y[k] = Store<T>(C(k == arg ? 1 : 0));
      continue;
    }
    C m = Load(x[0]);
    for (int64_t k = 1; k < d; ++k) m = MaxPropagateNan(m, static_cast<C>(Load(x[k])));
    C sum = 0;
    if (kind == SoftmaxKind::kLogSoftmax) {
      for (int64_t k = 0; k < d; ++k) sum += std::exp(Load(x[k]) - m);
      const C shift = m + std::log(sum);
      for (int64_t k = 0; k < d; ++k) y[k] = Store<T>(Load(x[k]) - shift);
    } else if constexpr (kIsHalf<T>) {
      for (int64_t k = 0; k < d; ++k) sum += std::exp(Load(x[k]) - m);
      const C inv = C{1} / sum;
      for (int64_t k = 0; k < d; ++k) y[k] = Store<T>(std::exp(Load(x[k]) - m) * inv);
    } else if constexpr (std::is_same_v<T, float>) {
      // Vectorised: FastExp, then the sum in 8 partial sums (a single running sum is a serial
      // dependency the compiler may not reorder).
      for (int64_t k = 0; k < d; ++k) y[k] = FastExp(x[k] - m);
      float partial[8] = {};
      int64_t k = 0;
      for (; k + 8 <= d; k += 8) {
        for (int j = 0; j < 8; ++j) partial[j] += y[k + j];
      }
      for (; k < d; ++k) partial[0] += y[k];
      for (int j = 0; j < 8; ++j) sum += partial[j];
      const C inv = C{1} / sum;
      for (k = 0; k < d; ++k) y[k] *= inv;
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
  for (int64_t o = 0; o < outer; ++o) {
    const T* xb = x + o * d * inner;
    T* yb = y + o * d * inner;
    for (int64_t c = 0; c < inner; c += kLanes) {
      const int64_t w = std::min(kLanes, inner - c);
      C m[kLanes];
      C sum[kLanes];
      int64_t arg[kLanes];
      for (int64_t j = 0; j < w; ++j) {
        m[j] = Load(xb[c + j]);
        sum[j] = 0;
        arg[j] = 0;
      }
      for (int64_t k = 1; k < d; ++k) {
        const T* row = xb + k * inner + c;
        if (kind == SoftmaxKind::kHardmax) {
          for (int64_t j = 0; j < w; ++j) {
            if (Beats(static_cast<C>(Load(row[j])), m[j])) {
              m[j] = Load(row[j]);
              arg[j] = k;
            }
          }
        } else {
          for (int64_t j = 0; j < w; ++j) m[j] = MaxPropagateNan(m[j], static_cast<C>(Load(row[j])));
        }
      }
      if (kind == SoftmaxKind::kHardmax) {
        for (int64_t k = 0; k < d; ++k) {
          T* row = yb + k * inner + c;
          for (int64_t j = 0; j < w; ++j) row[j] = Store<T>(C(k == arg[j] ? 1 : 0));
        }
        continue;
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
            out_row[j] = Store<T>(Load(in_row[j]) - m[j] - std::log(sum[j]));
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
  NXRT_RETURN_IF_ERROR(DispatchType<FloatTypes>(type, name, [&](auto tag) {
    plan.fn = &SoftmaxTyped<typename decltype(tag)::type>;
  }));
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
