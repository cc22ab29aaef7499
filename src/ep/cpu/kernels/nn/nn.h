// ep/cpu/kernels/nn/nn.h: kernel factories of the CPU EP's nn family, used by its table
// (register_nn.cpp).
//
// Layer: nxrt_ep_cpu (kernel glue over the reference math of src/ep/cpu/math/nn). Each factory
// reads the node's attributes once (kInvalidModel naming the attribute and its value) and returns a
// kernel whose Prepare builds the math plan, including its oneDNN primitive for float, and
// keeps it while the input shapes stay the same (constant weights never change shape, so their
// primitive is made once); Compute only executes the plan on the bound buffers.
#pragma once

#include "ep/cpu/math/nn/pool.h"
#include "ep/cpu/math/nn/rnn.h"
#include "ep/op_registry.h"

namespace nxrt::cpu::kernels {

// MatMul (NumPy matmul semantics).
ep::KernelFactory MatMulFactory();
// Gemm (`transA`, `transB`, `alpha`, `beta`; C optional from opset 11).
ep::KernelFactory GemmFactory();

// Conv and ConvTranspose (`auto_pad`, `dilations`, `group`, `kernel_shape`, `pads`, `strides`;
// ConvTranspose also `output_padding` and `output_shape`).
ep::KernelFactory ConvFactory();
ep::KernelFactory ConvTransposeFactory();

// nxrt's fused operators (domain com.nxrt, made by the level-2 graph passes):
// FusedMatMul(A, B, bias?) and FusedGemm(A, B, C?) with `activation`, `activation_alpha`,
// `activation_beta` (and Gemm's attributes), FusedConv(X, W, B?, Z?) with Conv's attributes and
// the same three and `channels_last` (kernels/nn/matmul.cpp and conv.cpp describe them).
ep::KernelFactory FusedMatMulFactory();
ep::KernelFactory FusedGemmFactory();
ep::KernelFactory FusedConvFactory();

// MaxPool (with its optional Indices output), AveragePool, LpPool: the attributes each opset
// has (`kernel_shape`, `auto_pad`, `pads`, `strides`, `ceil_mode`, `dilations`,
// `storage_order`, `count_include_pad`, `p`).
ep::KernelFactory PoolFactory(nn::PoolKind kind);
// GlobalMaxPool, GlobalAveragePool, GlobalLpPool (`p`).
ep::KernelFactory GlobalPoolFactory(nn::PoolKind kind);
// nxrt's channels-last pools (domain com.nxrt): NhwcMaxPool (kMax) and NhwcAveragePool
// (kAverage) with the attributes of MaxPool-12 and AveragePool-19, NhwcGlobalAveragePool;
// X [N, H, W, C] (kernels/nn/pool.cpp describes them).
ep::KernelFactory NhwcPoolFactory(nn::PoolKind kind);
ep::KernelFactory NhwcGlobalAveragePoolFactory();

// LSTM, GRU and RNN (`direction`, `hidden_size`, `activations` with their alphas and betas,
// `clip`, `layout` from opset 14, LSTM `input_forget`, GRU `linear_before_reset`), every output
// optional.
ep::KernelFactory RnnFactory(nn::RnnCell cell);

// GridSample (`align_corners`, `mode`, `padding_mode`; 2-D).
ep::KernelFactory GridSampleFactory();
// NonMaxSuppression (`center_point_box`; inputs 2-4 read in Prepare, output dynamic).
ep::KernelFactory NonMaxSuppressionFactory();
// LRN (`alpha`, `beta`, `bias`, `size`).
ep::KernelFactory LrnFactory();
// Einsum (`equation`, parsed once; any number of inputs).
ep::KernelFactory EinsumFactory();
// Det (no attributes).
ep::KernelFactory DetFactory();
// RoiAlign (`mode`, `output_height`, `output_width`, `sampling_ratio`, `spatial_scale`,
// `coordinate_transformation_mode` from opset 16).
ep::KernelFactory RoiAlignFactory();
// MaxRoiPool (`pooled_shape`, `spatial_scale`).
ep::KernelFactory MaxRoiPoolFactory();
// MaxUnpool (`kernel_shape`, `pads`, `strides`; input 2 'output_shape' read in Prepare).
ep::KernelFactory MaxUnpoolFactory();

}  // namespace nxrt::cpu::kernels
