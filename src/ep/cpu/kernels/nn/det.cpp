// ep/cpu/kernels/nn/det.cpp: glue of Det (math/nn/det.h).
//
// Layer: nxrt_ep_cpu (kernel glue). No attributes; the LU factorisation works in an M x M double
// workspace, one matrix at a time.
#include <memory>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/nn/nn.h"
#include "ep/cpu/math/nn/det.h"

namespace nxrt::cpu::kernels {
namespace {

class DetKernel final : public Kernel {
 public:
  Status Prepare(PrepareContext& ctx) override {
    NXRT_ASSIGN_OR_RETURN(plan_, math::PrepareDet(ctx.input_dtype(0), InputShape(ctx, 0)));
    ctx.SetWorkspaceBytes(static_cast<size_t>(math::DetScratchElements(plan_)) * sizeof(double));
    return ctx.SetOutput(0, ctx.input_dtype(0), plan_.output_shape);
  }

  Status Compute(ComputeContext& ctx) override {
    math::Det(plan_, ctx.input(0)->raw_data(), ctx.output(0)->mutable_raw_data(),
              reinterpret_cast<double*>(ctx.workspace().data()), 0, plan_.batch);
    return Status::Ok();
  }

 private:
  math::DetPlan plan_;
};

}  // namespace

ep::KernelFactory DetFactory() {
  return [](const NodeInfo&) -> Result<std::unique_ptr<Kernel>> {
    return std::unique_ptr<Kernel>(std::make_unique<DetKernel>());
  };
}

}  // namespace nxrt::cpu::kernels
