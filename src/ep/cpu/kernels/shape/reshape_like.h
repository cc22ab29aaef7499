// ep/cpu/kernels/shape/reshape_like.h: the kernel shared by the data-independent reshape-like
// ops (Reshape, Flatten, Squeeze, Unsqueeze).
//
// Layer: nxrt_ep_cpu (kernel glue, internal to the shape family). Each op supplies a shape rule;
// the kernel declares output 0 with input 0's dtype and the rule's shape in Prepare, and copies
// the elements in Compute (the kernel API has no output aliasing yet).
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "nxrt/kernel.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::kernels {

// The output shape from the input's shape `in` and, when the op has them, its value inputs
// (read through `ctx`). Errors name the input or attribute and both values.
using ShapeRule = std::function<Result<Shape>(const PrepareContext& ctx, const Shape& in)>;

// A reshape-like kernel applying `rule`; `value_inputs` lists the inputs `rule` reads (the
// kernel's ValueInputs()).
std::unique_ptr<Kernel> MakeReshapeLikeKernel(ShapeRule rule, std::vector<int> value_inputs);

}  // namespace nxrt::cpu::kernels
