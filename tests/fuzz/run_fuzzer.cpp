// tests/fuzz/run_fuzzer.cpp: libFuzzer target for load + run: the bytes as a model, a session on
// the CPU EP (optimisation level 0, 1 or 2 chosen from the bytes), fixed-seed inputs for its
// declared inputs, and two runs (the second reuses the session's kernels and arena), each under
// a 5 s run_time_limit_ms and a 1 GiB run_memory_limit_bytes (as a service running untrusted
// models would set them: a Conv padded by 2^31 rows then fails at once instead of computing
// 13 GB). The replay binary runs each file at all three levels. Every failure
// must be a Status; a crash, sanitizer report, leak or hang is a finding. External data resolves
// against the empty working folder fuzz_target.h moves to.
//
// Inputs are kept small: symbolic and unknown dims are 2, at most kMaxInputElements elements per
// input.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "nxrt/session.h"
#include "nxrt/input_generator.h"
#include "fuzz_target.h"

namespace {

constexpr int64_t kMaxInputElements = int64_t{1} << 16;

// Concrete shapes for the declared inputs: fixed dims as given, every other dim 2.
bool InputSpecs(const std::vector<nxrt::ValueInfo>& inputs, std::vector<nxrt::InputSpec>& specs) {
  for (const nxrt::ValueInfo& input : inputs) {
    if (input.kind != nxrt::ValueKind::kTensor || input.dtype == nxrt::DataType::kUndefined) {
      return false;
    }
    nxrt::Shape shape;
    int64_t count = 1;
    for (const nxrt::DimInfo& dim : input.shape.value_or(std::vector<nxrt::DimInfo>{})) {
      const int64_t size = dim.is_fixed() ? dim.value : 2;
      if (size < 0 || size > kMaxInputElements) return false;
      count *= size;
      if (count > kMaxInputElements) return false;
      shape.push_back(size);
    }
    nxrt::InputSpec spec;
    spec.name = input.name;
    spec.dtype = input.dtype;
    spec.shape = shape;
    spec.values = nxrt::ValueDistribution::Uniform(-3.0, 3.0);
    specs.push_back(std::move(spec));
  }
  return true;
}

void LoadAndRun(std::span<const std::byte> bytes, int optimization_level, uint32_t seed) {
  nxrt::SessionOptions options;
  options.intra_op_threads = 1;
  options.optimization_level = optimization_level;
  // A run that takes seconds (a Loop of 2^62 trips) ends with kDeadlineExceeded, well within
  // libFuzzer's -timeout=20 (fuzz.sh): the limit's path is fuzzed, and slow models are no hangs.
  options.run_time_limit_ms = 5000;
  options.run_memory_limit_bytes = int64_t{1} << 30;
  nxrt::Result<std::unique_ptr<nxrt::Session>> session =
      nxrt::Session::CreateFromBytes(bytes, options);
  if (!session.ok()) {
    nxrt::fuzz::CheckMessage(session.status());
    return;
  }
  std::vector<nxrt::InputSpec> specs;
  if (!InputSpecs((*session)->inputs(), specs)) return;
  nxrt::Result<std::vector<nxrt::NamedTensor>> inputs = nxrt::GenerateInputs(specs, seed);
  if (!inputs.ok()) return;
  for (int run = 0; run < 2; ++run) {
    nxrt::Result<std::vector<nxrt::NamedTensor>> outputs = (*session)->Run(*inputs);
    nxrt::fuzz::CheckMessage(outputs.status());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  uint32_t hash = 2166136261u;
  for (size_t i = 0; i < size; ++i) hash = (hash ^ data[i]) * 16777619u;
  const std::span bytes(reinterpret_cast<const std::byte*>(data), size);
#ifdef NXRT_LIBFUZZER
  LoadAndRun(bytes, static_cast<int>(hash % 3), hash);
#else
  // Replaying a regression file: every optimisation level (some crashes need level 0, where no
  // type inference runs, others a fusion of level 2).
  for (int level = 0; level <= 2; ++level) LoadAndRun(bytes, level, hash);
#endif
  return 0;
}
