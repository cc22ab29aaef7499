// ep/cpu/kernels/nn/lrn.cpp: glue of LRN (math/nn/lrn.h).
//
// Layer: nxrt_ep_cpu (kernel glue). Attributes `alpha`, `beta`, `bias` and the required `size`.
#include <memory>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/nn/nn.h"
#include "ep/cpu/math/nn/lrn.h"

namespace nxrt::cpu::kernels {
namespace {

class LrnKernel final : public Kernel {
 public:
  explicit LrnKernel(nn::LrnAttributes attributes) : attributes_(attributes) {}

  Status Prepare(PrepareContext& ctx) override {
    const Shape x = InputShape(ctx, 0);
    NXRT_ASSIGN_OR_RETURN(plan_, nn::PrepareLrn(ctx.input_dtype(0), x, attributes_));
    return ctx.SetOutput(0, ctx.input_dtype(0), x);
  }

  Status Compute(ComputeContext& ctx) override {
    nn::Lrn(plan_, ctx.input(0)->raw_data(), ctx.output(0)->mutable_raw_data());
    return Status::Ok();
  }

 private:
  nn::LrnAttributes attributes_;
  nn::LrnPlan plan_;
};

}  // namespace

ep::KernelFactory LrnFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    nn::LrnAttributes a;
    NXRT_ASSIGN_OR_RETURN(a.alpha, node.GetFloat("alpha", 1e-4f));
    NXRT_ASSIGN_OR_RETURN(a.beta, node.GetFloat("beta", 0.75f));
    NXRT_ASSIGN_OR_RETURN(a.bias, node.GetFloat("bias", 1.0f));
    NXRT_ASSIGN_OR_RETURN(a.size, node.GetInt("size"));
    if (a.size < 1) {
      return node.Error(StatusCode::kInvalidModel, "attribute 'size' is ", a.size,
                        ", expected a positive channel count");
    }
    return std::unique_ptr<Kernel>(std::make_unique<LrnKernel>(a));
  };
}

}  // namespace nxrt::cpu::kernels
