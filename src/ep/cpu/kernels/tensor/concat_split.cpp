// ep/cpu/kernels/tensor/concat_split.cpp: glue of Concat and Split over math/tensor/concat_split.h.
//
// Layer: nxrt_ep_cpu (kernel glue). Concat's axis is an attribute at every opset. Split's sizes
// moved from an attribute (opsets 2-12) to input 1 (opset 13; opset 1 had both), and opset 18
// added `num_outputs`, whose parts may leave a smaller last one.
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/tensor/tensor.h"
#include "ep/cpu/math/tensor/concat_split.h"

namespace nxrt::cpu::kernels {
namespace {

class ConcatKernel final : public Kernel {
 public:
  explicit ConcatKernel(int64_t axis) : axis_(axis) {}

  Status Prepare(PrepareContext& ctx) override {
    std::vector<Shape> shapes;
    for (int i = 0; i < ctx.input_count(); ++i) shapes.push_back(InputShape(ctx, i));
    NXRT_ASSIGN_OR_RETURN(plan_, nn::PrepareConcat(ctx.input_dtype(0), shapes, axis_));
    inputs_.assign(shapes.size(), nullptr);
    return ctx.SetOutput(0, plan_.dtype, plan_.output_shape);
  }

  Status Compute(ComputeContext& ctx) override {
    for (size_t i = 0; i < inputs_.size(); ++i) {
      inputs_[i] = ctx.input(static_cast<int>(i))->raw_data();
    }
    return nn::Concat(plan_, inputs_, ctx.output(0)->mutable_raw_data());
  }

 private:
  int64_t axis_;
  nn::ConcatPlan plan_;
  std::vector<const void*> inputs_;
};

class SplitKernel final : public Kernel {
 public:
  // `split_attribute`: the sizes of the attribute form (nullopt when absent); `split_input`:
  // input 1 may hold the sizes; `num_outputs`: opset 18's attribute (0 when absent).
  SplitKernel(int64_t axis, std::optional<std::vector<int64_t>> split_attribute, bool split_input,
              int64_t num_outputs)
      : axis_(axis),
        split_attribute_(std::move(split_attribute)),
        split_input_(split_input),
        num_outputs_(num_outputs) {}

  std::vector<int> ValueInputs() const override {
    return split_input_ ? std::vector<int>{1} : std::vector<int>{};
  }

  Status Prepare(PrepareContext& ctx) override {
    std::vector<int64_t> split = split_attribute_.value_or(std::vector<int64_t>{});
    if (split_input_ && HasInput(ctx, 1)) {
      NXRT_ASSIGN_OR_RETURN(split, ReadInt64s(ctx, 1, "input 1 'split'"));
    }
    if (num_outputs_ > 0 && !split.empty()) {
      return MakeStatus(StatusCode::kInvalidArgument, "input 1 'split' and attribute "
                        "'num_outputs' are both given; give one");
    }
    if (num_outputs_ > 0 && num_outputs_ != ctx.output_count()) {
      return MakeStatus(StatusCode::kInvalidArgument, "attribute 'num_outputs' is ", num_outputs_,
                        " but the node has ", ctx.output_count(), " outputs");
    }
    NXRT_ASSIGN_OR_RETURN(plan_, nn::PrepareSplit(ctx.input_dtype(0), ctx.input_shape(0), axis_,
                                                  split, ctx.output_count(), num_outputs_ > 0));
    for (int i = 0; i < ctx.output_count(); ++i) {
      NXRT_RETURN_IF_ERROR(ctx.SetOutput(i, plan_.dtype, plan_.output_shapes[i]));
    }
    outputs_.assign(plan_.output_shapes.size(), nullptr);
    return Status::Ok();
  }

  Status Compute(ComputeContext& ctx) override {
    for (size_t i = 0; i < outputs_.size(); ++i) {
      Tensor* out = ctx.output(static_cast<int>(i));  // nullptr for an omitted output
      outputs_[i] = out != nullptr ? out->mutable_raw_data() : nullptr;
    }
    return nn::Split(plan_, ctx.input(0)->raw_data(), outputs_);
  }

 private:
  int64_t axis_;
  std::optional<std::vector<int64_t>> split_attribute_;
  bool split_input_;
  int64_t num_outputs_;
  nn::SplitPlan plan_;
  std::vector<void*> outputs_;
};

}  // namespace

ep::KernelFactory ConcatFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    Result<int64_t> axis = node.opset() < 4 ? node.GetInt("axis", 1) : node.GetInt("axis");
    NXRT_RETURN_IF_ERROR(axis.status());
    return std::unique_ptr<Kernel>(std::make_unique<ConcatKernel>(*axis));
  };
}

ep::KernelFactory SplitFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(int64_t axis, node.GetInt("axis", 0));
    std::optional<std::vector<int64_t>> split_attribute;
    if (node.opset() < 13 && node.HasAttribute("split")) {
      NXRT_ASSIGN_OR_RETURN(split_attribute, node.GetInts("split"));
    }
    const bool split_input = node.opset() == 1 || node.opset() >= 13;
    int64_t num_outputs = 0;
    if (node.opset() >= 18 && node.HasAttribute("num_outputs")) {
      NXRT_ASSIGN_OR_RETURN(num_outputs, node.GetInt("num_outputs"));
      if (num_outputs < 1) {
        return node.Error(StatusCode::kInvalidModel, "attribute 'num_outputs' is ", num_outputs,
                          ", expected a positive integer");
      }
    }
    return std::unique_ptr<Kernel>(std::make_unique<SplitKernel>(
        axis, std::move(split_attribute), split_input, num_outputs));
  };
}

}  // namespace nxrt::cpu::kernels
