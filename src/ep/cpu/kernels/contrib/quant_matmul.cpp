// ep/cpu/kernels/contrib/quant_matmul.cpp: glue of com.microsoft MatMulIntegerToFloat
// (A, B, a_scale, b_scale, a_zero_point?, b_zero_point?, bias?) and DynamicQuantizeMatMul
// (A float, B, b_scale, b_zero_point?, bias?) over math/contrib/quant_matmul.h.
//
// Layer: nxrt_ep_cpu (kernel glue). DynamicQuantizeMatMul quantizes A into the workspace with
// math/quant/quant.h's DynamicQuantizeLinear, the one owner of that computation. Rows of Y are
// spread over the thread pool.
#include <memory>
#include <optional>

#include "ep/cpu/kernels/contrib/contrib.h"
#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/math/contrib/quant_matmul.h"
#include "ep/cpu/math/quant/quant.h"

namespace nxrt::cpu::kernels {
namespace {

std::optional<int64_t> OptionalCount(const PrepareContext& ctx, int i) {
  if (i >= ctx.input_count() || !ctx.has_input(i)) return std::nullopt;
  int64_t n = 1;
  for (int64_t d : ctx.input_shape(i)) n *= d;
  return n;
}

const Tensor* OptionalInput(const ComputeContext& ctx, int i) {
  return i < ctx.input_count() ? ctx.input(i) : nullptr;
}

class IntegerToFloatKernel final : public Kernel {
 public:
  // `dynamic`: DynamicQuantizeMatMul (A float, quantized here); else MatMulIntegerToFloat.
  explicit IntegerToFloatKernel(bool dynamic) : dynamic_(dynamic) {}

  Status Prepare(PrepareContext& ctx) override {
    const int b_scale = dynamic_ ? 2 : 3, b_zp = dynamic_ ? 3 : 5, bias = dynamic_ ? 4 : 6;
    NXRT_ASSIGN_OR_RETURN(
        plan_, contrib::PrepareIntegerToFloat(
                   dynamic_ ? "DynamicQuantizeMatMul" : "MatMulIntegerToFloat",
                   dynamic_ ? DataType::kUint8 : ctx.input_dtype(0), ctx.input_dtype(1),
                   ctx.input_shape(0), ctx.input_shape(1),
                   dynamic_ ? 1 : *OptionalCount(ctx, 2), *OptionalCount(ctx, b_scale),
                   dynamic_ ? std::nullopt : OptionalCount(ctx, 4), OptionalCount(ctx, b_zp),
                   OptionalCount(ctx, bias)));
    if (dynamic_) ctx.SetWorkspaceBytes(static_cast<size_t>(plan_.rows * plan_.k));
    return ctx.SetOutput(0, DataType::kFloat, plan_.output_shape);
  }

  Status Compute(ComputeContext& ctx) override {
    contrib::IntegerToFloatOperands o;
    o.b = ctx.input(1)->raw_data();
    if (dynamic_) {
      auto* quantized = reinterpret_cast<uint8_t*>(ctx.workspace().data());
      uint8_t zero_point = 0;
      nn::DynamicQuantizeLinear(ctx.input(0)->data<float>(), plan_.rows * plan_.k, quantized,
                                &o.a_scale, &zero_point);
      o.a = quantized;
      o.a_zero_point = zero_point;
      o.b_scale = ctx.input(2)->data<float>();
    } else {
      o.a = ctx.input(0)->raw_data();
      o.a_scale = ctx.input(2)->data<float>()[0];
      o.b_scale = ctx.input(3)->data<float>();
      if (const Tensor* zp = OptionalInput(ctx, 4)) {
        o.a_zero_point =
            zp->dtype() == DataType::kInt8 ? zp->data<int8_t>()[0] : zp->data<uint8_t>()[0];
      }
    }
    const Tensor* b_zp = OptionalInput(ctx, dynamic_ ? 3 : 5);
    o.b_zero_point = b_zp != nullptr ? b_zp->raw_data() : nullptr;
    const Tensor* bias = OptionalInput(ctx, dynamic_ ? 4 : 6);
    o.bias = bias != nullptr ? bias->data<float>() : nullptr;
    float* y = ctx.output(0)->mutable_data<float>();
    ctx.ParallelFor(plan_.rows, 1, [&](int64_t begin, int64_t end) {
      contrib::IntegerToFloatRows(plan_, o, y, begin, end);
    });
    return Status::Ok();
  }

 private:
  bool dynamic_;
  contrib::IntegerToFloatPlan plan_;
};

}  // namespace

ep::KernelFactory IntegerToFloatFactory(bool dynamic) {
  return [dynamic](const NodeInfo&) -> Result<std::unique_ptr<Kernel>> {
    return std::unique_ptr<Kernel>(std::make_unique<IntegerToFloatKernel>(dynamic));
  };
}

}  // namespace nxrt::cpu::kernels
