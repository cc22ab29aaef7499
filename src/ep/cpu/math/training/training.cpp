// ep/cpu/math/training/training.cpp: see training.h.
#include "ep/cpu/math/training/training.h"

#include <cmath>

#include "ep/cpu/math/element_types.h"

namespace nxrt::cpu::math {
namespace {

using BatchNormTypes = TypeList<float, double, Float16, BFloat16>;
using OptimizerTypes = TypeList<float, double>;

// The `count` elements of `data` (of `type`, one of BatchNormTypes) as doubles into `values`.
void LoadDoubles(DataType type, const void* data, int64_t count, double* values) {
  VisitType(BatchNormTypes{}, type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t i = 0; i < count; ++i) {
      values[i] = static_cast<double>(Load(static_cast<const T*>(data)[i]));
    }
  });
}

void StoreDoubles(DataType type, const double* values, int64_t count, void* data) {
  VisitType(BatchNormTypes{}, type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t i = 0; i < count; ++i) {
      static_cast<T*>(data)[i] = Store<T>(static_cast<Compute<T>>(values[i]));
    }
  });
}

template <typename T>
void OptimizerTyped(const OptimizerAttrs& a, double r, int64_t t, int64_t count,
                    const void* x_raw, const void* g_raw, std::span<const void* const> states,
                    void* x_new_raw, std::span<void* const> states_new) {
  const T* x = static_cast<const T*>(x_raw);
  const T* g = static_cast<const T*>(g_raw);
  T* x_new = static_cast<T*>(x_new_raw);
  const T* s0 = static_cast<const T*>(states[0]);
  T* s0_new = static_cast<T*>(states_new[0]);
  const auto td = static_cast<double>(t);
  switch (a.kind) {
    case OptimizerKind::kAdagrad: {
      const double rate = r / (1 + td * a.decay_factor);
      for (int64_t i = 0; i < count; ++i) {
        const double gr = a.norm_coefficient * x[i] + g[i];
        const double h = s0[i] + gr * gr;
        x_new[i] = static_cast<T>(x[i] - rate * gr / (std::sqrt(h) + a.epsilon));
        s0_new[i] = static_cast<T>(h);
      }
      return;
    }
    case OptimizerKind::kMomentum:
    case OptimizerKind::kNesterov: {
      const double b = t > 0 ? a.beta : 1.0;
      const bool nesterov = a.kind == OptimizerKind::kNesterov;
      for (int64_t i = 0; i < count; ++i) {
        const double gr = a.norm_coefficient * x[i] + g[i];
        const double v = a.alpha * s0[i] + b * gr;
        x_new[i] = static_cast<T>(x[i] - r * (nesterov ? gr + a.alpha * v : v));
        s0_new[i] = static_cast<T>(v);
      }
      return;
    }
    case OptimizerKind::kAdam: {
      const T* h_in = static_cast<const T*>(states[1]);
      T* h_out = static_cast<T*>(states_new[1]);
      const double rate =
          t > 0 ? r * std::sqrt(1 - std::pow(a.beta, td)) / (1 - std::pow(a.alpha, td)) : r;
      for (int64_t i = 0; i < count; ++i) {
        const double gr = a.norm_coefficient * x[i] + g[i];
        const double v = a.alpha * s0[i] + (1 - a.alpha) * gr;
        const double h = a.beta * h_in[i] + (1 - a.beta) * gr * gr;
        const double stepped = x[i] - rate * v / (std::sqrt(h) + a.epsilon);
        x_new[i] = static_cast<T>((1 - a.norm_coefficient_post) * stepped);
        s0_new[i] = static_cast<T>(v);
        h_out[i] = static_cast<T>(h);
      }
      return;
    }
  }
}

}  // namespace

Result<BatchNormTrainingPlan> PrepareBatchNormTraining(DataType type, const Shape& x_shape,
                                                       DataType param_type, DataType stats_type,
                                                       std::span<const Shape, 4> params,
                                                       double epsilon, double momentum) {
  static constexpr const char* kNames[] = {"1 'scale'", "2 'B'", "3 'input_mean'",
                                           "4 'input_var'"};
  if (x_shape.size() < 2) {
    return MakeStatus(StatusCode::kInvalidArgument, "input 0 'X' has shape ",
                      ShapeToString(x_shape), "; expected [N, C, d1, ...] (rank >= 2)");
  }
  for (size_t i = 0; i < params.size(); ++i) {
    if (params[i] != Shape{x_shape[1]}) {
      return MakeStatus(StatusCode::kInvalidArgument, "input ", kNames[i], " has shape ",
                        ShapeToString(params[i]), "; X of shape ", ShapeToString(x_shape),
                        " needs [", x_shape[1], "]");
    }
  }
  for (DataType t : {type, param_type, stats_type}) {
    NXRT_RETURN_IF_ERROR(
        DispatchType<BatchNormTypes>(t, "BatchNormalization (training)", [](auto) {}));
  }
  BatchNormTrainingPlan plan;
  plan.batch = x_shape[0];
  plan.channels = x_shape[1];
  for (size_t i = 2; i < x_shape.size(); ++i) plan.spatial *= x_shape[i];
  plan.epsilon = epsilon;
  plan.momentum = momentum;
  plan.type = type;
  plan.param_type = param_type;
  plan.stats_type = stats_type;
  return plan;
}

int64_t BatchNormTrainingScratch(const BatchNormTrainingPlan& plan) {
  return 4 * plan.channels;
}

void RunBatchNormTraining(const BatchNormTrainingPlan& plan, const void* x_raw,
                          const void* scale_raw, const void* bias_raw, const void* mean_raw,
                          const void* var_raw, void* y_raw, void* running_mean,
                          void* running_var, double* scratch) {
  const int64_t n = plan.batch, c = plan.channels, s = plan.spatial;
  double* scale = scratch;
  double* bias = scratch + c;
  double* mean = scratch + 2 * c;  // the batch statistics, then the blended ones
  double* var = scratch + 3 * c;
  LoadDoubles(plan.param_type, scale_raw, c, scale);
  LoadDoubles(plan.param_type, bias_raw, c, bias);
  VisitType(BatchNormTypes{}, plan.type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x = static_cast<const T*>(x_raw);
    T* y = static_cast<T*>(y_raw);
    const auto count = static_cast<double>(n * s);
    for (int64_t ch = 0; ch < c; ++ch) {
      double sum = 0;
      for (int64_t b = 0; b < n; ++b) {
        const T* row = x + (b * c + ch) * s;
        for (int64_t i = 0; i < s; ++i) sum += static_cast<double>(Load(row[i]));
      }
      const double m = sum / count;
      double squares = 0;
      for (int64_t b = 0; b < n; ++b) {
        const T* row = x + (b * c + ch) * s;
        for (int64_t i = 0; i < s; ++i) {
          const double d = static_cast<double>(Load(row[i])) - m;
          squares += d * d;
        }
      }
      const double v = squares / count;
      const double k = scale[ch] / std::sqrt(v + plan.epsilon);
      for (int64_t b = 0; b < n; ++b) {
        const T* row = x + (b * c + ch) * s;
        T* out = y + (b * c + ch) * s;
        for (int64_t i = 0; i < s; ++i) {
          const double value = (static_cast<double>(Load(row[i])) - m) * k + bias[ch];
          out[i] = Store<T>(static_cast<Compute<T>>(value));
        }
      }
      mean[ch] = m;
      var[ch] = v;
    }
  });
  // scale and bias are no longer needed: their space holds the input statistics.
  const auto blend = [&](const void* input, double* current, void* out) {
    if (out == nullptr) return;
    LoadDoubles(plan.stats_type, input, c, scale);
    for (int64_t i = 0; i < c; ++i) {
      current[i] = scale[i] * plan.momentum + current[i] * (1 - plan.momentum);
    }
    StoreDoubles(plan.stats_type, current, c, out);
  };
  blend(mean_raw, mean, running_mean);
  blend(var_raw, var, running_var);
}

int OptimizerStateCount(OptimizerKind kind) { return kind == OptimizerKind::kAdam ? 2 : 1; }

Result<OptimizerFn> PrepareOptimizer(DataType type) {
  OptimizerFn fn = nullptr;
  NXRT_RETURN_IF_ERROR(DispatchType<OptimizerTypes>(type, "optimizer", [&](auto tag) {
    fn = &OptimizerTyped<typename decltype(tag)::type>;
  }));
  return fn;
}

}  // namespace nxrt::cpu::math
