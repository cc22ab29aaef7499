// ep/ort_plugin/api_kernel_registry.cpp: the functions of ORT's kernel-registry plugin style:
// OrtEpApi kernel registries, kernel def builders and defs, GetTensorDataType,
// EpGraphSupportInfo_LookUpKernel, KernelInfo_GetEp, the control-flow kernel helpers
// (CreateIfKernel, CreateLoopKernel, CreateScanKernel, ReleaseKernelImpl), the shared pre-packed
// weight cache, operator schemas (GetOpSchema, OpSchema_*), and OrtApi's KernelInfo functions.
//
// Layer: nxrt_ort_plugin (internal). The objects are kernel_registry.h's; the plugin host
// (plugin_ep.cpp) reads the registry and creates the kernels. Every function checks its
// arguments and names itself and the argument in its errors; nothing throws across the ABI.
// Operator schemas come from ir::SignatureAt (libonnx's schemas, ONNX 1.12): ai.onnx and
// ai.onnx.ml only, so GetOpSchema finds no com.microsoft schema (*out_schema NULL, as for any
// unknown op), and for versions after ONNX 1.12 it shows the parameters of libonnx's newest
// version of the op.
// Source: onnxruntime_ep_c_api.h (OrtEpApi, OrtKernelImpl, OrtLoopKernelHelper,
// OrtScanKernelHelper), onnxruntime_c_api.h (KernelInfo_*, KernelInfoGetAttribute*,
// KernelInfoGetConstantInput_tensor, KernelInfoGetAllocator, CopyKernelInfo, ReleaseKernelInfo).
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include "ep/ort_plugin/api_internal.h"
#include "ep/ort_plugin/api_table.h"
#include "ep/ort_plugin/kernel_registry.h"
#include "ir/op_schema.h"

// OrtEpApi::GetOpSchema: one operator schema version, owned by the plugin (ReleaseOpSchema).
struct OrtOpSchemaTypeConstraint {
  std::string name;
  std::vector<std::string> types;
  std::vector<const char*> type_ptrs;  // mirrors `types`
  std::vector<size_t> inputs, outputs;
};

struct OrtOpSchema {
  nxrt::ir::OperatorSignature signature;
  std::vector<OrtOpSchemaTypeConstraint> constraints;
  std::vector<const OrtOpSchemaTypeConstraint*> input_constraint;   // per formal input, or null
  std::vector<const OrtOpSchemaTypeConstraint*> output_constraint;  // per formal output, or null
};

namespace nxrt::ort_plugin {
namespace {

using AttrType = ir::Attribute::Type;

// ---- strings copied out with ORT's size protocol ----

// `text` + NUL into `out` (`*size` bytes): null `out` asks for the size; a short buffer is
// ORT_INVALID_ARGUMENT with `*size` set to the size needed.
OrtStatus* CopyStringOut(const char* function, const std::string& text, char* out, size_t* size) {
  const size_t needed = text.size() + 1;
  if (out == nullptr) {
    *size = needed;
    return nullptr;
  }
  if (*size < needed) {
    const size_t given = *size;
    *size = needed;
    return InvalidArgument(function, "the buffer holds " + std::to_string(given) +
                                         " bytes; the string needs " + std::to_string(needed));
  }
  std::memcpy(out, text.c_str(), needed);
  *size = needed;
  return nullptr;
}

// ---- OrtKernelDefBuilder / OrtKernelDef / OrtKernelRegistry ----

OrtStatus* ORT_API_CALL CreateKernelRegistryImpl(OrtKernelRegistry** kernel_registry) noexcept {
  constexpr const char* kFn = "OrtEpApi::CreateKernelRegistry";
  if (OrtStatus* s = CheckArgs(kFn, {{"kernel_registry", kernel_registry}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    *kernel_registry = new OrtKernelRegistry();
    return nullptr;
  });
}

void ORT_API_CALL ReleaseKernelRegistryImpl(OrtKernelRegistry* registry) noexcept {
  delete registry;
}

// Two defs of one op and EP whose version ranges overlap and whose constraints accept a common
// type for every constraint they share: ORT's KernelDef::IsConflict.
bool Conflicts(const OrtKernelDef& a, const OrtKernelDef& b) {
  if (a.op_type != b.op_type || a.domain != b.domain || a.ep_name != b.ep_name) return false;
  if (a.since_end < b.since_start || b.since_end < a.since_start) return false;
  for (const auto& [name, types] : a.type_constraints) {
    for (const auto& [other_name, other_types] : b.type_constraints) {
      if (name != other_name) continue;
      const bool common = std::any_of(types.begin(), types.end(), [&](const OrtDataType* t) {
        return std::find(other_types.begin(), other_types.end(), t) != other_types.end();
      });
      if (!common) return false;
    }
  }
  return true;
}

OrtStatus* ORT_API_CALL KernelRegistryAddKernelImpl(OrtKernelRegistry* kernel_registry,
                                                    const OrtKernelDef* kernel_def,
                                                    OrtKernelCreateFunc kernel_create_func,
                                                    void* kernel_create_func_state) noexcept {
  constexpr const char* kFn = "OrtEpApi::KernelRegistry_AddKernel";
  if (OrtStatus* s = CheckArgs(kFn, {{"kernel_registry", kernel_registry},
                                     {"kernel_def", kernel_def},
                                     {"kernel_create_func",
                                      reinterpret_cast<const void*>(kernel_create_func)}})) {
    return s;
  }
  return Guarded(kFn, [&]() -> OrtStatus* {
    for (const OrtKernelRegistry::Entry& entry : kernel_registry->entries) {
      if (Conflicts(entry.def, *kernel_def)) {
        return MakeOrtStatus(ORT_FAIL, std::string(kFn) + ": kernel " +
                                           DescribeKernelDef(*kernel_def) + " conflicts with " +
                                           DescribeKernelDef(entry.def) +
                                           ", registered before (overlapping versions and types); "
                                           "fix the plugin's version ranges");
      }
    }
    kernel_registry->entries.push_back({*kernel_def, kernel_create_func, kernel_create_func_state});
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL CreateKernelDefBuilderImpl(OrtKernelDefBuilder** out) noexcept {
  constexpr const char* kFn = "OrtEpApi::CreateKernelDefBuilder";
  if (OrtStatus* s = CheckArgs(kFn, {{"kernel_def_builder_out", out}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    *out = new OrtKernelDefBuilder();
    return nullptr;
  });
}

void ORT_API_CALL ReleaseKernelDefBuilderImpl(OrtKernelDefBuilder* builder) noexcept {
  delete builder;
}

OrtStatus* ORT_API_CALL SetOperatorTypeImpl(OrtKernelDefBuilder* builder,
                                            const char* op_type) noexcept {
  constexpr const char* kFn = "OrtEpApi::KernelDefBuilder_SetOperatorType";
  if (OrtStatus* s = CheckArgs(kFn, {{"kernel_def_builder", builder}, {"op_type", op_type}})) {
    return s;
  }
  return Guarded(kFn, [&]() -> OrtStatus* {
    builder->def.op_type = op_type;
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL SetDomainImpl(OrtKernelDefBuilder* builder, const char* domain) noexcept {
  constexpr const char* kFn = "OrtEpApi::KernelDefBuilder_SetDomain";
  if (OrtStatus* s = CheckArgs(kFn, {{"kernel_def_builder", builder}, {"domain", domain}})) {
    return s;
  }
  return Guarded(kFn, [&]() -> OrtStatus* {
    builder->def.domain = domain;
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL SetSinceVersionImpl(OrtKernelDefBuilder* builder, int start,
                                            int end) noexcept {
  constexpr const char* kFn = "OrtEpApi::KernelDefBuilder_SetSinceVersion";
  if (OrtStatus* s = CheckArgs(kFn, {{"kernel_def_builder", builder}})) return s;
  if (start < 1 || end < start) {
    return InvalidArgument(kFn, "since_version range [" + std::to_string(start) + ", " +
                                    std::to_string(end) +
                                    "] is empty or starts below 1; give start >= 1 and end >= "
                                    "start (equal for one version)");
  }
  builder->def.since_start = start;
  builder->def.since_end = end;
  return nullptr;
}

OrtStatus* ORT_API_CALL SetExecutionProviderImpl(OrtKernelDefBuilder* builder,
                                                 const char* ep_name) noexcept {
  constexpr const char* kFn = "OrtEpApi::KernelDefBuilder_SetExecutionProvider";
  if (OrtStatus* s = CheckArgs(kFn, {{"kernel_def_builder", builder}, {"ep_name", ep_name}})) {
    return s;
  }
  return Guarded(kFn, [&]() -> OrtStatus* {
    builder->def.ep_name = ep_name;
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL SetInputMemTypeImpl(OrtKernelDefBuilder* builder, size_t input_index,
                                            OrtMemType mem_type) noexcept {
  constexpr const char* kFn = "OrtEpApi::KernelDefBuilder_SetInputMemType";
  if (OrtStatus* s = CheckArgs(kFn, {{"kernel_def_builder", builder}})) return s;
  if (OrtStatus* s = CheckEnumArg(kFn, "mem_type", mem_type)) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    builder->def.input_mem_types[input_index] = mem_type;
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL SetOutputMemTypeImpl(OrtKernelDefBuilder* builder, size_t output_index,
                                             OrtMemType mem_type) noexcept {
  constexpr const char* kFn = "OrtEpApi::KernelDefBuilder_SetOutputMemType";
  if (OrtStatus* s = CheckArgs(kFn, {{"kernel_def_builder", builder}})) return s;
  if (OrtStatus* s = CheckEnumArg(kFn, "mem_type", mem_type)) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    builder->def.output_mem_types[output_index] = mem_type;
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL AddTypeConstraintImpl(OrtKernelDefBuilder* builder, const char* arg_name,
                                              const OrtDataType* const* types,
                                              size_t num_types) noexcept {
  constexpr const char* kFn = "OrtEpApi::KernelDefBuilder_AddTypeConstraint";
  if (OrtStatus* s = CheckArgs(kFn, {{"kernel_def_builder", builder}, {"arg_name", arg_name}})) {
    return s;
  }
  if (num_types == 0 || types == nullptr) {
    return InvalidArgument(kFn, "constraint '" + std::string(arg_name) +
                                    "' lists no types; pass at least one OrtDataType from "
                                    "GetTensorDataType");
  }
  return Guarded(kFn, [&]() -> OrtStatus* {
    std::vector<const OrtDataType*> list;
    for (size_t i = 0; i < num_types; ++i) {
      if (ElementTypeOf(types[i]) == ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED) {
        return InvalidArgument(kFn, "types[" + std::to_string(i) + "] of constraint '" +
                                        std::string(arg_name) +
                                        "' is not an OrtDataType from OrtEpApi::GetTensorDataType");
      }
      list.push_back(types[i]);
    }
    auto& constraints = builder->def.type_constraints;
    auto it = std::find_if(constraints.begin(), constraints.end(),
                           [&](const auto& c) { return c.first == arg_name; });
    if (it != constraints.end()) {
      it->second = std::move(list);
    } else {
      constraints.emplace_back(arg_name, std::move(list));
    }
    return nullptr;
  });
}

OrtStatus* AddAliases(const char* function, OrtKernelDefBuilder* builder, const int* inputs,
                      const int* outputs, size_t n, std::vector<std::pair<int, int>>& into) {
  if (OrtStatus* s = CheckArgs(function, {{"kernel_def_builder", builder},
                                          {"input_indices", inputs},
                                          {"output_indices", outputs}})) {
    return s;
  }
  if (n == 0) return InvalidArgument(function, "num_io_indices is 0; give at least one pair");
  return Guarded(function, [&]() -> OrtStatus* {
    for (size_t i = 0; i < n; ++i) {
      if (inputs[i] < 0 || outputs[i] < 0) {
        return InvalidArgument(function, "pair " + std::to_string(i) + " (" +
                                             std::to_string(inputs[i]) + ", " +
                                             std::to_string(outputs[i]) +
                                             ") has a negative index");
      }
      into.emplace_back(inputs[i], outputs[i]);
    }
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL AddAliasesImpl(OrtKernelDefBuilder* builder, const int* inputs,
                                       const int* outputs, size_t n) noexcept {
  constexpr const char* kFn = "OrtEpApi::KernelDefBuilder_AddInputOutputAliases";
  if (builder == nullptr) return CheckArgs(kFn, {{"kernel_def_builder", builder}});
  return AddAliases(kFn, builder, inputs, outputs, n, builder->def.aliases);
}

OrtStatus* ORT_API_CALL AddMutableAliasesImpl(OrtKernelDefBuilder* builder, const int* inputs,
                                              const int* outputs, size_t n) noexcept {
  constexpr const char* kFn = "OrtEpApi::KernelDefBuilder_AddInputOutputMutableAliases";
  if (builder == nullptr) return CheckArgs(kFn, {{"kernel_def_builder", builder}});
  return AddAliases(kFn, builder, inputs, outputs, n, builder->def.mutable_aliases);
}

OrtStatus* ORT_API_CALL BuildImpl(OrtKernelDefBuilder* builder, OrtKernelDef** out) noexcept {
  constexpr const char* kFn = "OrtEpApi::KernelDefBuilder_Build";
  if (OrtStatus* s = CheckArgs(kFn, {{"kernel_def_builder", builder}, {"kernel_def_out", out}})) {
    return s;
  }
  if (builder->def.op_type.empty()) {
    return InvalidArgument(kFn, "the kernel def has no operator type; call "
                                "KernelDefBuilder_SetOperatorType first");
  }
  if (builder->def.ep_name.empty()) {
    return InvalidArgument(kFn, "kernel " + builder->def.op_type +
                                    " names no EP; call KernelDefBuilder_SetExecutionProvider "
                                    "with the EP's name first");
  }
  return Guarded(kFn, [&]() -> OrtStatus* {
    *out = new OrtKernelDef(builder->def);
    return nullptr;
  });
}

void ORT_API_CALL ReleaseKernelDefImpl(OrtKernelDef* def) noexcept { delete def; }

const char* ORT_API_CALL KernelDefGetOperatorTypeImpl(const OrtKernelDef* def) noexcept {
  return def != nullptr ? def->op_type.c_str() : nullptr;
}

const char* ORT_API_CALL KernelDefGetDomainImpl(const OrtKernelDef* def) noexcept {
  return def != nullptr ? def->domain.c_str() : nullptr;
}

const char* ORT_API_CALL KernelDefGetExecutionProviderImpl(const OrtKernelDef* def) noexcept {
  return def != nullptr ? def->ep_name.c_str() : nullptr;
}

OrtStatus* ORT_API_CALL KernelDefGetSinceVersionImpl(const OrtKernelDef* def, int* start,
                                                     int* end) noexcept {
  constexpr const char* kFn = "OrtEpApi::KernelDef_GetSinceVersion";
  if (OrtStatus* s = CheckArgs(kFn, {{"kernel_def", def},
                                     {"start_version", start},
                                     {"end_version", end}})) {
    return s;
  }
  *start = def->since_start;
  *end = def->since_end;
  return nullptr;
}

OrtStatus* ORT_API_CALL KernelDefGetInputMemTypeImpl(const OrtKernelDef* def, size_t index,
                                                     OrtMemType* mem_type) noexcept {
  constexpr const char* kFn = "OrtEpApi::KernelDef_GetInputMemType";
  if (OrtStatus* s = CheckArgs(kFn, {{"kernel_def", def}, {"mem_type", mem_type}})) return s;
  *mem_type = def->InputMemType(index);
  return nullptr;
}

OrtStatus* ORT_API_CALL KernelDefGetOutputMemTypeImpl(const OrtKernelDef* def, size_t index,
                                                      OrtMemType* mem_type) noexcept {
  constexpr const char* kFn = "OrtEpApi::KernelDef_GetOutputMemType";
  if (OrtStatus* s = CheckArgs(kFn, {{"kernel_def", def}, {"mem_type", mem_type}})) return s;
  *mem_type = def->OutputMemType(index);
  return nullptr;
}

OrtStatus* ORT_API_CALL GetTensorDataTypeImpl(ONNXTensorElementDataType elem_type,
                                              const OrtDataType** out) noexcept {
  constexpr const char* kFn = "OrtEpApi::GetTensorDataType";
  if (OrtStatus* s = CheckArgs(kFn, {{"out", out}})) return s;
  // ONNX Runtime 1.30: ORT_NOT_IMPLEMENTED "tensor type N is not supported" (also for 0).
  if (OrtStatus* s = CheckEnumArg(kFn, "elem_type", elem_type, ORT_NOT_IMPLEMENTED)) return s;
  const OrtDataType* type = TensorDataType(elem_type);
  if (type == nullptr) {
    return MakeOrtStatus(ORT_NOT_IMPLEMENTED, std::string(kFn) + ": element type " +
                                                  std::to_string(elem_type) +
                                                  " has no tensor data type; pass a defined "
                                                  "ONNXTensorElementDataType");
  }
  *out = type;
  return nullptr;
}

// ---- support info lookup, kernel info → EP ----

OrtStatus* ORT_API_CALL LookUpKernelImpl(OrtEpGraphSupportInfo* support, const OrtNode* node,
                                         const OrtKernelDef** out) noexcept {
  constexpr const char* kFn = "OrtEpApi::EpGraphSupportInfo_LookUpKernel";
  if (OrtStatus* s = CheckArgs(kFn, {{"out_kernel_def", out}})) return s;
  *out = nullptr;
  if (OrtStatus* s = CheckArgs(kFn, {{"graph_support_info", support}, {"node", node}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    if (support->graph == nullptr || support->graph->node_ids.count(node) == 0) {
      return InvalidArgument(kFn, "'node' is not a node of the graph GetCapability was given");
    }
    if (support->registry == nullptr) return nullptr;
    Result<KernelLookup> found = FindKernel(*support->registry, support->ep_name, *node);
    if (!found.ok()) {
      return MakeOrtStatus(ORT_INVALID_ARGUMENT, std::string(kFn) + ": " + found.status().message());
    }
    if (found->entry != nullptr) *out = &found->entry->def;
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL KernelInfoGetEpImpl(const OrtKernelInfo* info, const OrtEp** ep) noexcept {
  constexpr const char* kFn = "OrtEpApi::KernelInfo_GetEp";
  if (OrtStatus* s = CheckArgs(kFn, {{"info", info}, {"ep", ep}})) return s;
  *ep = info->ep;
  return nullptr;
}

// ---- control-flow kernels ----

OrtStatus* ORT_API_CALL CreateIfKernelImpl(const OrtKernelInfo* info,
                                           OrtKernelImpl** kernel_out) noexcept {
  constexpr const char* kFn = "OrtEpApi::CreateIfKernel";
  if (OrtStatus* s = CheckArgs(kFn, {{"kernel_info", info}, {"kernel_out", kernel_out}})) return s;
  return Guarded(kFn, [&] {
    return CreateHostControlFlowKernel(kFn, HostControlFlowKernel::Kind::kIf, *info, nullptr,
                                       nullptr, kernel_out);
  });
}

OrtStatus* ORT_API_CALL CreateLoopKernelImpl(const OrtKernelInfo* info, OrtLoopKernelHelper* helper,
                                             OrtKernelImpl** kernel_out) noexcept {
  constexpr const char* kFn = "OrtEpApi::CreateLoopKernel";
  if (OrtStatus* s = CheckArgs(kFn, {{"kernel_info", info},
                                     {"helper", helper},
                                     {"kernel_out", kernel_out}})) {
    return s;
  }
  if (helper->ConcatOutput == nullptr || helper->Release == nullptr) {
    return InvalidArgument(kFn, "the OrtLoopKernelHelper lacks ConcatOutput or Release; set both");
  }
  return Guarded(kFn, [&] {
    return CreateHostControlFlowKernel(kFn, HostControlFlowKernel::Kind::kLoop, *info, helper,
                                       nullptr, kernel_out);
  });
}

OrtStatus* ORT_API_CALL CreateScanKernelImpl(const OrtKernelInfo* info, OrtScanKernelHelper* helper,
                                             OrtKernelImpl** kernel_out) noexcept {
  constexpr const char* kFn = "OrtEpApi::CreateScanKernel";
  if (OrtStatus* s = CheckArgs(kFn, {{"kernel_info", info},
                                     {"helper", helper},
                                     {"kernel_out", kernel_out}})) {
    return s;
  }
  if (helper->Transpose == nullptr || helper->Release == nullptr) {
    return InvalidArgument(kFn, "the OrtScanKernelHelper lacks Transpose or Release; set both");
  }
  return Guarded(kFn, [&] {
    return CreateHostControlFlowKernel(kFn, HostControlFlowKernel::Kind::kScan, *info, nullptr,
                                       helper, kernel_out);
  });
}

void ORT_API_CALL ReleaseKernelImplImpl(OrtKernelImpl* kernel) noexcept {
  if (kernel != nullptr && kernel->Release != nullptr) kernel->Release(kernel);
}

// ---- shared pre-packed weights ----

OrtStatus* ORT_API_CALL StoreWeightDataImpl(OrtSharedPrePackedWeightCache* cache, void** buffers,
                                            size_t* sizes, size_t num_buffers) noexcept {
  constexpr const char* kFn = "OrtEpApi::SharedPrePackedWeightCache_StoreWeightData";
  if (OrtStatus* s = CheckArgs(kFn, {{"prepacked_weight_cache", cache},
                                     {"buffer_data_ptrs", buffers},
                                     {"buffer_data_sizes", sizes}})) {
    return s;
  }
  if (num_buffers == 0) return InvalidArgument(kFn, "num_buffers is 0; store at least one buffer");
  return Guarded(kFn, [&]() -> OrtStatus* {
    std::vector<void*> new_buffers(buffers, buffers + num_buffers);
    std::vector<size_t> new_sizes(sizes, sizes + num_buffers);
    for (void* old : cache->buffers) {
      if (old != nullptr && cache->allocator != nullptr) cache->allocator->Free(cache->allocator, old);
    }
    cache->buffers = std::move(new_buffers);
    cache->sizes = std::move(new_sizes);
    return nullptr;
  });
}

// ---- operator schemas ----

OrtStatus* ORT_API_CALL GetOpSchemaImpl(const char* name, int max_inclusive_version,
                                        const char* domain, OrtOpSchema** out) noexcept {
  constexpr const char* kFn = "OrtEpApi::GetOpSchema";
  if (OrtStatus* s = CheckArgs(kFn, {{"name", name}, {"domain", domain}, {"out_schema", out}})) {
    return s;
  }
  *out = nullptr;
  return Guarded(kFn, [&]() -> OrtStatus* {
    std::optional<ir::OperatorSignature> sig = ir::SignatureAt(domain, name, max_inclusive_version);
    if (!sig) return nullptr;
    auto schema = std::make_unique<OrtOpSchema>();
    schema->signature = std::move(*sig);
    const ir::OperatorSignature& s = schema->signature;
    schema->constraints.reserve(s.constraints.size());
    for (const ir::OperatorSignature::Constraint& c : s.constraints) {
      OrtOpSchemaTypeConstraint tc;
      tc.name = c.name;
      tc.types = c.types;
      tc.inputs = c.inputs;
      tc.outputs = c.outputs;
      schema->constraints.push_back(std::move(tc));
    }
    for (OrtOpSchemaTypeConstraint& tc : schema->constraints) {
      for (const std::string& t : tc.types) tc.type_ptrs.push_back(t.c_str());
    }
    auto constraint_of = [&](const std::string& type_str) -> const OrtOpSchemaTypeConstraint* {
      for (const OrtOpSchemaTypeConstraint& tc : schema->constraints) {
        if (tc.name == type_str) return &tc;
      }
      return nullptr;
    };
    for (const auto& formal : s.inputs) schema->input_constraint.push_back(constraint_of(formal.type_str));
    for (const auto& formal : s.outputs) schema->output_constraint.push_back(constraint_of(formal.type_str));
    *out = schema.release();
    return nullptr;
  });
}

void ORT_API_CALL ReleaseOpSchemaImpl(OrtOpSchema* schema) noexcept { delete schema; }

OrtStatus* ORT_API_CALL OpSchemaGetSinceVersionImpl(const OrtOpSchema* schema, int* out) noexcept {
  if (OrtStatus* s = CheckArgs("OrtEpApi::OpSchema_GetSinceVersion", {{"schema", schema}, {"out", out}})) {
    return s;
  }
  *out = schema->signature.since_version;
  return nullptr;
}

OrtStatus* ORT_API_CALL OpSchemaGetNumInputsImpl(const OrtOpSchema* schema, size_t* out) noexcept {
  if (OrtStatus* s = CheckArgs("OrtEpApi::OpSchema_GetNumInputs", {{"schema", schema}, {"out", out}})) {
    return s;
  }
  *out = schema->signature.inputs.size();
  return nullptr;
}

OrtStatus* ORT_API_CALL OpSchemaGetNumOutputsImpl(const OrtOpSchema* schema, size_t* out) noexcept {
  if (OrtStatus* s = CheckArgs("OrtEpApi::OpSchema_GetNumOutputs", {{"schema", schema}, {"out", out}})) {
    return s;
  }
  *out = schema->signature.outputs.size();
  return nullptr;
}

template <typename T>
OrtStatus* IndexCheck(const char* function, const std::vector<T>& items, size_t index,
                      const char* what) {
  if (index >= items.size()) {
    return InvalidArgument(function, std::string(what) + " index " + std::to_string(index) +
                                         " is out of range; the schema has " +
                                         std::to_string(items.size()));
  }
  return nullptr;
}

OrtStatus* ORT_API_CALL OpSchemaGetInputNameImpl(const OrtOpSchema* schema, size_t index,
                                                 const char** out) noexcept {
  constexpr const char* kFn = "OrtEpApi::OpSchema_GetInputName";
  if (OrtStatus* s = CheckArgs(kFn, {{"schema", schema}, {"out", out}})) return s;
  if (OrtStatus* s = IndexCheck(kFn, schema->signature.inputs, index, "input")) return s;
  *out = schema->signature.inputs[index].name.c_str();
  return nullptr;
}

OrtStatus* ORT_API_CALL OpSchemaGetOutputNameImpl(const OrtOpSchema* schema, size_t index,
                                                  const char** out) noexcept {
  constexpr const char* kFn = "OrtEpApi::OpSchema_GetOutputName";
  if (OrtStatus* s = CheckArgs(kFn, {{"schema", schema}, {"out", out}})) return s;
  if (OrtStatus* s = IndexCheck(kFn, schema->signature.outputs, index, "output")) return s;
  *out = schema->signature.outputs[index].name.c_str();
  return nullptr;
}

OrtStatus* ORT_API_CALL OpSchemaGetInputTypeConstraintImpl(
    const OrtOpSchema* schema, size_t index, const OrtOpSchemaTypeConstraint** out) noexcept {
  constexpr const char* kFn = "OrtEpApi::OpSchema_GetInputTypeConstraint";
  if (OrtStatus* s = CheckArgs(kFn, {{"schema", schema}, {"out", out}})) return s;
  if (OrtStatus* s = IndexCheck(kFn, schema->input_constraint, index, "input")) return s;
  *out = schema->input_constraint[index];
  return nullptr;
}

OrtStatus* ORT_API_CALL OpSchemaGetOutputTypeConstraintImpl(
    const OrtOpSchema* schema, size_t index, const OrtOpSchemaTypeConstraint** out) noexcept {
  constexpr const char* kFn = "OrtEpApi::OpSchema_GetOutputTypeConstraint";
  if (OrtStatus* s = CheckArgs(kFn, {{"schema", schema}, {"out", out}})) return s;
  if (OrtStatus* s = IndexCheck(kFn, schema->output_constraint, index, "output")) return s;
  *out = schema->output_constraint[index];
  return nullptr;
}

OrtStatus* ORT_API_CALL OpSchemaGetTypeConstraintCountImpl(const OrtOpSchema* schema,
                                                           size_t* out) noexcept {
  if (OrtStatus* s = CheckArgs("OrtEpApi::OpSchema_GetTypeConstraintCount",
                               {{"schema", schema}, {"out", out}})) {
    return s;
  }
  *out = schema->constraints.size();
  return nullptr;
}

OrtStatus* ORT_API_CALL OpSchemaGetTypeConstraintImpl(
    const OrtOpSchema* schema, size_t index, const OrtOpSchemaTypeConstraint** out) noexcept {
  constexpr const char* kFn = "OrtEpApi::OpSchema_GetTypeConstraint";
  if (OrtStatus* s = CheckArgs(kFn, {{"schema", schema}, {"out", out}})) return s;
  if (OrtStatus* s = IndexCheck(kFn, schema->constraints, index, "type constraint")) return s;
  *out = &schema->constraints[index];
  return nullptr;
}

OrtStatus* ORT_API_CALL TypeConstraintGetTypeParamNameImpl(const OrtOpSchemaTypeConstraint* c,
                                                           const char** out) noexcept {
  if (OrtStatus* s = CheckArgs("OrtEpApi::OpSchemaTypeConstraint_GetTypeParamName",
                               {{"type_constraint", c}, {"out", out}})) {
    return s;
  }
  *out = c->name.c_str();
  return nullptr;
}

OrtStatus* ORT_API_CALL TypeConstraintGetAllowedTypesImpl(const OrtOpSchemaTypeConstraint* c,
                                                          const char* const** out_types,
                                                          size_t* num_types) noexcept {
  if (OrtStatus* s = CheckArgs("OrtEpApi::OpSchemaTypeConstraint_GetAllowedTypes",
                               {{"type_constraint", c}, {"out_types", out_types},
                                {"num_types", num_types}})) {
    return s;
  }
  *out_types = c->type_ptrs.data();
  *num_types = c->type_ptrs.size();
  return nullptr;
}

OrtStatus* ORT_API_CALL TypeConstraintGetInputIndicesImpl(const OrtOpSchemaTypeConstraint* c,
                                                          const size_t** out,
                                                          size_t* count) noexcept {
  if (OrtStatus* s = CheckArgs("OrtEpApi::OpSchemaTypeConstraint_GetInputIndices",
                               {{"type_constraint", c}, {"out_indices", out}, {"count", count}})) {
    return s;
  }
  *out = c->inputs.data();
  *count = c->inputs.size();
  return nullptr;
}

OrtStatus* ORT_API_CALL TypeConstraintGetOutputIndicesImpl(const OrtOpSchemaTypeConstraint* c,
                                                           const size_t** out,
                                                           size_t* count) noexcept {
  if (OrtStatus* s = CheckArgs("OrtEpApi::OpSchemaTypeConstraint_GetOutputIndices",
                               {{"type_constraint", c}, {"out_indices", out}, {"count", count}})) {
    return s;
  }
  *out = c->outputs.data();
  *count = c->outputs.size();
  return nullptr;
}

// ---- OrtApi::KernelInfo* ----

// The attribute `name` of the kernel's node, or an ORT_FAIL status as ORT gives for a missing
// one ("No attribute with name 'x' is defined") and ORT_INVALID_ARGUMENT for another type.
OrtStatus* FindAttribute(const char* function, const OrtKernelInfo* info, const char* name,
                         AttrType type, const ir::Attribute** out) {
  for (const OrtOpAttr& attr : info->node->attributes) {
    if (attr.attr.name != name) continue;
    if (attr.attr.type != type) {
      return InvalidArgument(function, "attribute '" + std::string(name) + "' of node '" +
                                           info->node->name + "' is " +
                                           std::string(ir::AttributeTypeName(attr.attr.type)) +
                                           ", not " + std::string(ir::AttributeTypeName(type)));
    }
    *out = &attr.attr;
    return nullptr;
  }
  return MakeOrtStatus(ORT_FAIL, std::string(function) + ": node '" + info->node->name +
                                     "' has no attribute '" + name + "'");
}

OrtStatus* ORT_API_CALL GetAttributeFloatImpl(const OrtKernelInfo* info, const char* name,
                                              float* out) noexcept {
  constexpr const char* kFn = "OrtApi::KernelInfoGetAttribute_float";
  if (OrtStatus* s = CheckArgs(kFn, {{"info", info}, {"name", name}, {"out", out}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    const ir::Attribute* attr = nullptr;
    if (OrtStatus* s = FindAttribute(kFn, info, name, AttrType::kFloat, &attr)) return s;
    *out = attr->f;
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL GetAttributeInt64Impl(const OrtKernelInfo* info, const char* name,
                                              int64_t* out) noexcept {
  constexpr const char* kFn = "OrtApi::KernelInfoGetAttribute_int64";
  if (OrtStatus* s = CheckArgs(kFn, {{"info", info}, {"name", name}, {"out", out}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    const ir::Attribute* attr = nullptr;
    if (OrtStatus* s = FindAttribute(kFn, info, name, AttrType::kInt, &attr)) return s;
    *out = attr->i;
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL GetAttributeStringImpl(const OrtKernelInfo* info, const char* name,
                                               char* out, size_t* size) noexcept {
  constexpr const char* kFn = "OrtApi::KernelInfoGetAttribute_string";
  if (OrtStatus* s = CheckArgs(kFn, {{"info", info}, {"name", name}, {"size", size}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    const ir::Attribute* attr = nullptr;
    if (OrtStatus* s = FindAttribute(kFn, info, name, AttrType::kString, &attr)) return s;
    return CopyStringOut(kFn, attr->s, out, size);
  });
}

template <typename T>
OrtStatus* CopyArrayOut(const char* function, const std::vector<T>& items, T* out, size_t* size) {
  if (out == nullptr) {
    *size = items.size();
    return nullptr;
  }
  if (*size < items.size()) {
    const size_t given = *size;
    *size = items.size();
    return InvalidArgument(function, "the buffer holds " + std::to_string(given) +
                                         " elements; the attribute has " +
                                         std::to_string(items.size()));
  }
  std::copy(items.begin(), items.end(), out);
  *size = items.size();
  return nullptr;
}

OrtStatus* ORT_API_CALL GetAttributeArrayFloatImpl(const OrtKernelInfo* info, const char* name,
                                                   float* out, size_t* size) noexcept {
  constexpr const char* kFn = "OrtApi::KernelInfoGetAttributeArray_float";
  if (OrtStatus* s = CheckArgs(kFn, {{"info", info}, {"name", name}, {"size", size}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    const ir::Attribute* attr = nullptr;
    if (OrtStatus* s = FindAttribute(kFn, info, name, AttrType::kFloats, &attr)) return s;
    return CopyArrayOut(kFn, attr->floats, out, size);
  });
}

OrtStatus* ORT_API_CALL GetAttributeArrayInt64Impl(const OrtKernelInfo* info, const char* name,
                                                   int64_t* out, size_t* size) noexcept {
  constexpr const char* kFn = "OrtApi::KernelInfoGetAttributeArray_int64";
  if (OrtStatus* s = CheckArgs(kFn, {{"info", info}, {"name", name}, {"size", size}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    const ir::Attribute* attr = nullptr;
    if (OrtStatus* s = FindAttribute(kFn, info, name, AttrType::kInts, &attr)) return s;
    return CopyArrayOut(kFn, attr->ints, out, size);
  });
}

// KernelInfoGetAttributeArray_string (API 25): the strings and the pointer array from
// `allocator`, which the caller frees; an empty attribute gives NULL and 0.
OrtStatus* ORT_API_CALL GetAttributeArrayStringImpl(const OrtKernelInfo* info, const char* name,
                                                    OrtAllocator* allocator, char*** out,
                                                    size_t* size) noexcept {
  constexpr const char* kFn = "OrtApi::KernelInfoGetAttributeArray_string";
  if (OrtStatus* s = CheckArgs(kFn, {{"info", info}, {"name", name}, {"size", size}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    const ir::Attribute* attr = nullptr;
    if (OrtStatus* s = FindAttribute(kFn, info, name, AttrType::kStrings, &attr)) return s;
    *size = attr->strings.size();
    if (out == nullptr) return nullptr;
    *out = nullptr;
    if (attr->strings.empty()) return nullptr;
    if (allocator == nullptr) return InvalidArgument(kFn, "argument 'allocator' is null");
    auto** array =
        static_cast<char**>(allocator->Alloc(allocator, attr->strings.size() * sizeof(char*)));
    if (array == nullptr) return OutOfMemoryStatus(kFn);
    for (size_t i = 0; i < attr->strings.size(); ++i) {
      const std::string& text = attr->strings[i];
      array[i] = static_cast<char*>(allocator->Alloc(allocator, text.size() + 1));
      if (array[i] == nullptr) {
        for (size_t j = 0; j < i; ++j) allocator->Free(allocator, array[j]);
        allocator->Free(allocator, array);
        return OutOfMemoryStatus(kFn);
      }
      std::memcpy(array[i], text.c_str(), text.size() + 1);
    }
    *out = array;
    return nullptr;
  });
}

// KernelInfoGetAttribute_tensor: a copy of the tensor attribute in memory from `allocator`.
OrtStatus* ORT_API_CALL GetAttributeTensorImpl(const OrtKernelInfo* info, const char* name,
                                               OrtAllocator* allocator, OrtValue** out) noexcept {
  constexpr const char* kFn = "OrtApi::KernelInfoGetAttribute_tensor";
  if (OrtStatus* s = CheckArgs(kFn, {{"info", info}, {"name", name}, {"allocator", allocator},
                                     {"out", out}})) {
    return s;
  }
  return Guarded(kFn, [&]() -> OrtStatus* {
    const ir::Attribute* attr = nullptr;
    if (OrtStatus* s = FindAttribute(kFn, info, name, AttrType::kTensor, &attr)) return s;
    const Tensor& t = attr->t;
    if (t.dtype() == DataType::kString) {
      return MakeOrtStatus(ORT_NOT_IMPLEMENTED, std::string(kFn) + ": attribute '" + name +
                                                    "' is a string tensor; read it with "
                                                    "KernelInfoGetAttributeArray_string");
    }
    const std::vector<int64_t> shape(t.shape().begin(), t.shape().end());
    OrtValue* value = nullptr;
    if (OrtStatus* s = HostApi().CreateTensorAsOrtValue(allocator, shape.data(), shape.size(),
                                                        ToOrtElementType(t.dtype()), &value)) {
      return s;
    }
    Result<Tensor> contiguous = t.is_contiguous() ? Result<Tensor>(t) : t.Clone();
    if (!contiguous.ok()) {
      HostApi().ReleaseValue(value);
      return ToOrtStatus(contiguous.status());
    }
    if (value->bytes > 0) std::memcpy(value->data, contiguous->raw_data(), value->bytes);
    *out = value;
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL KernelInfoGetInputCountImpl(const OrtKernelInfo* info,
                                                    size_t* out) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::KernelInfo_GetInputCount", {{"info", info}, {"out", out}})) {
    return s;
  }
  *out = info->node->inputs.size();
  return nullptr;
}

OrtStatus* ORT_API_CALL KernelInfoGetOutputCountImpl(const OrtKernelInfo* info,
                                                     size_t* out) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::KernelInfo_GetOutputCount", {{"info", info}, {"out", out}})) {
    return s;
  }
  *out = info->node->outputs.size();
  return nullptr;
}

// Input (output) `index` of the node; an omitted optional one has the empty name and no type.
OrtStatus* ArgAt(const char* function, const std::vector<const OrtValueInfo*>& args, size_t index,
                 const char* what, const OrtValueInfo** out) {
  if (index >= args.size()) {
    return InvalidArgument(function, std::string(what) + " index " + std::to_string(index) +
                                         " is out of range; the node has " +
                                         std::to_string(args.size()));
  }
  *out = args[index];
  return nullptr;
}

OrtStatus* ORT_API_CALL KernelInfoGetInputNameImpl(const OrtKernelInfo* info, size_t index,
                                                   char* out, size_t* size) noexcept {
  constexpr const char* kFn = "OrtApi::KernelInfo_GetInputName";
  if (OrtStatus* s = CheckArgs(kFn, {{"info", info}, {"size", size}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    const OrtValueInfo* arg = nullptr;
    if (OrtStatus* s = ArgAt(kFn, info->node->inputs, index, "input", &arg)) return s;
    return CopyStringOut(kFn, arg != nullptr ? arg->name : std::string(), out, size);
  });
}

OrtStatus* ORT_API_CALL KernelInfoGetOutputNameImpl(const OrtKernelInfo* info, size_t index,
                                                    char* out, size_t* size) noexcept {
  constexpr const char* kFn = "OrtApi::KernelInfo_GetOutputName";
  if (OrtStatus* s = CheckArgs(kFn, {{"info", info}, {"size", size}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    const OrtValueInfo* arg = nullptr;
    if (OrtStatus* s = ArgAt(kFn, info->node->outputs, index, "output", &arg)) return s;
    return CopyStringOut(kFn, arg != nullptr ? arg->name : std::string(), out, size);
  });
}

// A new copy of `arg`'s type info (unknown type for an omitted argument).
OrtStatus* TypeInfoOf(const OrtValueInfo* arg, OrtTypeInfo** out) {
  *out = arg != nullptr ? CloneTypeInfo(arg->type_info).release() : new OrtTypeInfo();
  return nullptr;
}

OrtStatus* ORT_API_CALL KernelInfoGetInputTypeInfoImpl(const OrtKernelInfo* info, size_t index,
                                                       OrtTypeInfo** type_info) noexcept {
  constexpr const char* kFn = "OrtApi::KernelInfo_GetInputTypeInfo";
  if (OrtStatus* s = CheckArgs(kFn, {{"info", info}, {"type_info", type_info}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    const OrtValueInfo* arg = nullptr;
    if (OrtStatus* s = ArgAt(kFn, info->node->inputs, index, "input", &arg)) return s;
    return TypeInfoOf(arg, type_info);
  });
}

OrtStatus* ORT_API_CALL KernelInfoGetOutputTypeInfoImpl(const OrtKernelInfo* info, size_t index,
                                                        OrtTypeInfo** type_info) noexcept {
  constexpr const char* kFn = "OrtApi::KernelInfo_GetOutputTypeInfo";
  if (OrtStatus* s = CheckArgs(kFn, {{"info", info}, {"type_info", type_info}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    const OrtValueInfo* arg = nullptr;
    if (OrtStatus* s = ArgAt(kFn, info->node->outputs, index, "output", &arg)) return s;
    return TypeInfoOf(arg, type_info);
  });
}

OrtStatus* ORT_API_CALL KernelInfoGetNodeNameImpl(const OrtKernelInfo* info, char* out,
                                                  size_t* size) noexcept {
  constexpr const char* kFn = "OrtApi::KernelInfo_GetNodeName";
  if (OrtStatus* s = CheckArgs(kFn, {{"info", info}, {"size", size}})) return s;
  return Guarded(kFn, [&] { return CopyStringOut(kFn, info->node->name, out, size); });
}

OrtStatus* ORT_API_CALL KernelInfoGetOperatorDomainImpl(const OrtKernelInfo* info, char* out,
                                                        size_t* size) noexcept {
  constexpr const char* kFn = "OrtApi::KernelInfo_GetOperatorDomain";
  if (OrtStatus* s = CheckArgs(kFn, {{"info", info}, {"size", size}})) return s;
  return Guarded(kFn, [&] { return CopyStringOut(kFn, info->node->domain, out, size); });
}

OrtStatus* ORT_API_CALL KernelInfoGetOperatorTypeImpl(const OrtKernelInfo* info, char* out,
                                                      size_t* size) noexcept {
  constexpr const char* kFn = "OrtApi::KernelInfo_GetOperatorType";
  if (OrtStatus* s = CheckArgs(kFn, {{"info", info}, {"size", size}})) return s;
  return Guarded(kFn, [&] { return CopyStringOut(kFn, info->node->op_type, out, size); });
}

OrtStatus* ORT_API_CALL KernelInfoGetOperatorSinceVersionImpl(const OrtKernelInfo* info,
                                                              int* since_version) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::KernelInfo_GetOperatorSinceVersion",
                               {{"info", info}, {"since_version", since_version}})) {
    return s;
  }
  *since_version = info->node->since_version;
  return nullptr;
}

OrtStatus* ORT_API_CALL KernelInfoGetLoggerImpl(const OrtKernelInfo* info,
                                                const OrtLogger** logger) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::KernelInfo_GetLogger", {{"info", info}, {"logger", logger}})) {
    return s;
  }
  *logger = info->logger;
  return nullptr;
}

OrtStatus* ORT_API_CALL KernelInfoGetConfigEntriesImpl(const OrtKernelInfo* info,
                                                       OrtKeyValuePairs** out) noexcept {
  constexpr const char* kFn = "OrtApi::KernelInfo_GetConfigEntries";
  if (OrtStatus* s = CheckArgs(kFn, {{"info", info}, {"out", out}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    *out = info->config != nullptr ? new OrtKeyValuePairs(*info->config) : new OrtKeyValuePairs();
    return nullptr;
  });
}

// KernelInfoGetConstantInput_tensor: a view of input `index` when it is a constant initializer
// (*is_constant 1), else *is_constant 0 and *out NULL. The value lives as long as the kernel.
OrtStatus* ORT_API_CALL KernelInfoGetConstantInputImpl(const OrtKernelInfo* info, size_t index,
                                                       int* is_constant,
                                                       const OrtValue** out) noexcept {
  constexpr const char* kFn = "OrtApi::KernelInfoGetConstantInput_tensor";
  if (OrtStatus* s = CheckArgs(kFn, {{"info", info}, {"is_constant", is_constant}, {"out", out}})) {
    return s;
  }
  const OrtValueInfo* arg = nullptr;
  if (OrtStatus* s = ArgAt(kFn, info->node->inputs, index, "input", &arg)) return s;
  const bool constant = arg != nullptr && arg->is_constant_initializer && arg->initializer != nullptr;
  *is_constant = constant ? 1 : 0;
  *out = constant ? arg->initializer : nullptr;
  return nullptr;
}

// KernelInfoGetAllocator: the EP's device allocator for OrtMemTypeDefault when it has device
// memory, else the host's CPU allocator (ReleaseAllocator on either does nothing).
OrtStatus* ORT_API_CALL KernelInfoGetAllocatorImpl(const OrtKernelInfo* info, OrtMemType mem_type,
                                                   OrtAllocator** out) noexcept {
  constexpr const char* kFn = "OrtApi::KernelInfoGetAllocator";
  if (OrtStatus* s = CheckArgs(kFn, {{"info", info}, {"out", out}})) return s;
  if (OrtStatus* s = CheckEnumArg(kFn, "mem_type", mem_type)) return s;
  *out = mem_type == OrtMemTypeDefault && info->device_allocator != nullptr
             ? info->device_allocator
             : static_cast<OrtAllocator*>(&DefaultCpuAllocator());
  return nullptr;
}

OrtStatus* ORT_API_CALL CopyKernelInfoImpl(const OrtKernelInfo* info,
                                           OrtKernelInfo** info_copy) noexcept {
  constexpr const char* kFn = "OrtApi::CopyKernelInfo";
  if (OrtStatus* s = CheckArgs(kFn, {{"info", info}, {"info_copy", info_copy}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    *info_copy = new OrtKernelInfo(*info);
    return nullptr;
  });
}

void ORT_API_CALL ReleaseKernelInfoImpl(OrtKernelInfo* info) noexcept { delete info; }

}  // namespace

void InstallKernelRegistryApi(OrtApi& api, OrtEpApi& ep_api) {
  ep_api.CreateKernelRegistry = &CreateKernelRegistryImpl;
  ep_api.ReleaseKernelRegistry = &ReleaseKernelRegistryImpl;
  ep_api.KernelRegistry_AddKernel = &KernelRegistryAddKernelImpl;
  ep_api.CreateKernelDefBuilder = &CreateKernelDefBuilderImpl;
  ep_api.ReleaseKernelDefBuilder = &ReleaseKernelDefBuilderImpl;
  ep_api.KernelDefBuilder_SetOperatorType = &SetOperatorTypeImpl;
  ep_api.KernelDefBuilder_SetDomain = &SetDomainImpl;
  ep_api.KernelDefBuilder_SetSinceVersion = &SetSinceVersionImpl;
  ep_api.KernelDefBuilder_SetExecutionProvider = &SetExecutionProviderImpl;
  ep_api.KernelDefBuilder_SetInputMemType = &SetInputMemTypeImpl;
  ep_api.KernelDefBuilder_SetOutputMemType = &SetOutputMemTypeImpl;
  ep_api.KernelDefBuilder_AddTypeConstraint = &AddTypeConstraintImpl;
  ep_api.KernelDefBuilder_AddInputOutputAliases = &AddAliasesImpl;
  ep_api.KernelDefBuilder_AddInputOutputMutableAliases = &AddMutableAliasesImpl;
  ep_api.KernelDefBuilder_Build = &BuildImpl;
  ep_api.ReleaseKernelDef = &ReleaseKernelDefImpl;
  ep_api.KernelDef_GetOperatorType = &KernelDefGetOperatorTypeImpl;
  ep_api.KernelDef_GetDomain = &KernelDefGetDomainImpl;
  ep_api.KernelDef_GetSinceVersion = &KernelDefGetSinceVersionImpl;
  ep_api.KernelDef_GetExecutionProvider = &KernelDefGetExecutionProviderImpl;
  ep_api.KernelDef_GetInputMemType = &KernelDefGetInputMemTypeImpl;
  ep_api.KernelDef_GetOutputMemType = &KernelDefGetOutputMemTypeImpl;
  ep_api.GetTensorDataType = &GetTensorDataTypeImpl;
  ep_api.EpGraphSupportInfo_LookUpKernel = &LookUpKernelImpl;
  ep_api.SharedPrePackedWeightCache_StoreWeightData = &StoreWeightDataImpl;
  ep_api.KernelInfo_GetEp = &KernelInfoGetEpImpl;
  ep_api.CreateIfKernel = &CreateIfKernelImpl;
  ep_api.CreateLoopKernel = &CreateLoopKernelImpl;
  ep_api.CreateScanKernel = &CreateScanKernelImpl;
  ep_api.ReleaseKernelImpl = &ReleaseKernelImplImpl;
  ep_api.GetOpSchema = &GetOpSchemaImpl;
  ep_api.ReleaseOpSchema = &ReleaseOpSchemaImpl;
  ep_api.OpSchema_GetSinceVersion = &OpSchemaGetSinceVersionImpl;
  ep_api.OpSchema_GetNumInputs = &OpSchemaGetNumInputsImpl;
  ep_api.OpSchema_GetInputName = &OpSchemaGetInputNameImpl;
  ep_api.OpSchema_GetInputTypeConstraint = &OpSchemaGetInputTypeConstraintImpl;
  ep_api.OpSchema_GetNumOutputs = &OpSchemaGetNumOutputsImpl;
  ep_api.OpSchema_GetOutputName = &OpSchemaGetOutputNameImpl;
  ep_api.OpSchema_GetOutputTypeConstraint = &OpSchemaGetOutputTypeConstraintImpl;
  ep_api.OpSchema_GetTypeConstraintCount = &OpSchemaGetTypeConstraintCountImpl;
  ep_api.OpSchema_GetTypeConstraint = &OpSchemaGetTypeConstraintImpl;
  ep_api.OpSchemaTypeConstraint_GetTypeParamName = &TypeConstraintGetTypeParamNameImpl;
  ep_api.OpSchemaTypeConstraint_GetAllowedTypes = &TypeConstraintGetAllowedTypesImpl;
  ep_api.OpSchemaTypeConstraint_GetInputIndices = &TypeConstraintGetInputIndicesImpl;
  ep_api.OpSchemaTypeConstraint_GetOutputIndices = &TypeConstraintGetOutputIndicesImpl;
  api.KernelInfoGetAttribute_float = &GetAttributeFloatImpl;
  api.KernelInfoGetAttribute_int64 = &GetAttributeInt64Impl;
  api.KernelInfoGetAttribute_string = &GetAttributeStringImpl;
  api.KernelInfoGetAttributeArray_float = &GetAttributeArrayFloatImpl;
  api.KernelInfoGetAttributeArray_int64 = &GetAttributeArrayInt64Impl;
  api.KernelInfoGetAttributeArray_string = &GetAttributeArrayStringImpl;
  api.KernelInfoGetAttribute_tensor = &GetAttributeTensorImpl;
  api.KernelInfo_GetInputCount = &KernelInfoGetInputCountImpl;
  api.KernelInfo_GetOutputCount = &KernelInfoGetOutputCountImpl;
  api.KernelInfo_GetInputName = &KernelInfoGetInputNameImpl;
  api.KernelInfo_GetOutputName = &KernelInfoGetOutputNameImpl;
  api.KernelInfo_GetInputTypeInfo = &KernelInfoGetInputTypeInfoImpl;
  api.KernelInfo_GetOutputTypeInfo = &KernelInfoGetOutputTypeInfoImpl;
  api.KernelInfo_GetNodeName = &KernelInfoGetNodeNameImpl;
  api.KernelInfo_GetOperatorDomain = &KernelInfoGetOperatorDomainImpl;
  api.KernelInfo_GetOperatorType = &KernelInfoGetOperatorTypeImpl;
  api.KernelInfo_GetOperatorSinceVersion = &KernelInfoGetOperatorSinceVersionImpl;
  api.KernelInfo_GetLogger = &KernelInfoGetLoggerImpl;
  api.KernelInfo_GetConfigEntries = &KernelInfoGetConfigEntriesImpl;
  api.KernelInfoGetConstantInput_tensor = &KernelInfoGetConstantInputImpl;
  api.KernelInfoGetAllocator = &KernelInfoGetAllocatorImpl;
  api.CopyKernelInfo = &CopyKernelInfoImpl;
  api.ReleaseKernelInfo = &ReleaseKernelInfoImpl;
}

}  // namespace nxrt::ort_plugin
