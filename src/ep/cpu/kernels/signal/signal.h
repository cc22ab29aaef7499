// ep/cpu/kernels/signal/signal.h: kernel factories of the CPU EP's signal family, used by its
// table (register_signal.cpp).
//
// Layer: nxrt_ep_cpu (kernel glue over math/signal/signal.h). Every op here has an output shape
// that depends on input values (the window size, dft_length, frame_step...), so each kernel lists
// those inputs in ValueInputs() and builds its plan in Prepare.
#pragma once

#include "ep/cpu/math/signal/signal.h"
#include "ep/op_registry.h"

namespace nxrt::cpu::kernels {

// HannWindow, HammingWindow, BlackmanWindow (opset 17: input `size`, attributes `periodic`,
// `output_datatype`).
ep::KernelFactory WindowFactory(math::WindowKind kind);
// MelWeightMatrix (opset 17: five scalar inputs, attribute `output_datatype`).
ep::KernelFactory MelWeightMatrixFactory();
// DFT (`inverse`, `onesided`, optional dft_length input; opset 17 has the `axis` attribute,
// default 1, opset 20 (`axis_input`) the optional axis input 2, default -2).
ep::KernelFactory DftFactory(bool axis_input);
// STFT (opset 17: signal, frame_step, optional window and frame_length; attribute `onesided`).
ep::KernelFactory StftFactory();

}  // namespace nxrt::cpu::kernels
