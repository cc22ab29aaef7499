// ep/cpu/kernels/nn/max_roi_pool.cpp: glue of MaxRoiPool (math/nn/max_roi_pool.h).
//
// Layer: nxrt_ep_cpu (kernel glue). Attributes `pooled_shape` (required, two positive sizes) and
// `spatial_scale` (default 1, above 0). Compute checks the rois, then splits them over the thread
// pool.
#include "ep/cpu/math/nn/max_roi_pool.h"

#include <memory>
#include <vector>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/nn/nn.h"

namespace nxrt::cpu::kernels {
namespace {

class MaxRoiPoolKernel final : public Kernel {
 public:
  explicit MaxRoiPoolKernel(nn::MaxRoiPoolAttributes attributes) : attributes_(attributes) {}

  Status Prepare(PrepareContext& ctx) override {
    NXRT_ASSIGN_OR_RETURN(plan_, nn::PrepareMaxRoiPool(ctx.input_dtype(0), InputShape(ctx, 0),
                                                       InputShape(ctx, 1), attributes_));
    return ctx.SetOutput(0, ctx.input_dtype(0), plan_.output_shape);
  }

  Status Compute(ComputeContext& ctx) override {
    const void* rois = ctx.input(1)->raw_data();
    NXRT_RETURN_IF_ERROR(nn::CheckMaxRoiPoolRois(plan_, rois));
    const void* x = ctx.input(0)->raw_data();
    void* y = ctx.output(0)->mutable_raw_data();
    ctx.ParallelFor(plan_.rois, 1, [&](int64_t begin, int64_t end) {
      nn::MaxRoiPool(plan_, x, rois, y, begin, end);
    });
    return Status::Ok();
  }

 private:
  nn::MaxRoiPoolAttributes attributes_;
  nn::MaxRoiPoolPlan plan_;
};

}  // namespace

ep::KernelFactory MaxRoiPoolFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(std::vector<int64_t> pooled, node.GetInts("pooled_shape"));
    nn::MaxRoiPoolAttributes a;
    NXRT_ASSIGN_OR_RETURN(a.spatial_scale, node.GetFloat("spatial_scale", 1.0f));
    if (pooled.size() != 2 || pooled[0] < 1 || pooled[1] < 1 || !(a.spatial_scale > 0.0f)) {
      return node.Error(StatusCode::kInvalidModel, "attributes pooled_shape ",
                        ShapeToString(pooled), " and spatial_scale ", a.spatial_scale,
                        "; pooled_shape is two positive sizes [height, width] and spatial_scale "
                        "is above 0");
    }
    a.pooled_height = pooled[0];
    a.pooled_width = pooled[1];
    return std::unique_ptr<Kernel>(std::make_unique<MaxRoiPoolKernel>(a));
  };
}

}  // namespace nxrt::cpu::kernels
