// ep/cpu/kernels/normalization/cumsum.cpp: glue of CumSum (math/normalization/cumsum.h).
//
// Layer: nxrt_ep_cpu (kernel glue). The axis is input 1, read as a value input in Prepare (it
// decides the plan's geometry); Compute runs the plan over blocks of outer rows in parallel.
#include <algorithm>
#include <memory>
#include <vector>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/normalization/normalization.h"
#include "ep/cpu/math/normalization/cumsum.h"

namespace nxrt::cpu::kernels {
namespace {

class CumSumKernel final : public Kernel {
 public:
  explicit CumSumKernel(math::CumSumAttrs attrs) : attrs_(attrs) {}

  std::vector<int> ValueInputs() const override { return {1}; }

  Status Prepare(PrepareContext& ctx) override {
    type_ = ctx.input_dtype(0);
    NXRT_ASSIGN_OR_RETURN(std::vector<int64_t> axis, ReadInt64s(ctx, 1, "input 1 'axis'"));
    if (axis.size() != 1) {
      return MakeStatus(StatusCode::kInvalidArgument, "input 1 'axis' has ", axis.size(),
                        " elements, expected one");
    }
    const Shape shape = InputShape(ctx, 0);
    NXRT_ASSIGN_OR_RETURN(plan_, math::PrepareCumSum(type_, shape, axis[0], attrs_));
    return ctx.SetOutput(0, type_, shape);
  }

  Status Compute(ComputeContext& ctx) override {
    const void* in = ctx.input(0)->raw_data();
    void* out = ctx.output(0)->mutable_raw_data();
    const int64_t block = plan_.axis_dim * plan_.inner;
    const int64_t min_rows = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(block, 1));
    ctx.ParallelFor(plan_.outer, min_rows, [&](int64_t begin, int64_t end) {
      plan_.fn(end - begin, plan_.axis_dim, plan_.inner, plan_.attrs,
               Advance(in, begin * block, type_), Advance(out, begin * block, type_));
    });
    return Status::Ok();
  }

 private:
  math::CumSumAttrs attrs_;
  DataType type_ = DataType::kUndefined;
  math::CumSumPlan plan_;
};

}  // namespace

ep::KernelFactory CumSumFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    math::CumSumAttrs attrs;
    NXRT_ASSIGN_OR_RETURN(int64_t exclusive, node.GetInt("exclusive", 0));
    NXRT_ASSIGN_OR_RETURN(int64_t reverse, node.GetInt("reverse", 0));
    attrs.exclusive = exclusive != 0;
    attrs.reverse = reverse != 0;
    return std::unique_ptr<Kernel>(std::make_unique<CumSumKernel>(attrs));
  };
}

}  // namespace nxrt::cpu::kernels
