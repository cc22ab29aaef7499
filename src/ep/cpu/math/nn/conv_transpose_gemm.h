// ep/cpu/math/nn/conv_transpose_gemm.h: float ConvTranspose with a stride above 1 as a GEMM per
// block of output channels and a col2im that gathers the block's columns into Y.
//
// Layer: nxrt_cpu_math, internal to conv.cpp. oneDNN 2.6's deconvolution (its backward-data
// convolution kernel) runs strided transposed convolutions at about half the FMA rate of its
// GEMM: 4x4 stride 2 pads 1, 64 -> 32 channels at 56^2, one thread (loaded machine): 2.7 ms,
// against 1.5 ms for the GEMM and 0.3 ms for the col2im here; ONNX Runtime 1.30 takes 2.5 ms.
//
// For image n, group g and a block of output channels m of the group:
//   col[(m, k...), (i...)] = sum_c W[g Cg + c, m, k...] X[n, g Cg + c, i...]
// (Sgemm, W read transposed where it lies: [Cg, Mg * K] per group, K the kernel's taps). Then
// each output row (fixed m and all spatial coordinates but the last) is the bias plus, for every
// tap whose outer coordinates land on an input row, that row of col. Along the last dim, output
// column o = s * j + r (phase r < s) reads tap kw when kw * dilation - pad_begin = r (mod s),
// at input column j + e(kw): each tap adds one contiguous run into the phase vector of r, and
// the s phase vectors are then interleaved into Y, so every add is a contiguous vector add and
// Y is written once. Blocks run on plan.threads OpenMP threads, each with its own column buffer
// in the workspace (512 KiB, or more for at least 32 GEMM rows or one channel's columns).
#pragma once

#include <cstddef>

#include "ep/cpu/math/nn/conv.h"

namespace nxrt::cpu::nn {

// Whether a ConvTranspose plan (output shape and geometry set) runs here: float, no post-ops,
// 1 to 3 spatial dims with some stride above 1, an output and an input that are not empty.
bool UseGemmConvTranspose(const ConvPlan& plan);

// Bytes of workspace GemmConvTranspose needs: per thread of plan.threads, a column buffer and
// the phase vectors of one output row (64-byte aligned each).
size_t GemmConvTransposeWorkspace(const ConvPlan& plan);

// Runs a plan for which UseGemmConvTranspose holds; io.workspace holds
// GemmConvTransposeWorkspace(plan) bytes, io.w is the ONNX [C, M / group, k...] weights.
// Errors: kRuntimeError from oneDNN's sgemm.
Status GemmConvTranspose(const ConvPlan& plan, const ConvBuffers& io);

}  // namespace nxrt::cpu::nn
