// ep/cpu/kernels/shape/reshape.cpp: the reshape-like kernel (reshape_like.h) and the glue of
// Reshape and Flatten.
//
// Layer: nxrt_ep_cpu (kernel glue). One kernel class: a shape rule run in Prepare (attributes and
// value inputs in, output shape out, with messages naming the input and both values) and a copy
// in Compute (the kernel API has no output aliasing yet).
#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/shape/reshape_like.h"
#include "ep/cpu/kernels/shape/shape.h"
#include "ep/cpu/math/shape_util.h"

namespace nxrt::cpu::kernels {
namespace {

class ReshapeLikeKernel final : public Kernel {
 public:
  ReshapeLikeKernel(ShapeRule rule, std::vector<int> value_inputs)
      : rule_(std::move(rule)), value_inputs_(std::move(value_inputs)) {}

  std::vector<int> ValueInputs() const override { return value_inputs_; }

  Status Prepare(PrepareContext& ctx) override {
    type_ = ctx.input_dtype(0);
    NXRT_ASSIGN_OR_RETURN(Shape out, rule_(ctx, InputShape(ctx, 0)));
    return ctx.SetOutput(0, type_, std::move(out));
  }

  Status Compute(ComputeContext& ctx) override {
    const void* in = ctx.input(0)->raw_data();
    void* out = ctx.output(0)->mutable_raw_data();
    ParallelRanges(ctx, ctx.input(0)->element_count(), [&](int64_t begin, int64_t end) {
      CopyElements(type_, Advance(in, begin, type_), Advance(out, begin, type_), end - begin);
    });
    return Status::Ok();
  }

 private:
  ShapeRule rule_;
  std::vector<int> value_inputs_;
  DataType type_ = DataType::kUndefined;
};

// Reshape: 0 copies the input's dim (unless allowzero), one -1 is inferred.
Result<Shape> ReshapeShape(const PrepareContext& ctx, const Shape& in, bool allow_zero) {
  NXRT_ASSIGN_OR_RETURN(Shape out, ReadInt64s(ctx, 1, "input 1 'shape'"));
  int64_t known = 1;
  std::optional<size_t> inferred;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      if (inferred) {
        return MakeStatus(StatusCode::kInvalidArgument, "input 1 'shape' ", ShapeToString(out),
                          " has -1 at dims ", *inferred, " and ", i, "; at most one dim is -1");
      }
      inferred = i;
      continue;
    }
    if (out[i] == 0 && !allow_zero) {
      if (i >= in.size()) {
        return MakeStatus(StatusCode::kInvalidArgument, "input 1 'shape' ", ShapeToString(out),
                          " copies dim ", i, " (0) but the data has rank ", in.size());
      }
      out[i] = in[i];
    }
    if (out[i] < 0) {
      return MakeStatus(StatusCode::kInvalidArgument, "input 1 'shape' ", ShapeToString(out),
                        " has dim ", out[i], " at ", i, "; dims are >= -1");
    }
    if (__builtin_mul_overflow(known, out[i], &known)) {
      return MakeStatus(StatusCode::kInvalidArgument, "input 1 'shape' ", ShapeToString(out),
                        " has more elements than int64 can count");
    }
  }
  const int64_t count = math::Product(in);
  const bool fits = inferred ? known != 0 && count % known == 0 : known == count;
  if (!fits) {
    return MakeStatus(StatusCode::kInvalidArgument, "input 1 'shape' ", ShapeToString(out),
                      " does not fit data of shape ", ShapeToString(in), " (", count,
                      " elements)");
  }
  if (inferred) out[*inferred] = count / known;
  return out;
}

}  // namespace

std::unique_ptr<Kernel> MakeReshapeLikeKernel(ShapeRule rule,
                                              std::vector<int> value_inputs) {
  return std::make_unique<ReshapeLikeKernel>(std::move(rule), std::move(value_inputs));
}

ep::KernelFactory ReshapeFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(int64_t allow_zero, node.GetInt("allowzero", 0));
    const auto rule = [allow_zero](const PrepareContext& ctx, const Shape& in) {
      return ReshapeShape(ctx, in, allow_zero != 0);
    };
    return MakeReshapeLikeKernel(rule, {1});
  };
}

ep::KernelFactory FlattenFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(int64_t axis, node.GetInt("axis", 1));
    const auto rule = [axis](const PrepareContext&, const Shape& in) -> Result<Shape> {
      const auto rank = static_cast<int64_t>(in.size());
      if (axis < -rank || axis > rank) {
        return MakeStatus(StatusCode::kInvalidArgument, "attribute 'axis' is ", axis,
                          ", outside [", -rank, ", ", rank, "] for input 0 of shape ",
                          ShapeToString(in));
      }
      const auto split = in.begin() + (axis < 0 ? axis + rank : axis);
      return Shape{math::Product({in.begin(), split}), math::Product({split, in.end()})};
    };
    return MakeReshapeLikeKernel(rule, {});
  };
}

}  // namespace nxrt::cpu::kernels
