// ep/cpu/kernels/normalization/layer_norm.cpp: glue of LayerNormalization
// (math/normalization/normalization.h).
//
// Layer: nxrt_ep_cpu (kernel glue). Prepare checks Scale/B against X, declares Y and the optional
// Mean/InvStdDev outputs (of the stash type), and cuts the rows into parts; Compute normalises
// the parts in parallel.
#include <memory>
#include <optional>
#include <vector>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/normalization/normalization.h"
#include "ep/cpu/math/normalization/normalization.h"

namespace nxrt::cpu::kernels {
namespace {

class LayerNormKernel final : public Kernel {
 public:
  explicit LayerNormKernel(math::LayerNormAttrs attrs) : attrs_(attrs) {}

  Status Prepare(PrepareContext& ctx) override {
    type_ = ctx.input_dtype(0);
    for (int i : {1, 2}) {
      if (i < ctx.input_count() && ctx.has_input(i) && ctx.input_dtype(i) != type_) {
        return MakeStatus(StatusCode::kInvalidArgument, "input ", i, i == 1 ? " 'Scale'" : " 'B'",
                          " has type ", DataTypeName(ctx.input_dtype(i)), " but input 0 'X' has ",
                          "type ", DataTypeName(type_));
      }
    }
    has_bias_ = ctx.input_count() > 2 && ctx.has_input(2);
    const Shape x_shape = InputShape(ctx, 0);
    const Shape bias_shape = has_bias_ ? InputShape(ctx, 2) : Shape{};
    NXRT_ASSIGN_OR_RETURN(plan_, math::PrepareLayerNorm(type_, x_shape, InputShape(ctx, 1),
                                                        has_bias_ ? &bias_shape : nullptr,
                                                        attrs_));
    NXRT_RETURN_IF_ERROR(ctx.SetOutput(0, type_, x_shape));
    for (int i : {1, 2}) {
      if (i < ctx.output_count()) {
        NXRT_RETURN_IF_ERROR(ctx.SetOutput(i, plan_.stats_type, plan_.stats_shape));
      }
    }
    ranges_ = SplitRows(plan_.rows, plan_.cols);
    part_plans_.assign(ranges_.size(), plan_);
    for (size_t p = 0; p < ranges_.size(); ++p) {
      part_plans_[p].rows = ranges_[p].end - ranges_[p].begin;
    }
    return Status::Ok();
  }

  Status Compute(ComputeContext& ctx) override {
    const void* x = ctx.input(0)->raw_data();
    const void* scale = ctx.input(1)->raw_data();
    const void* bias = has_bias_ ? ctx.input(2)->raw_data() : nullptr;
    void* y = ctx.output(0)->mutable_raw_data();
    void* mean = OptionalOutput(ctx, 1);
    void* inv_std_dev = OptionalOutput(ctx, 2);
    const DataType stats = plan_.stats_type;
    ForEachIndex(ctx, static_cast<int64_t>(ranges_.size()), [&](int64_t p) {
      const int64_t row = ranges_[static_cast<size_t>(p)].begin;
      const int64_t offset = row * plan_.cols;
      plan_.fn(part_plans_[static_cast<size_t>(p)], Advance(x, offset, type_), scale, bias,
               Advance(y, offset, type_), mean ? Advance(mean, row, stats) : nullptr,
               inv_std_dev ? Advance(inv_std_dev, row, stats) : nullptr);
    });
    return Status::Ok();
  }

 private:
  static void* OptionalOutput(ComputeContext& ctx, int i) {
    Tensor* out = i < ctx.output_count() ? ctx.output(i) : nullptr;
    return out ? out->mutable_raw_data() : nullptr;
  }

  math::LayerNormAttrs attrs_;
  DataType type_ = DataType::kUndefined;
  bool has_bias_ = false;
  math::LayerNormPlan plan_;
  std::vector<RowRange> ranges_;
  std::vector<math::LayerNormPlan> part_plans_;  // plan_ restricted to each range's rows
};

}  // namespace

ep::KernelFactory LayerNormFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    math::LayerNormAttrs attrs;
    NXRT_ASSIGN_OR_RETURN(attrs.axis, node.GetInt("axis", -1));
    NXRT_ASSIGN_OR_RETURN(attrs.epsilon, node.GetFloat("epsilon", 1e-5f));
    NXRT_ASSIGN_OR_RETURN(int64_t stash, node.GetInt("stash_type", 1));
    const std::optional<DataType> stash_type = DataTypeFromOnnx(static_cast<int32_t>(stash));
    if (!stash_type || (*stash_type != DataType::kFloat && *stash_type != DataType::kDouble &&
                        *stash_type != DataType::kFloat16 && *stash_type != DataType::kBFloat16)) {
      return node.Error(StatusCode::kInvalidModel, "attribute 'stash_type' is ", stash,
                        ", expected a float type (1 = float)");
    }
    attrs.stats_type = *stash_type;
    return std::unique_ptr<Kernel>(std::make_unique<LayerNormKernel>(attrs));
  };
}

}  // namespace nxrt::cpu::kernels
