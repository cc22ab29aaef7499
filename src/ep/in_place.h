// ep/in_place.h: in-place outputs, an extension of the kernel's PrepareContext that nxrt's
// runtime implements (the idea of ONNX Runtime's KernelDef::MayInplace).
//
// Layer: nxrt_ep. A kernel whose Compute stays correct when output `o` and input `i` are the
// same bytes (it reads each element of input `i` before it writes that element of output `o`,
// e.g. FusedConv's residual Z, which oneDNN's sum post-op accumulates into the output anyway)
// calls AllowInPlace(o, i) in Prepare. The memory planner then gives output `o` the buffer of
// input `i` when it can: input `i` is an intermediate this step reads last, in no other slot,
// and the output has its byte size. A hint only: Compute must also work with separate buffers.
#pragma once

#include "nxrt/kernel.h"

namespace nxrt::ep {

class InPlaceOutputs {
 public:
  virtual ~InPlaceOutputs() = default;
  // Offers input `input`'s buffer to output `output` (indices of this node); see the file
  // comment. Out-of-range indices are ignored.
  virtual void AllowInPlace(int output, int input) = 0;
};

// The context's support for in-place outputs, or null when the context is not nxrt's kernel
// host (ep/kernel_host.h, which always has it: in the executor, constant folding and tests).
inline InPlaceOutputs* InPlaceSupport(PrepareContext& ctx) {
  return dynamic_cast<InPlaceOutputs*>(&ctx);
}

}  // namespace nxrt::ep
