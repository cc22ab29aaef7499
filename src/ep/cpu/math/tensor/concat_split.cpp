// ep/cpu/math/tensor/concat_split.cpp: Concat and Split. Layer: nxrt_cpu_math.
#include "ep/cpu/math/tensor/concat_split.h"

#include <algorithm>

#include "ep/cpu/math/nn_common.h"

namespace nxrt::cpu::nn {

Result<ConcatPlan> PrepareConcat(DataType dtype, std::span<const Shape> input_shapes,
                                 int64_t axis) {
  NXRT_RETURN_IF_ERROR(CheckDataType("Concat", dtype));
  if (input_shapes.empty()) {
    return MakeStatus(StatusCode::kInvalidArgument, "Concat: needs at least one input");
  }
  const Shape& first = input_shapes[0];
  const int64_t rank = static_cast<int64_t>(first.size());
  if (rank == 0) {
    return MakeStatus(StatusCode::kInvalidArgument,
                      "Concat: input 0 is a scalar; inputs need "
                      "rank >= 1");
  }
  NXRT_ASSIGN_OR_RETURN(const int64_t a, NormalizeAxis("Concat", axis, rank));
  ConcatPlan plan;
  plan.dtype = dtype;
  plan.output_shape = first;
  plan.output_shape[a] = 0;
  for (size_t i = 0; i < input_shapes.size(); ++i) {
    const Shape& s = input_shapes[i];
    NXRT_RETURN_IF_ERROR(CheckShape("Concat", "an input", s));
    bool same = static_cast<int64_t>(s.size()) == rank;
    for (int64_t d = 0; same && d < rank; ++d) same = d == a || s[d] == first[d];
    if (!same) {
      return MakeStatus(StatusCode::kInvalidArgument, "Concat: input ", i, " has shape ", Str(s),
                        " but input 0 has shape ", Str(first), "; all dims except axis ", a,
                        " must match");
    }
    plan.output_shape[a] += s[a];
    plan.block.push_back(Product(std::span(s).subspan(a)));
  }
  plan.outer = Product(std::span(first).first(a));
  return plan;
}

Status Concat(const ConcatPlan& plan, std::span<const void* const> inputs, void* output) {
  if (inputs.size() != plan.block.size()) {
    return MakeStatus(StatusCode::kInternal, "Concat: prepared for ", plan.block.size(),
                      " inputs, called with ", inputs.size());
  }
  const size_t elem = DataTypeSize(plan.dtype);
  auto* out = static_cast<char*>(output);
  for (int64_t o = 0; o < plan.outer; ++o) {
    for (size_t i = 0; i < inputs.size(); ++i) {
      const int64_t n = plan.block[i];
      const auto* src = static_cast<const char*>(inputs[i]) + o * n * elem;
      CopyElements(plan.dtype, src, out, n);
      out += n * elem;
    }
  }
  return Status::Ok();
}

Result<SplitPlan> PrepareSplit(DataType dtype, std::span<const int64_t> input_shape, int64_t axis,
                               std::span<const int64_t> split, int64_t num_outputs,
                               bool uneven_last) {
  NXRT_RETURN_IF_ERROR(CheckDataType("Split", dtype));
  NXRT_RETURN_IF_ERROR(CheckShape("Split", "input", input_shape));
  const int64_t rank = static_cast<int64_t>(input_shape.size());
  NXRT_ASSIGN_OR_RETURN(const int64_t a, NormalizeAxis("Split", axis, rank));
  const int64_t dim = input_shape[a];
  std::vector<int64_t> sizes;
  if (!split.empty()) {
    int64_t total = 0;
    for (int64_t s : split) {
      if (s < 0) {
        return MakeStatus(StatusCode::kInvalidArgument, "Split: split ", Str(split),
                          " has a negative size");
      }
      total += s;
    }
    if (total != dim) {
      return MakeStatus(StatusCode::kInvalidArgument, "Split: split ", Str(split), " sums to ",
                        total, " but input ", Str(input_shape), " has ", dim, " along axis ", a);
    }
    sizes.assign(split.begin(), split.end());
  } else {
    if (num_outputs < 1) {
      return MakeStatus(StatusCode::kInvalidArgument, "Split: num_outputs is ", num_outputs,
                        ", expected >= 1");
    }
    if (uneven_last) {
      const int64_t chunk = (dim + num_outputs - 1) / num_outputs;
      int64_t left = dim;
      for (int64_t i = 0; i < num_outputs; ++i) {
        sizes.push_back(std::min(chunk, left));
        left -= sizes.back();
      }
    } else {
      if (dim % num_outputs != 0) {
        return MakeStatus(StatusCode::kInvalidArgument, "Split: input ", Str(input_shape), " has ",
                          dim, " along axis ", a, ", not divisible into ", num_outputs,
                          " equal parts");
      }
      sizes.assign(num_outputs, dim / num_outputs);
    }
  }
  SplitPlan plan;
  plan.dtype = dtype;
  plan.outer = Product(input_shape.first(a));
  const int64_t inner = Product(input_shape.subspan(a + 1));
  plan.input_block = dim * inner;
  for (int64_t s : sizes) {
    Shape out(input_shape.begin(), input_shape.end());
    out[a] = s;
    plan.output_shapes.push_back(std::move(out));
    plan.block.push_back(s * inner);
  }
  return plan;
}

Status Split(const SplitPlan& plan, const void* input, std::span<void* const> outputs) {
  if (outputs.size() != plan.block.size()) {
    return MakeStatus(StatusCode::kInternal, "Split: prepared for ", plan.block.size(),
                      " outputs, called with ", outputs.size());
  }
  const size_t elem = DataTypeSize(plan.dtype);
  const auto* in = static_cast<const char*>(input);
  for (int64_t o = 0; o < plan.outer; ++o) {
    for (size_t i = 0; i < outputs.size(); ++i) {
      const int64_t n = plan.block[i];
      if (outputs[i] != nullptr) {  // an omitted output (empty name) is skipped
        CopyElements(plan.dtype, in, static_cast<char*>(outputs[i]) + o * n * elem, n);
      }
      in += n * elem;
    }
  }
  return Status::Ok();
}

}  // namespace nxrt::cpu::nn
