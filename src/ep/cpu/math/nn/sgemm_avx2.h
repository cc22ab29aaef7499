// ep/cpu/math/nn/sgemm_avx2.h: rows of A times B in 16-column panels, on AVX2 + FMA: the float
// MatMul/Gemm of two rows or more on CPUs without AVX-512.
//
// Layer: nxrt_cpu_math, internal to matmul.cpp and to the contrib attention's head products
// (contrib/attention.cpp, B as stored or transposed). Without AVX-512, oneDNN 2.6 runs a float
// matmul on its gemm:jit kernel, which reads B as stored and packs it again on every call; ONNX
// Runtime packs a constant B once. Here B [K, N] is packed once (oneDNN reorder to format BA16a16b,
// K and N padded to 16 with zeros: panel p holds columns 16p..16p+15, row k of it 16 floats at
// offset 16k) and each call only streams A. A B that changes per call (attention's products,
// batched) is read where it lies, 16 columns of a row at a time. The micro-kernel keeps a 6-row x
// 16-column tile of Y in twelve ymm accumulators (six broadcasts of A and two loads of B per 12
// FMAs). The columns run in blocks of kSgemmBlockN and K in blocks of kSgemmBlockK: one panel's K
// block (16 KiB) stays in L1 while every row tile of A passes over it, and A's K block stays in L2.
// M is cut into as few tiles as 6 rows allow, of nearly equal rows (128 rows: 18 of 6 and 4 of 5,
// not a last tile of 2 that leaves FMA slots idle).
#pragma once

#include <cstdint>

namespace nxrt::cpu::nn {

// Columns per panel of the packed B, and rows of A per register tile.
constexpr int64_t kSgemmPanel = 16;
constexpr int64_t kSgemmTileRows = 6;
// Rows of A up to which a transposed B is read by dot products (SgemmB).
constexpr int64_t kSgemmDotRows = 3;
// K block and column block of the loops.
constexpr int64_t kSgemmBlockK = 256;
constexpr int64_t kSgemmBlockN = 256;

// One register tile: y[r, j] (+)= sum_d a[r * lda + d] * panel[d * 16 + j] for rows
// r < rows (1 to kSgemmTileRows) and columns j < cols (at most 16; the panel is read whole, the
// other columns are not written). `accumulate`: add to what y holds (a later run of K); else start
// from `init` (cols floats added to every row, e.g. the bias at these columns) or from zero. Also
// the register tile of MatMulNBits' blocked product (contrib/matmul_nbits.cpp), over weights it
// dequantizes into a panel. Only when CpuHasAvx2().
void SgemmTileAvx2(int64_t rows, const float* a, int64_t lda, const float* panel, int64_t depth,
                   float* y, int64_t ldy, int64_t cols, const float* init, bool accumulate);

// Where B(p, j) is: data + (j / 16) * panel_stride + p * row_stride + j % 16. B packed in
// panels as above: row_stride 16, panel_stride >= 16 K. B as stored, row-major with row stride
// ldb: panel_stride 16, row_stride ldb (its last, partial panel is copied into a zero-padded
// buffer on the stack, one K block at a time, so no read passes the end of a row). With
// `transposed`, B is given as its transpose [N, K], row-major with row stride row_stride
// (attention's keys in Q Kt): B(p, j) = data[j * row_stride + p], panel_stride unused. Then
// with up to kSgemmDotRows rows of A (a decode step's one query per head) each y[i, j] is a dot
// product of A's row and B's given row (a transposed panel would serve too few rows to pay for
// the transposing); with more rows each panel is transposed into the stack buffer, one K block
// at a time, for the register tiles.
struct SgemmB {
  const float* data = nullptr;
  int64_t panel_stride = 0;
  int64_t row_stride = kSgemmPanel;
  bool transposed = false;
};

// y[i, j] = sum_p a[i * lda + p] * B(p, j) (+ bias[j]) for rows i < m and columns
// col_begin <= j < col_end (col_begin a multiple of kSgemmPanel, col_end <= N), y row-major with
// row stride ldy. `bias` ([N]) may be null. Column ranges are independent: callers spread them
// over threads. K = 0 writes the bias (or zeros). Only when CpuHasAvx2() (core/cpu_features.h).
void SgemmAvx2(const float* a, int64_t lda, int64_t m, int64_t k, const SgemmB& b,
               const float* bias, float* y, int64_t ldy, int64_t col_begin, int64_t col_end);

}  // namespace nxrt::cpu::nn
