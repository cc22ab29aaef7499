// ep/cpu/kernels/reduction/reduce.cpp: glue of Reduce* and ArgMax/ArgMin over
// math/reduction/reduce.h.
//
// Layer: nxrt_ep_cpu (kernel glue). Prepare normalises the axes (attribute, or input 1 as a value
// input) and resolves the plan; Compute splits the outermost kept dim into parts run in parallel
// when the input is large.
#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/reduction/reduction.h"
#include "ep/cpu/math/shape_util.h"

namespace nxrt::cpu::kernels {
namespace {

// Parts of a reduction: ranges of the outermost kept dim.
struct ReducePart {
  math::AxesSplit split;
  int64_t input_offset = 0;   // elements
  int64_t output_offset = 0;  // elements
};

std::vector<ReducePart> SplitReduction(const math::AxesSplit& split) {
  if (split.kept_dims.empty() || split.kept_count == 0) return {ReducePart{split, 0, 0}};
  const int64_t rows = split.kept_dims.front();
  const int64_t row_outputs = split.kept_count / rows;
  std::vector<ReducePart> parts;
  // A reduction reads each element once (ReduceMax over 128x768 took 4 times as long at 2
  // threads as at 1 when split like elementwise arithmetic).
  const int64_t grain = MinItemsPerPart(kStreamNsPerElement);
  for (RowRange range : SplitRows(rows, row_outputs * split.reduced_count, grain)) {
    ReducePart part{split, range.begin * split.kept_strides.front(), range.begin * row_outputs};
    part.split.kept_dims.front() = range.end - range.begin;
    part.split.kept_count = (range.end - range.begin) * row_outputs;
    parts.push_back(std::move(part));
  }
  return parts;
}

class ReduceKernel final : public Kernel {
 public:
  // `axes`: the attribute's axes, or nullopt to read optional input 1.
  ReduceKernel(math::ReduceKind kind, math::ReduceAttrs attrs,
               std::optional<std::vector<int64_t>> axes, bool has_axes_input)
      : kind_(kind), attrs_(attrs), axes_(std::move(axes)), has_axes_input_(has_axes_input) {}

  std::vector<int> ValueInputs() const override {
    return has_axes_input_ ? std::vector<int>{1} : std::vector<int>{};
  }

  Status Prepare(PrepareContext& ctx) override {
    std::vector<int64_t> axes = axes_.value_or(std::vector<int64_t>{});
    if (has_axes_input_) {
      NXRT_ASSIGN_OR_RETURN(axes, ReadInt64s(ctx, 1, "input 1 'axes'"));
    }
    NXRT_ASSIGN_OR_RETURN(plan_, math::PrepareReduce(kind_, ctx.input_dtype(0),
                                                     InputShape(ctx, 0), axes, attrs_));
    parts_ = SplitReduction(plan_.split);
    return ctx.SetOutput(0, plan_.type, plan_.out_shape);
  }

  Status Compute(ComputeContext& ctx) override {
    const void* in = ctx.input(0)->raw_data();
    void* out = ctx.output(0)->mutable_raw_data();
    ForEachIndex(ctx, static_cast<int64_t>(parts_.size()), [&](int64_t i) {
      const ReducePart& part = parts_[static_cast<size_t>(i)];
      plan_.fn(part.split, Advance(in, part.input_offset, plan_.type),
               Advance(out, part.output_offset, plan_.type));
    });
    return Status::Ok();
  }

 private:
  math::ReduceKind kind_;
  math::ReduceAttrs attrs_;
  std::optional<std::vector<int64_t>> axes_;
  bool has_axes_input_;
  math::ReducePlan plan_;
  std::vector<ReducePart> parts_;
};

class ArgReduceKernel final : public Kernel {
 public:
  ArgReduceKernel(bool is_max, math::ArgReduceAttrs attrs) : is_max_(is_max), attrs_(attrs) {}

  Status Prepare(PrepareContext& ctx) override {
    type_ = ctx.input_dtype(0);
    NXRT_ASSIGN_OR_RETURN(plan_,
                          math::PrepareArgReduce(is_max_, type_, InputShape(ctx, 0), attrs_));
    return ctx.SetOutput(0, DataType::kInt64, plan_.out_shape);
  }

  Status Compute(ComputeContext& ctx) override {
    if (plan_.axis_dim == 0 || plan_.outer == 0 || plan_.inner == 0) return Status::Ok();
    const void* in = ctx.input(0)->raw_data();
    int64_t* out = ctx.output(0)->mutable_data<int64_t>();
    const int64_t block = plan_.axis_dim * plan_.inner;
    // Tasks are column ranges of the outer blocks (whole blocks when one is small): one outer
    // block (1x256x56x56 over axis 1) still spreads over the threads.
    const int64_t columns = std::min(
        plan_.inner, std::max<int64_t>(64, (kParallelGrain / plan_.axis_dim + 63) / 64 * 64));
    const int64_t per_block = (plan_.inner + columns - 1) / columns;
    const int64_t task_elements = plan_.axis_dim * columns;
    const int64_t min_tasks = std::max<int64_t>(1, kParallelGrain / task_elements);
    ctx.ParallelFor(plan_.outer * per_block, min_tasks, [&](int64_t begin, int64_t end) {
      if (per_block == 1) {
        plan_.fn(end - begin, plan_.axis_dim, plan_.inner, plan_.inner, plan_.select_last_index,
                 Advance(in, begin * block, type_), out + begin * plan_.inner);
        return;
      }
      for (int64_t t = begin; t < end; ++t) {
        const int64_t o = t / per_block;
        const int64_t c = t % per_block * columns;
        plan_.fn(1, plan_.axis_dim, plan_.inner, std::min(columns, plan_.inner - c),
                 plan_.select_last_index, Advance(in, o * block + c, type_),
                 out + o * plan_.inner + c);
      }
    });
    return Status::Ok();
  }

 private:
  bool is_max_;
  math::ArgReduceAttrs attrs_;
  DataType type_ = DataType::kUndefined;
  math::ArgReducePlan plan_;
};

// An attribute that must be 0 or 1, as a bool.
Result<bool> FlagAttribute(const NodeInfo& node, std::string_view name, int64_t default_value) {
  NXRT_ASSIGN_OR_RETURN(int64_t value, node.GetInt(name, default_value));
  if (value != 0 && value != 1) {
    return node.Error(StatusCode::kInvalidModel, "attribute '", name, "' is ", value,
                      ", expected 0 or 1");
  }
  return value == 1;
}

}  // namespace

ep::KernelFactory ReduceFactory(math::ReduceKind kind, bool axes_as_input) {
  return [kind, axes_as_input](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    math::ReduceAttrs attrs;
    NXRT_ASSIGN_OR_RETURN(attrs.keepdims, FlagAttribute(node, "keepdims", 1));
    NXRT_ASSIGN_OR_RETURN(attrs.noop_with_empty_axes,
                          FlagAttribute(node, "noop_with_empty_axes", 0));
    std::optional<std::vector<int64_t>> axes;
    if (!axes_as_input) {
      NXRT_ASSIGN_OR_RETURN(axes, node.GetInts("axes", {}));
    }
    return std::unique_ptr<Kernel>(std::make_unique<ReduceKernel>(
        kind, attrs, std::move(axes), axes_as_input && node.has_input(1)));
  };
}

ep::KernelFactory ArgReduceFactory(bool is_max) {
  return [is_max](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    math::ArgReduceAttrs attrs;
    NXRT_ASSIGN_OR_RETURN(attrs.axis, node.GetInt("axis", 0));
    NXRT_ASSIGN_OR_RETURN(attrs.keepdims, FlagAttribute(node, "keepdims", 1));
    NXRT_ASSIGN_OR_RETURN(attrs.select_last_index, FlagAttribute(node, "select_last_index", 0));
    return std::unique_ptr<Kernel>(std::make_unique<ArgReduceKernel>(is_max, attrs));
  };
}

}  // namespace nxrt::cpu::kernels
