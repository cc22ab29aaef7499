// tests/real_models.h: the real models of docs/testing.md and the inputs nxrt is judged on.
//
// Layer: test support, shared by the ORT oracle tests, the real-model suite and the benchmarks so
// that all of them feed the same shapes and value ranges. Models live in
// <NXRT_CACHE>/models/<name>.onnx (scripts/bootstrap.sh fetches them). Inputs are fixed-seed
// (ort_oracle/input_generator.h); the value ranges imitate what each model sees in its app:
//   PP-OCR det   image normalised with ImageNet mean/std: about [-2.1, 2.6]
//   PP-OCR rec   image scaled to [-1, 1]
//   Silero VAD   16 kHz audio in [-1, 1] (speech-like amplitude 0.5), zero initial state
//   openWakeWord mel input is raw int16-scale audio; the embedding model takes mel frames scaled
//                as openWakeWord does (x / 10 + 2); the wake-word head takes embedding features
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "nxrt/data_type.h"
#include "nxrt/input_generator.h"
#include "ort_oracle/reference_cache.h"

namespace nxrt::oracle {

struct RealModel {
  // File stem under <cache>/models, as in docs/testing.md and scripts/models.txt.
  std::string name;
  // Every graph input, complete (dtype, shape, values), in the model's declaration order.
  std::vector<InputSpec> inputs;
  // For stateful streaming: (output, input) pairs whose output feeds the next call's input.
  std::vector<std::pair<std::string, std::string>> state_feedback;
  // Tolerance when comparing float outputs with ONNX Runtime's.
  double rtol = 1e-4;
  double atol = 1e-5;

  std::filesystem::path path() const {
    return std::filesystem::path(CacheDirectory()) / "models" / (name + ".onnx");
  }
};

// The seven models, in the order of docs/testing.md.
inline const std::vector<RealModel>& RealModels() {
  using V = ValueDistribution;
  constexpr DataType kF32 = DataType::kFloat;
  constexpr DataType kI64 = DataType::kInt64;
  static const std::vector<RealModel> models = {
      {"ppocrv4_det", {{"x", kF32, Shape{1, 3, 480, 640}, V::Uniform(-2.1, 2.6)}}, {}},
      {"ppocrv4_rec", {{"x", kF32, Shape{1, 3, 48, 320}, V::Uniform(-1.0, 1.0)}}, {}},
      {"silero_vad_v5",
       {{"input", kF32, Shape{1, 512}, V::Uniform(-0.5, 0.5)},
        {"state", kF32, Shape{2, 1, 128}, V::Constant(0.0)},
        {"sr", kI64, Shape{}, V::Constant(16000)}},
       {{"stateN", "state"}}},
      {"silero_vad_v4_legacy",
       {{"input", kF32, Shape{1, 512}, V::Uniform(-0.5, 0.5)},
        {"sr", kI64, Shape{}, V::Constant(16000)},
        {"h", kF32, Shape{2, 1, 64}, V::Constant(0.0)},
        {"c", kF32, Shape{2, 1, 64}, V::Constant(0.0)}},
       {{"hn", "h"}, {"cn", "c"}}},
      {"oww_melspectrogram", {{"input", kF32, Shape{1, 1760}, V::Uniform(-3000.0, 3000.0)}}, {}},
      {"oww_embedding", {{"input_1", kF32, Shape{1, 76, 32, 1}, V::Uniform(-1.0, 3.0)}}, {}},
      {"oww_hey_jarvis", {{"x.1", kF32, Shape{1, 16, 96}, V::Uniform(-2.0, 2.0)}}, {}},
  };
  return models;
}

// The model named `name`, or nullptr.
inline const RealModel* FindRealModel(std::string_view name) {
  for (const RealModel& model : RealModels()) {
    if (model.name == name) return &model;
  }
  return nullptr;
}

// The fixed-seed inputs of `model`.
inline Result<std::vector<NamedTensor>> RealModelInputs(const RealModel& model,
                                                        uint64_t seed = 1) {
  return GenerateInputs(model.inputs, seed);
}

}  // namespace nxrt::oracle
