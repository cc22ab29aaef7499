// ep/cpu/kernels/nn/roi_align.cpp: glue of RoiAlign (math/nn/roi_align.h).
//
// Layer: nxrt_ep_cpu (kernel glue). Attributes `mode`, `output_height`, `output_width`,
// `sampling_ratio`, `spatial_scale`, and from opset 16 `coordinate_transformation_mode` (opset 10
// always behaves as output_half_pixel). Compute checks batch_indices, then splits the rois over
// the thread pool.
#include <memory>
#include <string>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/nn/nn.h"
#include "ep/cpu/math/nn/roi_align.h"

namespace nxrt::cpu::kernels {
namespace {

class RoiAlignKernel final : public Kernel {
 public:
  explicit RoiAlignKernel(nn::RoiAlignAttributes attributes) : attributes_(attributes) {}

  Status Prepare(PrepareContext& ctx) override {
    if (ctx.input_dtype(1) != ctx.input_dtype(0)) {
      return MakeStatus(StatusCode::kInvalidArgument, "input 1 'rois' is ",
                        DataTypeName(ctx.input_dtype(1)), " but input 0 'X' is ",
                        DataTypeName(ctx.input_dtype(0)), "; both are T1 (cast the rois)");
    }
    NXRT_ASSIGN_OR_RETURN(plan_, nn::PrepareRoiAlign(ctx.input_dtype(0), InputShape(ctx, 0),
                                                     InputShape(ctx, 1), InputShape(ctx, 2),
                                                     attributes_));
    return ctx.SetOutput(0, ctx.input_dtype(0), plan_.output_shape);
  }

  Status Compute(ComputeContext& ctx) override {
    const int64_t* batch_indices = ctx.input(2)->data<int64_t>();
    NXRT_RETURN_IF_ERROR(nn::CheckRoiBatchIndices(plan_, batch_indices));
    const void* x = ctx.input(0)->raw_data();
    const void* rois = ctx.input(1)->raw_data();
    void* y = ctx.output(0)->mutable_raw_data();
    ctx.ParallelFor(plan_.rois, 1, [&](int64_t begin, int64_t end) {
      nn::RoiAlign(plan_, x, rois, batch_indices, y, begin, end);
    });
    return Status::Ok();
  }

 private:
  nn::RoiAlignAttributes attributes_;
  nn::RoiAlignPlan plan_;
};

}  // namespace

ep::KernelFactory RoiAlignFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    nn::RoiAlignAttributes a;
    NXRT_ASSIGN_OR_RETURN(std::string mode, node.GetString("mode", "avg"));
    if (mode != "avg" && mode != "max") {
      return node.Error(StatusCode::kInvalidModel, "attribute 'mode' is '", mode,
                        "'; use avg or max");
    }
    a.max_mode = mode == "max";
    // Opset 10 has no such attribute and samples as output_half_pixel does.
    NXRT_ASSIGN_OR_RETURN(std::string transform,
                          node.GetString("coordinate_transformation_mode",
                                         node.opset() >= 16 ? "half_pixel" : "output_half_pixel"));
    if (transform != "half_pixel" && transform != "output_half_pixel") {
      return node.Error(StatusCode::kInvalidModel,
                        "attribute 'coordinate_transformation_mode' is '", transform,
                        "'; use half_pixel or output_half_pixel");
    }
    a.half_pixel = transform == "half_pixel";
    NXRT_ASSIGN_OR_RETURN(a.output_height, node.GetInt("output_height", 1));
    NXRT_ASSIGN_OR_RETURN(a.output_width, node.GetInt("output_width", 1));
    NXRT_ASSIGN_OR_RETURN(a.sampling_ratio, node.GetInt("sampling_ratio", 0));
    NXRT_ASSIGN_OR_RETURN(a.spatial_scale, node.GetFloat("spatial_scale", 1.0f));
    if (a.output_height < 1 || a.output_width < 1 || a.sampling_ratio < 0) {
      return node.Error(StatusCode::kInvalidModel, "attributes output_height ", a.output_height,
                        ", output_width ", a.output_width, ", sampling_ratio ", a.sampling_ratio,
                        "; the output sizes must be positive and sampling_ratio >= 0");
    }
    return std::unique_ptr<Kernel>(std::make_unique<RoiAlignKernel>(a));
  };
}

}  // namespace nxrt::cpu::kernels
