// ep/cpu/kernels/training/optimizer.cpp: glue of Adagrad, Momentum and Adam
// (ai.onnx.preview.training, version 1; math/training/training.h).
//
// Layer: nxrt_ep_cpu (kernel glue). ONNX source: onnx/defs/training/defs.cc. The node's inputs
// after R and T are split into 2 + states groups of n tensors each (n = the output count divided
// by 1 + states); each X_i, G_i and its states must share one shape and one type.
#include <memory>
#include <vector>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/training/training.h"
#include "ep/cpu/math/element_types.h"

namespace nxrt::cpu::kernels {
namespace {

class OptimizerKernel final : public Kernel {
 public:
  explicit OptimizerKernel(math::OptimizerAttrs attrs) : attrs_(attrs) {}

  Status Prepare(PrepareContext& ctx) override {
    const int states = math::OptimizerStateCount(attrs_.kind);
    const int tensors = ctx.input_count() - 2;
    if (tensors <= 0 || tensors % (2 + states) != 0 ||
        ctx.output_count() != tensors / (2 + states) * (1 + states)) {
      return MakeStatus(StatusCode::kInvalidArgument, "the node has ", ctx.input_count(),
                        " inputs and ", ctx.output_count(), " outputs; expected R, T, then n X, n G",
                        " and ", states, "n state inputs, and ", 1 + states, "n outputs");
    }
    count_ = tensors / (2 + states);
    for (int i : {0, 1}) {
      const Result<int64_t> elements = ElementCount(ctx.input_shape(i));
      if (!elements.ok() || *elements != 1) {
        return MakeStatus(StatusCode::kInvalidArgument, "input ", i, i == 0 ? " 'R'" : " 'T'",
                          " has shape ", ShapeToString(ctx.input_shape(i)),
                          ", expected a scalar");
      }
    }
    r_type_ = ctx.input_dtype(0);
    using RateTypes = math::TypeList<float, double>;
    NXRT_RETURN_IF_ERROR(math::DispatchType<RateTypes>(r_type_, "learning rate 'R'", [](auto) {}));
    fns_.clear();
    for (int k = 0; k < count_; ++k) {
      const int x = 2 + k;
      const Shape shape = InputShape(ctx, x);
      const DataType type = ctx.input_dtype(x);
      for (int group = 1; group < 2 + states; ++group) {
        const int i = x + group * count_;
        if (InputShape(ctx, i) != shape || ctx.input_dtype(i) != type) {
          return MakeStatus(StatusCode::kInvalidArgument, "input ", i, " is ",
                            DataTypeName(ctx.input_dtype(i)), " ",
                            ShapeToString(InputShape(ctx, i)), " but its tensor X (input ", x,
                            ") is ", DataTypeName(type), " ", ShapeToString(shape),
                            "; gradients and states match their tensor");
        }
      }
      NXRT_ASSIGN_OR_RETURN(math::OptimizerFn fn, math::PrepareOptimizer(type));
      fns_.push_back(fn);
      for (int group = 0; group < 1 + states; ++group) {
        NXRT_RETURN_IF_ERROR(ctx.SetOutput(k + group * count_, type, shape));
      }
    }
    return Status::Ok();
  }

  Status Compute(ComputeContext& ctx) override {
    double r = 0;
    math::VisitType(math::TypeList<float, double>{}, r_type_, [&](auto tag) {
      r = static_cast<double>(*ctx.input(0)->data<typename decltype(tag)::type>());
    });
    const int64_t t = *ctx.input(1)->data<int64_t>();
    const int states = math::OptimizerStateCount(attrs_.kind);
    for (int k = 0; k < count_; ++k) {
      const void* state_in[2] = {};
      void* state_out[2] = {};
      for (int s = 0; s < states; ++s) {
        state_in[s] = ctx.input(2 + k + (2 + s) * count_)->raw_data();
        state_out[s] = ctx.output(k + (1 + s) * count_)->mutable_raw_data();
      }
      const Tensor& x = *ctx.input(2 + k);
      fns_[static_cast<size_t>(k)](
          attrs_, r, t, x.element_count(), x.raw_data(), ctx.input(2 + k + count_)->raw_data(),
          std::span<const void* const>(state_in, static_cast<size_t>(states)),
          ctx.output(k)->mutable_raw_data(),
          std::span<void* const>(state_out, static_cast<size_t>(states)));
    }
    return Status::Ok();
  }

 private:
  math::OptimizerAttrs attrs_;
  DataType r_type_ = DataType::kUndefined;
  int count_ = 0;                       // tensors optimized
  std::vector<math::OptimizerFn> fns_;  // per tensor
};

}  // namespace

ep::KernelFactory OptimizerFactory(math::OptimizerKind kind) {
  return [kind](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    math::OptimizerAttrs attrs;
    attrs.kind = kind;
    if (kind == math::OptimizerKind::kAdagrad) {
      NXRT_ASSIGN_OR_RETURN(float decay, node.GetFloat("decay_factor", 0.0f));
      NXRT_ASSIGN_OR_RETURN(float epsilon, node.GetFloat("epsilon", 1e-6f));
      NXRT_ASSIGN_OR_RETURN(float norm, node.GetFloat("norm_coefficient", 0.0f));
      attrs.decay_factor = decay;
      attrs.epsilon = epsilon;
      attrs.norm_coefficient = norm;
    } else if (kind == math::OptimizerKind::kAdam) {
      NXRT_ASSIGN_OR_RETURN(float alpha, node.GetFloat("alpha", 0.9f));
      NXRT_ASSIGN_OR_RETURN(float beta, node.GetFloat("beta", 0.999f));
      NXRT_ASSIGN_OR_RETURN(float epsilon, node.GetFloat("epsilon", 1e-6f));
      NXRT_ASSIGN_OR_RETURN(float norm, node.GetFloat("norm_coefficient", 0.0f));
      NXRT_ASSIGN_OR_RETURN(float post, node.GetFloat("norm_coefficient_post", 0.0f));
      attrs.alpha = alpha;
      attrs.beta = beta;
      attrs.epsilon = epsilon;
      attrs.norm_coefficient = norm;
      attrs.norm_coefficient_post = post;
    } else {
      NXRT_ASSIGN_OR_RETURN(float alpha, node.GetFloat("alpha"));
      NXRT_ASSIGN_OR_RETURN(float beta, node.GetFloat("beta"));
      NXRT_ASSIGN_OR_RETURN(float norm, node.GetFloat("norm_coefficient"));
      // A Result rather than NXRT_ASSIGN_OR_RETURN: GCC 12 at -O3 warns that the moved string
      // may be uninitialised.
      const Result<std::string> mode = node.GetString("mode");
      if (!mode.ok()) return mode.status();
      if (*mode != "standard" && *mode != "nesterov") {
        return node.Error(StatusCode::kInvalidModel, "attribute 'mode' is '", *mode,
                          "'; expected 'standard' or 'nesterov'");
      }
      attrs.kind = *mode == "nesterov" ? math::OptimizerKind::kNesterov
                                       : math::OptimizerKind::kMomentum;
      attrs.alpha = alpha;
      attrs.beta = beta;
      attrs.norm_coefficient = norm;
    }
    return std::unique_ptr<Kernel>(std::make_unique<OptimizerKernel>(attrs));
  };
}

}  // namespace nxrt::cpu::kernels
