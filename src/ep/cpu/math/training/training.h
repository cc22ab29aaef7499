// ep/cpu/math/training/training.h: the training-mode math of the CPU EP: BatchNormalization's batch
// statistics and the optimizer updates of the ai.onnx.preview.training domain.
//
// Layer: nxrt_cpu_math (framework-free reference math of the CPU EP; no IR, no EP API).
// All arithmetic happens in double and is rounded once on store; every tensor is contiguous.
//
// BatchNormalization-14/-15 with training_mode = 1 (onnx/defs/nn/defs.cc): X [N, C, d...];
// per channel c the batch mean and the biased (population) variance over N x d... give
//   Y = (X - mean) / sqrt(var + epsilon) * scale + B
//   running_mean = input_mean * momentum + mean * (1 - momentum)   (running_var likewise).
//
// Optimizers (onnx/defs/training/defs.cc, version 1), per element, with r the learning rate R,
// t the step count T, g' = norm_coefficient * x + g:
//   Adagrad   h' = h + g'^2; x' = x - r / (1 + t * decay_factor) * g' / (sqrt(h') + epsilon)
//   Momentum  v' = alpha * v + b * g' with b = beta (t > 0) or 1 (t = 0);
//             standard x' = x - r * v', nesterov x' = x - r * (g' + alpha * v')
//   Adam      v' = alpha * v + (1 - alpha) * g'; h' = beta * h + (1 - beta) * g'^2;
//             r' = r * sqrt(1 - beta^t) / (1 - alpha^t) (t > 0) or r (t = 0);
//             x' = (1 - norm_coefficient_post) * (x - r' * v' / (sqrt(h') + epsilon))
// Types: float and double for the optimizers; float, double, float16, bfloat16 for BatchNorm.
#pragma once

#include <cstdint>
#include <span>

#include "nxrt/data_type.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::math {

// ---- BatchNormalization, training mode ----

struct BatchNormTrainingPlan {
  int64_t batch = 0;     // N
  int64_t channels = 0;  // C
  int64_t spatial = 1;   // prod(d...)
  double epsilon = 1e-5;
  double momentum = 0.9;
  // X/Y, scale/B, and input/running statistics element types.
  DataType type = DataType::kUndefined;
  DataType param_type = DataType::kUndefined;
  DataType stats_type = DataType::kUndefined;
};

// Checks X's rank (>= 2), each of the four [C] inputs (scale, B, input_mean, input_var, in that
// order) and the types. Errors: kInvalidArgument naming the input and both shapes, kUnsupported
// for a type outside float, double, float16, bfloat16.
Result<BatchNormTrainingPlan> PrepareBatchNormTraining(DataType type, const Shape& x_shape,
                                                       DataType param_type, DataType stats_type,
                                                       std::span<const Shape, 4> params,
                                                       double epsilon, double momentum);

// Doubles of scratch RunBatchNormTraining needs: 4 * C.
int64_t BatchNormTrainingScratch(const BatchNormTrainingPlan& plan);

// Writes Y and, when non-null, running_mean and running_var ([C] of stats_type). `scratch` holds
// BatchNormTrainingScratch(plan) doubles.
void RunBatchNormTraining(const BatchNormTrainingPlan& plan, const void* x, const void* scale,
                          const void* bias, const void* input_mean, const void* input_var,
                          void* y, void* running_mean, void* running_var, double* scratch);

// ---- optimizers ----

enum class OptimizerKind { kAdagrad, kMomentum, kNesterov, kAdam };

struct OptimizerAttrs {
  OptimizerKind kind = OptimizerKind::kAdagrad;
  double alpha = 0;
  double beta = 0;
  double epsilon = 0;
  double decay_factor = 0;
  double norm_coefficient = 0;
  double norm_coefficient_post = 0;
};

// State tensors per optimized tensor: 1 (Adagrad's H, Momentum's V) or 2 (Adam's V, H).
int OptimizerStateCount(OptimizerKind kind);

// One tensor's update: `count` elements of x and g, states in (V and/or H, in the order above),
// x_new and states out (same order). Any output may alias its input.
using OptimizerFn = void (*)(const OptimizerAttrs& attrs, double r, int64_t t, int64_t count,
                             const void* x, const void* g, std::span<const void* const> states,
                             void* x_new, std::span<void* const> states_new);

// The typed update for `type`. Errors: kUnsupported for a type other than float and double.
Result<OptimizerFn> PrepareOptimizer(DataType type);

}  // namespace nxrt::cpu::math
