// ep/cpu/kernels/nn/detection.cpp: glue of GridSample (math/nn/grid_sample.h) and NonMaxSuppression
// (math/nn/non_max_suppression.h).
//
// Layer: nxrt_ep_cpu (kernel glue). NonMaxSuppression's thresholds and box limit (inputs 2-4)
// are value inputs read in Prepare; its output [num_selected, 3] is dynamic, allocated in Compute
// once the selection is known.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/nn/nn.h"
#include "ep/cpu/math/nn/grid_sample.h"
#include "ep/cpu/math/nn/non_max_suppression.h"

namespace nxrt::cpu::kernels {
namespace {

class GridSampleKernel final : public Kernel {
 public:
  GridSampleKernel(nn::GridSampleMode mode, nn::GridPadding padding, bool align_corners)
      : mode_(mode), padding_(padding), align_corners_(align_corners) {}

  Status Prepare(PrepareContext& ctx) override {
    if (ctx.input_dtype(1) != ctx.input_dtype(0)) {
      return MakeStatus(StatusCode::kUnsupported, "input 1 'grid' is ",
                        DataTypeName(ctx.input_dtype(1)), " and input 0 'X' is ",
                        DataTypeName(ctx.input_dtype(0)),
                        "; this kernel samples a grid of X's type (cast the grid)");
    }
    NXRT_ASSIGN_OR_RETURN(plan_,
                          nn::PrepareGridSample(ctx.input_dtype(0), InputShape(ctx, 0),
                                                InputShape(ctx, 1), mode_, padding_,
                                                align_corners_));
    return ctx.SetOutput(0, ctx.input_dtype(0), plan_.output_shape);
  }

  Status Compute(ComputeContext& ctx) override {
    nn::GridSample(plan_, ctx.input(0)->raw_data(), ctx.input(1)->raw_data(),
                   ctx.output(0)->mutable_raw_data());
    return Status::Ok();
  }

 private:
  nn::GridSampleMode mode_;
  nn::GridPadding padding_;
  bool align_corners_;
  nn::GridSamplePlan plan_;
};


// Value input `i` as one float (a scalar or a one-element float tensor).
Result<float> ReadFloat(const PrepareContext& ctx, int i, std::string_view what) {
  NXRT_ASSIGN_OR_RETURN(const Tensor* t, ctx.input_value(i));
  if (t->dtype() != DataType::kFloat || t->element_count() != 1) {
    return MakeStatus(StatusCode::kInvalidArgument, what, " is ", DataTypeName(t->dtype()), " ",
                      ShapeToString(t->shape()), "; expected one float");
  }
  return *t->data<float>();
}

class NonMaxSuppressionKernel final : public Kernel {
 public:
  explicit NonMaxSuppressionKernel(bool center_point_box) {
    params_.center_point_box = center_point_box;
  }

  std::vector<int> ValueInputs() const override { return {2, 3, 4}; }

  Status Prepare(PrepareContext& ctx) override {
    NXRT_RETURN_IF_ERROR(nn::CheckNmsShapes(InputShape(ctx, 0), InputShape(ctx, 1), params_));
    params_.max_output_boxes_per_class = 0;
    if (HasInput(ctx, 2)) {
      NXRT_ASSIGN_OR_RETURN(std::vector<int64_t> limit,
                            ReadInt64s(ctx, 2, "input 2 'max_output_boxes_per_class'"));
      if (limit.size() != 1) {
        return MakeStatus(StatusCode::kInvalidArgument,
                          "input 2 'max_output_boxes_per_class' has ", limit.size(),
                          " elements, expected one");
      }
      params_.max_output_boxes_per_class = limit[0];
    }
    params_.iou_threshold = 0;
    if (HasInput(ctx, 3)) {
      NXRT_ASSIGN_OR_RETURN(params_.iou_threshold, ReadFloat(ctx, 3, "input 3 'iou_threshold'"));
      if (params_.iou_threshold < 0 || params_.iou_threshold > 1) {
        return MakeStatus(StatusCode::kInvalidArgument, "input 3 'iou_threshold' is ",
                          params_.iou_threshold, "; it must lie in [0, 1]");
      }
    }
    params_.has_score_threshold = HasInput(ctx, 4);
    if (params_.has_score_threshold) {
      NXRT_ASSIGN_OR_RETURN(params_.score_threshold,
                            ReadFloat(ctx, 4, "input 4 'score_threshold'"));
    }
    return ctx.SetOutputDynamic(0, DataType::kInt64);
  }

  Status Compute(ComputeContext& ctx) override {
    const std::vector<std::array<int64_t, 3>> selected = nn::NonMaxSuppression(
        params_, ctx.input(0)->data<float>(), ctx.input(1)->data<float>());
    NXRT_ASSIGN_OR_RETURN(Tensor * out,
                          ctx.AllocateOutput(0, {static_cast<int64_t>(selected.size()), 3}));
    if (!selected.empty()) {
      std::memcpy(out->mutable_raw_data(), selected.data(), selected.size() * sizeof(selected[0]));
    }
    return Status::Ok();
  }

 private:
  nn::NmsParameters params_;
};

}  // namespace

ep::KernelFactory GridSampleFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(int64_t align_corners, node.GetInt("align_corners", 0));
    NXRT_ASSIGN_OR_RETURN(std::string mode, node.GetString("mode", "bilinear"));
    NXRT_ASSIGN_OR_RETURN(std::string padding, node.GetString("padding_mode", "zeros"));
    nn::GridSampleMode m;
    if (mode == "bilinear" || mode == "linear") {
      m = nn::GridSampleMode::kBilinear;
    } else if (mode == "nearest") {
      m = nn::GridSampleMode::kNearest;
    } else if (mode == "bicubic" || mode == "cubic") {
      m = nn::GridSampleMode::kBicubic;
    } else {
      return node.Error(StatusCode::kInvalidModel, "attribute 'mode' is '", mode,
                        "'; use bilinear, nearest or bicubic");
    }
    nn::GridPadding p;
    if (padding == "zeros") {
      p = nn::GridPadding::kZeros;
    } else if (padding == "border") {
      p = nn::GridPadding::kBorder;
    } else if (padding == "reflection") {
      p = nn::GridPadding::kReflection;
    } else {
      return node.Error(StatusCode::kInvalidModel, "attribute 'padding_mode' is '", padding,
                        "'; use zeros, border or reflection");
    }
    return std::unique_ptr<Kernel>(std::make_unique<GridSampleKernel>(m, p, align_corners != 0));
  };
}

ep::KernelFactory NonMaxSuppressionFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(int64_t center_point_box, node.GetInt("center_point_box", 0));
    if (center_point_box != 0 && center_point_box != 1) {
      return node.Error(StatusCode::kInvalidModel, "attribute 'center_point_box' is ",
                        center_point_box, "; use 0 (corners) or 1 (center, width, height)");
    }
    return std::unique_ptr<Kernel>(
        std::make_unique<NonMaxSuppressionKernel>(center_point_box != 0));
  };
}

}  // namespace nxrt::cpu::kernels
