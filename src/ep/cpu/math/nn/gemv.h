// ep/cpu/math/nn/gemv.h: one row times a packed constant matrix (MatMul/Gemm with M = 1) on
// AVX-512.
//
// Layer: nxrt_cpu_math, internal to matmul.cpp. oneDNN packs a constant B [K, N] for its matmul in
// 64-column panels (format BA16a64b: panel p holds columns 64p..64p+63, row k of it 64 floats at
// offset 64k, columns past N zero). With one row of A the product only streams B once; oneDNN's
// kernel for it splits poorly across threads (784x512 at 2 threads: 13.2 us, this one 10.4 us), is
// slow on a few columns (openWakeWord's 1536x64 at 1 thread: 8.6 -> 6.3 us here) and streams a
// weight matrix too large for the caches (GPT-2's 768x50257 head) slower too (5.8 -> 5.3 ms at
// 1 thread, 3.1 -> 2.7 ms at 2), so matmul.cpp takes this path for every one-row product with a
// packed B.
#pragma once

#include <cstdint>

namespace nxrt::cpu::nn {

// Output columns come in panels of this many.
constexpr int64_t kGemvPanel = 64;

// Panels [panel_begin, panel_end) of y = x @ B (+ bias): y[j] = sum_k x[k] * B(k, j) (+ bias[j])
// for the columns j < n of those panels, B in 64-column panels as above (panel p at `panels` +
// p * panel_stride floats). Panels are independent: callers spread them over threads. Only when
// CpuHasAvx512() (core/cpu_features.h).
void GemvPanels64(const float* x, const float* panels, int64_t k, int64_t n, int64_t panel_stride,
                  const float* bias, float* y, int64_t panel_begin, int64_t panel_end);

}  // namespace nxrt::cpu::nn
