// ep/ort_plugin/api_not_implemented.cpp: why each OrtApi/OrtEpApi function nxrt does not
// implement is not implemented: the reason its ORT_NOT_IMPLEMENTED status gives, and the list
// docs/c_api.md shows (nxrt_capi_test prints it).
//
// Layer: nxrt_ort_plugin (internal). One entry per group of functions that share a reason: a
// pattern is a slot name, or a prefix ending in '*', or "*infix*". The first matching entry
// wins. nxrt_capi_test checks that every stub of the full table (libonnxruntime.so.1) has an
// entry and that every entry matches a stub, so the table follows the code.
#include <string_view>

#include "ep/ort_plugin/api_table.h"

namespace nxrt::ort_plugin {
namespace {

struct Reason {
  std::string_view table;    // "OrtApi", "OrtEpApi" or "OrtModelEditorApi"
  std::string_view pattern;  // "Name", "Prefix*", "*Infix*" or "*" (every slot)
  std::string_view reason;
};

constexpr std::string_view kNoSuchEp =
    "nxrt has no such built-in execution provider; run on nxrt's CPU EP or load a plugin EP "
    "library with RegisterExecutionProviderLibrary and SessionOptionsAppendExecutionProvider_V2";
constexpr std::string_view kCustomOps =
    "nxrt runs no custom operator libraries (OrtCustomOp kernels); its kernels come from its own "
    "kernel table and from plugin EPs";
constexpr std::string_view kNoRunStreams =
    "nxrt makes the streams of a run itself (one per stream-aware plugin EP) and takes no "
    "application streams or application copies between EP devices";
constexpr std::string_view kEpContext =
    "nxrt compiles and loads EPContext models (OrtCompileApi, `nxrt compile`) and honours the "
    "compatibility info in them at session creation, but keeps no per-device incompatibility "
    "details, weightless source models or application-made external initializer infos";
constexpr std::string_view kOwnThreads =
    "nxrt's intra-op threads are LLVM OpenMP's, which creates and places its own threads";
constexpr std::string_view kNoSparse =
    "nxrt has no sparse tensor values; sparse initializers are made dense when a model loads";
constexpr std::string_view kPlacement =
    "nxrt reports placement through nxrt::Session::PlacementSummary (`nxrt claims`), not as "
    "OrtEpAssignedSubgraph objects";
constexpr std::string_view kOwnArenas =
    "nxrt sessions allocate from their own planned arenas; there is no environment-wide "
    "allocator to register or share";

constexpr Reason kReasons[] = {
    {"OrtApi", "SessionOptionsAppendExecutionProvider_*", kNoSuchEp},
    {"OrtApi", "*ProviderOptions*", kNoSuchEp},
    {"OrtApi", "SessionOptionsAppendExecutionProvider", kNoSuchEp},
    {"OrtApi", "GetExecutionProviderApi", kNoSuchEp},
    {"OrtApi", "SetCurrentGpuDeviceId", "nxrt has no GPU execution provider"},
    {"OrtApi", "GetCurrentGpuDeviceId", "nxrt has no GPU execution provider"},
    {"OrtApi", "SetEpDynamicOptions", "nxrt's EPs take their options at session creation only"},
    {"OrtApi", "SessionOptionsSetEpSelectionPolicy*",
     "nxrt selects no EP devices by policy; pick them with GetEpDevices and append them with "
     "SessionOptionsAppendExecutionProvider_V2"},
    {"OrtApi", "AddCustomOpDomain", kCustomOps},
    {"OrtApi", "RegisterCustomOps*", kCustomOps},
    {"OrtApi", "EnableOrtCustomOps", kCustomOps},
    {"OrtApi", "ShapeInferContext_*", kCustomOps},
    {"OrtApi", "CreateOp", kCustomOps},
    {"OrtApi", "InvokeOp", kCustomOps},
    {"OrtApi", "ReleaseOp", kCustomOps},
    {"OrtApi", "CreateOpaqueValue", kCustomOps},
    {"OrtApi", "GetOpaqueValue", kCustomOps},
    {"OrtApi", "*Sparse*", kNoSparse},
    {"OrtApi", "UseCooIndices", kNoSparse},
    {"OrtApi", "UseCsrIndices", kNoSparse},
    {"OrtApi", "UseBlockSparseIndices", kNoSparse},
    {"OrtApi", "*LoraAdapter*", "nxrt applies no LoRA adapters"},
    {"OrtApi", "AddInitializer", "nxrt takes initializers from the model only"},
    {"OrtApi", "AddExternalInitializers*",
     "nxrt reads external data from the files the model names only"},
    {"OrtApi", "AddFreeDimensionOverride",
     "nxrt's IR keeps no dim denotations; override the dim by its name with "
     "AddFreeDimensionOverrideByName"},
    {"OrtApi", "SessionOptionsSetCustom*", kOwnThreads},
    {"OrtApi", "SetGlobalCustom*", kOwnThreads},
    {"OrtApi", "SetGlobalIntraOpThreadAffinity", kOwnThreads},
    {"OrtApi", "SetPerSessionThreadPoolCallbacks", kOwnThreads},
    {"OrtApi", "CreateAndRegisterAllocator*", kOwnArenas},
    {"OrtApi", "RegisterAllocator", kOwnArenas},
    {"OrtApi", "UnregisterAllocator", kOwnArenas},
    {"OrtApi", "*SharedAllocator", kOwnArenas},
    {"OrtApi", "CreateArenaCfg*", kOwnArenas},
    {"OrtApi", "ReleaseArenaCfg", kOwnArenas},
    {"OrtApi", "RunOptionsSetSyncStream", kNoRunStreams},
    {"OrtApi", "CopyTensors", kNoRunStreams},
    {"OrtApi", "GetModelCompatibilityForEpDevices", kEpContext},
    {"OrtApi", "GetCompatibilityInfoFromModel*", kEpContext},
    {"OrtApi", "*EpIncompatibilityDetails*", kEpContext},
    {"OrtApi", "SessionOptionsSetWeightlessSourceModelBuffer", kEpContext},
    {"OrtApi", "CreateExternalInitializerInfo", kEpContext},
    {"OrtApi", "SessionReleaseCapturedGraph", "nxrt captures no graphs"},
    {"OrtApi", "Session_GetEpGraphAssignmentInfo", kPlacement},
    {"OrtApi", "EpAssigned*", kPlacement},
    {"OrtApi", "RunOptionsEnableProfiling",
     "nxrt profiles whole sessions (EnableProfiling), not single runs"},
    {"OrtApi", "RunOptionsDisableProfiling",
     "nxrt profiles whole sessions (EnableProfiling), not single runs"},
    {"OrtApi", "SessionOptionsSetLoadCancellationFlag", "nxrt cannot cancel a model load"},
    {"OrtApi", "SetOptimizedModelFilePath", "nxrt writes no optimized model files"},
    {"OrtApi", "GetTrainingApi", "nxrt does not train"},
    {"OrtApi", "GetInteropApi", "nxrt imports no external memory or semaphores"},
    {"OrtApi", "GetExperimentalFunction", "nxrt offers no experimental functions"},
    {"OrtEpApi", "*ProfilingEvent*",
     "nxrt records its own trace span per fused plugin call; a plugin's own profiling events are "
     "not collected"},
    {"OrtEpApi", "DeviceEpIncompatibilityDetails_*", kEpContext},
    {"OrtModelEditorApi", "*Session*",
     "nxrt creates sessions from model files and bytes only (CreateSession, "
     "CreateSessionFromArray), not from models built or edited with the model editor API"},
    {"OrtModelEditorApi", "*",
     "nxrt builds no graphs or models through the model editor API (its type-info builders "
     "CreateTensorTypeInfo, CreateMapTypeInfo, CreateSequenceTypeInfo and CreateOptionalTypeInfo "
     "work, and CreateNode makes the EPContext nodes a plugin returns from Compile); load the "
     "model from a file or bytes instead"},
    {"OrtEpApi", "SessionOptionsGetWeightlessSourceModelBuffer", kEpContext},
};

bool Matches(std::string_view pattern, std::string_view slot) {
  if (pattern == "*") return true;
  const bool leading = pattern.starts_with('*');
  const bool trailing = pattern.ends_with('*');
  if (leading && trailing) {
    return slot.find(pattern.substr(1, pattern.size() - 2)) != std::string_view::npos;
  }
  if (trailing) return slot.starts_with(pattern.substr(0, pattern.size() - 1));
  if (leading) return slot.ends_with(pattern.substr(1));
  return slot == pattern;
}

}  // namespace

std::string_view NotImplementedReason(std::string_view table, std::string_view slot) {
  for (const Reason& entry : kReasons) {
    if (entry.table == table && Matches(entry.pattern, slot)) return entry.reason;
  }
  return kDefaultNotImplementedReason;
}

std::vector<std::string> UnusedNotImplementedReasons() {
  std::vector<std::string> unused;
  const std::vector<StubbedSlot> stubs = StubbedSlots();
  for (const Reason& entry : kReasons) {
    bool used = false;
    for (const StubbedSlot& stub : stubs) {
      const size_t colons = stub.name.find("::");
      if (stub.name.substr(0, colons) == entry.table &&
          Matches(entry.pattern, std::string_view(stub.name).substr(colons + 2))) {
        used = true;
        break;
      }
    }
    if (!used) unused.push_back(std::string(entry.table) + "::" + std::string(entry.pattern));
  }
  return unused;
}

}  // namespace nxrt::ort_plugin
