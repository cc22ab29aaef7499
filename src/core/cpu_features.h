// core/cpu_features.h: what the CPU nxrt runs on can do, for kernels that dispatch at run time.
//
// Layer: nxrt_core. nxrt compiles for baseline x86-64; its hand-written AVX-512 loops (GEMV,
// channels-last max pool, Softmax rows) and the AVX-512 / AVX2 builds of elementwise loops
// (ep/cpu/math/simd_map.h) are function-attribute builds called only when this says the CPU runs
// them.
#pragma once

namespace nxrt {

// True when the CPU runs AVX-512F with FMA (cpuid, checked once).
bool CpuHasAvx512();

// True when the CPU runs AVX2 with FMA (cpuid, checked once).
bool CpuHasAvx2();

}  // namespace nxrt
