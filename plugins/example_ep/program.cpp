// plugins/example_ep/program.cpp: Compile's graph reading and the fused kernel's Compute.
#include "example_ep/program.h"

#include <cstdio>
#include <new>
#include <unordered_map>

#include "example_ep/counters.h"

namespace nxrt_example_ep {
namespace {

std::string DimsText(const Dims& dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i != 0) text += ',';
    text += std::to_string(dims[i]);
  }
  text += ']';
  return text;
}

OrtStatus* ValueNames(const OrtApi& ort, const OrtValueInfo* const* values, size_t count,
                      std::vector<std::string>* names) {
  names->clear();
  for (size_t i = 0; i < count; ++i) {
    const char* name = nullptr;
    if (values[i] != nullptr) EXAMPLE_EP_RETURN_IF_ERROR(ort.GetValueInfoName(values[i], &name));
    names->push_back(name != nullptr ? name : "");
  }
  return nullptr;
}

// Element type and dims of a tensor OrtValue.
OrtStatus* TensorDims(const OrtApi& ort, const OrtValue* value, ONNXTensorElementDataType* type,
                      Dims* dims) {
  OrtTensorTypeAndShapeInfo* info = nullptr;
  EXAMPLE_EP_RETURN_IF_ERROR(ort.GetTensorTypeAndShape(value, &info));
  size_t rank = 0;
  OrtStatus* status = ort.GetTensorElementType(info, type);
  if (status == nullptr) status = ort.GetDimensionsCount(info, &rank);
  if (status == nullptr) {
    dims->assign(rank, 0);
    status = ort.GetDimensions(info, dims->data(), rank);
  }
  ort.ReleaseTensorTypeAndShapeInfo(info);
  return status;
}

class ProgramBuilder {
 public:
  ProgramBuilder(const OrtApi& ort, Program* program) : ort_(ort), program_(program) {}

  OrtStatus* Build(const OrtGraph* graph, const OrtNode* fused_node) {
    const char* fused_name = nullptr;
    EXAMPLE_EP_RETURN_IF_ERROR(ort_.Node_GetName(fused_node, &fused_name));
    program_->name = fused_name;

    std::vector<std::string> names;
    EXAMPLE_EP_RETURN_IF_ERROR(NodeValues(fused_node, /*outputs=*/false, nullptr, &names));
    for (const std::string& name : names) program_->input_slots.push_back(NewSlot(name));

    size_t num_nodes = 0;
    EXAMPLE_EP_RETURN_IF_ERROR(ort_.Graph_GetNumNodes(graph, &num_nodes));
    std::vector<const OrtNode*> nodes(num_nodes);
    EXAMPLE_EP_RETURN_IF_ERROR(ort_.Graph_GetNodes(graph, nodes.data(), nodes.size()));
    for (const OrtNode* node : nodes) EXAMPLE_EP_RETURN_IF_ERROR(AddStep(node));

    EXAMPLE_EP_RETURN_IF_ERROR(NodeValues(fused_node, /*outputs=*/true, nullptr, &names));
    for (const std::string& name : names) {
      auto it = produced_.find(name);
      if (it == produced_.end()) {
        return Error("its output '" + name + "' is made by no node of the group");
      }
      program_->output_slots.push_back(it->second);
    }
    program_->num_slots = slots_.size();
    return nullptr;
  }

 private:
  OrtStatus* Error(const std::string& what) const {
    return MakeStatus(ort_, ORT_EP_FAIL, "cannot compile fused node '" + program_->name + "': " +
                                             what);
  }

  size_t NewSlot(const std::string& name) {
    const size_t slot = slots_.size();
    slots_.emplace(name, slot);
    return slot;
  }

  // The names of a node's inputs or outputs ("" for a missing optional one), and, when
  // `values` is non-null, their OrtValueInfos.
  OrtStatus* NodeValues(const OrtNode* node, bool outputs, std::vector<const OrtValueInfo*>* values,
                        std::vector<std::string>* names) {
    size_t count = 0;
    EXAMPLE_EP_RETURN_IF_ERROR(outputs ? ort_.Node_GetNumOutputs(node, &count)
                                       : ort_.Node_GetNumInputs(node, &count));
    std::vector<const OrtValueInfo*> infos(count);
    EXAMPLE_EP_RETURN_IF_ERROR(outputs ? ort_.Node_GetOutputs(node, infos.data(), count)
                                       : ort_.Node_GetInputs(node, infos.data(), count));
    EXAMPLE_EP_RETURN_IF_ERROR(ValueNames(ort_, infos.data(), count, names));
    if (values != nullptr) *values = std::move(infos);
    return nullptr;
  }

  // The slot of input `name` of node `node_name`: known already, or a constant initializer that
  // is copied now.
  OrtStatus* InputSlot(const OrtValueInfo* value, const std::string& name,
                       const std::string& node_name, size_t* slot) {
    if (auto it = slots_.find(name); it != slots_.end()) {
      *slot = it->second;
      return nullptr;
    }
    bool is_constant = false;
    if (value != nullptr) {
      EXAMPLE_EP_RETURN_IF_ERROR(ort_.ValueInfo_IsConstantInitializer(value, &is_constant));
    }
    if (!is_constant) {
      return Error("input '" + name + "' of node '" + node_name +
                   "' is neither a fused-node input, a constant initializer, nor made in the "
                   "group (fix: the host must list every boundary value as a fused-node input)");
    }
    const OrtValue* initializer = nullptr;
    EXAMPLE_EP_RETURN_IF_ERROR(ort_.ValueInfo_GetInitializerValue(value, &initializer));
    if (initializer == nullptr) {
      return Error("constant initializer '" + name + "' has no value");
    }
    ProgramConstant constant;
    ONNXTensorElementDataType type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
    EXAMPLE_EP_RETURN_IF_ERROR(TensorDims(ort_, initializer, &type, &constant.dims));
    if (type != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT) {
      return Error("constant initializer '" + name + "' has element type " +
                   std::to_string(type) + ", expected float (1)");
    }
    const void* data = nullptr;
    EXAMPLE_EP_RETURN_IF_ERROR(ort_.GetTensorData(initializer, &data));
    const float* floats = static_cast<const float*>(data);
    constant.values.assign(floats, floats + ElementCount(constant.dims));
    constant.slot = NewSlot(name);
    *slot = constant.slot;
    program_->constants.push_back(std::move(constant));
    return nullptr;
  }

  OrtStatus* AddStep(const OrtNode* node) {
    const char* node_name = nullptr;
    const char* op_type = nullptr;
    EXAMPLE_EP_RETURN_IF_ERROR(ort_.Node_GetName(node, &node_name));
    EXAMPLE_EP_RETURN_IF_ERROR(ort_.Node_GetOperatorType(node, &op_type));
    ProgramStep step;
    step.node_name = node_name;
    const std::optional<ElementwiseOp> op = ElementwiseOpFromName(op_type);
    if (!op) return Error("node '" + step.node_name + "' has op type " + op_type + ", not elementwise");
    step.op = *op;

    std::vector<const OrtValueInfo*> values;
    std::vector<std::string> names;
    EXAMPLE_EP_RETURN_IF_ERROR(NodeValues(node, /*outputs=*/false, &values, &names));
    if (names.size() != ElementwiseOpArity(step.op)) {
      return Error("node '" + step.node_name + "' (" + op_type + ") has " +
                   std::to_string(names.size()) + " inputs, expected " +
                   std::to_string(ElementwiseOpArity(step.op)));
    }
    for (size_t i = 0; i < names.size(); ++i) {
      size_t slot = 0;
      EXAMPLE_EP_RETURN_IF_ERROR(InputSlot(values[i], names[i], step.node_name, &slot));
      step.inputs.push_back(slot);
    }
    EXAMPLE_EP_RETURN_IF_ERROR(NodeValues(node, /*outputs=*/true, nullptr, &names));
    if (names.size() != 1 || names[0].empty()) {
      return Error("node '" + step.node_name + "' (" + op_type + ") must have exactly one output");
    }
    step.output = NewSlot(names[0]);
    produced_.emplace(names[0], step.output);
    program_->steps.push_back(std::move(step));
    return nullptr;
  }

  const OrtApi& ort_;
  Program* program_;
  std::unordered_map<std::string, size_t> slots_;     // value name -> slot
  std::unordered_map<std::string, size_t> produced_;  // values made by a step -> slot
};

// One value during a Compute call: borrowed (input, constant, output tensor) or owned.
struct SlotValue {
  const float* data = nullptr;
  Dims dims;
  std::vector<float> storage;
};

// Per-node state: the fused node's name as the host reported it in CreateState.
struct ComputeState {
  std::string node_name;
};

// A memory device for messages, e.g. "GPU memory (DEFAULT, vendor 0xe1e1, device 0)".
std::string MemoryDeviceText(const OrtEpApi& ep, const OrtMemoryDevice* device) {
  if (device == nullptr) return "no memory device";
  static constexpr const char* kTypes[] = {"CPU", "GPU", "FPGA", "NPU"};
  const OrtMemoryInfoDeviceType type = ep.MemoryDevice_GetDeviceType(device);
  const std::string type_text = type >= 0 && type < 4 ? kTypes[type] : std::to_string(type);
  const OrtDeviceMemoryType memory = ep.MemoryDevice_GetMemoryType(device);
  char text[128];
  std::snprintf(text, sizeof(text), "%s memory (%s, vendor 0x%x, device %u)", type_text.c_str(),
                memory == OrtDeviceMemoryType_DEFAULT ? "DEFAULT"
                : memory == OrtDeviceMemoryType_HOST_ACCESSIBLE ? "HOST_ACCESSIBLE"
                                                                : "unknown memory type",
                ep.MemoryDevice_GetVendorId(device), ep.MemoryDevice_GetDeviceId(device));
  return text;
}

// Null when `value` (kernel input or output `which`) is in the EP's device memory: its memory
// device is runtime.device_memory.device and its data (when it has any) lies in a block of the
// EP's allocator. Otherwise an error saying where it is and what the host must do.
OrtStatus* CheckDeviceMemory(const OrtApi& ort, const EpRuntime& runtime, const OrtValue* value,
                             const std::string& which, const std::string& node_name) {
  const OrtEpApi& ep = *runtime.ep_api;
  const DeviceMemory& memory = runtime.device_memory;
  const std::string fix = which.rfind("input", 0) == 0
                              ? "copy it into the EP's memory with the EP's OrtDataTransferImpl "
                                "before Compute"
                              : "allocate it with the EP's allocator for that memory info";
  const OrtMemoryDevice* device = ep.Value_GetMemoryDevice(value);
  if (device == nullptr || !ep.MemoryDevice_AreEqual(device, memory.device)) {
    return MakeStatus(ort, ORT_EP_FAIL,
                      "fused node '" + node_name + "': " + which + " is in " +
                          MemoryDeviceText(ep, device) + ", not in the EP's " +
                          MemoryDeviceText(ep, memory.device) + "; fix: the host must " + fix);
  }
  const void* data = nullptr;
  EXAMPLE_EP_RETURN_IF_ERROR(ort.GetTensorData(value, &data));
  if (data != nullptr && memory.contains != nullptr && !memory.contains(data)) {
    char address[32];
    std::snprintf(address, sizeof(address), "%p", data);
    return MakeStatus(ort, ORT_EP_FAIL,
                      "fused node '" + node_name + "': " + which + " claims " +
                          MemoryDeviceText(ep, device) + " but its data " + address +
                          " is in no block of the EP's allocator; fix: the host must " + fix);
  }
  return nullptr;
}

// Runs `program` for fused node `node_name` (the host's name, used in messages).
OrtStatus* RunProgram(const OrtApi& ort, const EpRuntime& runtime, const Program& program,
                      const std::string& node_name, OrtKernelContext* context) {
  auto error = [&](const std::string& what) {
    return MakeStatus(ort, ORT_EP_FAIL, "fused node '" + node_name + "': " + what);
  };
  const bool check_memory = runtime.device_memory.info != nullptr;
  size_t num_inputs = 0;
  size_t num_outputs = 0;
  EXAMPLE_EP_RETURN_IF_ERROR(ort.KernelContext_GetInputCount(context, &num_inputs));
  EXAMPLE_EP_RETURN_IF_ERROR(ort.KernelContext_GetOutputCount(context, &num_outputs));
  if (num_inputs != program.input_slots.size() || num_outputs != program.output_slots.size()) {
    return error("the kernel context has " + std::to_string(num_inputs) + " inputs and " +
                 std::to_string(num_outputs) + " outputs, the compiled group " +
                 std::to_string(program.input_slots.size()) + " and " +
                 std::to_string(program.output_slots.size()));
  }
  if (runtime.device_memory.check_stream != nullptr) {
    EXAMPLE_EP_RETURN_IF_ERROR(runtime.device_memory.check_stream(ort, *runtime.ep_api, context));
  }
  std::vector<SlotValue> slots(program.num_slots);
  for (const ProgramConstant& constant : program.constants) {
    slots[constant.slot].data = constant.values.data();
    slots[constant.slot].dims = constant.dims;
  }
  for (size_t i = 0; i < num_inputs; ++i) {
    const OrtValue* value = nullptr;
    EXAMPLE_EP_RETURN_IF_ERROR(ort.KernelContext_GetInput(context, i, &value));
    if (value == nullptr) return error("input " + std::to_string(i) + " is missing");
    if (check_memory) {
      EXAMPLE_EP_RETURN_IF_ERROR(
          CheckDeviceMemory(ort, runtime, value, "input " + std::to_string(i), node_name));
    }
    SlotValue& slot = slots[program.input_slots[i]];
    ONNXTensorElementDataType type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
    EXAMPLE_EP_RETURN_IF_ERROR(TensorDims(ort, value, &type, &slot.dims));
    if (type != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT) {
      return error("input " + std::to_string(i) + " has element type " + std::to_string(type) +
                   ", expected float (1)");
    }
    const void* data = nullptr;
    EXAMPLE_EP_RETURN_IF_ERROR(ort.GetTensorData(value, &data));
    slot.data = static_cast<const float*>(data);
  }
  std::vector<int> output_of_slot(program.num_slots, -1);
  for (size_t i = 0; i < program.output_slots.size(); ++i) {
    output_of_slot[program.output_slots[i]] = static_cast<int>(i);
  }

  for (const ProgramStep& step : program.steps) {
    const SlotValue& a = slots[step.inputs[0]];
    Dims dims = a.dims;
    if (step.inputs.size() == 2) {
      const SlotValue& b = slots[step.inputs[1]];
      if (!BroadcastDims(a.dims, b.dims, &dims)) {
        return error("node '" + step.node_name + "' (" + std::string(ElementwiseOpName(step.op)) +
                     "): input shapes " + DimsText(a.dims) + " and " + DimsText(b.dims) +
                     " do not broadcast");
      }
    }
    SlotValue& out = slots[step.output];
    float* destination = nullptr;
    if (const int output = output_of_slot[step.output]; output >= 0) {
      OrtValue* tensor = nullptr;
      EXAMPLE_EP_RETURN_IF_ERROR(
          ort.KernelContext_GetOutput(context, output, dims.data(), dims.size(), &tensor));
      if (check_memory) {
        EXAMPLE_EP_RETURN_IF_ERROR(CheckDeviceMemory(ort, runtime, tensor,
                                                     "output " + std::to_string(output), node_name));
      }
      void* data = nullptr;
      EXAMPLE_EP_RETURN_IF_ERROR(ort.GetTensorMutableData(tensor, &data));
      destination = static_cast<float*>(data);
    } else {
      out.storage.resize(ElementCount(dims));
      destination = out.storage.data();
    }
    if (step.inputs.size() == 2) {
      const SlotValue& b = slots[step.inputs[1]];
      ApplyBinary(step.op, a.data, a.dims, b.data, b.dims, destination, dims);
    } else {
      ApplyUnary(step.op, a.data, destination, ElementCount(dims));
    }
    out.data = destination;
    out.dims = std::move(dims);
  }
  return nullptr;
}

OrtStatus* ORT_API_CALL CreateState(OrtNodeComputeInfo* this_ptr,
                                    OrtNodeComputeContext* compute_context,
                                    void** compute_state) noexcept {
  auto* info = static_cast<ComputeInfo*>(this_ptr);
  return Guarded(*info->ort, "CreateState", [&]() -> OrtStatus* {
    // The host's name for the fused node; ORT's equals the one Compile saw.
    const OrtEpApi* ep_api = info->ort->GetEpApi();
    const char* name = ep_api->NodeComputeContext_NodeName(compute_context);
    auto* state = new ComputeState{name != nullptr ? name : info->program.name};
    *compute_state = state;
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL Compute(OrtNodeComputeInfo* this_ptr, void* compute_state,
                                OrtKernelContext* kernel_context) noexcept {
  auto* info = static_cast<ComputeInfo*>(this_ptr);
  const auto* state = static_cast<const ComputeState*>(compute_state);
  if (state == nullptr) {
    return MakeStatus(*info->ort, ORT_EP_FAIL,
                      "fused node '" + info->program.name + "': Compute called without a state");
  }
  EpRuntime& runtime = *info->runtime;
  // An overlap is a violation only when the EP told the host not to run it concurrently.
  if (runtime.computes_in_flight.fetch_add(1) > 0) {
    Increment(Counter::kComputeOverlaps);
    if (runtime.serial_runs) Increment(Counter::kConcurrencyViolations);
  }
  OrtStatus* status = Guarded(*info->ort, "Compute", [&] {
    return RunProgram(*info->ort, runtime, info->program, state->node_name, kernel_context);
  });
  runtime.computes_in_flight.fetch_sub(1);
  if (status == nullptr) Increment(Counter::kComputeCalls);
  return status;
}

void ORT_API_CALL ReleaseState(OrtNodeComputeInfo*, void* compute_state) noexcept {
  delete static_cast<ComputeState*>(compute_state);
}

}  // namespace

OrtStatus* BuildProgram(const OrtApi& ort, const OrtGraph* graph, const OrtNode* fused_node,
                        Program* program) {
  return Guarded(ort, "Compile", [&] { return ProgramBuilder(ort, program).Build(graph, fused_node); });
}

ComputeInfo* NewComputeInfo(const OrtApi& ort, EpRuntime* runtime, Program program) {
  auto* info = new (std::nothrow) ComputeInfo();
  if (info == nullptr) return nullptr;
  info->ort_version_supported = ORT_API_VERSION;
  info->CreateState = CreateState;
  info->Compute = Compute;
  info->ReleaseState = ReleaseState;
  info->ort = &ort;
  info->runtime = runtime;
  info->program = std::move(program);
  return info;
}

void ReleaseComputeInfo(OrtNodeComputeInfo* info) { delete static_cast<ComputeInfo*>(info); }

}  // namespace nxrt_example_ep
