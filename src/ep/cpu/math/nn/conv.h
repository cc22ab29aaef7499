// ep/cpu/math/nn/conv.h: Conv and ConvTranspose (ONNX) for the CPU EP: oneDNN for float (strided
// float ConvTranspose: oneDNN's sgemm and nxrt's col2im, conv_transpose_gemm.h), direct
// reference loops for double and float16 (and for float configurations oneDNN declines).
//
// Layer: nxrt_cpu_math (framework-free; no IR, no EP API). 1-D, 2-D and 3-D (any spatial rank for
// the reference), groups including depthwise, dilations, strides, explicit pads and auto_pad,
// kernel_shape taken from the weights when absent, optional bias, optional fused post-ops (a sum
// and an activation, for a fusion pass). Prepare computes the output shape and pads (window.h)
// and creates the oneDNN primitive in the layouts oneDNN prefers (blocked channels on AVX-512),
// with reorders from and to the plain tensors at the op's boundary; constant weights are
// reordered once (PackConvWeights), other weights on each call. Compute only executes: the
// blocked copies of X, Y and W and oneDNN's scratchpad live in the caller's workspace
// (ConvPlan::workspace_bytes). One plan object runs on one thread at a time (it binds its
// buffers to its own oneDNN memory objects); copies of a plan, each with its own workspace, may
// run at once. Layouts are ONNX's: X [N, C, D...], Conv W [M, C/group, k...], ConvTranspose W
// [C, M/group, k...], B [M], Y [N, M, D'...], contiguous. A 2-D Conv may instead keep X, Z and Y
// channels-last (ConvOptions::channels_last: X [N, H, W, C], Z and Y [N, H', W', M]; W and B
// unchanged): oneDNN is handed the NHWC strides, so its NHWC kernels read and write the tensors
// in place, and the reference loops transpose through the workspace.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ep/cpu/math/nn/window.h"
#include "nxrt/data_type.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::nn {

struct ConvAttributes {
  AutoPad auto_pad = AutoPad::kNotSet;
  std::vector<int64_t> kernel_shape;  // empty: the weights' spatial dims
  std::vector<int64_t> strides;       // empty: 1
  std::vector<int64_t> dilations;     // empty: 1
  std::vector<int64_t> pads;          // [begin..., end...]; empty: 0
  int64_t group = 1;
  // ConvTranspose only.
  std::vector<int64_t> output_padding;  // empty: 0
  std::vector<int64_t> output_shape;    // spatial dims (or N, C and spatial); empty: computed
};

// The activation applied after the convolution, bias and sum: Y = act(conv(X, W) + B + Z).
// kHardSwish is x * max(0, min(1, x / 6 + 1/2)) (ONNX HardSwish), kSwish x * sigmoid(alpha * x).
enum class ConvActivation {
  kNone, kRelu, kLeakyRelu, kClip, kHardSigmoid, kSigmoid, kTanh, kHardSwish, kSwish
};

// Post-ops fused into the convolution (oneDNN post-ops for float; the reference applies the same).
struct ConvPostOps {
  bool sum = false;  // add Z, a tensor of Y's shape (ConvBuffers::sum), before the activation
  ConvActivation activation = ConvActivation::kNone;
  // kLeakyRelu: alpha; kClip: alpha = min, beta = max; kHardSigmoid: max(0, min(1, alpha*x+beta));
  // kSwish: alpha.
  float alpha = 0.0f;
  float beta = 0.0f;
  // Then y = output_scale * y + output_shift: a scalar affine after the activation (PaddlePaddle's
  // learnable affine after HardSwish in PP-LCNet), oneDNN's linear post-op.
  float output_scale = 1.0f;
  float output_shift = 0.0f;
  bool has_output_affine() const { return output_scale != 1.0f || output_shift != 0.0f; }
};

// How to prepare a float plan: its post-ops and the most threads oneDNN may use (the plan takes
// DnnlThreadsFor its multiply-adds, so small convolutions stay on the calling thread).
struct ConvOptions {
  ConvPostOps post_ops;
  int threads = 1;
  // Conv only, X of rank 4: X is [N, H, W, C], Z and Y [N, H', W', M] (see the file comment).
  bool channels_last = false;
  // W never changes and the caller packs it (PackConvWeights) right after Prepare. Lets a float
  // 2-D 3x3 stride-1 Conv of at least 64 input and output channels run oneDNN's Winograd
  // algorithm, whose weight transform is too costly to repeat on every call. Winograd rounds
  // differently from the direct sum: on ResNet-18's layers (unit-variance activations, He-scaled
  // weights, outputs up to ~6) the largest difference from the direct result was 8e-6. Against a
  // double reference (inputs of scale 100), oneDNN's F(2x2,3x3) kernel was as close as its direct
  // kernels and its F(4x4,3x3) kernel twice as far (2e-6 of the largest output); ResNet-18's
  // logits (up to 202) are within 1.2e-4 of ORT's with or without it.
  bool constant_weights = false;
};

// A created oneDNN (de)convolution primitive and its reorders; defined in conv.cpp.
struct DnnlConvPrimitive;
// Weights reordered into the primitive's layout; defined in conv.cpp.
struct PackedConvWeights;

// The oneDNN memory objects one plan copy binds its buffers to, so Conv creates none. Copying
// makes fresh objects (a copy may run on another thread); defined in conv.cpp.
class ConvBindings {
 public:
  ConvBindings();
  ~ConvBindings();
  ConvBindings(const ConvBindings& other);
  ConvBindings& operator=(const ConvBindings& other);
  ConvBindings(ConvBindings&&) noexcept;
  ConvBindings& operator=(ConvBindings&&) noexcept;
  struct Impl;
  std::unique_ptr<Impl> impl;
};

struct ConvPlan {
  DataType dtype = DataType::kUndefined;
  bool transpose = false;
  bool channels_last = false;
  Shape output_shape;  // [N, H', W', M] when channels_last
  // Internal.
  int64_t batch = 0;
  int64_t in_channels = 0;
  int64_t out_channels = 0;
  int64_t group = 1;
  bool has_bias = false;
  ConvPostOps post_ops;
  int threads = 1;  // oneDNN threads the primitive was created for and runs with
  Shape input_spatial;
  WindowGeometry geometry;  // kernel, strides, dilations, pads, output (spatial)
  // Float ConvTranspose with a stride above 1 and no post-ops: GEMM + col2im
  // (conv_transpose_gemm.h) instead of oneDNN's deconvolution.
  bool gemm_col2im = false;
  std::shared_ptr<const DnnlConvPrimitive> dnnl;  // null: reference loops (or gemm_col2im)
  std::shared_ptr<const PackedConvWeights> packed_weights;  // null: W is read on each call
  // Bound anew on each call: one plan copy runs on one thread at a time.
  mutable ConvBindings bindings;
  // Bytes of workspace Conv needs (blocked X, Y and W, oneDNN scratchpad; for channels_last on
  // the reference loops, X and Y as [N, C, H, W]), 64-byte aligned.
  size_t workspace_bytes = 0;
};

// Conv (ONNX opset 1, 11): output spatial dims per window.h. dtypes float (oneDNN), double,
// float16. `b_shape` is nullopt without bias. Errors (kInvalidArgument) print the shapes and
// attributes involved: X rank < 3, W rank != X rank, C != W[1] * group, M not divisible by
// group, kernel_shape different from W's spatial dims, bias not [M], kernel larger than the
// padded input; with options.channels_last, X not of rank 4 (these messages then name the op
// "Conv (channels_last)" and print X as [N, C, H, W]).
Result<ConvPlan> PrepareConv(DataType dtype, std::span<const int64_t> x_shape,
                             std::span<const int64_t> w_shape,
                             std::optional<std::span<const int64_t>> b_shape,
                             const ConvAttributes& attributes, const ConvOptions& options = {});

// ConvTranspose (ONNX opset 1, 11): M = W[1] * group output channels and spatial dims
//   out = stride * (in - 1) + output_padding + (k - 1) * dilation + 1 - pad_begin - pad_end.
// With `output_shape`, pads come from total = max(0, stride * (in - 1) + output_padding +
// (k - 1) * dilation + 1 - out): SAME_UPPER puts total/2 first, otherwise total - total/2 first;
// an output larger than that formula extends at the end. auto_pad SAME_* without output_shape
// means out = in * stride. dtypes as Conv; float with a stride above 1 and no post-ops runs as
// GEMM + col2im (ConvPlan::gemm_col2im). options.channels_last is kInvalidArgument here.
Result<ConvPlan> PrepareConvTranspose(DataType dtype, std::span<const int64_t> x_shape,
                                      std::span<const int64_t> w_shape,
                                      std::optional<std::span<const int64_t>> b_shape,
                                      const ConvAttributes& attributes,
                                      const ConvOptions& options = {});

// For weights that never change (an initializer): reorders `w` (ONNX layout) once into the
// primitive's layout and keeps the copy in plan.packed_weights, so Conv ignores its `w`
// afterwards and workspace_bytes shrinks. A no-op (packed_weights stays null, Conv keeps reading
// `w`) when the plan runs on the reference loops or oneDNN takes the plain layout. Errors:
// kRuntimeError from oneDNN.
Status PackConvWeights(ConvPlan& plan, const void* w);

// The buffers of one Conv call. `b` is ignored without bias, `sum` without post_ops.sum (it may
// be `y` itself), `w` when plan.packed_weights is set. `workspace` holds plan.workspace_bytes,
// 64-byte aligned.
struct ConvBuffers {
  const void* x = nullptr;
  const void* w = nullptr;
  const void* b = nullptr;
  const void* sum = nullptr;
  void* y = nullptr;
  std::span<std::byte> workspace;
};

// The implementation a plan runs: oneDNN's name of its primitive ("brgconv:avx512_core",
// "jit_fp32_wino_2x3:avx512_core", ...), "gemm_col2im" (ConvPlan::gemm_col2im), or "reference"
// for the loops here.
std::string ConvImplementation(const ConvPlan& plan);

// Runs a plan from PrepareConv or PrepareConvTranspose. Errors: kInvalidArgument when the
// workspace is smaller than plan.workspace_bytes.
Status Conv(const ConvPlan& plan, const ConvBuffers& buffers);

// Convenience form (tests, one-off calls): allocates the workspace itself.
Status Conv(const ConvPlan& plan, const void* x, const void* w, const void* b, void* y);

}  // namespace nxrt::cpu::nn
