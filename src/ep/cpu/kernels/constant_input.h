// ep/cpu/kernels/constant_input.h: a kernel's view of a constant input during Prepare.
//
// Layer: nxrt_ep_cpu (kernel glue); defined in kernel_util.cpp.
#pragma once

#include "nxrt/kernel.h"

namespace nxrt::cpu::kernels {

// The contents of input `i` when it is a constant initializer (readable in Prepare), else null
// (also when the runtime freed it after prepacking: ep/prepacked.h).
const void* ConstantData(const PrepareContext& ctx, int i);

}  // namespace nxrt::cpu::kernels
