// ep/cpu/kernels/elementwise/where.cpp: glue of Where over math/elementwise/where.h.
//
// Layer: nxrt_ep_cpu (kernel glue). Prepare checks the condition's dtype and resolves the
// three-way broadcast; Compute copies the selected elements part by part.
#include <memory>
#include <vector>

#include "ep/cpu/kernels/elementwise/elementwise.h"
#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/math/elementwise/where.h"

namespace nxrt::cpu::kernels {
namespace {

class WhereKernel final : public Kernel {
 public:
  Status Prepare(PrepareContext& ctx) override {
    if (ctx.input_dtype(0) != DataType::kBool) {
      return MakeStatus(StatusCode::kInvalidArgument, "input 0 'condition' has type ",
                        DataTypeName(ctx.input_dtype(0)), ", expected bool");
    }
    NXRT_ASSIGN_OR_RETURN(plan_, math::PrepareWhere(InputShape(ctx, 0), ctx.input_dtype(1),
                                                    InputShape(ctx, 1), ctx.input_dtype(2),
                                                    InputShape(ctx, 2)));
    parts_ = SplitBroadcast(plan_.geometry);
    return ctx.SetOutput(0, plan_.type, plan_.out_shape);
  }

  Status Compute(ComputeContext& ctx) override {
    const bool* condition = ctx.input(0)->data<bool>();
    const void* x = ctx.input(1)->raw_data();
    const void* y = ctx.input(2)->raw_data();
    void* out = ctx.output(0)->mutable_raw_data();
    ForEachPart(ctx, parts_, [&](const BroadcastPart& part) {
      plan_.fn(part.geometry, condition + part.input_offsets[0],
               Advance(x, part.input_offsets[1], plan_.type),
               Advance(y, part.input_offsets[2], plan_.type),
               Advance(out, part.output_offset, plan_.type));
    });
    return Status::Ok();
  }

 private:
  math::WherePlan plan_;
  std::vector<BroadcastPart> parts_;
};

}  // namespace

ep::KernelFactory WhereFactory() {
  return [](const NodeInfo&) -> Result<std::unique_ptr<Kernel>> {
    return std::unique_ptr<Kernel>(std::make_unique<WhereKernel>());
  };
}

}  // namespace nxrt::cpu::kernels
