// ep/cpu/kernels/contrib/fused_matmul.cpp: com.microsoft FusedMatMul (and its older name
// TransposeMatMul): Y = alpha * op(A) @ op(B), op transposing the last two dims when transA /
// transB is 1, batches broadcast as NumPy matmul (ONNX Runtime's docs/ContribOperators.md).
//
// Layer: nxrt_ep_cpu (kernel glue over math/nn/matmul.h). A transposed operand is copied into the
// workspace in matmul order first; the product is nxrt's MatMul (oneDNN), then scaled by alpha.
// transBatchA / transBatchB (moving the batch dims) are not supported.
#include <cstddef>
#include <memory>

#include "ep/cpu/kernels/contrib/contrib.h"
#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/math/nn/matmul.h"
#include "ep/cpu/math/nn_common.h"

namespace nxrt::cpu::kernels {
namespace {

// `shape` with its last two dims swapped (rank >= 2).
Shape Swapped(Shape shape) {
  std::swap(shape[shape.size() - 1], shape[shape.size() - 2]);
  return shape;
}

// Copies `x` of `shape` (rank >= 2) into `y` with its last two dims swapped.
void TransposeLastTwo(const float* x, const Shape& shape, float* y) {
  const int64_t rows = shape[shape.size() - 2], cols = shape.back();
  int64_t batches = 1;
  for (size_t i = 0; i + 2 < shape.size(); ++i) batches *= shape[i];
  for (int64_t b = 0; b < batches; ++b) {
    const float* in = x + b * rows * cols;
    float* out = y + b * rows * cols;
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < cols; ++c) out[c * rows + r] = in[r * cols + c];
    }
  }
}

class FusedMatMulKernel final : public Kernel {
 public:
  FusedMatMulKernel(float alpha, bool trans_a, bool trans_b)
      : alpha_(alpha), trans_a_(trans_a), trans_b_(trans_b) {}

  Status Prepare(PrepareContext& ctx) override {
    a_shape_ = InputShape(ctx, 0);
    b_shape_ = InputShape(ctx, 1);
    swap_a_ = trans_a_ && a_shape_.size() >= 2;
    swap_b_ = trans_b_ && b_shape_.size() >= 2;
    nn::MatMulOptions options;
    options.threads = ctx.thread_count();
    NXRT_ASSIGN_OR_RETURN(plan_, nn::PrepareMatMul(DataType::kFloat,
                                                   swap_a_ ? Swapped(a_shape_) : a_shape_,
                                                   swap_b_ ? Swapped(b_shape_) : b_shape_,
                                                   options));
    a_bytes_ = swap_a_ ? nn::Align64(DataTypeBytes(DataType::kFloat, ElementCountOf(a_shape_))) : 0;
    b_bytes_ = swap_b_ ? nn::Align64(DataTypeBytes(DataType::kFloat, ElementCountOf(b_shape_))) : 0;
    ctx.SetWorkspaceBytes(a_bytes_ + b_bytes_ + plan_.scratchpad_bytes);
    return ctx.SetOutput(0, DataType::kFloat, plan_.output_shape);
  }

  Status Compute(ComputeContext& ctx) override {
    std::span<std::byte> workspace = ctx.workspace();
    const float* a = ctx.input(0)->data<float>();
    const float* b = ctx.input(1)->data<float>();
    if (swap_a_) {
      auto* copy = reinterpret_cast<float*>(workspace.data());
      TransposeLastTwo(a, a_shape_, copy);
      a = copy;
    }
    if (swap_b_) {
      auto* copy = reinterpret_cast<float*>(workspace.data() + a_bytes_);
      TransposeLastTwo(b, b_shape_, copy);
      b = copy;
    }
    Tensor& y = *ctx.output(0);
    NXRT_RETURN_IF_ERROR(
        nn::MatMul(plan_, a, b, y.mutable_raw_data(), workspace.subspan(a_bytes_ + b_bytes_)));
    if (alpha_ != 1.0f) {
      float* out = y.mutable_data<float>();
      for (int64_t i = 0; i < y.element_count(); ++i) out[i] *= alpha_;
    }
    return Status::Ok();
  }

 private:
  static int64_t ElementCountOf(const Shape& shape) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
  }

  float alpha_;
  bool trans_a_, trans_b_;
  bool swap_a_ = false, swap_b_ = false;
  Shape a_shape_, b_shape_;
  size_t a_bytes_ = 0, b_bytes_ = 0;
  nn::MatMulPlan plan_;
};

}  // namespace

ep::KernelFactory ContribFusedMatMulFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(float alpha, node.GetFloat("alpha", 1.0f));
    NXRT_ASSIGN_OR_RETURN(int64_t trans_a, node.GetInt("transA", 0));
    NXRT_ASSIGN_OR_RETURN(int64_t trans_b, node.GetInt("transB", 0));
    NXRT_ASSIGN_OR_RETURN(int64_t batch_a, node.GetInt("transBatchA", 0));
    NXRT_ASSIGN_OR_RETURN(int64_t batch_b, node.GetInt("transBatchB", 0));
    if (batch_a != 0 || batch_b != 0) {
      return node.Error(StatusCode::kInvalidModel, "attributes transBatchA=", batch_a,
                        " and transBatchB=", batch_b,
                        "; the CPU EP transposes the last two dims only (0, 0)");
    }
    return std::unique_ptr<Kernel>(
        std::make_unique<FusedMatMulKernel>(alpha, trans_a != 0, trans_b != 0));
  };
}

}  // namespace nxrt::cpu::kernels
