// ep/cpu/kernels/quant/quant_linear.cpp: glue of MatMulInteger, QLinearMatMul, ConvInteger and
// QLinearConv over math/quant/quant.h.
//
// Layer: nxrt_ep_cpu (kernel glue). Input slots (ONNX onnx/defs/math/defs.cc, nn/defs.cc):
//   MatMulInteger  A, B, a_zero_point?, b_zero_point?                        → int32
//   QLinearMatMul  a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point
//   ConvInteger    x, w, x_zero_point?, w_zero_point?                        → int32
//   QLinearConv    x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, B?
#include <memory>
#include <string>
#include <utility>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/quant/quant.h"
#include "ep/cpu/math/quant/quant.h"

namespace nxrt::cpu::kernels {
namespace {

// Slots of one operator's inputs; -1 for an input it does not have.
struct Slots {
  int a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point, bias;
};
constexpr Slots kIntegerSlots{0, -1, 2, 1, -1, 3, -1, -1, -1};
constexpr Slots kQLinearSlots{0, 1, 2, 3, 4, 5, 6, 7, 8};


// The shape of the per-row/column parameters of an operand: its zero point's, else its scale's.
Shape ParamShape(const PrepareContext& ctx, int zero_point, int scale) {
  if (HasInput(ctx, zero_point)) return InputShape(ctx, zero_point);
  if (HasInput(ctx, scale)) return InputShape(ctx, scale);
  return {};
}

const void* Data(const ComputeContext& ctx, int i) {
  if (i < 0 || i >= ctx.input_count() || ctx.input(i) == nullptr) return nullptr;
  return ctx.input(i)->raw_data();
}

nn::QuantOperands Operands(const ComputeContext& ctx, const Slots& s, DataType scale_dtype) {
  nn::QuantOperands q;
  q.a = Data(ctx, s.a);
  q.a_scale = Data(ctx, s.a_scale);
  q.a_zero_point = Data(ctx, s.a_zero_point);
  q.b = Data(ctx, s.b);
  q.b_scale = Data(ctx, s.b_scale);
  q.b_zero_point = Data(ctx, s.b_zero_point);
  q.y_scale = Data(ctx, s.y_scale);
  q.y_zero_point = Data(ctx, s.y_zero_point);
  q.bias = static_cast<const int32_t*>(Data(ctx, s.bias));
  q.scale_dtype = scale_dtype;
  return q;
}

// The run's threads and, when the second operand (B or W) is a constant initializer, its
// contents, which the plan converts and packs once.
nn::IntProductOptions ProductOptions(const PrepareContext& ctx, int b) {
  nn::IntProductOptions options;
  options.threads = ctx.thread_count();
  Result<const Tensor*> constant = ctx.input_value(b);
  if (constant.ok()) options.constant_b = (*constant)->raw_data();
  return options;
}

// The output type of a QLinear* op: its y_zero_point's.
DataType QLinearOutputType(const PrepareContext& ctx, const Slots& s) {
  return s.y_zero_point >= 0 ? ctx.input_dtype(s.y_zero_point) : DataType::kInt32;
}

class IntMatMulKernel final : public Kernel {
 public:
  IntMatMulKernel(std::string op, Slots slots) : op_(std::move(op)), slots_(slots) {}

  Status Prepare(PrepareContext& ctx) override {
    NXRT_ASSIGN_OR_RETURN(
        plan_, nn::PrepareIntMatMul(op_, ctx.input_dtype(slots_.a), ctx.input_dtype(slots_.b),
                                    InputShape(ctx, slots_.a), InputShape(ctx, slots_.b),
                                    ParamShape(ctx, slots_.a_zero_point, slots_.a_scale),
                                    ParamShape(ctx, slots_.b_zero_point, slots_.b_scale),
                                    ProductOptions(ctx, slots_.b)));
    plan_.y_dtype = QLinearOutputType(ctx, slots_);
    if (slots_.y_scale >= 0) {
      scale_dtype_ = ctx.input_dtype(slots_.y_scale);
      int64_t y_params = 1;
      for (int64_t d : InputShape(ctx, slots_.y_scale)) y_params *= d;
      if (y_params != 1 && y_params != plan_.n) {
        return MakeStatus(StatusCode::kInvalidArgument, "input ", slots_.y_scale,
                          " 'y_scale' has ", y_params, " elements; expected 1 or N = ", plan_.n);
      }
      plan_.y_param_stride = y_params == 1 ? 0 : 1;
    }
    ctx.SetWorkspaceBytes(plan_.workspace_bytes);
    return ctx.SetOutput(0, plan_.y_dtype, plan_.output_shape);
  }

  Status Compute(ComputeContext& ctx) override {
    return nn::IntMatMul(plan_, Operands(ctx, slots_, scale_dtype_),
                         ctx.output(0)->mutable_raw_data(), ctx.workspace());
  }

 private:
  std::string op_;
  Slots slots_;
  DataType scale_dtype_ = DataType::kFloat;
  nn::IntMatMulPlan plan_;
};

class IntConvKernel final : public Kernel {
 public:
  IntConvKernel(std::string op, Slots slots, nn::IntConvAttributes attributes)
      : op_(std::move(op)), slots_(slots), attributes_(std::move(attributes)) {}

  Status Prepare(PrepareContext& ctx) override {
    if (HasInput(ctx, slots_.a_zero_point)) {
      int64_t count = 1;
      for (int64_t d : InputShape(ctx, slots_.a_zero_point)) count *= d;
      if (count != 1) {
        return MakeStatus(StatusCode::kInvalidArgument, "input ", slots_.a_zero_point,
                          " 'x_zero_point' has ", count,
                          " elements; x is quantized per tensor (one element)");
      }
    }
    NXRT_ASSIGN_OR_RETURN(
        plan_, nn::PrepareIntConv(op_, ctx.input_dtype(slots_.a), ctx.input_dtype(slots_.b),
                                  QLinearOutputType(ctx, slots_), InputShape(ctx, slots_.a),
                                  InputShape(ctx, slots_.b),
                                  HasInput(ctx, slots_.b_zero_point)
                                      ? InputShape(ctx, slots_.b_zero_point)
                                      : Shape{},
                                  HasInput(ctx, slots_.b_scale) ? InputShape(ctx, slots_.b_scale)
                                                                : Shape{},
                                  attributes_, ProductOptions(ctx, slots_.b)));
    if (HasInput(ctx, slots_.bias)) {
      const Shape bias = InputShape(ctx, slots_.bias);
      if (bias.size() != 1 || bias[0] != plan_.out_channels) {
        return MakeStatus(StatusCode::kInvalidArgument, "input ", slots_.bias, " 'B' has shape ",
                          ShapeToString(bias), ", expected [", plan_.out_channels, "]");
      }
    }
    if (slots_.y_scale >= 0) scale_dtype_ = ctx.input_dtype(slots_.y_scale);
    ctx.SetWorkspaceBytes(plan_.workspace_bytes);
    return ctx.SetOutput(0, plan_.y_dtype, plan_.output_shape);
  }

  Status Compute(ComputeContext& ctx) override {
    return nn::IntConv(plan_, Operands(ctx, slots_, scale_dtype_),
                       ctx.output(0)->mutable_raw_data(), ctx.workspace());
  }

 private:
  std::string op_;
  Slots slots_;
  nn::IntConvAttributes attributes_;
  DataType scale_dtype_ = DataType::kFloat;
  nn::IntConvPlan plan_;
};

ep::KernelFactory QuantConvFactory(std::string op, Slots slots) {
  return [op, slots](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    nn::IntConvAttributes a;
    NXRT_ASSIGN_OR_RETURN(std::string auto_pad, node.GetString("auto_pad", "NOTSET"));
    Result<nn::AutoPad> parsed = nn::ParseAutoPad(auto_pad);
    if (!parsed.ok()) {
      return node.Error(StatusCode::kInvalidModel, "attribute 'auto_pad' is '", auto_pad,
                        "'; use NOTSET, SAME_UPPER, SAME_LOWER or VALID");
    }
    a.auto_pad = *parsed;
    NXRT_ASSIGN_OR_RETURN(a.kernel_shape, node.GetInts("kernel_shape", {}));
    NXRT_ASSIGN_OR_RETURN(a.strides, node.GetInts("strides", {}));
    NXRT_ASSIGN_OR_RETURN(a.dilations, node.GetInts("dilations", {}));
    NXRT_ASSIGN_OR_RETURN(a.pads, node.GetInts("pads", {}));
    NXRT_ASSIGN_OR_RETURN(a.group, node.GetInt("group", 1));
    if (a.group < 1) {
      return node.Error(StatusCode::kInvalidModel, "attribute 'group' is ", a.group,
                        ", expected a positive integer");
    }
    return std::unique_ptr<Kernel>(std::make_unique<IntConvKernel>(op, slots, std::move(a)));
  };
}

}  // namespace

ep::KernelFactory MatMulIntegerFactory() {
  return [](const NodeInfo&) -> Result<std::unique_ptr<Kernel>> {
    return std::unique_ptr<Kernel>(std::make_unique<IntMatMulKernel>("MatMulInteger",
                                                                     kIntegerSlots));
  };
}

ep::KernelFactory QLinearMatMulFactory() {
  return [](const NodeInfo&) -> Result<std::unique_ptr<Kernel>> {
    return std::unique_ptr<Kernel>(std::make_unique<IntMatMulKernel>("QLinearMatMul",
                                                                     kQLinearSlots));
  };
}

ep::KernelFactory ConvIntegerFactory() { return QuantConvFactory("ConvInteger", kIntegerSlots); }

ep::KernelFactory QLinearConvFactory() { return QuantConvFactory("QLinearConv", kQLinearSlots); }

}  // namespace nxrt::cpu::kernels
