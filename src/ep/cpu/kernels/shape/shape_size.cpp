// ep/cpu/kernels/shape/shape_size.cpp: glue of Shape and Size, which read only the input's shape.
//
// Layer: nxrt_ep_cpu (kernel glue). Prepare computes the int64 values; Compute writes them.
#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/shape/shape.h"

namespace nxrt::cpu::kernels {
namespace {

class ShapeKernel final : public Kernel {
 public:
  // `range`: Shape's [start, end) attributes (end nullopt: the rank); nullopt for Size.
  explicit ShapeKernel(std::optional<std::pair<int64_t, std::optional<int64_t>>> range)
      : range_(range) {}

  Status Prepare(PrepareContext& ctx) override {
    const std::span<const int64_t> dims = ctx.input_shape(0);
    if (!range_) {
      NXRT_ASSIGN_OR_RETURN(int64_t count, ElementCount(dims));
      values_ = {count};
      return ctx.SetOutput(0, DataType::kInt64, {});
    }
    const auto rank = static_cast<int64_t>(dims.size());
    // Negative bounds count from the end; both are clamped to [0, rank] (Shape-15).
    const auto clamp = [rank](int64_t v) {
      return std::clamp(v < 0 ? v + rank : v, int64_t{0}, rank);
    };
    const int64_t start = clamp(range_->first);
    const int64_t end = clamp(range_->second.value_or(rank));
    values_.assign(dims.begin() + start, dims.begin() + std::max(start, end));
    return ctx.SetOutput(0, DataType::kInt64, {static_cast<int64_t>(values_.size())});
  }

  Status Compute(ComputeContext& ctx) override {
    std::copy(values_.begin(), values_.end(), ctx.output(0)->mutable_data<int64_t>());
    return Status::Ok();
  }

 private:
  std::optional<std::pair<int64_t, std::optional<int64_t>>> range_;
  std::vector<int64_t> values_;
};

}  // namespace

ep::KernelFactory ShapeFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(int64_t start, node.GetInt("start", 0));
    std::optional<int64_t> end;
    if (node.HasAttribute("end")) {
      NXRT_ASSIGN_OR_RETURN(end, node.GetInt("end"));
    }
    return std::unique_ptr<Kernel>(std::make_unique<ShapeKernel>(std::pair{start, end}));
  };
}

ep::KernelFactory SizeFactory() {
  return [](const NodeInfo&) -> Result<std::unique_ptr<Kernel>> {
    return std::unique_ptr<Kernel>(std::make_unique<ShapeKernel>(std::nullopt));
  };
}

}  // namespace nxrt::cpu::kernels
