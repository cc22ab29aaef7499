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
//
// With NXRT_FUZZ_PLUGIN set to a plugin EP library, the session lists it before the CPU EP (with
// fallback), so the graph projection a plugin reads is fuzzed too; NXRT_FAULT_SEED is set from
// the input's hash for each case, which the random_groups fault fixture (plugins/faults) draws
// its groups from (CTest fuzz_campaign_plugin).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
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
  if (const char* plugin = std::getenv("NXRT_FUZZ_PLUGIN"); plugin != nullptr && *plugin != 0) {
    setenv("NXRT_FAULT_SEED", std::to_string(seed).c_str(), 1);
    options.providers.push_back(nxrt::EpSpec{std::string("plugin:") + plugin, {}, {}, {}});
  }
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
