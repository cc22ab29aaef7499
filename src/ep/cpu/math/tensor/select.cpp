// ep/cpu/math/tensor/select.cpp: see select.h.
#include "ep/cpu/math/tensor/select.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>

#include "ep/cpu/math/nn_common.h"

namespace nxrt::cpu::nn {

Result<TriluPlan> PrepareTrilu(DataType dtype, std::span<const int64_t> shape, int64_t k,
                               bool upper) {
  NXRT_RETURN_IF_ERROR(CheckDataType("Trilu", dtype));
  NXRT_RETURN_IF_ERROR(CheckShape("Trilu", "input", shape));
  if (shape.size() < 2) {
    return MakeStatus(StatusCode::kInvalidArgument, "Trilu: input has rank ", shape.size(),
                      " (shape ", Str(shape), "), expected rank >= 2");
  }
  TriluPlan plan;
  plan.dtype = dtype;
  plan.rows = shape[shape.size() - 2];
  plan.cols = shape[shape.size() - 1];
  plan.batches = Product(shape.first(shape.size() - 2));
  plan.k = k;
  plan.upper = upper;
  return plan;
}

void Trilu(const TriluPlan& plan, const void* input, void* output) {
  VisitElement(plan.dtype, [&](auto tag) {
    using E = typename decltype(tag)::type;
    const E* in = static_cast<const E*>(input);
    E* out = static_cast<E*>(output);
    const int64_t matrix = plan.rows * plan.cols;
    for (int64_t b = 0; b < plan.batches; ++b) {
      for (int64_t i = 0; i < plan.rows; ++i) {
        const int64_t row = b * matrix + i * plan.cols;
        // Columns kept: j >= i + k (upper) or j <= i + k (lower), clamped to [0, cols].
        const int64_t edge = std::clamp<int64_t>(plan.upper ? i + plan.k : i + plan.k + 1, 0,
                                                 plan.cols);
        const int64_t keep_begin = plan.upper ? edge : 0;
        const int64_t keep_end = plan.upper ? plan.cols : edge;
        for (int64_t j = 0; j < plan.cols; ++j) {
          out[row + j] = (j >= keep_begin && j < keep_end) ? in[row + j] : E{};
        }
      }
    }
  });
}

Result<CompressPlan> PrepareCompress(DataType dtype, std::span<const int64_t> input_shape,
                                     std::span<const int64_t> condition_shape, bool has_axis,
                                     int64_t axis) {
  NXRT_RETURN_IF_ERROR(CheckDataType("Compress", dtype));
  NXRT_RETURN_IF_ERROR(CheckShape("Compress", "input", input_shape));
  if (condition_shape.size() != 1) {
    return MakeStatus(StatusCode::kInvalidArgument, "Compress: condition has shape ",
                      Str(condition_shape), ", expected a 1-D tensor");
  }
  CompressPlan plan;
  plan.dtype = dtype;
  plan.input_shape.assign(input_shape.begin(), input_shape.end());
  plan.has_axis = has_axis;
  if (has_axis) {
    const int64_t rank = static_cast<int64_t>(input_shape.size());
    NXRT_ASSIGN_OR_RETURN(plan.axis, NormalizeAxis("Compress", axis, rank));
    plan.outer = Product(input_shape.first(plan.axis));
    plan.axis_dim = input_shape[plan.axis];
    plan.inner = Product(input_shape.subspan(plan.axis + 1));
  } else {
    plan.axis_dim = Product(input_shape);
  }
  plan.condition_len = std::min(condition_shape[0], plan.axis_dim);
  return plan;
}

Shape CompressOutputShape(const CompressPlan& plan, const bool* condition) {
  const int64_t kept = std::count(condition, condition + plan.condition_len, true);
  if (!plan.has_axis) return {kept};
  Shape shape = plan.input_shape;
  shape[plan.axis] = kept;
  return shape;
}

void Compress(const CompressPlan& plan, const void* input, const bool* condition, void* output) {
  int64_t written = 0;
  for (int64_t o = 0; o < plan.outer; ++o) {
    for (int64_t a = 0; a < plan.condition_len; ++a) {
      if (!condition[a]) continue;
      const int64_t from = (o * plan.axis_dim + a) * plan.inner;
      CopyElements(plan.dtype, static_cast<const char*>(input) + from * DataTypeSize(plan.dtype),
                   static_cast<char*>(output) + written * DataTypeSize(plan.dtype), plan.inner);
      written += plan.inner;
    }
  }
}

Result<ReverseSequencePlan> PrepareReverseSequence(DataType dtype,
                                                   std::span<const int64_t> input_shape,
                                                   std::span<const int64_t> lens_shape,
                                                   int64_t batch_axis, int64_t time_axis) {
  NXRT_RETURN_IF_ERROR(CheckDataType("ReverseSequence", dtype));
  NXRT_RETURN_IF_ERROR(CheckShape("ReverseSequence", "input", input_shape));
  if (input_shape.size() < 2) {
    return MakeStatus(StatusCode::kInvalidArgument, "ReverseSequence: input has shape ",
                      Str(input_shape), ", expected rank >= 2");
  }
  const bool axes_ok = (batch_axis == 0 && time_axis == 1) || (batch_axis == 1 && time_axis == 0);
  if (!axes_ok) {
    return MakeStatus(StatusCode::kInvalidArgument, "ReverseSequence: batch_axis ", batch_axis,
                      " and time_axis ", time_axis, " must be 0 and 1 in some order");
  }
  ReverseSequencePlan plan;
  plan.dtype = dtype;
  plan.batch_axis = batch_axis;
  plan.time_axis = time_axis;
  plan.batch = input_shape[batch_axis];
  plan.time = input_shape[time_axis];
  plan.inner = Product(input_shape.subspan(2));
  if (lens_shape.size() != 1 || lens_shape[0] != plan.batch) {
    return MakeStatus(StatusCode::kInvalidArgument, "ReverseSequence: sequence_lens has shape ",
                      Str(lens_shape), ", expected [", plan.batch, "] (the batch dim of input ",
                      Str(input_shape), ")");
  }
  return plan;
}

Status ReverseSequence(const ReverseSequencePlan& plan, const void* input, const int64_t* lens,
                       void* output) {
  // Element offset of step (t, b): the two leading dims in the input's order, then `inner`.
  const auto offset = [&](int64_t t, int64_t b) {
    return (plan.time_axis == 0 ? t * plan.batch + b : b * plan.time + t) * plan.inner;
  };
  const size_t bytes = DataTypeSize(plan.dtype);
  for (int64_t b = 0; b < plan.batch; ++b) {
    const int64_t len = lens[b];
    if (len < 0 || len > plan.time) {
      return MakeStatus(StatusCode::kInvalidArgument, "ReverseSequence: sequence_lens[", b,
                        "] is ", len, ", expected a length in [0, ", plan.time, "]");
    }
    for (int64_t t = 0; t < plan.time; ++t) {
      const int64_t from = t < len ? len - 1 - t : t;
      CopyElements(plan.dtype, static_cast<const char*>(input) + offset(from, b) * bytes,
                   static_cast<char*>(output) + offset(t, b) * bytes, plan.inner);
    }
  }
  return Status::Ok();
}

Result<OneHotPlan> PrepareOneHot(DataType index_type, std::span<const int64_t> indices_shape,
                                 int64_t depth, DataType dtype, int64_t axis,
                                 bool negative_indices) {
  NXRT_RETURN_IF_ERROR(CheckDataType("OneHot", dtype));
  NXRT_RETURN_IF_ERROR(CheckShape("OneHot", "indices", indices_shape));
  if (depth <= 0) {
    return MakeStatus(StatusCode::kInvalidArgument, "OneHot: depth is ", depth,
                      ", expected a positive number of classes");
  }
  const int64_t rank = static_cast<int64_t>(indices_shape.size());
  NXRT_ASSIGN_OR_RETURN(const int64_t out_axis, NormalizeAxis("OneHot", axis, rank + 1));
  OneHotPlan plan;
  plan.index_type = index_type;
  plan.dtype = dtype;
  plan.depth = depth;
  plan.negative_indices = negative_indices;
  plan.outer = Product(indices_shape.first(out_axis));
  plan.inner = Product(indices_shape.subspan(out_axis));
  plan.output_shape.assign(indices_shape.begin(), indices_shape.end());
  plan.output_shape.insert(plan.output_shape.begin() + out_axis, depth);
  return plan;
}

size_t OneHotScratchBytes(const OneHotPlan& plan) {
  return static_cast<size_t>(plan.outer * plan.inner) * sizeof(int64_t);
}

Status OneHot(const OneHotPlan& plan, const void* indices, const void* values, void* output,
              int64_t* scratch) {
  // Each index as int64 (floating ones truncated); a NaN or huge value is simply out of range.
  // hot[i]: the class of index i, or -1 for an all-off row.
  const std::span<int64_t> hot(scratch, static_cast<size_t>(plan.outer * plan.inner));
  NXRT_RETURN_IF_ERROR(math::DispatchType<math::NumericTypesBf16>(
      plan.index_type, "OneHot indices", [&](auto tag) -> Status {
        using T = typename decltype(tag)::type;
        const T* in = static_cast<const T*>(indices);
        for (size_t i = 0; i < hot.size(); ++i) {
          const auto v = ToAcc(in[i]);
          int64_t index = -1;
          if constexpr (std::is_floating_point_v<decltype(v)>) {
            const double t = std::trunc(static_cast<double>(v));
            index = (t > -9.0e18 && t < 9.0e18) ? static_cast<int64_t>(t) : -plan.depth - 1;
          } else if constexpr (std::is_unsigned_v<decltype(v)>) {
            index = v > static_cast<uint64_t>(plan.depth) ? plan.depth : static_cast<int64_t>(v);
          } else {
            index = static_cast<int64_t>(v);
          }
          if (index < 0 && plan.negative_indices) index += plan.depth;
          hot[i] = (index >= 0 && index < plan.depth) ? index : -1;
        }
        return Status::Ok();
      }));
  VisitElement(plan.dtype, [&](auto tag) {
    using E = typename decltype(tag)::type;
    const E& off = static_cast<const E*>(values)[0];
    const E& on = static_cast<const E*>(values)[1];
    E* out = static_cast<E*>(output);
    for (int64_t o = 0; o < plan.outer; ++o) {
      for (int64_t d = 0; d < plan.depth; ++d) {
        E* row = out + (o * plan.depth + d) * plan.inner;
        const int64_t* h = hot.data() + o * plan.inner;
        for (int64_t i = 0; i < plan.inner; ++i) row[i] = h[i] == d ? on : off;
      }
    }
  });
  return Status::Ok();
}

}  // namespace nxrt::cpu::nn
