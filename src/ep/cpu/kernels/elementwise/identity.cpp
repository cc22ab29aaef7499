// ep/cpu/kernels/elementwise/identity.cpp: glue of Identity and of Dropout in inference mode.
//
// Layer: nxrt_ep_cpu (kernel glue). The kernel API has no output aliasing yet, so both copy their
// input; Dropout's optional mask is all true. Dropout-12+ running with training_mode true is
// refused at prepare time (the CPU EP does inference only).
#include <cstring>
#include <memory>
#include <vector>

#include "ep/cpu/kernels/elementwise/elementwise.h"
#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/math/element_types.h"

namespace nxrt::cpu::kernels {
namespace {

class CopyKernel final : public Kernel {
 public:
  // `dropout`: Dropout (mask output, training_mode input) rather than Identity.
  CopyKernel(bool dropout, bool mask_is_bool, bool has_training_mode)
      : dropout_(dropout), mask_is_bool_(mask_is_bool), has_training_mode_(has_training_mode) {}

  std::vector<int> ValueInputs() const override {
    return has_training_mode_ ? std::vector<int>{2} : std::vector<int>{};
  }

  Status Prepare(PrepareContext& ctx) override {
    type_ = ctx.input_dtype(0);
    if (has_training_mode_) {
      NXRT_ASSIGN_OR_RETURN(const Tensor* mode, ctx.input_value(2));
      if (mode->dtype() != DataType::kBool || mode->element_count() != 1) {
        return MakeStatus(StatusCode::kInvalidArgument, "input 2 'training_mode' is ",
                          mode->Description(), ", expected a bool scalar");
      }
      if (*mode->data<bool>()) {
        return MakeStatus(StatusCode::kUnsupported, "input 2 'training_mode' is true; the CPU "
                          "EP runs Dropout in inference mode only (feed false or remove it)");
      }
    }
    NXRT_RETURN_IF_ERROR(ctx.SetOutput(0, type_, InputShape(ctx, 0)));
    if (dropout_ && ctx.output_count() > 1) {
      mask_type_ = mask_is_bool_ ? DataType::kBool : type_;
      NXRT_RETURN_IF_ERROR(ctx.SetOutput(1, mask_type_, InputShape(ctx, 0)));
    }
    return Status::Ok();
  }

  Status Compute(ComputeContext& ctx) override {
    const void* in = ctx.input(0)->raw_data();
    void* out = ctx.output(0)->mutable_raw_data();
    const int64_t count = ctx.input(0)->element_count();
    ParallelRanges(ctx, count, [&](int64_t begin, int64_t end) {
      CopyElements(type_, Advance(in, begin, type_), Advance(out, begin, type_), end - begin);
    });
    Tensor* mask = dropout_ && ctx.output_count() > 1 ? ctx.output(1) : nullptr;
    if (mask == nullptr) return Status::Ok();
    return math::DispatchType<math::NumericAndBoolTypes>(mask_type_, "Dropout", [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T one = math::ConvertElement<T>(true);
      T* values = mask->mutable_data<T>();
      for (int64_t i = 0; i < count; ++i) values[i] = one;
    });
  }

 private:
  bool dropout_;
  bool mask_is_bool_;
  bool has_training_mode_;
  DataType type_ = DataType::kUndefined;
  DataType mask_type_ = DataType::kUndefined;
};

}  // namespace

ep::KernelFactory IdentityFactory() {
  return [](const NodeInfo&) -> Result<std::unique_ptr<Kernel>> {
    return std::unique_ptr<Kernel>(std::make_unique<CopyKernel>(
        /*dropout=*/false, /*mask_is_bool=*/false, /*has_training_mode=*/false));
  };
}

ep::KernelCheck TensorOnlyCheck() {
  return [](const NodeInfo& node) {
    for (size_t i = 0; i < node.inputs().size(); ++i) {
      const ValueInfo& input = node.inputs()[i];
      if (input.kind != ValueKind::kTensor && input.kind != ValueKind::kUnknown &&
          input.kind != ValueKind::kAbsent) {
        return KernelMatch::Unsupported(
            "input " + std::to_string(i) + " '" + input.name + "' is a " +
            std::string(ValueKindName(input.kind)) + "; the CPU EP's " + node.op_type() +
            " takes tensors only");
      }
    }
    return KernelMatch::Supported();
  };
}

ep::KernelFactory DropoutFactory(bool mask_is_bool) {
  return [mask_is_bool](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    return std::unique_ptr<Kernel>(
        std::make_unique<CopyKernel>(/*dropout=*/true, mask_is_bool, node.has_input(2)));
  };
}

}  // namespace nxrt::cpu::kernels
