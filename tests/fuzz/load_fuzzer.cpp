// tests/fuzz/load_fuzzer.cpp: libFuzzer target for the ONNX loader: bytes -> ModelProto -> the
// validator, libonnx's type inference, the graph builder and GraphView, as Session::Create runs
// them. Mutations are structure-aware (tests/fuzz/onnx_mutator.h).
//
// External data is resolved against an empty folder made for the process: a model that reads
// anything must fail to find it, never reach outside.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>

#include "ir/onnx_loader.h"
#include "fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  nxrt::ir::LoadOptions options;
  options.infer_types = true;
  options.external_data_dir = nxrt::fuzz::EmptyFolder();
  nxrt::Result<nxrt::ir::Model> model = nxrt::ir::LoadModelFromBytes(
      std::span(reinterpret_cast<const std::byte*>(data), size), options);
  nxrt::fuzz::CheckMessage(model.status());
  return 0;
}
