// ep/cpu/kernels/elementwise/binary.cpp: glue of the binary ops (Add ... PRelu) over
// math/elementwise/binary.h, in NumPy broadcasting (opset >= 7) and in the legacy forms before it.
//
// Layer: nxrt_ep_cpu (kernel glue). Prepare aligns B with A (legacy forms only), resolves the
// broadcast plan and cuts it into parts; Compute runs the plan's typed function on each part, in
// parallel for large outputs.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ep/cpu/kernels/elementwise/elementwise.h"
#include "ep/cpu/kernels/kernel_util.h"
#include "ep/in_place.h"

namespace nxrt::cpu::kernels {
namespace {

// How B's dims line up with A's before NumPy broadcasting applies.
struct Alignment {
  // Opset < 7 `broadcast`=1 with `axis`: B's dims match A's from `axis` on (B gains trailing 1s).
  std::optional<int64_t> axis;
  // PRelu-6: a 1-D slope of A's dim-1 size is per channel (aligned at axis 1).
  bool prelu_channel = false;
};

// B's shape aligned with A's as `alignment` says. Errors name the attribute and both shapes.
Result<Shape> AlignB(const Shape& a, Shape b, const Alignment& alignment) {
  std::optional<int64_t> axis = alignment.axis;
  if (alignment.prelu_channel && b.size() == 1 && a.size() >= 2 && b[0] == a[1] && b[0] != 1) {
    axis = 1;
  }
  if (!axis) return b;
  const auto rank = static_cast<int64_t>(a.size());
  const int64_t start = *axis < 0 ? *axis + rank : *axis;
  if (start < 0 || start + static_cast<int64_t>(b.size()) > rank) {
    return MakeStatus(StatusCode::kInvalidArgument, "attribute 'axis' is ", *axis,
                      ": input 1 of shape ", ShapeToString(b), " does not fit input 0 of shape ",
                      ShapeToString(a), " from that axis");
  }
  b.resize(static_cast<size_t>(rank - start), 1);
  return b;
}

class BinaryKernel final : public Kernel {
 public:
  BinaryKernel(math::BinaryKind kind, math::BinaryAttrs attrs, Alignment alignment)
      : kind_(kind), attrs_(attrs), alignment_(alignment) {}

  Status Prepare(PrepareContext& ctx) override {
    a_type_ = ctx.input_dtype(0);
    b_type_ = ctx.input_dtype(1);
    const Shape a_shape = InputShape(ctx, 0);
    NXRT_ASSIGN_OR_RETURN(Shape b_shape, AlignB(a_shape, InputShape(ctx, 1), alignment_));
    NXRT_ASSIGN_OR_RETURN(plan_, math::PrepareBinary(kind_, a_type_, a_shape, b_type_, b_shape,
                                                     attrs_));
    parts_ = SplitBroadcast(plan_.geometry);
    // Each element of the output is written after the same element of an input of its dtype
    // and shape is read, so either such input may lend its buffer.
    if (ep::InPlaceOutputs* in_place = ep::InPlaceSupport(ctx)) {
      if (a_type_ == plan_.out_type && a_shape == plan_.out_shape) in_place->AllowInPlace(0, 0);
      if (b_type_ == plan_.out_type && b_shape == plan_.out_shape) in_place->AllowInPlace(0, 1);
    }
    return ctx.SetOutput(0, plan_.out_type, plan_.out_shape);
  }

  Status Compute(ComputeContext& ctx) override {
    const void* a = ctx.input(0)->raw_data();
    const void* b = ctx.input(1)->raw_data();
    void* out = ctx.output(0)->mutable_raw_data();
    ForEachPart(ctx, parts_, [&](const BroadcastPart& part) {
      plan_.fn(part.geometry, Advance(a, part.input_offsets[0], a_type_),
               Advance(b, part.input_offsets[1], b_type_),
               Advance(out, part.output_offset, plan_.out_type));
    });
    return Status::Ok();
  }

 private:
  math::BinaryKind kind_;
  math::BinaryAttrs attrs_;
  Alignment alignment_;
  DataType a_type_ = DataType::kUndefined;
  DataType b_type_ = DataType::kUndefined;
  math::BinaryPlan plan_;
  std::vector<BroadcastPart> parts_;
};

}  // namespace

ep::KernelFactory BinaryFactory(math::BinaryKind kind) {
  return [kind](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    math::BinaryAttrs attrs;
    if (kind == math::BinaryKind::kMod) {
      NXRT_ASSIGN_OR_RETURN(int64_t fmod, node.GetInt("fmod", 0));
      if (fmod != 0 && fmod != 1) {
        return node.Error(StatusCode::kInvalidModel, "attribute 'fmod' is ", fmod,
                          ", expected 0 or 1");
      }
      attrs.fmod = fmod == 1;
    }
    if (kind == math::BinaryKind::kBitShift) {
      NXRT_ASSIGN_OR_RETURN(std::string direction, node.GetString("direction"));
      if (direction != "LEFT" && direction != "RIGHT") {
        return node.Error(StatusCode::kInvalidModel, "attribute 'direction' is '", direction,
                          "', expected 'LEFT' or 'RIGHT'");
      }
      attrs.shift_left = direction == "LEFT";
    }
    return std::unique_ptr<Kernel>(std::make_unique<BinaryKernel>(kind, attrs, Alignment{}));
  };
}

ep::KernelFactory LegacyBinaryFactory(math::BinaryKind kind) {
  return [kind](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    Alignment alignment;
    alignment.prelu_channel = kind == math::BinaryKind::kPRelu;
    NXRT_ASSIGN_OR_RETURN(int64_t broadcast, node.GetInt("broadcast", 0));
    if (broadcast == 1 && node.HasAttribute("axis")) {
      NXRT_ASSIGN_OR_RETURN(alignment.axis, node.GetInt("axis"));
    }
    return std::unique_ptr<Kernel>(std::make_unique<BinaryKernel>(kind, math::BinaryAttrs{},
                                                                  alignment));
  };
}

}  // namespace nxrt::cpu::kernels
