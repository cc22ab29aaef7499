// ep/cpu/math/contrib/transformer_ops.h: the row normalisations and fused activations of ONNX
// Runtime's transformer contrib operators (docs/ContribOperators.md of ONNX Runtime), float.
//
// Layer: nxrt_cpu_math (framework-free; no IR, no EP API).
//
// Normalisations, over rows of `hidden` contiguous elements:
//   s = input + skip (+ bias)          (skip and bias only for the Skip* ops)
//   LayerNormalization form:  y = (s - mean(s)) / sqrt(var(s) + epsilon) * gamma (+ beta)
//   simplified (RMS) form:    y = s / sqrt(mean(s^2) + epsilon) * gamma
// SkipLayerNormalization and SkipSimplifiedLayerNormalization (com.microsoft) take input
// [..., hidden], skip of the same shape or broadcast over leading rows ([1, S, hidden] or
// [S, hidden] against [B, S, hidden]), gamma / beta / bias [hidden]; optional outputs mean and
// inv_std_var ([..., 1], float) and input_skip_bias_sum (s). SimplifiedLayerNormalization (ORT's
// schema in the ONNX domain) normalises over the dims from `axis` on, with scale broadcast over
// them, and outputs inv_std_var with those dims 1.
//
// Activations, elementwise on x = X (+ bias broadcast over the last dim):
//   FastGelu:  0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))
//   Gelu, BiasGelu:  0.5 x (1 + erf(x / sqrt(2)))
//   QuickGelu:  x * sigmoid(alpha x)   (alpha default 1.702)
//   BiasAdd:  X + bias + skip   (X and skip [N, S, C], bias [C])
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::contrib {

struct RowNormPlan {
  bool simplified = false;
  int64_t rows = 0;
  int64_t hidden = 0;
  int64_t skip_rows = 0;  // 0: no skip; else row r adds skip row r % skip_rows
  bool beta = false;
  bool bias = false;
  float epsilon = 0;
  Shape output_shape;
  Shape stat_shape;  // mean / inv_std_var
};

// The Skip* ops. Errors (kInvalidArgument) name the input and both shapes: input rank < 2 (1 for
// simplified), skip not broadcastable as above, gamma / beta / bias not [hidden].
Result<RowNormPlan> PrepareSkipNorm(bool simplified, std::span<const int64_t> input_shape,
                                    std::span<const int64_t> skip_shape,
                                    std::span<const int64_t> gamma_shape,
                                    std::optional<Shape> beta_shape,
                                    std::optional<Shape> bias_shape, float epsilon);

// SimplifiedLayerNormalization. Errors: axis outside [-rank, rank), scale not the trailing dims.
Result<RowNormPlan> PrepareSimplifiedLayerNorm(std::span<const int64_t> x_shape,
                                               std::span<const int64_t> scale_shape, int64_t axis,
                                               float epsilon);

struct RowNormBuffers {
  const float* input = nullptr;
  const float* skip = nullptr;
  const float* gamma = nullptr;
  const float* beta = nullptr;
  const float* bias = nullptr;
  float* y = nullptr;
  float* mean = nullptr;         // optional outputs: null when not wanted
  float* inv_std_var = nullptr;
  float* sum = nullptr;          // input_skip_bias_sum
};

// Rows [begin, end); ranges are independent.
void RowNorm(const RowNormPlan& plan, const RowNormBuffers& buffers, int64_t begin, int64_t end);

enum class GeluKind { kTanh, kErf, kQuick };

// y[i] = act(x[i] + bias[i % bias_size]) for i in [begin, end); `bias` may be null.
void BiasActivation(GeluKind kind, float alpha, const float* x, const float* bias,
                    int64_t bias_size, float* y, int64_t begin, int64_t end);

// EmbedLayerNormalization (BERT's embedding layer): for token (b, s),
//   e = word_embedding[input_ids[b, s]] + position_embedding[p] (+ segment_embedding[segment_ids[b, s]])
// with p = position_ids[b, s] (or [0, s] for [1, S] ids, s without them), then
// LayerNormalization of e with gamma, beta and epsilon. Optional outputs: mask_index [B] (the
// number of entries of mask[b] equal to 1, 0 without a mask) and embedding_sum (e).
struct EmbedLayerNormPlan {
  int64_t batch = 0, sequence = 0, hidden = 0;
  int64_t words = 0, positions = 0, segments = 0;  // table rows (segments 0: no segments)
  bool position_ids = false;
  bool position_ids_broadcast = false;  // position_ids [1, S]
  float epsilon = 0;
};

// Errors (kInvalidArgument) name the input and its shape: ids not [B, S], tables not [*, H],
// gamma / beta not [H], segment ids without a segment table, position_ids neither [B, S] nor
// [1, S], a mask not [B, S].
Result<EmbedLayerNormPlan> PrepareEmbedLayerNorm(
    std::span<const int64_t> ids_shape, std::optional<Shape> segment_ids_shape,
    std::span<const int64_t> word_shape, std::span<const int64_t> position_shape,
    std::optional<Shape> segment_shape, std::span<const int64_t> gamma_shape,
    std::span<const int64_t> beta_shape, std::optional<Shape> mask_shape,
    std::optional<Shape> position_ids_shape, float epsilon);

struct EmbedLayerNormBuffers {
  const int32_t* input_ids = nullptr;
  const int32_t* segment_ids = nullptr;
  const float* word = nullptr;
  const float* position = nullptr;
  const float* segment = nullptr;
  const float* gamma = nullptr;
  const float* beta = nullptr;
  const int32_t* mask = nullptr;
  const int32_t* position_ids = nullptr;
  float* output = nullptr;
  int32_t* mask_index = nullptr;     // optional
  float* embedding_sum = nullptr;    // optional
};

// Tokens [begin, end) of B * S. Errors (kRuntimeError): an id outside its table, naming it.
Status EmbedLayerNorm(const EmbedLayerNormPlan& plan, const EmbedLayerNormBuffers& buffers,
                      int64_t begin, int64_t end);
// mask_index from the mask (or zeros).
void EmbedMaskIndex(const EmbedLayerNormPlan& plan, const EmbedLayerNormBuffers& buffers);

// BiasAdd: y[i] = x[i] + bias[i % channels] + skip[i] for i in [begin, end).
void BiasAdd(const float* x, const float* bias, int64_t channels, const float* skip, float* y,
             int64_t begin, int64_t end);

}  // namespace nxrt::cpu::contrib
