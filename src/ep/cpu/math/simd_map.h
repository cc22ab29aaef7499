// ep/cpu/math/simd_map.h: loops built for AVX-512, AVX2 and baseline x86-64, the widest the CPU
// runs picked at run time.
//
// Layer: nxrt_cpu_math (header only). nxrt compiles for baseline x86-64 (SSE2: 4 floats per
// instruction). CallWidest(fn) calls fn from one of three builds of a small function: with the
// target attributes "avx512f,fma" (16 floats per instruction), "avx2,fma" (8), or none, the
// widest CpuHasAvx512 / CpuHasAvx2 (core/cpu_features.h) allow. Each build is `flatten`: fn's
// inline body and everything it calls inline (the branch-free functions of fast_exp.h and
// fast_math.h) compile into it for that target, so GCC vectorises fn's loops that wide. The
// builds compute the same formula; GCC may contract a multiply and an add into one FMA in the
// wider ones, so results can differ from the baseline build's in the last bit.
#pragma once

#include <cstdint>

#include "core/cpu_features.h"

namespace nxrt::cpu::math {

namespace simd_map_internal {

template <typename Fn>
__attribute__((target("avx512f,fma"), flatten)) void CallAvx512(const Fn& fn) {
  fn();
}

template <typename Fn>
__attribute__((target("avx2,fma"), flatten)) void CallAvx2(const Fn& fn) {
  fn();
}

}  // namespace simd_map_internal

// fn() in the widest build the CPU runs.
template <typename Fn>
void CallWidest(const Fn& fn) {
  if (CpuHasAvx512()) {
    simd_map_internal::CallAvx512(fn);
  } else if (CpuHasAvx2()) {
    simd_map_internal::CallAvx2(fn);
  } else {
    fn();
  }
}

// y[i] = op(x[i]) for i < count, in the widest build. Input and output may be the same buffer.
template <typename Op, typename TI, typename TO>
void MapElements(const Op& op, const TI* x, TO* y, int64_t count) {
  CallWidest([&] {
    for (int64_t i = 0; i < count; ++i) y[i] = op(x[i]);
  });
}

}  // namespace nxrt::cpu::math
