// ep/cpu/kernels/tensor/select.cpp: glue of Trilu, Compress, ReverseSequence and OneHot over
// math/tensor/select.h.
//
// Layer: nxrt_ep_cpu (kernel glue). Trilu reads `k` (optional input 1) and OneHot its depth
// (input 1) as value inputs; Compress's output size depends on the condition's values, so its
// output is dynamic and allocated in Compute. Data-dependent failures (a sequence length out of
// range) are kRuntimeError.
#include <memory>
#include <vector>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/tensor/tensor.h"
#include "ep/cpu/math/nn_common.h"
#include "ep/cpu/math/tensor/select.h"

namespace nxrt::cpu::kernels {
namespace {

class TriluKernel final : public Kernel {
 public:
  explicit TriluKernel(bool upper) : upper_(upper) {}

  std::vector<int> ValueInputs() const override { return {1}; }

  Status Prepare(PrepareContext& ctx) override {
    int64_t k = 0;
    if (HasInput(ctx, 1)) {
      NXRT_ASSIGN_OR_RETURN(std::vector<int64_t> values, ReadInt64s(ctx, 1, "input 1 'k'"));
      if (values.size() != 1) {
        return MakeStatus(StatusCode::kInvalidArgument, "input 1 'k' has ", values.size(),
                          " elements, expected one (a scalar)");
      }
      k = values[0];
    }
    NXRT_ASSIGN_OR_RETURN(plan_, nn::PrepareTrilu(ctx.input_dtype(0), ctx.input_shape(0), k,
                                                  upper_));
    return ctx.SetOutput(0, plan_.dtype, InputShape(ctx, 0));
  }

  Status Compute(ComputeContext& ctx) override {
    nn::Trilu(plan_, ctx.input(0)->raw_data(), ctx.output(0)->mutable_raw_data());
    return Status::Ok();
  }

 private:
  bool upper_;
  nn::TriluPlan plan_;
};

class CompressKernel final : public Kernel {
 public:
  CompressKernel(bool has_axis, int64_t axis) : has_axis_(has_axis), axis_(axis) {}

  Status Prepare(PrepareContext& ctx) override {
    NXRT_ASSIGN_OR_RETURN(plan_, nn::PrepareCompress(ctx.input_dtype(0), ctx.input_shape(0),
                                                     ctx.input_shape(1), has_axis_, axis_));
    return ctx.SetOutputDynamic(0, plan_.dtype);
  }

  Status Compute(ComputeContext& ctx) override {
    const bool* condition = ctx.input(1)->data<bool>();
    NXRT_ASSIGN_OR_RETURN(Tensor* out,
                          ctx.AllocateOutput(0, nn::CompressOutputShape(plan_, condition)));
    nn::Compress(plan_, ctx.input(0)->raw_data(), condition, out->mutable_raw_data());
    return Status::Ok();
  }

 private:
  bool has_axis_;
  int64_t axis_;
  nn::CompressPlan plan_;
};

class ReverseSequenceKernel final : public Kernel {
 public:
  ReverseSequenceKernel(int64_t batch_axis, int64_t time_axis)
      : batch_axis_(batch_axis), time_axis_(time_axis) {}

  Status Prepare(PrepareContext& ctx) override {
    NXRT_ASSIGN_OR_RETURN(plan_, nn::PrepareReverseSequence(ctx.input_dtype(0),
                                                            ctx.input_shape(0), ctx.input_shape(1),
                                                            batch_axis_, time_axis_));
    return ctx.SetOutput(0, plan_.dtype, InputShape(ctx, 0));
  }

  Status Compute(ComputeContext& ctx) override {
    return AsRuntimeError(nn::ReverseSequence(plan_, ctx.input(0)->raw_data(),
                                              ctx.input(1)->data<int64_t>(),
                                              ctx.output(0)->mutable_raw_data()));
  }

 private:
  int64_t batch_axis_;
  int64_t time_axis_;
  nn::ReverseSequencePlan plan_;
};

// OneHot's depth: a scalar or 1-element tensor of any numeric type, truncated to an integer.
Result<int64_t> ReadDepth(const PrepareContext& ctx) {
  NXRT_ASSIGN_OR_RETURN(const Tensor* depth, ctx.input_value(1));
  if (depth->element_count() != 1) {
    return MakeStatus(StatusCode::kInvalidArgument, "input 1 'depth' has shape ",
                      ShapeToString(depth->shape()), ", expected a scalar or one element");
  }
  int64_t value = 0;
  NXRT_RETURN_IF_ERROR(
      math::DispatchType<math::NumericTypesBf16>(depth->dtype(), "OneHot depth", [&](auto tag) {
        using T = typename decltype(tag)::type;
        value = static_cast<int64_t>(nn::ToAcc(depth->data<T>()[0]));
        return Status::Ok();
      }));
  return value;
}

class OneHotKernel final : public Kernel {
 public:
  OneHotKernel(int64_t axis, bool negative_indices)
      : axis_(axis), negative_indices_(negative_indices) {}

  std::vector<int> ValueInputs() const override { return {1}; }

  Status Prepare(PrepareContext& ctx) override {
    NXRT_ASSIGN_OR_RETURN(const int64_t depth, ReadDepth(ctx));
    const auto values = ctx.input_shape(2);
    if (nn::Product(values) != 2 || values.size() != 1) {
      return MakeStatus(StatusCode::kInvalidArgument, "input 2 'values' has shape ",
                        ShapeToString(values), ", expected [2] (off value, on value)");
    }
    NXRT_ASSIGN_OR_RETURN(plan_, nn::PrepareOneHot(ctx.input_dtype(0), ctx.input_shape(0), depth,
                                                   ctx.input_dtype(2), axis_, negative_indices_));
    ctx.SetWorkspaceBytes(nn::OneHotScratchBytes(plan_));
    return ctx.SetOutput(0, plan_.dtype, plan_.output_shape);
  }

  Status Compute(ComputeContext& ctx) override {
    return AsRuntimeError(nn::OneHot(plan_, ctx.input(0)->raw_data(), ctx.input(2)->raw_data(),
                                     ctx.output(0)->mutable_raw_data(),
                                     reinterpret_cast<int64_t*>(ctx.workspace().data())));
  }

 private:
  int64_t axis_;
  bool negative_indices_;
  nn::OneHotPlan plan_;
};

}  // namespace

ep::KernelFactory TriluFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(const int64_t upper, node.GetInt("upper", 1));
    return std::unique_ptr<Kernel>(std::make_unique<TriluKernel>(upper != 0));
  };
}

ep::KernelFactory CompressFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    const bool has_axis = node.HasAttribute("axis");
    NXRT_ASSIGN_OR_RETURN(const int64_t axis, node.GetInt("axis", 0));
    return std::unique_ptr<Kernel>(std::make_unique<CompressKernel>(has_axis, axis));
  };
}

ep::KernelFactory ReverseSequenceFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(const int64_t batch_axis, node.GetInt("batch_axis", 1));
    NXRT_ASSIGN_OR_RETURN(const int64_t time_axis, node.GetInt("time_axis", 0));
    return std::unique_ptr<Kernel>(std::make_unique<ReverseSequenceKernel>(batch_axis, time_axis));
  };
}

ep::KernelFactory OneHotFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(const int64_t axis, node.GetInt("axis", -1));
    // Opset 11 made negative indices count from the end; at opset 9 they are out of range.
    return std::unique_ptr<Kernel>(
        std::make_unique<OneHotKernel>(axis, node.opset() >= 11));
  };
}

}  // namespace nxrt::cpu::kernels
