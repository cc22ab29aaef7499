// ep/cpu/kernels/tensor/transpose.cpp: glue of Transpose, DepthToSpace and SpaceToDepth over
// math/tensor/transpose.h.
//
// Layer: nxrt_ep_cpu (kernel glue). The three ops are one permuted copy; each factory binds the
// op's attributes into the function that plans it, and one kernel runs the plan.
#include <algorithm>
#include <functional>
#include <memory>
#include <utility>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/tensor/tensor.h"
#include "ep/cpu/math/tensor/transpose.h"

namespace nxrt::cpu::kernels {
namespace {

using PlanFn = std::function<Result<nn::PermutePlan>(DataType, std::span<const int64_t>)>;

class PermuteKernel final : public Kernel {
 public:
  explicit PermuteKernel(PlanFn plan_fn) : plan_fn_(std::move(plan_fn)) {}

  Status Prepare(PrepareContext& ctx) override {
    NXRT_ASSIGN_OR_RETURN(plan_, plan_fn_(ctx.input_dtype(0), ctx.input_shape(0)));
    return ctx.SetOutput(0, plan_.dtype, plan_.output_shape);
  }

  Status Compute(ComputeContext& ctx) override {
    const void* in = ctx.input(0)->raw_data();
    void* out = ctx.output(0)->mutable_raw_data();
    // Parts of at least ~64K elements per thread.
    const int64_t per_unit = std::max<int64_t>(1, plan_.elements_per_unit);
    const int64_t min_units = std::max<int64_t>(1, (int64_t{1} << 16) / per_unit);
    ctx.ParallelFor(plan_.units, min_units, [&](int64_t begin, int64_t end) {
      nn::PermuteRange(plan_, in, out, begin, end);
    });
    return Status::Ok();
  }

 private:
  PlanFn plan_fn_;
  nn::PermutePlan plan_;
};

Result<std::unique_ptr<Kernel>> MakeTransposeKernel(PlanFn plan_fn) {
  return std::unique_ptr<Kernel>(std::make_unique<PermuteKernel>(std::move(plan_fn)));
}

// The `blocksize` attribute, required and positive.
Result<int64_t> BlockSize(const NodeInfo& node) {
  NXRT_ASSIGN_OR_RETURN(int64_t blocksize, node.GetInt("blocksize"));
  if (blocksize < 1) {
    return node.Error(StatusCode::kInvalidModel, "attribute 'blocksize' is ", blocksize,
                      ", expected a positive integer");
  }
  return blocksize;
}

}  // namespace

ep::KernelFactory TransposeFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(std::vector<int64_t> perm, node.GetInts("perm", {}));
    return MakeTransposeKernel([perm](DataType dtype, std::span<const int64_t> shape) {
      return nn::PrepareTranspose(dtype, shape, perm);
    });
  };
}

ep::KernelFactory DepthToSpaceFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(int64_t blocksize, BlockSize(node));
    nn::DepthToSpaceMode mode = nn::DepthToSpaceMode::kDcr;
    if (node.opset() >= 11) {
      NXRT_ASSIGN_OR_RETURN(std::string text, node.GetString("mode", "DCR"));
      Result<nn::DepthToSpaceMode> parsed = nn::ParseDepthToSpaceMode(text);
      NXRT_RETURN_IF_ERROR(AttributeError(node, "mode", text, parsed.status()));
      mode = *parsed;
    }
    return MakeTransposeKernel([blocksize, mode](DataType dtype, std::span<const int64_t> shape) {
      return nn::PrepareDepthToSpace(dtype, shape, blocksize, mode);
    });
  };
}

ep::KernelFactory SpaceToDepthFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(int64_t blocksize, BlockSize(node));
    return MakeTransposeKernel([blocksize](DataType dtype, std::span<const int64_t> shape) {
      return nn::PrepareSpaceToDepth(dtype, shape, blocksize);
    });
  };
}

}  // namespace nxrt::cpu::kernels
