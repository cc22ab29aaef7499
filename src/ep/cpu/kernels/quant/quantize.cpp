// ep/cpu/kernels/quant/quantize.cpp: glue of QuantizeLinear, DequantizeLinear and
// DynamicQuantizeLinear over math/quant/quant.h.
//
// Layer: nxrt_ep_cpu (kernel glue). Inputs: x, scale, optional zero point (ONNX
// onnx/defs/quantization/defs.cc). The plan depends on the dtypes and shapes only, so Prepare
// rebuilds it only when they change.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/quant/quant.h"
#include "ep/cpu/math/quant/quant.h"

namespace nxrt::cpu::kernels {
namespace {

struct QuantAttributes {
  int64_t axis = 1;
  int64_t block_size = 0;
  bool saturate = true;                  // QuantizeLinear-19 `saturate` (float8 outputs only)
  std::optional<DataType> output_dtype;  // QuantizeLinear-21 `output_dtype`, when set
};

Result<QuantAttributes> ReadQuantAttributes(const NodeInfo& node) {
  QuantAttributes a;
  NXRT_ASSIGN_OR_RETURN(a.axis, node.GetInt("axis", 1));
  NXRT_ASSIGN_OR_RETURN(a.block_size, node.GetInt("block_size", 0));
  if (a.block_size < 0) {
    return node.Error(StatusCode::kInvalidModel, "attribute 'block_size' is ", a.block_size,
                      ", expected 0 (no blocking) or a positive block length");
  }
  NXRT_ASSIGN_OR_RETURN(int64_t saturate, node.GetInt("saturate", 1));
  a.saturate = saturate != 0;
  NXRT_ASSIGN_OR_RETURN(int64_t output_dtype, node.GetInt("output_dtype", 0));
  if (output_dtype != 0) {
    a.output_dtype = DataTypeFromOnnx(static_cast<int32_t>(output_dtype));
    if (!a.output_dtype) {
      return node.Error(StatusCode::kInvalidModel, "attribute 'output_dtype' is ", output_dtype,
                        ", which names no ONNX element type");
    }
  }
  return a;
}

// Checks the zero point (input 2, when present) has the scale's shape.
Status CheckZeroPoint(const PrepareContext& ctx) {
  if (ctx.input_count() <= 2 || !ctx.has_input(2)) return Status::Ok();
  const Shape scale = InputShape(ctx, 1), zero_point = InputShape(ctx, 2);
  const auto count = [](const Shape& s) {
    int64_t n = 1;
    for (int64_t d : s) n *= d;
    return n;
  };
  const bool both_single = count(scale) == 1 && count(zero_point) == 1;
  if (!both_single && scale != zero_point) {
    return MakeStatus(StatusCode::kInvalidArgument, "input 2 'zero_point' has shape ",
                      ShapeToString(zero_point), ", but input 1 'scale' has shape ",
                      ShapeToString(scale), "; give them the same shape");
  }
  return Status::Ok();
}

const void* OptionalData(const ComputeContext& ctx, int i) {
  const Tensor* t = i < ctx.input_count() ? ctx.input(i) : nullptr;
  return t != nullptr ? t->raw_data() : nullptr;
}

class QuantizeLinearKernel final : public Kernel {
 public:
  explicit QuantizeLinearKernel(QuantAttributes attributes) : attributes_(attributes) {}

  Status Prepare(PrepareContext& ctx) override {
    DataType y_dtype = attributes_.output_dtype.value_or(DataType::kUint8);
    if (ctx.input_count() > 2 && ctx.has_input(2)) {
      y_dtype = ctx.input_dtype(2);
      if (attributes_.output_dtype && *attributes_.output_dtype != y_dtype) {
        return MakeStatus(StatusCode::kInvalidArgument, "attribute 'output_dtype' is ",
                          DataTypeName(*attributes_.output_dtype),
                          " but input 2 'y_zero_point' is ", DataTypeName(y_dtype),
                          "; drop the attribute or make them agree");
      }
    }
    NXRT_RETURN_IF_ERROR(CheckZeroPoint(ctx));
    const Shape x = InputShape(ctx, 0);
    NXRT_ASSIGN_OR_RETURN(nn::QuantGeometry geometry,
                          nn::ResolveQuantGeometry("QuantizeLinear", x, InputShape(ctx, 1),
                                                   attributes_.axis, attributes_.block_size));
    NXRT_ASSIGN_OR_RETURN(plan_, nn::PrepareQuantize(ctx.input_dtype(0), ctx.input_dtype(1),
                                                     y_dtype, geometry, attributes_.saturate));
    return ctx.SetOutput(0, y_dtype, x);
  }

  Status Compute(ComputeContext& ctx) override {
    // Split over threads in pairs of elements (a 4-bit output packs a pair into a byte), at least
    // 128Ki elements a share.
    const int64_t count = ctx.input(0)->element_count();
    ctx.ParallelFor((count + 1) / 2, int64_t{1} << 16, [&](int64_t begin, int64_t end) {
      nn::Quantize(plan_, ctx.input(0)->raw_data(), ctx.input(1)->raw_data(), OptionalData(ctx, 2),
                   ctx.output(0)->mutable_raw_data(), 2 * begin, std::min(2 * end, count));
    });
    return Status::Ok();
  }

 private:
  QuantAttributes attributes_;
  nn::QuantizePlan plan_;
};

class DequantizeLinearKernel final : public Kernel {
 public:
  explicit DequantizeLinearKernel(QuantAttributes attributes) : attributes_(attributes) {}

  Status Prepare(PrepareContext& ctx) override {
    NXRT_RETURN_IF_ERROR(CheckZeroPoint(ctx));
    const Shape x = InputShape(ctx, 0);
    NXRT_ASSIGN_OR_RETURN(nn::QuantGeometry geometry,
                          nn::ResolveQuantGeometry("DequantizeLinear", x, InputShape(ctx, 1),
                                                   attributes_.axis, attributes_.block_size));
    NXRT_ASSIGN_OR_RETURN(plan_,
                          nn::PrepareDequantize(ctx.input_dtype(0), ctx.input_dtype(1), geometry));
    return ctx.SetOutput(0, ctx.input_dtype(1), x);
  }

  Status Compute(ComputeContext& ctx) override {
    // Split over threads in ranges of elementwise arithmetic (kParallelGrain elements or more).
    ParallelRanges(ctx, ctx.input(0)->element_count(), [&](int64_t begin, int64_t end) {
      nn::Dequantize(plan_, ctx.input(0)->raw_data(), ctx.input(1)->raw_data(),
                     OptionalData(ctx, 2), ctx.output(0)->mutable_raw_data(), begin, end);
    });
    return Status::Ok();
  }

 private:
  QuantAttributes attributes_;
  nn::DequantizePlan plan_;
};

class DynamicQuantizeLinearKernel final : public Kernel {
 public:
  Status Prepare(PrepareContext& ctx) override {
    if (ctx.input_dtype(0) != DataType::kFloat) {
      return MakeStatus(StatusCode::kUnsupported, "input 0 'x' is ",
                        DataTypeName(ctx.input_dtype(0)), "; DynamicQuantizeLinear takes float");
    }
    NXRT_RETURN_IF_ERROR(ctx.SetOutput(0, DataType::kUint8, InputShape(ctx, 0)));
    NXRT_RETURN_IF_ERROR(ctx.SetOutput(1, DataType::kFloat, {}));
    return ctx.SetOutput(2, DataType::kUint8, {});
  }

  Status Compute(ComputeContext& ctx) override {
    const Tensor& x = *ctx.input(0);
    nn::DynamicQuantizeLinear(x.data<float>(), x.element_count(),
                              ctx.output(0)->mutable_data<uint8_t>(),
                              ctx.output(1)->mutable_data<float>(),
                              ctx.output(2)->mutable_data<uint8_t>());
    return Status::Ok();
  }
};

}  // namespace

ep::KernelFactory QuantizeLinearFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(QuantAttributes attributes, ReadQuantAttributes(node));
    return std::unique_ptr<Kernel>(std::make_unique<QuantizeLinearKernel>(attributes));
  };
}

ep::KernelFactory DequantizeLinearFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(QuantAttributes attributes, ReadQuantAttributes(node));
    return std::unique_ptr<Kernel>(std::make_unique<DequantizeLinearKernel>(attributes));
  };
}

ep::KernelFactory DynamicQuantizeLinearFactory() {
  return [](const NodeInfo&) -> Result<std::unique_ptr<Kernel>> {
    return std::unique_ptr<Kernel>(std::make_unique<DynamicQuantizeLinearKernel>());
  };
}

}  // namespace nxrt::cpu::kernels
