// ep/cpu/math/elementwise/binary.h: binary and variadic elementwise ops with NumPy broadcasting.
//
// Layer: nxrt_cpu_math (framework-free reference math of the CPU EP; no IR, no EP API).
// ONNX sources: Add/Sub/Mul/Div-14, Mod-13, Pow-15, Max/Min/Sum/Mean-13, Equal-19, Less/Greater
// (OrEqual)-16, And/Or/Xor-7, BitShift-11, BitwiseAnd/Or/Xor-18, PRelu-16 (and their earlier
// versions, whose semantics are the same on the types they allow).
//
// Two phases: PrepareBinary checks dtypes and shapes, computes the output shape and type, and
// resolves the typed compute function once; RunBinary only walks bound buffers (no allocation,
// cannot fail). `Binary` does both on Tensors for tests and simple callers.
// To add an op: one line in binary_kinds.inc, a functor and one `case` in binary.cpp.
//
// Defined behaviour where ONNX leaves it open (integer types):
//   Div: truncates toward zero; x / 0 = 0; INT_MIN / -1 = INT_MIN (wraps).
//   Mod: fmod=0 takes the divisor's sign (Python %), fmod=1 the dividend's (C %); x mod 0 = 0.
//        For floating types fmod=0 (which ONNX forbids) gives NumPy's np.mod.
//   Add/Sub/Mul/Pow/PRelu wrap on overflow.
//   Pow with an integer base and a negative integer exponent: trunc(base^exp), i.e. 1 for base 1,
//        ±1 for base -1 and 0 otherwise (0 also for base 0, where the real result is infinite).
//   BitShift by >= the bit width gives 0.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "ep/cpu/math/broadcast.h"
#include "nxrt/data_type.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::math {

enum class BinaryKind {
#define NXRT_BINARY_KIND(name) k##name,
#include "ep/cpu/math/elementwise/binary_kinds.inc"
#undef NXRT_BINARY_KIND
};

// The ONNX op type of `kind`, e.g. "BitwiseAnd".
std::string_view BinaryKindName(BinaryKind kind);

// Attributes of the binary ops that have any.
struct BinaryAttrs {
  bool fmod = false;       // Mod: 1 = C fmod (dividend's sign), 0 = divisor's sign
  bool shift_left = true;  // BitShift: direction "LEFT" (true) or "RIGHT"
};

// Signature of a resolved compute function: a and b are contiguous buffers of the input
// shapes, out a contiguous buffer of the output shape.
using BinaryFn = void (*)(const BroadcastGeometry& geometry, const void* a, const void* b,
                          void* out);

struct BinaryPlan {
  BinaryKind kind = BinaryKind::kAdd;
  DataType out_type = DataType::kUndefined;
  Shape out_shape;
  BroadcastGeometry geometry;
  BinaryFn fn = nullptr;
};

// Checks types and shapes and resolves the compute function.
// Types: A and B must have the same type, except Pow (base int32/int64/float types, exponent any
// numeric type; output has the base's type). Supported types per op:
//   Add Sub Mul Div Mod Max Min: all numeric (float, double, float16, bfloat16, [u]int8..64)
//   Pow base: int32, int64, float, double, float16, bfloat16
//   Equal: numeric, bool, string; Less LessOrEqual Greater GreaterOrEqual: numeric
//   And Or Xor: bool; BitShift: uint8..uint64; BitwiseAnd/Or/Xor: [u]int8..64
//   PRelu: float types, int32, int64, uint32, uint64 (B = slope)
// Output type: bool for the comparisons and And/Or/Xor, A's type otherwise.
// Shapes broadcast multidirectionally; PRelu requires the slope to broadcast to X's shape.
// Errors: kInvalidArgument (shapes, mismatched types), kUnsupported (a type the op lacks).
Result<BinaryPlan> PrepareBinary(BinaryKind kind, DataType a_type, const Shape& a_shape,
                                 DataType b_type, const Shape& b_shape,
                                 const BinaryAttrs& attrs = {});

// Computes out = op(a, b) over the plan's broadcast. `out` may alias `a` or `b` when that input
// has the output's shape.
void RunBinary(const BinaryPlan& plan, const void* a, const void* b, void* out);

// Prepare + run on contiguous tensors. An undefined `*out` is allocated; a defined one must
// already have the output type and shape.
Status Binary(BinaryKind kind, const Tensor& a, const Tensor& b, Tensor* out,
              const BinaryAttrs& attrs = {});

// Variadic ops: every input broadcast together (ONNX Max, Min, Sum, Mean; 1 or more inputs, all
// of one type). Max/Min/Sum: all numeric types; Mean: float types. 16-bit floats round after
// each pairwise step, as in ONNX Runtime.
enum class VariadicKind { kMax, kMin, kSum, kMean };

struct VariadicPlan {
  VariadicKind kind = VariadicKind::kSum;
  DataType type = DataType::kUndefined;
  Shape out_shape;
  // steps[0] combines inputs 0 and 1 into out; steps[k] combines out with input k + 1. Empty for
  // one input, which is copied.
  std::vector<BinaryPlan> steps;
  // Mean: divides the sum in place by the input count.
  void (*finish)(void* out, int64_t count, int64_t inputs) = nullptr;
};

// Checks types and shapes of `input_shapes` (at least one) and resolves the compute functions.
Result<VariadicPlan> PrepareVariadic(VariadicKind kind, DataType type,
                                     std::span<const Shape> input_shapes);

// Computes the op into `out`; inputs.size() equals the prepared shape count.
void RunVariadic(const VariadicPlan& plan, std::span<const void* const> inputs, void* out);

// Prepare + run on contiguous tensors (output allocated when undefined).
Status Variadic(VariadicKind kind, std::span<const Tensor> inputs, Tensor* out);

}  // namespace nxrt::cpu::math
