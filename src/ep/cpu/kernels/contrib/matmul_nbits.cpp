// ep/cpu/kernels/contrib/matmul_nbits.cpp: glue of com.microsoft MatMulNBits over
// math/contrib/matmul_nbits.h.
//
// Layer: nxrt_ep_cpu (kernel glue). Inputs A, B, scales, zero_points?, g_idx?, bias?. With a
// g_idx, packed uint8 zero points are not applied (2^(bits - 1) is used), as ONNX Runtime 1.30's
// CPU EP does (measured against it; float zero points are applied). A constant g_idx equal to
// k / block_size (what ORT's quantizer writes when it writes one) is dropped at prepare time so
// the direct path still applies. Constant scales and zero points give their per-block offsets
// once, at prepare time (MatMulNBitsOffsets). Compute spreads output columns over the thread
// pool: the direct path per column range, the blocked path per range of 16-column panels, each
// range at least MinItemsPerPart's worth of multiply-adds (kernel_util.h).
#include <memory>
#include <optional>
#include <vector>

#include "ep/cpu/kernels/contrib/contrib.h"
#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/math/contrib/matmul_nbits.h"

namespace nxrt::cpu::kernels {
namespace {

using contrib::MatMulNBitsPlan;

class MatMulNBitsKernel final : public Kernel {
 public:
  explicit MatMulNBitsKernel(contrib::MatMulNBitsAttributes attributes)
      : attributes_(attributes) {}

  Status Prepare(PrepareContext& ctx) override {
    const auto optional_shape = [&](int i) -> std::optional<Shape> {
      if (i >= ctx.input_count() || !ctx.has_input(i)) return std::nullopt;
      return InputShape(ctx, i);
    };
    std::optional<DataType> zero_point_dtype;
    std::optional<Shape> zero_point_shape = optional_shape(3);
    if (zero_point_shape) zero_point_dtype = ctx.input_dtype(3);
    std::optional<Shape> g_idx = optional_shape(4);
    ignore_zero_points_ = g_idx && zero_point_dtype == DataType::kUint8;
    if (ignore_zero_points_) {
      zero_point_dtype.reset();
      zero_point_shape.reset();
    }
    if (g_idx && IsTrivialGIdx(ctx)) g_idx.reset();
    ignore_g_idx_ = optional_shape(4).has_value() && !g_idx;
    NXRT_ASSIGN_OR_RETURN(plan_, contrib::PrepareMatMulNBits(
                                     attributes_, ctx.input_dtype(0), ctx.input_shape(0),
                                     ctx.input_shape(1), ctx.input_shape(2), zero_point_dtype,
                                     zero_point_shape, g_idx, optional_shape(5)));
    // Constant scales and zero points (a model's weights): their offsets once, not every run.
    offsets_.clear();
    Result<const Tensor*> scales = ctx.input_value(2);
    Result<const Tensor*> zero_points = plan_.zero_point == contrib::NBitsZeroPoint::kDefault
                                            ? Result<const Tensor*>(nullptr)
                                            : ctx.input_value(3);
    if (scales.ok() && zero_points.ok()) {
      contrib::MatMulNBitsOperands o;
      o.scales = (*scales)->data<float>();
      o.zero_points = *zero_points != nullptr ? (*zero_points)->raw_data() : nullptr;
      offsets_.resize(static_cast<size_t>(plan_.attributes.n * plan_.k_blocks));
      contrib::MatMulNBitsOffsets(plan_, o, offsets_.data());
    }
    return ctx.SetOutput(0, DataType::kFloat, plan_.output_shape);
  }

  Status Compute(ComputeContext& ctx) override {
    const auto optional = [&](int i) -> const void* {
      const Tensor* t = i < ctx.input_count() ? ctx.input(i) : nullptr;
      return t != nullptr ? t->raw_data() : nullptr;
    };
    contrib::MatMulNBitsOperands o;
    o.a = ctx.input(0)->data<float>();
    o.b = ctx.input(1)->data<uint8_t>();
    o.scales = ctx.input(2)->data<float>();
    o.zero_points = ignore_zero_points_ ? nullptr : optional(3);
    o.g_idx = ignore_g_idx_ ? nullptr : static_cast<const int32_t*>(optional(4));
    o.bias = static_cast<const float*>(optional(5));
    o.offsets = offsets_.empty() ? nullptr : offsets_.data();
    float* y = ctx.output(0)->mutable_data<float>();
    const int64_t n = plan_.attributes.n;
    if (plan_.direct) {
      // A column costs its K weights' unpacking and dequantizing, about 3 multiply-adds each
      // (shared by the rows), besides the m * K multiply-adds: rated at twice that, a chunk is
      // about 5 us, so a 2-thread decode splits a projection of 128 * 256 weights or more.
      const double column_macs = 2.0 * static_cast<double>((plan_.m + 3) * plan_.attributes.k);
      ctx.ParallelFor(n, MinItemsPerPart(column_macs * kMacNs), [&](int64_t begin, int64_t end) {
        contrib::MatMulNBitsDirect(plan_, o, y, begin, end);
      });
      return Status::Ok();
    }
    if (o.g_idx != nullptr) NXRT_RETURN_IF_ERROR(contrib::CheckGIdx(plan_, o.g_idx));
    ctx.ParallelFor(contrib::MatMulNBitsPanels(plan_),
                    MinItemsPerPart(static_cast<double>(plan_.m * plan_.attributes.k * 16) *
                                    kMacNs),
                    [&](int64_t begin, int64_t end) {
                      contrib::MatMulNBitsGemm(plan_, o, y, begin, end);
                    });
    return Status::Ok();
  }

 private:
  // True when input 4 (g_idx) is a constant holding k / block_size for every k.
  bool IsTrivialGIdx(const PrepareContext& ctx) const {
    Result<const Tensor*> g_idx = ctx.input_value(4);
    if (!g_idx.ok() || (*g_idx)->dtype() != DataType::kInt32 ||
        (*g_idx)->element_count() != attributes_.k) {
      return false;
    }
    const int32_t* v = (*g_idx)->data<int32_t>();
    for (int64_t i = 0; i < attributes_.k; ++i) {
      if (v[i] != i / attributes_.block_size) return false;
    }
    return true;
  }

  contrib::MatMulNBitsAttributes attributes_;
  MatMulNBitsPlan plan_;
  bool ignore_g_idx_ = false;
  bool ignore_zero_points_ = false;  // packed zero points with a g_idx (ORT's behaviour)
  std::vector<float> offsets_;  // MatMulNBitsOperands::offsets, or empty
};

}  // namespace

ep::KernelFactory MatMulNBitsFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    contrib::MatMulNBitsAttributes a;
    NXRT_ASSIGN_OR_RETURN(a.k, node.GetInt("K"));
    NXRT_ASSIGN_OR_RETURN(a.n, node.GetInt("N"));
    NXRT_ASSIGN_OR_RETURN(a.bits, node.GetInt("bits", 4));
    NXRT_ASSIGN_OR_RETURN(a.block_size, node.GetInt("block_size"));
    const Status valid = contrib::CheckMatMulNBitsAttributes(a);
    if (!valid.ok()) return node.Error(valid.code(), valid.message());
    return std::unique_ptr<Kernel>(std::make_unique<MatMulNBitsKernel>(a));
  };
}

}  // namespace nxrt::cpu::kernels
