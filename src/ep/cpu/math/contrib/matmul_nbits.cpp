// ep/cpu/math/contrib/matmul_nbits.cpp: MatMulNBits (see matmul_nbits.h).
#include "ep/cpu/math/contrib/matmul_nbits.h"

#include <immintrin.h>
#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <string>

#include "core/cpu_features.h"

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

// Eight consecutive quantized bytes (zero-extended) times a[0..8), accumulated into acc.
__attribute__((target("avx2,fma"))) inline __m256 Fma8(__m128i bytes, const float* a,
                                                         __m256 acc) {
  const __m256 w = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(bytes));
  return _mm256_fmadd_ps(w, _mm256_loadu_ps(a), acc);
}

// One column of y for one row of A with AVX2: per block, the 4- or 8-bit values unpacked to
// floats 16 at a time and multiplied with A in registers; the block's scale applied to the
// vector sum, the zero point through the block sum of A.
__attribute__((target("avx2,fma"))) float ColumnAvx2(const MatMulNBitsPlan& p,
                                                      const MatMulNBitsOperands& o,
                                                      const float* a, const float* block_sums,
                                                      int64_t n) {
  const int64_t k = p.attributes.k, bs = p.attributes.block_size, bits = p.attributes.bits;
  const uint8_t* column = o.b + n * p.k_blocks * p.blob_size;
  const float* scales = o.scales + n * p.k_blocks;
  const __m128i low_nibbles = _mm_set1_epi8(0x0F);
  __m256 total = _mm256_setzero_ps();
  float scalar = 0;
  for (int64_t b = 0; b < p.k_blocks; ++b) {
    const int64_t k0 = b * bs, len = std::min(bs, k - k0);
    const uint8_t* block = column + b * p.blob_size;
    const float* ak = a + k0;
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
    int64_t i = 0;
    if (bits == 4) {
      for (; i + 16 <= len; i += 16) {
        // 8 bytes hold elements i..i+15, the even ones in the low nibbles.
        const __m128i packed = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(block + i / 2));
        const __m128i lo = _mm_and_si128(packed, low_nibbles);
        const __m128i hi = _mm_and_si128(_mm_srli_epi16(packed, 4), low_nibbles);
        const __m128i values = _mm_unpacklo_epi8(lo, hi);  // elements i..i+15 in order
        acc0 = Fma8(values, ak + i, acc0);
        acc1 = Fma8(_mm_srli_si128(values, 8), ak + i + 8, acc1);
      }
    } else {
      for (; i + 16 <= len; i += 16) {
        const __m128i values = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + i));
        acc0 = Fma8(values, ak + i, acc0);
        acc1 = Fma8(_mm_srli_si128(values, 8), ak + i + 8, acc1);
      }
    }
    const float tail = BlockDotScalar(block + (bits == 4 ? i / 2 : i), ak + i, len - i, bits);
    const float scale = scales[b];
    total = _mm256_fmadd_ps(_mm256_set1_ps(scale), _mm256_add_ps(acc0, acc1), total);
    scalar += scale * (tail - ZeroPoint(p, o.zero_points, n, b) * block_sums[b]);
  }
  const __m128 half = _mm_add_ps(_mm256_castps256_ps128(total), _mm256_extractf128_ps(total, 1));
  const __m128 pair = _mm_add_ps(half, _mm_movehl_ps(half, half));
  return _mm_cvtss_f32(_mm_add_ss(pair, _mm_shuffle_ps(pair, pair, 1))) + scalar;
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
  const bool avx2 = CpuHasAvx2();
  for (int64_t row = 0; row < p.m; ++row) {
    const float* a = o.a + row * k;
    const float* sums = block_sums + row * p.k_blocks;
    for (int64_t n = n_begin; n < n_end; ++n) {
      const float v = avx2 ? ColumnAvx2(p, o, a, sums, n) : ColumnScalar(p, o, a, sums, n);
      y[row * n_total + n] = v + (p.bias ? o.bias[n] : 0.0f);
    }
  }
}

void MatMulNBitsDequantize(const MatMulNBitsPlan& p, const MatMulNBitsOperands& o,
                           int64_t n_begin, int64_t n_end, float* w) {
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
                           const float* w, int64_t n_begin, int64_t count, float* y) {
  const int64_t k = p.attributes.k, n = p.attributes.n;
  if (p.m == 0) return Status::Ok();
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
