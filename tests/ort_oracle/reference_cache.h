// ort_oracle/reference_cache.h: ONNX Runtime's outputs for (model, inputs), computed once.
//
// Layer: test support (nxrt_ort_oracle), over nxrt_core, nxrt_ir (TensorProto I/O) and the ORT
// oracle. The first call for a model and inputs runs ORT 1.30 (one intra-op thread, graph
// optimisations disabled unless asked otherwise) and stores the result in
//   <cache>/references/<key>/input_<i>.pb, output_<i>.pb, reference.json
// laid out like an ONNX backend test_data_set (TensorProto files), with a manifest naming the
// values and recording the ORT version, model path and optimisation level, where
// <key> is the SHA-256 of the model bytes, the inputs (names, types, shapes, bytes) and the
// optimisation level. Later calls read the files and never load ORT, so tests need not rerun it.
// Entries are written into a temporary folder and renamed into place: concurrent test processes
// never see a half-written entry. External-data files of a model are not part of the key.
#pragma once

#include <string>
#include <vector>

#include "nxrt/status.h"
#include "ort_oracle/named_tensor.h"
#include "ort_oracle/ort_oracle.h"

namespace nxrt::oracle {

// $NXRT_CACHE when set and non-empty, else the cache folder configured at build time
// (CMake's NXRT_CACHE, normally ~/.cache/nxrt).
std::string CacheDirectory();

struct ReferenceOptions {
  OptimizationLevel optimization = OptimizationLevel::kDisableAll;
  // Where entries live; "" means <CacheDirectory()>/references.
  std::string cache_dir;
  // The ORT library used on a miss; "" means OrtOracle::DefaultLibraryPath().
  std::string library_path;
};

// The cache key (64 hex characters) of `model_path` with `inputs` at `optimization`. The order
// of `inputs` does not matter. Errors: kIoError when the model cannot be read.
Result<std::string> ReferenceKey(const std::string& model_path,
                                 const std::vector<NamedTensor>& inputs,
                                 OptimizationLevel optimization);

// ORT's outputs for `inputs` (all outputs, in model order), from the cache or computed and
// stored. Errors: those of OrtOracle on a miss; kIoError when the cache cannot be written or an
// entry cannot be read (the message names the folder; deleting it forces a recompute).
Result<std::vector<NamedTensor>> ReferenceOutputs(const std::string& model_path,
                                                  const std::vector<NamedTensor>& inputs,
                                                  const ReferenceOptions& options = {});

}  // namespace nxrt::oracle
