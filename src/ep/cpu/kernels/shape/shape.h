// ep/cpu/kernels/shape/shape.h: kernel factories of the CPU EP's shape family, used by its table
// (register_shape.cpp).
//
// Layer: nxrt_ep_cpu (kernel glue). These ops need no separate reference math: their work is a
// shape computation in Prepare (from attributes and value inputs) and a copy, a fill or a small
// loop in Compute. The reshape-like ops copy their input, since the kernel API has no output
// aliasing yet. Factories fail with kInvalidModel naming the attribute and its value.
#pragma once

#include "ep/op_registry.h"

namespace nxrt::cpu::kernels {

// Shape (`start`/`end` from opset 15) and Size.
ep::KernelFactory ShapeFactory();
ep::KernelFactory SizeFactory();

// Reshape (shape from value input 1; `allowzero` from opset 14).
ep::KernelFactory ReshapeFactory();
// Flatten (`axis`, default 1).
ep::KernelFactory FlattenFactory();
// Squeeze and Unsqueeze; `axes_as_input`: opset >= 13 (axes from value input 1, optional for
// Squeeze), otherwise the `axes` attribute.
ep::KernelFactory SqueezeFactory(bool axes_as_input);
ep::KernelFactory UnsqueezeFactory(bool axes_as_input);

// Constant (`value`, `sparse_value` or one of `value_float(s)`, `value_int(s)`,
// `value_string(s)`) and ConstantOfShape (shape from value input 0, `value` default float 0).
ep::KernelFactory ConstantFactory();
ep::KernelFactory ConstantOfShapeFactory();

// Range (start, limit, delta from value inputs 0-2).
ep::KernelFactory RangeFactory();
// EyeLike (`dtype`, `k`).
ep::KernelFactory EyeLikeFactory();
// NonZero (output shape known only after compute).
ep::KernelFactory NonZeroFactory();

}  // namespace nxrt::cpu::kernels
