// ep/cpu/math/tensor/tile_expand.cpp: Tile and Expand. Layer: nxrt_cpu_math.
#include "ep/cpu/math/tensor/tile_expand.h"

#include "ep/cpu/math/nn_common.h"

namespace nxrt::cpu::nn {

Result<RepeatPlan> PrepareTile(DataType dtype, std::span<const int64_t> input_shape,
                               std::span<const int64_t> repeats) {
  NXRT_RETURN_IF_ERROR(CheckDataType("Tile", dtype));
  NXRT_RETURN_IF_ERROR(CheckShape("Tile", "input", input_shape));
  if (repeats.size() != input_shape.size()) {
    return MakeStatus(StatusCode::kInvalidArgument, "Tile: repeats ", Str(repeats), " has ",
                      repeats.size(), " entries but the input ", Str(input_shape), " has rank ",
                      input_shape.size());
  }
  RepeatPlan plan;
  plan.dtype = dtype;
  const std::vector<int64_t> strides = ContiguousStrides(input_shape);
  for (size_t i = 0; i < repeats.size(); ++i) {
    if (repeats[i] < 0) {
      return MakeStatus(StatusCode::kInvalidArgument, "Tile: repeats ", Str(repeats),
                        " has a negative entry");
    }
    int64_t dim = 0;
    if (__builtin_mul_overflow(input_shape[i], repeats[i], &dim)) {
      return MakeStatus(StatusCode::kOutOfMemory, "Tile: cannot allocate the output: axis ", i,
                        " of input ", Str(input_shape), " repeated ", repeats[i],
                        " times overflows int64");
    }
    plan.output_shape.push_back(dim);
    // Output index along dim i is (copy, j): a [repeats, dim] pair of view dims.
    plan.view_shape.push_back(repeats[i]);
    plan.view_strides.push_back(0);
    plan.view_shape.push_back(input_shape[i]);
    plan.view_strides.push_back(strides[i]);
  }
  plan.output_strides = ContiguousStrides(plan.view_shape);
  return plan;
}

Result<RepeatPlan> PrepareExpand(DataType dtype, std::span<const int64_t> input_shape,
                                 std::span<const int64_t> shape) {
  NXRT_RETURN_IF_ERROR(CheckDataType("Expand", dtype));
  NXRT_RETURN_IF_ERROR(CheckShape("Expand", "input", input_shape));
  NXRT_RETURN_IF_ERROR(CheckShape("Expand", "the shape input", shape));
  RepeatPlan plan;
  plan.dtype = dtype;
  NXRT_ASSIGN_OR_RETURN(plan.output_shape, BroadcastShapes("Expand", input_shape, shape));
  plan.view_shape = plan.output_shape;
  plan.view_strides = BroadcastStrides(input_shape, plan.output_shape);
  plan.output_strides = ContiguousStrides(plan.output_shape);
  return plan;
}

Status Repeat(const RepeatPlan& plan, const void* input, void* output) {
  StridedCopy(plan.dtype, plan.view_shape, input, plan.view_strides, output, plan.output_strides);
  return Status::Ok();
}

}  // namespace nxrt::cpu::nn
