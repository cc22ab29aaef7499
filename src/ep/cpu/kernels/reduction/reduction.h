// ep/cpu/kernels/reduction/reduction.h: kernel factories of the CPU EP's reduction family, used by
// its table (register_reduction.cpp).
//
// Layer: nxrt_ep_cpu (kernel glue over math/reduction/reduce.h). Factories read `keepdims`,
// `noop_with_empty_axes`, `axis` and `select_last_index` once; bad values fail with kInvalidModel
// naming the attribute.
#pragma once

#include "ep/cpu/math/reduction/reduce.h"
#include "ep/op_registry.h"

namespace nxrt::cpu::kernels {

// A Reduce* op. `axes_as_input`: the axes come from optional input 1, read as a value input
// (ReduceSum from opset 13, every reduction from opset 18); otherwise from the `axes` attribute.
ep::KernelFactory ReduceFactory(math::ReduceKind kind, bool axes_as_input);

// ArgMax (`is_max`) or ArgMin.
ep::KernelFactory ArgReduceFactory(bool is_max);

}  // namespace nxrt::cpu::kernels
