// ep/cpu/kernels/tensor/pad.cpp: glue of Pad over math/tensor/pad.h.
//
// Layer: nxrt_ep_cpu (kernel glue). Opsets 1-10 read the pads (`paddings` at opset 1, `pads`
// at 2) and the float `value` from attributes; from opset 11 the pads are value input 1, the
// constant is the optional input 2 and, from opset 18, the padded axes are value input 3.
// `mode` is constant, reflect or edge, and wrap from opset 19.
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/tensor/tensor.h"
#include "ep/cpu/math/nn_common.h"
#include "ep/cpu/math/tensor/pad.h"

namespace nxrt::cpu::kernels {
namespace {

class PadKernel final : public Kernel {
 public:
  // `pads_attribute` and `value` are the opset 1-10 form's; `from_inputs` selects opset 11+.
  PadKernel(nn::PadMode mode, bool from_inputs, bool axes_input,
            std::vector<int64_t> pads_attribute, float value)
      : mode_(mode),
        from_inputs_(from_inputs),
        axes_input_(axes_input),
        pads_attribute_(std::move(pads_attribute)),
        value_(value) {}

  std::vector<int> ValueInputs() const override {
    if (!from_inputs_) return {};
    return axes_input_ ? std::vector<int>{1, 3} : std::vector<int>{1};
  }

  Status Prepare(PrepareContext& ctx) override {
    const DataType dtype = ctx.input_dtype(0);
    std::vector<int64_t> pads = pads_attribute_;
    std::vector<int64_t> axes;
    if (from_inputs_) {
      NXRT_ASSIGN_OR_RETURN(pads, ReadInt64s(ctx, 1, "input 1 'pads'"));
      if (axes_input_ && HasInput(ctx, 3)) {
        NXRT_ASSIGN_OR_RETURN(axes, ReadInt64s(ctx, 3, "input 3 'axes'"));
      }
      constant_input_ = HasInput(ctx, 2);
      if (constant_input_ && nn::Product(ctx.input_shape(2)) != 1) {
        return MakeStatus(StatusCode::kInvalidArgument, "input 2 'constant_value' has shape ",
                          ShapeToString(ctx.input_shape(2)), ", expected one element");
      }
    } else {
      NXRT_RETURN_IF_ERROR(StoreConstant(dtype));
    }
    NXRT_ASSIGN_OR_RETURN(plan_, nn::PreparePad(dtype, ctx.input_shape(0), pads, axes, mode_));
    return ctx.SetOutput(0, plan_.dtype, plan_.output_shape);
  }

  Status Compute(ComputeContext& ctx) override {
    const void* constant = from_inputs_ ? (constant_input_ ? ctx.input(2)->raw_data() : nullptr)
                                        : static_cast<const void*>(constant_);
    return nn::Pad(plan_, ctx.input(0)->raw_data(), constant, ctx.output(0)->mutable_raw_data());
  }

 private:
  // Converts the float `value` attribute to `dtype` (the opset 1-10 schemas allow float types).
  Status StoreConstant(DataType dtype) {
    return math::DispatchType<math::FloatTypesBf16>(dtype, "Pad", [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T element = nn::FromAcc<T>(value_);
      std::memcpy(constant_, &element, sizeof element);
      return Status::Ok();
    });
  }

  nn::PadMode mode_;
  bool from_inputs_;
  bool axes_input_;
  std::vector<int64_t> pads_attribute_;
  float value_;
  bool constant_input_ = false;
  alignas(16) unsigned char constant_[16] = {};
  nn::PadPlan plan_;
};

}  // namespace

ep::KernelFactory PadFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(std::string text, node.GetString("mode", "constant"));
    Result<nn::PadMode> mode = nn::ParsePadMode(text);
    NXRT_RETURN_IF_ERROR(AttributeError(node, "mode", text, mode.status()));
    if (*mode == nn::PadMode::kWrap && node.opset() < 19) {
      return node.Error(StatusCode::kInvalidModel, "attribute 'mode' is 'wrap', which needs "
                        "opset 19 (the node has opset ", node.opset(), ")");
    }
    const bool from_inputs = node.opset() >= 11;
    std::vector<int64_t> pads;
    float value = 0.0f;
    if (!from_inputs) {
      NXRT_ASSIGN_OR_RETURN(pads, node.GetInts(node.opset() < 2 ? "paddings" : "pads"));
      NXRT_ASSIGN_OR_RETURN(value, node.GetFloat("value", 0.0f));
    }
    return std::unique_ptr<Kernel>(std::make_unique<PadKernel>(
        *mode, from_inputs, node.opset() >= 18, std::move(pads), value));
  };
}

}  // namespace nxrt::cpu::kernels
