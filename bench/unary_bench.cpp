// bench/unary_bench.cpp: single-thread time of the float32 transcendental unary kernels.
//
// Each case runs one op of ep/cpu/math/elementwise/unary.h (PrepareUnary once, RunUnary timed) over
// 512 x 3072 = 1,572,864 floats (BERT-base's FFN activation at sequence length 512) drawn
// uniformly from [-6, 6]. Reports bytes/s over input + output.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "ep/cpu/math/elementwise/unary.h"

namespace nxrt::cpu::math {
namespace {

constexpr int64_t kCount = 512 * 3072;

void RunKind(benchmark::State& state, UnaryKind kind, bool gelu_tanh) {
  std::vector<float> in(kCount);
  std::vector<float> out(kCount);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-6.0f, 6.0f);
  for (float& v : in) v = dist(rng);
  UnaryAttrs attrs = DefaultUnaryAttrs(kind);
  attrs.gelu_tanh = gelu_tanh;
  const UnaryPlan plan = PrepareUnary(kind, DataType::kFloat, attrs).value();
  for (auto _ : state) {
    RunUnary(plan, in.data(), out.data(), kCount);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * kCount * 2 * static_cast<int64_t>(sizeof(float)));
}

void BM_Erf(benchmark::State& state) { RunKind(state, UnaryKind::kErf, false); }
void BM_Tanh(benchmark::State& state) { RunKind(state, UnaryKind::kTanh, false); }
void BM_Sigmoid(benchmark::State& state) { RunKind(state, UnaryKind::kSigmoid, false); }
void BM_GeluErf(benchmark::State& state) { RunKind(state, UnaryKind::kGelu, false); }
void BM_GeluTanh(benchmark::State& state) { RunKind(state, UnaryKind::kGelu, true); }
void BM_Mish(benchmark::State& state) { RunKind(state, UnaryKind::kMish, false); }

BENCHMARK(BM_Erf)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Tanh)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Sigmoid)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GeluErf)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GeluTanh)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Mish)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace nxrt::cpu::math

BENCHMARK_MAIN();
