// ep/cpu/kernels/contrib/qlinear.cpp: glue of the com.microsoft quantized elementwise ops over
// math/contrib/qlinear.h: QLinearAdd, QLinearMul, QLinearSigmoid, QLinearGlobalAveragePool,
// QLinearConcat.
//
// Layer: nxrt_ep_cpu (kernel glue). Scales and zero points are per-tensor scalars read when the
// kernel computes (they may be graph inputs); an omitted zero point is 0. Outputs are split over
// the thread pool in shares of at least kMinShare elements; the loops that only sum or copy bytes
// (QLinearGlobalAveragePool, QLinearConcat without requantization) take kMinCopyShare input
// elements a share.
#include <algorithm>
#include <memory>
#include <vector>

#include "ep/cpu/kernels/contrib/contrib.h"
#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/math/contrib/qlinear.h"

namespace nxrt::cpu::kernels {
namespace {

using contrib::QuantParams;

// Below about this many elements a thread's share costs more to hand out than to compute.
constexpr int64_t kMinShare = int64_t{1} << 17;
constexpr int64_t kMinCopyShare = int64_t{1} << 21;

Status CheckScalar(const PrepareContext& ctx, int i, std::string_view what) {
  if (i >= ctx.input_count() || !ctx.has_input(i)) return Status::Ok();
  const Shape shape = InputShape(ctx, i);
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  if (n == 1) return Status::Ok();
  return MakeStatus(StatusCode::kInvalidArgument, "input ", i, " '", what, "' has shape ",
                    ShapeToString(shape), "; the CPU EP takes per-tensor (one element) values");
}

// The scale (input `scale`) and zero point (input `zero_point`, 0 when omitted).
QuantParams Params(const ComputeContext& ctx, int scale, int zero_point) {
  QuantParams q;
  q.scale = ctx.input(scale)->data<float>()[0];
  const Tensor* zp = zero_point < ctx.input_count() ? ctx.input(zero_point) : nullptr;
  if (zp != nullptr) {
    q.zero_point = zp->dtype() == DataType::kInt8 ? zp->data<int8_t>()[0] : zp->data<uint8_t>()[0];
  }
  return q;
}

class QLinearBinaryKernel final : public Kernel {
 public:
  explicit QLinearBinaryKernel(contrib::QLinearBinaryKind kind) : kind_(kind) {}

  Status Prepare(PrepareContext& ctx) override {
    for (auto [i, what] : {std::pair{1, "A_scale"}, {2, "A_zero_point"}, {4, "B_scale"},
                           {5, "B_zero_point"}, {6, "C_scale"}, {7, "C_zero_point"}}) {
      NXRT_RETURN_IF_ERROR(CheckScalar(ctx, i, what));
    }
    const DataType t = ctx.input_dtype(0);
    NXRT_ASSIGN_OR_RETURN(plan_, contrib::PrepareQLinearBinary(kind_, t == DataType::kInt8,
                                                               InputShape(ctx, 0),
                                                               InputShape(ctx, 3)));
    return ctx.SetOutput(0, t, plan_.output_shape);
  }

  Status Compute(ComputeContext& ctx) override {
    const QuantParams a = Params(ctx, 1, 2), b = Params(ctx, 4, 5), c = Params(ctx, 6, 7);
    ctx.ParallelFor(plan_.geometry.output_count, kMinShare, [&](int64_t begin, int64_t end) {
      contrib::QLinearBinary(plan_, ctx.input(0)->raw_data(), a, ctx.input(3)->raw_data(), b, c,
                             ctx.output(0)->mutable_raw_data(), begin, end);
    });
    return Status::Ok();
  }

 private:
  contrib::QLinearBinaryKind kind_;
  contrib::QLinearBinaryPlan plan_;
};

class QLinearSigmoidKernel final : public Kernel {
 public:
  Status Prepare(PrepareContext& ctx) override {
    for (int i = 1; i <= 4; ++i) NXRT_RETURN_IF_ERROR(CheckScalar(ctx, i, "scale or zero point"));
    return ctx.SetOutput(0, ctx.input_dtype(0), InputShape(ctx, 0));
  }
  Status Compute(ComputeContext& ctx) override {
    const Tensor& x = *ctx.input(0);
    const QuantParams x_params = Params(ctx, 1, 2), y_params = Params(ctx, 3, 4);
    ctx.ParallelFor(x.element_count(), kMinShare, [&](int64_t begin, int64_t end) {
      contrib::QLinearSigmoid(x.dtype() == DataType::kInt8, x.raw_data(), x_params, y_params,
                              ctx.output(0)->mutable_raw_data(), begin, end);
    });
    return Status::Ok();
  }
};

class QLinearGlobalAveragePoolKernel final : public Kernel {
 public:
  explicit QLinearGlobalAveragePoolKernel(bool channels_last) : channels_last_(channels_last) {}
  Status Prepare(PrepareContext& ctx) override {
    for (int i = 1; i <= 4; ++i) NXRT_RETURN_IF_ERROR(CheckScalar(ctx, i, "scale or zero point"));
    NXRT_ASSIGN_OR_RETURN(Shape y, contrib::QLinearGlobalAveragePoolShape(ctx.input_shape(0),
                                                                          channels_last_));
    return ctx.SetOutput(0, ctx.input_dtype(0), y);
  }
  Status Compute(ComputeContext& ctx) override {
    const Tensor& x = *ctx.input(0);
    const QuantParams x_params = Params(ctx, 1, 2), y_params = Params(ctx, 3, 4);
    const int64_t outputs = ctx.output(0)->element_count();
    const int64_t per_output = x.element_count() / std::max<int64_t>(outputs, 1);
    ctx.ParallelFor(outputs, kMinCopyShare / std::max<int64_t>(per_output, 1) + 1,
                    [&](int64_t begin, int64_t end) {
                      contrib::QLinearGlobalAveragePool(
                          x.dtype() == DataType::kInt8, x.raw_data(), x.shape(), channels_last_,
                          x_params, y_params, ctx.output(0)->mutable_raw_data(), begin, end);
                    });
    return Status::Ok();
  }

 private:
  bool channels_last_;
};

// QLinearConcat (Y_scale, Y_zero_point, X_0, X_0_scale, X_0_zero_point, X_1, ...).
class QLinearConcatKernel final : public Kernel {
 public:
  explicit QLinearConcatKernel(int64_t axis) : axis_(axis) {}
  Status Prepare(PrepareContext& ctx) override {
    if (ctx.input_count() < 5 || (ctx.input_count() - 2) % 3 != 0) {
      return MakeStatus(StatusCode::kInvalidArgument, "QLinearConcat has ", ctx.input_count(),
                        " inputs; expected Y_scale, Y_zero_point and triples (X, scale, "
                        "zero point)");
    }
    shapes_.clear();
    for (int i = 2; i < ctx.input_count(); i += 3) shapes_.push_back(InputShape(ctx, i));
    const auto rank = static_cast<int64_t>(shapes_[0].size());
    if (axis_ < -rank || axis_ >= rank) {
      return MakeStatus(StatusCode::kInvalidArgument, "QLinearConcat: axis ", axis_,
                        " is outside [", -rank, ", ", rank, ") for X_0 ",
                        ShapeToString(shapes_[0]));
    }
    axis_index_ = axis_ < 0 ? axis_ + rank : axis_;
    Shape y = shapes_[0];
    for (size_t k = 1; k < shapes_.size(); ++k) {
      bool fits = shapes_[k].size() == y.size();
      for (size_t d = 0; fits && d < y.size(); ++d) {
        fits = d == static_cast<size_t>(axis_index_) || shapes_[k][d] == y[d];
      }
      if (!fits || ctx.input_dtype(2 + 3 * static_cast<int>(k)) != ctx.input_dtype(2)) {
        return MakeStatus(StatusCode::kInvalidArgument, "QLinearConcat: X_", k, " is ",
                          DataTypeName(ctx.input_dtype(2 + 3 * static_cast<int>(k))),
                          ShapeToString(shapes_[k]), " but X_0 is ",
                          DataTypeName(ctx.input_dtype(2)), ShapeToString(shapes_[0]),
                          "; only dim ", axis_index_, " may differ");
      }
      y[static_cast<size_t>(axis_index_)] += shapes_[k][static_cast<size_t>(axis_index_)];
    }
    return ctx.SetOutput(0, ctx.input_dtype(2), y);
  }
  Status Compute(ComputeContext& ctx) override {
    std::vector<const void*> inputs;
    std::vector<QuantParams> params;
    for (int i = 2; i < ctx.input_count(); i += 3) {
      inputs.push_back(ctx.input(i)->raw_data());
      params.push_back(Params(ctx, i + 1, i + 2));
    }
    const QuantParams y_params = Params(ctx, 0, 1);
    bool copies = true;
    for (const QuantParams& p : params) {
      copies = copies && p.scale == y_params.scale && p.zero_point == y_params.zero_point;
    }
    ctx.ParallelFor(ctx.output(0)->element_count(), copies ? kMinCopyShare : kMinShare,
                    [&](int64_t begin, int64_t end) {
      contrib::QLinearConcat(ctx.input(2)->dtype() == DataType::kInt8, inputs, shapes_, params,
                             axis_index_, y_params, ctx.output(0)->mutable_raw_data(), begin, end);
    });
    return Status::Ok();
  }

 private:
  int64_t axis_;
  int64_t axis_index_ = 0;
  std::vector<Shape> shapes_;
};

}  // namespace

ep::KernelFactory QLinearBinaryFactory(contrib::QLinearBinaryKind kind) {
  return [kind](const NodeInfo&) -> Result<std::unique_ptr<Kernel>> {
    return std::unique_ptr<Kernel>(std::make_unique<QLinearBinaryKernel>(kind));
  };
}

ep::KernelFactory QLinearSigmoidFactory() {
  return [](const NodeInfo&) -> Result<std::unique_ptr<Kernel>> {
    return std::unique_ptr<Kernel>(std::make_unique<QLinearSigmoidKernel>());
  };
}

ep::KernelFactory QLinearGlobalAveragePoolFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(int64_t channels_last, node.GetInt("channels_last", 0));
    return std::unique_ptr<Kernel>(
        std::make_unique<QLinearGlobalAveragePoolKernel>(channels_last != 0));
  };
}

ep::KernelFactory QLinearConcatFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(int64_t axis, node.GetInt("axis"));
    return std::unique_ptr<Kernel>(std::make_unique<QLinearConcatKernel>(axis));
  };
}

}  // namespace nxrt::cpu::kernels
