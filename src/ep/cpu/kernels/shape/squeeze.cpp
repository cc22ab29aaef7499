// ep/cpu/kernels/shape/squeeze.cpp: glue of Squeeze and Unsqueeze, with their axes as an
// attribute (opset < 13) or as value input 1 (opset >= 13).
//
// Layer: nxrt_ep_cpu (kernel glue). Shape rules over the reshape-like kernel (reshape_like.h).
#include <memory>
#include <optional>
#include <vector>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/shape/reshape_like.h"
#include "ep/cpu/kernels/shape/shape.h"
#include "ep/cpu/math/shape_util.h"

namespace nxrt::cpu::kernels {
namespace {

Result<Shape> SqueezeShape(const Shape& in, const std::vector<int64_t>& axes) {
  NXRT_ASSIGN_OR_RETURN(std::vector<bool> mask,
                        math::AxesMask("Squeeze", axes, static_cast<int64_t>(in.size())));
  Shape out;
  for (size_t i = 0; i < in.size(); ++i) {
    const bool squeeze = axes.empty() ? in[i] == 1 : mask[i];
    if (squeeze && in[i] != 1) {
      return MakeStatus(StatusCode::kInvalidArgument, "axis ", i, " of input 0 ",
                        ShapeToString(in), " has size ", in[i], "; only size-1 axes squeeze");
    }
    if (!squeeze) out.push_back(in[i]);
  }
  return out;
}

Result<Shape> UnsqueezeShape(const Shape& in, const std::vector<int64_t>& axes) {
  const auto rank = static_cast<int64_t>(in.size() + axes.size());
  NXRT_ASSIGN_OR_RETURN(std::vector<bool> mask, math::AxesMask("Unsqueeze", axes, rank));
  Shape out;
  size_t next = 0;
  for (int64_t i = 0; i < rank; ++i) out.push_back(mask[i] ? 1 : in[next++]);
  return out;
}

// The axes of Squeeze/Unsqueeze: the attribute, or value input 1 when present.
Result<std::vector<int64_t>> Axes(const PrepareContext& ctx,
                                  const std::optional<std::vector<int64_t>>& attribute) {
  if (attribute) return *attribute;
  if (ctx.input_count() < 2 || !ctx.has_input(1)) return std::vector<int64_t>{};
  return ReadInt64s(ctx, 1, "input 1 'axes'");
}

}  // namespace

ep::KernelFactory SqueezeFactory(bool axes_as_input) {
  return [axes_as_input](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    std::optional<std::vector<int64_t>> attribute;
    if (!axes_as_input) {
      NXRT_ASSIGN_OR_RETURN(attribute, node.GetInts("axes", {}));
    }
    return MakeReshapeLikeKernel(
        [attribute](const PrepareContext& ctx, const Shape& in) -> Result<Shape> {
          NXRT_ASSIGN_OR_RETURN(std::vector<int64_t> axes, Axes(ctx, attribute));
          return SqueezeShape(in, axes);
        },
        axes_as_input && node.has_input(1) ? std::vector<int>{1} : std::vector<int>{});
  };
}

ep::KernelFactory UnsqueezeFactory(bool axes_as_input) {
  return [axes_as_input](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    std::optional<std::vector<int64_t>> attribute;
    if (!axes_as_input) {
      NXRT_ASSIGN_OR_RETURN(attribute, node.GetInts("axes"));
    }
    return MakeReshapeLikeKernel(
        [attribute](const PrepareContext& ctx, const Shape& in) -> Result<Shape> {
          NXRT_ASSIGN_OR_RETURN(std::vector<int64_t> axes, Axes(ctx, attribute));
          return UnsqueezeShape(in, axes);
        },
        axes_as_input ? std::vector<int>{1} : std::vector<int>{});
  };
}

}  // namespace nxrt::cpu::kernels
