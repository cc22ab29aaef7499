// ep/cpu/kernels/training/training.h: kernel factories of the CPU EP's training family, used by
// its table (register_training.cpp) and by BatchNormalization's factory (normalization family)
// for training_mode = 1.
//
// Layer: nxrt_ep_cpu (kernel glue over math/training/training.h). Factories read the attributes
// (kInvalidModel naming a bad one); Prepare checks the inputs and declares the outputs; Compute
// runs the math on one thread.
#pragma once

#include <memory>

#include "ep/cpu/math/training/training.h"
#include "ep/op_registry.h"

namespace nxrt::cpu::kernels {

// Adagrad, Momentum and Adam (ai.onnx.preview.training, version 1): inputs R (scalar learning
// rate), T (int64 scalar step count), then n tensors X, n gradients G and n (Adam: 2n) states;
// outputs n new X and the new states, in the same order. For Momentum pass kMomentum: the node's
// `mode` attribute picks standard or nesterov.
ep::KernelFactory OptimizerFactory(math::OptimizerKind kind);

// BatchNormalization-14/-15 with training_mode = 1 (`epsilon`, `momentum`): outputs Y and the
// optional running_mean and running_var.
Result<std::unique_ptr<Kernel>> CreateBatchNormTrainingKernel(const NodeInfo& node);

}  // namespace nxrt::cpu::kernels
