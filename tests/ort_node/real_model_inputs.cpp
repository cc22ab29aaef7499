// tests/ort_node/real_model_inputs.cpp: writes the fixed-seed inputs of the real models
// (tests/real_models.h, the same ones every real-model suite feeds) for the onnxruntime-node
// test: <out>/models.json, and one raw little-endian file per input tensor.
//
//   real_model_inputs OUT_DIR
//
// models.json: {"models": [{"name", "path", "rtol", "atol", "state_feedback": [[output, input]],
// "inputs": [{"name", "type" (onnxruntime-node's: "float32", "int64", ...), "dims", "file"}]}]}.
// Models missing from the cache are left out and named on stderr.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "real_models.h"

namespace {

// onnxruntime-node's name for an element type (its Tensor constructor's first argument).
const char* JsType(nxrt::DataType type) {
  switch (type) {
    case nxrt::DataType::kFloat: return "float32";
    case nxrt::DataType::kDouble: return "float64";
    case nxrt::DataType::kFloat16: return "float16";
    case nxrt::DataType::kInt8: return "int8";
    case nxrt::DataType::kUint8: return "uint8";
    case nxrt::DataType::kInt16: return "int16";
    case nxrt::DataType::kUint16: return "uint16";
    case nxrt::DataType::kInt32: return "int32";
    case nxrt::DataType::kUint32: return "uint32";
    case nxrt::DataType::kInt64: return "int64";
    case nxrt::DataType::kUint64: return "uint64";
    case nxrt::DataType::kBool: return "bool";
    default: return nullptr;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
    return 2;
  }
  const std::filesystem::path out = argv[1];
  std::filesystem::create_directories(out);
  nlohmann::json models = nlohmann::json::array();
  for (const nxrt::oracle::RealModel& model : nxrt::oracle::RealModels()) {
    if (!std::filesystem::exists(model.path())) {
      std::fprintf(stderr, "real_model_inputs: %s is not in the cache (run scripts/bootstrap.sh)\n",
                   model.path().c_str());
      continue;
    }
    nxrt::Result<std::vector<nxrt::NamedTensor>> inputs = nxrt::oracle::RealModelInputs(model);
    if (!inputs.ok()) {
      std::fprintf(stderr, "real_model_inputs: %s: %s\n", model.name.c_str(),
                   inputs.status().message().c_str());
      return 1;
    }
    nlohmann::json entry{{"name", model.name}, {"path", model.path().string()},
                         {"rtol", model.rtol}, {"atol", model.atol},
                         {"state_feedback", model.state_feedback}, {"inputs", nlohmann::json::array()}};
    for (const nxrt::NamedTensor& input : *inputs) {
      const char* type = JsType(input.tensor.dtype());
      if (type == nullptr) {
        std::fprintf(stderr, "real_model_inputs: %s input %s has a type onnxruntime-node cannot "
                     "feed\n", model.name.c_str(), input.name.c_str());
        return 1;
      }
      const std::string file = model.name + "." + input.name + ".bin";
      std::ofstream bytes(out / file, std::ios::binary);
      bytes.write(static_cast<const char*>(input.tensor.raw_data()),
                  static_cast<std::streamsize>(input.tensor.byte_size()));
      entry["inputs"].push_back({{"name", input.name}, {"type", type},
                                 {"dims", input.tensor.shape()}, {"file", file}});
    }
    models.push_back(std::move(entry));
  }
  std::ofstream(out / "models.json") << nlohmann::json{{"models", models}}.dump(1);
  return 0;
}
