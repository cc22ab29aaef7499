// ep/cpu/kernels/loss/loss.h: kernel factories of the CPU EP's loss family, used by its table
// (register_loss.cpp).
//
// Layer: nxrt_ep_cpu (kernel glue over math/loss/loss.h and math/normalization/softmax.h).
// Factories read `reduction` and `ignore_index` once (kInvalidModel naming a bad reduction);
// Prepare checks the shapes and resolves the math plan; Compute runs it on one thread (the loss is
// one pass over N x d1 x ... x dk elements, and a mean or sum needs them in one fixed order).
#pragma once

#include "ep/op_registry.h"

namespace nxrt::cpu::kernels {

// NegativeLogLikelihoodLoss-12/-13: inputs (input, target, weight?), output loss.
ep::KernelFactory NllLossFactory();

// SoftmaxCrossEntropyLoss-12/-13: inputs (scores, labels, weights?), outputs (output,
// log_prob?): LogSoftmax of scores along axis 1, then the NLL loss of it.
ep::KernelFactory SoftmaxCrossEntropyFactory();

}  // namespace nxrt::cpu::kernels
