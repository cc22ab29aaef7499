// ep/cpu/kernels/training/batch_norm_training.cpp: glue of BatchNormalization-14/-15 with
// training_mode = 1 (math/training/training.h).
//
// Layer: nxrt_ep_cpu (kernel glue). Created by the normalisation family's BatchNormalization
// factory when the node asks for training mode. Scale and B share one type, input_mean and
// input_var another (BatchNormalization-15's T1 and T2; -14 ties scale/B to X).
#include <memory>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/training/training.h"

namespace nxrt::cpu::kernels {
namespace {

class BatchNormTrainingKernel final : public Kernel {
 public:
  BatchNormTrainingKernel(double epsilon, double momentum)
      : epsilon_(epsilon), momentum_(momentum) {}

  Status Prepare(PrepareContext& ctx) override {
    if (ctx.input_dtype(2) != ctx.input_dtype(1) || ctx.input_dtype(4) != ctx.input_dtype(3)) {
      return MakeStatus(StatusCode::kInvalidArgument, "inputs 1 'scale' and 2 'B' have types ",
                        DataTypeName(ctx.input_dtype(1)), " and ", DataTypeName(ctx.input_dtype(2)),
                        ", inputs 3 'input_mean' and 4 'input_var' ",
                        DataTypeName(ctx.input_dtype(3)), " and ", DataTypeName(ctx.input_dtype(4)),
                        "; each pair must agree");
    }
    const Shape x_shape = InputShape(ctx, 0);
    const Shape params[] = {InputShape(ctx, 1), InputShape(ctx, 2), InputShape(ctx, 3),
                            InputShape(ctx, 4)};
    NXRT_ASSIGN_OR_RETURN(plan_, math::PrepareBatchNormTraining(
                                     ctx.input_dtype(0), x_shape, ctx.input_dtype(1),
                                     ctx.input_dtype(3), params, epsilon_, momentum_));
    ctx.SetWorkspaceBytes(static_cast<size_t>(math::BatchNormTrainingScratch(plan_)) *
                          sizeof(double));
    NXRT_RETURN_IF_ERROR(ctx.SetOutput(0, plan_.type, x_shape));
    for (int i = 1; i < ctx.output_count() && i < 3; ++i) {
      NXRT_RETURN_IF_ERROR(ctx.SetOutput(i, plan_.stats_type, {plan_.channels}));
    }
    return Status::Ok();
  }

  Status Compute(ComputeContext& ctx) override {
    auto output = [&](int i) -> void* {
      Tensor* t = i < ctx.output_count() ? ctx.output(i) : nullptr;
      return t != nullptr ? t->mutable_raw_data() : nullptr;
    };
    math::RunBatchNormTraining(plan_, ctx.input(0)->raw_data(), ctx.input(1)->raw_data(),
                               ctx.input(2)->raw_data(), ctx.input(3)->raw_data(),
                               ctx.input(4)->raw_data(), output(0), output(1), output(2),
                               reinterpret_cast<double*>(ctx.workspace().data()));
    return Status::Ok();
  }

 private:
  double epsilon_;
  double momentum_;
  math::BatchNormTrainingPlan plan_;
};

}  // namespace

Result<std::unique_ptr<Kernel>> CreateBatchNormTrainingKernel(const NodeInfo& node) {
  NXRT_ASSIGN_OR_RETURN(float epsilon, node.GetFloat("epsilon", 1e-5f));
  NXRT_ASSIGN_OR_RETURN(float momentum, node.GetFloat("momentum", 0.9f));
  return std::unique_ptr<Kernel>(std::make_unique<BatchNormTrainingKernel>(epsilon, momentum));
}

}  // namespace nxrt::cpu::kernels
