// ep/cpu/math/nn/sgemm_avx2.cpp: see sgemm_avx2.h. Layer: nxrt_cpu_math. The kernels are compiled
// for AVX2 + FMA through function attributes (the project targets baseline x86-64) and only called
// after CpuHasAvx2() (core/cpu_features.h) checked the CPU.
#include "ep/cpu/math/nn/sgemm_avx2.h"

#include <immintrin.h>

#include <algorithm>

namespace nxrt::cpu::nn {
namespace {

// Lanes [0, width) of a 16-column tile's two halves, as maskload/maskstore masks.
struct ColumnMasks {
  __m256i lo, hi;
};

__attribute__((target("avx2"))) ColumnMasks MasksFor(int64_t width) {
  const __m256i w = _mm256_set1_epi32(static_cast<int>(width));
  return {_mm256_cmpgt_epi32(w, _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)),
          _mm256_cmpgt_epi32(w, _mm256_setr_epi32(8, 9, 10, 11, 12, 13, 14, 15))};
}

// SgemmTileAvx2 for R rows, panel rows `ldp` floats apart. The unrolled row loops keep the 2R
// accumulators in registers (GCC otherwise spills them); the K loop is unrolled 4 times to spare
// loop overhead.
template <int R>
__attribute__((target("avx2,fma"))) void Tile(const float* a, int64_t lda, const float* panel,
                                              int64_t ldp, int64_t kl, float* y, int64_t ldy,
                                              int64_t width, const float* init, bool accumulate) {
  __m256 lo[R], hi[R];
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r) lo[r] = hi[r] = _mm256_setzero_ps();
#pragma GCC unroll 4
  for (int64_t p = 0; p < kl; ++p) {
    const __m256 b0 = _mm256_loadu_ps(panel + p * ldp);
    const __m256 b1 = _mm256_loadu_ps(panel + p * ldp + 8);
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) {
      const __m256 av = _mm256_broadcast_ss(a + r * lda + p);
      lo[r] = _mm256_fmadd_ps(av, b0, lo[r]);
      hi[r] = _mm256_fmadd_ps(av, b1, hi[r]);
    }
  }
  if (width == kSgemmPanel) {
    __m256 init_lo = _mm256_setzero_ps(), init_hi = init_lo;
    if (!accumulate && init != nullptr) {
      init_lo = _mm256_loadu_ps(init);
      init_hi = _mm256_loadu_ps(init + 8);
    }
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) {
      float* row = y + r * ldy;
      if (accumulate) {
        init_lo = _mm256_loadu_ps(row);
        init_hi = _mm256_loadu_ps(row + 8);
      }
      _mm256_storeu_ps(row, _mm256_add_ps(lo[r], init_lo));
      _mm256_storeu_ps(row + 8, _mm256_add_ps(hi[r], init_hi));
    }
    return;
  }
  const ColumnMasks mask = MasksFor(width);
  __m256 init_lo = _mm256_setzero_ps(), init_hi = init_lo;
  if (!accumulate && init != nullptr) {
    init_lo = _mm256_maskload_ps(init, mask.lo);
    init_hi = _mm256_maskload_ps(init + 8, mask.hi);
  }
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r) {
    float* row = y + r * ldy;
    if (accumulate) {
      init_lo = _mm256_maskload_ps(row, mask.lo);
      init_hi = _mm256_maskload_ps(row + 8, mask.hi);
    }
    _mm256_maskstore_ps(row, mask.lo, _mm256_add_ps(lo[r], init_lo));
    _mm256_maskstore_ps(row + 8, mask.hi, _mm256_add_ps(hi[r], init_hi));
  }
}

// y[i * ldy + j] = a_i . bt_j (+ bias[j]) for rows i < m and columns [col_begin, col_end), with
// bt_j = bt + j * ldb, K floats each: two 8-lane accumulators over K, its last K % 8 floats
// through masked loads, one horizontal sum per output.
__attribute__((target("avx2,fma"))) void DotRows(const float* a, int64_t lda, int64_t m,
                                                 int64_t k, const float* bt, int64_t ldb,
                                                 const float* bias, float* y, int64_t ldy,
                                                 int64_t col_begin, int64_t col_end) {
  const int64_t k8 = k / 8 * 8;
  const __m256i tail = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(k - k8)),
                                          _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  for (int64_t i = 0; i < m; ++i) {
    const float* row = a + i * lda;
    for (int64_t j = col_begin; j < col_end; ++j) {
      const float* column = bt + j * ldb;
      __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
      int64_t p = 0;
      for (; p + 16 <= k; p += 16) {
        acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(row + p), _mm256_loadu_ps(column + p), acc0);
        acc1 = _mm256_fmadd_ps(_mm256_loadu_ps(row + p + 8), _mm256_loadu_ps(column + p + 8),
                               acc1);
      }
      if (p < k8) {
        acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(row + p), _mm256_loadu_ps(column + p), acc0);
      }
      if (k8 < k) {
        acc1 = _mm256_fmadd_ps(_mm256_maskload_ps(row + k8, tail),
                               _mm256_maskload_ps(column + k8, tail), acc1);
      }
      const __m256 sum8 = _mm256_add_ps(acc0, acc1);
      __m128 sum4 = _mm_add_ps(_mm256_castps256_ps128(sum8), _mm256_extractf128_ps(sum8, 1));
      sum4 = _mm_add_ps(sum4, _mm_movehl_ps(sum4, sum4));
      sum4 = _mm_add_ss(sum4, _mm_movehdup_ps(sum4));
      y[i * ldy + j] = _mm_cvtss_f32(sum4) + (bias != nullptr ? bias[j] : 0.0f);
    }
  }
}

using TileFn = void (*)(const float*, int64_t, const float*, int64_t, int64_t, float*, int64_t,
                        int64_t, const float*, bool);
constexpr TileFn kTiles[kSgemmTileRows + 1] = {nullptr, Tile<1>, Tile<2>, Tile<3>,
                                               Tile<4>, Tile<5>, Tile<6>};

}  // namespace

void SgemmTileAvx2(int64_t rows, const float* a, int64_t lda, const float* panel, int64_t depth,
                   float* y, int64_t ldy, int64_t cols, const float* init, bool accumulate) {
  kTiles[std::clamp<int64_t>(rows, 1, kSgemmTileRows)](a, lda, panel, kSgemmPanel, depth, y, ldy,
                                                      cols, init, accumulate);
}

void SgemmAvx2(const float* a, int64_t lda, int64_t m, int64_t k, const SgemmB& b,
               const float* bias, float* y, int64_t ldy, int64_t col_begin, int64_t col_end) {
  if (b.transposed && m <= kSgemmDotRows) {
    DotRows(a, lda, m, k, b.data, b.row_stride, bias, y, ldy, col_begin, col_end);
    return;
  }
  const int64_t tiles = (m + kSgemmTileRows - 1) / kSgemmTileRows;
  // A partial panel of B as stored, or a panel of a transposed B.
  alignas(32) float tail[kSgemmBlockK * kSgemmPanel];
  for (int64_t nb = col_begin; nb < col_end; nb += kSgemmBlockN) {
    const int64_t nb_end = std::min(col_end, nb + kSgemmBlockN);
    // K = 0 still passes once, writing the bias or zeros.
    for (int64_t kb = 0; kb == 0 || kb < k; kb += kSgemmBlockK) {
      const int64_t kl = std::min(kSgemmBlockK, k - kb);
      for (int64_t j = nb; j < nb_end; j += kSgemmPanel) {
        const int64_t width = std::min(kSgemmPanel, nb_end - j);
        const float* panel = tail;
        int64_t ldp = kSgemmPanel;
        if (b.transposed) {
          if (width < kSgemmPanel) std::fill(tail, tail + kl * kSgemmPanel, 0.0f);
          for (int64_t c = 0; c < width; ++c) {
            const float* column = b.data + (j + c) * b.row_stride + kb;
            for (int64_t p = 0; p < kl; ++p) tail[p * kSgemmPanel + c] = column[p];
          }
        } else {
          const float* stored = b.data + (j / kSgemmPanel) * b.panel_stride + kb * b.row_stride;
          if (b.row_stride != kSgemmPanel && width < kSgemmPanel) {
            std::fill(tail, tail + kl * kSgemmPanel, 0.0f);
            for (int64_t p = 0; p < kl; ++p) {
              std::copy(stored + p * b.row_stride, stored + p * b.row_stride + width,
                        tail + p * kSgemmPanel);
            }
          } else {
            panel = stored;
            ldp = b.row_stride;
          }
        }
        for (int64_t t = 0; t < tiles; ++t) {
          // Tile t holds rows [m t / tiles, m (t + 1) / tiles): sizes differ by at most one.
          const int64_t i = m * t / tiles, rows = m * (t + 1) / tiles - i;
          kTiles[rows](a + i * lda + kb, lda, panel, ldp, kl, y + i * ldy + j, ldy, width,
                       bias != nullptr ? bias + j : nullptr, kb > 0);
        }
      }
    }
  }
}

}  // namespace nxrt::cpu::nn
