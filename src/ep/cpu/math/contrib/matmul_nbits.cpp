// ep/cpu/math/contrib/matmul_nbits.cpp: MatMulNBits (see matmul_nbits.h).
#include "ep/cpu/math/contrib/matmul_nbits.h"

#include <immintrin.h>
#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "core/cpu_features.h"
#include "ep/cpu/math/nn/dnnl_threads.h"

namespace nxrt::cpu::contrib {
namespace {

// Rows up to which the direct path re-reads the packed weights once per row rather than
// dequantizing them for sgemm.
constexpr int64_t kDirectRows = 4;
// Columns the dequantized path expands at once (bounds the workspace to kChunk * K floats).
constexpr int64_t kChunk = 256;

int64_t Count(std::span<const int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// Quantized value of element i of a block (bits 4 or 8).
inline int32_t Quantized(const uint8_t* block, int64_t i, int64_t bits) {
  if (bits == 8) return block[i];
  return (block[i / 2] >> (4 * (i % 2))) & 0x0F;
}

// The zero point of block `b` of column `n` as a float.
inline float ZeroPoint(const MatMulNBitsPlan& p, const void* zero_points, int64_t n, int64_t b) {
  const int64_t bits = p.attributes.bits;
  switch (p.zero_point) {
    case NBitsZeroPoint::kDefault: return static_cast<float>(1 << (bits - 1));
    case NBitsZeroPoint::kFloat:
      return static_cast<const float*>(zero_points)[n * p.k_blocks + b];
    case NBitsZeroPoint::kPacked: break;
  }
  const auto* row = static_cast<const uint8_t*>(zero_points) + n * p.zero_point_row_bytes;
  return static_cast<float>(Quantized(row, b, bits));
}

// sum_{i < len} q_i * a_i over one block, scalar.
float BlockDotScalar(const uint8_t* block, const float* a, int64_t len, int64_t bits) {
  float sum = 0;
  for (int64_t i = 0; i < len; ++i) sum += static_cast<float>(Quantized(block, i, bits)) * a[i];
  return sum;
}

float ColumnScalar(const MatMulNBitsPlan& p, const MatMulNBitsOperands& o, const float* a,
                   const float* block_sums, int64_t n) {
  const int64_t k = p.attributes.k, bs = p.attributes.block_size;
  const uint8_t* column = o.b + n * p.k_blocks * p.blob_size;
  float total = 0;
  for (int64_t b = 0; b < p.k_blocks; ++b) {
    const int64_t k0 = b * bs, len = std::min(bs, k - k0);
    const float dot = BlockDotScalar(column + b * p.blob_size, a + k0, len, p.attributes.bits);
    total += o.scales[n * p.k_blocks + b] * (dot - ZeroPoint(p, o.zero_points, n, b) * block_sums[b]);
  }
  return total;
}

// Eight quantized bytes (zero-extended) as floats.
__attribute__((target("avx2,fma"))) inline __m256 Widen8(__m128i bytes) {
  return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(bytes));
}

// Column n of y for kRows rows of A (row r at a + r * K, its output at y + r * N) with AVX2: per
// block, the 4- or 8-bit values are unpacked to floats 32 (4 bits: variable shifts of broadcast
// words) or 16 (8 bits) at a time, once for all the rows, and multiplied with each row in registers; the block's scale is applied to
// the vector sums, the zero points through the block sums of A. One row keeps
// four accumulator chains to cover the FMA latency, more rows two each.
template <int kRows>
__attribute__((target("avx2,fma"))) void ColumnsAvx2(const MatMulNBitsPlan& p,
                                                      const MatMulNBitsOperands& o,
                                                      const float* a, const float* block_sums,
                                                      int64_t n, float* y) {
  constexpr int kChains = kRows == 1 ? 4 : 2;
  const int64_t k = p.attributes.k, bs = p.attributes.block_size, bits = p.attributes.bits;
  const int64_t n_total = p.attributes.n;
  const uint8_t* column = o.b + n * p.k_blocks * p.blob_size;
  const float* scales = o.scales + n * p.k_blocks;
  const __m128i low_nibbles = _mm_set1_epi8(0x0F);
  const __m256i nibble_shifts = _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28);
  const __m256i nibble_mask = _mm256_set1_epi32(0x0F);
  __m256 total[kRows];
  float scalar[kRows];
  for (int r = 0; r < kRows; ++r) {
    total[r] = _mm256_setzero_ps();
    scalar[r] = 0;
  }
  for (int64_t b = 0; b < p.k_blocks; ++b) {
    const int64_t k0 = b * bs, len = std::min(bs, k - k0);
    const uint8_t* block = column + b * p.blob_size;
    __m256 acc[kRows][kChains];
    for (int r = 0; r < kRows; ++r) {
      for (int c = 0; c < kChains; ++c) acc[r][c] = _mm256_setzero_ps();
    }
    int64_t i = 0;
    if (bits == 4) {
      for (; i + 32 <= len; i += 32) {
        // Each 4 bytes hold 8 elements, element i + l in bits [4l, 4l + 4) of the little-endian
        // word: broadcast the word, shift lane l right by 4l, keep 4 bits. No shuffle unit
        // work (the broadcast is a load), which unpacking bytes would need.
        __m256 w[4];
        for (int j = 0; j < 4; ++j) {
          int32_t word;
          std::memcpy(&word, block + i / 2 + 4 * j, 4);
          const __m256i lanes = _mm256_srlv_epi32(_mm256_set1_epi32(word), nibble_shifts);
          w[j] = _mm256_cvtepi32_ps(_mm256_and_si256(lanes, nibble_mask));
        }
        for (int r = 0; r < kRows; ++r) {
          const float* ak = a + r * k + k0 + i;
          for (int j = 0; j < 4; ++j) {
            acc[r][j % kChains] = _mm256_fmadd_ps(w[j], _mm256_loadu_ps(ak + 8 * j),
                                                  acc[r][j % kChains]);
          }
        }
      }
      for (; i + 16 <= len; i += 16) {
        const __m128i packed = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(block + i / 2));
        const __m128i lo = _mm_and_si128(packed, low_nibbles);
        const __m128i hi = _mm_and_si128(_mm_srli_epi16(packed, 4), low_nibbles);
        const __m128i values = _mm_unpacklo_epi8(lo, hi);
        const __m256 w0 = Widen8(values), w1 = Widen8(_mm_srli_si128(values, 8));
        for (int r = 0; r < kRows; ++r) {
          const float* ak = a + r * k + k0 + i;
          acc[r][0] = _mm256_fmadd_ps(w0, _mm256_loadu_ps(ak), acc[r][0]);
          acc[r][1] = _mm256_fmadd_ps(w1, _mm256_loadu_ps(ak + 8), acc[r][1]);
        }
      }
    } else {
      for (; i + 16 <= len; i += 16) {
        const __m128i values = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + i));
        const __m256 w0 = Widen8(values), w1 = Widen8(_mm_srli_si128(values, 8));
        for (int r = 0; r < kRows; ++r) {
          const float* ak = a + r * k + k0 + i;
          acc[r][0] = _mm256_fmadd_ps(w0, _mm256_loadu_ps(ak), acc[r][0]);
          acc[r][1] = _mm256_fmadd_ps(w1, _mm256_loadu_ps(ak + 8), acc[r][1]);
        }
      }
    }
    const __m256 scale = _mm256_set1_ps(scales[b]);
    const float zero_point_scale = ZeroPoint(p, o.zero_points, n, b) * scales[b];
    for (int r = 0; r < kRows; ++r) {
      __m256 sum = acc[r][0];
      for (int c = 1; c < kChains; ++c) sum = _mm256_add_ps(sum, acc[r][c]);
      total[r] = _mm256_fmadd_ps(scale, sum, total[r]);
      scalar[r] -= zero_point_scale * block_sums[r * p.k_blocks + b];
    }
    if (i < len) {  // a last block shorter than 16 elements' multiple
      for (int r = 0; r < kRows; ++r) {
        scalar[r] += scales[b] * BlockDotScalar(block + (bits == 4 ? i / 2 : i),
                                                a + r * k + k0 + i, len - i, bits);
      }
    }
  }
  for (int r = 0; r < kRows; ++r) {
    const __m128 half =
        _mm_add_ps(_mm256_castps256_ps128(total[r]), _mm256_extractf128_ps(total[r], 1));
    const __m128 pair = _mm_add_ps(half, _mm_movehl_ps(half, half));
    const float dot = _mm_cvtss_f32(_mm_add_ss(pair, _mm_shuffle_ps(pair, pair, 1)));
    y[r * n_total] = dot + scalar[r];
  }
}

// Columns [n_begin, n_end) of W, dequantized with AVX2 into rows of w (no g_idx): per block
// w = q * scale - zero_point * scale, 16 values at a time.
__attribute__((target("avx2,fma"))) void DequantizeAvx2(const MatMulNBitsPlan& p,
                                                         const MatMulNBitsOperands& o,
                                                         int64_t n_begin, int64_t n_end,
                                                         float* w) {
  const int64_t k = p.attributes.k, bs = p.attributes.block_size, bits = p.attributes.bits;
  const __m128i low_nibbles = _mm_set1_epi8(0x0F);
  for (int64_t n = n_begin; n < n_end; ++n) {
    const uint8_t* column = o.b + n * p.k_blocks * p.blob_size;
    float* out = w + (n - n_begin) * k;
    for (int64_t b = 0; b < p.k_blocks; ++b) {
      const int64_t k0 = b * bs, len = std::min(bs, k - k0);
      const uint8_t* block = column + b * p.blob_size;
      const float scale = o.scales[n * p.k_blocks + b];
      const float offset = -ZeroPoint(p, o.zero_points, n, b) * scale;
      const __m256 scale8 = _mm256_set1_ps(scale), offset8 = _mm256_set1_ps(offset);
      int64_t i = 0;
      for (; i + 16 <= len; i += 16) {
        __m128i values;
        if (bits == 4) {
          const __m128i packed = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(block + i / 2));
          values = _mm_unpacklo_epi8(_mm_and_si128(packed, low_nibbles),
                                     _mm_and_si128(_mm_srli_epi16(packed, 4), low_nibbles));
        } else {
          values = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + i));
        }
        _mm256_storeu_ps(out + k0 + i, _mm256_fmadd_ps(Widen8(values), scale8, offset8));
        _mm256_storeu_ps(out + k0 + i + 8,
                         _mm256_fmadd_ps(Widen8(_mm_srli_si128(values, 8)), scale8, offset8));
      }
      for (; i < len; ++i) {
        out[k0 + i] = static_cast<float>(Quantized(block, i, bits)) * scale + offset;
      }
    }
  }
}

}  // namespace

Status CheckMatMulNBitsAttributes(const MatMulNBitsAttributes& a) {
  if (a.k < 1 || a.n < 1) {
    return MakeStatus(StatusCode::kInvalidModel, "attributes K=", a.k, " and N=", a.n,
                      " must both be at least 1");
  }
  if (a.bits != 4 && a.bits != 8) {
    return MakeStatus(StatusCode::kInvalidModel, "attribute 'bits' is ", a.bits,
                      "; the CPU EP runs 4- and 8-bit weights");
  }
  if (a.block_size < 16 || (a.block_size & (a.block_size - 1)) != 0) {
    return MakeStatus(StatusCode::kInvalidModel, "attribute 'block_size' is ", a.block_size,
                      ", expected a power of two >= 16 (16, 32, 64, 128, 256, ...)");
  }
  return Status::Ok();
}

Result<MatMulNBitsPlan> PrepareMatMulNBits(const MatMulNBitsAttributes& attributes,
                                           DataType a_dtype, std::span<const int64_t> a_shape,
                                           std::span<const int64_t> b_shape,
                                           std::span<const int64_t> scales_shape,
                                           std::optional<DataType> zero_point_dtype,
                                           std::optional<Shape> zero_point_shape,
                                           std::optional<Shape> g_idx_shape,
                                           std::optional<Shape> bias_shape) {
  NXRT_RETURN_IF_ERROR(CheckMatMulNBitsAttributes(attributes));
  if (a_dtype != DataType::kFloat) {
    return MakeStatus(StatusCode::kUnsupported, "MatMulNBits: input A is ",
                      DataTypeName(a_dtype), "; the CPU EP computes float");
  }
  MatMulNBitsPlan p;
  p.attributes = attributes;
  const int64_t k = attributes.k, n = attributes.n, bits = attributes.bits;
  p.k_blocks = (k + attributes.block_size - 1) / attributes.block_size;
  p.blob_size = attributes.block_size * bits / 8;
  if (a_shape.empty() || a_shape.back() != k) {
    return MakeStatus(StatusCode::kInvalidArgument, "MatMulNBits: input A has shape ",
                      ShapeToString(a_shape), " but attribute K is ", k,
                      "; A's last dim must be K");
  }
  const auto expect_count = [](std::string_view what, std::span<const int64_t> shape,
                               int64_t count, std::string_view form) -> Status {
    if (Count(shape) == count) return Status::Ok();
    return MakeStatus(StatusCode::kInvalidArgument, "MatMulNBits: input ", what, " has shape ",
                      ShapeToString(shape), " (", Count(shape), " elements), expected ", form,
                      " = ", count, " elements");
  };
  NXRT_RETURN_IF_ERROR(expect_count("B", b_shape, n * p.k_blocks * p.blob_size,
                                    "[N, k_blocks, blob_size] = [" + std::to_string(n) + "," +
                                        std::to_string(p.k_blocks) + "," +
                                        std::to_string(p.blob_size) + "]"));
  NXRT_RETURN_IF_ERROR(expect_count("scales", scales_shape, n * p.k_blocks, "[N, k_blocks]"));
  if (zero_point_dtype) {
    if (*zero_point_dtype == DataType::kUint8) {
      p.zero_point = NBitsZeroPoint::kPacked;
      p.zero_point_row_bytes = (p.k_blocks * bits + 7) / 8;
      NXRT_RETURN_IF_ERROR(expect_count("zero_points", *zero_point_shape,
                                        n * p.zero_point_row_bytes,
                                        "[N, ceil(k_blocks * bits / 8)]"));
    } else if (*zero_point_dtype == DataType::kFloat) {
      p.zero_point = NBitsZeroPoint::kFloat;
      NXRT_RETURN_IF_ERROR(
          expect_count("zero_points", *zero_point_shape, n * p.k_blocks, "[N, k_blocks]"));
    } else {
      return MakeStatus(StatusCode::kUnsupported, "MatMulNBits: zero_points is ",
                        DataTypeName(*zero_point_dtype), "; expected uint8 (packed) or float");
    }
  }
  if (g_idx_shape) {
    NXRT_RETURN_IF_ERROR(expect_count("g_idx", *g_idx_shape, k, "[K]"));
    p.g_idx = true;
  }
  if (bias_shape) {
    NXRT_RETURN_IF_ERROR(expect_count("bias", *bias_shape, n, "[N]"));
    p.bias = true;
  }
  p.m = Count(a_shape) / k;
  p.output_shape.assign(a_shape.begin(), a_shape.end());
  p.output_shape.back() = n;
  p.direct = !p.g_idx && p.m <= kDirectRows;
  if (p.direct) {
    p.workspace_bytes = static_cast<size_t>(p.m * p.k_blocks) * sizeof(float);
  } else {
    p.chunk = std::min(n, kChunk);
    p.workspace_bytes = static_cast<size_t>(p.chunk * k) * sizeof(float);
  }
  return p;
}

Status CheckGIdx(const MatMulNBitsPlan& p, const int32_t* g_idx) {
  for (int64_t i = 0; i < p.attributes.k; ++i) {
    if (g_idx[i] < 0 || g_idx[i] >= p.k_blocks) {
      return MakeStatus(StatusCode::kRuntimeError, "MatMulNBits: g_idx[", i, "] is ", g_idx[i],
                        ", outside the ", p.k_blocks, " blocks [0, ", p.k_blocks, ")");
    }
  }
  return Status::Ok();
}

void MatMulNBitsBlockSums(const MatMulNBitsPlan& p, const float* a, float* block_sums) {
  const int64_t k = p.attributes.k, bs = p.attributes.block_size;
  for (int64_t row = 0; row < p.m; ++row) {
    for (int64_t b = 0; b < p.k_blocks; ++b) {
      float sum = 0;
      for (int64_t i = b * bs; i < std::min(k, (b + 1) * bs); ++i) sum += a[row * k + i];
      block_sums[row * p.k_blocks + b] = sum;
    }
  }
}

void MatMulNBitsDirect(const MatMulNBitsPlan& p, const MatMulNBitsOperands& o,
                       const float* block_sums, float* y, int64_t n_begin, int64_t n_end) {
  const int64_t k = p.attributes.k, n_total = p.attributes.n;
  if (CpuHasAvx2()) {
    for (int64_t n = n_begin; n < n_end; ++n) {
      switch (p.m) {  // kDirectRows = 4
        case 1: ColumnsAvx2<1>(p, o, o.a, block_sums, n, y + n); break;
        case 2: ColumnsAvx2<2>(p, o, o.a, block_sums, n, y + n); break;
        case 3: ColumnsAvx2<3>(p, o, o.a, block_sums, n, y + n); break;
        default: ColumnsAvx2<4>(p, o, o.a, block_sums, n, y + n); break;
      }
    }
  } else {
    for (int64_t row = 0; row < p.m; ++row) {
      for (int64_t n = n_begin; n < n_end; ++n) {
        y[row * n_total + n] =
            ColumnScalar(p, o, o.a + row * k, block_sums + row * p.k_blocks, n);
      }
    }
  }
  if (p.bias) {
    for (int64_t row = 0; row < p.m; ++row) {
      for (int64_t n = n_begin; n < n_end; ++n) y[row * n_total + n] += o.bias[n];
    }
  }
}

void MatMulNBitsDequantize(const MatMulNBitsPlan& p, const MatMulNBitsOperands& o,
                           int64_t n_begin, int64_t n_end, float* w) {
  if (o.g_idx == nullptr && CpuHasAvx2()) {
    DequantizeAvx2(p, o, n_begin, n_end, w);
    return;
  }
  const int64_t k = p.attributes.k, bs = p.attributes.block_size, bits = p.attributes.bits;
  for (int64_t n = n_begin; n < n_end; ++n) {
    const uint8_t* column = o.b + n * p.k_blocks * p.blob_size;
    float* out = w + (n - n_begin) * k;
    for (int64_t i = 0; i < k; ++i) {
      const int64_t b = i / bs;
      const int64_t g = o.g_idx != nullptr ? o.g_idx[i] : b;
      const float q = static_cast<float>(Quantized(column + b * p.blob_size, i % bs, bits));
      out[i] = (q - ZeroPoint(p, o.zero_points, n, g)) * o.scales[n * p.k_blocks + g];
    }
  }
}

Status MatMulNBitsMultiply(const MatMulNBitsPlan& p, const MatMulNBitsOperands& o,
                           const float* w, int64_t n_begin, int64_t count, float* y, int threads) {
  const int64_t k = p.attributes.k, n = p.attributes.n;
  if (p.m == 0) return Status::Ok();
  nn::SetDnnlThreads(threads);
  const dnnl_status_t status = dnnl_sgemm('N', 'T', p.m, count, k, 1.0f, o.a, k, w, k, 0.0f,
                                          y + n_begin, n);
  if (status != dnnl_success) {
    return MakeStatus(StatusCode::kRuntimeError, "MatMulNBits: oneDNN sgemm failed (status ",
                      static_cast<int>(status), ") on [", p.m, "x", k, "] x [", k, "x", count,
                      "]");
  }
  if (p.bias) {
    for (int64_t row = 0; row < p.m; ++row) {
      for (int64_t j = n_begin; j < n_begin + count; ++j) y[row * n + j] += o.bias[j];
    }
  }
  return Status::Ok();
}

}  // namespace nxrt::cpu::contrib
