// ep/cpu/kernels/elementwise/identity.cpp: glue of Identity and of Dropout in inference mode.
//
// Layer: nxrt_ep_cpu (kernel glue). The kernel API has no output aliasing yet, so both copy their
// input; Dropout's optional mask is all true. These are Dropout's opset 7-11 forms (no ratio or
// training_mode inputs); Dropout-12+ lives in the random family (kernels/random/dropout.cpp).
#include <cstring>
#include <memory>

#include "ep/cpu/kernels/elementwise/elementwise.h"
#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/math/element_types.h"

namespace nxrt::cpu::kernels {
namespace {

// What a CopyKernel is: Identity, or Dropout with its mask type.
struct CopyOptions {
  bool dropout = false;      // Dropout: a mask output
  bool mask_is_bool = true;  // the mask's type: bool (opset >= 10) or the input's
};

class CopyKernel final : public Kernel {
 public:
  explicit CopyKernel(CopyOptions options) : options_(options) {}

  Status Prepare(PrepareContext& ctx) override {
    type_ = ctx.input_dtype(0);
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
  return [mask_is_bool](const NodeInfo&) -> Result<std::unique_ptr<Kernel>> {
    CopyOptions options;
    options.dropout = true;
    options.mask_is_bool = mask_is_bool;
    return std::unique_ptr<Kernel>(std::make_unique<CopyKernel>(options));
  };
}

}  // namespace nxrt::cpu::kernels
