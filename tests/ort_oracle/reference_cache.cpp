// ort_oracle/reference_cache.cpp: the on-disk cache of ORT reference outputs (see
// reference_cache.h).
//
// Layer: test support (nxrt_ort_oracle), over nxrt_core, nxrt_ir (TensorProto files) and the ORT
// oracle.
#include "ort_oracle/reference_cache.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>

#include <nlohmann/json.hpp>

#include "ir/tensor_io.h"
#include "ort_oracle/sha256.h"

#ifndef NXRT_ORACLE_CACHE_DIR
#error "NXRT_ORACLE_CACHE_DIR must name the build-time cache folder"
#endif

namespace nxrt::oracle {
namespace {

namespace fs = std::filesystem;

// Bumped whenever the key or the entry layout changes, so old entries are simply not found.
constexpr std::string_view kKeyVersion = "nxrt ORT reference v1";
// Names the entry's values (names are arbitrary strings) and records how they were computed.
constexpr const char* kManifest = "reference.json";

Status HashFile(const std::string& path, Sha256& hash) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return MakeStatus(StatusCode::kIoError, "model '", path, "': cannot open the file");
  std::vector<char> chunk(1 << 20);
  uint64_t total = 0;
  Sha256 content;
  while (file) {
    file.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    const auto got = static_cast<size_t>(file.gcount());
    content.Update(std::span(reinterpret_cast<const uint8_t*>(chunk.data()), got));
    total += got;
  }
  if (file.bad()) return MakeStatus(StatusCode::kIoError, "model '", path, "': read failed");
  hash.UpdateU64(total);
  hash.Update(content.HexDigest());
  return Status::Ok();
}

Status HashTensor(const Tensor& input, Sha256& hash) {
  Tensor tensor = input;
  if (!tensor.is_contiguous()) {
    NXRT_ASSIGN_OR_RETURN(tensor, input.Clone());
  }
  hash.UpdateU64(static_cast<uint64_t>(tensor.dtype()));
  hash.UpdateU64(tensor.rank());
  for (int64_t dim : tensor.shape()) hash.UpdateU64(static_cast<uint64_t>(dim));
  if (tensor.dtype() == DataType::kString) {
    for (const std::string& s : tensor.span<std::string>()) {
      hash.UpdateU64(s.size());
      hash.Update(s);
    }
    return Status::Ok();
  }
  hash.Update(std::span(static_cast<const uint8_t*>(tensor.raw_data()), tensor.byte_size()));
  return Status::Ok();
}

Status EntryError(const fs::path& entry, std::string_view problem) {
  return MakeStatus(StatusCode::kIoError, "reference cache entry '", entry.string(), "': ",
                    problem, "; delete the folder to recompute it");
}

Result<std::vector<NamedTensor>> ReadEntry(const fs::path& entry) {
  std::ifstream manifest_file(entry / kManifest);
  std::stringstream text;
  text << manifest_file.rdbuf();
  if (!manifest_file) return EntryError(entry, "cannot read " + std::string(kManifest));
  const nlohmann::json manifest = nlohmann::json::parse(text.str(), nullptr, false);
  if (!manifest.is_object() || !manifest.contains("outputs") || !manifest["outputs"].is_array() ||
      manifest["outputs"].empty()) {
    return EntryError(entry, std::string(kManifest) + " lists no outputs");
  }
  std::vector<NamedTensor> outputs;
  for (const nlohmann::json& name : manifest["outputs"]) {
    if (!name.is_string()) return EntryError(entry, "an output name is not a string");
    const fs::path file = entry / ("output_" + std::to_string(outputs.size()) + ".pb");
    Result<Tensor> tensor = ir::ReadTensorProtoFile(file);
    if (!tensor.ok()) return EntryError(entry, tensor.status().ToString());
    outputs.push_back({name.get<std::string>(), std::move(tensor).value()});
  }
  return outputs;
}

Status WriteEntry(const fs::path& folder, const std::vector<NamedTensor>& inputs,
                  const std::vector<NamedTensor>& outputs, nlohmann::json manifest) {
  manifest["inputs"] = nlohmann::json::array();
  for (size_t i = 0; i < inputs.size(); ++i) {
    NXRT_RETURN_IF_ERROR(ir::WriteTensorProtoFile(folder / ("input_" + std::to_string(i) + ".pb"),
                                                  inputs[i].tensor, inputs[i].name));
    manifest["inputs"].push_back(inputs[i].name);
  }
  manifest["outputs"] = nlohmann::json::array();
  for (size_t i = 0; i < outputs.size(); ++i) {
    NXRT_RETURN_IF_ERROR(ir::WriteTensorProtoFile(
        folder / ("output_" + std::to_string(i) + ".pb"), outputs[i].tensor, outputs[i].name));
    manifest["outputs"].push_back(outputs[i].name);
  }
  std::ofstream file(folder / kManifest);
  file << manifest.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  if (!file) {
    return MakeStatus(StatusCode::kIoError, "cannot write '", (folder / kManifest).string(), "'");
  }
  return Status::Ok();
}

// Moves a finished temporary folder into place as `entry`; losing a race to another process
// that stored the same entry is fine.
Status Publish(const fs::path& temporary, const fs::path& entry) {
  std::error_code error;
  fs::rename(temporary, entry, error);
  if (!error) return Status::Ok();
  std::error_code ignored;
  const bool stored_by_other = fs::exists(entry / kManifest, ignored);
  fs::remove_all(temporary, ignored);
  if (stored_by_other) return Status::Ok();
  return MakeStatus(StatusCode::kIoError, "cannot move '", temporary.string(), "' to '",
                    entry.string(), "': ", error.message());
}

}  // namespace

std::string CacheDirectory() {
  const char* from_env = std::getenv("NXRT_CACHE");
  if (from_env != nullptr && from_env[0] != '\0') return from_env;
  return NXRT_ORACLE_CACHE_DIR;
}

Result<std::string> ReferenceKey(const std::string& model_path,
                                 const std::vector<NamedTensor>& inputs,
                                 OptimizationLevel optimization) {
  Sha256 hash;
  hash.Update(kKeyVersion);
  hash.Update(OptimizationLevelName(optimization));
  NXRT_RETURN_IF_ERROR(HashFile(model_path, hash));
  std::vector<size_t> order(inputs.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return inputs[a].name < inputs[b].name; });
  hash.UpdateU64(inputs.size());
  for (size_t index : order) {
    const NamedTensor& input = inputs[index];
    if (!input.tensor.defined()) {
      return MakeStatus(StatusCode::kInvalidArgument, "model '", model_path, "': input '",
                        input.name, "' is an undefined (empty) tensor");
    }
    hash.UpdateU64(input.name.size());
    hash.Update(input.name);
    NXRT_RETURN_IF_ERROR(HashTensor(input.tensor, hash));
  }
  return hash.HexDigest();
}

Result<std::vector<NamedTensor>> ReferenceOutputs(const std::string& model_path,
                                                  const std::vector<NamedTensor>& inputs,
                                                  const ReferenceOptions& options) {
  NXRT_ASSIGN_OR_RETURN(std::string key, ReferenceKey(model_path, inputs, options.optimization));
  const fs::path root = options.cache_dir.empty() ? fs::path(CacheDirectory()) / "references"
                                                  : fs::path(options.cache_dir);
  const fs::path entry = root / key;
  std::error_code error;
  if (fs::exists(entry, error)) return ReadEntry(entry);

  const std::string library_path =
      options.library_path.empty() ? OrtOracle::DefaultLibraryPath() : options.library_path;
  NXRT_ASSIGN_OR_RETURN(OrtOracle oracle, OrtOracle::Load(library_path));
  OracleOptions run_options;
  run_options.intra_op_threads = 1;
  run_options.optimization = options.optimization;
  NXRT_ASSIGN_OR_RETURN(std::vector<NamedTensor> outputs,
                        oracle.Run(model_path, inputs, run_options));

  static std::atomic<uint64_t> counter{0};
  const fs::path temporary = root / (".tmp-" + key + "-" + std::to_string(getpid()) + "-" +
                                     std::to_string(counter++));
  fs::create_directories(temporary, error);
  if (error) {
    return MakeStatus(StatusCode::kIoError, "cannot create the reference cache folder '",
                      temporary.string(), "': ", error.message());
  }
  nlohmann::json manifest;
  manifest["ort_version"] = oracle.version();
  manifest["model"] = model_path;
  manifest["optimization"] = std::string(OptimizationLevelName(options.optimization));
  manifest["intra_op_threads"] = run_options.intra_op_threads;
  Status written = WriteEntry(temporary, inputs, outputs, std::move(manifest));
  if (written.ok()) written = Publish(temporary, entry);
  if (!written.ok()) {
    std::error_code ignored;
    fs::remove_all(temporary, ignored);
    return written.WithContext("reference cache for model '" + model_path + "'");
  }
  return outputs;
}

}  // namespace nxrt::oracle
