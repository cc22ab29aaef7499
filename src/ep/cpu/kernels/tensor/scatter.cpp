// ep/cpu/kernels/tensor/scatter.cpp: glue of ScatterElements (and the legacy Scatter) and
// ScatterND over math/tensor/scatter.h.
//
// Layer: nxrt_ep_cpu (kernel glue). The output starts as a copy of the data; the updates land at
// the indexed places, replacing (reduction none) or combining (add/mul from opset 16, max/min
// from opset 18). Indices out of range are found in Compute and reported as kRuntimeError.
#include <memory>
#include <string>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/tensor/tensor.h"
#include "ep/cpu/math/tensor/scatter.h"

namespace nxrt::cpu::kernels {
namespace {

class ScatterKernel final : public Kernel {
 public:
  // `elements`: ScatterElements/Scatter (with `axis`) rather than ScatterND.
  ScatterKernel(bool elements, int64_t axis, nn::ScatterReduction reduction)
      : elements_(elements), axis_(axis), reduction_(reduction) {}

  Status Prepare(PrepareContext& ctx) override {
    const DataType dtype = ctx.input_dtype(0);
    if (elements_) {
      NXRT_ASSIGN_OR_RETURN(elements_plan_, nn::PrepareScatterElements(
                                                dtype, ctx.input_shape(0), ctx.input_dtype(1),
                                                ctx.input_shape(1), ctx.input_shape(2), axis_,
                                                reduction_));
    } else {
      NXRT_ASSIGN_OR_RETURN(nd_plan_, nn::PrepareScatterND(dtype, ctx.input_shape(0),
                                                           ctx.input_dtype(1), ctx.input_shape(1),
                                                           ctx.input_shape(2), reduction_));
    }
    return ctx.SetOutput(0, dtype, InputShape(ctx, 0));
  }

  Status Compute(ComputeContext& ctx) override {
    const void* data = ctx.input(0)->raw_data();
    const void* indices = ctx.input(1)->raw_data();
    const void* updates = ctx.input(2)->raw_data();
    void* out = ctx.output(0)->mutable_raw_data();
    if (elements_) {
      return AsRuntimeError(nn::ScatterElements(elements_plan_, data, indices, updates, out));
    }
    return AsRuntimeError(nn::ScatterND(nd_plan_, data, indices, updates, out));
  }

 private:
  bool elements_;
  int64_t axis_;
  nn::ScatterReduction reduction_;
  nn::ScatterElementsPlan elements_plan_;
  nn::ScatterNDPlan nd_plan_;
};

// The `reduction` attribute: "none" before opset 16, add/mul from 16, max/min from 18.
Result<nn::ScatterReduction> Reduction(const NodeInfo& node) {
  if (node.opset() < 16) return nn::ScatterReduction::kNone;
  NXRT_ASSIGN_OR_RETURN(std::string text, node.GetString("reduction", "none"));
  Result<nn::ScatterReduction> reduction = nn::ParseScatterReduction(text);
  NXRT_RETURN_IF_ERROR(AttributeError(node, "reduction", text, reduction.status()));
  if ((*reduction == nn::ScatterReduction::kMax || *reduction == nn::ScatterReduction::kMin) &&
      node.opset() < 18) {
    return node.Error(StatusCode::kInvalidModel, "attribute 'reduction' is '", text,
                      "', which needs opset 18 (the node has opset ", node.opset(), ")");
  }
  return reduction;
}

}  // namespace

ep::KernelFactory ScatterElementsFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(int64_t axis, node.GetInt("axis", 0));
    NXRT_ASSIGN_OR_RETURN(nn::ScatterReduction reduction, Reduction(node));
    return std::unique_ptr<Kernel>(std::make_unique<ScatterKernel>(true, axis, reduction));
  };
}

ep::KernelFactory ScatterNDFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(nn::ScatterReduction reduction, Reduction(node));
    return std::unique_ptr<Kernel>(std::make_unique<ScatterKernel>(false, 0, reduction));
  };
}

}  // namespace nxrt::cpu::kernels
