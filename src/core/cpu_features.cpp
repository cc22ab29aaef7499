// core/cpu_features.cpp: see cpu_features.h.
#include "core/cpu_features.h"

namespace nxrt {

bool CpuHasAvx512() {
  static const bool available = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
  return available;
}

bool CpuHasAvx2Fma() {
  static const bool available = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return available;
}

}  // namespace nxrt
