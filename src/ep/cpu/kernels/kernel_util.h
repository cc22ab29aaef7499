// ep/cpu/kernels/kernel_util.h: what the CPU EP's kernel glue shares: the ONNX type sets and
// constraint builders of the registration tables, value-input readers, and the compute helpers
// (parallel element ranges, broadcast splitting, raw copies).
//
// Layer: nxrt_ep_cpu (kernel glue: NodeInfo/contexts in, reference math from nxrt_cpu_math out).
// Anatomy of a glue kernel (kernels/<family>/<op>.cpp, about 100 lines):
//   factory(NodeInfo)  parses and checks attributes (kInvalidModel naming the attribute);
//   Prepare            checks dtypes/shapes, resolves the math plan once, declares outputs;
//   Compute            runs the plan's function on bound buffers, split by ParallelRanges,
//                      SplitRows or SplitBroadcast when the element count is large.
// Add a helper here only when two families need it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ep/cpu/math/broadcast.h"
#include "ep/op_registry.h"
#include "nxrt/data_type.h"
#include "nxrt/kernel.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::kernels {

// ---- registration ----

// ONNX's recurring type sets, named after the schemas' wording: the DataTypes of the math's type
// lists of the same names (math/element_types.h), so a table entry and the math it dispatches to
// agree. nxrt has no complex arithmetic, so complex types appear only where a kernel moves bytes
// (AllTypes).
// float16, float, double.
std::vector<DataType> FloatTypes();
// float16, float, double, bfloat16.
std::vector<DataType> FloatTypesBf16();
// int8..int64 and uint8..uint64.
std::vector<DataType> IntTypes();
// uint32, uint64, int32, int64 + FloatTypes: the arithmetic types of Add-7 and Reduce*-1.
std::vector<DataType> ArithTypes7();
// IntTypes + FloatTypes (no bfloat16).
std::vector<DataType> NumericTypes();
// IntTypes + FloatTypesBf16.
std::vector<DataType> NumericTypesBf16();
// NumericTypesBf16 + bool (the "all numeric and bool" of Cast, EyeLike, ConstantOfShape).
std::vector<DataType> NumericAndBoolTypes();
// Every tensor type: NumericTypesBf16, bool, string, complex64, complex128.
std::vector<DataType> AllTypes();
// `a` followed by the types of `b` that `a` lacks.
std::vector<DataType> Union(std::vector<DataType> a, const std::vector<DataType>& b);

// Type variable `name` binding input slots `inputs` and output slots `outputs` to `allowed`.
ep::TypeConstraint Bind(std::string name, std::vector<int> inputs, std::vector<int> outputs,
                        std::vector<DataType> allowed);
// Type variable `name` binding every input slot from `first_input` on, and `outputs`.
ep::TypeConstraint BindVariadic(std::string name, int first_input, std::vector<int> outputs,
                                std::vector<DataType> allowed);

// A kernel entry of the default ONNX domain ("ai.onnx") for opsets [since, until].
ep::KernelDef OnnxKernel(std::string op_type, int since, int until,
                         std::vector<ep::TypeConstraint> types, ep::KernelFactory factory,
                         ep::KernelCheck check = nullptr);

// A T -> T entry of the default ONNX domain: type variable "T" binds input 0 and output 0 to
// `types` (ops with no other typed input).
ep::KernelDef SameType(std::string op_type, int since, int until,
                       std::vector<DataType> types, ep::KernelFactory factory);

// A kernel entry of nxrt's own operator set (ep/cpu/nxrt_ops.h: domain "com.nxrt", version 1;
// since = until = 1) for one of its op names.
ep::KernelDef NxrtKernel(std::string_view op_type, std::vector<ep::TypeConstraint> types,
                         ep::KernelFactory factory, ep::KernelCheck check = nullptr);

// Registers every entry of `defs` in order; the first failure is returned.
Status RegisterAll(ep::OpRegistry& registry, std::vector<ep::KernelDef> defs);

// ---- prepare ----

// True when input `i` is bound: the slot exists (a negative `i` names none) and is not an
// omitted optional input.
inline bool HasInput(const PrepareContext& ctx, int i) {
  return i >= 0 && i < ctx.input_count() && ctx.has_input(i);
}

// The dims of input `i` as a Shape.
Shape InputShape(const PrepareContext& ctx, int i);

// The contents of value input `i` as int64 values; the tensor must be int32 or int64 of rank
// <= 1. `what` names it in errors ("input 1 'shape'"): kInvalidArgument for another dtype or rank.
Result<std::vector<int64_t>> ReadInt64s(const PrepareContext& ctx, int i, std::string_view what);

// The contents of a constant int32/int64 tensor as int64 values (same rules as ReadInt64s).
Result<std::vector<int64_t>> TensorInt64s(const Tensor& tensor, std::string_view what);

// ---- compute ----

// The one rule for "is this worth splitting": a part of a kernel's work handed to another thread
// must hold at least kMinPartNs of one core's work. Below that, the hand-over (the team's fork
// and join, about 1.5 us on an idle 2-core machine and several times that on a busy one, and the
// part's data moving to the other core's cache) costs more than the part saves. Kernels state
// what one item of their work costs with the per-unit costs below and take the min_chunk of
// ComputeContext::ParallelFor, or the grain of SplitRows, from MinItemsPerPart; they keep no
// thresholds of their own. The costs restate the grains the kernels were tuned with: 16 Ki
// elements of arithmetic, 64 Ki elements of a reduction or Hardmax, 256 Ki multiply-adds of a
// product (about 10 us of AVX2 work).
inline constexpr double kMinPartNs = 8192;
// One element read and written (or reduced) once at cache speed with a compare or an add:
// Max/Sum reductions, Hardmax, copies.
inline constexpr double kStreamNsPerElement = 0.125;
// One element through a few vector operations or one exponential: Softmax, elementwise math,
// interpolation.
inline constexpr double kArithmeticNsPerElement = 0.5;
// One float multiply-add of a vectorised product (GEMV/GEMM panels, attention).
inline constexpr double kMacNs = 1.0 / 32;

// Items per part (>= 1) for items that each cost `ns_per_item`: kMinPartNs / ns_per_item, capped
// at 2^62 for items that cost nothing.
inline int64_t MinItemsPerPart(double ns_per_item) {
  if (ns_per_item >= kMinPartNs) return 1;
  if (!(ns_per_item > kMinPartNs / 0x1p62)) return int64_t{1} << 62;
  return static_cast<int64_t>(kMinPartNs / ns_per_item);
}

// Elements per part of elementwise arithmetic (kArithmeticNsPerElement each).
inline constexpr int64_t kParallelGrain =
    static_cast<int64_t>(kMinPartNs / kArithmeticNsPerElement);

// Calls fn(begin, end) over [0, count) in ranges of at least kParallelGrain elements through the
// context's thread pool.
void ParallelRanges(ComputeContext& ctx, int64_t count,
                    const std::function<void(int64_t, int64_t)>& fn);

// ParallelRanges for a fallible fn: every range runs; the first error (by range start) is
// returned.
Status ParallelRangesTry(ComputeContext& ctx, int64_t count,
                         const std::function<Status(int64_t, int64_t)>& fn);

// ComputeContext::ParallelFor for a fallible fn, for items each worth a thread (attention heads):
// every range runs; the first error (by range start) is returned.
Status ParallelForTry(ComputeContext& ctx, int64_t count, int64_t min_chunk,
                      const std::function<Status(int64_t, int64_t)>& fn);

// Rows [begin, end) of a computation made of independent rows.
struct RowRange {
  int64_t begin = 0;
  int64_t end = 0;
};

// [0, rows) cut into ranges of at least `grain` elements (`row_elements` per row), at most 64 of
// them: one range when the work is small. Computed at prepare time.
std::vector<RowRange> SplitRows(int64_t rows, int64_t row_elements,
                                int64_t grain = kParallelGrain);

// Calls fn(i) for every i in [0, count), one i per task, in parallel when count > 1.
void ForEachIndex(ComputeContext& ctx, int64_t count, const std::function<void(int64_t)>& fn);

// A slice of a broadcast along its outermost collapsed dim: the geometry of the slice and where
// each operand starts (in elements) inside its contiguous buffer.
struct BroadcastPart {
  math::BroadcastGeometry geometry;
  std::array<int64_t, 3> input_offsets{};  // inputs beyond the geometry's count stay 0
  int64_t output_offset = 0;
};

// `geometry` cut into parts of at least kParallelGrain output elements (one part when the output
// is small or cannot be cut), computed at prepare time so Compute only indexes them.
std::vector<BroadcastPart> SplitBroadcast(const math::BroadcastGeometry& geometry);

// Calls fn(part) for every part, in parallel when there are several (ForEachIndex).
void ForEachPart(ComputeContext& ctx, std::span<const BroadcastPart> parts,
                 const std::function<void(const BroadcastPart&)>& fn);

// `base` advanced by `elements` elements of `dtype` (byte arithmetic on untyped buffers).
const void* Advance(const void* base, int64_t elements, DataType dtype);
void* Advance(void* base, int64_t elements, DataType dtype);

// Copies `count` elements of `dtype` from `src` to `dst` (std::string objects are assigned, other
// types copied byte-wise). The ranges must not overlap.
void CopyElements(DataType dtype, const void* src, void* dst, int64_t count);

}  // namespace nxrt::cpu::kernels
