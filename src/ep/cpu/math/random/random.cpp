// ep/cpu/math/random/random.cpp: see random.h.
#include "ep/cpu/math/random/random.h"

#include <bit>
#include <cmath>
#include <numbers>

namespace nxrt::cpu::math {
namespace {

uint64_t SeedValue(std::optional<uint64_t> seed) {
  if (seed) return *seed;
  std::random_device device;
  return (static_cast<uint64_t>(device()) << 32) ^ device();
}

}  // namespace

uint64_t SeedFromFloat(float seed) { return std::bit_cast<uint32_t>(seed); }

RandomEngine::RandomEngine(std::optional<uint64_t> seed) : engine_(SeedValue(seed)) {}

double RandomEngine::Uniform() {
  return static_cast<double>(engine_() >> 11) * 0x1.0p-53;
}

double RandomEngine::Normal() {
  if (spare_normal_) {
    const double value = *spare_normal_;
    spare_normal_.reset();
    return value;
  }
  // 1 - Uniform() is in (0, 1], so the logarithm is finite.
  const double radius = std::sqrt(-2.0 * std::log(1.0 - Uniform()));
  const double angle = 2.0 * std::numbers::pi * Uniform();
  spare_normal_ = radius * std::sin(angle);
  return radius * std::cos(angle);
}

}  // namespace nxrt::cpu::math
