// ep/cpu/kernels/nn/matmul.cpp: glue of MatMul and Gemm over math/nn/matmul.h.
//
// Layer: nxrt_ep_cpu (kernel glue). Prepare creates the plan (and its oneDNN primitive for
// float, sized for the run's intra-op threads) only when an input shape or the thread count
// differs from the one it was made for, so a constant weight with a steady activation shape
// costs one primitive creation, and one packing of the weight, in the kernel's life. The
// primitive's scratchpad is the step's planned workspace. A product that runs on nxrt's own
// kernels (one row with a constant B on AVX-512, math/nn/gemv.h; two rows or more on AVX2
// without AVX-512, math/nn/sgemm_avx2.h) spreads its column units over the pool's ParallelFor.
//
// com.nxrt:FusedMatMul and com.nxrt:FusedGemm (made by the matmul_activation_fusion pass) are the
// same kernels with an epilogue: FusedMatMul(A, B, bias?) = act(A @ B + bias), bias of N elements
// (shape [N] or [1, ..., 1, N]); FusedGemm(A, B, C?) = act(Gemm(A, B, C)) with Gemm's attributes.
// Attributes `activation`, `activation_alpha` and `activation_beta`: the activations
// ep/cpu/nxrt_ops.h kFusedActivations gives FusedMatMul and FusedGemm, with their defaults. The
// bias and activation run as oneDNN post-ops in the same pass over the output.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ep/cpu/kernels/constant_input.h"
#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/nn/fused_activation.h"
#include "ep/cpu/kernels/nn/nn.h"
#include "ep/cpu/math/nn/matmul.h"
#include "ep/prepacked.h"

namespace nxrt::cpu::kernels {
namespace {

// The packed copy of constant B (input 1) a kernel of this node published, or null.
std::shared_ptr<const nn::PackedWeights> PublishedB(PrepareContext& ctx) {
  ep::PrepackedConstants* support = ep::PrepackedSupport(ctx);
  return support != nullptr
             ? std::static_pointer_cast<const nn::PackedWeights>(support->Prepacked(1))
             : nullptr;
}

// Runs a plan's column units(begin, end) over [0, units) with the context's threads, each part
// at least MinItemsPerPart's worth of the product's `macs` multiply-adds (a one-row product of a
// small model stays on the calling thread), and at most one range per thread (measured on the
// MLP at 2 threads: per-unit chunks taken dynamically move columns, and so parts of B, between
// cores from run to run, and cost 10 %).
template <typename Units>
void RunColumnUnits(ComputeContext& ctx, int64_t units, int64_t macs, const Units& run) {
  const double unit_ns = static_cast<double>(macs) / static_cast<double>(units) * kMacNs;
  const int64_t per_thread = (units + ctx.thread_count() - 1) / ctx.thread_count();
  ctx.ParallelFor(units, std::max(MinItemsPerPart(unit_ns), per_thread), run);
}

// Publishes the plan's own copy of B, so the runtime may free the original and other instances
// of this node share the copy.
void PublishB(PrepareContext& ctx, std::shared_ptr<const nn::PackedWeights> packed) {
  ep::PrepackedConstants* support = ep::PrepackedSupport(ctx);
  if (support != nullptr && packed != nullptr) support->SetPrepacked(1, std::move(packed));
}

class MatMulKernel final : public Kernel {
 public:
  // `epilogue` (FusedMatMul): its activation; the bias flag is set from the inputs.
  explicit MatMulKernel(nn::MatMulEpilogue epilogue = {}) : epilogue_(epilogue) {}

  Status Prepare(PrepareContext& ctx) override {
    Shape a = InputShape(ctx, 0);
    Shape b = InputShape(ctx, 1);
    const bool has_bias = ctx.input_count() > 2 && ctx.has_input(2);
    if (has_bias) {
      const Shape bias = InputShape(ctx, 2);
      const int64_t n = b.size() == 1 ? 1 : b.back();
      bool ok = !bias.empty() && bias.back() == n;
      for (size_t i = 0; ok && i + 1 < bias.size(); ++i) ok = bias[i] == 1;
      if (!ok) {
        return MakeStatus(StatusCode::kInvalidArgument, "FusedMatMul: bias ", ShapeToString(bias),
                          " is not [N] (or [1, ..., 1, N]) for B ", ShapeToString(b), ", N = ", n);
      }
    }
    const int threads = ctx.thread_count();
    if (!planned_ || ctx.input_dtype(0) != plan_.dtype || a != a_shape_ || b != b_shape_ ||
        threads != threads_) {
      nn::MatMulOptions options;
      options.threads = threads;
      options.constant_b = ConstantData(ctx, 1);
      options.prepacked_b = PublishedB(ctx);
      options.epilogue = epilogue_;
      options.epilogue.bias = has_bias;
      NXRT_ASSIGN_OR_RETURN(plan_, nn::PrepareMatMul(ctx.input_dtype(0), a, b, options));
      PublishB(ctx, plan_.packed_b);
      a_shape_ = std::move(a);
      b_shape_ = std::move(b);
      threads_ = threads;
      planned_ = true;
    }
    ctx.SetWorkspaceBytes(plan_.scratchpad_bytes);
    return ctx.SetOutput(0, plan_.dtype, plan_.output_shape);
  }

  Status Compute(ComputeContext& ctx) override {
    const void* bias = plan_.epilogue.bias ? ctx.input(2)->raw_data() : nullptr;
    if (plan_.column_units > 0) {
      const void* a = ctx.input(0)->raw_data();
      const void* b = ctx.input(1)->raw_data();
      void* y = ctx.output(0)->mutable_raw_data();
      const int64_t macs = ctx.output(0)->element_count() * plan_.k;
      RunColumnUnits(ctx, plan_.column_units, macs, [&](int64_t begin, int64_t end) {
        nn::MatMulColumnUnits(plan_, a, b, bias, y, begin, end);
      });
      return Status::Ok();
    }
    return nn::MatMul(plan_, ctx.input(0)->raw_data(), ctx.input(1)->raw_data(),
                      ctx.output(0)->mutable_raw_data(), ctx.workspace(), bias);
  }

 private:
  nn::MatMulEpilogue epilogue_;
  bool planned_ = false;
  int threads_ = 0;
  Shape a_shape_;
  Shape b_shape_;
  nn::MatMulPlan plan_;
};

class GemmKernel final : public Kernel {
 public:
  GemmKernel(nn::GemmAttributes attributes, nn::MatMulEpilogue epilogue)
      : attributes_(attributes), epilogue_(epilogue) {}

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
      options.prepacked_b = PublishedB(ctx);
      options.epilogue = epilogue_;
      NXRT_ASSIGN_OR_RETURN(
          plan_, nn::PrepareGemm(ctx.input_dtype(0), a, b, c_span, attributes_, options));
      PublishB(ctx, plan_.packed_b);
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
    if (plan_.column_units > 0) {
      const void* a = ctx.input(0)->raw_data();
      const void* c_data = c != nullptr ? c->raw_data() : nullptr;
      void* y = ctx.output(0)->mutable_raw_data();
      const int64_t macs = ctx.output(0)->element_count() * plan_.k;
      RunColumnUnits(ctx, plan_.column_units, macs, [&](int64_t begin, int64_t end) {
        nn::GemmColumnUnits(plan_, a, c_data, y, begin, end);
      });
      return Status::Ok();
    }
    return nn::Gemm(plan_, ctx.input(0)->raw_data(), ctx.input(1)->raw_data(),
                    c != nullptr ? c->raw_data() : nullptr, ctx.output(0)->mutable_raw_data(),
                    ctx.workspace());
  }

 private:
  nn::GemmAttributes attributes_;
  nn::MatMulEpilogue epilogue_;
  bool planned_ = false;
  int threads_ = 0;
  Shape a_shape_;
  Shape b_shape_;
  std::optional<Shape> c_shape_;
  nn::GemmPlan plan_;
};

// The epilogue activation of a FusedMatMul or FusedGemm node (see the file comment).
Result<nn::MatMulEpilogue> ParseEpilogue(const NodeInfo& node) {
  NXRT_ASSIGN_OR_RETURN(FusedActivationArgs<nn::MatMulActivation> activation,
                        ParseFusedActivation(node, &nxrt_ops::FusedActivation::matmul));
  nn::MatMulEpilogue e;
  e.activation = activation.kind;
  e.alpha = activation.alpha;
  e.beta = activation.beta;
  return e;
}

ep::KernelFactory MakeGemmFactory(bool fused) {
  return [fused](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    nn::MatMulEpilogue epilogue;
    if (fused) {
      NXRT_ASSIGN_OR_RETURN(epilogue, ParseEpilogue(node));
    }
    nn::GemmAttributes attributes;
    NXRT_ASSIGN_OR_RETURN(int64_t trans_a, node.GetInt("transA", 0));
    NXRT_ASSIGN_OR_RETURN(int64_t trans_b, node.GetInt("transB", 0));
    NXRT_ASSIGN_OR_RETURN(attributes.alpha, node.GetFloat("alpha", 1.0f));
    NXRT_ASSIGN_OR_RETURN(attributes.beta, node.GetFloat("beta", 1.0f));
    attributes.trans_a = trans_a != 0;
    attributes.trans_b = trans_b != 0;
    return std::unique_ptr<Kernel>(std::make_unique<GemmKernel>(attributes, epilogue));
  };
}

}  // namespace

ep::KernelFactory MatMulFactory() {
  return [](const NodeInfo&) -> Result<std::unique_ptr<Kernel>> {
    return std::unique_ptr<Kernel>(std::make_unique<MatMulKernel>());
  };
}

ep::KernelFactory GemmFactory() { return MakeGemmFactory(false); }

ep::KernelFactory FusedMatMulFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(nn::MatMulEpilogue epilogue, ParseEpilogue(node));
    return std::unique_ptr<Kernel>(std::make_unique<MatMulKernel>(epilogue));
  };
}

ep::KernelFactory FusedGemmFactory() { return MakeGemmFactory(true); }

}  // namespace nxrt::cpu::kernels
