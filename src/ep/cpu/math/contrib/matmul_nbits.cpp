// ep/cpu/math/contrib/matmul_nbits.cpp: MatMulNBits (see matmul_nbits.h).
#include "ep/cpu/math/contrib/matmul_nbits.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "core/cpu_features.h"
#include "ep/cpu/math/nn/sgemm_avx2.h"
#include "ep/cpu/math/shape_util.h"

namespace nxrt::cpu::contrib {
namespace {

// Rows up to which the direct path re-reads the packed weights once per row rather than
// dequantizing them for sgemm.
constexpr int64_t kDirectRows = 4;
// The blocked GEMM's geometry: output columns per panel, rows of A per register tile, and the
// run of K dequantized at once (kPanelDepth x kPanelColumns floats, 16 KB).
constexpr int64_t kPanelColumns = nn::kSgemmPanel;
constexpr int64_t kTileRows = nn::kSgemmTileRows;
constexpr int64_t kTileRowsAvx512 = 12;  // one register per row: 12 of AVX-512's 32
constexpr int64_t kPanelDepth = 256;

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

// sum_{i < len} (q_i * scale + offset) * a_i over (part of) one block, scalar.
float BlockDotScalar(const uint8_t* block, const float* a, int64_t len, int64_t bits,
                     float scale, float offset) {
  float sum = 0;
  for (int64_t i = 0; i < len; ++i) {
    sum += (static_cast<float>(Quantized(block, i, bits)) * scale + offset) * a[i];
  }
  return sum;
}

float ColumnScalar(const MatMulNBitsPlan& p, const MatMulNBitsOperands& o, const float* a,
                   int64_t n) {
  const int64_t k = p.attributes.k, bs = p.attributes.block_size;
  const uint8_t* column = o.b + n * p.k_blocks * p.blob_size;
  float total = 0;
  for (int64_t b = 0; b < p.k_blocks; ++b) {
    const int64_t k0 = b * bs, len = std::min(bs, k - k0);
    const float scale = o.scales[n * p.k_blocks + b];
    const float offset = -ZeroPoint(p, o.zero_points, n, b) * scale;
    total += BlockDotScalar(column + b * p.blob_size, a + k0, len, p.attributes.bits, scale,
                            offset);
  }
  return total;
}

// The sum of v's 8 lanes.
__attribute__((target("avx2,fma"))) inline float SumLanes(__m256 v) {
  const __m128 half = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  const __m128 pair = _mm_add_ps(half, _mm_movehl_ps(half, half));
  return _mm_cvtss_f32(_mm_add_ss(pair, _mm_shuffle_ps(pair, pair, 1)));
}

// Eight quantized bytes (zero-extended) as floats.
__attribute__((target("avx2,fma"))) inline __m256 Widen8(__m128i bytes) {
  return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(bytes));
}

// The offsets -zero_point * scale of blocks [b, b + 8) of column n into `offsets` (8 floats; a
// column's last group may hold fewer blocks, and the lanes past them are then meaningless), with
// AVX2 when b is even (packed 4-bit zero points then start on a byte) and the 8 blocks' scales
// and zero points lie inside their tensors (a short last group reads on into the next columns',
// which all but the last few columns have), else one by one. Not needed when the kernel made
// the offsets once (o.offsets): the callers read those.
__attribute__((target("avx2,fma"))) void BlockOffsetsAvx2(const MatMulNBitsPlan& p,
                                                          const MatMulNBitsOperands& o, int64_t n,
                                                          int64_t b, float* offsets) {
  const float* scales = o.scales + n * p.k_blocks + b;
  const int64_t count = std::min<int64_t>(8, p.k_blocks - b);
  const int64_t bits = p.attributes.bits;
  // Ends of the reads below: 8 scales (and float zero points), and 4 bytes (4 bits) or 8 (8 bits)
  // of packed zero points.
  const bool inside =
      (n * p.k_blocks + b + 8 <= p.attributes.n * p.k_blocks) &&
      (p.zero_point != NBitsZeroPoint::kPacked ||
       n * p.zero_point_row_bytes + b * bits / 8 + bits <= p.attributes.n * p.zero_point_row_bytes);
  if (b % 2 != 0 || (count < 8 && !inside)) {
    for (int64_t j = 0; j < count; ++j) {
      offsets[j] = -ZeroPoint(p, o.zero_points, n, b + j) * scales[j];
    }
    return;
  }
  __m256 zero_points;
  if (p.zero_point == NBitsZeroPoint::kDefault) {
    zero_points = _mm256_set1_ps(static_cast<float>(1 << (p.attributes.bits - 1)));
  } else if (p.zero_point == NBitsZeroPoint::kFloat) {
    zero_points = _mm256_loadu_ps(static_cast<const float*>(o.zero_points) + n * p.k_blocks + b);
  } else {
    // Packed like B: blocks b..b+7 (b even) in 4 bytes (4 bits) or 8 (8 bits).
    const auto* row = static_cast<const uint8_t*>(o.zero_points) + n * p.zero_point_row_bytes;
    __m256i q;
    if (p.attributes.bits == 4) {
      int32_t word;
      std::memcpy(&word, row + b / 2, 4);
      q = _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32(word),
                                             _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28)),
                           _mm256_set1_epi32(0x0F));
    } else {
      q = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(row + b)));
    }
    zero_points = _mm256_cvtepi32_ps(q);
  }
  _mm256_storeu_ps(offsets, _mm256_sub_ps(_mm256_setzero_ps(),
                                          _mm256_mul_ps(zero_points, _mm256_loadu_ps(scales))));
}

// Columns [n, n + kCols) of y for kRows rows of A (row r at a + r * K, its output at y + r * N)
// with AVX2: per block, the 4- or 8-bit values of each column are unpacked to floats 8 at a time
// (4 bits: a broadcast word shifted lane-wise, runs of 32; or 16 from 8 bytes), once for all the
// rows, dequantized (q * scale + offset, the offset -zero_point * scale) and multiplied with each
// row in registers; A's 8 values are loaded once for all the columns. The accumulators run across
// blocks: no reduction or scalar term per block, which small blocks would pay every 16 values.
// Every (row, column) pair keeps two accumulator chains (four when there is only one pair), so
// several columns at once give the FMA unit independent chains, which one column of one row
// cannot (its chain would wait on the FMA latency every block).
template <int kRows, int kCols>
__attribute__((target("avx2,fma"))) void ColumnsAvx2(const MatMulNBitsPlan& p,
                                                      const MatMulNBitsOperands& o,
                                                      const float* a, int64_t n, float* y) {
  constexpr int kChains = kRows * kCols == 1 ? 4 : 2;
  const int64_t k = p.attributes.k, bs = p.attributes.block_size, bits = p.attributes.bits;
  const int64_t n_total = p.attributes.n;
  const uint8_t* column[kCols];
  const float* scales[kCols];
  for (int c = 0; c < kCols; ++c) {
    column[c] = o.b + (n + c) * p.k_blocks * p.blob_size;
    scales[c] = o.scales + (n + c) * p.k_blocks;
  }
  const __m256i nibble_shifts = _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28);
  const __m256i nibble_mask = _mm256_set1_epi32(0x0F);
  __m256 acc[kRows][kCols][kChains];
  float scalar[kRows][kCols];  // K's last few elements, past a multiple of 16
  for (int r = 0; r < kRows; ++r) {
    for (int c = 0; c < kCols; ++c) {
      for (int h = 0; h < kChains; ++h) acc[r][c][h] = _mm256_setzero_ps();
      scalar[r][c] = 0;
    }
  }
  alignas(32) float offsets[kCols][8];
  for (int64_t b = 0; b < p.k_blocks; ++b) {
    const int64_t k0 = b * bs, len = std::min(bs, k - k0);
    if (b % 8 == 0 && o.offsets == nullptr) {
      for (int c = 0; c < kCols; ++c) BlockOffsetsAvx2(p, o, n + c, b, offsets[c]);
    }
    __m256 scale[kCols], offset[kCols];
    float block_offset[kCols];
    for (int c = 0; c < kCols; ++c) {
      block_offset[c] = o.offsets != nullptr ? o.offsets[(n + c) * p.k_blocks + b]
                                             : offsets[c][b % 8];
      scale[c] = _mm256_set1_ps(scales[c][b]);
      offset[c] = _mm256_set1_ps(block_offset[c]);
    }
    int64_t i = 0;
    if (bits == 4) {
      for (; i + 32 <= len; i += 32) {
        // Each 4 bytes hold 8 elements, element i + l in bits [4l, 4l + 4) of the little-endian
        // word: broadcast the word, shift lane l right by 4l, keep 4 bits. No shuffle unit
        // work (the broadcast is a load), which unpacking bytes would need.
        for (int j = 0; j < 4; ++j) {
          __m256 x[kRows];
          for (int r = 0; r < kRows; ++r) x[r] = _mm256_loadu_ps(a + r * k + k0 + i + 8 * j);
          for (int c = 0; c < kCols; ++c) {
            int32_t word;
            std::memcpy(&word, column[c] + b * p.blob_size + i / 2 + 4 * j, 4);
            const __m256i lanes = _mm256_srlv_epi32(_mm256_set1_epi32(word), nibble_shifts);
            const __m256 w = _mm256_fmadd_ps(
                _mm256_cvtepi32_ps(_mm256_and_si256(lanes, nibble_mask)), scale[c], offset[c]);
            for (int r = 0; r < kRows; ++r) {
              acc[r][c][j % kChains] = _mm256_fmadd_ps(w, x[r], acc[r][c][j % kChains]);
            }
          }
        }
      }
    }
    for (; i + 16 <= len; i += 16) {
      __m256 x0[kRows], x1[kRows];
      for (int r = 0; r < kRows; ++r) {
        x0[r] = _mm256_loadu_ps(a + r * k + k0 + i);
        x1[r] = _mm256_loadu_ps(a + r * k + k0 + i + 8);
      }
      for (int c = 0; c < kCols; ++c) {
        const uint8_t* block = column[c] + b * p.blob_size;
        if (bits == 4) {  // two words, as in the runs of 32
          __m256 w[2];
          for (int j = 0; j < 2; ++j) {
            int32_t word;
            std::memcpy(&word, block + i / 2 + 4 * j, 4);
            const __m256i lanes = _mm256_srlv_epi32(_mm256_set1_epi32(word), nibble_shifts);
            w[j] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_and_si256(lanes, nibble_mask)),
                                   scale[c], offset[c]);
          }
          for (int r = 0; r < kRows; ++r) {
            acc[r][c][0] = _mm256_fmadd_ps(w[0], x0[r], acc[r][c][0]);
            acc[r][c][1] = _mm256_fmadd_ps(w[1], x1[r], acc[r][c][1]);
          }
          continue;
        }
        const __m128i values = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + i));
        const __m256 w0 = _mm256_fmadd_ps(Widen8(values), scale[c], offset[c]);
        const __m256 w1 = _mm256_fmadd_ps(Widen8(_mm_srli_si128(values, 8)), scale[c], offset[c]);
        for (int r = 0; r < kRows; ++r) {
          acc[r][c][0] = _mm256_fmadd_ps(w0, x0[r], acc[r][c][0]);
          acc[r][c][1] = _mm256_fmadd_ps(w1, x1[r], acc[r][c][1]);
        }
      }
    }
    if (i < len) {  // a last block shorter than 16 elements' multiple
      for (int c = 0; c < kCols; ++c) {
        const uint8_t* block = column[c] + b * p.blob_size;
        for (int r = 0; r < kRows; ++r) {
          scalar[r][c] += BlockDotScalar(block + (bits == 4 ? i / 2 : i), a + r * k + k0 + i,
                                         len - i, bits, scales[c][b], block_offset[c]);
        }
      }
    }
  }
  for (int r = 0; r < kRows; ++r) {
    for (int c = 0; c < kCols; ++c) {
      __m256 total = acc[r][c][0];
      for (int h = 1; h < kChains; ++h) total = _mm256_add_ps(total, acc[r][c][h]);
      y[r * n_total + c] = SumLanes(total) + scalar[r][c];
    }
  }
}

// One step of ColumnsAvx512: 16 values of K from k0 + i (those past `valid` read as 0) of kCols
// columns, multiplied with kRows rows into accumulator chain kChain.
template <int kRows, int kCols, int kChain, int kChains>
__attribute__((target("avx512f,avx2,fma"), always_inline)) inline void StepAvx512(
    const float* a, int64_t k, int64_t k0, int64_t i, __mmask16 valid,
    const uint8_t* const (&blocks)[kCols], const __m512 (&scale)[kCols],
    const __m512 (&offset)[kCols], __m512 (&acc)[kRows][kCols][kChains]) {
  // Masked forms throughout: GCC 12's unmasked permute, shift and convert intrinsics pass an
  // undefined vector that its -Wmaybe-uninitialized flags.
  constexpr __mmask16 kAll = 0xFFFF;
  const __m512i shifts =
      _mm512_setr_epi32(0, 0, 4, 4, 8, 8, 12, 12, 16, 16, 20, 20, 24, 24, 28, 28);
  const __m512i order = _mm512_setr_epi32(0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15);
  __m512 x[kRows];
  for (int r = 0; r < kRows; ++r) {
    const __m512 values = _mm512_maskz_loadu_ps(valid, a + r * k + k0 + i);
    x[r] = _mm512_mask_permutexvar_ps(values, kAll, order, values);
  }
  for (int c = 0; c < kCols; ++c) {
    int64_t packed;
    std::memcpy(&packed, blocks[c] + i / 2, 8);
    const __m512i word = _mm512_set1_epi64(packed);
    const __m512i q = _mm512_and_si512(_mm512_mask_srlv_epi32(word, kAll, word, shifts),
                                       _mm512_set1_epi32(0x0F));
    const __m512 w = _mm512_fmadd_ps(_mm512_mask_cvtepi32_ps(_mm512_setzero_ps(), kAll, q),
                                     scale[c], offset[c]);
    for (int r = 0; r < kRows; ++r) {
      acc[r][c][kChain] = _mm512_fmadd_ps(w, x[r], acc[r][c][kChain]);
    }
  }
}

// ColumnsAvx2 for 4-bit weights with AVX-512, 16 values per step: the column's next 8 bytes
// (16 nibbles) are broadcast to every 64-bit lane and 32-bit lane l shifted right by 4 * (l / 2),
// so lane 2j holds element j and lane 2j + 1 element 8 + j (a word's low and high halves). A's 16
// values are permuted into that order once per step for all the columns, so no shuffle touches
// the weights. A's values past K (K not a multiple of 16) load as 0, which zeroes the padding
// nibbles of the last block's blob. Steps alternate between two accumulator chains per (row,
// column) pair within a block; offsets as in ColumnsAvx2.
template <int kRows, int kCols>
__attribute__((target("avx512f,avx2,fma"))) void ColumnsAvx512(const MatMulNBitsPlan& p,
                                                                const MatMulNBitsOperands& o,
                                                                const float* a, int64_t n,
                                                                float* y) {
  const int64_t k = p.attributes.k, bs = p.attributes.block_size, n_total = p.attributes.n;
  const uint8_t* columns[kCols];
  const float* scales[kCols];
  for (int c = 0; c < kCols; ++c) {
    columns[c] = o.b + (n + c) * p.k_blocks * p.blob_size;
    scales[c] = o.scales + (n + c) * p.k_blocks;
  }
  __m512 acc[kRows][kCols][2];
  for (int r = 0; r < kRows; ++r) {
    for (int c = 0; c < kCols; ++c) acc[r][c][0] = acc[r][c][1] = _mm512_setzero_ps();
  }
  alignas(32) float offsets[kCols][8];
  for (int64_t b = 0; b < p.k_blocks; ++b) {
    const int64_t k0 = b * bs, len = std::min(bs, k - k0);
    if (b % 8 == 0 && o.offsets == nullptr) {
      for (int c = 0; c < kCols; ++c) BlockOffsetsAvx2(p, o, n + c, b, offsets[c]);
    }
    const uint8_t* blocks[kCols];
    __m512 scale[kCols], offset[kCols];
    for (int c = 0; c < kCols; ++c) {
      blocks[c] = columns[c] + b * p.blob_size;
      scale[c] = _mm512_set1_ps(scales[c][b]);
      offset[c] = _mm512_set1_ps(o.offsets != nullptr ? o.offsets[(n + c) * p.k_blocks + b]
                                                      : offsets[c][b % 8]);
    }
    int64_t i = 0;
    for (; i + 32 <= len; i += 32) {
      StepAvx512<kRows, kCols, 0, 2>(a, k, k0, i, 0xFFFF, blocks, scale, offset, acc);
      StepAvx512<kRows, kCols, 1, 2>(a, k, k0, i + 16, 0xFFFF, blocks, scale, offset, acc);
    }
    for (; i < len; i += 16) {
      const __mmask16 valid =
          len - i >= 16 ? __mmask16{0xFFFF} : static_cast<__mmask16>((1u << (len - i)) - 1);
      StepAvx512<kRows, kCols, 0, 2>(a, k, k0, i, valid, blocks, scale, offset, acc);
    }
  }
  for (int r = 0; r < kRows; ++r) {
    for (int c = 0; c < kCols; ++c) {
      // Through memory: GCC 12's 512-to-256-bit cast and extract intrinsics pass an undefined
      // vector that its -Wuninitialized flags.
      alignas(64) float lanes[16];
      _mm512_store_ps(lanes, _mm512_add_ps(acc[r][c][0], acc[r][c][1]));
      y[r * n_total + c] =
          SumLanes(_mm256_add_ps(_mm256_load_ps(lanes), _mm256_load_ps(lanes + 8)));
    }
  }
}

// The direct path's columns [n, n + kCols) for kRows rows: ColumnsAvx512 (4 bits, kAvx512) or
// ColumnsAvx2.
template <int kRows, int kCols, bool kAvx512>
void Columns(const MatMulNBitsPlan& p, const MatMulNBitsOperands& o, int64_t n, float* y) {
  if constexpr (kAvx512) {
    ColumnsAvx512<kRows, kCols>(p, o, o.a, n, y);
  } else {
    ColumnsAvx2<kRows, kCols>(p, o, o.a, n, y);
  }
}

// Columns over [n_begin, n_end) for kRows rows: kCols at a time, then one by one.
template <int kRows, int kCols, bool kAvx512>
void ColumnRange(const MatMulNBitsPlan& p, const MatMulNBitsOperands& o, float* y,
                 int64_t n_begin, int64_t n_end) {
  int64_t n = n_begin;
  for (; n + kCols <= n_end; n += kCols) Columns<kRows, kCols, kAvx512>(p, o, n, y + n);
  for (; n < n_end; ++n) Columns<kRows, 1, kAvx512>(p, o, n, y + n);
}

// ColumnRange for p.m rows (at most kDirectRows: 4 rows x columns, 8 accumulator pairs).
template <bool kAvx512>
void ColumnRangeForRows(const MatMulNBitsPlan& p, const MatMulNBitsOperands& o, float* y,
                        int64_t n_begin, int64_t n_end) {
  switch (p.m) {
    case 1: ColumnRange<1, 4, kAvx512>(p, o, y, n_begin, n_end); break;
    case 2: ColumnRange<2, 2, kAvx512>(p, o, y, n_begin, n_end); break;
    case 3: ColumnRange<3, 1, kAvx512>(p, o, y, n_begin, n_end); break;
    default: ColumnRange<4, 1, kAvx512>(p, o, y, n_begin, n_end); break;
  }
}

// ---- blocked GEMM (more than kDirectRows rows) ----
//
// Output columns go in panels of kPanelColumns. For each panel and each run of kPanelDepth along
// K, the weights are dequantized once into a small buffer laid out [depth][kPanelColumns] (16 KB,
// it stays in L1), and every group of up to kTileRows rows of A (kTileRowsAvx512 with AVX-512) is
// multiplied with it in a register tile of rows x kPanelColumns accumulators. Runs of
// kPanelDepth either hold whole quantization blocks or lie inside one (both are powers of two),
// and 8 consecutive k from a multiple of 8 always share a block.

// Panel rows [k0, k1) of columns [n0, n0 + cols), element by element (any g_idx); columns past
// `cols` are zero.
void DequantizePanelScalar(const MatMulNBitsPlan& p, const MatMulNBitsOperands& o, int64_t n0,
                           int64_t cols, int64_t k0, int64_t k1, float* panel) {
  const int64_t bs = p.attributes.block_size, bits = p.attributes.bits;
  for (int64_t j = 0; j < kPanelColumns; ++j) {
    const int64_t n = n0 + j;
    const uint8_t* column = o.b + n * p.k_blocks * p.blob_size;
    for (int64_t k = k0; k < k1; ++k) {
      float value = 0;
      if (j < cols) {
        const int64_t g = o.g_idx != nullptr ? o.g_idx[k] : k / bs;
        const float q =
            static_cast<float>(Quantized(column + (k / bs) * p.blob_size, k % bs, bits));
        value = (q - ZeroPoint(p, o.zero_points, n, g)) * o.scales[n * p.k_blocks + g];
      }
      panel[(k - k0) * kPanelColumns + j] = value;
    }
  }
}

// Scales and offsets of the blocks of a run of the panel, [block - first][column]: a run of
// kPanelDepth spans at most kPanelDepth / 16 blocks.
struct RunTable {
  static constexpr int64_t kRunBlocks = kPanelDepth / 16;
  alignas(64) float scales[kRunBlocks][kPanelColumns];
  alignas(64) float offsets[kRunBlocks][kPanelColumns];
  int64_t first = 0;  // the run's first block
};

// The table of the blocks of panel rows [k0, k1) of columns [n0, n0 + cols), offsets from
// o.offsets or 8 blocks at a time (BlockOffsetsAvx2); columns past `cols` get scale and offset 0.
__attribute__((target("avx2,fma"))) void FillRunTable(const MatMulNBitsPlan& p,
                                                       const MatMulNBitsOperands& o, int64_t n0,
                                                       int64_t cols, int64_t k0, int64_t k1,
                                                       RunTable& table) {
  const int64_t bs = p.attributes.block_size;
  const int64_t first = k0 / bs, blocks = (k1 - 1) / bs - first + 1;
  table.first = first;
  auto& scales = table.scales;
  auto& offsets = table.offsets;
  for (int64_t j = 0; j < kPanelColumns; ++j) {
    const int64_t n = n0 + j;
    for (int64_t run = 0; run < blocks; run += 8) {
      alignas(32) float column_offsets[8];
      if (j < cols && o.offsets == nullptr) BlockOffsetsAvx2(p, o, n, first + run, column_offsets);
      for (int64_t t = run; t < std::min(blocks, run + 8); ++t) {
        scales[t][j] = j < cols ? o.scales[n * p.k_blocks + first + t] : 0.0f;
        offsets[t][j] = j >= cols             ? 0.0f
                        : o.offsets != nullptr ? o.offsets[n * p.k_blocks + first + t]
                                               : column_offsets[t - run];
      }
    }
  }
}

// Panel rows [k_begin, k1) of panel columns [g, g + count) (column g + j packed at columns[j]),
// one by one from the run's table (k0 the run's first row): K's last rows past a multiple of 8.
void DequantizeTail(const MatMulNBitsPlan& p, const uint8_t* const* columns, int64_t g,
                    int64_t count, int64_t k0, int64_t k_begin, int64_t k1, const RunTable& table,
                    float* panel) {
  const int64_t bs = p.attributes.block_size, bits = p.attributes.bits;
  for (int64_t k = k_begin; k < k1; ++k) {
    const int64_t b = k / bs, t = b - table.first;
    for (int64_t j = 0; j < count; ++j) {
      const float q = static_cast<float>(Quantized(columns[j] + b * p.blob_size, k % bs, bits));
      panel[(k - k0) * kPanelColumns + g + j] =
          q * table.scales[t][g + j] + table.offsets[t][g + j];
    }
  }
}

// DequantizePanelScalar without a g_idx, with AVX2. Per 8 columns and 8 k (which share a block),
// lane j of one register holds column j's next 32 bits: 8 nibbles (4 bits) or 4 bytes (8 bits,
// two registers), so shifting the register right by 4t (or 8t) and masking gives row k + t of
// the panel for all 8 columns at once, with no transpose; each row becomes q * scale + offset
// with the columns' scales and offsets of that block in two registers, taken from the run's
// table (FillRunTable). Lanes of columns past `cols` read the last column (scale and offset 0).
__attribute__((target("avx2,fma"))) void DequantizePanelAvx2(const MatMulNBitsPlan& p,
                                                              const MatMulNBitsOperands& o,
                                                              int64_t n0, int64_t cols,
                                                              int64_t k0, int64_t k1,
                                                              float* panel) {
  const int64_t bs = p.attributes.block_size, bits = p.attributes.bits;
  const __m256i mask = _mm256_set1_epi32(bits == 4 ? 0x0F : 0xFF);
  const int64_t k_vector_end = k0 + (k1 - k0) / 8 * 8;
  RunTable table;
  FillRunTable(p, o, n0, cols, k0, k1, table);
  for (int64_t g = 0; g < kPanelColumns; g += 8) {
    const uint8_t* columns[8];
    for (int j = 0; j < 8; ++j) {
      columns[j] = o.b + std::min(n0 + g + j, n0 + cols - 1) * p.k_blocks * p.blob_size;
    }
    for (int64_t k = k0; k < k_vector_end; k += 8) {
      const int64_t b = k / bs, i = k % bs;
      const __m256 scale8 = _mm256_load_ps(&table.scales[b - table.first][g]);
      const __m256 offset8 = _mm256_load_ps(&table.offsets[b - table.first][g]);
      float* out = panel + (k - k0) * kPanelColumns + g;
      // Words 0 and 1 of each column: 8 nibbles in word 0 (4 bits), 4 bytes in each (8 bits).
      const int64_t byte = b * p.blob_size + i * bits / 8;
      const int words = bits == 4 ? 1 : 2;
      for (int w = 0; w < words; ++w) {
        alignas(32) int32_t lanes[8];
        for (int j = 0; j < 8; ++j) std::memcpy(&lanes[j], columns[j] + byte + 4 * w, 4);
        const __m256i packed = _mm256_load_si256(reinterpret_cast<const __m256i*>(lanes));
        const int per_word = 32 / static_cast<int>(bits);
        for (int t = 0; t < per_word; ++t) {
          const __m256i q = _mm256_and_si256(
              _mm256_srl_epi32(packed, _mm_cvtsi32_si128(t * static_cast<int>(bits))), mask);
          _mm256_store_ps(out + (w * per_word + t) * kPanelColumns,
                          _mm256_fmadd_ps(_mm256_cvtepi32_ps(q), scale8, offset8));
        }
      }
    }
    DequantizeTail(p, columns, g, 8, k0, k_vector_end, k1, table, panel);
  }
}

// DequantizePanelAvx2 for 4-bit weights with AVX-512: lane j of one register holds column j's
// next 8 nibbles for all 16 columns of the panel, so each shift gives a whole panel row, half the
// steps and loads of the 8-column registers.
__attribute__((target("avx512f,avx2,fma"))) void DequantizePanel4Avx512(
    const MatMulNBitsPlan& p, const MatMulNBitsOperands& o, int64_t n0, int64_t cols, int64_t k0,
    int64_t k1, float* panel) {
  constexpr __mmask16 kAll = 0xFFFF;  // masked forms: see StepAvx512
  const int64_t bs = p.attributes.block_size;
  const int64_t k_vector_end = k0 + (k1 - k0) / 8 * 8;
  RunTable table;
  FillRunTable(p, o, n0, cols, k0, k1, table);
  const uint8_t* columns[kPanelColumns];
  for (int64_t j = 0; j < kPanelColumns; ++j) {
    columns[j] = o.b + std::min(n0 + j, n0 + cols - 1) * p.k_blocks * p.blob_size;
  }
  const __m512i mask = _mm512_set1_epi32(0x0F);
  for (int64_t k = k0; k < k_vector_end; k += 8) {
    const int64_t b = k / bs, byte = b * p.blob_size + (k % bs) / 2;
    const __m512 scale = _mm512_load_ps(table.scales[b - table.first]);
    const __m512 offset = _mm512_load_ps(table.offsets[b - table.first]);
    alignas(64) int32_t lanes[kPanelColumns];
    for (int64_t j = 0; j < kPanelColumns; ++j) std::memcpy(&lanes[j], columns[j] + byte, 4);
    const __m512i packed = _mm512_load_si512(lanes);
    float* out = panel + (k - k0) * kPanelColumns;
    for (int t = 0; t < 8; ++t) {
      const __m512i q = _mm512_and_si512(
          _mm512_mask_srl_epi32(packed, kAll, packed, _mm_cvtsi32_si128(4 * t)), mask);
      _mm512_store_ps(out + t * kPanelColumns,
                      _mm512_fmadd_ps(_mm512_mask_cvtepi32_ps(_mm512_setzero_ps(), kAll, q),
                                      scale, offset));
    }
  }
  DequantizeTail(p, columns, 0, kPanelColumns, k0, k_vector_end, k1, table, panel);
}

// nn::SgemmTileAvx2's product with AVX-512: one 16-lane accumulator per row (a panel row is one
// register), so a tile of up to kTileRowsAvx512 rows keeps that many independent FMA chains; A's
// value is broadcast into each FMA. Columns past `cols` are masked off at the store.
template <int kRows>
__attribute__((target("avx512f,fma"))) void TileAvx512(const float* a, int64_t lda,
                                                       const float* panel, int64_t depth,
                                                       float* c, int64_t ldc, int64_t cols,
                                                       bool accumulate) {
  __m512 acc[kRows];
#pragma GCC unroll 12
  for (int r = 0; r < kRows; ++r) acc[r] = _mm512_setzero_ps();
  for (int64_t d = 0; d < depth; ++d) {
    const __m512 w = _mm512_load_ps(panel + d * kPanelColumns);
#pragma GCC unroll 12
    for (int r = 0; r < kRows; ++r) {
      acc[r] = _mm512_fmadd_ps(_mm512_set1_ps(a[r * lda + d]), w, acc[r]);
    }
  }
  const __mmask16 mask = static_cast<__mmask16>((1u << cols) - 1);
#pragma GCC unroll 12
  for (int r = 0; r < kRows; ++r) {
    float* row = c + r * ldc;
    const __m512 y = accumulate ? _mm512_add_ps(acc[r], _mm512_maskz_loadu_ps(mask, row)) : acc[r];
    _mm512_mask_storeu_ps(row, mask, y);
  }
}

// TileAvx512 for 1 to kTileRowsAvx512 rows.
void TileRowsAvx512(int64_t rows, const float* a, int64_t lda, const float* panel,
                    int64_t depth, float* c, int64_t ldc, int64_t cols, bool accumulate) {
  switch (rows) {  // kTileRowsAvx512 = 12
    case 1: TileAvx512<1>(a, lda, panel, depth, c, ldc, cols, accumulate); break;
    case 2: TileAvx512<2>(a, lda, panel, depth, c, ldc, cols, accumulate); break;
    case 3: TileAvx512<3>(a, lda, panel, depth, c, ldc, cols, accumulate); break;
    case 4: TileAvx512<4>(a, lda, panel, depth, c, ldc, cols, accumulate); break;
    case 5: TileAvx512<5>(a, lda, panel, depth, c, ldc, cols, accumulate); break;
    case 6: TileAvx512<6>(a, lda, panel, depth, c, ldc, cols, accumulate); break;
    case 7: TileAvx512<7>(a, lda, panel, depth, c, ldc, cols, accumulate); break;
    case 8: TileAvx512<8>(a, lda, panel, depth, c, ldc, cols, accumulate); break;
    case 9: TileAvx512<9>(a, lda, panel, depth, c, ldc, cols, accumulate); break;
    case 10: TileAvx512<10>(a, lda, panel, depth, c, ldc, cols, accumulate); break;
    case 11: TileAvx512<11>(a, lda, panel, depth, c, ldc, cols, accumulate); break;
    default: TileAvx512<12>(a, lda, panel, depth, c, ldc, cols, accumulate); break;
  }
}

// SgemmTileAvx2's product (nn/sgemm_avx2.h) in scalar code, for CPUs without AVX2.
void TileRowsScalar(int64_t rows, const float* a, int64_t lda, const float* panel,
                    int64_t depth, float* c, int64_t ldc, int64_t cols, bool accumulate) {
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < cols; ++j) {
      float sum = accumulate ? c[r * ldc + j] : 0.0f;
      for (int64_t d = 0; d < depth; ++d) sum += a[r * lda + d] * panel[d * kPanelColumns + j];
      c[r * ldc + j] = sum;
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
    if (math::Product(shape) == count) return Status::Ok();
    return MakeStatus(StatusCode::kInvalidArgument, "MatMulNBits: input ", what, " has shape ",
                      ShapeToString(shape), " (", math::Product(shape), " elements), expected ",
                      form, " = ", count, " elements");
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
  p.m = math::Product(a_shape) / k;
  p.output_shape.assign(a_shape.begin(), a_shape.end());
  p.output_shape.back() = n;
  p.direct = !p.g_idx && p.m <= kDirectRows;
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

void MatMulNBitsOffsets(const MatMulNBitsPlan& p, const MatMulNBitsOperands& o, float* offsets) {
  for (int64_t n = 0; n < p.attributes.n; ++n) {
    for (int64_t b = 0; b < p.k_blocks; ++b) {
      const int64_t i = n * p.k_blocks + b;
      offsets[i] = -ZeroPoint(p, o.zero_points, n, b) * o.scales[i];
    }
  }
}

void MatMulNBitsDirect(const MatMulNBitsPlan& p, const MatMulNBitsOperands& o, float* y,
                       int64_t n_begin, int64_t n_end) {
  const int64_t k = p.attributes.k, n_total = p.attributes.n;
  if (CpuHasAvx2() && CpuHasAvx512() && p.attributes.bits == 4) {
    ColumnRangeForRows<true>(p, o, y, n_begin, n_end);
  } else if (CpuHasAvx2()) {
    ColumnRangeForRows<false>(p, o, y, n_begin, n_end);
  } else {
    for (int64_t row = 0; row < p.m; ++row) {
      for (int64_t n = n_begin; n < n_end; ++n) {
        y[row * n_total + n] = ColumnScalar(p, o, o.a + row * k, n);
      }
    }
  }
  if (p.bias) {
    for (int64_t row = 0; row < p.m; ++row) {
      for (int64_t n = n_begin; n < n_end; ++n) y[row * n_total + n] += o.bias[n];
    }
  }
}

int64_t MatMulNBitsPanels(const MatMulNBitsPlan& p) {
  return (p.attributes.n + kPanelColumns - 1) / kPanelColumns;
}

void MatMulNBitsGemm(const MatMulNBitsPlan& p, const MatMulNBitsOperands& o, float* y,
                     int64_t panel_begin, int64_t panel_end) {
  const int64_t k = p.attributes.k, n_total = p.attributes.n;
  const bool avx2 = CpuHasAvx2();
  const bool avx512 = avx2 && CpuHasAvx512();
  const int64_t tile_rows = avx512 ? kTileRowsAvx512 : kTileRows;
  alignas(64) float panel[kPanelDepth * kPanelColumns];
  for (int64_t panel_index = panel_begin; panel_index < panel_end; ++panel_index) {
    const int64_t n0 = panel_index * kPanelColumns;
    const int64_t cols = std::min(kPanelColumns, n_total - n0);
    for (int64_t k0 = 0; k0 < k; k0 += kPanelDepth) {
      const int64_t k1 = std::min(k, k0 + kPanelDepth);
      if (avx512 && o.g_idx == nullptr && p.attributes.bits == 4) {
        DequantizePanel4Avx512(p, o, n0, cols, k0, k1, panel);
      } else if (avx2 && o.g_idx == nullptr) {
        DequantizePanelAvx2(p, o, n0, cols, k0, k1, panel);
      } else {
        DequantizePanelScalar(p, o, n0, cols, k0, k1, panel);
      }
      // As few tiles as tile_rows allows, of nearly equal rows (32 rows in tiles of 6:
      // 5,5,5,5,6,6, not 6,6,6,6,6,2, whose 2-row tile has too few accumulators to hide the FMA
      // latency).
      const int64_t tiles = (p.m + tile_rows - 1) / tile_rows;
      for (int64_t tile = 0, row = 0; tile < tiles; ++tile) {
        const int64_t rows = (p.m - row) / (tiles - tile);
        const float* a = o.a + row * k + k0;
        float* c = y + row * n_total + n0;
        if (avx512) {
          TileRowsAvx512(rows, a, k, panel, k1 - k0, c, n_total, cols, k0 > 0);
        } else if (avx2) {
          nn::SgemmTileAvx2(rows, a, k, panel, k1 - k0, c, n_total, cols, nullptr, k0 > 0);
        } else {
          TileRowsScalar(rows, a, k, panel, k1 - k0, c, n_total, cols, k0 > 0);
        }
        row += rows;
      }
    }
    if (p.bias) {
      for (int64_t row = 0; row < p.m; ++row) {
        for (int64_t j = n0; j < n0 + cols; ++j) y[row * n_total + j] += o.bias[j];
      }
    }
  }
}

}  // namespace nxrt::cpu::contrib
