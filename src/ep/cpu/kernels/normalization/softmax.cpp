// ep/cpu/kernels/normalization/softmax.cpp: glue of Softmax, LogSoftmax and Hardmax in both
// ONNX axis semantics (math/normalization/softmax.h).
//
// Layer: nxrt_ep_cpu (kernel glue). The table picks the semantics per opset range; Prepare
// resolves the plan; Compute runs it over blocks of outer rows in parallel.
#include <algorithm>
#include <memory>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/normalization/normalization.h"

namespace nxrt::cpu::kernels {
namespace {

class SoftmaxKernel final : public Kernel {
 public:
  SoftmaxKernel(math::SoftmaxKind kind, math::SoftmaxAxisMode mode, int64_t axis)
      : kind_(kind), mode_(mode), axis_(axis) {}

  Status Prepare(PrepareContext& ctx) override {
    type_ = ctx.input_dtype(0);
    const Shape shape = InputShape(ctx, 0);
    NXRT_ASSIGN_OR_RETURN(plan_, math::PrepareSoftmax(kind_, type_, shape, axis_, mode_));
    return ctx.SetOutput(0, type_, shape);
  }

  Status Compute(ComputeContext& ctx) override {
    const void* in = ctx.input(0)->raw_data();
    void* out = ctx.output(0)->mutable_raw_data();
    const int64_t block = plan_.axis_dim * plan_.inner;
    // Hardmax reads and writes each element once with a compare between; Softmax and LogSoftmax
    // take an exponential per element.
    const double element_ns = kind_ == math::SoftmaxKind::kHardmax ? kStreamNsPerElement
                                                                   : kArithmeticNsPerElement;
    const int64_t min_rows = MinItemsPerPart(static_cast<double>(block) * element_ns);
    ctx.ParallelFor(plan_.outer, min_rows, [&](int64_t begin, int64_t end) {
      plan_.fn(kind_, end - begin, plan_.axis_dim, plan_.inner,
               Advance(in, begin * block, type_), Advance(out, begin * block, type_));
    });
    return Status::Ok();
  }

 private:
  math::SoftmaxKind kind_;
  math::SoftmaxAxisMode mode_;
  int64_t axis_;
  DataType type_ = DataType::kUndefined;
  math::SoftmaxPlan plan_;
};

}  // namespace

ep::KernelFactory SoftmaxFactory(math::SoftmaxKind kind, math::SoftmaxAxisMode mode) {
  return [kind, mode](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    const int64_t default_axis = mode == math::SoftmaxAxisMode::kSingleAxis ? -1 : 1;
    NXRT_ASSIGN_OR_RETURN(int64_t axis, node.GetInt("axis", default_axis));
    return std::unique_ptr<Kernel>(std::make_unique<SoftmaxKernel>(kind, mode, axis));
  };
}

}  // namespace nxrt::cpu::kernels
