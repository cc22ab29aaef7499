// ep/cpu/math/contrib/attention.cpp: see attention.h.
#include "ep/cpu/math/contrib/attention.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <utility>

#include "core/cpu_features.h"
#include "ep/cpu/math/nn/dnnl_threads.h"
#include "ep/cpu/math/nn/dnnl_util.h"
#include "ep/cpu/math/nn/sgemm_avx2.h"
#include "ep/cpu/math/normalization/softmax.h"

namespace nxrt::cpu::contrib {
namespace {

Status CheckCache(std::string_view op, std::string_view what, std::span<const int64_t> shape,
                  int64_t rotary_dim) {
  if (shape.size() == 2 && shape[1] * 2 == rotary_dim) return Status::Ok();
  return MakeStatus(StatusCode::kInvalidArgument, op, ": input '", what, "' has shape ",
                    ShapeToString(shape), ", expected [max_position, ", rotary_dim / 2,
                    "] (rotary dim ", rotary_dim, " / 2)");
}

// Multiply-adds below which a head's product runs on nn::SgemmAvx2.
constexpr int64_t kSmallHeadProduct = int64_t{1} << 20;

// A head's product (Sgemm's arguments) on the calling thread alone: nn::SgemmAvx2 when the CPU
// has AVX2 and the product has fewer than kSmallHeadProduct multiply-adds (a decode step's, a
// short prompt's), else Sgemm. oneDNN's AVX-512 kernels are faster on larger products, but it
// generates them on its first call: 20 ms of decoder_small's first prompt.
Status HeadProduct(std::string_view what, bool transpose_b, int64_t m, int64_t n, int64_t k,
                   float alpha, const float* a, int64_t lda, const float* b, int64_t ldb,
                   float* c, int64_t ldc) {
  if (m == 0 || n == 0) return Status::Ok();
  if (!CpuHasAvx2() || m * n * k >= kSmallHeadProduct) {
    nn::SetDnnlThreads(1);  // the heads are spread over the caller's threads
    return nn::Sgemm(what, false, transpose_b, m, n, k, alpha, a, lda, b, ldb, c, ldc);
  }
  const nn::SgemmB b_layout{b, transpose_b ? 0 : nn::kSgemmPanel, ldb, transpose_b};
  nn::SgemmAvx2(a, lda, m, k, b_layout, nullptr, c, ldc, 0, n);
  if (alpha != 1.0f) {
    for (int64_t i = 0; i < m; ++i) {
      for (float* x = c + i * ldc; x != c + i * ldc + n; ++x) *x *= alpha;
    }
  }
  return Status::Ok();
}

// The float softmax of math/normalization over `length` contiguous floats, in place.
void SoftmaxInPlace(const math::SoftmaxPlan& row, float* x, int64_t rows, int64_t length) {
  math::SoftmaxPlan plan = row;
  plan.outer = rows;
  plan.axis_dim = length;
  plan.inner = 1;
  math::RunSoftmax(plan, x, x);
}

math::SoftmaxPlan FloatSoftmax() {
  return math::PrepareSoftmax(math::SoftmaxKind::kSoftmax, DataType::kFloat, Shape{1}, 0,
                              math::SoftmaxAxisMode::kSingleAxis)
      .value();
}

}  // namespace

void RotateHead(const float* x, float* y, const float* cos, const float* sin, int64_t head_size,
                int64_t rotary_dim, bool interleaved) {
  const int64_t half = rotary_dim / 2;
  for (int64_t i = 0; i < half; ++i) {
    const int64_t i1 = interleaved ? 2 * i : i, i2 = interleaved ? 2 * i + 1 : i + half;
    const float a = x[i1], b = x[i2];
    y[i1] = a * cos[i] - b * sin[i];
    y[i2] = b * cos[i] + a * sin[i];
  }
  if (y != x) std::copy(x + rotary_dim, x + head_size, y + rotary_dim);
}

Result<RotaryEmbeddingPlan> PrepareRotaryEmbedding(const RotaryEmbeddingAttributes& attributes,
                                                   std::span<const int64_t> input_shape,
                                                   std::span<const int64_t> position_shape,
                                                   std::span<const int64_t> cos_shape,
                                                   std::span<const int64_t> sin_shape) {
  constexpr std::string_view op = "RotaryEmbedding";
  RotaryEmbeddingPlan p;
  p.attributes = attributes;
  if (input_shape.size() != 3 && input_shape.size() != 4) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": input has shape ",
                      ShapeToString(input_shape), "; expected [B, S, hidden] or [B, N, S, H]");
  }
  if (cos_shape.size() != 2) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": cos_cache has shape ",
                      ShapeToString(cos_shape), "; expected [max_position, rotary_dim / 2]");
  }
  p.batch = input_shape[0];
  if (input_shape.size() == 4) {
    p.bnsh = true;
    p.heads = input_shape[1];
    p.sequence = input_shape[2];
    p.head_size = input_shape[3];
  } else {
    p.sequence = input_shape[1];
    const int64_t hidden = input_shape[2];
    p.head_size = attributes.num_heads > 0 ? hidden / attributes.num_heads : 2 * cos_shape[1];
    if (p.head_size <= 0 || hidden % p.head_size != 0) {
      return MakeStatus(StatusCode::kInvalidArgument, op, ": input's hidden size ", hidden,
                        " is not a multiple of the head size ", p.head_size,
                        " (num_heads ", attributes.num_heads, ", cos_cache ",
                        ShapeToString(cos_shape), ")");
    }
    p.heads = hidden / p.head_size;
  }
  p.rotary_dim = attributes.rotary_embedding_dim > 0 ? attributes.rotary_embedding_dim
                                                     : 2 * cos_shape[1];
  if (p.rotary_dim % 2 != 0 || p.rotary_dim > p.head_size) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": rotary dim ", p.rotary_dim,
                      " must be even and at most the head size ", p.head_size);
  }
  NXRT_RETURN_IF_ERROR(CheckCache(op, "cos_cache", cos_shape, p.rotary_dim));
  NXRT_RETURN_IF_ERROR(CheckCache(op, "sin_cache", sin_shape, p.rotary_dim));
  if (std::vector<int64_t>(sin_shape.begin(), sin_shape.end()) !=
      std::vector<int64_t>(cos_shape.begin(), cos_shape.end())) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": sin_cache ", ShapeToString(sin_shape),
                      " and cos_cache ", ShapeToString(cos_shape), " differ");
  }
  p.max_position = cos_shape[0];
  const bool full = position_shape.size() == 2 && position_shape[0] == p.batch &&
                    position_shape[1] == p.sequence;
  p.single_position = position_shape.size() == 1 && position_shape[0] == 1;
  if (!full && !p.single_position) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": position_ids has shape ",
                      ShapeToString(position_shape), "; expected [", p.batch, ",", p.sequence,
                      "] or [1]");
  }
  p.output_shape.assign(input_shape.begin(), input_shape.end());
  return p;
}

Status RotaryEmbedding(const RotaryEmbeddingPlan& p, const float* input,
                       const int64_t* position_ids, const float* cos, const float* sin,
                       float* output, int64_t begin, int64_t end) {
  const int64_t half = p.rotary_dim / 2;
  for (int64_t row = begin; row < end; ++row) {
    const int64_t b = row / p.sequence, s = row % p.sequence;
    const int64_t position = p.single_position ? position_ids[0] + s : position_ids[row];
    if (position < 0 || position >= p.max_position) {
      return MakeStatus(StatusCode::kRuntimeError, "RotaryEmbedding: position of token (", b,
                        ", ", s, ") is ", position, ", outside the caches' ", p.max_position,
                        " rows");
    }
    for (int64_t n = 0; n < p.heads; ++n) {
      const int64_t offset = p.bnsh ? ((b * p.heads + n) * p.sequence + s) * p.head_size
                                    : (row * p.heads + n) * p.head_size;
      RotateHead(input + offset, output + offset, cos + position * half, sin + position * half,
                 p.head_size, p.rotary_dim, p.attributes.interleaved);
    }
  }
  return Status::Ok();
}

Result<GqaPlan> PrepareGroupQueryAttention(const GqaAttributes& a,
                                           std::span<const int64_t> query_shape,
                                           std::optional<Shape> key_shape,
                                           std::optional<Shape> value_shape,
                                           std::optional<Shape> past_key_shape,
                                           std::optional<Shape> past_value_shape,
                                           std::span<const int64_t> seqlens_shape,
                                           int64_t total_sequence_length,
                                           std::optional<Shape> cos_shape,
                                           std::optional<Shape> sin_shape) {
  constexpr std::string_view op = "GroupQueryAttention";
  if (a.num_heads < 1 || a.kv_num_heads < 1 || a.num_heads % a.kv_num_heads != 0) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": num_heads ", a.num_heads,
                      " must be a positive multiple of kv_num_heads ", a.kv_num_heads);
  }
  if (query_shape.size() != 3) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": query has shape ",
                      ShapeToString(query_shape), "; expected [batch, sequence, hidden]");
  }
  GqaPlan p;
  p.attributes = a;
  p.batch = query_shape[0];
  p.sequence = query_shape[1];
  p.packed = !key_shape.has_value();
  const int64_t width = p.packed ? a.num_heads + 2 * a.kv_num_heads : a.num_heads;
  if (query_shape[2] % width != 0) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": query's last dim ", query_shape[2],
                      " is not a multiple of ", width, p.packed ? " (num_heads + 2 kv_num_heads)"
                                                                : " (num_heads)");
  }
  p.head_size = query_shape[2] / width;
  const Shape kv = {p.batch, p.sequence, a.kv_num_heads * p.head_size};
  if (!p.packed && (*key_shape != kv || !value_shape || *value_shape != kv)) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": key ", ShapeToString(*key_shape),
                      " and value ", value_shape ? ShapeToString(*value_shape) : "(missing)",
                      " must both be ", ShapeToString(kv));
  }
  if (past_key_shape.has_value() != past_value_shape.has_value() ||
      (past_key_shape && (past_key_shape->size() != 4 || *past_key_shape != *past_value_shape ||
                          (*past_key_shape)[0] != p.batch ||
                          (*past_key_shape)[1] != a.kv_num_heads ||
                          (*past_key_shape)[3] != p.head_size))) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": past_key ",
                      past_key_shape ? ShapeToString(*past_key_shape) : "(missing)",
                      " and past_value ",
                      past_value_shape ? ShapeToString(*past_value_shape) : "(missing)",
                      " must both be [", p.batch, ",", a.kv_num_heads, ",P,", p.head_size, "]");
  }
  p.past_length = past_key_shape ? (*past_key_shape)[2] : 0;
  if (seqlens_shape.size() != 1 || seqlens_shape[0] != p.batch) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": seqlens_k has shape ",
                      ShapeToString(seqlens_shape), ", expected [", p.batch, "]");
  }
  if (total_sequence_length < p.sequence) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": total_sequence_length is ",
                      total_sequence_length, ", below the sequence length ", p.sequence);
  }
  if (a.do_rotary) {
    if (!cos_shape || !sin_shape) {
      return MakeStatus(StatusCode::kInvalidArgument, op,
                        ": do_rotary is 1 but cos_cache or sin_cache is missing");
    }
    p.rotary_dim = cos_shape->size() == 2 ? 2 * (*cos_shape)[1] : 0;
    if (p.rotary_dim == 0 || p.rotary_dim > p.head_size) {
      return MakeStatus(StatusCode::kInvalidArgument, op, ": cos_cache has shape ",
                        ShapeToString(*cos_shape), "; expected [max_position, d] with 2d <= ",
                        p.head_size);
    }
    NXRT_RETURN_IF_ERROR(CheckCache(op, "sin_cache", *sin_shape, p.rotary_dim));
    if (*sin_shape != *cos_shape) {
      return MakeStatus(StatusCode::kInvalidArgument, op, ": sin_cache ",
                        ShapeToString(*sin_shape), " and cos_cache ", ShapeToString(*cos_shape),
                        " differ");
    }
    p.max_position = (*cos_shape)[0];
  }
  p.present_length = std::max(p.past_length, total_sequence_length);
  p.output_shape = {p.batch, p.sequence, a.num_heads * p.head_size};
  p.present_shape = {p.batch, a.kv_num_heads, p.present_length, p.head_size};
  p.workspace_bytes =
      static_cast<size_t>(p.batch * p.sequence * a.num_heads * p.head_size +
                          p.batch * a.num_heads * p.sequence * p.present_length) *
      sizeof(float);
  return p;
}

Status GqaFillCache(const GqaPlan& p, const GqaBuffers& b) {
  const GqaAttributes& a = p.attributes;
  const int64_t h = p.head_size, s_len = p.sequence, nkv = a.kv_num_heads, nq = a.num_heads;
  const bool first_prompt = s_len == b.total_sequence_length;
  const int64_t row_width = p.packed ? (nq + 2 * nkv) * h : nq * h;
  const int64_t kv_width = p.packed ? row_width : nkv * h;
  const float* key = p.packed ? b.query + nq * h : b.key;
  const float* value = p.packed ? b.query + (nq + nkv) * h : b.value;
  float* q_rot = b.workspace;
  const int64_t half = p.rotary_dim / 2;
  if ((b.past_key == b.present_key || b.past_value == b.present_value) &&
      b.past_key != nullptr && p.past_length != p.present_length) {
    return MakeStatus(StatusCode::kRuntimeError, "GroupQueryAttention: past and present share a "
                      "buffer, but the past has ", p.past_length, " rows and the present ",
                      p.present_length, "; a shared buffer must have total_sequence_length <= ",
                      p.past_length);
  }
  for (int64_t batch = 0; batch < p.batch; ++batch) {
    const int64_t total = static_cast<int64_t>(b.seqlens_k[batch]) + 1;
    const int64_t past = first_prompt ? 0 : total - s_len;
    if (total < 1 || total > b.total_sequence_length || past < 0 || past > p.past_length ||
        past + s_len > p.present_length) {
      return MakeStatus(StatusCode::kRuntimeError, "GroupQueryAttention: seqlens_k[", batch,
                        "] is ", total - 1, ", which does not fit total_sequence_length ",
                        b.total_sequence_length, ", sequence length ", s_len,
                        " and a past of ", p.past_length, " rows");
    }
    for (int64_t s = 0; s < s_len; ++s) {
      const int64_t position = past + s;
      if (a.do_rotary && position >= p.max_position) {
        return MakeStatus(StatusCode::kRuntimeError, "GroupQueryAttention: position ", position,
                          " of batch entry ", batch, " is beyond the rotary caches' ",
                          p.max_position, " rows");
      }
      const float* cos = b.cos + position * half;
      const float* sin = b.sin + position * half;
      const int64_t token = batch * s_len + s;
      for (int64_t n = 0; n < nq; ++n) {
        const float* q = b.query + token * row_width + n * h;
        float* out = q_rot + (token * nq + n) * h;
        if (a.do_rotary) {
          RotateHead(q, out, cos, sin, h, p.rotary_dim, a.rotary_interleaved);
        } else {
          std::copy(q, q + h, out);
        }
      }
      for (int64_t n = 0; n < nkv; ++n) {
        const int64_t row = ((batch * nkv + n) * p.present_length + position) * h;
        const float* k = key + token * kv_width + n * h;
        if (a.do_rotary) {
          RotateHead(k, b.present_key + row, cos, sin, h, p.rotary_dim, a.rotary_interleaved);
        } else {
          std::copy(k, k + h, b.present_key + row);
        }
        const float* v = value + token * kv_width + n * h;
        std::copy(v, v + h, b.present_value + row);
      }
    }
    for (int64_t n = 0; n < nkv; ++n) {
      const int64_t head = (batch * nkv + n) * p.present_length * h;
      const int64_t past_head = (batch * nkv + n) * p.past_length * h;
      // A shared buffer already holds the past rows, and the rows after the new tokens are
      // later positions' (written by later steps, never read before).
      for (auto [from, to] : {std::pair{b.past_key, b.present_key},
                              std::pair{b.past_value, b.present_value}}) {
        if (from == to) continue;
        if (past > 0) std::copy(from + past_head, from + past_head + past * h, to + head);
        // Rows after the new tokens hold no position of this entry: zero.
        std::fill(to + head + (past + s_len) * h, to + head + p.present_length * h, 0.0f);
      }
    }
  }
  return Status::Ok();
}

Status GqaAttend(const GqaPlan& p, const GqaBuffers& b, int64_t begin, int64_t end) {
  const GqaAttributes& a = p.attributes;
  const int64_t h = p.head_size, s_len = p.sequence, nq = a.num_heads, nkv = a.kv_num_heads;
  const float scale = a.scale != 0 ? a.scale : 1.0f / std::sqrt(static_cast<float>(h));
  const bool first_prompt = s_len == b.total_sequence_length;
  const float* q_rot = b.workspace;
  const math::SoftmaxPlan softmax = FloatSoftmax();
  for (int64_t pair = begin; pair < end; ++pair) {
    const int64_t batch = pair / nq, n = pair % nq, kv_head = n / (nq / nkv);
    const int64_t total = static_cast<int64_t>(b.seqlens_k[batch]) + 1;
    const int64_t past = first_prompt ? 0 : total - s_len;
    const int64_t keys_used = past + s_len;  // the last query token's position + 1
    const float* keys = b.present_key + (batch * nkv + kv_head) * p.present_length * h;
    const float* values = b.present_value + (batch * nkv + kv_head) * p.present_length * h;
    const float* q = q_rot + (batch * s_len * nq + n) * h;
    float* scores = b.workspace + p.batch * s_len * nq * h + pair * s_len * p.present_length;
    NXRT_RETURN_IF_ERROR(HeadProduct("GroupQueryAttention", true, s_len, keys_used, h, scale,
                                     q, nq * h, keys, h, scores, keys_used));
    // Keys outside the window and after the token's position score -inf, which the Softmax
    // turns into weight 0; then all the rows go through one Softmax call, in full vectors.
    constexpr float kMinusInf = -std::numeric_limits<float>::infinity();
    for (int64_t s = 0; s < s_len; ++s) {
      const int64_t position = past + s;
      const int64_t first =
          a.local_window_size > 0 ? std::max<int64_t>(0, position - a.local_window_size + 1) : 0;
      float* row = scores + s * keys_used;
      if (a.softcap > 0) {
        for (int64_t j = first; j <= position; ++j) row[j] = a.softcap * std::tanh(row[j] / a.softcap);
      }
      std::fill(row, row + first, kMinusInf);
      std::fill(row + position + 1, row + keys_used, kMinusInf);
    }
    SoftmaxInPlace(softmax, scores, s_len, keys_used);
    NXRT_RETURN_IF_ERROR(HeadProduct("GroupQueryAttention", false, s_len, h, keys_used, 1.0f,
                                     scores, keys_used, values, h,
                                     b.output + (batch * s_len * nq + n) * h, nq * h));
  }
  return Status::Ok();
}

Status DenseRows(const float* x, int64_t rows, int64_t k, const float* w, int64_t n,
                 const float* bias, float* y, int threads) {
  nn::SetDnnlThreads(threads);
  NXRT_RETURN_IF_ERROR(
      nn::Sgemm("Attention", false, false, rows, n, k, 1.0f, x, k, w, n, y, n));
  if (bias != nullptr) {
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t j = 0; j < n; ++j) y[r * n + j] += bias[j];
    }
  }
  return Status::Ok();
}

Status MhaAttend(const MhaPlan& p, const MhaBuffers& b, int64_t begin, int64_t end) {
  const int64_t s_len = p.sequence, t_len = p.kv_sequence, out_row = p.heads * p.v_head_size;
  const math::SoftmaxPlan softmax = FloatSoftmax();
  for (int64_t pair = begin; pair < end; ++pair) {
    const int64_t batch = pair / p.heads, n = pair % p.heads;
    float* scores = b.scores + pair * s_len * t_len;
    NXRT_RETURN_IF_ERROR(HeadProduct("attention", true, s_len, t_len, p.head_size, p.scale,
                                     b.q + batch * s_len * b.q_row + n * p.head_size, b.q_row,
                                     b.k + batch * t_len * b.k_row + n * p.head_size, b.k_row,
                                     scores, t_len));
    for (int64_t s = 0; s < s_len; ++s) {
      float* row = scores + s * t_len;
      if (p.attention_bias) {
        const float* bias =
            b.attention_bias + (((p.bias_batch ? batch : 0) * (p.bias_heads ? p.heads : 1) +
                                 (p.bias_heads ? n : 0)) * s_len + s) * t_len;
        for (int64_t j = 0; j < t_len; ++j) row[j] += bias[j];
      }
      if (p.mask == MhaPlan::Mask::kKeyPadding2D) {
        const int32_t* keep = b.mask + batch * t_len;
        for (int64_t j = 0; j < t_len; ++j) {
          if (keep[j] == 0) row[j] += p.mask_filter_value;
        }
      } else if (p.mask == MhaPlan::Mask::kLengths1D) {
        for (int64_t j = std::max<int64_t>(0, b.mask[batch]); j < t_len; ++j) {
          row[j] += p.mask_filter_value;
        }
      }
      if (p.unidirectional) {
        for (int64_t j = s + 1; j < t_len; ++j) row[j] += p.mask_filter_value;
      }
    }
    SoftmaxInPlace(softmax, scores, s_len, t_len);
    NXRT_RETURN_IF_ERROR(HeadProduct("attention", false, s_len, p.v_head_size, t_len, 1.0f,
                                     scores, t_len,
                                     b.v + batch * t_len * b.v_row + n * p.v_head_size, b.v_row,
                                     b.output + batch * s_len * out_row + n * p.v_head_size,
                                     out_row));
  }
  return Status::Ok();
}

}  // namespace nxrt::cpu::contrib
