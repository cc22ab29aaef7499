// ep/cpu/math/normalization/normalization.cpp: the normalisation ops of normalization.h.
//
// Layer: nxrt_cpu_math (framework-free reference math of the CPU EP).
// Statistics are accumulated in double, except for float LayerNormalization (transformers' hot
// path), float Instance/GroupNormalization and float MeanVarianceNormalization over axes that
// include the innermost, which sum in float with 8 partial sums; the
// per-element affine step runs in the compute type (float for the 16-bit floats) in plain
// contiguous loops.
#include "ep/cpu/math/normalization/normalization.h"

#include <cmath>
#include <span>
#include <string_view>
#include <type_traits>

#include "ep/cpu/math/element_types.h"

namespace nxrt::cpu::math {
namespace {

// Element i of a float-typed buffer as double (parameters of mixed types, once per channel).
double ReadFloat(DataType type, const void* data, int64_t i) {
  double v = 0;
  VisitType(FloatTypesBf16{}, type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    v = static_cast<double>(Load(static_cast<const T*>(data)[i]));
  });
  return v;
}

void WriteFloat(DataType type, void* data, int64_t i, double value) {
  VisitType(FloatTypesBf16{}, type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    static_cast<T*>(data)[i] = ConvertElement<T>(value);
  });
}

// Mean and biased variance of n elements at p with stride `stride`.
template <typename T>
void MeanVar(const T* p, int64_t n, int64_t stride, double* mean, double* var) {
  double sum = 0;
  for (int64_t k = 0; k < n; ++k) sum += static_cast<double>(Load(p[k * stride]));
  const double mu = sum / static_cast<double>(n);
  double sq = 0;
  for (int64_t k = 0; k < n; ++k) {
    const double d = static_cast<double>(Load(p[k * stride])) - mu;
    sq += d * d;
  }
  *mean = mu;
  *var = sq / static_cast<double>(n);
}

Status CheckFloatType(std::string_view op, std::string_view what, DataType type) {
  return DispatchType<FloatTypesBf16>(type, std::string(op) + " " + std::string(what), [](auto) {});
}

Status CheckCount(std::string_view op, std::string_view what, const Shape& shape,
                  int64_t expected) {
  if (Product(shape) != expected) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": ", what, " has shape ",
                      ShapeToString(shape), " (", Product(shape), " elements), expected ",
                      expected, " elements");
  }
  return Status::Ok();
}

// Sum of p[0..n) in float with 8 independent partial sums: the compiler keeps them in vector
// registers, where one running sum (or a double one, which C++ may not reorder) is a chain of
// dependent adds. Summing 8 interleaved parts and then the parts pairwise also rounds less than
// one running sum.
template <typename F>
float SumFloat(const float* p, int64_t n, F term) {
  float part[8] = {};
  int64_t k = 0;
  for (; k + 8 <= n; k += 8) {
    for (int j = 0; j < 8; ++j) part[j] += term(p[k + j]);
  }
  float tail = 0;
  for (; k < n; ++k) tail += term(p[k]);
  return ((part[0] + part[4]) + (part[1] + part[5])) + ((part[2] + part[6]) + (part[3] + part[7])) +
         tail;
}

// The float LayerNorm: two vectorisable passes for the statistics (the mean, then the mean of
// squared deviations, so a large offset does not cancel), one for the affine step.
void LayerNormFloat(const LayerNormPlan& p, const void* x, const void* scale, const void* bias,
                    void* y, void* mean, void* inv_std_dev) {
  const auto* xs = static_cast<const float*>(x);
  const auto* sc = static_cast<const float*>(scale);
  const auto* bs = static_cast<const float*>(bias);
  auto* ys = static_cast<float*>(y);
  const auto n = static_cast<float>(p.cols);
  for (int64_t r = 0; r < p.rows; ++r) {
    const float* row = xs + r * p.cols;
    float* out = ys + r * p.cols;
    const float mu = SumFloat(row, p.cols, [](float v) { return v; }) / n;
    const float var = SumFloat(row, p.cols, [mu](float v) { return (v - mu) * (v - mu); }) / n;
    const float is = 1.0f / std::sqrt(var + p.epsilon);
    if (bs != nullptr) {
      for (int64_t k = 0; k < p.cols; ++k) out[k] = (row[k] - mu) * is * sc[k] + bs[k];
    } else {
      for (int64_t k = 0; k < p.cols; ++k) out[k] = (row[k] - mu) * is * sc[k];
    }
    if (mean != nullptr) WriteFloat(p.stats_type, mean, r, mu);
    if (inv_std_dev != nullptr) WriteFloat(p.stats_type, inv_std_dev, r, is);
  }
}

template <typename T>
void LayerNormTyped(const LayerNormPlan& p, const void* x, const void* scale, const void* bias,
                    void* y, void* mean, void* inv_std_dev) {
  using C = Compute<T>;
  const auto* xs = static_cast<const T*>(x);
  const auto* sc = static_cast<const T*>(scale);
  const auto* bs = static_cast<const T*>(bias);
  auto* ys = static_cast<T*>(y);
  for (int64_t r = 0; r < p.rows; ++r) {
    const T* row = xs + r * p.cols;
    T* out = ys + r * p.cols;
    double mu = 0;
    double var = 0;
    MeanVar(row, p.cols, 1, &mu, &var);
    const double inv_std = 1.0 / std::sqrt(var + static_cast<double>(p.epsilon));
    const auto m = static_cast<C>(mu);
    const auto is = static_cast<C>(inv_std);
    if (bs != nullptr) {
      for (int64_t k = 0; k < p.cols; ++k) {
        out[k] = Store<T>((Load(row[k]) - m) * is * Load(sc[k]) + Load(bs[k]));
      }
    } else {
      for (int64_t k = 0; k < p.cols; ++k) out[k] = Store<T>((Load(row[k]) - m) * is * Load(sc[k]));
    }
    if (mean != nullptr) WriteFloat(p.stats_type, mean, r, mu);
    if (inv_std_dev != nullptr) WriteFloat(p.stats_type, inv_std_dev, r, inv_std);
  }
}

template <typename T>
void BatchNormTyped(const BatchNormPlan& p, const void* x, const void* scale, const void* bias,
                    const void* mean, const void* var, void* y) {
  using C = Compute<T>;
  const auto* xs = static_cast<const T*>(x);
  auto* ys = static_cast<T*>(y);
  for (int64_t n = 0; n < p.batch; ++n) {
    for (int64_t c = 0; c < p.channels; ++c) {
      const double a = ReadFloat(p.param_type, scale, c) /
                       std::sqrt(ReadFloat(p.stats_type, var, c) + static_cast<double>(p.epsilon));
      const double b = ReadFloat(p.param_type, bias, c) - ReadFloat(p.stats_type, mean, c) * a;
      const auto ca = static_cast<C>(a);
      const auto cb = static_cast<C>(b);
      const int64_t offset = (n * p.channels + c) * p.spatial;
      for (int64_t k = 0; k < p.spatial; ++k) ys[offset + k] = Store<T>(Load(xs[offset + k]) * ca + cb);
    }
  }
}

// Rows r in [begin, end) are the (n, g) pairs, r = n * groups + g. Float sums in float with
// SumFloat (two passes, as LayerNormFloat); the other types in double (MeanVar). The affine step
// is (x - mean) * a + bias with a = scale / std per channel; folding the mean into the bias
// instead would cancel digits when the mean is large against the spread.
template <typename T>
void GroupNormTyped(const GroupNormPlan& p, const void* x, const void* scale, const void* bias,
                    void* y, int64_t begin, int64_t end) {
  using C = Compute<T>;
  const auto* xs = static_cast<const T*>(x);
  const auto* sc = static_cast<const T*>(scale);
  const auto* bs = static_cast<const T*>(bias);
  auto* ys = static_cast<T*>(y);
  const int64_t channels_per_group = p.channels / p.groups;
  const int64_t group_size = channels_per_group * p.spatial;
  for (int64_t r = begin; r < end; ++r) {
    const int64_t g = r % p.groups;
    const int64_t offset = r * group_size;
    double mu = 0;
    double inv_std = 0;
    if constexpr (std::is_same_v<T, float>) {
      const auto n = static_cast<float>(group_size);
      const float m = SumFloat(xs + offset, group_size, [](float v) { return v; }) / n;
      const float var =
          SumFloat(xs + offset, group_size, [m](float v) { return (v - m) * (v - m); }) / n;
      mu = m;
      inv_std = 1.0f / std::sqrt(var + p.epsilon);
    } else {
      double var = 0;
      MeanVar(xs + offset, group_size, 1, &mu, &var);
      inv_std = 1.0 / std::sqrt(var + static_cast<double>(p.epsilon));
    }
    const auto m = static_cast<C>(mu);
    for (int64_t j = 0; j < channels_per_group; ++j) {
      const int64_t k = p.per_channel_params ? g * channels_per_group + j : g;
      const auto a = static_cast<C>(inv_std * static_cast<double>(Load(sc[k])));
      const C b = Load(bs[k]);
      const T* in = xs + offset + j * p.spatial;
      T* out = ys + offset + j * p.spatial;
      for (int64_t i = 0; i < p.spatial; ++i) out[i] = Store<T>((Load(in[i]) - m) * a + b);
    }
  }
}

template <typename T>
void LpNormTyped(const LpNormPlan& p, const void* x, void* y) {
  using C = Compute<T>;
  const auto* xs = static_cast<const T*>(x);
  auto* ys = static_cast<T*>(y);
  for (int64_t o = 0; o < p.outer; ++o) {
    for (int64_t i = 0; i < p.inner; ++i) {
      const int64_t base = o * p.axis_dim * p.inner + i;
      double norm = 0;
      for (int64_t k = 0; k < p.axis_dim; ++k) {
        const double v = static_cast<double>(Load(xs[base + k * p.inner]));
        norm += p.p == 1 ? std::fabs(v) : v * v;
      }
      if (p.p == 2) norm = std::sqrt(norm);
      const auto inv = static_cast<C>(norm == 0 ? 0.0 : 1.0 / norm);
      for (int64_t k = 0; k < p.axis_dim; ++k) {
        const int64_t at = base + k * p.inner;
        ys[at] = Store<T>(Load(xs[at]) * inv);
      }
    }
  }
}

// Float MVN when the innermost axis is reduced: each kept element's set is contiguous runs, summed
// with SumFloat (two passes, as LayerNormFloat), then the affine step over the runs.
void MvnFloatRuns(const AxesSplit& s, const float* xs, float* ys) {
  const int64_t run = s.reduced_dims.back();
  const std::span<const int64_t> outer_dims(s.reduced_dims.data(), s.reduced_dims.size() - 1);
  const std::span<const int64_t> outer_strides(s.reduced_strides.data(),
                                               s.reduced_strides.size() - 1);
  const auto count = static_cast<float>(s.reduced_count);
  ForEachOffset(s.kept_dims, s.kept_strides, [&](int64_t kept) {
    float sum = 0;
    ForEachOffset(outer_dims, outer_strides, [&](int64_t r) {
      sum += SumFloat(xs + kept + r, run, [](float v) { return v; });
    });
    const float mu = sum / count;
    float sq = 0;
    ForEachOffset(outer_dims, outer_strides, [&](int64_t r) {
      sq += SumFloat(xs + kept + r, run, [mu](float v) { return (v - mu) * (v - mu); });
    });
    const float inv = 1.0f / (std::sqrt(sq / count) + 1e-9f);
    ForEachOffset(outer_dims, outer_strides, [&](int64_t r) {
      const float* in = xs + kept + r;
      float* out = ys + kept + r;
      for (int64_t k = 0; k < run; ++k) out[k] = (in[k] - mu) * inv;
    });
  });
}

template <typename T>
void MvnTyped(const AxesSplit& s, const void* x, void* y) {
  using C = Compute<T>;
  const auto* xs = static_cast<const T*>(x);
  auto* ys = static_cast<T*>(y);
  const auto count = static_cast<double>(s.reduced_count);
  if (s.reduced_count == 0) return;
  if constexpr (std::is_same_v<T, float>) {
    if (s.inner_reduced) return MvnFloatRuns(s, xs, ys);
  }
  ForEachOffset(s.kept_dims, s.kept_strides, [&](int64_t kept) {
    double sum = 0;
    ForEachOffset(s.reduced_dims, s.reduced_strides,
                  [&](int64_t r) { sum += static_cast<double>(Load(xs[kept + r])); });
    const double mu = sum / count;
    double sq = 0;
    ForEachOffset(s.reduced_dims, s.reduced_strides, [&](int64_t r) {
      const double d = static_cast<double>(Load(xs[kept + r])) - mu;
      sq += d * d;
    });
    const auto m = static_cast<C>(mu);
    const auto inv = static_cast<C>(1.0 / (std::sqrt(sq / count) + 1e-9));
    ForEachOffset(s.reduced_dims, s.reduced_strides,
                  [&](int64_t r) { ys[kept + r] = Store<T>((Load(xs[kept + r]) - m) * inv); });
  });
}

// [N, C, spatial] of an input with rank >= 2.
Status BatchChannelSpatial(std::string_view op, const Shape& shape, int64_t* n, int64_t* c,
                           int64_t* spatial) {
  if (shape.size() < 2) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": input shape ", ShapeToString(shape),
                      " has rank ", shape.size(), ", expected [N, C, ...] (rank >= 2)");
  }
  *n = shape[0];
  *c = shape[1];
  *spatial = Product(std::span(shape.data() + 2, shape.size() - 2));
  return Status::Ok();
}

}  // namespace

Result<LayerNormPlan> PrepareLayerNorm(DataType type, const Shape& x_shape,
                                       const Shape& scale_shape, const Shape* bias_shape,
                                       const LayerNormAttrs& attrs) {
  constexpr std::string_view kOp = "LayerNormalization";
  const auto rank = static_cast<int64_t>(x_shape.size());
  NXRT_ASSIGN_OR_RETURN(const int64_t axis, NormalizeAxis(kOp, attrs.axis, rank));
  LayerNormPlan plan;
  plan.type = type;
  plan.stats_type = attrs.stats_type;
  plan.epsilon = attrs.epsilon;
  const auto a = static_cast<size_t>(axis);
  plan.rows = Product(std::span(x_shape.data(), a));
  plan.cols = Product(std::span(x_shape.data() + a, x_shape.size() - a));
  NXRT_RETURN_IF_ERROR(CheckCount(kOp, "Scale", scale_shape, plan.cols));
  if (bias_shape != nullptr) NXRT_RETURN_IF_ERROR(CheckCount(kOp, "B", *bias_shape, plan.cols));
  plan.stats_shape = x_shape;
  for (size_t i = a; i < plan.stats_shape.size(); ++i) plan.stats_shape[i] = 1;
  NXRT_RETURN_IF_ERROR(CheckFloatType(kOp, "stash type", attrs.stats_type));
  NXRT_RETURN_IF_ERROR(DispatchType<FloatTypesBf16>(type, kOp, [&](auto tag) {
    using T = typename decltype(tag)::type;
    plan.fn = std::is_same_v<T, float> ? &LayerNormFloat : &LayerNormTyped<T>;
  }));
  return plan;
}

void RunLayerNorm(const LayerNormPlan& plan, const void* x, const void* scale, const void* bias,
                  void* y, void* mean, void* inv_std_dev) {
  plan.fn(plan, x, scale, bias, y, mean, inv_std_dev);
}

Status LayerNorm(const Tensor& x, const Tensor& scale, const Tensor* bias,
                 const LayerNormAttrs& attrs, Tensor* y, Tensor* mean, Tensor* inv_std_dev) {
  constexpr std::string_view kOp = "LayerNormalization";
  NXRT_RETURN_IF_ERROR(CheckInput(kOp, "X", x));
  NXRT_RETURN_IF_ERROR(CheckInput(kOp, "Scale", scale));
  const bool has_bias = bias != nullptr && bias->defined();
  if (has_bias) NXRT_RETURN_IF_ERROR(CheckInput(kOp, "B", *bias));
  for (const Tensor* t : {&scale, has_bias ? bias : &scale}) {
    if (t->dtype() != x.dtype()) {
      return MakeStatus(StatusCode::kInvalidArgument, kOp, ": Scale and B must have X's type ",
                        DataTypeName(x.dtype()), ", got ", DataTypeName(t->dtype()));
    }
  }
  NXRT_ASSIGN_OR_RETURN(LayerNormPlan plan,
                        PrepareLayerNorm(x.dtype(), x.shape(), scale.shape(),
                                         has_bias ? &bias->shape() : nullptr, attrs));
  NXRT_RETURN_IF_ERROR(PrepareOutput(kOp, x.dtype(), x.shape(), y));
  if (mean != nullptr) NXRT_RETURN_IF_ERROR(PrepareOutput(kOp, plan.stats_type, plan.stats_shape, mean));
  if (inv_std_dev != nullptr) {
    NXRT_RETURN_IF_ERROR(PrepareOutput(kOp, plan.stats_type, plan.stats_shape, inv_std_dev));
  }
  RunLayerNorm(plan, x.raw_data(), scale.raw_data(), has_bias ? bias->raw_data() : nullptr,
               y->mutable_raw_data(), mean != nullptr ? mean->mutable_raw_data() : nullptr,
               inv_std_dev != nullptr ? inv_std_dev->mutable_raw_data() : nullptr);
  return Status::Ok();
}

Result<BatchNormPlan> PrepareBatchNorm(DataType type, const Shape& x_shape, DataType param_type,
                                       DataType stats_type, std::span<const Shape> param_shapes,
                                       float epsilon) {
  constexpr std::string_view kOp = "BatchNormalization";
  BatchNormPlan plan;
  plan.type = type;
  plan.param_type = param_type;
  plan.stats_type = stats_type;
  plan.epsilon = epsilon;
  NXRT_RETURN_IF_ERROR(BatchChannelSpatial(kOp, x_shape, &plan.batch, &plan.channels, &plan.spatial));
  const char* names[] = {"scale", "B", "input_mean", "input_var"};
  if (param_shapes.size() != 4) {
    return MakeStatus(StatusCode::kInvalidArgument, kOp, ": expected 4 parameter shapes, got ",
                      param_shapes.size());
  }
  for (size_t i = 0; i < 4; ++i) {
    NXRT_RETURN_IF_ERROR(CheckCount(kOp, names[i], param_shapes[i], plan.channels));
  }
  NXRT_RETURN_IF_ERROR(CheckFloatType(kOp, "scale/B", param_type));
  NXRT_RETURN_IF_ERROR(CheckFloatType(kOp, "mean/var", stats_type));
  NXRT_RETURN_IF_ERROR(DispatchType<FloatTypesBf16>(
      type, kOp, [&](auto tag) { plan.fn = &BatchNormTyped<typename decltype(tag)::type>; }));
  return plan;
}

void RunBatchNorm(const BatchNormPlan& plan, const void* x, const void* scale, const void* bias,
                  const void* mean, const void* var, void* y) {
  plan.fn(plan, x, scale, bias, mean, var, y);
}

Status BatchNorm(const Tensor& x, const Tensor& scale, const Tensor& bias, const Tensor& mean,
                 const Tensor& var, float epsilon, Tensor* y) {
  constexpr std::string_view kOp = "BatchNormalization";
  NXRT_RETURN_IF_ERROR(CheckInput(kOp, "X", x));
  for (const Tensor* t : {&scale, &bias, &mean, &var}) NXRT_RETURN_IF_ERROR(CheckInput(kOp, "a parameter", *t));
  if (bias.dtype() != scale.dtype() || var.dtype() != mean.dtype()) {
    return MakeStatus(StatusCode::kInvalidArgument, kOp, ": scale/B types (",
                      DataTypeName(scale.dtype()), ", ", DataTypeName(bias.dtype()),
                      ") and mean/var types (", DataTypeName(mean.dtype()), ", ",
                      DataTypeName(var.dtype()), ") must match pairwise");
  }
  const Shape shapes[] = {scale.shape(), bias.shape(), mean.shape(), var.shape()};
  NXRT_ASSIGN_OR_RETURN(BatchNormPlan plan, PrepareBatchNorm(x.dtype(), x.shape(), scale.dtype(),
                                                             mean.dtype(), shapes, epsilon));
  NXRT_RETURN_IF_ERROR(PrepareOutput(kOp, x.dtype(), x.shape(), y));
  RunBatchNorm(plan, x.raw_data(), scale.raw_data(), bias.raw_data(), mean.raw_data(),
               var.raw_data(), y->mutable_raw_data());
  return Status::Ok();
}

Result<GroupNormPlan> PrepareGroupNorm(DataType type, const Shape& x_shape, int64_t groups,
                                       const Shape& scale_shape, const Shape& bias_shape,
                                       float epsilon) {
  constexpr std::string_view kOp = "GroupNormalization";
  GroupNormPlan plan;
  plan.type = type;
  plan.groups = groups;
  plan.epsilon = epsilon;
  NXRT_RETURN_IF_ERROR(BatchChannelSpatial(kOp, x_shape, &plan.batch, &plan.channels, &plan.spatial));
  if (groups <= 0 || plan.channels % groups != 0) {
    return MakeStatus(StatusCode::kInvalidArgument, kOp, ": num_groups ", groups,
                      " does not divide the ", plan.channels, " channels of input shape ",
                      ShapeToString(x_shape));
  }
  const int64_t count = Product(scale_shape);
  plan.per_channel_params = count == plan.channels;
  if (!plan.per_channel_params && count != groups) {
    return MakeStatus(StatusCode::kInvalidArgument, kOp, ": scale has shape ",
                      ShapeToString(scale_shape), ", expected ", plan.channels,
                      " (channels) or ", groups, " (groups) elements");
  }
  NXRT_RETURN_IF_ERROR(CheckCount(kOp, "bias", bias_shape, count));
  NXRT_RETURN_IF_ERROR(DispatchType<FloatTypesBf16>(
      type, kOp, [&](auto tag) { plan.fn = &GroupNormTyped<typename decltype(tag)::type>; }));
  return plan;
}

void RunGroupNorm(const GroupNormPlan& plan, const void* x, const void* scale, const void* bias,
                  void* y, int64_t begin, int64_t end) {
  plan.fn(plan, x, scale, bias, y, begin, end);
}

namespace {

Status GroupNormImpl(std::string_view op, const Tensor& x, const Tensor& scale, const Tensor& bias,
                     int64_t groups, float epsilon, Tensor* y) {
  NXRT_RETURN_IF_ERROR(CheckInput(op, "X", x));
  NXRT_RETURN_IF_ERROR(CheckInput(op, "scale", scale));
  NXRT_RETURN_IF_ERROR(CheckInput(op, "bias", bias));
  if (scale.dtype() != x.dtype() || bias.dtype() != x.dtype()) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": scale and bias must have X's type ",
                      DataTypeName(x.dtype()), ", got ", DataTypeName(scale.dtype()), " and ",
                      DataTypeName(bias.dtype()));
  }
  auto plan = PrepareGroupNorm(x.dtype(), x.shape(), groups, scale.shape(), bias.shape(), epsilon);
  if (!plan.ok()) return plan.status();
  NXRT_RETURN_IF_ERROR(PrepareOutput(op, x.dtype(), x.shape(), y));
  RunGroupNorm(*plan, x.raw_data(), scale.raw_data(), bias.raw_data(), y->mutable_raw_data(), 0,
               plan->batch * plan->groups);
  return Status::Ok();
}

}  // namespace

Status GroupNorm(const Tensor& x, const Tensor& scale, const Tensor& bias, int64_t groups,
                 float epsilon, Tensor* y) {
  return GroupNormImpl("GroupNormalization", x, scale, bias, groups, epsilon, y);
}

Status InstanceNorm(const Tensor& x, const Tensor& scale, const Tensor& bias, float epsilon,
                    Tensor* y) {
  constexpr std::string_view kOp = "InstanceNormalization";
  if (x.rank() < 2) {
    return MakeStatus(StatusCode::kInvalidArgument, kOp, ": input shape ",
                      ShapeToString(x.shape()), " has rank ", x.rank(),
                      ", expected [N, C, ...] (rank >= 2)");
  }
  const int64_t channels = x.shape()[1];
  if (scale.element_count() != channels || bias.element_count() != channels) {
    return MakeStatus(StatusCode::kInvalidArgument, kOp, ": scale ",
                      ShapeToString(scale.shape()), " and B ", ShapeToString(bias.shape()),
                      " must hold C = ", channels, " elements");
  }
  return GroupNormImpl(kOp, x, scale, bias, channels, epsilon, y);
}

Result<LpNormPlan> PrepareLpNorm(DataType type, const Shape& shape, int64_t axis, int64_t p) {
  constexpr std::string_view kOp = "LpNormalization";
  NXRT_ASSIGN_OR_RETURN(const int64_t a,
                        NormalizeAxis(kOp, axis, static_cast<int64_t>(shape.size())));
  if (p != 1 && p != 2) {
    return MakeStatus(StatusCode::kInvalidArgument, kOp, ": p is ", p, ", expected 1 or 2");
  }
  LpNormPlan plan;
  plan.p = p;
  const auto ua = static_cast<size_t>(a);
  plan.outer = Product(std::span(shape.data(), ua));
  plan.axis_dim = shape[ua];
  plan.inner = Product(std::span(shape.data() + ua + 1, shape.size() - ua - 1));
  NXRT_RETURN_IF_ERROR(DispatchType<FloatTypesBf16>(
      type, kOp, [&](auto tag) { plan.fn = &LpNormTyped<typename decltype(tag)::type>; }));
  return plan;
}

void RunLpNorm(const LpNormPlan& plan, const void* x, void* y) { plan.fn(plan, x, y); }

Status LpNorm(const Tensor& x, int64_t axis, int64_t p, Tensor* y) {
  NXRT_RETURN_IF_ERROR(CheckInput("LpNormalization", "input", x));
  NXRT_ASSIGN_OR_RETURN(LpNormPlan plan, PrepareLpNorm(x.dtype(), x.shape(), axis, p));
  NXRT_RETURN_IF_ERROR(PrepareOutput("LpNormalization", x.dtype(), x.shape(), y));
  RunLpNorm(plan, x.raw_data(), y->mutable_raw_data());
  return Status::Ok();
}

Result<MvnPlan> PrepareMvn(DataType type, const Shape& shape, std::span<const int64_t> axes) {
  constexpr std::string_view kOp = "MeanVarianceNormalization";
  NXRT_ASSIGN_OR_RETURN(std::vector<bool> mask,
                        AxesMask(kOp, axes, static_cast<int64_t>(shape.size())));
  MvnPlan plan;
  plan.split = SplitAxes(shape, mask);
  NXRT_RETURN_IF_ERROR(DispatchType<FloatTypesBf16>(
      type, kOp, [&](auto tag) { plan.fn = &MvnTyped<typename decltype(tag)::type>; }));
  return plan;
}

void RunMvn(const MvnPlan& plan, const void* x, void* y) { plan.fn(plan.split, x, y); }

Status Mvn(const Tensor& x, std::span<const int64_t> axes, Tensor* y) {
  constexpr std::string_view kOp = "MeanVarianceNormalization";
  NXRT_RETURN_IF_ERROR(CheckInput(kOp, "input", x));
  NXRT_ASSIGN_OR_RETURN(MvnPlan plan, PrepareMvn(x.dtype(), x.shape(), axes));
  NXRT_RETURN_IF_ERROR(PrepareOutput(kOp, x.dtype(), x.shape(), y));
  RunMvn(plan, x.raw_data(), y->mutable_raw_data());
  return Status::Ok();
}

}  // namespace nxrt::cpu::math
