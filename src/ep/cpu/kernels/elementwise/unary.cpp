// ep/cpu/kernels/elementwise/unary.cpp: glue of the unary ops of math/elementwise/unary.h (Abs ...
// IsInf, Not, BitwiseNot, the activations) and of Clip in both of its ONNX forms.
//
// Layer: nxrt_ep_cpu (kernel glue). Attributes are read once at creation over the ONNX defaults;
// Prepare resolves the typed function; Compute runs it over element ranges in parallel.
#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include "ep/cpu/kernels/elementwise/elementwise.h"
#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/math/element_types.h"
#include "ep/in_place.h"

namespace nxrt::cpu::kernels {
namespace {

class UnaryKernel final : public Kernel {
 public:
  UnaryKernel(math::UnaryKind kind, math::UnaryAttrs attrs) : kind_(kind), attrs_(attrs) {}

  Status Prepare(PrepareContext& ctx) override {
    in_type_ = ctx.input_dtype(0);
    NXRT_ASSIGN_OR_RETURN(plan_, math::PrepareUnary(kind_, in_type_, attrs_));
    // Element i of the output is written after element i of the input is read.
    ep::InPlaceOutputs* in_place = ep::InPlaceSupport(ctx);
    if (in_place != nullptr && plan_.out_type == in_type_) in_place->AllowInPlace(0, 0);
    return ctx.SetOutput(0, plan_.out_type, InputShape(ctx, 0));
  }

  Status Compute(ComputeContext& ctx) override {
    const void* in = ctx.input(0)->raw_data();
    void* out = ctx.output(0)->mutable_raw_data();
    ParallelRanges(ctx, ctx.input(0)->element_count(), [&](int64_t begin, int64_t end) {
      plan_.fn(plan_.attrs, Advance(in, begin, in_type_), Advance(out, begin, plan_.out_type),
               end - begin);
    });
    return Status::Ok();
  }

 private:
  math::UnaryKind kind_;
  math::UnaryAttrs attrs_;
  DataType in_type_ = DataType::kUndefined;
  math::UnaryPlan plan_;
};

// Where Clip's bounds come from: inputs 1 and 2 (opset >= 11) or the float attributes of opset
// 6-10, converted to the input's type at prepare time (an absent bound is no bound).
struct ClipBounds {
  bool from_inputs = false;
  std::optional<float> min_attr;
  std::optional<float> max_attr;
};

class ClipKernel final : public Kernel {
 public:
  explicit ClipKernel(ClipBounds bounds) : bounds_(bounds) {}

  Status Prepare(PrepareContext& ctx) override {
    type_ = ctx.input_dtype(0);
    NXRT_ASSIGN_OR_RETURN(plan_, math::PrepareClip(type_));
    if (bounds_.from_inputs) {
      for (int i : {1, 2}) {
        if (i >= ctx.input_count() || !ctx.has_input(i)) continue;
        const char* name = i == 1 ? "input 1 'min'" : "input 2 'max'";
        if (ctx.input_dtype(i) != type_) {
          return MakeStatus(StatusCode::kInvalidArgument, name, " has type ",
                            DataTypeName(ctx.input_dtype(i)), " but input 0 has type ",
                            DataTypeName(type_));
        }
        NXRT_ASSIGN_OR_RETURN(int64_t count, ElementCount(ctx.input_shape(i)));
        if (count != 1) {
          return MakeStatus(StatusCode::kInvalidArgument, name, " has shape ",
                            ShapeToString(ctx.input_shape(i)), ", expected a scalar");
        }
      }
    } else {
      NXRT_RETURN_IF_ERROR(math::DispatchType<math::NumericTypesBf16>(type_, "Clip", [&](auto tag) {
        using T = typename decltype(tag)::type;
        const T lo = math::ConvertElement<T>(bounds_.min_attr.value_or(0));
        const T hi = math::ConvertElement<T>(bounds_.max_attr.value_or(0));
        std::memcpy(min_bytes_, &lo, sizeof(T));
        std::memcpy(max_bytes_, &hi, sizeof(T));
      }));
    }
    return ctx.SetOutput(0, type_, InputShape(ctx, 0));
  }

  Status Compute(ComputeContext& ctx) override {
    const void* lo = bounds_.min_attr ? min_bytes_ : nullptr;
    const void* hi = bounds_.max_attr ? max_bytes_ : nullptr;
    if (bounds_.from_inputs) {
      lo = ctx.input_count() > 1 && ctx.input(1) ? ctx.input(1)->raw_data() : nullptr;
      hi = ctx.input_count() > 2 && ctx.input(2) ? ctx.input(2)->raw_data() : nullptr;
    }
    const void* in = ctx.input(0)->raw_data();
    void* out = ctx.output(0)->mutable_raw_data();
    ParallelRanges(ctx, ctx.input(0)->element_count(), [&](int64_t begin, int64_t end) {
      plan_.fn(Advance(in, begin, type_), Advance(out, begin, type_), end - begin, lo, hi);
    });
    return Status::Ok();
  }

 private:
  ClipBounds bounds_;
  alignas(16) std::byte min_bytes_[16] = {};
  alignas(16) std::byte max_bytes_[16] = {};
  DataType type_ = DataType::kUndefined;
  math::ClipPlan plan_;
};

}  // namespace

ep::KernelFactory UnaryFactory(math::UnaryKind kind) {
  return [kind](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    math::UnaryAttrs attrs = math::DefaultUnaryAttrs(kind);
    NXRT_ASSIGN_OR_RETURN(attrs.alpha, node.GetFloat("alpha", attrs.alpha));
    NXRT_ASSIGN_OR_RETURN(attrs.beta, node.GetFloat("beta", attrs.beta));
    NXRT_ASSIGN_OR_RETURN(attrs.gamma, node.GetFloat("gamma", attrs.gamma));
    NXRT_ASSIGN_OR_RETURN(attrs.lambd, node.GetFloat("lambd", attrs.lambd));
    NXRT_ASSIGN_OR_RETURN(attrs.bias, node.GetFloat("bias", attrs.bias));
    const Result<std::string> approximate = node.GetString("approximate", "none");
    if (!approximate.ok()) return approximate.status();
    if (*approximate != "none" && *approximate != "tanh") {
      return node.Error(StatusCode::kInvalidModel, "attribute 'approximate' is '", *approximate,
                        "', expected 'none' or 'tanh'");
    }
    attrs.gelu_tanh = *approximate == "tanh";
    NXRT_ASSIGN_OR_RETURN(int64_t detect_negative, node.GetInt("detect_negative", 1));
    NXRT_ASSIGN_OR_RETURN(int64_t detect_positive, node.GetInt("detect_positive", 1));
    attrs.detect_negative = detect_negative != 0;
    attrs.detect_positive = detect_positive != 0;
    return std::unique_ptr<Kernel>(std::make_unique<UnaryKernel>(kind, attrs));
  };
}

ep::KernelFactory ClipFactory(bool bounds_as_inputs) {
  return [bounds_as_inputs](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    ClipBounds bounds;
    bounds.from_inputs = bounds_as_inputs;
    if (!bounds_as_inputs && node.HasAttribute("min")) {
      NXRT_ASSIGN_OR_RETURN(bounds.min_attr, node.GetFloat("min"));
    }
    if (!bounds_as_inputs && node.HasAttribute("max")) {
      NXRT_ASSIGN_OR_RETURN(bounds.max_attr, node.GetFloat("max"));
    }
    return std::unique_ptr<Kernel>(std::make_unique<ClipKernel>(bounds));
  };
}

}  // namespace nxrt::cpu::kernels
