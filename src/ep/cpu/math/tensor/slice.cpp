// ep/cpu/math/tensor/slice.cpp: Slice. Layer: nxrt_cpu_math.
#include "ep/cpu/math/tensor/slice.h"

#include <algorithm>

#include "ep/cpu/math/nn_common.h"

namespace nxrt::cpu::nn {

Result<SlicePlan> PrepareSlice(DataType dtype, std::span<const int64_t> input_shape,
                               std::span<const int64_t> starts, std::span<const int64_t> ends,
                               std::span<const int64_t> axes, std::span<const int64_t> steps) {
  NXRT_RETURN_IF_ERROR(CheckDataType("Slice", dtype));
  NXRT_RETURN_IF_ERROR(CheckShape("Slice", "input", input_shape));
  const int64_t rank = static_cast<int64_t>(input_shape.size());
  const size_t n = starts.size();
  if (ends.size() != n || (!axes.empty() && axes.size() != n) ||
      (!steps.empty() && steps.size() != n)) {
    return MakeStatus(StatusCode::kInvalidArgument, "Slice: starts ", Str(starts), ", ends ",
                      Str(ends), ", axes ", Str(axes), " and steps ", Str(steps),
                      " must have the same length");
  }
  SlicePlan plan;
  plan.dtype = dtype;
  plan.output_shape.assign(input_shape.begin(), input_shape.end());
  const std::vector<int64_t> strides = ContiguousStrides(input_shape);
  plan.input_strides = strides;
  std::vector<bool> seen(rank, false);
  for (size_t i = 0; i < n; ++i) {
    NXRT_ASSIGN_OR_RETURN(
        const int64_t a,
        NormalizeAxis("Slice", axes.empty() ? static_cast<int64_t>(i) : axes[i], rank));
    if (seen[a]) {
      return MakeStatus(StatusCode::kInvalidArgument, "Slice: axes ", Str(axes), " repeat axis ",
                        a);
    }
    seen[a] = true;
    if (!steps.empty() && steps[i] == 0) {
      return MakeStatus(StatusCode::kInvalidArgument, "Slice: steps ", Str(steps),
                        " has a zero step for axis ", a);
    }
    const int64_t dim = input_shape[a];
    // A step longer than the dim takes at most one element; clamping keeps the arithmetic
    // below from overflowing for steps like INT64_MIN.
    const int64_t bound = std::max<int64_t>(dim, 1);
    const int64_t step = std::clamp<int64_t>(steps.empty() ? 1 : steps[i], -bound, bound);
    int64_t start = starts[i] < 0 ? starts[i] + dim : starts[i];
    int64_t end = ends[i] < 0 ? ends[i] + dim : ends[i];
    int64_t len = 0;
    if (dim == 0) {
      len = 0;
    } else if (step > 0) {
      start = std::clamp<int64_t>(start, 0, dim);
      end = std::clamp<int64_t>(end, 0, dim);
      if (end > start) len = (end - start - 1) / step + 1;
    } else {
      start = std::clamp<int64_t>(start, 0, dim - 1);
      end = std::clamp<int64_t>(end, -1, dim - 1);
      if (start > end) len = (start - end - 1) / (-step) + 1;
    }
    plan.output_shape[a] = len;
    if (len > 0) plan.input_offset += start * strides[a];
    plan.input_strides[a] = strides[a] * step;
  }
  plan.output_strides = ContiguousStrides(plan.output_shape);
  return plan;
}

Status Slice(const SlicePlan& plan, const void* input, void* output) {
  const auto* src = static_cast<const char*>(input) +
                    plan.input_offset * static_cast<int64_t>(DataTypeSize(plan.dtype));
  StridedCopy(plan.dtype, plan.output_shape, src, plan.input_strides, output, plan.output_strides);
  return Status::Ok();
}

}  // namespace nxrt::cpu::nn
