// core/cpu_features.h: what the CPU nxrt runs on can do, for kernels that dispatch at run time.
//
// Layer: nxrt_core. nxrt compiles for baseline x86-64; its hand-written AVX-512 loops (GEMV,
// channels-last max pool, Softmax rows), AVX2 loops (quantization), the AVX-512 / AVX2 builds of
// elementwise loops (ep/cpu/math/simd_map.h) and the AVX-512 or AVX2+F16C half-precision
// conversions (math/half_convert.h) are function-attribute builds called only when this says the
// CPU runs them.
//
// NXRT_MAX_ISA caps what these report, read once per process, so that the narrower paths can be
// tested and benchmarked on a wider CPU: `avx2` turns off AVX-512 and VNNI (AVX-VNNI included,
// as ONEDNN_MAX_CPU_ISA=AVX2 does for oneDNN), `sse2` also AVX2 and F16C; unset or empty: no cap.
// Another value is ignored with a message on stderr. It never claims what the CPU lacks. To run
// all of nxrt as on an AVX2 CPU, set ONEDNN_MAX_CPU_ISA=AVX2 too (oneDNN's kernels).
#pragma once

namespace nxrt {

// True when the CPU runs AVX-512F with FMA (cpuid, checked once).
bool CpuHasAvx512();

// True when the CPU runs AVX2 with FMA (cpuid, checked once): the integer products' epilogues,
// QuantizeLinear and DynamicQuantizeLinear (math/quant/), the QLinear contrib ops
// (math/contrib/qlinear.h), simd_map.h's AVX2 builds and MatMulNBits' packed-weight loops.
bool CpuHasAvx2();

// True when the CPU runs AVX512-VNNI or AVX-VNNI (cpuid, checked once): there ONNX Runtime's and
// oneDNN's uint8 x int8 products are exact; without it they add pairs of products into a
// saturating int16 (math/quant/quant.h).
bool CpuHasVnni();

// True when the CPU runs AVX2 and F16C (8-lane float16 conversions; cpuid, checked once).
bool CpuHasAvx2F16c();

}  // namespace nxrt
