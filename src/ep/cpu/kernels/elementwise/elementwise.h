// ep/cpu/kernels/elementwise/elementwise.h: kernel factories of the CPU EP's elementwise family,
// used by its table (register_elementwise.cpp).
//
// Layer: nxrt_ep_cpu (kernel glue). Each factory parses the node's attributes once and returns a
// kernel whose Prepare resolves the reference math of src/ep/cpu/math/elementwise for the input
// dtypes and shapes. Factories fail with kInvalidModel naming a bad attribute and its value.
#pragma once

#include "ep/cpu/math/elementwise/binary.h"
#include "ep/cpu/math/elementwise/unary.h"
#include "ep/op_registry.h"

namespace nxrt::cpu::kernels {

// A binary op of binary.h (Add ... PRelu). Reads Mod's `fmod` and BitShift's `direction`.
ep::KernelFactory BinaryFactory(math::BinaryKind kind);

// The opset < 7 forms of the binary ops: B aligned with A from the `axis` attribute when
// `broadcast` is 1 (Add, Sub, Mul, Div, Pow, the comparisons and logic ops), and PRelu-6's
// per-channel 1-D slope; NumPy broadcasting otherwise.
ep::KernelFactory LegacyBinaryFactory(math::BinaryKind kind);

// Max, Min, Sum, Mean over one or more inputs.
ep::KernelFactory VariadicFactory(math::VariadicKind kind);

// Where(condition, X, Y).
ep::KernelFactory WhereFactory();

// A unary op of unary.h; reads the attributes the op has (alpha, beta, gamma, lambd, bias,
// approximate, detect_negative, detect_positive) over the ONNX defaults.
ep::KernelFactory UnaryFactory(math::UnaryKind kind);

// Clip. `bounds_as_inputs`: opset >= 11 (min/max are optional inputs 1 and 2); otherwise opset
// 6-10 (float attributes `min`/`max`).
ep::KernelFactory ClipFactory(bool bounds_as_inputs);

// Cast (target from the `to` attribute) and CastLike (target from input 1's dtype).
ep::KernelFactory CastFactory();
ep::KernelFactory CastLikeFactory();
// Refuses a Cast whose `to` names a type the CPU EP cannot produce (float8, int4, complex).
ep::KernelCheck CastCheck();

// Identity: a copy.
ep::KernelFactory IdentityFactory();
// Refuses Identity on sequences and optionals (the CPU EP's Identity copies tensors).
ep::KernelCheck TensorOnlyCheck();

// Dropout in inference mode: output 0 copies the input; the optional mask is all true (bool from
// opset 10, the input's type before). `mask_is_bool`: opset >= 10.
ep::KernelFactory DropoutFactory(bool mask_is_bool);

}  // namespace nxrt::cpu::kernels
