// ep/cpu/kernels/nn/det.cpp: glue of Det (math/nn/det.h).
//
// Layer: nxrt_ep_cpu (kernel glue). No attributes; the LU factorisation works in an M x M double
// workspace, one matrix at a time per range of the batch; ranges run in parallel.
#include <algorithm>
#include <memory>
#include <vector>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/nn/nn.h"
#include "ep/cpu/math/nn/det.h"

namespace nxrt::cpu::kernels {
namespace {

class DetKernel final : public Kernel {
 public:
  Status Prepare(PrepareContext& ctx) override {
    NXRT_ASSIGN_OR_RETURN(plan_, math::PrepareDet(ctx.input_dtype(0), InputShape(ctx, 0)));
    // Up to one range of matrices per thread when the eliminations (about M^3 / 3 steps each)
    // are worth it, each range with its own scratch matrix.
    const int64_t m = plan_.m;
    const auto parts = std::min<int64_t>(
        static_cast<int64_t>(SplitRows(plan_.batch, std::max<int64_t>(1, m * m * m / 3)).size()),
        ctx.thread_count());
    ranges_.clear();
    for (int64_t p = 0; p < parts; ++p) {
      ranges_.push_back({plan_.batch * p / parts, plan_.batch * (p + 1) / parts});
    }
    ctx.SetWorkspaceBytes(ranges_.size() * static_cast<size_t>(math::DetScratchElements(plan_)) *
                          sizeof(double));
    return ctx.SetOutput(0, ctx.input_dtype(0), plan_.output_shape);
  }

  Status Compute(ComputeContext& ctx) override {
    auto* scratch = reinterpret_cast<double*>(ctx.workspace().data());
    const int64_t scratch_elements = math::DetScratchElements(plan_);
    ForEachIndex(ctx, static_cast<int64_t>(ranges_.size()), [&](int64_t i) {
      const RowRange range = ranges_[static_cast<size_t>(i)];
      math::Det(plan_, ctx.input(0)->raw_data(), ctx.output(0)->mutable_raw_data(),
                scratch + i * scratch_elements, range.begin, range.end);
    });
    return Status::Ok();
  }

 private:
  math::DetPlan plan_;
  std::vector<RowRange> ranges_;
};

}  // namespace

ep::KernelFactory DetFactory() {
  return [](const NodeInfo&) -> Result<std::unique_ptr<Kernel>> {
    return std::unique_ptr<Kernel>(std::make_unique<DetKernel>());
  };
}

}  // namespace nxrt::cpu::kernels
