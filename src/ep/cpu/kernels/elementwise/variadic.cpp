// ep/cpu/kernels/elementwise/variadic.cpp: glue of the variadic ops (Max, Min, Sum, Mean) over
// math/elementwise/binary.h.
//
// Layer: nxrt_ep_cpu (kernel glue). Prepare checks that all inputs share one type and resolves the
// pairwise steps, each cut into parts; Compute runs the steps in order, each in parallel.
#include <memory>
#include <vector>

#include "ep/cpu/kernels/elementwise/elementwise.h"
#include "ep/cpu/kernels/kernel_util.h"

namespace nxrt::cpu::kernels {
namespace {

class VariadicKernel final : public Kernel {
 public:
  explicit VariadicKernel(math::VariadicKind kind) : kind_(kind) {}

  Status Prepare(PrepareContext& ctx) override {
    type_ = ctx.input_dtype(0);
    std::vector<Shape> shapes;
    for (int i = 0; i < ctx.input_count(); ++i) {
      if (!ctx.has_input(i)) {
        return MakeStatus(StatusCode::kInvalidModel, "input ", i, " is omitted; every input of a ",
                          "variadic op must be given");
      }
      if (ctx.input_dtype(i) != type_) {
        return MakeStatus(StatusCode::kInvalidArgument, "input ", i, " has type ",
                          DataTypeName(ctx.input_dtype(i)), " but input 0 has type ",
                          DataTypeName(type_), "; all inputs must have one type");
      }
      shapes.push_back(InputShape(ctx, i));
    }
    NXRT_ASSIGN_OR_RETURN(plan_, math::PrepareVariadic(kind_, type_, shapes));
    step_parts_.clear();
    for (const math::BinaryPlan& step : plan_.steps) {
      step_parts_.push_back(SplitBroadcast(step.geometry));
    }
    return ctx.SetOutput(0, type_, plan_.out_shape);
  }

  Status Compute(ComputeContext& ctx) override {
    void* out = ctx.output(0)->mutable_raw_data();
    const int64_t count = ctx.output(0)->element_count();
    const int inputs = ctx.input_count();
    if (plan_.steps.empty()) {
      const void* in = ctx.input(0)->raw_data();
      ParallelRanges(ctx, count, [&](int64_t begin, int64_t end) {
        CopyElements(type_, Advance(in, begin, type_), Advance(out, begin, type_), end - begin);
      });
    }
    // Step k combines the running result (input 0 for the first step) with input k + 1.
    for (size_t k = 0; k < plan_.steps.size(); ++k) {
      const void* a = k == 0 ? ctx.input(0)->raw_data() : out;
      const void* b = ctx.input(static_cast<int>(k) + 1)->raw_data();
      const math::BinaryPlan& step = plan_.steps[k];
      ForEachPart(ctx, step_parts_[k], [&](const BroadcastPart& part) {
        step.fn(part.geometry, Advance(a, part.input_offsets[0], type_),
                Advance(b, part.input_offsets[1], type_), Advance(out, part.output_offset, type_));
      });
    }
    if (plan_.finish != nullptr) {
      ParallelRanges(ctx, count, [&](int64_t begin, int64_t end) {
        plan_.finish(Advance(out, begin, type_), end - begin, inputs);
      });
    }
    return Status::Ok();
  }

 private:
  math::VariadicKind kind_;
  DataType type_ = DataType::kUndefined;
  math::VariadicPlan plan_;
  std::vector<std::vector<BroadcastPart>> step_parts_;
};

}  // namespace

ep::KernelFactory VariadicFactory(math::VariadicKind kind) {
  return [kind](const NodeInfo&) -> Result<std::unique_ptr<Kernel>> {
    return std::unique_ptr<Kernel>(std::make_unique<VariadicKernel>(kind));
  };
}

}  // namespace nxrt::cpu::kernels
