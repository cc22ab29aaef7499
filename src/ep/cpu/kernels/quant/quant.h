// ep/cpu/kernels/quant/quant.h: kernel factories of the CPU EP's quantization family, used by its
// table (register_quant.cpp).
//
// Layer: nxrt_ep_cpu (kernel glue over math/quant/quant.h). Each factory reads the node's
// attributes once (kInvalidModel naming the attribute and its value); Prepare resolves the plan
// from the input dtypes and shapes and Compute runs it on the bound buffers.
#pragma once

#include "ep/op_registry.h"

namespace nxrt::cpu::kernels {

// QuantizeLinear (opsets 10-21: `axis` from 13, `saturate` from 19, `block_size` and
// `output_dtype` from 21). The output type is the zero point's, else `output_dtype`, else uint8.
ep::KernelFactory QuantizeLinearFactory();
// DequantizeLinear (opsets 10-21: `axis` from 13, `block_size` from 21); y has the scale's type.
ep::KernelFactory DequantizeLinearFactory();
// DynamicQuantizeLinear (opset 11): outputs y, y_scale, y_zero_point.
ep::KernelFactory DynamicQuantizeLinearFactory();
// MatMulInteger and QLinearMatMul.
ep::KernelFactory MatMulIntegerFactory();
ep::KernelFactory QLinearMatMulFactory();
// ConvInteger and QLinearConv (Conv's attributes).
ep::KernelFactory ConvIntegerFactory();
ep::KernelFactory QLinearConvFactory();

}  // namespace nxrt::cpu::kernels
