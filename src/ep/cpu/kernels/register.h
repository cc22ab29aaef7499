// ep/cpu/kernels/register.h: the CPU EP's kernel families, each registering its kernels into the
// EP's OpRegistry.
//
// Layer: nxrt_ep_cpu. RegisterCpuKernels (cpu_kernels.cpp) calls these in order; each family's
// function is one explicit table (kernels/<family>/register_<family>.cpp) with one entry per
// (op, opset range): domain, op type, [since, until] and the dtypes of each type variable as the
// ONNX schema states them, restricted to what the kernel computes. To add an op: write its glue
// in kernels/<family>/, then add its lines to the family's table. To add a family: declare its
// function here and call it from RegisterCpuKernels.
// Each function returns the registry's error for a malformed or overlapping entry (a bug).
#pragma once

#include "ep/op_registry.h"
#include "nxrt/status.h"

namespace nxrt::cpu {

// The `until` of an entry with no upper opset bound.
inline constexpr int kLatest = ep::kLatestOpset;

// Binary and variadic arithmetic, comparisons, logic and bitwise ops, PRelu, Where, the unary
// math and activation ops, Clip, Cast, CastLike, Identity, Dropout.
Status RegisterElementwiseKernels(ep::OpRegistry& registry);

// Reduce* (axes as attribute or input), ArgMax, ArgMin.
Status RegisterReductionKernels(ep::OpRegistry& registry);

// Softmax, LogSoftmax, Hardmax, LayerNormalization, BatchNormalization (inference),
// InstanceNormalization, LpNormalization, MeanVarianceNormalization, CumSum.
Status RegisterNormalizationKernels(ep::OpRegistry& registry);

// Shape, Size, Reshape, Flatten, Squeeze, Unsqueeze, ConstantOfShape, Constant, Range, EyeLike,
// NonZero.
Status RegisterShapeKernels(ep::OpRegistry& registry);

// Data movement: Transpose, Concat, Split, Slice, Gather*, Scatter*, Tile, Expand, Pad, Resize,
// DepthToSpace, SpaceToDepth, Trilu, Compress, ReverseSequence, OneHot, TopK, Unique.
Status RegisterTensorKernels(ep::OpRegistry& registry);

// MatMul, Gemm, Conv, ConvTranspose, pooling, recurrent ops.
Status RegisterNnKernels(ep::OpRegistry& registry);

// StringNormalizer, TfIdfVectorizer.
Status RegisterStringKernels(ep::OpRegistry& registry);

// QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, MatMulInteger, QLinearMatMul,
// ConvInteger, QLinearConv.
Status RegisterQuantKernels(ep::OpRegistry& registry);

// HannWindow, HammingWindow, BlackmanWindow, MelWeightMatrix, DFT, STFT.
Status RegisterSignalKernels(ep::OpRegistry& registry);

// NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss.
Status RegisterLossKernels(ep::OpRegistry& registry);

// RandomUniform[Like], RandomNormal[Like], Bernoulli, Multinomial, Dropout-12+ (training mode).
Status RegisterRandomKernels(ep::OpRegistry& registry);

// The ai.onnx.preview.training optimizers: Adagrad, Momentum, Adam.
Status RegisterTrainingKernels(ep::OpRegistry& registry);

// ONNX Runtime's com.microsoft operators (kernels/contrib/contrib.h).
Status RegisterContribKernels(ep::OpRegistry& registry);

}  // namespace nxrt::cpu
