// ep/cpu/kernels/normalization/normalization.h: kernel factories of the CPU EP's normalisation
// family, used by its table (register_normalization.cpp).
//
// Layer: nxrt_ep_cpu (kernel glue over math/normalization/softmax.h,
// math/normalization/normalization.h, math/normalization/cumsum.h). Factories read the attributes
// once (kInvalidModel naming a bad attribute and its value); Prepare resolves the math plan from
// the input dtypes and shapes; Compute runs it, split over independent rows when the input is
// large.
#pragma once

#include "ep/cpu/math/normalization/softmax.h"
#include "ep/op_registry.h"

namespace nxrt::cpu::kernels {

// Softmax, LogSoftmax or Hardmax. `mode`: kFlattenFromAxis (opset 1-12, default axis 1) or
// kSingleAxis (opset 13+, default axis -1).
ep::KernelFactory SoftmaxFactory(math::SoftmaxKind kind, math::SoftmaxAxisMode mode);

// LayerNormalization (`axis`, `epsilon`, `stash_type`; optional Mean/InvStdDev outputs).
ep::KernelFactory LayerNormFactory();

// BatchNormalization (`epsilon`; `spatial` must be 1), in inference mode, or in training mode for
// `training_mode` 1 (kernels/training/). `has_is_test`: opset 6, whose `is_test` (default 0,
// training) must be 1.
ep::KernelFactory BatchNormFactory(bool has_is_test);
// Refuses BatchNormalization nodes without training_mode 1 that ask for the statistics outputs
// (the running or saved statistics of opsets 6-13).
ep::KernelCheck BatchNormCheck();

// InstanceNormalization (`epsilon`) and GroupNormalization (`num_groups`, `epsilon`).
ep::KernelFactory InstanceNormFactory();
ep::KernelFactory GroupNormFactory();

// LpNormalization (`axis`, `p`) and MeanVarianceNormalization (`axes`).
ep::KernelFactory LpNormFactory();
ep::KernelFactory MvnFactory();

// CumSum (axis from value input 1; `exclusive`, `reverse`).
ep::KernelFactory CumSumFactory();

}  // namespace nxrt::cpu::kernels
