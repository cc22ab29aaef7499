// ep/cpu/math/random/random.h: the seeded generator of the CPU EP's random ops
// (RandomUniform[Like], RandomNormal[Like], Bernoulli, Multinomial, Dropout in training mode).
//
// Layer: nxrt_cpu_math (framework-free reference math of the CPU EP; no IR, no EP API).
// One RandomEngine per kernel: a 64-bit Mersenne Twister (std::mt19937_64, whose sequence the C++
// standard fixes, so a seed gives the same numbers on every platform). Uniform doubles take the
// top 53 bits of one draw; normal ones come from the Box-Muller transform of two uniforms. ONNX
// gives a seed as an attribute "seed" (a float for the generator ops, an int for Dropout); without
// one the ops must still run, so the engine is then seeded from std::random_device. No op's outputs
// can match ONNX's backend test data, which NumPy's generator produced.
#pragma once

#include <cstdint>
#include <optional>
#include <random>

namespace nxrt::cpu::math {

// A float seed attribute as an engine seed: its bits (so 0.5 and 1.5, or 0.0 and -0.0, differ).
uint64_t SeedFromFloat(float seed);

class RandomEngine {
 public:
  // Seeded with `seed` when given, else from std::random_device.
  explicit RandomEngine(std::optional<uint64_t> seed);

  // Uniform in [0, 1).
  double Uniform();
  // Standard normal (mean 0, variance 1).
  double Normal();

 private:
  std::mt19937_64 engine_;
  std::optional<double> spare_normal_;  // Box-Muller's second value
};

}  // namespace nxrt::cpu::math
