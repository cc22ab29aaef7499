// ep/cpu/kernels/normalization/lp_mvn.cpp: glue of LpNormalization and
// MeanVarianceNormalization (math/normalization/normalization.h).
//
// Layer: nxrt_ep_cpu (kernel glue). Attributes are read at creation; Prepare resolves the plan
// for the input's dtype and shape; Compute runs it.
#include <memory>
#include <vector>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/normalization/normalization.h"
#include "ep/cpu/math/normalization/normalization.h"

namespace nxrt::cpu::kernels {
namespace {

class LpNormKernel final : public Kernel {
 public:
  LpNormKernel(int64_t axis, int64_t p) : axis_(axis), p_(p) {}

  Status Prepare(PrepareContext& ctx) override {
    const Shape shape = InputShape(ctx, 0);
    NXRT_ASSIGN_OR_RETURN(plan_, math::PrepareLpNorm(ctx.input_dtype(0), shape, axis_, p_));
    return ctx.SetOutput(0, ctx.input_dtype(0), shape);
  }

  Status Compute(ComputeContext& ctx) override {
    plan_.fn(plan_, ctx.input(0)->raw_data(), ctx.output(0)->mutable_raw_data());
    return Status::Ok();
  }

 private:
  int64_t axis_;
  int64_t p_;
  math::LpNormPlan plan_;
};

class MvnKernel final : public Kernel {
 public:
  explicit MvnKernel(std::vector<int64_t> axes) : axes_(std::move(axes)) {}

  Status Prepare(PrepareContext& ctx) override {
    const Shape shape = InputShape(ctx, 0);
    NXRT_ASSIGN_OR_RETURN(plan_, math::PrepareMvn(ctx.input_dtype(0), shape, axes_));
    return ctx.SetOutput(0, ctx.input_dtype(0), shape);
  }

  Status Compute(ComputeContext& ctx) override {
    plan_.fn(plan_.split, ctx.input(0)->raw_data(), ctx.output(0)->mutable_raw_data());
    return Status::Ok();
  }

 private:
  std::vector<int64_t> axes_;
  math::MvnPlan plan_;
};

}  // namespace

ep::KernelFactory LpNormFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(int64_t axis, node.GetInt("axis", -1));
    NXRT_ASSIGN_OR_RETURN(int64_t p, node.GetInt("p", 2));
    if (p != 1 && p != 2) {
      return node.Error(StatusCode::kInvalidModel, "attribute 'p' is ", p, ", expected 1 or 2");
    }
    return std::unique_ptr<Kernel>(std::make_unique<LpNormKernel>(axis, p));
  };
}

ep::KernelFactory MvnFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(std::vector<int64_t> axes, node.GetInts("axes", {0, 2, 3}));
    return std::unique_ptr<Kernel>(std::make_unique<MvnKernel>(std::move(axes)));
  };
}

}  // namespace nxrt::cpu::kernels
