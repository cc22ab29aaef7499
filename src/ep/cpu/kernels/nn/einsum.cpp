// ep/cpu/kernels/nn/einsum.cpp: glue of Einsum (math/nn/einsum.h).
//
// Layer: nxrt_ep_cpu (kernel glue). The required `equation` is parsed once by the factory; Prepare
// resolves it against the input shapes; Compute splits the output elements over the thread pool.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/nn/nn.h"
#include "ep/cpu/math/nn/einsum.h"

namespace nxrt::cpu::kernels {
namespace {

class EinsumKernel final : public Kernel {
 public:
  explicit EinsumKernel(math::EinsumEquation equation) : equation_(std::move(equation)) {}

  Status Prepare(PrepareContext& ctx) override {
    std::vector<Shape> shapes;
    for (int i = 0; i < ctx.input_count(); ++i) {
      if (ctx.input_dtype(i) != ctx.input_dtype(0)) {
        return MakeStatus(StatusCode::kInvalidArgument, "input ", i, " is ",
                          DataTypeName(ctx.input_dtype(i)), " but input 0 is ",
                          DataTypeName(ctx.input_dtype(0)), "; Einsum's inputs share one type");
      }
      shapes.push_back(InputShape(ctx, i));
    }
    NXRT_ASSIGN_OR_RETURN(plan_, math::PrepareEinsum(ctx.input_dtype(0), equation_, shapes));
    inputs_.assign(shapes.size(), nullptr);
    return ctx.SetOutput(0, ctx.input_dtype(0), plan_.output_shape);
  }

  Status Compute(ComputeContext& ctx) override {
    for (size_t i = 0; i < inputs_.size(); ++i) {
      inputs_[i] = ctx.input(static_cast<int>(i))->raw_data();
    }
    void* y = ctx.output(0)->mutable_raw_data();
    // Each output element sums over every summed label; chunk so that a task does about
    // kParallelGrain products.
    int64_t per_element = 1;
    for (int64_t s : plan_.sum_sizes) per_element *= s;
    const int64_t min_chunk =
        std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, per_element));
    ctx.ParallelFor(plan_.output_count, min_chunk, [&](int64_t begin, int64_t end) {
      math::Einsum(plan_, inputs_, y, begin, end);
    });
    return Status::Ok();
  }

 private:
  math::EinsumEquation equation_;
  math::EinsumPlan plan_;
  std::vector<const void*> inputs_;  // sized in Prepare, bound in Compute
};

}  // namespace

ep::KernelFactory EinsumFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(std::string equation, node.GetString("equation"));
    Result<math::EinsumEquation> parsed = math::ParseEinsum(equation);
    if (!parsed.ok()) {
      return node.Error(StatusCode::kInvalidModel, "attribute 'equation': ",
                        parsed.status().message());
    }
    return std::unique_ptr<Kernel>(std::make_unique<EinsumKernel>(std::move(parsed).value()));
  };
}

}  // namespace nxrt::cpu::kernels
