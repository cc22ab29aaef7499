// ep/cpu/math/nn/det.cpp: Det (see det.h).
#include "ep/cpu/math/nn/det.h"

#include <cmath>
#include <utility>

#include "ep/cpu/math/element_types.h"
#include "ep/cpu/math/simd_map.h"

namespace nxrt::cpu::math {
namespace {

// Determinant of the m x m row-major matrix `a` (overwritten by its LU factors).
double LuDeterminant(double* a, int64_t m) {
  double det = 1;
  for (int64_t k = 0; k < m; ++k) {
    int64_t pivot = k;
    for (int64_t r = k + 1; r < m; ++r) {
      if (std::fabs(a[r * m + k]) > std::fabs(a[pivot * m + k])) pivot = r;
    }
    if (a[pivot * m + k] == 0) return 0;
    if (pivot != k) {
      for (int64_t c = 0; c < m; ++c) std::swap(a[k * m + c], a[pivot * m + c]);
      det = -det;
    }
    const double diag = a[k * m + k];
    det *= diag;
    for (int64_t r = k + 1; r < m; ++r) {
      const double factor = a[r * m + k] / diag;
      for (int64_t c = k + 1; c < m; ++c) a[r * m + c] -= factor * a[k * m + c];
    }
  }
  return det;
}

template <typename T>
void DetTyped(const DetPlan& p, const void* x_raw, void* y_raw, double* scratch, int64_t begin,
              int64_t end) {
  const T* x = static_cast<const T*>(x_raw);
  T* y = static_cast<T*>(y_raw);
  const int64_t size = p.m * p.m;
  // The row updates of the elimination vectorise; in the widest build (4 doubles per AVX2 FMA).
  CallWidest([&] {
    for (int64_t b = begin; b < end; ++b) {
      for (int64_t i = 0; i < size; ++i) scratch[i] = static_cast<double>(Load(x[b * size + i]));
      y[b] = Store<T>(static_cast<Compute<T>>(LuDeterminant(scratch, p.m)));
    }
  });
}

}  // namespace

Result<DetPlan> PrepareDet(DataType dtype, std::span<const int64_t> x_shape) {
  const size_t rank = x_shape.size();
  if (rank < 2 || x_shape[rank - 1] != x_shape[rank - 2]) {
    return MakeStatus(StatusCode::kInvalidArgument, "Det: X has shape ",
                      ShapeToString(Shape(x_shape.begin(), x_shape.end())),
                      "; expected [*, M, M] (square matrices in the last two dims)");
  }
  DetPlan p;
  p.output_shape.assign(x_shape.begin(), x_shape.end() - 2);
  p.m = x_shape[rank - 1];
  p.batch = 1;
  for (int64_t d : p.output_shape) p.batch *= d;
  NXRT_RETURN_IF_ERROR(DispatchType<FloatTypesBf16>(
      dtype, "Det", [&](auto tag) { p.fn = &DetTyped<typename decltype(tag)::type>; }));
  return p;
}

int64_t DetScratchElements(const DetPlan& plan) { return plan.m * plan.m; }

void Det(const DetPlan& plan, const void* x, void* y, double* scratch, int64_t begin,
         int64_t end) {
  plan.fn(plan, x, y, scratch, begin, end);
}

}  // namespace nxrt::cpu::math
