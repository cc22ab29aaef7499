// ep/cpu/kernels/kernel_util.cpp: shared helpers of the CPU EP's kernel glue (kernel_util.h,
// constant_input.h).
//
// Layer: nxrt_ep_cpu.
#include "ep/cpu/kernels/kernel_util.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <mutex>

#include "ep/cpu/kernels/constant_input.h"
#include "ep/cpu/math/element_types.h"
#include "ep/cpu/nxrt_ops.h"

namespace nxrt::cpu::kernels {
namespace {

// At most this many parts per split: enough for any thread count this CPU EP meets, few enough
// that the per-part bookkeeping stays negligible.
constexpr int64_t kMaxParts = 64;

}  // namespace

std::vector<DataType> FloatTypes() { return math::DataTypes(math::FloatTypes{}); }

std::vector<DataType> FloatTypesBf16() { return math::DataTypes(math::FloatTypesBf16{}); }

std::vector<DataType> IntTypes() { return math::DataTypes(math::IntTypes{}); }

std::vector<DataType> ArithTypes7() {
  return Union({DataType::kUint32, DataType::kUint64, DataType::kInt32, DataType::kInt64},
               FloatTypes());
}

std::vector<DataType> NumericTypes() { return math::DataTypes(math::NumericTypes{}); }

std::vector<DataType> NumericTypesBf16() { return math::DataTypes(math::NumericTypesBf16{}); }

std::vector<DataType> NumericAndBoolTypes() { return math::DataTypes(math::NumericAndBoolTypes{}); }

std::vector<DataType> AllTypes() {
  return Union(NumericAndBoolTypes(),
               {DataType::kString, DataType::kComplex64, DataType::kComplex128});
}

std::vector<DataType> Union(std::vector<DataType> a, const std::vector<DataType>& b) {
  for (DataType t : b) {
    if (std::find(a.begin(), a.end(), t) == a.end()) a.push_back(t);
  }
  return a;
}

ep::TypeConstraint Bind(std::string name, std::vector<int> inputs, std::vector<int> outputs,
                        std::vector<DataType> allowed) {
  return ep::TypeConstraint{std::move(name), std::move(inputs), std::move(outputs),
                            std::move(allowed), -1};
}

ep::TypeConstraint BindVariadic(std::string name, int first_input, std::vector<int> outputs,
                                std::vector<DataType> allowed) {
  return ep::TypeConstraint{std::move(name), {}, std::move(outputs), std::move(allowed),
                            first_input};
}

ep::KernelDef OnnxKernel(std::string op_type, int since, int until,
                         std::vector<ep::TypeConstraint> types, ep::KernelFactory factory,
                         ep::KernelCheck check) {
  return ep::KernelDef{"", std::move(op_type), since, until, std::move(types),
                       std::move(factory), std::move(check)};
}

ep::KernelDef SameType(std::string op_type, int since, int until,
                       std::vector<DataType> types, ep::KernelFactory factory) {
  return OnnxKernel(std::move(op_type), since, until, {Bind("T", {0}, {0}, std::move(types))},
                    std::move(factory));
}

ep::KernelDef NxrtKernel(std::string_view op_type, std::vector<ep::TypeConstraint> types,
                         ep::KernelFactory factory, ep::KernelCheck check) {
  return ep::KernelDef{std::string(nxrt_ops::kDomain),
                       std::string(op_type),
                       nxrt_ops::kVersion,
                       nxrt_ops::kVersion,
                       std::move(types),
                       std::move(factory),
                       std::move(check)};
}

Status RegisterAll(ep::OpRegistry& registry, std::vector<ep::KernelDef> defs) {
  for (ep::KernelDef& def : defs) NXRT_RETURN_IF_ERROR(registry.Register(std::move(def)));
  return Status::Ok();
}

Shape InputShape(const PrepareContext& ctx, int i) {
  const std::span<const int64_t> dims = ctx.input_shape(i);
  return Shape(dims.begin(), dims.end());
}

Result<std::vector<int64_t>> TensorInt64s(const Tensor& tensor, std::string_view what) {
  if (tensor.dtype() != DataType::kInt64 && tensor.dtype() != DataType::kInt32) {
    return MakeStatus(StatusCode::kInvalidArgument, what, " has type ",
                      DataTypeName(tensor.dtype()), ", expected int64");
  }
  if (tensor.rank() > 1) {
    return MakeStatus(StatusCode::kInvalidArgument, what, " has shape ",
                      ShapeToString(tensor.shape()), ", expected a 1-D tensor");
  }
  std::vector<int64_t> values(static_cast<size_t>(tensor.element_count()));
  for (size_t i = 0; i < values.size(); ++i) {
    values[i] = tensor.dtype() == DataType::kInt64 ? tensor.data<int64_t>()[i]
                                                   : tensor.data<int32_t>()[i];
  }
  return values;
}

const void* ConstantData(const PrepareContext& ctx, int i) {
  if (!ctx.has_input(i)) return nullptr;
  Result<const Tensor*> value = ctx.input_value(i);
  return value.ok() && *value != nullptr ? (*value)->raw_data() : nullptr;
}

Result<std::vector<int64_t>> ReadInt64s(const PrepareContext& ctx, int i, std::string_view what) {
  NXRT_ASSIGN_OR_RETURN(const Tensor* tensor, ctx.input_value(i));
  return TensorInt64s(*tensor, what);
}

void ParallelRanges(ComputeContext& ctx, int64_t count,
                    const std::function<void(int64_t, int64_t)>& fn) {
  if (count <= 0) return;
  if (count < 2 * kParallelGrain) {
    fn(0, count);
    return;
  }
  ctx.ParallelFor(count, kParallelGrain, fn);
}

Status ParallelRangesTry(ComputeContext& ctx, int64_t count,
                         const std::function<Status(int64_t, int64_t)>& fn) {
  if (count <= 0) return Status::Ok();
  if (count < 2 * kParallelGrain) return fn(0, count);
  return ParallelForTry(ctx, count, kParallelGrain, fn);
}

Status ParallelForTry(ComputeContext& ctx, int64_t count, int64_t min_chunk,
                      const std::function<Status(int64_t, int64_t)>& fn) {
  std::mutex mutex;
  Status first;
  int64_t first_begin = std::numeric_limits<int64_t>::max();
  ctx.ParallelFor(count, min_chunk, [&](int64_t begin, int64_t end) {
    Status status = fn(begin, end);
    if (status.ok()) return;
    std::lock_guard<std::mutex> lock(mutex);
    if (begin < first_begin) {
      first_begin = begin;
      first = std::move(status);
    }
  });
  return first;
}

std::vector<RowRange> SplitRows(int64_t rows, int64_t row_elements, int64_t grain) {
  const int64_t work = rows * row_elements;
  const int64_t parts = std::min({rows, work / std::max<int64_t>(grain, 1), kMaxParts});
  if (parts <= 1) return {RowRange{0, rows}};
  std::vector<RowRange> ranges;
  ranges.reserve(static_cast<size_t>(parts));
  for (int64_t p = 0; p < parts; ++p) ranges.push_back({rows * p / parts, rows * (p + 1) / parts});
  return ranges;
}

void ForEachIndex(ComputeContext& ctx, int64_t count, const std::function<void(int64_t)>& fn) {
  if (count == 1) {
    fn(0);
    return;
  }
  ctx.ParallelFor(count, 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) fn(i);
  });
}

std::vector<BroadcastPart> SplitBroadcast(const math::BroadcastGeometry& geometry) {
  const int64_t rows = geometry.dims.front();
  if (rows == 0) return {BroadcastPart{geometry, {}, 0}};
  const int64_t row_elements = geometry.output_count / rows;
  std::vector<BroadcastPart> parts;
  for (RowRange range : SplitRows(rows, row_elements)) {
    BroadcastPart part{geometry, {}, range.begin * row_elements};
    part.geometry.dims.front() = range.end - range.begin;
    part.geometry.output_count = (range.end - range.begin) * row_elements;
    for (size_t k = 0; k < geometry.strides.size() && k < part.input_offsets.size(); ++k) {
      part.input_offsets[k] = range.begin * geometry.strides[k].front();
    }
    parts.push_back(std::move(part));
  }
  return parts;
}

void ForEachPart(ComputeContext& ctx, std::span<const BroadcastPart> parts,
                 const std::function<void(const BroadcastPart&)>& fn) {
  ForEachIndex(ctx, static_cast<int64_t>(parts.size()),
               [&](int64_t i) { fn(parts[static_cast<size_t>(i)]); });
}

const void* Advance(const void* base, int64_t elements, DataType dtype) {
  return Advance(const_cast<void*>(base), elements, dtype);
}

void* Advance(void* base, int64_t elements, DataType dtype) {
  const int64_t bytes = IsPacked4Bit(dtype) ? elements / 2
                                            : elements * static_cast<int64_t>(DataTypeSize(dtype));
  return static_cast<std::byte*>(base) + bytes;
}

void CopyElements(DataType dtype, const void* src, void* dst, int64_t count) {
  if (count <= 0) return;
  if (dtype == DataType::kString) {
    std::copy_n(static_cast<const std::string*>(src), count, static_cast<std::string*>(dst));
    return;
  }
  std::memcpy(dst, src, DataTypeBytes(dtype, count));
}

}  // namespace nxrt::cpu::kernels
