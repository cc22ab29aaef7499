// ep/cpu/math/nn/matmul.h: MatMul and Gemm (ONNX) for the CPU EP: oneDNN matmul (or nxrt's own
// kernels, below) for float, a plain reference for the other dtypes.
//
// Layer: nxrt_cpu_math (framework-free; no IR, no EP API). Prepare checks shapes, computes the
// output shape and, for float, creates the oneDNN primitive for `threads` threads (shared by the
// plan's copies), packs a constant B once into the layout the primitive prefers, and sizes the
// primitive's scratchpad; compute only binds the buffers and executes, allocating nothing when
// the caller passes a scratchpad of `scratchpad_bytes`. One plan (a copy shares the primitive and
// packed weights but has its own buffer bindings) runs on one thread at a time; copy it to run
// from several threads at once. When oneDNN cannot take a float problem (too many dims, an
// unimplemented case), the plan falls back to the reference loops, so float always works.
//
// Epilogue (the capability a fusion pass uses): a per-column bias [N] and then an activation,
// executed as oneDNN post-ops in the same pass over the output (reference loops: afterwards).
//
// nxrt's own kernels take two cases from oneDNN, each on a constant B packed once at Prepare:
// one row of A on AVX-512 (gemv.h), and any M >= 2 on CPUs with AVX2 but not AVX-512
// (sgemm_avx2.h; there oneDNN 2.6 would pack B again on every call). Their activations run
// vectorised right after each block of output columns.
//
// Reference dtypes: double and float accumulate in double, float16/bfloat16 in float, integer
// types in 64-bit wrap-around arithmetic (results wrap like the element type).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "nxrt/data_type.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::nn {

// A created oneDNN matmul primitive (and packed weights); defined in matmul.cpp.
struct DnnlMatMulPrimitive;

// The oneDNN memory objects one plan copy binds its buffers to, so Compute creates none. Copying
// makes fresh objects (a copy may run on another thread); defined in matmul.cpp.
class DnnlMatMulBindings {
 public:
  DnnlMatMulBindings();
  ~DnnlMatMulBindings();
  DnnlMatMulBindings(const DnnlMatMulBindings& other);
  DnnlMatMulBindings& operator=(const DnnlMatMulBindings& other);
  DnnlMatMulBindings(DnnlMatMulBindings&&) noexcept;
  DnnlMatMulBindings& operator=(DnnlMatMulBindings&&) noexcept;
  struct Impl;
  std::unique_ptr<Impl> impl;
};

// Activation applied to the output after the bias (MatMulEpilogue). kGeluErf is
// 0.5 x (1 + erf(x / sqrt 2)), kGeluTanh 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))), kSwish
// x * sigmoid(alpha * x).
enum class MatMulActivation {
  kNone, kRelu, kLeakyRelu, kClip, kSigmoid, kTanh, kGeluErf, kGeluTanh, kSwish
};

// What runs over the output of the product before it is stored: y = act(a @ b + bias).
struct MatMulEpilogue {
  bool bias = false;  // Compute takes a bias vector [N] of the plan's dtype, added to every row
  MatMulActivation activation = MatMulActivation::kNone;
  float alpha = 0.0f;  // LeakyRelu: slope; Clip: min; Swish: the sigmoid's scale
  float beta = 0.0f;   // Clip: max
};

// A float constant B in the layout a oneDNN primitive reads (its own buffer), made by one plan's
// Prepare and shareable with later plans of the same B (MatMulPlan::packed_b); defined in
// matmul.cpp.
struct PackedWeights;

// How to prepare a MatMul (every field optional).
struct MatMulOptions {
  // Threads oneDNN may use (values < 1 mean 1); the plan takes fewer for small products.
  int threads = 1;
  // When B is a constant: its contents (B's shape, the plan's dtype), read during Prepare only.
  // A float plan then keeps B packed in oneDNN's preferred layout and MatMul ignores its `b`.
  const void* constant_b = nullptr;
  // The packed copy of this constant B an earlier plan made (its packed_b). The new plan shares
  // it when it wants the same layout and re-lays it out otherwise, so `constant_b` may be null
  // (the original was freed); MatMul then never reads its `b`.
  std::shared_ptr<const PackedWeights> prepacked_b;
  MatMulEpilogue epilogue;  // float, double, float16 and bfloat16 only
};

struct MatMulPlan {
  DataType dtype = DataType::kUndefined;
  Shape output_shape;
  // Internal: per output batch, the element offsets of its A and B matrices; sizes M, N, K.
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  std::vector<int64_t> a_offsets;
  std::vector<int64_t> b_offsets;
  MatMulEpilogue epilogue;
  std::shared_ptr<const DnnlMatMulPrimitive> dnnl;  // null: reference loops
  mutable DnnlMatMulBindings bindings;
  // Bytes of the scratchpad MatMul wants (64-byte aligned); with less it allocates its own.
  size_t scratchpad_bytes = 0;
  // The plan's own copy of the constant B (packed, or plain when oneDNN reads it plain); null
  // when MatMul reads its `b`. A caller may publish it for other plans (MatMulOptions::
  // prepacked_b) and free the original.
  std::shared_ptr<const PackedWeights> packed_b;
  // B re-laid out plain from options.prepacked_b for loops that read B as given (the original
  // was freed and oneDNN did not take the problem whole); null otherwise.
  std::shared_ptr<const std::vector<float>> unpacked_b;
  // > 0 when the product runs on nxrt's own kernels (one row times the packed B on AVX-512,
  // gemv.h; two rows or more on AVX2 without AVX-512, sgemm_avx2.h): it splits into this many
  // independent units of 64 output columns (MatMulColumnUnits), per output batch when
  // column_units_read_b.
  int64_t column_units = 0;
  // True when the units multiply B as given (a B that is not constant, on sgemm_avx2.h): then
  // MatMulColumnUnits reads its `b`.
  bool column_units_read_b = false;
};

// MatMul (ONNX opset 1, 9, 13): NumPy matmul. A is [..., M, K] (rank 1: [K], promoted to [1, K]
// and the M dim dropped from the output), B is [..., K, N] (rank 1: [K] -> [K, 1], N dropped);
// batch dims broadcast. dtypes: float (oneDNN or nxrt's own kernels), double, float16, bfloat16,
// int32, int64, uint32, uint64. Zero-sized M, N or batch give an empty output; K = 0 gives zeros.
// Errors: kInvalidArgument printing both shapes when K differs or batch dims do not broadcast;
// kUnsupported for other dtypes.
// With options.constant_b, B must be that constant on every MatMul call of the plan.
// Errors also: kUnsupported for an epilogue on an integer dtype.
Result<MatMulPlan> PrepareMatMul(DataType dtype, std::span<const int64_t> a_shape,
                                 std::span<const int64_t> b_shape,
                                 const MatMulOptions& options = {});

// y (contiguous, output_shape) = act(a @ b + bias); `bias` ([N]) only with epilogue.bias.
// `scratchpad` should hold plan.scratchpad_bytes (else MatMul allocates a temporary one). A plan
// with column_units runs them all on the calling thread here.
Status MatMul(const MatMulPlan& plan, const void* a, const void* b, void* y,
              std::span<std::byte> scratchpad = {}, const void* bias = nullptr);

// Units [begin, end) (clamped to [0, plan.column_units)) of a plan with column_units > 0: output
// columns [64 * begin, min(N, 64 * end)) of MatMul(plan, a, b, y, -, bias) (with
// column_units_read_b: unit u is batch u / U, columns of unit u % U, U = ceil(N / 64); `b` is read
// only then). Units write disjoint outputs, so a caller may run ranges of them on several threads
// at once.
void MatMulColumnUnits(const MatMulPlan& plan, const void* a, const void* b, const void* bias,
                       void* y, int64_t begin, int64_t end);

struct GemmAttributes {
  bool trans_a = false;
  bool trans_b = false;
  float alpha = 1.0f;
  float beta = 1.0f;
};

struct GemmPlan {
  DataType dtype = DataType::kUndefined;
  GemmAttributes attributes;
  MatMulEpilogue epilogue;  // activation only
  Shape output_shape;  // [M, N]
  // Internal: sizes, whether C is used, and the strides that broadcast C to [M, N].
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  bool has_c = false;
  std::vector<int64_t> c_strides;
  // True when C is a [N] row (broadcast over M) added by oneDNN as a bias (alpha = beta = 1).
  bool c_as_bias = false;
  std::shared_ptr<const DnnlMatMulPrimitive> dnnl;  // null: reference loops
  mutable DnnlMatMulBindings bindings;
  size_t scratchpad_bytes = 0;                      // as MatMulPlan
  std::shared_ptr<const PackedWeights> packed_b;      // as MatMulPlan
  std::shared_ptr<const std::vector<float>> unpacked_b;  // as MatMulPlan (B as stored)
  int64_t column_units = 0;  // as MatMulPlan (alpha 1 and C, if added, as the bias row)
};

// How to prepare a Gemm: threads and a constant B as MatMulOptions (B as stored, before transB),
// and an activation applied to alpha * A' @ B' + beta * C (epilogue.bias must be false: C is the
// bias; float, double, float16 and bfloat16 only).
struct GemmOptions {
  int threads = 1;
  const void* constant_b = nullptr;
  std::shared_ptr<const PackedWeights> prepacked_b;  // as MatMulOptions'
  MatMulEpilogue epilogue;
};

// Gemm (ONNX opset 1, 6, 7, 9, 11, 13): Y = alpha * A' @ B' + beta * C with A' = transpose(A) if
// trans_a, B' likewise. A and B have rank 2; `c_shape` (nullopt: no C; [] is a scalar C) must
// broadcast unidirectionally to [M, N]. dtypes as MatMul.
// Errors: kInvalidArgument printing the shapes (and the trans flags) when they do not fit;
// kUnsupported for an activation on an integer dtype or an epilogue with bias.
Result<GemmPlan> PrepareGemm(DataType dtype, std::span<const int64_t> a_shape,
                             std::span<const int64_t> b_shape,
                             std::optional<std::span<const int64_t>> c_shape,
                             const GemmAttributes& attributes, const GemmOptions& options = {});

// y (contiguous [M, N]); `c` is ignored (may be null) when the plan has no C. `scratchpad` and
// column_units as MatMul's.
Status Gemm(const GemmPlan& plan, const void* a, const void* b, const void* c, void* y,
            std::span<std::byte> scratchpad = {});

// Units [begin, end) of a Gemm plan with column_units > 0, as MatMulColumnUnits.
void GemmColumnUnits(const GemmPlan& plan, const void* a, const void* c, void* y, int64_t begin,
                     int64_t end);

}  // namespace nxrt::cpu::nn
