// ep/cpu/kernels/tensor/resize.cpp: glue of Resize and Upsample over math/tensor/resize.h.
//
// Layer: nxrt_ep_cpu (kernel glue). The forms by opset:
//   Upsample 7      `scales` attribute, `mode` nearest/linear, asymmetric coordinates, legacy
//                   nearest rounding (math/tensor/resize.h kLegacy)
//   Upsample 9,     scales as value input 1, otherwise as Upsample 7
//   Resize 10
//   Resize 11, 13   value inputs roi (1), scales (2), sizes (3), the coordinate attributes
//   Resize 18, 19   plus `antialias`, `axes`, `keep_aspect_ratio_policy` (19: half_pixel_symmetric)
// The roi is read only for tf_crop_and_resize, the one mode that uses it. A planar float plan
// (math/tensor/resize.h) splits its output rows across the intra-op threads.
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/tensor/tensor.h"
#include "ep/cpu/math/nn_common.h"
#include "ep/cpu/math/tensor/resize.h"

namespace nxrt::cpu::kernels {
namespace {

// The values of a float16/float/double tensor of rank <= 1 as doubles; `what` names it.
Result<std::vector<double>> ReadReals(const PrepareContext& ctx, int i, std::string_view what) {
  NXRT_ASSIGN_OR_RETURN(const Tensor* tensor, ctx.input_value(i));
  if (tensor->rank() > 1) {
    return MakeStatus(StatusCode::kInvalidArgument, what, " has shape ",
                      ShapeToString(tensor->shape()), ", expected a 1-D tensor");
  }
  std::vector<double> values(static_cast<size_t>(tensor->element_count()));
  NXRT_RETURN_IF_ERROR(
      math::DispatchType<math::FloatTypesBf16>(tensor->dtype(), what, [&](auto tag) {
        using T = typename decltype(tag)::type;
        for (size_t k = 0; k < values.size(); ++k) {
          values[k] = static_cast<double>(nn::ToAcc(tensor->data<T>()[k]));
        }
        return Status::Ok();
      }));
  return values;
}

class ResizeKernel final : public Kernel {
 public:
  // `scales_input`: the input holding the scales (-1: the `scales` attribute, given here);
  // `full_inputs`: opset 11+ (roi, scales and sizes inputs).
  ResizeKernel(nn::ResizeAttributes attributes, int scales_input, bool full_inputs,
               std::vector<float> scales_attribute)
      : attributes_(std::move(attributes)),
        scales_input_(scales_input),
        full_inputs_(full_inputs),
        scales_attribute_(std::move(scales_attribute)) {}

  std::vector<int> ValueInputs() const override {
    if (full_inputs_) return {1, 2, 3};
    return scales_input_ > 0 ? std::vector<int>{scales_input_} : std::vector<int>{};
  }

  Status Prepare(PrepareContext& ctx) override {
    std::vector<double> roi;
    std::vector<float> scales = scales_attribute_;
    std::vector<int64_t> sizes;
    if (scales_input_ > 0 && HasInput(ctx, scales_input_)) {
      NXRT_ASSIGN_OR_RETURN(std::vector<double> values,
                            ReadReals(ctx, scales_input_, "input 'scales'"));
      scales.assign(values.begin(), values.end());
    }
    if (full_inputs_ && HasInput(ctx, 3)) {
      NXRT_ASSIGN_OR_RETURN(sizes, ReadInt64s(ctx, 3, "input 3 'sizes'"));
    }
    if (full_inputs_ && HasInput(ctx, 1) && attributes_.coordinate_transformation_mode ==
                                                nn::ResizeCoordinateMode::kTfCropAndResize) {
      NXRT_ASSIGN_OR_RETURN(roi, ReadReals(ctx, 1, "input 1 'roi'"));
    }
    NXRT_ASSIGN_OR_RETURN(plan_, nn::PrepareResize(ctx.input_dtype(0), ctx.input_shape(0),
                                                   attributes_, roi, scales, sizes));
    return ctx.SetOutput(0, plan_.dtype, plan_.output_shape);
  }

  Status Compute(ComputeContext& ctx) override {
    const void* x = ctx.input(0)->raw_data();
    void* y = ctx.output(0)->mutable_raw_data();
    if (!plan_.planar) return nn::Resize(plan_, x, y);
    // Output rows split across threads, at least kParallelGrain output elements per range.
    const int64_t width = std::max<int64_t>(1, plan_.output_shape.back());
    ctx.ParallelFor(plan_.units, std::max<int64_t>(1, kParallelGrain / width),
                    [&](int64_t begin, int64_t end) { nn::ResizeUnits(plan_, x, y, begin, end); });
    return Status::Ok();
  }

 private:
  nn::ResizeAttributes attributes_;
  int scales_input_;
  bool full_inputs_;
  std::vector<float> scales_attribute_;
  nn::ResizePlan plan_;
};

// Reads string attribute `name` (default `fallback`) through `parse` into `out`.
template <typename E>
Status ParseAttribute(const NodeInfo& node, const char* name, const char* fallback,
                      Result<E> (*parse)(std::string_view), E& out) {
  NXRT_ASSIGN_OR_RETURN(std::string text, node.GetString(name, fallback));
  Result<E> value = parse(text);
  NXRT_RETURN_IF_ERROR(AttributeError(node, name, text, value.status()));
  out = *value;
  return Status::Ok();
}

// The opset 7-10 forms: `mode` only, asymmetric coordinates, the legacy nearest rounding (down
// when upsampling, up when downsampling).
Result<nn::ResizeAttributes> LegacyAttributes(const NodeInfo& node) {
  nn::ResizeAttributes attributes;
  NXRT_RETURN_IF_ERROR(ParseAttribute(node, "mode", "nearest", &nn::ParseResizeMode,
                                      attributes.mode));
  attributes.coordinate_transformation_mode = nn::ResizeCoordinateMode::kAsymmetric;
  attributes.nearest_mode = nn::ResizeNearestMode::kLegacy;
  return attributes;
}

Result<nn::ResizeAttributes> Attributes11(const NodeInfo& node) {
  nn::ResizeAttributes a;
  NXRT_RETURN_IF_ERROR(ParseAttribute(node, "mode", "nearest", &nn::ParseResizeMode, a.mode));
  NXRT_RETURN_IF_ERROR(ParseAttribute(node, "coordinate_transformation_mode", "half_pixel",
                                      &nn::ParseResizeCoordinateMode,
                                      a.coordinate_transformation_mode));
  NXRT_RETURN_IF_ERROR(ParseAttribute(node, "nearest_mode", "round_prefer_floor",
                                      &nn::ParseResizeNearestMode, a.nearest_mode));
  NXRT_ASSIGN_OR_RETURN(float cubic_coeff_a, node.GetFloat("cubic_coeff_a", -0.75f));
  NXRT_ASSIGN_OR_RETURN(int64_t exclude_outside, node.GetInt("exclude_outside", 0));
  NXRT_ASSIGN_OR_RETURN(float extrapolation, node.GetFloat("extrapolation_value", 0.0f));
  a.cubic_coeff_a = cubic_coeff_a;
  a.exclude_outside = exclude_outside != 0;
  a.extrapolation_value = extrapolation;
  if (node.opset() >= 18) {
    NXRT_ASSIGN_OR_RETURN(int64_t antialias, node.GetInt("antialias", 0));
    a.antialias = antialias != 0;
    NXRT_ASSIGN_OR_RETURN(a.axes, node.GetInts("axes", {}));
    NXRT_RETURN_IF_ERROR(ParseAttribute(node, "keep_aspect_ratio_policy", "stretch",
                                        &nn::ParseKeepAspectRatioPolicy,
                                        a.keep_aspect_ratio_policy));
  }
  return a;
}

Result<std::unique_ptr<Kernel>> MakeResizeKernel(nn::ResizeAttributes attributes,
                                                 int scales_input, bool full_inputs,
                                                 std::vector<float> scales) {
  return std::unique_ptr<Kernel>(std::make_unique<ResizeKernel>(
      std::move(attributes), scales_input, full_inputs, std::move(scales)));
}

}  // namespace

ep::KernelFactory ResizeFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    if (node.opset() < 11) {
      NXRT_ASSIGN_OR_RETURN(nn::ResizeAttributes attributes, LegacyAttributes(node));
      return MakeResizeKernel(std::move(attributes), 1, false, {});
    }
    NXRT_ASSIGN_OR_RETURN(nn::ResizeAttributes attributes, Attributes11(node));
    return MakeResizeKernel(std::move(attributes), 2, true, {});
  };
}

ep::KernelFactory UpsampleFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(nn::ResizeAttributes attributes, LegacyAttributes(node));
    if (node.opset() >= 9) return MakeResizeKernel(std::move(attributes), 1, false, {});
    NXRT_ASSIGN_OR_RETURN(std::vector<float> scales, node.GetFloats("scales"));
    return MakeResizeKernel(std::move(attributes), -1, false, std::move(scales));
  };
}

}  // namespace nxrt::cpu::kernels
