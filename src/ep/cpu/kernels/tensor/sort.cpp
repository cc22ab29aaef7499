// ep/cpu/kernels/tensor/sort.cpp: glue of TopK and Unique over math/tensor/sort.h.
//
// Layer: nxrt_ep_cpu (kernel glue). TopK takes `k` from its attribute (opset 1) or from value
// input 1 (opset >= 10, a 1-element int64 tensor), and sorts in a workspace index buffer per
// range of rows; ranges run in parallel.
// Unique's output sizes depend on the data, so its used outputs are dynamic and allocated in
// Compute, as are the lists it builds to find them.
#include <algorithm>
#include <memory>
#include <vector>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/tensor/tensor.h"
#include "ep/cpu/math/tensor/sort.h"

namespace nxrt::cpu::kernels {
namespace {

class TopKKernel final : public Kernel {
 public:
  // `k_attribute` < 0: k comes from input 1.
  TopKKernel(int64_t k_attribute, int64_t axis, bool largest)
      : k_attribute_(k_attribute), axis_(axis), largest_(largest) {}

  std::vector<int> ValueInputs() const override {
    return k_attribute_ < 0 ? std::vector<int>{1} : std::vector<int>{};
  }

  Status Prepare(PrepareContext& ctx) override {
    int64_t k = k_attribute_;
    if (k < 0) {
      NXRT_ASSIGN_OR_RETURN(std::vector<int64_t> values, ReadInt64s(ctx, 1, "input 1 'K'"));
      if (values.size() != 1) {
        return MakeStatus(StatusCode::kInvalidArgument, "input 1 'K' has ", values.size(),
                          " elements, expected one");
      }
      k = values[0];
    }
    NXRT_ASSIGN_OR_RETURN(plan_, nn::PrepareTopK(ctx.input_dtype(0), ctx.input_shape(0), axis_,
                                                 k, largest_));
    // Up to one range of rows per thread, each with its own heap scratch.
    const int64_t rows = plan_.outer * plan_.inner;
    const auto parts = std::min<int64_t>(
        static_cast<int64_t>(SplitRows(rows, plan_.axis_dim).size()), ctx.thread_count());
    ranges_.clear();
    for (int64_t p = 0; p < parts; ++p) {
      ranges_.push_back({rows * p / parts, rows * (p + 1) / parts});
    }
    ctx.SetWorkspaceBytes(ranges_.size() * nn::TopKScratchBytes(plan_));
    NXRT_RETURN_IF_ERROR(ctx.SetOutput(0, plan_.dtype, plan_.output_shape));
    return ctx.SetOutput(1, DataType::kInt64, plan_.output_shape);
  }

  Status Compute(ComputeContext& ctx) override {
    auto* scratch = reinterpret_cast<int64_t*>(ctx.workspace().data());
    return ParallelForTry(ctx, static_cast<int64_t>(ranges_.size()), 1,
                          [&](int64_t begin, int64_t end) -> Status {
                            for (int64_t i = begin; i < end; ++i) {
                              const RowRange range = ranges_[static_cast<size_t>(i)];
                              NXRT_RETURN_IF_ERROR(nn::TopK(
                                  plan_, ctx.input(0)->raw_data(),
                                  ctx.output(0)->mutable_raw_data(),
                                  ctx.output(1)->mutable_data<int64_t>(), scratch + i * plan_.k,
                                  range.begin, range.end));
                            }
                            return Status::Ok();
                          });
  }

 private:
  int64_t k_attribute_;
  int64_t axis_;
  bool largest_;
  nn::TopKPlan plan_;
  std::vector<RowRange> ranges_;
};

class UniqueKernel final : public Kernel {
 public:
  UniqueKernel(bool has_axis, int64_t axis, bool sorted)
      : has_axis_(has_axis), axis_(axis), sorted_(sorted) {}

  Status Prepare(PrepareContext& ctx) override {
    NXRT_ASSIGN_OR_RETURN(plan_, nn::PrepareUnique(ctx.input_dtype(0), ctx.input_shape(0),
                                                   has_axis_, axis_, sorted_));
    NXRT_RETURN_IF_ERROR(ctx.SetOutputDynamic(0, plan_.dtype));
    // The optional outputs nobody reads (omitted or unconsumed) are declared empty instead of
    // computed: an omitted output cannot be allocated in Compute.
    used_.assign(4, false);
    for (int i = 1; i < ctx.output_count() && i <= 3; ++i) {
      used_[i] = ctx.output_used(i);
      NXRT_RETURN_IF_ERROR(used_[i] ? ctx.SetOutputDynamic(i, DataType::kInt64)
                                    : ctx.SetOutput(i, DataType::kInt64, {0}));
    }
    return Status::Ok();
  }

  Status Compute(ComputeContext& ctx) override {
    const void* input = ctx.input(0)->raw_data();
    NXRT_ASSIGN_OR_RETURN(nn::UniqueResult found, nn::FindUnique(plan_, input));
    NXRT_ASSIGN_OR_RETURN(Tensor* y, ctx.AllocateOutput(0, nn::UniqueOutputShape(plan_, found)));
    nn::GatherUnique(plan_, found, input, y->mutable_raw_data());
    // Outputs 1-3: indices (first occurrences), inverse_indices, counts; each optional.
    const std::vector<int64_t>* lists[] = {&found.first, &found.inverse, &found.counts};
    for (int i = 1; i < ctx.output_count() && i <= 3; ++i) {
      if (!used_[i]) continue;
      const std::vector<int64_t>& list = *lists[i - 1];
      NXRT_ASSIGN_OR_RETURN(Tensor* out,
                            ctx.AllocateOutput(i, {static_cast<int64_t>(list.size())}));
      std::copy(list.begin(), list.end(), out->mutable_data<int64_t>());
    }
    return Status::Ok();
  }

 private:
  bool has_axis_;
  int64_t axis_;
  bool sorted_;
  std::vector<bool> used_;  // per output slot, from Prepare
  nn::UniquePlan plan_;
};

}  // namespace

ep::KernelFactory TopKFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(const int64_t axis, node.GetInt("axis", -1));
    NXRT_ASSIGN_OR_RETURN(const int64_t largest, node.GetInt("largest", 1));
    int64_t k = -1;
    if (node.opset() < 10) {
      NXRT_ASSIGN_OR_RETURN(k, node.GetInt("k"));
      if (k < 0) {
        return node.Error(StatusCode::kInvalidModel, "attribute 'k' is ", k,
                          ", expected a non-negative count");
      }
    }
    return std::unique_ptr<Kernel>(std::make_unique<TopKKernel>(k, axis, largest != 0));
  };
}

ep::KernelFactory UniqueFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    const bool has_axis = node.HasAttribute("axis");
    NXRT_ASSIGN_OR_RETURN(const int64_t axis, node.GetInt("axis", 0));
    NXRT_ASSIGN_OR_RETURN(const int64_t sorted, node.GetInt("sorted", 1));
    return std::unique_ptr<Kernel>(std::make_unique<UniqueKernel>(has_axis, axis, sorted != 0));
  };
}

}  // namespace nxrt::cpu::kernels
