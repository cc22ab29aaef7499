// ep/cpu/kernels/tensor/slice.cpp: glue of Slice over math/tensor/slice.h.
//
// Layer: nxrt_ep_cpu (kernel glue). Opset 1 reads starts, ends and axes from attributes; from
// opset 10 they are value inputs 1-3, with steps as input 4 (omitted axes and steps take the
// defaults: every axis in order, step 1).
#include <memory>
#include <utility>
#include <vector>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/tensor/tensor.h"
#include "ep/cpu/math/tensor/slice.h"

namespace nxrt::cpu::kernels {
namespace {

// What Slice's attributes or value inputs resolve to.
struct SliceParams {
  std::vector<int64_t> starts;
  std::vector<int64_t> ends;
  std::vector<int64_t> axes;
  std::vector<int64_t> steps;
};

class SliceKernel final : public Kernel {
 public:
  // `attributes`: the opset-1 form's parameters; ignored when `from_inputs`.
  SliceKernel(bool from_inputs, SliceParams attributes)
      : from_inputs_(from_inputs), attributes_(std::move(attributes)) {}

  std::vector<int> ValueInputs() const override {
    return from_inputs_ ? std::vector<int>{1, 2, 3, 4} : std::vector<int>{};
  }

  Status Prepare(PrepareContext& ctx) override {
    SliceParams params = attributes_;
    if (from_inputs_) {
      NXRT_ASSIGN_OR_RETURN(params.starts, ReadInt64s(ctx, 1, "input 1 'starts'"));
      NXRT_ASSIGN_OR_RETURN(params.ends, ReadInt64s(ctx, 2, "input 2 'ends'"));
      if (HasInput(ctx, 3)) {
        NXRT_ASSIGN_OR_RETURN(params.axes, ReadInt64s(ctx, 3, "input 3 'axes'"));
      }
      if (HasInput(ctx, 4)) {
        NXRT_ASSIGN_OR_RETURN(params.steps, ReadInt64s(ctx, 4, "input 4 'steps'"));
      }
    }
    NXRT_ASSIGN_OR_RETURN(plan_, nn::PrepareSlice(ctx.input_dtype(0), ctx.input_shape(0),
                                                  params.starts, params.ends, params.axes,
                                                  params.steps));
    return ctx.SetOutput(0, plan_.dtype, plan_.output_shape);
  }

  Status Compute(ComputeContext& ctx) override {
    return nn::Slice(plan_, ctx.input(0)->raw_data(), ctx.output(0)->mutable_raw_data());
  }

 private:
  bool from_inputs_;
  SliceParams attributes_;
  nn::SlicePlan plan_;
};

}  // namespace

ep::KernelFactory SliceFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    SliceParams attributes;
    const bool from_inputs = node.opset() >= 10;
    if (!from_inputs) {
      NXRT_ASSIGN_OR_RETURN(attributes.starts, node.GetInts("starts"));
      NXRT_ASSIGN_OR_RETURN(attributes.ends, node.GetInts("ends"));
      NXRT_ASSIGN_OR_RETURN(attributes.axes, node.GetInts("axes", {}));
    }
    return std::unique_ptr<Kernel>(std::make_unique<SliceKernel>(from_inputs,
                                                                 std::move(attributes)));
  };
}

}  // namespace nxrt::cpu::kernels
