// ep/cpu/kernels/nn/matmul.cpp: glue of MatMul and Gemm over nn/matmul.h.
//
// Layer: nxrt_ep_cpu (kernel glue). Prepare creates the plan (and its oneDNN primitive for
// float, sized for the run's intra-op threads) only when an input shape or the thread count
// differs from the one it was made for, so a constant weight with a steady activation shape
// costs one primitive creation, and one packing of the weight, in the kernel's life. The
// primitive's scratchpad is the step's planned workspace.
#include <memory>
#include <optional>
#include <vector>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/nn/nn.h"
#include "ep/cpu/nn/matmul.h"

namespace nxrt::cpu::kernels {
namespace {

// The contents of input `i` when it is a constant initializer (readable in Prepare), else null.
const void* ConstantData(PrepareContext& ctx, int i) {
  if (!ctx.has_input(i)) return nullptr;
  Result<const Tensor*> value = ctx.input_value(i);
  return value.ok() && *value != nullptr ? (*value)->raw_data() : nullptr;
}

class MatMulKernel final : public Kernel {
 public:
  Status Prepare(PrepareContext& ctx) override {
    Shape a = InputShape(ctx, 0);
    Shape b = InputShape(ctx, 1);
    const int threads = ctx.thread_count();
    if (!planned_ || ctx.input_dtype(0) != plan_.dtype || a != a_shape_ || b != b_shape_ ||
        threads != threads_) {
      nn::MatMulOptions options;
      options.threads = threads;
      options.constant_b = ConstantData(ctx, 1);
      NXRT_ASSIGN_OR_RETURN(plan_, nn::PrepareMatMul(ctx.input_dtype(0), a, b, options));
      a_shape_ = std::move(a);
      b_shape_ = std::move(b);
      threads_ = threads;
      planned_ = true;
    }
    ctx.SetWorkspaceBytes(plan_.scratchpad_bytes);
    return ctx.SetOutput(0, plan_.dtype, plan_.output_shape);
  }

  Status Compute(ComputeContext& ctx) override {
    return nn::MatMul(plan_, ctx.input(0)->raw_data(), ctx.input(1)->raw_data(),
                      ctx.output(0)->mutable_raw_data(), ctx.workspace());
  }

 private:
  bool planned_ = false;
  int threads_ = 0;
  Shape a_shape_;
  Shape b_shape_;
  nn::MatMulPlan plan_;
};

class GemmKernel final : public Kernel {
 public:
  explicit GemmKernel(nn::GemmAttributes attributes) : attributes_(attributes) {}

  Status Prepare(PrepareContext& ctx) override {
    Shape a = InputShape(ctx, 0);
    Shape b = InputShape(ctx, 1);
    std::optional<Shape> c;
    if (ctx.input_count() > 2 && ctx.has_input(2)) c = InputShape(ctx, 2);
    const int threads = ctx.thread_count();
    if (!planned_ || ctx.input_dtype(0) != plan_.dtype || a != a_shape_ || b != b_shape_ ||
        c != c_shape_ || threads != threads_) {
      std::optional<std::span<const int64_t>> c_span;
      if (c) c_span = *c;
      nn::GemmOptions options;
      options.threads = threads;
      options.constant_b = ConstantData(ctx, 1);
      NXRT_ASSIGN_OR_RETURN(
          plan_, nn::PrepareGemm(ctx.input_dtype(0), a, b, c_span, attributes_, options));
      a_shape_ = std::move(a);
      b_shape_ = std::move(b);
      c_shape_ = std::move(c);
      threads_ = threads;
      planned_ = true;
    }
    ctx.SetWorkspaceBytes(plan_.scratchpad_bytes);
    return ctx.SetOutput(0, plan_.dtype, plan_.output_shape);
  }

  Status Compute(ComputeContext& ctx) override {
    const Tensor* c = ctx.input_count() > 2 ? ctx.input(2) : nullptr;
    return nn::Gemm(plan_, ctx.input(0)->raw_data(), ctx.input(1)->raw_data(),
                    c != nullptr ? c->raw_data() : nullptr, ctx.output(0)->mutable_raw_data(),
                    ctx.workspace());
  }

 private:
  nn::GemmAttributes attributes_;
  bool planned_ = false;
  int threads_ = 0;
  Shape a_shape_;
  Shape b_shape_;
  std::optional<Shape> c_shape_;
  nn::GemmPlan plan_;
};

}  // namespace

ep::KernelFactory MatMulFactory() {
  return [](const NodeInfo&) -> Result<std::unique_ptr<Kernel>> {
    return std::unique_ptr<Kernel>(std::make_unique<MatMulKernel>());
  };
}

ep::KernelFactory GemmFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    nn::GemmAttributes attributes;
    NXRT_ASSIGN_OR_RETURN(int64_t trans_a, node.GetInt("transA", 0));
    NXRT_ASSIGN_OR_RETURN(int64_t trans_b, node.GetInt("transB", 0));
    NXRT_ASSIGN_OR_RETURN(attributes.alpha, node.GetFloat("alpha", 1.0f));
    NXRT_ASSIGN_OR_RETURN(attributes.beta, node.GetFloat("beta", 1.0f));
    attributes.trans_a = trans_a != 0;
    attributes.trans_b = trans_b != 0;
    return std::unique_ptr<Kernel>(std::make_unique<GemmKernel>(attributes));
  };
}

}  // namespace nxrt::cpu::kernels
