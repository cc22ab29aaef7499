// ep/cpu/kernels/tensor/gather.cpp: glue of Gather, GatherElements and GatherND over
// math/tensor/gather.h.
//
// Layer: nxrt_ep_cpu (kernel glue). Prepare plans from the data and indices shapes; the indices
// are data, so an index out of range is found in Compute and reported as kRuntimeError naming
// the index and the axis size.
#include <memory>

#include "ep/cpu/kernels/tensor/tensor.h"
#include "ep/cpu/math/tensor/gather.h"

namespace nxrt::cpu::kernels {
namespace {

enum class GatherKind { kGather, kElements, kND };

class GatherKernel final : public Kernel {
 public:
  // `param`: the axis (Gather, GatherElements) or batch_dims (GatherND).
  GatherKernel(GatherKind kind, int64_t param) : kind_(kind), param_(param) {}

  Status Prepare(PrepareContext& ctx) override {
    const DataType dtype = ctx.input_dtype(0);
    const DataType index_type = ctx.input_dtype(1);
    const auto data = ctx.input_shape(0);
    const auto indices = ctx.input_shape(1);
    switch (kind_) {
      case GatherKind::kGather: {
        NXRT_ASSIGN_OR_RETURN(gather_, nn::PrepareGather(dtype, data, index_type, indices,
                                                         param_));
        return ctx.SetOutput(0, dtype, gather_.output_shape);
      }
      case GatherKind::kElements: {
        NXRT_ASSIGN_OR_RETURN(elements_, nn::PrepareGatherElements(dtype, data, index_type,
                                                                   indices, param_));
        return ctx.SetOutput(0, dtype, elements_.output_shape);
      }
      case GatherKind::kND: {
        NXRT_ASSIGN_OR_RETURN(nd_, nn::PrepareGatherND(dtype, data, index_type, indices,
                                                       param_));
        return ctx.SetOutput(0, dtype, nd_.output_shape);
      }
    }
    return Status(StatusCode::kInternal, "unknown gather kind");
  }

  Status Compute(ComputeContext& ctx) override {
    const void* data = ctx.input(0)->raw_data();
    const void* indices = ctx.input(1)->raw_data();
    void* out = ctx.output(0)->mutable_raw_data();
    switch (kind_) {
      case GatherKind::kGather:
        return AsRuntimeError(nn::Gather(gather_, data, indices, out));
      case GatherKind::kElements:
        return AsRuntimeError(nn::GatherElements(elements_, data, indices, out));
      case GatherKind::kND:
        return AsRuntimeError(nn::GatherND(nd_, data, indices, out));
    }
    return Status(StatusCode::kInternal, "unknown gather kind");
  }

 private:
  GatherKind kind_;
  int64_t param_;
  nn::GatherPlan gather_;
  nn::GatherElementsPlan elements_;
  nn::GatherNDPlan nd_;
};

// A factory reading the int attribute `name` (default 0) as the kernel's parameter.
ep::KernelFactory GatherKindFactory(GatherKind kind, const char* name) {
  return [kind, name](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(int64_t param, node.GetInt(name, 0));
    return std::unique_ptr<Kernel>(std::make_unique<GatherKernel>(kind, param));
  };
}

}  // namespace

ep::KernelFactory GatherFactory() { return GatherKindFactory(GatherKind::kGather, "axis"); }

ep::KernelFactory GatherElementsFactory() {
  return GatherKindFactory(GatherKind::kElements, "axis");
}

ep::KernelFactory GatherNDFactory() { return GatherKindFactory(GatherKind::kND, "batch_dims"); }

}  // namespace nxrt::cpu::kernels
