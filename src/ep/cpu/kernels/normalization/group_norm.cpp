// ep/cpu/kernels/normalization/group_norm.cpp: glue of InstanceNormalization and
// GroupNormalization (math/normalization/normalization.h).
//
// Layer: nxrt_ep_cpu (kernel glue). InstanceNormalization is the group normalisation with one
// group per channel. Prepare checks scale/B against X and cuts the (n, group) rows for the
// threads; Compute runs the plan over those ranges in parallel.
#include <memory>
#include <optional>
#include <vector>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/normalization/normalization.h"
#include "ep/cpu/math/normalization/normalization.h"

namespace nxrt::cpu::kernels {
namespace {

class GroupNormKernel final : public Kernel {
 public:
  // `groups`: nullopt for InstanceNormalization (one group per channel).
  GroupNormKernel(std::optional<int64_t> groups, float epsilon)
      : groups_(groups), epsilon_(epsilon) {}

  Status Prepare(PrepareContext& ctx) override {
    const DataType type = ctx.input_dtype(0);
    const Shape x_shape = InputShape(ctx, 0);
    for (int i : {1, 2}) {
      if (ctx.input_dtype(i) != type) {
        return MakeStatus(StatusCode::kInvalidArgument, "input ", i,
                          i == 1 ? " 'scale'" : " 'B'", " has type ",
                          DataTypeName(ctx.input_dtype(i)), " but input 0 has type ",
                          DataTypeName(type));
      }
    }
    if (x_shape.size() < 2) {
      return MakeStatus(StatusCode::kInvalidArgument, "input 0 has shape ",
                        ShapeToString(x_shape), ", expected rank >= 2 ([N, C, ...])");
    }
    NXRT_ASSIGN_OR_RETURN(plan_, math::PrepareGroupNorm(type, x_shape, groups_.value_or(x_shape[1]),
                                                        InputShape(ctx, 1), InputShape(ctx, 2),
                                                        epsilon_));
    ranges_ = SplitRows(plan_.batch * plan_.groups,
                        plan_.channels / plan_.groups * plan_.spatial);
    return ctx.SetOutput(0, type, x_shape);
  }

  Status Compute(ComputeContext& ctx) override {
    const void* x = ctx.input(0)->raw_data();
    const void* scale = ctx.input(1)->raw_data();
    const void* bias = ctx.input(2)->raw_data();
    void* y = ctx.output(0)->mutable_raw_data();
    ForEachIndex(ctx, static_cast<int64_t>(ranges_.size()), [&](int64_t p) {
      const RowRange& range = ranges_[static_cast<size_t>(p)];
      math::RunGroupNorm(plan_, x, scale, bias, y, range.begin, range.end);
    });
    return Status::Ok();
  }

 private:
  std::optional<int64_t> groups_;
  float epsilon_;
  math::GroupNormPlan plan_;
  std::vector<RowRange> ranges_;  // the (n, group) rows cut for the threads
};

}  // namespace

ep::KernelFactory InstanceNormFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(float epsilon, node.GetFloat("epsilon", 1e-5f));
    return std::unique_ptr<Kernel>(std::make_unique<GroupNormKernel>(std::nullopt, epsilon));
  };
}

ep::KernelFactory GroupNormFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(float epsilon, node.GetFloat("epsilon", 1e-5f));
    NXRT_ASSIGN_OR_RETURN(int64_t groups, node.GetInt("num_groups"));
    if (groups < 1) {
      return node.Error(StatusCode::kInvalidModel, "attribute 'num_groups' is ", groups,
                        ", expected >= 1");
    }
    return std::unique_ptr<Kernel>(std::make_unique<GroupNormKernel>(groups, epsilon));
  };
}

}  // namespace nxrt::cpu::kernels
