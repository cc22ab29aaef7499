// ep/cpu/kernels/nn/max_unpool.cpp: glue of MaxUnpool (math/nn/max_unpool.h).
//
// Layer: nxrt_ep_cpu (kernel glue). Attributes `kernel_shape` (required), `pads`, `strides`; the
// optional input 2 'output_shape' is a value input read in Prepare.
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/nn/nn.h"
#include "ep/cpu/math/nn/max_unpool.h"

namespace nxrt::cpu::kernels {
namespace {

class MaxUnpoolKernel final : public Kernel {
 public:
  explicit MaxUnpoolKernel(nn::MaxUnpoolAttributes attributes)
      : attributes_(std::move(attributes)) {}

  std::vector<int> ValueInputs() const override { return {2}; }

  Status Prepare(PrepareContext& ctx) override {
    std::optional<std::vector<int64_t>> output_shape;
    if (ctx.input_count() > 2 && ctx.has_input(2)) {
      NXRT_ASSIGN_OR_RETURN(output_shape, ReadInt64s(ctx, 2, "input 2 'output_shape'"));
    }
    std::optional<std::span<const int64_t>> shape_span;
    if (output_shape) shape_span = *output_shape;
    NXRT_ASSIGN_OR_RETURN(plan_, nn::PrepareMaxUnpool(ctx.input_dtype(0), InputShape(ctx, 0),
                                                      InputShape(ctx, 1), attributes_,
                                                      shape_span));
    return ctx.SetOutput(0, ctx.input_dtype(0), plan_.output_shape);
  }

  Status Compute(ComputeContext& ctx) override {
    return nn::MaxUnpool(plan_, ctx.input(0)->raw_data(), ctx.input(1)->data<int64_t>(),
                         ctx.output(0)->mutable_raw_data());
  }

 private:
  nn::MaxUnpoolAttributes attributes_;
  nn::MaxUnpoolPlan plan_;
};

}  // namespace

ep::KernelFactory MaxUnpoolFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    nn::MaxUnpoolAttributes a;
    NXRT_ASSIGN_OR_RETURN(a.kernel_shape, node.GetInts("kernel_shape"));
    NXRT_ASSIGN_OR_RETURN(a.strides, node.GetInts("strides", {}));
    NXRT_ASSIGN_OR_RETURN(a.pads, node.GetInts("pads", {}));
    return std::unique_ptr<Kernel>(std::make_unique<MaxUnpoolKernel>(std::move(a)));
  };
}

}  // namespace nxrt::cpu::kernels
