// ep/cpu/kernels/elementwise/identity.cpp: glue of Identity and of Dropout in inference mode.
//
// Layer: nxrt_ep_cpu (kernel glue). The kernel API has no output aliasing yet, so both copy their
// input; Dropout's optional mask is all true. Dropout-12+ running with training_mode true is
// refused at prepare time unless its ratio is 0 (the CPU EP does inference only).
#include <cstring>
#include <memory>
#include <vector>

#include "ep/cpu/kernels/elementwise/elementwise.h"
#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/math/element_types.h"

namespace nxrt::cpu::kernels {
namespace {

// What a CopyKernel is: Identity, or Dropout with its mask type and training inputs.
struct CopyOptions {
  bool dropout = false;            // Dropout: a mask output and the training inputs
  bool mask_is_bool = true;        // the mask's type: bool (opset >= 10) or the input's
  bool has_ratio = false;          // input 1 'ratio' is given (opset >= 12)
  bool has_training_mode = false;  // input 2 'training_mode' is given (opset >= 12)
};

class CopyKernel final : public Kernel {
 public:
  explicit CopyKernel(CopyOptions options) : options_(options) {}

  std::vector<int> ValueInputs() const override {
    std::vector<int> inputs;
    if (options_.has_ratio) inputs.push_back(1);
    if (options_.has_training_mode) inputs.push_back(2);
    return inputs;
  }

  Status Prepare(PrepareContext& ctx) override {
    type_ = ctx.input_dtype(0);
    if (options_.has_training_mode) NXRT_RETURN_IF_ERROR(CheckInference(ctx));
    NXRT_RETURN_IF_ERROR(ctx.SetOutput(0, type_, InputShape(ctx, 0)));
    if (options_.dropout && ctx.output_count() > 1) {
      mask_type_ = options_.mask_is_bool ? DataType::kBool : type_;
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
    Tensor* mask = options_.dropout && ctx.output_count() > 1 ? ctx.output(1) : nullptr;
    if (mask == nullptr) return Status::Ok();
    return math::DispatchType<math::NumericAndBoolTypes>(mask_type_, "Dropout", [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T one = math::ConvertElement<T>(true);
      T* values = mask->mutable_data<T>();
      for (int64_t i = 0; i < count; ++i) values[i] = one;
    });
  }

 private:
  // Dropout with training_mode true drops elements at random, unless the ratio is 0 (then it is a
  // copy with an all-true mask, like inference). Anything else is refused: the CPU EP does
  // inference only.
  static Status CheckInference(const PrepareContext& ctx) {
    NXRT_ASSIGN_OR_RETURN(const Tensor* mode, ctx.input_value(2));
    if (mode->dtype() != DataType::kBool || mode->element_count() != 1) {
      return MakeStatus(StatusCode::kInvalidArgument, "input 2 'training_mode' is ",
                        mode->Description(), ", expected a bool scalar");
    }
    if (!*mode->data<bool>()) return Status::Ok();
    double ratio = 0.5;
    if (ctx.has_input(1)) {
      NXRT_ASSIGN_OR_RETURN(const Tensor* value, ctx.input_value(1));
      if (value->element_count() != 1) {
        return MakeStatus(StatusCode::kInvalidArgument, "input 1 'ratio' is ",
                          value->Description(), ", expected a scalar");
      }
      NXRT_RETURN_IF_ERROR(
          math::DispatchType<math::FloatTypes>(value->dtype(), "Dropout", [&](auto tag) {
            using T = typename decltype(tag)::type;
            ratio = static_cast<double>(math::Load(*value->data<T>()));
          }));
    }
    if (ratio == 0) return Status::Ok();
    return MakeStatus(StatusCode::kUnsupported, "input 2 'training_mode' is true with ratio ",
                      ratio, "; the CPU EP runs Dropout in inference mode only (feed false, ",
                      "remove it, or use ratio 0)");
  }

  CopyOptions options_;
  DataType type_ = DataType::kUndefined;
  DataType mask_type_ = DataType::kUndefined;
};

}  // namespace

ep::KernelFactory IdentityFactory() {
  return [](const NodeInfo&) -> Result<std::unique_ptr<Kernel>> {
    return std::unique_ptr<Kernel>(std::make_unique<CopyKernel>(CopyOptions{}));
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
    CopyOptions options;
    options.dropout = true;
    options.mask_is_bool = mask_is_bool;
    options.has_ratio = node.has_input(1);
    options.has_training_mode = node.has_input(2);
    return std::unique_ptr<Kernel>(std::make_unique<CopyKernel>(options));
  };
}

}  // namespace nxrt::cpu::kernels
