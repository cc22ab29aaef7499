// ep/cpu/math/normalization/cumsum.cpp: CumSum over [outer, axis_dim, inner] with kCumSumLanes
// running sums at once.
//
// Layer: nxrt_cpu_math (framework-free reference math of the CPU EP).
#include "ep/cpu/math/normalization/cumsum.h"

#include <algorithm>
#include <type_traits>

#include "ep/cpu/math/element_types.h"
#include "ep/cpu/math/shape_util.h"

namespace nxrt::cpu::math {
namespace {

constexpr int64_t kCumSumLanes = 64;

template <typename C>
C AddWrapping(C a, C b) {
  if constexpr (std::is_integral_v<C>) return WrapAdd(a, b);
  else return a + b;
}

template <typename T>
void CumSumTyped(int64_t outer, int64_t d, int64_t inner, const CumSumAttrs& attrs,
                 const void* in, void* out) {
  using C = Compute<T>;
  const auto* x = static_cast<const T*>(in);
  auto* y = static_cast<T*>(out);
  for (int64_t o = 0; o < outer; ++o) {
    const int64_t block = o * d * inner;
    for (int64_t c = 0; c < inner; c += kCumSumLanes) {
      const int64_t w = std::min(kCumSumLanes, inner - c);
      C sum[kCumSumLanes];
      std::fill(sum, sum + w, C{0});
      for (int64_t step = 0; step < d; ++step) {
        const int64_t k = attrs.reverse ? d - 1 - step : step;
        const int64_t at = block + k * inner + c;
        if (attrs.exclusive) {
          for (int64_t j = 0; j < w; ++j) {
            const C v = Load(x[at + j]);
            y[at + j] = Store<T>(sum[j]);
            sum[j] = AddWrapping(sum[j], v);
          }
        } else {
          for (int64_t j = 0; j < w; ++j) {
            sum[j] = AddWrapping(sum[j], static_cast<C>(Load(x[at + j])));
            y[at + j] = Store<T>(sum[j]);
          }
        }
      }
    }
  }
}

}  // namespace

Result<CumSumPlan> PrepareCumSum(DataType type, const Shape& shape, int64_t axis,
                                 const CumSumAttrs& attrs) {
  NXRT_ASSIGN_OR_RETURN(const int64_t a,
                        NormalizeAxis("CumSum", axis, static_cast<int64_t>(shape.size())));
  CumSumPlan plan;
  plan.attrs = attrs;
  const auto ua = static_cast<size_t>(a);
  plan.outer = Product(std::span(shape.data(), ua));
  plan.axis_dim = shape[ua];
  plan.inner = Product(std::span(shape.data() + ua + 1, shape.size() - ua - 1));
  NXRT_RETURN_IF_ERROR(DispatchType<NumericTypesBf16>(
      type, "CumSum", [&](auto tag) { plan.fn = &CumSumTyped<typename decltype(tag)::type>; }));
  return plan;
}

void RunCumSum(const CumSumPlan& plan, const void* in, void* out) {
  plan.fn(plan.outer, plan.axis_dim, plan.inner, plan.attrs, in, out);
}

Status CumSum(const Tensor& in, int64_t axis, const CumSumAttrs& attrs, Tensor* out) {
  NXRT_RETURN_IF_ERROR(CheckInput("CumSum", "x", in));
  NXRT_ASSIGN_OR_RETURN(CumSumPlan plan, PrepareCumSum(in.dtype(), in.shape(), axis, attrs));
  NXRT_RETURN_IF_ERROR(PrepareOutput("CumSum", in.dtype(), in.shape(), out));
  RunCumSum(plan, in.raw_data(), out->mutable_raw_data());
  return Status::Ok();
}

}  // namespace nxrt::cpu::math
