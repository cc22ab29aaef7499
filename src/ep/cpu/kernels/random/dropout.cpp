// ep/cpu/kernels/random/dropout.cpp: glue of Dropout-12 and -13, in inference and training mode.
//
// Layer: nxrt_ep_cpu (kernel glue over math/random/random.h). ONNX source: onnx/defs/nn/defs.cc
// (Dropout-13; -12 lacks bfloat16). Inputs: data (T), ratio (T1 scalar, default 0.5; must lie in
// [0, 1]), training_mode (bool scalar, default false); both are value inputs, read in Prepare.
// Outputs: output (T, data's shape), optional mask (bool). Training draws one uniform per element
// from the node's engine: kept when it is >= ratio, so output = data * mask / (1 - ratio); ratio
// 1 drops every element (output 0). Inference, or ratio 0, copies data with an all-true mask.
#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/random/random.h"
#include "ep/cpu/math/element_types.h"
#include "ep/cpu/math/random/random.h"

namespace nxrt::cpu::kernels {
namespace {

class DropoutKernel final : public Kernel {
 public:
  DropoutKernel(bool has_ratio, bool has_training_mode, std::optional<uint64_t> seed)
      : has_ratio_(has_ratio), has_training_mode_(has_training_mode), engine_(seed) {}

  std::vector<int> ValueInputs() const override {
    std::vector<int> inputs;
    if (has_ratio_) inputs.push_back(1);
    if (has_training_mode_) inputs.push_back(2);
    return inputs;
  }

  Status Prepare(PrepareContext& ctx) override {
    type_ = ctx.input_dtype(0);
    NXRT_RETURN_IF_ERROR(ReadMode(ctx));
    NXRT_RETURN_IF_ERROR(ctx.SetOutput(0, type_, InputShape(ctx, 0)));
    if (ctx.output_count() > 1) {
      NXRT_RETURN_IF_ERROR(ctx.SetOutput(1, DataType::kBool, InputShape(ctx, 0)));
    }
    return Status::Ok();
  }

  Status Compute(ComputeContext& ctx) override {
    const Tensor& x = *ctx.input(0);
    Tensor* y = ctx.output(0);
    Tensor* mask = ctx.output_count() > 1 ? ctx.output(1) : nullptr;
    const int64_t count = x.element_count();
    if (!training_) {
      CopyElements(type_, x.raw_data(), y->mutable_raw_data(), count);
      if (mask != nullptr) std::fill_n(mask->mutable_data<bool>(), count, true);
      return Status::Ok();
    }
    const double scale = ratio_ < 1 ? 1 / (1 - ratio_) : 0;
    math::VisitType(math::FloatTypesBf16{}, type_, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* in = x.data<T>();
      T* out = y->mutable_data<T>();
      for (int64_t i = 0; i < count; ++i) {
        const bool keep = engine_.Uniform() >= ratio_;
        out[i] = math::Store<T>(static_cast<math::Compute<T>>(
            keep ? static_cast<double>(math::Load(in[i])) * scale : 0.0));
        if (mask != nullptr) mask->mutable_data<bool>()[i] = keep;
      }
    });
    return Status::Ok();
  }

 private:
  // Sets ratio_ and training_ from inputs 1 and 2. kInvalidArgument for a non-scalar input or a
  // ratio outside [0, 1].
  Status ReadMode(const PrepareContext& ctx) {
    ratio_ = 0.5;
    training_ = false;
    if (has_training_mode_) {
      NXRT_ASSIGN_OR_RETURN(const Tensor* mode, ctx.input_value(2));
      if (mode->dtype() != DataType::kBool || mode->element_count() != 1) {
        return MakeStatus(StatusCode::kInvalidArgument, "input 2 'training_mode' is ",
                          mode->Description(), ", expected a bool scalar");
      }
      training_ = *mode->data<bool>();
    }
    if (has_ratio_) {
      NXRT_ASSIGN_OR_RETURN(const Tensor* value, ctx.input_value(1));
      if (value->element_count() != 1) {
        return MakeStatus(StatusCode::kInvalidArgument, "input 1 'ratio' is ",
                          value->Description(), ", expected a scalar");
      }
      NXRT_RETURN_IF_ERROR(
          math::DispatchType<math::FloatTypesBf16>(value->dtype(), "Dropout ratio", [&](auto tag) {
            using T = typename decltype(tag)::type;
            ratio_ = static_cast<double>(math::Load(*value->data<T>()));
          }));
    }
    if (!(ratio_ >= 0 && ratio_ <= 1)) {
      return MakeStatus(StatusCode::kInvalidArgument, "input 1 'ratio' is ", ratio_,
                        "; a dropout ratio lies in [0, 1]");
    }
    if (ratio_ == 0) training_ = false;
    return Status::Ok();
  }

  bool has_ratio_;
  bool has_training_mode_;
  math::RandomEngine engine_;
  DataType type_ = DataType::kUndefined;
  double ratio_ = 0.5;
  bool training_ = false;
};

}  // namespace

ep::KernelFactory DropoutTrainingFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    std::optional<uint64_t> seed;
    if (node.HasAttribute("seed")) {
      NXRT_ASSIGN_OR_RETURN(int64_t value, node.GetInt("seed"));
      seed = static_cast<uint64_t>(value);
    }
    return std::unique_ptr<Kernel>(
        std::make_unique<DropoutKernel>(node.has_input(1), node.has_input(2), seed));
  };
}

}  // namespace nxrt::cpu::kernels
