// ep/cpu/math/loss/loss.cpp: see loss.h.
#include "ep/cpu/math/loss/loss.h"


#include "ep/cpu/math/element_types.h"

namespace nxrt::cpu::math {
namespace {

using LossTypes = TypeList<float, double, Float16, BFloat16>;
using IndexTypes = TypeList<int32_t, int64_t>;

template <typename T, typename I>
Status NllLossTyped(const NllLossPlan& plan, const void* input_raw, const void* target_raw,
                    const void* weight_raw, void* loss_raw) {
  const T* input = static_cast<const T*>(input_raw);
  const I* target = static_cast<const I*>(target_raw);
  const T* weight = static_cast<const T*>(weight_raw);
  T* loss = static_cast<T*>(loss_raw);
  const int64_t c = plan.classes, inner = plan.inner;
  double sum = 0, weight_sum = 0;
  for (int64_t n = 0; n < plan.batch; ++n) {
    for (int64_t d = 0; d < inner; ++d) {
      const int64_t i = n * inner + d;
      const auto cls = static_cast<int64_t>(target[i]);
      double value = 0;
      if (!plan.ignore_index || cls != *plan.ignore_index) {
        if (cls < 0 || cls >= c) {
          return MakeStatus(StatusCode::kInvalidArgument, "input 1 'target' holds class ", cls,
                            " at element ", i, "; classes are [0, ", c,
                            ") (or set ignore_index to skip it)");
        }
        const double w = weight ? static_cast<double>(Load(weight[cls])) : 1.0;
        value = -static_cast<double>(Load(input[(n * c + cls) * inner + d])) * w;
        weight_sum += w;
      }
      if (plan.reduction == LossReduction::kNone) {
        loss[i] = Store<T>(static_cast<Compute<T>>(value));
      } else {
        sum += value;
      }
    }
  }
  if (plan.reduction == LossReduction::kSum) loss[0] = Store<T>(static_cast<Compute<T>>(sum));
  if (plan.reduction == LossReduction::kMean) {
    loss[0] = Store<T>(static_cast<Compute<T>>(sum / weight_sum));
  }
  return Status::Ok();
}

}  // namespace

Result<LossReduction> ParseLossReduction(std::string_view name) {
  if (name == "none") return LossReduction::kNone;
  if (name == "sum") return LossReduction::kSum;
  if (name == "mean") return LossReduction::kMean;
  return MakeStatus(StatusCode::kInvalidArgument, "reduction is '", name,
                    "'; expected 'none', 'sum' or 'mean'");
}

Result<NllLossPlan> PrepareNllLoss(DataType type, DataType index_type, const Shape& input_shape,
                                   const Shape& target_shape, const Shape* weight_shape,
                                   std::optional<int64_t> ignore_index, LossReduction reduction) {
  if (input_shape.size() < 2) {
    return MakeStatus(StatusCode::kInvalidArgument, "input 0 has shape ",
                      ShapeToString(input_shape), "; expected [N, C] or [N, C, d1, ..., dk]");
  }
  Shape expected_target = {input_shape[0]};
  expected_target.insert(expected_target.end(), input_shape.begin() + 2, input_shape.end());
  if (target_shape != expected_target) {
    return MakeStatus(StatusCode::kInvalidArgument, "input 1 'target' has shape ",
                      ShapeToString(target_shape), "; input 0 of shape ",
                      ShapeToString(input_shape), " needs ", ShapeToString(expected_target));
  }
  if (weight_shape != nullptr && *weight_shape != Shape{input_shape[1]}) {
    return MakeStatus(StatusCode::kInvalidArgument, "input 2 'weight' has shape ",
                      ShapeToString(*weight_shape), "; expected [", input_shape[1],
                      "] (one weight per class)");
  }
  NllLossPlan plan;
  plan.batch = input_shape[0];
  plan.classes = input_shape[1];
  for (size_t i = 2; i < input_shape.size(); ++i) plan.inner *= input_shape[i];
  plan.ignore_index = ignore_index;
  plan.reduction = reduction;
  if (reduction == LossReduction::kNone) plan.loss_shape = expected_target;
  NXRT_RETURN_IF_ERROR(DispatchType<LossTypes>(type, "NegativeLogLikelihoodLoss", [&](auto t) {
    using T = typename decltype(t)::type;
    if (index_type == DataType::kInt32) {
      plan.fn = &NllLossTyped<T, int32_t>;
    } else {
      plan.fn = &NllLossTyped<T, int64_t>;
    }
  }));
  if (!VisitType(IndexTypes{}, index_type, [](auto) {})) {
    return MakeStatus(StatusCode::kUnsupported, "target type ", DataTypeName(index_type),
                      " is not int32 or int64");
  }
  return plan;
}

Status RunNllLoss(const NllLossPlan& plan, const void* input, const void* target,
                  const void* weight, void* loss) {
  return plan.fn(plan, input, target, weight, loss);
}

}  // namespace nxrt::cpu::math
