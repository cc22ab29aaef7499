// ep/cpu/kernels/elementwise/binary.cpp: glue of the binary ops (Add ... PRelu) and the variadic
// ones (Max, Min, Sum, Mean) over math/binary.h.
//
// Layer: nxrt_ep_cpu (kernel glue). Prepare resolves the broadcast plan and cuts it into parts;
// Compute runs the plan's typed function on each part, in parallel for large outputs.
#include <memory>
#include <vector>

#include "ep/cpu/kernels/elementwise/elementwise.h"
#include "ep/cpu/kernels/kernel_util.h"

namespace nxrt::cpu::kernels {
namespace {

class BinaryKernel final : public Kernel {
 public:
  BinaryKernel(math::BinaryKind kind, math::BinaryAttrs attrs) : kind_(kind), attrs_(attrs) {}

  Status Prepare(PrepareContext& ctx) override {
    a_type_ = ctx.input_dtype(0);
    b_type_ = ctx.input_dtype(1);
    NXRT_ASSIGN_OR_RETURN(plan_, math::PrepareBinary(kind_, a_type_, InputShape(ctx, 0), b_type_,
                                                     InputShape(ctx, 1), attrs_));
    parts_ = SplitBroadcast(plan_.geometry);
    return ctx.SetOutput(0, plan_.out_type, plan_.out_shape);
  }

  Status Compute(ComputeContext& ctx) override {
    const void* a = ctx.input(0)->raw_data();
    const void* b = ctx.input(1)->raw_data();
    void* out = ctx.output(0)->mutable_raw_data();
    ForEachPart(ctx, parts_, [&](const BroadcastPart& part) {
      plan_.fn(part.geometry, Advance(a, part.input_offsets[0], a_type_),
               Advance(b, part.input_offsets[1], b_type_),
               Advance(out, part.output_offset, plan_.out_type));
    });
    return Status::Ok();
  }

 private:
  math::BinaryKind kind_;
  math::BinaryAttrs attrs_;
  DataType a_type_ = DataType::kUndefined;
  DataType b_type_ = DataType::kUndefined;
  math::BinaryPlan plan_;
  std::vector<BroadcastPart> parts_;
};

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

ep::KernelFactory BinaryFactory(math::BinaryKind kind) {
  return [kind](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    math::BinaryAttrs attrs;
    if (kind == math::BinaryKind::kMod) {
      NXRT_ASSIGN_OR_RETURN(int64_t fmod, node.GetInt("fmod", 0));
      if (fmod != 0 && fmod != 1) {
        return node.Error(StatusCode::kInvalidModel, "attribute 'fmod' is ", fmod,
                          ", expected 0 or 1");
      }
      attrs.fmod = fmod == 1;
    }
    if (kind == math::BinaryKind::kBitShift) {
      NXRT_ASSIGN_OR_RETURN(std::string direction, node.GetString("direction"));
      if (direction != "LEFT" && direction != "RIGHT") {
        return node.Error(StatusCode::kInvalidModel, "attribute 'direction' is '", direction,
                          "', expected 'LEFT' or 'RIGHT'");
      }
      attrs.shift_left = direction == "LEFT";
    }
    return std::unique_ptr<Kernel>(std::make_unique<BinaryKernel>(kind, attrs));
  };
}

ep::KernelFactory VariadicFactory(math::VariadicKind kind) {
  return [kind](const NodeInfo&) -> Result<std::unique_ptr<Kernel>> {
    return std::unique_ptr<Kernel>(std::make_unique<VariadicKernel>(kind));
  };
}

}  // namespace nxrt::cpu::kernels
