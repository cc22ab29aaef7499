// ep/cpu/math/nn/max_unpool.cpp: MaxUnpool (see max_unpool.h).
#include "ep/cpu/math/nn/max_unpool.h"

#include <algorithm>
#include <limits>
#include <string>

#include "ep/cpu/math/element_types.h"
#include "ep/cpu/math/nn_common.h"

namespace nxrt::cpu::nn {
namespace {

template <typename T>
void MaxUnpoolTyped(const MaxUnpoolPlan& p, const void* x_raw, const int64_t* indices,
                    void* y_raw) {
  const T* x = static_cast<const T*>(x_raw);
  T* y = static_cast<T*>(y_raw);
  for (int64_t i = 0; i < p.output_count; ++i) y[i] = math::Store<T>(0);
  if (p.output_shape == p.unpooled_shape) {
    for (int64_t k = 0; k < p.input_count; ++k) y[indices[k]] = x[k];
    return;
  }
  // An offset into U, re-expressed in Y's (larger) row-major layout.
  for (int64_t k = 0; k < p.input_count; ++k) {
    int64_t rest = indices[k], at = 0, stride = 1;
    for (size_t d = p.unpooled_shape.size(); d-- > 0;) {
      at += (rest % p.unpooled_shape[d]) * stride;
      rest /= p.unpooled_shape[d];
      stride *= p.output_shape[d];
    }
    y[at] = x[k];
  }
}

}  // namespace

Result<MaxUnpoolPlan> PrepareMaxUnpool(DataType dtype, std::span<const int64_t> x_shape,
                                       std::span<const int64_t> indices_shape,
                                       const MaxUnpoolAttributes& a,
                                       std::optional<std::span<const int64_t>> output_shape) {
  if (x_shape.size() < 3) {
    return MakeStatus(StatusCode::kInvalidArgument, "MaxUnpool: X has shape ", Str(x_shape),
                      "; expected [N, C, D1, ...] (rank >= 3)");
  }
  if (!std::equal(x_shape.begin(), x_shape.end(), indices_shape.begin(), indices_shape.end())) {
    return MakeStatus(StatusCode::kInvalidArgument, "MaxUnpool: I has shape ",
                      Str(indices_shape), " but X has ", Str(x_shape),
                      "; pass MaxPool's Indices for this X");
  }
  const size_t spatial = x_shape.size() - 2;
  if (a.kernel_shape.size() != spatial || (!a.strides.empty() && a.strides.size() != spatial) ||
      (!a.pads.empty() && a.pads.size() != 2 * spatial)) {
    return MakeStatus(StatusCode::kInvalidArgument, "MaxUnpool: kernel_shape ",
                      Str(a.kernel_shape), ", strides ", Str(a.strides), ", pads ", Str(a.pads),
                      " do not fit ", spatial, " spatial dims; expected ", spatial, ", ", spatial,
                      " and ", 2 * spatial, " values");
  }
  MaxUnpoolPlan p;
  p.unpooled_shape = {x_shape[0], x_shape[1]};
  for (size_t d = 0; d < spatial; ++d) {
    const int64_t kernel = a.kernel_shape[d];
    const int64_t stride = a.strides.empty() ? 1 : a.strides[d];
    const __int128 pad =
        a.pads.empty() ? 0 : static_cast<__int128>(a.pads[d]) + a.pads[d + spatial];
    const __int128 wide = static_cast<__int128>(x_shape[d + 2] - 1) * stride + kernel - pad;
    const int64_t dim = wide > std::numeric_limits<int64_t>::max() ? -1 : static_cast<int64_t>(wide);
    const bool negative_pad = !a.pads.empty() && (a.pads[d] < 0 || a.pads[d + spatial] < 0);
    if (kernel < 1 || stride < 1 || negative_pad || dim <= 0) {
      return MakeStatus(StatusCode::kInvalidArgument, "MaxUnpool: spatial dim ", d,
                        " has kernel ", kernel, ", stride ", stride, ", pads ", Str(a.pads),
                        " and gives size ", dim,
                        "; kernel and stride must be positive, pads non-negative");
    }
    p.unpooled_shape.push_back(dim);
  }
  p.output_shape = p.unpooled_shape;
  if (output_shape) {
    const auto& s = *output_shape;
    bool fits = s.size() == x_shape.size() && s[0] == x_shape[0] && s[1] == x_shape[1];
    for (size_t d = 2; fits && d < s.size(); ++d) fits = s[d] >= p.unpooled_shape[d];
    if (!fits) {
      return MakeStatus(StatusCode::kInvalidArgument, "MaxUnpool: output_shape is ", Str(s),
                        " for X of shape ", Str(x_shape), " unpooled to ",
                        Str(p.unpooled_shape),
                        "; expected X's rank, N and C and spatial dims at least the unpooled");
    }
    p.output_shape.assign(s.begin(), s.end());
  }
  const auto count = [](std::span<const int64_t> dims) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
  };
  p.input_count = count(x_shape);
  p.unpooled_count = count(p.unpooled_shape);
  p.output_count = count(p.output_shape);
  NXRT_RETURN_IF_ERROR(math::DispatchType<math::FloatTypesBf16>(
      dtype, "MaxUnpool", [&](auto tag) { p.fn = &MaxUnpoolTyped<typename decltype(tag)::type>; }));
  return p;
}

Status MaxUnpool(const MaxUnpoolPlan& plan, const void* x, const int64_t* indices, void* y) {
  for (int64_t k = 0; k < plan.input_count; ++k) {
    if (indices[k] < 0 || indices[k] >= plan.unpooled_count) {
      return MakeStatus(StatusCode::kRuntimeError, "MaxUnpool: I[", k, "] (flat) is ",
                        indices[k], " but the unpooled shape ", ShapeToString(plan.unpooled_shape),
                        " has ", plan.unpooled_count, " elements; indices must lie in [0, ",
                        plan.unpooled_count, ")");
    }
  }
  plan.fn(plan, x, indices, y);
  return Status::Ok();
}

}  // namespace nxrt::cpu::nn
