// ep/cpu/kernels/nn/rnn.cpp: glue of LSTM, GRU and RNN over math/nn/rnn.h.
//
// Layer: nxrt_ep_cpu (kernel glue). Inputs X, W, R, then the optional B, sequence_lens,
// initial_h (and LSTM's initial_c, P); outputs Y, Y_h (and LSTM's Y_c), each optional. The
// attributes are parsed once; Prepare checks the shapes, prepares the float products for the
// context's threads (packing constant W and R once) and asks for the recurrence's scratch memory
// as the kernel's workspace; Compute runs the steps in the bound buffers.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ep/cpu/kernels/constant_input.h"
#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/nn/nn.h"
#include "ep/cpu/kernels/tensor/tensor.h"

namespace nxrt::cpu::kernels {
namespace {

class RnnKernel final : public Kernel {
 public:
  explicit RnnKernel(nn::RnnAttributes attributes) : attributes_(std::move(attributes)) {}

  Status Prepare(PrepareContext& ctx) override {
    nn::RnnShapes shapes;
    shapes.x = InputShape(ctx, 0);
    shapes.w = InputShape(ctx, 1);
    shapes.r = InputShape(ctx, 2);
    shapes.b = Optional(ctx, 3);
    shapes.sequence_lens = Optional(ctx, 4);
    shapes.initial_h = Optional(ctx, 5);
    shapes.initial_c = Optional(ctx, 6);
    shapes.p = Optional(ctx, 7);
    nn::RnnOptions options;
    options.threads = ctx.thread_count();
    options.constant_w = ConstantData(ctx, 1);
    options.constant_r = ConstantData(ctx, 2);
    NXRT_ASSIGN_OR_RETURN(plan_,
                          nn::PrepareRnn(ctx.input_dtype(0), shapes, attributes_, options));
    const Shape* output_shapes[] = {&plan_.y_shape, &plan_.y_h_shape, &plan_.y_c_shape};
    for (int i = 0; i < ctx.output_count() && i < 3; ++i) {
      NXRT_RETURN_IF_ERROR(ctx.SetOutput(i, plan_.dtype, *output_shapes[i]));
    }
    ctx.SetWorkspaceBytes(plan_.workspace_bytes);
    return Status::Ok();
  }

  Status Compute(ComputeContext& ctx) override {
    nn::RnnInputs in;
    in.x = Data(ctx, 0);
    in.w = Data(ctx, 1);
    in.r = Data(ctx, 2);
    in.b = Data(ctx, 3);
    in.sequence_lens = static_cast<const int32_t*>(Data(ctx, 4));
    in.initial_h = Data(ctx, 5);
    in.initial_c = Data(ctx, 6);
    in.p = Data(ctx, 7);
    nn::RnnOutputs out;
    out.y = Output(ctx, 0);
    out.y_h = Output(ctx, 1);
    out.y_c = Output(ctx, 2);
    return AsRuntimeError(nn::Rnn(plan_, in, out, ctx.workspace().data()));
  }

 private:
  // The shape of optional input `i`, or nullopt when it is omitted.
  static std::optional<Shape> Optional(const PrepareContext& ctx, int i) {
    if (!HasInput(ctx, i)) return std::nullopt;
    return InputShape(ctx, i);
  }
  static const void* Data(const ComputeContext& ctx, int i) {
    const Tensor* t = i < ctx.input_count() ? ctx.input(i) : nullptr;
    return t != nullptr ? t->raw_data() : nullptr;
  }
  static void* Output(ComputeContext& ctx, int i) {
    Tensor* t = i < ctx.output_count() ? ctx.output(i) : nullptr;
    return t != nullptr ? t->mutable_raw_data() : nullptr;
  }

  nn::RnnAttributes attributes_;
  nn::RnnPlan plan_;
};

Result<nn::RnnAttributes> Attributes(nn::RnnCell cell, const NodeInfo& node) {
  nn::RnnAttributes a;
  a.cell = cell;
  NXRT_ASSIGN_OR_RETURN(std::string direction, node.GetString("direction", "forward"));
  Result<nn::RnnDirection> parsed = nn::ParseRnnDirection(direction);
  NXRT_RETURN_IF_ERROR(AttributeError(node, "direction", direction, parsed.status()));
  a.direction = *parsed;
  NXRT_ASSIGN_OR_RETURN(a.hidden_size, node.GetInt("hidden_size", 0));
  if (a.hidden_size < 0) {
    return node.Error(StatusCode::kInvalidModel, "attribute 'hidden_size' is ", a.hidden_size,
                      ", expected a positive integer");
  }
  std::vector<std::string> names;
  if (node.HasAttribute("activations")) {
    NXRT_ASSIGN_OR_RETURN(names, node.GetStrings("activations"));
  }
  NXRT_ASSIGN_OR_RETURN(std::vector<float> alphas, node.GetFloats("activation_alpha", {}));
  NXRT_ASSIGN_OR_RETURN(std::vector<float> betas, node.GetFloats("activation_beta", {}));
  Result<std::vector<nn::RnnActivation>> activations =
      nn::ParseRnnActivations(names, alphas, betas);
  if (!activations.ok()) {
    return node.Error(StatusCode::kInvalidModel, "attribute 'activations': ",
                      activations.status().message());
  }
  a.activations = std::move(*activations);
  if (node.HasAttribute("clip")) {
    NXRT_ASSIGN_OR_RETURN(float clip, node.GetFloat("clip"));
    a.clip = clip;
  }
  if (node.opset() >= 14) {
    NXRT_ASSIGN_OR_RETURN(a.layout, node.GetInt("layout", 0));
  }
  if (cell == nn::RnnCell::kLstm) {
    NXRT_ASSIGN_OR_RETURN(int64_t input_forget, node.GetInt("input_forget", 0));
    a.input_forget = input_forget != 0;
  }
  if (cell == nn::RnnCell::kGru) {
    NXRT_ASSIGN_OR_RETURN(int64_t linear_before_reset, node.GetInt("linear_before_reset", 0));
    a.linear_before_reset = linear_before_reset != 0;
  }
  return a;
}

}  // namespace

ep::KernelFactory RnnFactory(nn::RnnCell cell) {
  return [cell](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(nn::RnnAttributes attributes, Attributes(cell, node));
    return std::unique_ptr<Kernel>(std::make_unique<RnnKernel>(std::move(attributes)));
  };
}

}  // namespace nxrt::cpu::kernels
