// ep/cpu/math/tensor/scatter.cpp: ScatterElements and ScatterND. Layer: nxrt_cpu_math.
#include "ep/cpu/math/tensor/scatter.h"

#include <algorithm>
#include <type_traits>
#include <vector>

#include "ep/cpu/math/nn_common.h"

namespace nxrt::cpu::nn {

Result<ScatterReduction> ParseScatterReduction(std::string_view reduction) {
  if (reduction == "none") return ScatterReduction::kNone;
  if (reduction == "add") return ScatterReduction::kAdd;
  if (reduction == "mul") return ScatterReduction::kMul;
  if (reduction == "max") return ScatterReduction::kMax;
  if (reduction == "min") return ScatterReduction::kMin;
  return MakeStatus(StatusCode::kInvalidArgument, "Scatter: reduction '", reduction,
                    "' is not supported (expected none, add, mul, max or min)");
}

namespace {

Status CheckReductionType(std::string_view op, DataType dtype, ScatterReduction reduction) {
  if (reduction == ScatterReduction::kNone) return Status::Ok();
  return math::DispatchType<math::NumericTypesBf16>(dtype, op, [](auto) {});
}

template <typename T>
void Combine(ScatterReduction reduction, T& dst, T src) {
  if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
    float d = static_cast<float>(dst);
    Combine(reduction, d, static_cast<float>(src));
    dst = T(d);
  } else {
    switch (reduction) {
      case ScatterReduction::kNone:
        dst = src;
        break;
      case ScatterReduction::kAdd:
        dst = static_cast<T>(dst + src);
        break;
      case ScatterReduction::kMul:
        dst = static_cast<T>(dst * src);
        break;
      case ScatterReduction::kMax:
        if (dst < src) dst = src;
        break;
      case ScatterReduction::kMin:
        if (src < dst) dst = src;
        break;
    }
  }
}

// Calls f(type_identity<T>) with the numeric type for reductions, or the storage type otherwise.
template <typename F>
Status VisitScatterType(std::string_view op, DataType dtype, ScatterReduction reduction, F&& f) {
  if (reduction == ScatterReduction::kNone) {
    return VisitElement(dtype, [&](auto tag) -> Status { return f(tag); });
  }
  return math::DispatchType<math::NumericTypesBf16>(dtype, op, f);
}

void CopyIfDistinct(DataType dtype, const void* data, void* output, int64_t count) {
  if (data != output) CopyElements(dtype, data, output, count);
}

}  // namespace

Result<ScatterElementsPlan> PrepareScatterElements(DataType dtype,
                                                   std::span<const int64_t> data_shape,
                                                   DataType index_type,
                                                   std::span<const int64_t> indices_shape,
                                                   std::span<const int64_t> updates_shape,
                                                   int64_t axis, ScatterReduction reduction) {
  constexpr std::string_view kOp = "ScatterElements";
  NXRT_RETURN_IF_ERROR(CheckDataType(kOp, dtype));
  NXRT_RETURN_IF_ERROR(CheckIndexType(kOp, index_type));
  NXRT_RETURN_IF_ERROR(CheckReductionType(kOp, dtype, reduction));
  NXRT_RETURN_IF_ERROR(CheckShape(kOp, "data", data_shape));
  NXRT_RETURN_IF_ERROR(CheckShape(kOp, "indices", indices_shape));
  const int64_t rank = static_cast<int64_t>(data_shape.size());
  if (rank == 0) {
    return MakeStatus(StatusCode::kInvalidArgument, kOp, ": data is a scalar; needs rank >= 1");
  }
  NXRT_ASSIGN_OR_RETURN(const int64_t a, NormalizeAxis(kOp, axis, rank));
  if (!std::equal(indices_shape.begin(), indices_shape.end(), updates_shape.begin(),
                  updates_shape.end())) {
    return MakeStatus(StatusCode::kInvalidArgument, kOp, ": indices ", Str(indices_shape),
                      " and updates ", Str(updates_shape), " must have the same shape");
  }
  bool ok = static_cast<int64_t>(indices_shape.size()) == rank;
  for (int64_t d = 0; ok && d < rank; ++d) ok = d == a || indices_shape[d] <= data_shape[d];
  if (!ok) {
    return MakeStatus(StatusCode::kInvalidArgument, kOp, ": indices ", Str(indices_shape),
                      " do not fit data ", Str(data_shape),
                      " (same rank, and no larger dims "
                      "except along axis ",
                      a, ")");
  }
  ScatterElementsPlan plan;
  plan.dtype = dtype;
  plan.index_type = index_type;
  plan.reduction = reduction;
  plan.data_shape.assign(data_shape.begin(), data_shape.end());
  plan.updates_shape.assign(updates_shape.begin(), updates_shape.end());
  plan.axis = a;
  return plan;
}

Status ScatterElements(const ScatterElementsPlan& plan, const void* data, const void* indices,
                       const void* updates, void* output) {
  CopyIfDistinct(plan.dtype, data, output, Product(plan.data_shape));
  if (Product(plan.updates_shape) == 0) return Status::Ok();
  const std::vector<int64_t> strides = ContiguousStrides(plan.data_shape);
  const int64_t axis_dim = plan.data_shape[plan.axis];
  return VisitScatterType("ScatterElements", plan.dtype, plan.reduction, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    const T* upd = static_cast<const T*>(updates);
    T* out = static_cast<T*>(output);
    return ForEachIndexedElement(
        "ScatterElements", plan.index_type, indices, plan.updates_shape, strides, plan.axis,
        axis_dim, [&](int64_t j, int64_t offset) {
          if constexpr (std::is_arithmetic_v<T> || std::is_same_v<T, Float16> ||
                        std::is_same_v<T, BFloat16>) {
            Combine(plan.reduction, out[offset], upd[j]);
          } else {
            out[offset] = upd[j];
          }
        });
  });
}

Result<ScatterNDPlan> PrepareScatterND(DataType dtype, std::span<const int64_t> data_shape,
                                       DataType index_type, std::span<const int64_t> indices_shape,
                                       std::span<const int64_t> updates_shape,
                                       ScatterReduction reduction) {
  constexpr std::string_view kOp = "ScatterND";
  NXRT_RETURN_IF_ERROR(CheckDataType(kOp, dtype));
  NXRT_RETURN_IF_ERROR(CheckIndexType(kOp, index_type));
  NXRT_RETURN_IF_ERROR(CheckReductionType(kOp, dtype, reduction));
  NXRT_RETURN_IF_ERROR(CheckShape(kOp, "data", data_shape));
  NXRT_RETURN_IF_ERROR(CheckShape(kOp, "indices", indices_shape));
  const int64_t r = static_cast<int64_t>(data_shape.size());
  const int64_t q = static_cast<int64_t>(indices_shape.size());
  if (r < 1 || q < 1) {
    return MakeStatus(StatusCode::kInvalidArgument, kOp, ": data ", Str(data_shape),
                      " and indices ", Str(indices_shape), " both need rank >= 1");
  }
  const int64_t k = indices_shape[q - 1];
  if (k < 1 || k > r) {
    return MakeStatus(StatusCode::kInvalidArgument, kOp, ": indices ", Str(indices_shape),
                      " have tuples of length ", k, ", expected 1..", r, " for data ",
                      Str(data_shape));
  }
  Shape expected(indices_shape.begin(), indices_shape.end() - 1);
  expected.insert(expected.end(), data_shape.begin() + k, data_shape.end());
  if (!std::equal(expected.begin(), expected.end(), updates_shape.begin(), updates_shape.end())) {
    return MakeStatus(StatusCode::kInvalidArgument, kOp, ": updates have shape ",
                      Str(updates_shape), ", expected ", Str(expected), " for data ",
                      Str(data_shape), " and indices ", Str(indices_shape));
  }
  ScatterNDPlan plan;
  plan.dtype = dtype;
  plan.index_type = index_type;
  plan.reduction = reduction;
  plan.data_shape.assign(data_shape.begin(), data_shape.end());
  plan.tuples = Product(indices_shape.first(q - 1));
  plan.k = k;
  plan.slice = Product(data_shape.subspan(k));
  return plan;
}

Status ScatterND(const ScatterNDPlan& plan, const void* data, const void* indices,
                 const void* updates, void* output) {
  CopyIfDistinct(plan.dtype, data, output, Product(plan.data_shape));
  const std::vector<int64_t> strides = ContiguousStrides(plan.data_shape);
  return VisitScatterType("ScatterND", plan.dtype, plan.reduction, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    const T* upd = static_cast<const T*>(updates);
    T* out = static_cast<T*>(output);
    for (int64_t t = 0; t < plan.tuples; ++t) {
      int64_t offset = 0;
      for (int64_t m = 0; m < plan.k; ++m) {
        NXRT_ASSIGN_OR_RETURN(
            const int64_t i,
            ResolveIndex("ScatterND", ReadIndex(plan.index_type, indices, t * plan.k + m),
                         plan.data_shape[m], t * plan.k + m, m));
        offset += i * strides[m];
      }
      T* dst = out + offset;
      const T* src = upd + t * plan.slice;
      for (int64_t e = 0; e < plan.slice; ++e) {
        if constexpr (std::is_arithmetic_v<T> || std::is_same_v<T, Float16> ||
                      std::is_same_v<T, BFloat16>) {
          Combine(plan.reduction, dst[e], src[e]);
        } else {
          dst[e] = src[e];
        }
      }
    }
    return Status::Ok();
  });
}

}  // namespace nxrt::cpu::nn
