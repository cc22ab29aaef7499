// ep/ort_plugin/kernel_registry.cpp: kernel lookup and the host's control-flow kernels (see
// kernel_registry.h).
#include "ep/ort_plugin/kernel_registry.h"

#include <algorithm>
#include <array>
#include <mutex>
#include <unordered_set>

#include "ep/ort_plugin/api_internal.h"
#include "ep/ort_plugin/api_table.h"
#include "ir/op_schema.h"

namespace nxrt::ort_plugin {
namespace {

// ONNX's names of the element types ("float", "int64", ...), by ONNXTensorElementDataType.
constexpr std::array<std::string_view, 26> kElementNames = {
    "undefined", "float",    "uint8",       "int8",         "uint16",      "int16",
    "int32",     "int64",    "string",      "bool",         "float16",     "double",
    "uint32",    "uint64",   "complex64",   "complex128",   "bfloat16",    "float8e4m3fn",
    "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz", "uint4", "int4", "float4e2m1",
    "uint2",     "int2"};

struct DataTypeTable {
  std::array<OrtDataType, kElementNames.size()> types;
  DataTypeTable() {
    for (size_t i = 0; i < types.size(); ++i) {
      types[i].element_type = static_cast<ONNXTensorElementDataType>(i);
      types[i].name = "tensor(" + std::string(kElementNames[i]) + ")";
    }
  }
};

const DataTypeTable& DataTypes() {
  static const DataTypeTable table;
  return table;
}

std::string_view CanonicalDomain(std::string_view domain) {
  return domain == "ai.onnx" ? std::string_view() : domain;
}

// "tensor(float)", "seq(tensor(float))", "(unknown type)" for a value as ORT's type strings
// name it.
std::string TypeString(const OrtTypeInfo& type) {
  switch (type.type) {
    case ONNX_TYPE_TENSOR:
      return type.tensor ? "tensor(" + std::string(ElementName(type.tensor->element_type)) + ")"
                         : "tensor(undefined)";
    case ONNX_TYPE_SEQUENCE:
      return "seq(" + (type.element ? TypeString(*type.element) : std::string("?")) + ")";
    case ONNX_TYPE_OPTIONAL:
      return "optional(" + (type.element ? TypeString(*type.element) : std::string("?")) + ")";
    case ONNX_TYPE_MAP: return "map";
    case ONNX_TYPE_SPARSETENSOR: return "sparse_tensor";
    default: return "(unknown type)";
  }
}

std::string AllowedList(const std::vector<const OrtDataType*>& types) {
  std::string out;
  for (const OrtDataType* t : types) out += (out.empty() ? "" : ", ") + t->name;
  return out.empty() ? "(none)" : out;
}

// Whether `arg` is a tensor of one of the `allowed` types.
bool TypeAllowed(const OrtValueInfo& arg, const std::vector<const OrtDataType*>& allowed) {
  const OrtTypeInfo& type = arg.type_info;
  if (type.type != ONNX_TYPE_TENSOR || !type.tensor) return false;
  return std::any_of(allowed.begin(), allowed.end(), [&](const OrtDataType* t) {
    return t->element_type == type.tensor->element_type;
  });
}

std::mutex& ControlFlowMutex() {
  static std::mutex mutex;
  return mutex;
}
std::unordered_set<const OrtKernelImpl*>& LiveControlFlowKernels() {
  static auto* live = new std::unordered_set<const OrtKernelImpl*>();  // never freed
  return *live;
}

OrtStatus* ORT_API_CALL ControlFlowComputeImpl(OrtKernelImpl* this_ptr,
                                               OrtKernelContext* /*context*/) noexcept {
  auto* kernel = static_cast<HostControlFlowKernel*>(this_ptr);
  return MakeOrtStatus(ORT_FAIL, "node '" + kernel->node_name +
                                     "': a control-flow kernel made by OrtEpApi::Create*Kernel "
                                     "is run by the host, which runs its subgraphs; its Compute "
                                     "cannot be called directly");
}

void ORT_API_CALL ControlFlowReleaseImpl(OrtKernelImpl* this_ptr) noexcept {
  auto* kernel = static_cast<HostControlFlowKernel*>(this_ptr);
  {
    std::lock_guard<std::mutex> lock(ControlFlowMutex());
    LiveControlFlowKernels().erase(kernel);
  }
  if (kernel->loop_helper != nullptr && kernel->loop_helper->Release != nullptr) {
    kernel->loop_helper->Release(kernel->loop_helper);
  }
  if (kernel->scan_helper != nullptr && kernel->scan_helper->Release != nullptr) {
    kernel->scan_helper->Release(kernel->scan_helper);
  }
  delete kernel;
}

}  // namespace
}  // namespace nxrt::ort_plugin

OrtMemType OrtKernelDef::InputMemType(size_t input) const {
  auto it = input_mem_types.find(input);
  return it == input_mem_types.end() ? OrtMemTypeDefault : it->second;
}

OrtMemType OrtKernelDef::OutputMemType(size_t output) const {
  auto it = output_mem_types.find(output);
  return it == output_mem_types.end() ? OrtMemTypeDefault : it->second;
}

namespace nxrt::ort_plugin {

std::string_view ElementName(ONNXTensorElementDataType type) {
  const auto i = static_cast<size_t>(type);
  return i < kElementNames.size() ? kElementNames[i] : std::string_view("unknown");
}

ONNXTensorElementDataType ElementTypeOf(const OrtDataType* type) {
  const auto& types = DataTypes().types;
  for (const OrtDataType& t : types) {
    if (&t == type) return t.element_type;
  }
  return ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
}

const OrtDataType* TensorDataType(ONNXTensorElementDataType element_type) {
  const auto i = static_cast<size_t>(element_type);
  if (i == 0 || i >= DataTypes().types.size()) return nullptr;
  return &DataTypes().types[i];
}

std::string DescribeKernelDef(const OrtKernelDef& def) {
  std::string range = "[" + std::to_string(def.since_start) + ", " +
                      (def.since_end == INT32_MAX ? std::string("max")
                                                  : std::to_string(def.since_end)) +
                      "]";
  return def.op_type + " (domain '" + def.domain + "', since_version " + range + ", ep '" +
         def.ep_name + "')";
}

Result<KernelLookup> FindKernel(const OrtKernelRegistry& registry, std::string_view ep_name,
                                const OrtNode& node) {
  KernelLookup out;
  std::optional<ir::OperatorSignature> signature;
  bool signature_loaded = false;
  for (const OrtKernelRegistry::Entry& entry : registry.entries) {
    const OrtKernelDef& def = entry.def;
    if (def.op_type != node.op_type ||
        CanonicalDomain(def.domain) != CanonicalDomain(node.domain)) {
      continue;
    }
    if (def.ep_name != ep_name) {
      if (out.reason.empty()) {
        out.reason = "kernel " + DescribeKernelDef(def) + " is registered for another EP than '" +
                     std::string(ep_name) + "'";
      }
      continue;
    }
    const int since = node.since_version;
    const bool version_ok =
        def.since_start == since ||
        (def.since_start < since && def.since_end != INT32_MAX && def.since_end >= since);
    if (!version_ok) {
      out.reason = "kernel " + DescribeKernelDef(def) + " does not cover the node's since_version " +
                   std::to_string(since);
      continue;
    }
    if (!signature_loaded) {
      signature = ir::SignatureAt(node.domain, node.op_type, since);
      signature_loaded = true;
    }
    std::string mismatch;
    for (const auto& [name, allowed] : def.type_constraints) {
      const ir::OperatorSignature::Constraint* constraint =
          signature ? signature->FindConstraint(name) : nullptr;
      if (constraint == nullptr) {
        return MakeStatus(
            StatusCode::kInvalidArgument, "kernel ", DescribeKernelDef(def),
            " constrains type '", name, "', which ",
            signature ? "the schema of " + node.op_type + "-" + std::to_string(since) + " does not "
                                                                                          "have"
                      : "no operator schema nxrt knows declares",
            "; fix the plugin's KernelDefBuilder_AddTypeConstraint to name one of the operator's "
            "type parameters");
      }
      // As ORT: the first present actual argument bound to the constraint decides.
      const OrtValueInfo* arg = nullptr;
      std::string which;
      for (size_t formal : constraint->inputs) {
        for (size_t i = 0; i < node.inputs.size() && arg == nullptr; ++i) {
          if (node.inputs[i] != nullptr && signature->FormalOfInput(i) == formal) {
            arg = node.inputs[i];
            which = "input " + std::to_string(i);
          }
        }
        if (arg != nullptr) break;
      }
      for (size_t k = 0; arg == nullptr && k < constraint->outputs.size(); ++k) {
        const size_t o = constraint->outputs[k];
        if (o < node.outputs.size() && node.outputs[o] != nullptr) {
          arg = node.outputs[o];
          which = "output " + std::to_string(o);
        }
      }
      if (arg != nullptr && !TypeAllowed(*arg, allowed)) {
        mismatch = which + " '" + arg->name + "' is " + TypeString(arg->type_info) +
                   "; the kernel's constraint '" + name + "' allows " + AllowedList(allowed);
        break;
      }
    }
    if (!mismatch.empty()) {
      out.reason = "kernel " + DescribeKernelDef(def) + ": " + mismatch;
      continue;
    }
    out.entry = &entry;
    out.reason.clear();
    return out;
  }
  return out;
}

HostControlFlowKernel* AsHostControlFlowKernel(OrtKernelImpl* impl) {
  std::lock_guard<std::mutex> lock(ControlFlowMutex());
  return LiveControlFlowKernels().count(impl) ? static_cast<HostControlFlowKernel*>(impl) : nullptr;
}

OrtStatus* CreateHostControlFlowKernel(const char* function, HostControlFlowKernel::Kind kind,
                                       const OrtKernelInfo& info, OrtLoopKernelHelper* loop,
                                       OrtScanKernelHelper* scan, OrtKernelImpl** out) {
  static constexpr std::string_view kOps[] = {"If", "Loop", "Scan"};
  const std::string_view want = kOps[static_cast<size_t>(kind)];
  const OrtNode& node = *info.node;
  if (!CanonicalDomain(node.domain).empty() || node.op_type != want) {
    return InvalidArgument(function, "node '" + node.name + "' is " + node.op_type +
                                         ", not " + std::string(want) + "; call it for " +
                                         std::string(want) + " nodes only");
  }
  if (kind == HostControlFlowKernel::Kind::kScan && node.since_version < 9) {
    return MakeOrtStatus(ORT_FAIL, std::string(function) + ": node '" + node.name + "' is Scan-" +
                                       std::to_string(node.since_version) +
                                       ", older than the Scan-9 the host's Scan kernel runs; "
                                       "leave it to the CPU EP");
  }
  auto kernel = std::make_unique<HostControlFlowKernel>();
  kernel->ort_version_supported = kStructApiVersion;
  kernel->flags = 0;
  kernel->Compute = &ControlFlowComputeImpl;
  kernel->Release = &ControlFlowReleaseImpl;
  kernel->kind = kind;
  kernel->node_name = node.name;
  kernel->loop_helper = loop;
  kernel->scan_helper = scan;
  {
    std::lock_guard<std::mutex> lock(ControlFlowMutex());
    LiveControlFlowKernels().insert(kernel.get());
  }
  *out = kernel.release();
  return nullptr;
}

}  // namespace nxrt::ort_plugin
