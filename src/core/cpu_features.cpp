// core/cpu_features.cpp: see cpu_features.h.
#include "core/cpu_features.h"

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace nxrt {
namespace {

// The widest instruction set the environment allows (NXRT_MAX_ISA, read once).
enum class IsaCap { kNone, kAvx2, kBaseline };

IsaCap ReadIsaCap() {
  const char* value = std::getenv("NXRT_MAX_ISA");
  if (value == nullptr || *value == '\0') return IsaCap::kNone;
  const std::string_view v(value);
  if (v == "avx2") return IsaCap::kAvx2;
  if (v == "sse2") return IsaCap::kBaseline;
  std::fprintf(stderr,
               "nxrt: NXRT_MAX_ISA='%s' is not a known cap and is ignored; use avx2 or sse2\n",
               value);
  return IsaCap::kNone;
}

IsaCap Cap() {
  static const IsaCap cap = ReadIsaCap();
  return cap;
}

}  // namespace

bool CpuHasAvx512() {
  static const bool available = Cap() == IsaCap::kNone && __builtin_cpu_supports("avx512f") &&
                                __builtin_cpu_supports("fma");
  return available;
}

bool CpuHasAvx2() {
  static const bool available = Cap() != IsaCap::kBaseline && __builtin_cpu_supports("avx2") &&
                                __builtin_cpu_supports("fma");
  return available;
}

bool CpuHasVnni() {
  static const bool available =
      Cap() == IsaCap::kNone &&
      (__builtin_cpu_supports("avx512vnni") || __builtin_cpu_supports("avxvnni"));
  return available;
}

bool CpuHasAvx2F16c() {
  static const bool available = Cap() != IsaCap::kBaseline && __builtin_cpu_supports("avx2") &&
                                __builtin_cpu_supports("f16c");
  return available;
}

}  // namespace nxrt
