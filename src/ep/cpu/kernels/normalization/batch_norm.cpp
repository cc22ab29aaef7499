// ep/cpu/kernels/normalization/batch_norm.cpp: glue of BatchNormalization in inference mode
// (math/normalization/normalization.h).
//
// Layer: nxrt_ep_cpu (kernel glue). Prepare checks the four parameter inputs against X's channel
// count and splits the batch into parts; Compute normalises the parts in parallel.
// training_mode = 1 (opset 14+) gets the training family's kernel (kernels/training/), which
// also writes the running statistics. The older training forms (is_test = 0, spatial = 0, the
// mean/var/saved statistics outputs of opsets 6-13) are refused: the factory names the attribute,
// the check names the output.
#include <memory>
#include <vector>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/normalization/normalization.h"
#include "ep/cpu/kernels/training/training.h"
#include "ep/cpu/math/normalization/normalization.h"

namespace nxrt::cpu::kernels {
namespace {

class BatchNormKernel final : public Kernel {
 public:
  explicit BatchNormKernel(float epsilon) : epsilon_(epsilon) {}

  Status Prepare(PrepareContext& ctx) override {
    type_ = ctx.input_dtype(0);
    const Shape x_shape = InputShape(ctx, 0);
    const Shape params[] = {InputShape(ctx, 1), InputShape(ctx, 2), InputShape(ctx, 3),
                            InputShape(ctx, 4)};
    if (ctx.input_dtype(2) != ctx.input_dtype(1) || ctx.input_dtype(4) != ctx.input_dtype(3)) {
      return MakeStatus(StatusCode::kInvalidArgument, "inputs 1 'scale' and 2 'B' have types ",
                        DataTypeName(ctx.input_dtype(1)), " and ", DataTypeName(ctx.input_dtype(2)),
                        ", inputs 3 'mean' and 4 'var' ", DataTypeName(ctx.input_dtype(3)), " and ",
                        DataTypeName(ctx.input_dtype(4)), "; each pair must agree");
    }
    NXRT_ASSIGN_OR_RETURN(plan_, math::PrepareBatchNorm(type_, x_shape, ctx.input_dtype(1),
                                                        ctx.input_dtype(3), params, epsilon_));
    ranges_ = SplitRows(plan_.batch, plan_.channels * plan_.spatial);
    part_plans_.assign(ranges_.size(), plan_);
    for (size_t p = 0; p < ranges_.size(); ++p) {
      part_plans_[p].batch = ranges_[p].end - ranges_[p].begin;
    }
    return ctx.SetOutput(0, type_, x_shape);
  }

  Status Compute(ComputeContext& ctx) override {
    const void* x = ctx.input(0)->raw_data();
    void* y = ctx.output(0)->mutable_raw_data();
    const int64_t image = plan_.channels * plan_.spatial;
    ForEachIndex(ctx, static_cast<int64_t>(ranges_.size()), [&](int64_t p) {
      const int64_t offset = ranges_[static_cast<size_t>(p)].begin * image;
      plan_.fn(part_plans_[static_cast<size_t>(p)], Advance(x, offset, type_),
               ctx.input(1)->raw_data(), ctx.input(2)->raw_data(), ctx.input(3)->raw_data(),
               ctx.input(4)->raw_data(), Advance(y, offset, type_));
    });
    return Status::Ok();
  }

 private:
  float epsilon_;
  DataType type_ = DataType::kUndefined;
  math::BatchNormPlan plan_;
  std::vector<RowRange> ranges_;
  std::vector<math::BatchNormPlan> part_plans_;  // plan_ restricted to each range's images
};

}  // namespace

ep::KernelFactory BatchNormFactory(bool has_is_test) {
  return [has_is_test](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(float epsilon, node.GetFloat("epsilon", 1e-5f));
    if (has_is_test) {
      NXRT_ASSIGN_OR_RETURN(int64_t is_test, node.GetInt("is_test", 0));
      if (is_test != 1) {
        return node.Error(StatusCode::kUnsupported, "attribute 'is_test' is ", is_test,
                          " (training); the CPU EP runs BatchNormalization in inference mode "
                          "only (set is_test to 1)");
      }
    }
    NXRT_ASSIGN_OR_RETURN(int64_t training_mode, node.GetInt("training_mode", 0));
    NXRT_ASSIGN_OR_RETURN(int64_t spatial, node.GetInt("spatial", 1));
    if (training_mode == 1) return CreateBatchNormTrainingKernel(node);
    if (training_mode != 0) {
      return node.Error(StatusCode::kInvalidModel, "attribute 'training_mode' is ", training_mode,
                        ", expected 0 or 1");
    }
    if (spatial != 1) {
      return node.Error(StatusCode::kUnsupported, "attribute 'spatial' is ", spatial,
                        "; the CPU EP supports spatial = 1 (one mean and variance per channel)");
    }
    return std::unique_ptr<Kernel>(std::make_unique<BatchNormKernel>(epsilon));
  };
}

ep::KernelCheck BatchNormCheck() {
  return [](const NodeInfo& node) {
    const AttributeValue* training_mode = node.FindAttribute("training_mode");
    if (training_mode != nullptr && training_mode->type == AttributeType::kInt &&
        training_mode->i == 1) {
      return KernelMatch::Supported();
    }
    for (size_t i = 1; i < node.outputs().size(); ++i) {
      if (!node.has_output(i)) continue;
      return KernelMatch::Unsupported(
          "output " + std::to_string(i) + " '" + node.outputs()[i].name +
          "' holds training statistics; the CPU EP runs BatchNormalization in inference mode "
          "only (drop the output)");
    }
    return KernelMatch::Supported();
  };
}

}  // namespace nxrt::cpu::kernels
