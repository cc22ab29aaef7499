// ep/cpu/kernels/contrib/quant_matmul.cpp: glue of com.microsoft MatMulIntegerToFloat
// (A, B, a_scale, b_scale, a_zero_point?, b_zero_point?, bias?) and DynamicQuantizeMatMul
// (A float, B, b_scale, b_zero_point?, bias?) over math/contrib/quant_matmul.h.
//
// Layer: nxrt_ep_cpu (kernel glue). DynamicQuantizeMatMul quantizes A into the workspace with
// math/quant/quant.h's DynamicQuantizeLinear, the one owner of that computation. The product runs
// on the run's threads, with a constant B packed once at Prepare.
#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>

#include "ep/cpu/kernels/contrib/contrib.h"
#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/math/contrib/quant_matmul.h"
#include "ep/cpu/math/quant/quant.h"
#include "ep/cpu/math/nn_common.h"

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
    nn::IntProductOptions options;
    options.threads = ctx.thread_count();
    Result<const Tensor*> constant_b = ctx.input_value(1);
    if (constant_b.ok()) options.constant_b = (*constant_b)->raw_data();
    NXRT_ASSIGN_OR_RETURN(
        plan_, contrib::PrepareIntegerToFloat(
                   dynamic_ ? "DynamicQuantizeMatMul" : "MatMulIntegerToFloat",
                   dynamic_ ? DataType::kUint8 : ctx.input_dtype(0), ctx.input_dtype(1),
                   ctx.input_shape(0), ctx.input_shape(1),
                   dynamic_ ? 1 : *OptionalCount(ctx, 2), *OptionalCount(ctx, b_scale()),
                   dynamic_ ? std::nullopt : OptionalCount(ctx, 4), OptionalCount(ctx, b_zp()),
                   OptionalCount(ctx, bias()), options));
    // Workspace: [the product's | b scale or zero point widened to N | A quantized].
    const auto n = static_cast<size_t>(plan_.n);
    widened_bytes_ = nn::Align64(n * sizeof(float));
    a_offset_ = plan_.product.workspace_bytes + widened_bytes_;
    ctx.SetWorkspaceBytes(a_offset_ + (dynamic_ ? static_cast<size_t>(plan_.rows * plan_.k) : 0));
    return ctx.SetOutput(0, DataType::kFloat, plan_.output_shape);
  }

  Status Compute(ComputeContext& ctx) override {
    std::byte* workspace = ctx.workspace().data();
    nn::QuantOperands q;
    q.b = ctx.input(1)->raw_data();
    q.b_scale = ctx.input(b_scale())->raw_data();
    const Tensor* b_zero_point = OptionalInput(ctx, b_zp());
    q.b_zero_point = b_zero_point != nullptr ? b_zero_point->raw_data() : nullptr;
    // IntMatMul reads the b scale and zero point through one index: widen the per-tensor one when
    // the other is per column.
    std::byte* widened = workspace + plan_.product.workspace_bytes;
    const auto n = static_cast<size_t>(plan_.n);
    if (plan_.b_zero_point_per_column && !plan_.b_scale_per_column) {
      std::fill_n(reinterpret_cast<float*>(widened), n, *static_cast<const float*>(q.b_scale));
      q.b_scale = widened;
    } else if (plan_.b_scale_per_column && !plan_.b_zero_point_per_column &&
               q.b_zero_point != nullptr) {
      std::memset(widened, *static_cast<const uint8_t*>(q.b_zero_point), n);
      q.b_zero_point = widened;
    }
    float a_scale = 0;
    uint8_t a_zero_point = 0;
    if (dynamic_) {
      auto* quantized = reinterpret_cast<uint8_t*>(workspace + a_offset_);
      nn::DynamicQuantizeLinear(ctx.input(0)->data<float>(), plan_.rows * plan_.k, quantized,
                                &a_scale, &a_zero_point);
      q.a = quantized;
      q.a_scale = &a_scale;
      q.a_zero_point = &a_zero_point;
    } else {
      q.a = ctx.input(0)->raw_data();
      q.a_scale = ctx.input(2)->raw_data();
      const Tensor* zp = OptionalInput(ctx, 4);
      q.a_zero_point = zp != nullptr ? zp->raw_data() : nullptr;
    }
    const Tensor* bias_t = OptionalInput(ctx, bias());
    q.float_bias = bias_t != nullptr ? bias_t->data<float>() : nullptr;
    return nn::IntMatMul(plan_.product, q, ctx.output(0)->mutable_data<float>(),
                         ctx.workspace().first(plan_.product.workspace_bytes));
  }

 private:
  int b_scale() const { return dynamic_ ? 2 : 3; }
  int b_zp() const { return dynamic_ ? 3 : 5; }
  int bias() const { return dynamic_ ? 4 : 6; }

  bool dynamic_;
  contrib::IntegerToFloatPlan plan_;
  size_t widened_bytes_ = 0;
  size_t a_offset_ = 0;
};

}  // namespace

ep::KernelFactory IntegerToFloatFactory(bool dynamic) {
  return [dynamic](const NodeInfo&) -> Result<std::unique_ptr<Kernel>> {
    return std::unique_ptr<Kernel>(std::make_unique<IntegerToFloatKernel>(dynamic));
  };
}

}  // namespace nxrt::cpu::kernels
