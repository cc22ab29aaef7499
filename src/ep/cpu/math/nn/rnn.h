// ep/cpu/math/nn/rnn.h: the recurrent ops LSTM, GRU and RNN (ONNX) as reference math.
//
// Layer: nxrt_cpu_math (framework-free; no IR, no EP API). One prepare/compute pair serves the
// three cells. Prepare checks every input shape against X, W and R (messages print both shapes)
// and computes the output shapes and the workspace size; compute runs the recurrence step by
// step in the given buffers (float and float16 compute in float, double in double).
//
// Shapes (layout 0; layout 1 swaps the seq/batch-first dims as the spec says), G gates per cell
// (LSTM 4 "iofc", GRU 3 "zrh", RNN 1), D directions:
//   X [seq, batch, input]          W [D, G*H, input]     R [D, G*H, H]     B [D, 2*G*H] (Wb, Rb)
//   sequence_lens [batch] (int32)  initial_h, initial_c [D, batch, H]      P [D, 3*H] (i, o, f)
//   Y [seq, D, batch, H]           Y_h, Y_c [D, batch, H]
// Steps of a batch entry at or beyond its sequence length leave Y zero and its state unchanged;
// the reverse direction starts at the entry's last valid step.
//
// float runs on oneDNN (matmul.h's Gemm, one owner): per direction the input projection of all
// time steps is one product X [seq * batch, input] @ W^T, then each step is one product of the
// state [batch, H] with R^T (packed once when R is a constant; GRU without linear_before_reset
// takes R's candidate rows as a second product of r (.) h), and the gates are array loops with
// FastSigmoid / FastTanh (fast_math.h, within 3 ULP). double and float16 run the reference loops.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ep/cpu/math/nn/matmul.h"
#include "nxrt/data_type.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::nn {

enum class RnnCell { kRnn, kGru, kLstm };
enum class RnnDirection { kForward, kReverse, kBidirectional };

// "forward", "reverse" or "bidirectional"; kInvalidArgument otherwise.
Result<RnnDirection> ParseRnnDirection(std::string_view direction);

enum class RnnActivationKind {
  kRelu,
  kTanh,
  kSigmoid,
  kAffine,
  kLeakyRelu,
  kThresholdedRelu,
  kScaledTanh,
  kHardSigmoid,
  kElu,
  kSoftsign,
  kSoftplus,
};

struct RnnActivation {
  RnnActivationKind kind = RnnActivationKind::kTanh;
  float alpha = 0.0f;
  float beta = 0.0f;
};

// Parses the `activations` attribute (names as in the spec, case-insensitive) with
// `activation_alpha` / `activation_beta`: each activation that takes an alpha (LeakyRelu,
// ThresholdedRelu, Elu, HardSigmoid, Affine, ScaledTanh) consumes the next alpha, and each that
// takes a beta (HardSigmoid, Affine, ScaledTanh) the next beta; missing ones default to
// LeakyRelu 0.01, ThresholdedRelu 1, Elu 1, HardSigmoid 0.2/0.5, Affine 1/0, ScaledTanh 1/1.
Result<std::vector<RnnActivation>> ParseRnnActivations(std::span<const std::string> names,
                                                       std::span<const float> alphas,
                                                       std::span<const float> betas);

struct RnnAttributes {
  RnnCell cell = RnnCell::kLstm;
  RnnDirection direction = RnnDirection::kForward;
  int64_t hidden_size = 0;  // 0: taken from R
  // Per direction, in the spec's order (LSTM f, g, h; GRU f, g; RNN f), forward first. Empty:
  // the defaults (LSTM Sigmoid, Tanh, Tanh; GRU Sigmoid, Tanh; RNN Tanh). A list for one
  // direction is reused for the second of a bidirectional op.
  std::vector<RnnActivation> activations;
  std::optional<float> clip;         // clip gate pre-activations to [-clip, clip]
  int64_t layout = 0;                // opset 14
  bool input_forget = false;         // LSTM: f = 1 - i
  bool linear_before_reset = false;  // GRU
};

// The shapes of the inputs; nullopt for an absent optional input.
struct RnnShapes {
  Shape x;
  Shape w;
  Shape r;
  std::optional<Shape> b;
  std::optional<Shape> sequence_lens;
  std::optional<Shape> initial_h;
  std::optional<Shape> initial_c;  // LSTM
  std::optional<Shape> p;          // LSTM peepholes
};

// The oneDNN products of one direction of a float plan.
struct RnnDirectionGemms {
  GemmPlan input;      // X [seq * batch, input] @ W[dir]^T -> [seq * batch, G*H]
  GemmPlan recurrent;  // h [batch, H] @ R[dir]^T, all G*H rows (GRU without lbr: the z, r rows)
  std::optional<GemmPlan> reset_hidden;  // GRU without lbr: (r (.) h) @ R[dir]'s candidate rows^T
};

// How to prepare (both optional): oneDNN threads, and W and R when they are constants (the plan
// packs them once; Rnn then never reads `w` / `r`).
struct RnnOptions {
  int threads = 1;
  const void* constant_w = nullptr;
  const void* constant_r = nullptr;
};

struct RnnPlan {
  DataType dtype = DataType::kUndefined;
  RnnAttributes attributes;
  Shape y_shape;
  Shape y_h_shape;
  Shape y_c_shape;  // LSTM only; empty otherwise
  // Bytes of scratch memory compute needs (8-byte aligned).
  size_t workspace_bytes = 0;
  // Internal.
  int64_t seq = 0;
  int64_t batch = 0;
  int64_t input_size = 0;
  int64_t hidden = 0;
  int64_t directions = 1;
  int64_t gates = 1;
  bool has_b = false, has_sequence_lens = false, has_initial_h = false, has_initial_c = false,
       has_p = false;
  std::vector<RnnActivation> activations;  // resolved: per direction, per cell function
  std::vector<RnnDirectionGemms> gemms;    // float: per direction; empty for the other dtypes
  size_t gemm_workspace_offset = 0;        // float: where the Gemm scratchpad starts
};

// LSTM (ONNX opset 1, 7, 14), GRU (1, 3, 7, 14), RNN (1, 7, 14). dtypes float, double, float16.
Result<RnnPlan> PrepareRnn(DataType dtype, const RnnShapes& shapes,
                           const RnnAttributes& attributes, const RnnOptions& options = {});

// Input buffers (contiguous, dtype of the plan; sequence_lens int32); null for absent inputs.
struct RnnInputs {
  const void* x = nullptr;
  const void* w = nullptr;
  const void* r = nullptr;
  const void* b = nullptr;
  const int32_t* sequence_lens = nullptr;
  const void* initial_h = nullptr;
  const void* initial_c = nullptr;
  const void* p = nullptr;
};

// Output buffers; any may be null when the node does not use that output.
struct RnnOutputs {
  void* y = nullptr;
  void* y_h = nullptr;
  void* y_c = nullptr;
};

// Runs the plan with `workspace` of plan.workspace_bytes (8-byte aligned). Errors:
// kInvalidArgument for a sequence length outside [0, seq].
Status Rnn(const RnnPlan& plan, const RnnInputs& inputs, const RnnOutputs& outputs,
           void* workspace);

}  // namespace nxrt::cpu::nn
