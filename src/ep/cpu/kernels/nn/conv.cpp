// ep/cpu/kernels/nn/conv.cpp: glue of Conv and ConvTranspose over math/nn/conv.h.
//
// Layer: nxrt_ep_cpu (kernel glue). The attributes are parsed once; Prepare creates the plan (and
// its oneDNN primitive for float) only when an input shape or the run's thread count differs
// from the one it was made for, so a steady input shape costs one primitive creation; constant
// weights (initializers) are then reordered once into the primitive's layout (which lets 3x3
// convolutions take oneDNN's Winograd algorithm, math/nn/conv.h ConvOptions::constant_weights). The
// blocked copies and oneDNN's scratchpad are the kernel's workspace.
//
// com.nxrt:FusedConv(X, W, B?, Z?) (made by the conv_activation_fusion pass) is Conv with post-ops:
// Y = s * act(Conv(X, W, B) + Z) + t, Z of Y's shape (a residual), run as oneDNN post-ops in the
// same pass over the output (oneDNN's sum post-op accumulates into the destination: Z is copied
// into Y first, unless the memory planner gave Y Z's buffer, which the kernel offers,
// ep/in_place.h). Attributes: Conv's, plus `activation`, `activation_alpha` and `activation_beta`
// (the activations ep/cpu/nxrt_ops.h kFusedActivations gives FusedConv, with their defaults),
// `output_scale` s (default 1) and `output_shift` t (default 0), and `channels_last` (default 0;
// 1: X is [N, H, W, C] and Z and Y are [N, H', W', M], W and B as in ONNX; 2-D only, another rank
// of X is an error naming its shape).
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/nn/fused_activation.h"
#include "ep/cpu/kernels/nn/nn.h"
#include "ep/cpu/kernels/tensor/tensor.h"
#include "ep/cpu/math/nn/conv.h"
#include "ep/in_place.h"

namespace nxrt::cpu::kernels {
namespace {

class ConvKernel final : public Kernel {
 public:
  ConvKernel(bool transpose, nn::ConvAttributes attributes, nn::ConvPostOps post_ops = {},
             bool channels_last = false)
      : transpose_(transpose),
        attributes_(std::move(attributes)),
        post_ops_(post_ops),
        channels_last_(channels_last) {}

  Status Prepare(PrepareContext& ctx) override {
    Shape x = InputShape(ctx, 0);
    Shape w = InputShape(ctx, 1);
    std::optional<Shape> b;
    if (HasInput(ctx, 2)) b = InputShape(ctx, 2);
    const int threads = ctx.thread_count();
    if (!planned_ || ctx.input_dtype(0) != plan_.dtype || x != x_shape_ || w != w_shape_ ||
        b != b_shape_ || threads != threads_) {
      nn::ConvOptions options;
      options.threads = threads;
      options.post_ops = post_ops_;
      options.post_ops.sum = HasInput(ctx, 3);
      options.channels_last = channels_last_;
      // Only constant initializers (the kernel lists no value inputs) are readable here.
      Result<const Tensor*> weights = ctx.input_value(1);
      options.constant_weights = weights.ok();
      std::optional<std::span<const int64_t>> b_span;
      if (b) b_span = *b;
      NXRT_ASSIGN_OR_RETURN(plan_, transpose_ ? nn::PrepareConvTranspose(ctx.input_dtype(0), x, w,
                                                                         b_span, attributes_,
                                                                         options)
                                              : nn::PrepareConv(ctx.input_dtype(0), x, w, b_span,
                                                                attributes_, options));
      if (weights.ok()) NXRT_RETURN_IF_ERROR(nn::PackConvWeights(plan_, (*weights)->raw_data()));
      x_shape_ = std::move(x);
      w_shape_ = std::move(w);
      b_shape_ = std::move(b);
      threads_ = threads;
      planned_ = true;
    }
    if (plan_.post_ops.sum) {
      if (InputShape(ctx, 3) != plan_.output_shape) {
        return MakeStatus(StatusCode::kInvalidArgument, "FusedConv: Z ",
                          ShapeToString(InputShape(ctx, 3)), " differs from the output ",
                          ShapeToString(plan_.output_shape));
      }
      // oneDNN's sum post-op accumulates into Y: with Z's buffer as Y, no copy of Z.
      if (ep::InPlaceOutputs* in_place = ep::InPlaceSupport(ctx)) in_place->AllowInPlace(0, 3);
    }
    ctx.SetWorkspaceBytes(plan_.workspace_bytes);
    return ctx.SetOutput(0, plan_.dtype, plan_.output_shape);
  }

  Status Compute(ComputeContext& ctx) override {
    const Tensor* b = ctx.input_count() > 2 ? ctx.input(2) : nullptr;
    nn::ConvBuffers io;
    io.x = ctx.input(0)->raw_data();
    io.w = ctx.input(1)->raw_data();
    io.b = b != nullptr ? b->raw_data() : nullptr;
    io.sum = plan_.post_ops.sum ? ctx.input(3)->raw_data() : nullptr;
    io.y = ctx.output(0)->mutable_raw_data();
    io.workspace = ctx.workspace();
    return nn::Conv(plan_, io);
  }

 private:
  bool transpose_;
  nn::ConvAttributes attributes_;
  nn::ConvPostOps post_ops_;
  bool channels_last_;
  bool planned_ = false;
  int threads_ = 0;
  Shape x_shape_;
  Shape w_shape_;
  std::optional<Shape> b_shape_;
  nn::ConvPlan plan_;
};

// The activation of a FusedConv node (see the file comment).
Result<nn::ConvPostOps> ParsePostOps(const NodeInfo& node) {
  NXRT_ASSIGN_OR_RETURN(FusedActivationArgs<nn::ConvActivation> activation,
                        ParseFusedActivation(node, &nxrt_ops::FusedActivation::conv));
  nn::ConvPostOps po;
  po.activation = activation.kind;
  po.alpha = activation.alpha;
  po.beta = activation.beta;
  NXRT_ASSIGN_OR_RETURN(po.output_scale, node.GetFloat("output_scale", 1.0f));
  NXRT_ASSIGN_OR_RETURN(po.output_shift, node.GetFloat("output_shift", 0.0f));
  return po;
}

// Conv (fused: FusedConv), ConvTranspose.
ep::KernelFactory ConvFamilyFactory(bool transpose, bool fused) {
  return [transpose, fused](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    nn::ConvPostOps post_ops;
    int64_t channels_last = 0;
    if (fused) {
      NXRT_ASSIGN_OR_RETURN(post_ops, ParsePostOps(node));
      NXRT_ASSIGN_OR_RETURN(channels_last, node.GetInt("channels_last", 0));
      if (channels_last != 0 && channels_last != 1) {
        return node.Error(StatusCode::kInvalidModel, "attribute 'channels_last' is ",
                          channels_last, ", expected 0 or 1");
      }
    }
    nn::ConvAttributes a;
    NXRT_ASSIGN_OR_RETURN(std::string auto_pad, node.GetString("auto_pad", "NOTSET"));
    Result<nn::AutoPad> parsed = nn::ParseAutoPad(auto_pad);
    NXRT_RETURN_IF_ERROR(AttributeError(node, "auto_pad", auto_pad, parsed.status()));
    a.auto_pad = *parsed;
    NXRT_ASSIGN_OR_RETURN(a.kernel_shape, node.GetInts("kernel_shape", {}));
    NXRT_ASSIGN_OR_RETURN(a.strides, node.GetInts("strides", {}));
    NXRT_ASSIGN_OR_RETURN(a.dilations, node.GetInts("dilations", {}));
    NXRT_ASSIGN_OR_RETURN(a.pads, node.GetInts("pads", {}));
    NXRT_ASSIGN_OR_RETURN(a.group, node.GetInt("group", 1));
    if (a.group < 1) {
      return node.Error(StatusCode::kInvalidModel, "attribute 'group' is ", a.group,
                        ", expected a positive integer");
    }
    if (transpose) {
      NXRT_ASSIGN_OR_RETURN(a.output_padding, node.GetInts("output_padding", {}));
      NXRT_ASSIGN_OR_RETURN(a.output_shape, node.GetInts("output_shape", {}));
    }
    return std::unique_ptr<Kernel>(
        std::make_unique<ConvKernel>(transpose, std::move(a), post_ops, channels_last == 1));
  };
}

}  // namespace

ep::KernelFactory ConvFactory() { return ConvFamilyFactory(false, false); }

ep::KernelFactory ConvTransposeFactory() { return ConvFamilyFactory(true, false); }

ep::KernelFactory FusedConvFactory() { return ConvFamilyFactory(false, true); }

}  // namespace nxrt::cpu::kernels
