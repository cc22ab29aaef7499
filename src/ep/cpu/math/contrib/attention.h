// ep/cpu/math/contrib/attention.h: rotary position embedding and grouped-query attention of ONNX
// Runtime's com.microsoft RotaryEmbedding and GroupQueryAttention (docs/ContribOperators.md of
// ONNX Runtime; the CPU EP's behaviour where the text is silent), float.
//
// Layer: nxrt_cpu_math (framework-free; no IR, no EP API).
//
// Rotation of one head vector x (head_size) at position p by the caches cos/sin
// [max_position, rotary_dim / 2]: for i < rotary_dim / 2 with c = cos[p, i], s = sin[p, i],
//   not interleaved: (x[i], x[i + rotary_dim/2]) -> (x[i] c - x[i + r/2] s, x[i + r/2] c + x[i] s)
//   interleaved:     (x[2i], x[2i + 1])          -> (x[2i] c - x[2i+1] s, x[2i+1] c + x[2i] s)
// and elements from rotary_dim on copied.
//
// RotaryEmbedding: input [B, S, hidden] (heads of head_size side by side; num_heads attribute or
// head_size = 2 * cos.shape[1]) or [B, N, S, head_size]; position_ids [B, S] or [1] (then token s
// is at position_ids[0] + s).
//
// GroupQueryAttention: query [B, S, N * H] (or packed Q, K, V [B, S, (N + 2 Nkv) * H] with key and
// value omitted), key / value [B, S, Nkv * H], past_key / past_value [B, Nkv, P, H] (BNSH),
// seqlens_k [B] int32 (tokens so far minus 1), total_sequence_length (scalar int32),
// cos_cache / sin_cache when do_rotary. A batch entry b has T_b = seqlens_k[b] + 1 tokens; on the
// first prompt (S == total_sequence_length) its past is empty, else it is T_b - S long and
// occupies rows [0, T_b - S) of the past. Its new keys and values (rotated when do_rotary, as is
// the query, at positions past + s) go to rows [past, past + S) of present_key / present_value
// [B, Nkv, max(P, total_sequence_length), H] after the past rows. past_key and present_key (and
// the values) may be one buffer (ONNX Runtime GenAI's past_present_share_buffer: P rows, P >=
// total_sequence_length): the past rows are then in place and only the new rows are written;
// with separate buffers the past rows are copied and the rows after the new ones zeroed. Query
// head n reads kv head n / (N / Nkv); query token s (position p = past + s) attends keys j <= p
// (the last W of them, j > p - W, with local_window_size W > 0) with scores scale * q.k (scale
// default 1/sqrt(H)), softcap c > 0 applying c * tanh(score / c), softmax, times V. Output
// [B, S, N * H].
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::contrib {

// `x` (head_size floats) rotated into `y` (which may be `x`) by the cache rows `cos` and `sin` of
// its position.
void RotateHead(const float* x, float* y, const float* cos, const float* sin, int64_t head_size,
                int64_t rotary_dim, bool interleaved);

struct RotaryEmbeddingAttributes {
  bool interleaved = false;
  int64_t num_heads = 0;
  int64_t rotary_embedding_dim = 0;
};

struct RotaryEmbeddingPlan {
  RotaryEmbeddingAttributes attributes;
  bool bnsh = false;  // input [B, N, S, H]
  int64_t batch = 0, sequence = 0, heads = 0, head_size = 0, rotary_dim = 0;
  int64_t max_position = 0;
  bool single_position = false;  // position_ids [1]
  Shape output_shape;
};

// Errors (kInvalidArgument) name the input and its shape: rank not 3 or 4, hidden not divisible
// by the head size, caches not [max_position, rotary_dim / 2], position_ids neither [B, S] nor
// [1], rotary_dim odd or above head_size.
Result<RotaryEmbeddingPlan> PrepareRotaryEmbedding(const RotaryEmbeddingAttributes& attributes,
                                                   std::span<const int64_t> input_shape,
                                                   std::span<const int64_t> position_shape,
                                                   std::span<const int64_t> cos_shape,
                                                   std::span<const int64_t> sin_shape);

// Rotates (batch, token) rows [begin, end) of B * S. Errors (kRuntimeError): a position outside
// [0, max_position).
Status RotaryEmbedding(const RotaryEmbeddingPlan& plan, const float* input,
                       const int64_t* position_ids, const float* cos, const float* sin,
                       float* output, int64_t begin, int64_t end);

struct GqaAttributes {
  int64_t num_heads = 0;
  int64_t kv_num_heads = 0;
  float scale = 0;  // 0: 1 / sqrt(head_size)
  float softcap = 0;
  int64_t local_window_size = -1;
  bool do_rotary = false;
  bool rotary_interleaved = false;
};

struct GqaPlan {
  GqaAttributes attributes;
  int64_t batch = 0, sequence = 0, head_size = 0;
  bool packed = false;  // Q, K, V in the query input
  int64_t past_length = 0;     // P, the past buffers' sequence dim (0 without past)
  int64_t present_length = 0;  // max(P, total_sequence_length)
  int64_t rotary_dim = 0;
  int64_t max_position = 0;  // rows of the rotary caches
  Shape output_shape;
  Shape present_shape;
  size_t workspace_bytes = 0;  // rotated queries [B, S, N, H] and scores [S, present] per (b, n)
};

// `total_sequence_length` is the scalar input's value. Errors (kInvalidArgument) name the input
// and its shape or value: num_heads not a multiple of kv_num_heads, hidden sizes that do not
// divide, past shapes not [B, Nkv, P, H], caches missing or not [*, rotary_dim / 2] with
// do_rotary, total_sequence_length below S.
Result<GqaPlan> PrepareGroupQueryAttention(const GqaAttributes& attributes,
                                           std::span<const int64_t> query_shape,
                                           std::optional<Shape> key_shape,
                                           std::optional<Shape> value_shape,
                                           std::optional<Shape> past_key_shape,
                                           std::optional<Shape> past_value_shape,
                                           std::span<const int64_t> seqlens_shape,
                                           int64_t total_sequence_length,
                                           std::optional<Shape> cos_shape,
                                           std::optional<Shape> sin_shape);

struct GqaBuffers {
  const float* query = nullptr;
  const float* key = nullptr;    // null when packed
  const float* value = nullptr;  // null when packed
  const float* past_key = nullptr;
  const float* past_value = nullptr;
  const int32_t* seqlens_k = nullptr;
  int64_t total_sequence_length = 0;
  const float* cos = nullptr;
  const float* sin = nullptr;
  float* output = nullptr;
  float* present_key = nullptr;
  float* present_value = nullptr;
  float* workspace = nullptr;  // plan.workspace_bytes
};

// Checks seqlens_k against the plan (kRuntimeError naming the entry) and fills present_key and
// present_value (past rows, then the new, rotated keys and values) and the rotated queries.
Status GqaFillCache(const GqaPlan& plan, const GqaBuffers& buffers);

// The attention of (b, n) pairs [begin, end) of B * N (after GqaFillCache): per pair the scores
// of its S queries against the keys up to the last one's position (on the calling thread:
// nn::SgemmAvx2 for products under 2^20 multiply-adds on CPUs with AVX2, else oneDNN's sgemm),
// the window's softmax per query (math/normalization's), times V (the same product). Pairs are
// independent. Errors: kRuntimeError when oneDNN fails.
Status GqaAttend(const GqaPlan& plan, const GqaBuffers& buffers, int64_t begin, int64_t end);

// Multi-head attention of BERT-style models (MultiHeadAttention, Attention): per batch entry b
// and head n, scores[s, j] = scale * q_s . k_j (+ attention_bias[b|0, n|0, s, j]) plus
// mask_filter_value where key j is masked (a key mask entry 0, a key at or past a 1-D mask
// length, or j > s when unidirectional), softmax over j, times V. q, k, v are head-major within a
// row: element i of head n of token t sits at row t, column n * head_size + i, with the rows'
// widths given (so the packed Q|K|V output of Attention's projection is read in place).
struct MhaPlan {
  int64_t batch = 0, sequence = 0, kv_sequence = 0, heads = 0, head_size = 0, v_head_size = 0;
  float scale = 0;  // already resolved (1/sqrt(head_size) by default)
  float mask_filter_value = -10000.0f;
  bool unidirectional = false;
  enum class Mask { kNone, kKeyPadding2D, kLengths1D } mask = Mask::kNone;
  bool attention_bias = false;
  bool bias_batch = false, bias_heads = false;  // attention_bias has B rows / heads (else 1)
};

struct MhaBuffers {
  const float* q = nullptr;
  int64_t q_row = 0;  // floats between consecutive tokens of q
  const float* k = nullptr;
  int64_t k_row = 0;
  const float* v = nullptr;
  int64_t v_row = 0;
  const int32_t* mask = nullptr;
  const float* attention_bias = nullptr;
  float* output = nullptr;  // [B, S, heads * v_head_size]
  float* scores = nullptr;  // B * heads * sequence * kv_sequence floats of scratch
};

// y [rows, n] = x [rows, k] @ w [k, n] (+ bias [n]) with oneDNN's sgemm on `threads` OpenMP
// threads (Attention's input projection). Errors: kRuntimeError when oneDNN fails.
Status DenseRows(const float* x, int64_t rows, int64_t k, const float* w, int64_t n,
                 const float* bias, float* y, int threads);

// (b, n) pairs [begin, end) of B * heads: per pair the [S, kv_sequence] scores (the product of
// GqaAttend, on the calling thread), bias and masks added, math/normalization's softmax per row,
// times V (the same product). Pairs are independent. Errors: kRuntimeError when oneDNN fails.
Status MhaAttend(const MhaPlan& plan, const MhaBuffers& buffers, int64_t begin, int64_t end);

}  // namespace nxrt::cpu::contrib
