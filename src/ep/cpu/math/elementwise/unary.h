// ep/cpu/math/elementwise/unary.h: unary elementwise ops (activations, math functions, predicates)
// and Clip.
//
// Layer: nxrt_cpu_math (framework-free reference math of the CPU EP; no IR, no EP API).
// ONNX sources: the ops of unary_kinds.inc at their latest versions up to opset 20 (Relu-14 with
// signed integers, Gelu-20, BitwiseNot-18, IsInf-10, Shrink-9, Round-11, Erf-13 on every numeric
// type) and Clip-13 (min/max optional inputs; Clip-6's attributes map onto them).
//
// Two phases: PrepareUnary resolves the typed compute function for a dtype once; RunUnary walks
// `count` contiguous elements (no allocation, cannot fail). Input and output may be the same
// buffer. The 16-bit floats are computed in float, blockwise, and rounded back to nearest even.
// To add an op: one line in unary_kinds.inc and a functor in unary.cpp.
//
// NaN behaviour: activations, Relu, Clip and the math functions propagate NaN; Sign(NaN) = NaN.
#pragma once

#include <cstdint>
#include <string_view>

#include "nxrt/data_type.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::math {

enum class UnaryKind {
#define NXRT_UNARY_KIND(name, functor, types, out) k##name,
#include "ep/cpu/math/elementwise/unary_kinds.inc"
#undef NXRT_UNARY_KIND
};

// The ONNX op type of `kind`, e.g. "HardSigmoid".
std::string_view UnaryKindName(UnaryKind kind);

// The attributes of the unary ops; each op reads only its own (ONNX names and meanings).
struct UnaryAttrs {
  float alpha = 0;  // LeakyRelu, Elu, Selu, Celu, HardSigmoid, ThresholdedRelu
  float beta = 0;   // HardSigmoid
  float gamma = 0;  // Selu
  float lambd = 0;  // Shrink
  float bias = 0;   // Shrink
  bool gelu_tanh = false;  // Gelu approximate="tanh" (false: "none")
  bool detect_negative = true;  // IsInf
  bool detect_positive = true;  // IsInf
};

// The ONNX default attributes of `kind` (LeakyRelu alpha 0.01, Elu/Celu/ThresholdedRelu alpha 1,
// Selu alpha 1.67326.. gamma 1.05070.., HardSigmoid alpha 0.2 beta 0.5, Shrink lambd 0.5 bias 0).
UnaryAttrs DefaultUnaryAttrs(UnaryKind kind);

using UnaryFn = void (*)(const UnaryAttrs& attrs, const void* in, void* out, int64_t count);

struct UnaryPlan {
  UnaryKind kind = UnaryKind::kAbs;
  UnaryAttrs attrs;
  DataType out_type = DataType::kUndefined;
  UnaryFn fn = nullptr;
};

// Resolves the compute function of `kind` for element type `type`.
// Types (see unary_kinds.inc): Abs/Sign/Erf/Shrink all numeric; Neg/Relu float and signed
// integer types; Not bool; BitwiseNot integer types; the rest float, double, float16, bfloat16.
// Output: bool for IsNaN/IsInf, the input's type otherwise. Errors: kUnsupported for a type the
// op lacks.
Result<UnaryPlan> PrepareUnary(UnaryKind kind, DataType type, const UnaryAttrs& attrs);
// PrepareUnary with DefaultUnaryAttrs(kind).
Result<UnaryPlan> PrepareUnary(UnaryKind kind, DataType type);

// Computes `count` elements.
void RunUnary(const UnaryPlan& plan, const void* in, void* out, int64_t count);

// Prepare + run on a contiguous tensor; an undefined `*out` is allocated with the input's shape.
Status Unary(UnaryKind kind, const Tensor& in, Tensor* out, const UnaryAttrs& attrs);
Status Unary(UnaryKind kind, const Tensor& in, Tensor* out);

// Clip: out = min(max(in, lo), hi), where an absent bound is no bound. When lo > hi every output
// is hi (Clip-13). `min`/`max` point at one element of the input's type, or are null.
using ClipFn = void (*)(const void* in, void* out, int64_t count, const void* min,
                        const void* max);

struct ClipPlan {
  DataType type = DataType::kUndefined;
  ClipFn fn = nullptr;
};

// Types: all numeric. Errors: kUnsupported.
Result<ClipPlan> PrepareClip(DataType type);

void RunClip(const ClipPlan& plan, const void* in, void* out, int64_t count, const void* min,
             const void* max);

// Prepare + run on tensors. `min`/`max` may be null or undefined (absent); when present they must
// have the input's type and one element (rank 0 or shape [1]).
Status Clip(const Tensor& in, const Tensor* min, const Tensor* max, Tensor* out);

}  // namespace nxrt::cpu::math
