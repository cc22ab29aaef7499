// ep/cpu/kernels/tensor/tile_expand.cpp: glue of Tile and Expand over math/tensor/tile_expand.h.
//
// Layer: nxrt_ep_cpu (kernel glue). Both read their output geometry from value input 1: Tile's
// repeats (opset >= 6), Expand's target shape.
#include <memory>
#include <vector>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/tensor/tensor.h"
#include "ep/cpu/math/tensor/tile_expand.h"

namespace nxrt::cpu::kernels {
namespace {

class RepeatKernel final : public Kernel {
 public:
  // `expand`: Expand rather than Tile.
  explicit RepeatKernel(bool expand) : expand_(expand) {}

  std::vector<int> ValueInputs() const override { return {1}; }

  Status Prepare(PrepareContext& ctx) override {
    if (expand_) {
      NXRT_ASSIGN_OR_RETURN(std::vector<int64_t> target, ReadInt64s(ctx, 1, "input 1 'shape'"));
      NXRT_ASSIGN_OR_RETURN(plan_,
                            nn::PrepareExpand(ctx.input_dtype(0), ctx.input_shape(0), target));
    } else {
      NXRT_ASSIGN_OR_RETURN(std::vector<int64_t> repeats,
                            ReadInt64s(ctx, 1, "input 1 'repeats'"));
      NXRT_ASSIGN_OR_RETURN(plan_,
                            nn::PrepareTile(ctx.input_dtype(0), ctx.input_shape(0), repeats));
    }
    return ctx.SetOutput(0, plan_.dtype, plan_.output_shape);
  }

  Status Compute(ComputeContext& ctx) override {
    return nn::Repeat(plan_, ctx.input(0)->raw_data(), ctx.output(0)->mutable_raw_data());
  }

 private:
  bool expand_;
  nn::RepeatPlan plan_;
};

}  // namespace

ep::KernelFactory TileFactory() {
  return [](const NodeInfo&) -> Result<std::unique_ptr<Kernel>> {
    return std::unique_ptr<Kernel>(std::make_unique<RepeatKernel>(/*expand=*/false));
  };
}

ep::KernelFactory ExpandFactory() {
  return [](const NodeInfo&) -> Result<std::unique_ptr<Kernel>> {
    return std::unique_ptr<Kernel>(std::make_unique<RepeatKernel>(/*expand=*/true));
  };
}

}  // namespace nxrt::cpu::kernels
