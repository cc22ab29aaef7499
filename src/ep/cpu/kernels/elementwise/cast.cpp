// ep/cpu/kernels/elementwise/cast.cpp: glue of Cast and CastLike over math/elementwise/cast.h.
//
// Layer: nxrt_ep_cpu (kernel glue). The target type comes from Cast's `to` attribute (checked at
// creation) or from CastLike's input 1 (at prepare time); Compute converts element ranges in
// parallel and reports the first unparseable string.
#include <memory>
#include <optional>
#include <string>

#include "ep/cpu/kernels/elementwise/elementwise.h"
#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/math/elementwise/cast.h"

namespace nxrt::cpu::kernels {
namespace {

class CastKernel final : public Kernel {
 public:
  // `to`: the target type, or nullopt to take input 1's type (CastLike).
  // `saturate`: Cast-19's attribute for float8 targets.
  CastKernel(std::optional<DataType> to, bool saturate) : to_(to), saturate_(saturate) {}

  Status Prepare(PrepareContext& ctx) override {
    const DataType to = to_ ? *to_ : ctx.input_dtype(1);
    NXRT_ASSIGN_OR_RETURN(plan_, math::PrepareCast(ctx.input_dtype(0), to, saturate_));
    return ctx.SetOutput(0, to, InputShape(ctx, 0));
  }

  Status Compute(ComputeContext& ctx) override {
    const void* in = ctx.input(0)->raw_data();
    void* out = ctx.output(0)->mutable_raw_data();
    if (IsPacked4Bit(plan_.from) || IsPacked4Bit(plan_.to)) {
      // Packed nibbles: one range, so no two ranges write halves of one byte.
      return plan_.fn(in, out, ctx.input(0)->element_count());
    }
    return ParallelRangesTry(ctx, ctx.input(0)->element_count(), [&](int64_t begin, int64_t end) {
      return plan_.fn(Advance(in, begin, plan_.from), Advance(out, begin, plan_.to), end - begin);
    });
  }

 private:
  std::optional<DataType> to_;
  bool saturate_ = true;
  math::CastPlan plan_;
};

// The type `to` names when Cast can produce it; otherwise why not.
Result<DataType> CastTarget(const NodeInfo& node) {
  NXRT_ASSIGN_OR_RETURN(int64_t to, node.GetInt("to"));
  const std::optional<DataType> type = DataTypeFromOnnx(static_cast<int32_t>(to));
  if (!type || !math::PrepareCast(DataType::kFloat, *type).ok()) {
    return MakeStatus(StatusCode::kUnsupported, "attribute 'to' is ", to, " (",
                      type ? DataTypeName(*type) : std::string_view("an element type nxrt lacks"),
                      "); the CPU EP casts to numeric types, float8, int4, bool and string "
                      "only");
  }
  return *type;
}

}  // namespace

ep::KernelFactory CastFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(DataType to, CastTarget(node));
    NXRT_ASSIGN_OR_RETURN(int64_t saturate, node.GetInt("saturate", 1));
    return std::unique_ptr<Kernel>(std::make_unique<CastKernel>(to, saturate != 0));
  };
}

ep::KernelFactory CastLikeFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(int64_t saturate, node.GetInt("saturate", 1));
    return std::unique_ptr<Kernel>(std::make_unique<CastKernel>(std::nullopt, saturate != 0));
  };
}

ep::KernelCheck CastCheck() {
  return [](const NodeInfo& node) {
    Result<DataType> to = CastTarget(node);
    return to.ok() ? KernelMatch::Supported() : KernelMatch::Unsupported(to.status().message());
  };
}

}  // namespace nxrt::cpu::kernels
