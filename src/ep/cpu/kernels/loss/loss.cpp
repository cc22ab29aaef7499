// ep/cpu/kernels/loss/loss.cpp: glue of NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss
// (math/loss/loss.h, math/normalization/softmax.h).
//
// Layer: nxrt_ep_cpu (kernel glue). SoftmaxCrossEntropyLoss writes the log-probabilities into its
// optional output 1 'log_prob' when it is wanted, into its workspace otherwise, and then takes the
// NLL loss of them. A target outside [0, C) that is not ignore_index fails Compute with
// kInvalidArgument naming the element.
#include <memory>
#include <optional>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/loss/loss.h"
#include "ep/cpu/math/loss/loss.h"
#include "ep/cpu/math/normalization/softmax.h"

namespace nxrt::cpu::kernels {
namespace {

struct LossAttrs {
  std::optional<int64_t> ignore_index;
  math::LossReduction reduction = math::LossReduction::kMean;
};

Result<LossAttrs> ReadLossAttrs(const NodeInfo& node) {
  LossAttrs attrs;
  if (node.HasAttribute("ignore_index")) {
    NXRT_ASSIGN_OR_RETURN(int64_t ignore, node.GetInt("ignore_index"));
    attrs.ignore_index = ignore;
  }
  NXRT_ASSIGN_OR_RETURN(std::string reduction, node.GetString("reduction", "mean"));
  Result<math::LossReduction> parsed = math::ParseLossReduction(reduction);
  if (!parsed.ok()) {
    return node.Error(StatusCode::kInvalidModel, "attribute ", parsed.status().message());
  }
  attrs.reduction = *parsed;
  return attrs;
}

// The NLL plan of inputs (0, 1, 2?) as the node sees them.
Result<math::NllLossPlan> PrepareNll(const PrepareContext& ctx, const LossAttrs& attrs) {
  const Shape weight_shape = ctx.has_input(2) ? InputShape(ctx, 2) : Shape{};
  if (ctx.has_input(2) && ctx.input_dtype(2) != ctx.input_dtype(0)) {
    return MakeStatus(StatusCode::kInvalidArgument, "input 2 'weight' has type ",
                      DataTypeName(ctx.input_dtype(2)), ", input 0 ",
                      DataTypeName(ctx.input_dtype(0)), "; they must agree");
  }
  return math::PrepareNllLoss(ctx.input_dtype(0), ctx.input_dtype(1), InputShape(ctx, 0),
                              InputShape(ctx, 1), ctx.has_input(2) ? &weight_shape : nullptr,
                              attrs.ignore_index, attrs.reduction);
}

const void* WeightData(const ComputeContext& ctx) {
  const Tensor* weight = ctx.input_count() > 2 ? ctx.input(2) : nullptr;
  return weight != nullptr ? weight->raw_data() : nullptr;
}

class NllLossKernel final : public Kernel {
 public:
  explicit NllLossKernel(LossAttrs attrs) : attrs_(attrs) {}

  Status Prepare(PrepareContext& ctx) override {
    NXRT_ASSIGN_OR_RETURN(plan_, PrepareNll(ctx, attrs_));
    return ctx.SetOutput(0, ctx.input_dtype(0), plan_.loss_shape);
  }

  Status Compute(ComputeContext& ctx) override {
    return math::RunNllLoss(plan_, ctx.input(0)->raw_data(), ctx.input(1)->raw_data(),
                            WeightData(ctx), ctx.output(0)->mutable_raw_data());
  }

 private:
  LossAttrs attrs_;
  math::NllLossPlan plan_;
};

class SoftmaxCrossEntropyKernel final : public Kernel {
 public:
  explicit SoftmaxCrossEntropyKernel(LossAttrs attrs) : attrs_(attrs) {}

  Status Prepare(PrepareContext& ctx) override {
    type_ = ctx.input_dtype(0);
    const Shape shape = InputShape(ctx, 0);
    NXRT_ASSIGN_OR_RETURN(plan_, PrepareNll(ctx, attrs_));
    NXRT_ASSIGN_OR_RETURN(softmax_, math::PrepareSoftmax(math::SoftmaxKind::kLogSoftmax, type_,
                                                         shape, 1,
                                                         math::SoftmaxAxisMode::kSingleAxis));
    NXRT_RETURN_IF_ERROR(ctx.SetOutput(0, type_, plan_.loss_shape));
    log_prob_output_ = ctx.output_count() > 1 && ctx.output_used(1);
    if (ctx.output_count() > 1) NXRT_RETURN_IF_ERROR(ctx.SetOutput(1, type_, shape));
    if (!log_prob_output_) {
      NXRT_ASSIGN_OR_RETURN(int64_t count, ElementCount(shape));
      ctx.SetWorkspaceBytes(static_cast<size_t>(count) * DataTypeSize(type_));
    }
    return Status::Ok();
  }

  Status Compute(ComputeContext& ctx) override {
    void* log_prob = log_prob_output_ ? ctx.output(1)->mutable_raw_data()
                                      : static_cast<void*>(ctx.workspace().data());
    math::RunSoftmax(softmax_, ctx.input(0)->raw_data(), log_prob);
    return math::RunNllLoss(plan_, log_prob, ctx.input(1)->raw_data(), WeightData(ctx),
                            ctx.output(0)->mutable_raw_data());
  }

 private:
  LossAttrs attrs_;
  DataType type_ = DataType::kUndefined;
  bool log_prob_output_ = false;
  math::SoftmaxPlan softmax_;
  math::NllLossPlan plan_;
};

}  // namespace

ep::KernelFactory NllLossFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(LossAttrs attrs, ReadLossAttrs(node));
    return std::unique_ptr<Kernel>(std::make_unique<NllLossKernel>(attrs));
  };
}

ep::KernelFactory SoftmaxCrossEntropyFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(LossAttrs attrs, ReadLossAttrs(node));
    return std::unique_ptr<Kernel>(std::make_unique<SoftmaxCrossEntropyKernel>(attrs));
  };
}

}  // namespace nxrt::cpu::kernels
