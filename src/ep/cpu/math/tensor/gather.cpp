// ep/cpu/math/tensor/gather.cpp: Gather, GatherElements, GatherND. Layer: nxrt_cpu_math.
#include "ep/cpu/math/tensor/gather.h"

#include <algorithm>
#include <vector>

#include "ep/cpu/math/nn_common.h"

namespace nxrt::cpu::nn {

Result<GatherPlan> PrepareGather(DataType dtype, std::span<const int64_t> data_shape,
                                 DataType index_type, std::span<const int64_t> indices_shape,
                                 int64_t axis) {
  NXRT_RETURN_IF_ERROR(CheckDataType("Gather", dtype));
  NXRT_RETURN_IF_ERROR(CheckIndexType("Gather", index_type));
  NXRT_RETURN_IF_ERROR(CheckShape("Gather", "data", data_shape));
  NXRT_RETURN_IF_ERROR(CheckShape("Gather", "indices", indices_shape));
  const int64_t rank = static_cast<int64_t>(data_shape.size());
  if (rank == 0) {
    return MakeStatus(StatusCode::kInvalidArgument, "Gather: data is a scalar; needs rank >= 1");
  }
  NXRT_ASSIGN_OR_RETURN(const int64_t a, NormalizeAxis("Gather", axis, rank));
  GatherPlan plan;
  plan.dtype = dtype;
  plan.index_type = index_type;
  plan.output_shape.assign(data_shape.begin(), data_shape.begin() + a);
  plan.output_shape.insert(plan.output_shape.end(), indices_shape.begin(), indices_shape.end());
  plan.output_shape.insert(plan.output_shape.end(), data_shape.begin() + a + 1, data_shape.end());
  plan.axis = a;
  plan.outer = Product(data_shape.first(a));
  plan.axis_dim = data_shape[a];
  plan.inner = Product(data_shape.subspan(a + 1));
  plan.count = Product(indices_shape);
  return plan;
}

Status Gather(const GatherPlan& plan, const void* data, const void* indices, void* output) {
  const int64_t elem = static_cast<int64_t>(DataTypeSize(plan.dtype));
  const auto* in = static_cast<const char*>(data);
  auto* out = static_cast<char*>(output);
  for (int64_t j = 0; j < plan.count; ++j) {
    NXRT_RETURN_IF_ERROR(ResolveIndex("Gather", ReadIndex(plan.index_type, indices, j),
                                      plan.axis_dim, j, plan.axis));
  }
  for (int64_t o = 0; o < plan.outer; ++o) {
    for (int64_t j = 0; j < plan.count; ++j) {
      int64_t i = ReadIndex(plan.index_type, indices, j);
      if (i < 0) i += plan.axis_dim;
      CopyElements(plan.dtype, in + ((o * plan.axis_dim + i) * plan.inner) * elem,
                   out + ((o * plan.count + j) * plan.inner) * elem, plan.inner);
    }
  }
  return Status::Ok();
}

Result<GatherElementsPlan> PrepareGatherElements(DataType dtype,
                                                 std::span<const int64_t> data_shape,
                                                 DataType index_type,
                                                 std::span<const int64_t> indices_shape,
                                                 int64_t axis) {
  constexpr std::string_view kOp = "GatherElements";
  NXRT_RETURN_IF_ERROR(CheckDataType(kOp, dtype));
  NXRT_RETURN_IF_ERROR(CheckIndexType(kOp, index_type));
  NXRT_RETURN_IF_ERROR(CheckShape(kOp, "data", data_shape));
  NXRT_RETURN_IF_ERROR(CheckShape(kOp, "indices", indices_shape));
  const int64_t rank = static_cast<int64_t>(data_shape.size());
  if (rank == 0) {
    return MakeStatus(StatusCode::kInvalidArgument, kOp, ": data is a scalar; needs rank >= 1");
  }
  NXRT_ASSIGN_OR_RETURN(const int64_t a, NormalizeAxis(kOp, axis, rank));
  bool ok = static_cast<int64_t>(indices_shape.size()) == rank;
  for (int64_t d = 0; ok && d < rank; ++d) ok = d == a || indices_shape[d] <= data_shape[d];
  if (!ok) {
    return MakeStatus(StatusCode::kInvalidArgument, kOp, ": indices ", Str(indices_shape),
                      " do not fit data ", Str(data_shape),
                      " (same rank, and no larger dims "
                      "except along axis ",
                      a, ")");
  }
  GatherElementsPlan plan;
  plan.dtype = dtype;
  plan.index_type = index_type;
  plan.data_shape.assign(data_shape.begin(), data_shape.end());
  plan.output_shape.assign(indices_shape.begin(), indices_shape.end());
  plan.axis = a;
  return plan;
}

Status GatherElements(const GatherElementsPlan& plan, const void* data, const void* indices,
                      void* output) {
  if (Product(plan.output_shape) == 0) return Status::Ok();
  const std::vector<int64_t> strides = ContiguousStrides(plan.data_shape);
  const int64_t axis_dim = plan.data_shape[plan.axis];
  return VisitElement(plan.dtype, [&](auto tag) -> Status {
    using E = typename decltype(tag)::type;
    const E* in = static_cast<const E*>(data);
    E* out = static_cast<E*>(output);
    return ForEachIndexedElement("GatherElements", plan.index_type, indices, plan.output_shape,
                                 strides, plan.axis, axis_dim,
                                 [&](int64_t j, int64_t offset) { out[j] = in[offset]; });
  });
}

Result<GatherNDPlan> PrepareGatherND(DataType dtype, std::span<const int64_t> data_shape,
                                     DataType index_type, std::span<const int64_t> indices_shape,
                                     int64_t batch_dims) {
  constexpr std::string_view kOp = "GatherND";
  NXRT_RETURN_IF_ERROR(CheckDataType(kOp, dtype));
  NXRT_RETURN_IF_ERROR(CheckIndexType(kOp, index_type));
  NXRT_RETURN_IF_ERROR(CheckShape(kOp, "data", data_shape));
  NXRT_RETURN_IF_ERROR(CheckShape(kOp, "indices", indices_shape));
  const int64_t r = static_cast<int64_t>(data_shape.size());
  const int64_t q = static_cast<int64_t>(indices_shape.size());
  if (r < 1 || q < 1) {
    return MakeStatus(StatusCode::kInvalidArgument, kOp, ": data ", Str(data_shape),
                      " and indices ", Str(indices_shape), " both need rank >= 1");
  }
  if (batch_dims < 0 || batch_dims >= std::min(r, q)) {
    return MakeStatus(StatusCode::kInvalidArgument, kOp, ": batch_dims ", batch_dims,
                      " must be in 0..", std::min(r, q) - 1, " for data ", Str(data_shape),
                      " and indices ", Str(indices_shape));
  }
  for (int64_t d = 0; d < batch_dims; ++d) {
    if (data_shape[d] != indices_shape[d]) {
      return MakeStatus(StatusCode::kInvalidArgument, kOp, ": the first ", batch_dims,
                        " dims of data ", Str(data_shape), " and indices ", Str(indices_shape),
                        " must match");
    }
  }
  const int64_t k = indices_shape[q - 1];
  if (k < 1 || k > r - batch_dims) {
    return MakeStatus(StatusCode::kInvalidArgument, kOp, ": indices ", Str(indices_shape),
                      " have tuples of length ", k, ", expected 1..", r - batch_dims, " for data ",
                      Str(data_shape), " with batch_dims ", batch_dims);
  }
  GatherNDPlan plan;
  plan.dtype = dtype;
  plan.index_type = index_type;
  plan.data_shape.assign(data_shape.begin(), data_shape.end());
  plan.output_shape.assign(indices_shape.begin(), indices_shape.end() - 1);
  plan.output_shape.insert(plan.output_shape.end(), data_shape.begin() + batch_dims + k,
                           data_shape.end());
  plan.batches = Product(data_shape.first(batch_dims));
  plan.tuples = Product(indices_shape.subspan(batch_dims, q - 1 - batch_dims));
  plan.k = k;
  plan.slice = Product(data_shape.subspan(batch_dims + k));
  plan.batch_dims = batch_dims;
  return plan;
}

Status GatherND(const GatherNDPlan& plan, const void* data, const void* indices, void* output) {
  const int64_t elem = static_cast<int64_t>(DataTypeSize(plan.dtype));
  const std::vector<int64_t> strides = ContiguousStrides(plan.data_shape);
  const int64_t batch_size = Product(std::span(plan.data_shape).subspan(plan.batch_dims));
  const auto* in = static_cast<const char*>(data);
  auto* out = static_cast<char*>(output);
  int64_t t = 0;  // tuple number across batches
  for (int64_t b = 0; b < plan.batches; ++b) {
    for (int64_t j = 0; j < plan.tuples; ++j, ++t) {
      int64_t offset = b * batch_size;
      for (int64_t m = 0; m < plan.k; ++m) {
        const int64_t axis = plan.batch_dims + m;
        NXRT_ASSIGN_OR_RETURN(
            const int64_t i,
            ResolveIndex("GatherND", ReadIndex(plan.index_type, indices, t * plan.k + m),
                         plan.data_shape[axis], t * plan.k + m, axis));
        offset += i * strides[axis];
      }
      CopyElements(plan.dtype, in + offset * elem, out + t * plan.slice * elem, plan.slice);
    }
  }
  return Status::Ok();
}

}  // namespace nxrt::cpu::nn
