// ep/cpu/math/nn/lrn.cpp: LRN (see lrn.h).
#include "ep/cpu/math/nn/lrn.h"

#include <algorithm>
#include <cmath>

#include "ep/cpu/math/element_types.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::nn {
namespace {

template <typename T>
void LrnTyped(const LrnPlan& p, const void* x_raw, void* y_raw) {
  const T* x = static_cast<const T*>(x_raw);
  T* y = static_cast<T*>(y_raw);
  const LrnAttributes& a = p.attributes;
  const int64_t before = (a.size - 1) / 2, after = a.size - 1 - before;
  const double scale = static_cast<double>(a.alpha) / static_cast<double>(a.size);
  for (int64_t n = 0; n < p.batch; ++n) {
    for (int64_t c = 0; c < p.channels; ++c) {
      const int64_t lo = std::max<int64_t>(0, c - before);
      const int64_t hi = std::min<int64_t>(p.channels - 1, c + after);
      for (int64_t d = 0; d < p.pixels; ++d) {
        double sum = 0;
        for (int64_t i = lo; i <= hi; ++i) {
          const double v = static_cast<double>(math::Load(x[(n * p.channels + i) * p.pixels + d]));
          sum += v * v;
        }
        const int64_t at = (n * p.channels + c) * p.pixels + d;
        const double v = static_cast<double>(math::Load(x[at]));
        const double out = v / std::pow(static_cast<double>(a.bias) + scale * sum,
                                        static_cast<double>(a.beta));
        y[at] = math::Store<T>(static_cast<math::Compute<T>>(out));
      }
    }
  }
}

}  // namespace

Result<LrnPlan> PrepareLrn(DataType dtype, std::span<const int64_t> x_shape,
                           const LrnAttributes& attributes) {
  if (x_shape.size() < 3) {
    return MakeStatus(StatusCode::kInvalidArgument, "LRN: X has shape ",
                      ShapeToString(Shape(x_shape.begin(), x_shape.end())),
                      "; expected [N, C, D1, ...] (rank >= 3)");
  }
  LrnPlan p;
  p.attributes = attributes;
  p.batch = x_shape[0];
  p.channels = x_shape[1];
  for (size_t d = 2; d < x_shape.size(); ++d) p.pixels *= x_shape[d];
  NXRT_RETURN_IF_ERROR(math::DispatchType<math::FloatTypesBf16>(
      dtype, "LRN", [&](auto tag) { p.fn = &LrnTyped<typename decltype(tag)::type>; }));
  return p;
}

void Lrn(const LrnPlan& plan, const void* x, void* y) { plan.fn(plan, x, y); }

}  // namespace nxrt::cpu::nn
