// ep/cpu/math/tensor/transpose.cpp: Transpose, DepthToSpace, SpaceToDepth. Layer: nxrt_cpu_math.
#include "ep/cpu/math/tensor/transpose.h"

#include "ep/cpu/math/nn_common.h"

namespace nxrt::cpu::nn {

namespace {

// Plan for output = transpose(reshape(input, view), perm).
PermutePlan MakePermutePlan(DataType dtype, std::span<const int64_t> view,
                            std::span<const int64_t> perm) {
  PermutePlan plan;
  plan.dtype = dtype;
  const std::vector<int64_t> strides = ContiguousStrides(view);
  for (int64_t p : perm) {
    plan.view_shape.push_back(view[p]);
    plan.view_strides.push_back(strides[p]);
  }
  plan.output_shape = plan.view_shape;
  plan.output_strides = ContiguousStrides(plan.view_shape);
  CoalesceView(plan.view_shape, plan.view_strides, plan.output_strides);
  const int64_t count = Product(plan.view_shape);
  if (dtype != DataType::kString && !plan.view_shape.empty() && count > 0) {
    plan.units = plan.view_shape[0];
  }
  plan.elements_per_unit = count / plan.units;
  return plan;
}

Status CheckNchw(std::string_view op, DataType dtype, std::span<const int64_t> shape,
                 int64_t blocksize) {
  NXRT_RETURN_IF_ERROR(CheckDataType(op, dtype));
  NXRT_RETURN_IF_ERROR(CheckShape(op, "input", shape));
  if (shape.size() != 4) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": input has shape ", Str(shape),
                      ", expected rank 4 [N,C,H,W]");
  }
  if (blocksize < 1) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": blocksize is ", blocksize,
                      ", expected >= 1");
  }
  return Status::Ok();
}

}  // namespace

Result<PermutePlan> PrepareTranspose(DataType dtype, std::span<const int64_t> input_shape,
                                     std::span<const int64_t> perm) {
  NXRT_RETURN_IF_ERROR(CheckDataType("Transpose", dtype));
  NXRT_RETURN_IF_ERROR(CheckShape("Transpose", "input", input_shape));
  const int64_t rank = static_cast<int64_t>(input_shape.size());
  std::vector<int64_t> p;
  if (perm.empty()) {
    for (int64_t i = rank - 1; i >= 0; --i) p.push_back(i);
  } else {
    if (static_cast<int64_t>(perm.size()) != rank) {
      return MakeStatus(StatusCode::kInvalidArgument, "Transpose: perm ", Str(perm), " has ",
                        perm.size(), " entries but the input ", Str(input_shape), " has rank ",
                        rank);
    }
    std::vector<bool> seen(rank, false);
    for (int64_t a : perm) {
      if (a < 0 || a >= rank || seen[a]) {
        return MakeStatus(StatusCode::kInvalidArgument, "Transpose: perm ", Str(perm),
                          " is not a permutation of 0..", rank - 1, " (input ", Str(input_shape),
                          ")");
      }
      seen[a] = true;
    }
    p.assign(perm.begin(), perm.end());
  }
  return MakePermutePlan(dtype, input_shape, p);
}

Result<DepthToSpaceMode> ParseDepthToSpaceMode(std::string_view mode) {
  if (mode == "DCR") return DepthToSpaceMode::kDcr;
  if (mode == "CRD") return DepthToSpaceMode::kCrd;
  return MakeStatus(StatusCode::kInvalidArgument, "DepthToSpace: mode '", mode,
                    "' is not supported (expected DCR or CRD)");
}

Result<PermutePlan> PrepareDepthToSpace(DataType dtype, std::span<const int64_t> input_shape,
                                        int64_t blocksize, DepthToSpaceMode mode) {
  NXRT_RETURN_IF_ERROR(CheckNchw("DepthToSpace", dtype, input_shape, blocksize));
  const int64_t n = input_shape[0], c = input_shape[1], h = input_shape[2], w = input_shape[3];
  const int64_t b = blocksize;
  if (c % (b * b) != 0) {
    return MakeStatus(StatusCode::kInvalidArgument, "DepthToSpace: input ", Str(input_shape),
                      " has ", c, " channels, not divisible by blocksize² = ", b * b);
  }
  const int64_t oc = c / (b * b);
  if (mode == DepthToSpaceMode::kDcr) {
    const int64_t view[] = {n, b, b, oc, h, w};
    const int64_t perm[] = {0, 3, 4, 1, 5, 2};
    PermutePlan plan = MakePermutePlan(dtype, view, perm);
    plan.output_shape = {n, oc, h * b, w * b};
    return plan;
  }
  const int64_t view[] = {n, oc, b, b, h, w};
  const int64_t perm[] = {0, 1, 4, 2, 5, 3};
  PermutePlan plan = MakePermutePlan(dtype, view, perm);
  plan.output_shape = {n, oc, h * b, w * b};
  return plan;
}

Result<PermutePlan> PrepareSpaceToDepth(DataType dtype, std::span<const int64_t> input_shape,
                                        int64_t blocksize) {
  NXRT_RETURN_IF_ERROR(CheckNchw("SpaceToDepth", dtype, input_shape, blocksize));
  const int64_t n = input_shape[0], c = input_shape[1], h = input_shape[2], w = input_shape[3];
  const int64_t b = blocksize;
  if (h % b != 0 || w % b != 0) {
    return MakeStatus(StatusCode::kInvalidArgument, "SpaceToDepth: input ", Str(input_shape),
                      " has spatial dims not divisible by blocksize ", b);
  }
  const int64_t view[] = {n, c, h / b, b, w / b, b};
  const int64_t perm[] = {0, 3, 5, 1, 2, 4};
  PermutePlan plan = MakePermutePlan(dtype, view, perm);
  plan.output_shape = {n, c * b * b, h / b, w / b};
  return plan;
}

Status Permute(const PermutePlan& plan, const void* input, void* output) {
  StridedCopy(plan.dtype, plan.view_shape, input, plan.view_strides, output, plan.output_strides);
  return Status::Ok();
}

void PermuteRange(const PermutePlan& plan, const void* input, void* output, int64_t begin,
                  int64_t end) {
  if (plan.units == 1) {
    StridedCopy(plan.dtype, plan.view_shape, input, plan.view_strides, output,
                plan.output_strides);
    return;
  }
  const int64_t size = static_cast<int64_t>(DataTypeSize(plan.dtype));
  Shape part = plan.view_shape;
  part[0] = end - begin;
  StridedCopy(plan.dtype, part,
              static_cast<const std::byte*>(input) + begin * plan.view_strides[0] * size,
              plan.view_strides,
              static_cast<std::byte*>(output) + begin * plan.output_strides[0] * size,
              plan.output_strides);
}

}  // namespace nxrt::cpu::nn
