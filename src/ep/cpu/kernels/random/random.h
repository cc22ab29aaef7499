// ep/cpu/kernels/random/random.h: kernel factories of the CPU EP's random family, used by its
// table (register_random.cpp).
//
// Layer: nxrt_ep_cpu (kernel glue over math/random/random.h). Each kernel owns one RandomEngine,
// seeded at creation from the node's `seed` attribute (or from std::random_device without one), so
// a seeded node gives the same sequence in every session: the first run's outputs, then the
// second's, and so on. Factories read the attributes (kInvalidModel naming a bad one); Prepare
// declares the outputs; Compute draws on one thread, in element order (parallel draws would
// change the sequence with the thread count).
#pragma once

#include "ep/op_registry.h"

namespace nxrt::cpu::kernels {

// RandomUniform-1 / RandomNormal-1 (`shape`, `dtype` (float), low/high or mean/scale, `seed`)
// and their -Like forms (the shape of input 0; `dtype` defaults to input 0's).
ep::KernelFactory RandomUniformFactory(bool like);
ep::KernelFactory RandomNormalFactory(bool like);

// Bernoulli-15: y[i] = 1 with probability x[i] (`dtype` defaults to x's, `seed`).
ep::KernelFactory BernoulliFactory();

// Multinomial-7: input [batch, classes] of unnormalised log-probabilities → [batch, sample_size]
// class indices (`dtype` int32 (6) or int64 (7), `sample_size`, `seed`).
ep::KernelFactory MultinomialFactory();

// Dropout-12/-13 (inputs data, ratio?, training_mode?; outputs output, mask?). Inference
// (training_mode absent or false, or ratio 0) copies the data with an all-true mask; training
// keeps each element with probability 1 - ratio: output = data * mask / (1 - ratio).
ep::KernelFactory DropoutTrainingFactory();

}  // namespace nxrt::cpu::kernels
