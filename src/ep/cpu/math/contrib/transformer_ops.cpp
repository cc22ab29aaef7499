// ep/cpu/math/contrib/transformer_ops.cpp: see transformer_ops.h.
#include "ep/cpu/math/contrib/transformer_ops.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string_view>
#include <vector>

#include "ep/cpu/math/elementwise/unary.h"
#include "ep/cpu/math/fast_math.h"
#include "ep/cpu/math/simd_map.h"

namespace nxrt::cpu::contrib {
namespace {

int64_t Count(std::span<const int64_t> shape, size_t begin = 0) {
  int64_t n = 1;
  for (size_t i = begin; i < shape.size(); ++i) n *= shape[i];
  return n;
}

Status ExpectHidden(std::string_view op, std::string_view what, std::span<const int64_t> shape,
                    int64_t hidden) {
  if (shape.size() == 1 && shape[0] == hidden) return Status::Ok();
  return MakeStatus(StatusCode::kInvalidArgument, op, ": input '", what, "' has shape ",
                    ShapeToString(shape), ", expected [", hidden, "] (the hidden size)");
}

}  // namespace

Result<RowNormPlan> PrepareSkipNorm(bool simplified, std::span<const int64_t> input_shape,
                                    std::span<const int64_t> skip_shape,
                                    std::span<const int64_t> gamma_shape,
                                    std::optional<Shape> beta_shape,
                                    std::optional<Shape> bias_shape, float epsilon) {
  const std::string_view op =
      simplified ? "SkipSimplifiedLayerNormalization" : "SkipLayerNormalization";
  if (input_shape.size() < 2) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": input has shape ",
                      ShapeToString(input_shape), "; expected [batch, sequence, hidden] or "
                      "[tokens, hidden]");
  }
  RowNormPlan p;
  p.simplified = simplified;
  p.epsilon = epsilon;
  p.hidden = input_shape.back();
  p.rows = Count(input_shape) / std::max<int64_t>(p.hidden, 1);
  p.skip_rows = p.hidden > 0 ? Count(skip_shape) / p.hidden : 0;
  // Without its leading 1s, the skip's shape must be the input's trailing dims.
  std::span<const int64_t> trailing = skip_shape;
  while (trailing.size() > 1 && trailing.front() == 1) trailing = trailing.subspan(1);
  const bool fits = !trailing.empty() && trailing.size() <= input_shape.size() &&
                    std::equal(trailing.begin(), trailing.end(),
                               input_shape.end() - static_cast<std::ptrdiff_t>(trailing.size()));
  if (!fits) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": input 'skip' has shape ",
                      ShapeToString(skip_shape), ", which does not broadcast to input's ",
                      ShapeToString(input_shape), " over whole rows");
  }
  NXRT_RETURN_IF_ERROR(ExpectHidden(op, "gamma", gamma_shape, p.hidden));
  if (beta_shape) {
    NXRT_RETURN_IF_ERROR(ExpectHidden(op, "beta", *beta_shape, p.hidden));
    p.beta = true;
  }
  if (bias_shape) {
    NXRT_RETURN_IF_ERROR(ExpectHidden(op, "bias", *bias_shape, p.hidden));
    p.bias = true;
  }
  p.output_shape.assign(input_shape.begin(), input_shape.end());
  p.stat_shape = p.output_shape;
  p.stat_shape.back() = 1;
  return p;
}

Result<RowNormPlan> PrepareSimplifiedLayerNorm(std::span<const int64_t> x_shape,
                                               std::span<const int64_t> scale_shape, int64_t axis,
                                               float epsilon) {
  const auto rank = static_cast<int64_t>(x_shape.size());
  if (axis < -rank || axis >= rank) {
    return MakeStatus(StatusCode::kInvalidArgument, "SimplifiedLayerNormalization: attribute "
                      "'axis' is ", axis, " but X has rank ", rank, "; use [", -rank, ", ",
                      rank - 1, "]");
  }
  const auto a = static_cast<size_t>(axis < 0 ? axis + rank : axis);
  RowNormPlan p;
  p.simplified = true;
  p.epsilon = epsilon;
  p.hidden = Count(x_shape, a);
  p.rows = Count(x_shape) / std::max<int64_t>(p.hidden, 1);
  if (Count(scale_shape) != p.hidden || scale_shape.size() > x_shape.size() - a) {
    return MakeStatus(StatusCode::kInvalidArgument, "SimplifiedLayerNormalization: scale has "
                      "shape ", ShapeToString(scale_shape), " but X ", ShapeToString(x_shape),
                      " is normalised over its dims from axis ", a, " (", p.hidden,
                      " elements)");
  }
  p.output_shape.assign(x_shape.begin(), x_shape.end());
  p.stat_shape = p.output_shape;
  for (size_t i = a; i < p.stat_shape.size(); ++i) p.stat_shape[i] = 1;
  return p;
}

namespace {

constexpr int kLanes = 16;  // partial sums per reduction, so that the loops vectorise

// The sum of `lanes` partial sums, in double.
double SumLanes(const float* lanes) {
  double total = 0;
  for (int j = 0; j < kLanes; ++j) total += lanes[j];
  return total;
}

}  // namespace

void RowNorm(const RowNormPlan& p, const RowNormBuffers& b, int64_t begin, int64_t end) {
  const int64_t h = p.hidden, body = h / kLanes * kLanes;
  // Widest build (math/simd_map.h): sums in kLanes partial sums, the mean subtracted before the
  // squares are summed (two passes over the row, which stays in the L1 cache).
  math::CallWidest([&] {
    for (int64_t r = begin; r < end; ++r) {
      const float* x = b.input + r * h;
      const float* skip = p.skip_rows > 0 ? b.skip + (r % p.skip_rows) * h : nullptr;
      float* y = b.y + r * h;
      float* s = b.sum != nullptr ? b.sum + r * h : y;  // s lives in the sum output or in y
      if (skip != nullptr && p.bias) {
        for (int64_t i = 0; i < h; ++i) s[i] = x[i] + skip[i] + b.bias[i];
      } else if (skip != nullptr) {
        for (int64_t i = 0; i < h; ++i) s[i] = x[i] + skip[i];
      } else if (s != x) {
        for (int64_t i = 0; i < h; ++i) s[i] = x[i];
      }
      float lanes[kLanes] = {};
      float m = 0;
      if (!p.simplified) {
        for (int64_t i = 0; i < body; i += kLanes) {
          for (int j = 0; j < kLanes; ++j) lanes[j] += s[i + j];
        }
        double total = SumLanes(lanes);
        for (int64_t i = body; i < h; ++i) total += s[i];
        m = static_cast<float>(total / static_cast<double>(h));
        for (float& lane : lanes) lane = 0;
      }
      for (int64_t i = 0; i < body; i += kLanes) {
        for (int j = 0; j < kLanes; ++j) {
          const float d = s[i + j] - m;
          lanes[j] += d * d;
        }
      }
      double squares = SumLanes(lanes);
      for (int64_t i = body; i < h; ++i) squares += static_cast<double>(s[i] - m) * (s[i] - m);
      const auto inv_std =
          static_cast<float>(1.0 / std::sqrt(squares / static_cast<double>(h) + p.epsilon));
      if (p.beta) {
        for (int64_t i = 0; i < h; ++i) y[i] = (s[i] - m) * inv_std * b.gamma[i] + b.beta[i];
      } else {
        for (int64_t i = 0; i < h; ++i) y[i] = (s[i] - m) * inv_std * b.gamma[i];
      }
      if (b.mean != nullptr) b.mean[r] = m;
      if (b.inv_std_var != nullptr) b.inv_std_var[r] = inv_std;
    }
  });
}

void BiasActivation(GeluKind kind, float alpha, const float* x, const float* bias,
                    int64_t bias_size, float* y, int64_t begin, int64_t end) {
  if (kind == GeluKind::kQuick) {  // no bias input
    math::CallWidest([&] {
      for (int64_t i = begin; i < end; ++i) y[i] = x[i] * math::FastSigmoid(alpha * x[i]);
    });
    return;
  }
  const float* in = x + begin;
  if (bias != nullptr) {
    // x + bias into y, one stretch of the bias at a time.
    math::CallWidest([&] {
      for (int64_t i = begin; i < end;) {
        const int64_t column = i % bias_size, n = std::min(end - i, bias_size - column);
        for (int64_t j = 0; j < n; ++j) y[i + j] = x[i + j] + bias[column + j];
        i += n;
      }
    });
    in = y + begin;
  }
  // Gelu-20's kernel (math/elementwise/unary.h): erf, or the tanh approximation.
  math::UnaryAttrs attrs = math::DefaultUnaryAttrs(math::UnaryKind::kGelu);
  attrs.gelu_tanh = kind == GeluKind::kTanh;
  const math::UnaryPlan plan =
      math::PrepareUnary(math::UnaryKind::kGelu, DataType::kFloat, attrs).value();
  math::RunUnary(plan, in, y + begin, end - begin);
}

Result<EmbedLayerNormPlan> PrepareEmbedLayerNorm(
    std::span<const int64_t> ids_shape, std::optional<Shape> segment_ids_shape,
    std::span<const int64_t> word_shape, std::span<const int64_t> position_shape,
    std::optional<Shape> segment_shape, std::span<const int64_t> gamma_shape,
    std::span<const int64_t> beta_shape, std::optional<Shape> mask_shape,
    std::optional<Shape> position_ids_shape, float epsilon) {
  constexpr std::string_view op = "EmbedLayerNormalization";
  EmbedLayerNormPlan p;
  p.epsilon = epsilon;
  if (ids_shape.size() != 2) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": input_ids has shape ",
                      ShapeToString(ids_shape), "; expected [batch, sequence]");
  }
  p.batch = ids_shape[0];
  p.sequence = ids_shape[1];
  const Shape ids(ids_shape.begin(), ids_shape.end());
  if (word_shape.size() != 2) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": word_embedding has shape ",
                      ShapeToString(word_shape), "; expected [vocabulary, hidden]");
  }
  p.hidden = word_shape[1];
  p.words = word_shape[0];
  const auto table = [&](std::string_view what, std::span<const int64_t> shape,
                         int64_t* rows) -> Status {
    if (shape.size() == 2 && shape[1] == p.hidden) {
      *rows = shape[0];
      return Status::Ok();
    }
    return MakeStatus(StatusCode::kInvalidArgument, op, ": ", what, " has shape ",
                      ShapeToString(shape), "; expected [rows, ", p.hidden, "]");
  };
  NXRT_RETURN_IF_ERROR(table("position_embedding", position_shape, &p.positions));
  if (segment_shape) NXRT_RETURN_IF_ERROR(table("segment_embedding", *segment_shape, &p.segments));
  if (segment_ids_shape.has_value() != segment_shape.has_value() ||
      (segment_ids_shape && *segment_ids_shape != ids)) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": segment_ids (",
                      segment_ids_shape ? ShapeToString(*segment_ids_shape) : "absent",
                      ") and segment_embedding (",
                      segment_shape ? ShapeToString(*segment_shape) : "absent",
                      ") come together, segment_ids of input_ids' shape ", ShapeToString(ids));
  }
  NXRT_RETURN_IF_ERROR(ExpectHidden(op, "gamma", gamma_shape, p.hidden));
  NXRT_RETURN_IF_ERROR(ExpectHidden(op, "beta", beta_shape, p.hidden));
  if (mask_shape && *mask_shape != ids) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": mask has shape ",
                      ShapeToString(*mask_shape), ", expected ", ShapeToString(ids));
  }
  if (position_ids_shape) {
    p.position_ids = true;
    p.position_ids_broadcast = *position_ids_shape == Shape{1, p.sequence} && p.batch != 1;
    if (*position_ids_shape != ids && !p.position_ids_broadcast) {
      return MakeStatus(StatusCode::kInvalidArgument, op, ": position_ids has shape ",
                        ShapeToString(*position_ids_shape), ", expected ", ShapeToString(ids),
                        " or [1,", p.sequence, "]");
    }
  }
  return p;
}

Status EmbedLayerNorm(const EmbedLayerNormPlan& p, const EmbedLayerNormBuffers& b,
                      int64_t begin, int64_t end) {
  const int64_t h = p.hidden;
  const auto check = [&](std::string_view what, int64_t token, int64_t id, int64_t rows) {
    if (id >= 0 && id < rows) return Status::Ok();
    return MakeStatus(StatusCode::kRuntimeError, "EmbedLayerNormalization: ", what, " of token (",
                      token / p.sequence, ", ", token % p.sequence, ") is ", id,
                      ", outside the table's ", rows, " rows");
  };
  std::vector<float> sum(static_cast<size_t>(h));
  for (int64_t t = begin; t < end; ++t) {
    const int64_t s = t % p.sequence;
    const int64_t word = b.input_ids[t];
    const int64_t position = !p.position_ids           ? s
                             : p.position_ids_broadcast ? b.position_ids[s]
                                                        : b.position_ids[t];
    NXRT_RETURN_IF_ERROR(check("input_ids", t, word, p.words));
    NXRT_RETURN_IF_ERROR(check("position", t, position, p.positions));
    const float* segment = nullptr;
    if (p.segments > 0) {
      NXRT_RETURN_IF_ERROR(check("segment_ids", t, b.segment_ids[t], p.segments));
      segment = b.segment + static_cast<int64_t>(b.segment_ids[t]) * h;
    }
    double total = 0, squares = 0;
    for (int64_t i = 0; i < h; ++i) {
      float v = b.word[word * h + i] + b.position[position * h + i];
      if (segment != nullptr) v += segment[i];
      sum[static_cast<size_t>(i)] = v;
      total += v;
      squares += static_cast<double>(v) * v;
    }
    const double mean = total / static_cast<double>(h);
    const double variance = std::max(0.0, squares / static_cast<double>(h) - mean * mean);
    const auto inv_std = static_cast<float>(1.0 / std::sqrt(variance + p.epsilon));
    for (int64_t i = 0; i < h; ++i) {
      const float v = sum[static_cast<size_t>(i)];
      b.output[t * h + i] = (v - static_cast<float>(mean)) * inv_std * b.gamma[i] + b.beta[i];
      if (b.embedding_sum != nullptr) b.embedding_sum[t * h + i] = v;
    }
  }
  return Status::Ok();
}

void EmbedMaskIndex(const EmbedLayerNormPlan& p, const EmbedLayerNormBuffers& b) {
  for (int64_t batch = 0; batch < p.batch; ++batch) {
    int32_t count = 0;
    for (int64_t s = 0; b.mask != nullptr && s < p.sequence; ++s) {
      count += b.mask[batch * p.sequence + s] == 1 ? 1 : 0;
    }
    b.mask_index[batch] = count;
  }
}

void BiasAdd(const float* x, const float* bias, int64_t channels, const float* skip, float* y,
             int64_t begin, int64_t end) {
  for (int64_t i = begin; i < end; ++i) y[i] = x[i] + bias[i % channels] + skip[i];
}

}  // namespace nxrt::cpu::contrib
