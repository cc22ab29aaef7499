// ep/cpu/math/nn/gemv.cpp: see gemv.h. Layer: nxrt_cpu_math. The kernel is compiled for AVX-512F +
// FMA through a function attribute (the project targets baseline x86-64) and only called after
// CpuHasAvx512() (core/cpu_features.h) checked the CPU.
#include "ep/cpu/math/nn/gemv.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

namespace nxrt::cpu::nn {
namespace {

// One panel: out[0..63] = sum_k x[k] * panel[64k .. 64k+63] (+ bias). Two rows per step, each
// with its own four accumulators, so eight FMA chains hide the FMA latency.
__attribute__((target("avx512f,fma"))) void Panel(const float* x, const float* panel, int64_t k,
                                                  const float* bias, float* out) {
  __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
  __m512 b0 = a0, b1 = a0, b2 = a0, b3 = a0;
  int64_t r = 0;
  for (; r + 2 <= k; r += 2) {
    const float* row = panel + r * kGemvPanel;
    const __m512 x0 = _mm512_set1_ps(x[r]);
    const __m512 x1 = _mm512_set1_ps(x[r + 1]);
    a0 = _mm512_fmadd_ps(x0, _mm512_loadu_ps(row), a0);
    a1 = _mm512_fmadd_ps(x0, _mm512_loadu_ps(row + 16), a1);
    a2 = _mm512_fmadd_ps(x0, _mm512_loadu_ps(row + 32), a2);
    a3 = _mm512_fmadd_ps(x0, _mm512_loadu_ps(row + 48), a3);
    b0 = _mm512_fmadd_ps(x1, _mm512_loadu_ps(row + 64), b0);
    b1 = _mm512_fmadd_ps(x1, _mm512_loadu_ps(row + 80), b1);
    b2 = _mm512_fmadd_ps(x1, _mm512_loadu_ps(row + 96), b2);
    b3 = _mm512_fmadd_ps(x1, _mm512_loadu_ps(row + 112), b3);
  }
  if (r < k) {
    const float* row = panel + r * kGemvPanel;
    const __m512 x0 = _mm512_set1_ps(x[r]);
    a0 = _mm512_fmadd_ps(x0, _mm512_loadu_ps(row), a0);
    a1 = _mm512_fmadd_ps(x0, _mm512_loadu_ps(row + 16), a1);
    a2 = _mm512_fmadd_ps(x0, _mm512_loadu_ps(row + 32), a2);
    a3 = _mm512_fmadd_ps(x0, _mm512_loadu_ps(row + 48), a3);
  }
  a0 = _mm512_add_ps(a0, b0);
  a1 = _mm512_add_ps(a1, b1);
  a2 = _mm512_add_ps(a2, b2);
  a3 = _mm512_add_ps(a3, b3);
  if (bias != nullptr) {
    a0 = _mm512_add_ps(a0, _mm512_loadu_ps(bias));
    a1 = _mm512_add_ps(a1, _mm512_loadu_ps(bias + 16));
    a2 = _mm512_add_ps(a2, _mm512_loadu_ps(bias + 32));
    a3 = _mm512_add_ps(a3, _mm512_loadu_ps(bias + 48));
  }
  _mm512_storeu_ps(out, a0);
  _mm512_storeu_ps(out + 16, a1);
  _mm512_storeu_ps(out + 32, a2);
  _mm512_storeu_ps(out + 48, a3);
}

// Panel p of the product into y, through a local buffer for the last, partial panel.
void PanelInto(const float* x, const float* panels, int64_t k, int64_t n, int64_t panel_stride,
               const float* bias, float* y, int64_t p) {
  const int64_t first = p * kGemvPanel;
  const int64_t width = std::min(kGemvPanel, n - first);
  if (width == kGemvPanel) {
    Panel(x, panels + p * panel_stride, k, bias != nullptr ? bias + first : nullptr, y + first);
    return;
  }
  float padded_bias[kGemvPanel] = {};
  if (bias != nullptr) std::memcpy(padded_bias, bias + first, width * sizeof(float));
  float out[kGemvPanel];
  Panel(x, panels + p * panel_stride, k, bias != nullptr ? padded_bias : nullptr, out);
  std::memcpy(y + first, out, width * sizeof(float));
}

}  // namespace

void GemvPanels64(const float* x, const float* panels, int64_t k, int64_t n, int64_t panel_stride,
                  const float* bias, float* y, int64_t panel_begin, int64_t panel_end) {
  for (int64_t p = panel_begin; p < panel_end; ++p) {
    PanelInto(x, panels, k, n, panel_stride, bias, y, p);
  }
}

}  // namespace nxrt::cpu::nn
