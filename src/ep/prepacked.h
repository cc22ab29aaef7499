// ep/prepacked.h: prepacked constant inputs, an extension of the kernel's PrepareContext that
// nxrt's runtime implements (the idea of ONNX Runtime's OpKernel::PrePack with a shared
// prepacked-weights container).
//
// Layer: nxrt_ep. A kernel that copies a constant initializer input `i` into a layout of its own
// (e.g. oneDNN's blocked weights) calls SetPrepacked(i, copy). That promises that Compute never
// reads input `i`'s data, and shares `copy` with the kernels of the same node in the session's
// other plan instances (concurrent runs), which find it with Prepacked(i). When every reader of
// an initializer has made the promise, the session frees the initializer's data (a model's
// weights are then held once, packed, not twice): from then on PrepareContext::input_value(i) is
// a tensor of the same dtype and shape whose raw_data() is null, and the kernel must work from
// Prepacked(i), re-laying it out if it needs another layout.
#pragma once

#include <memory>

#include "nxrt/kernel.h"

namespace nxrt::ep {

class PrepackedConstants {
 public:
  virtual ~PrepackedConstants() = default;
  // Publishes `copy` (non-null) of constant input `i`; see the file comment.
  virtual void SetPrepacked(int i, std::shared_ptr<const void> copy) = 0;
  // The copy of input `i` a kernel of this node published, or null.
  virtual std::shared_ptr<const void> Prepacked(int i) const = 0;
};

// The context's support for prepacked constants, or null when the context is not nxrt's kernel
// host (ep/kernel_host.h, which always has it: in the executor, constant folding and tests).
inline PrepackedConstants* PrepackedSupport(PrepareContext& ctx) {
  return dynamic_cast<PrepackedConstants*>(&ctx);
}

}  // namespace nxrt::ep
