// plugins/kernel_ep/kernels.cpp: the kernel EP's registry and kernels (see kernel_ep.h): float32
// elementwise kernels over the example EP's math, Identity, and the control-flow kernels made by
// the host with the plugin's Loop and Scan helpers.
#include <algorithm>
#include <cstring>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "example_ep/elementwise.h"
#include "kernel_ep/kernel_ep.h"

namespace nxrt_kernel_ep {
namespace {

using nxrt_example_ep::Dims;
using nxrt_example_ep::ElementwiseOp;

// The host's tables; the state every creation function gets.
struct Tables {
  const OrtApi* ort = nullptr;
  const OrtEpApi* ep = nullptr;
};

OrtStatus* Fail(const OrtApi& ort, OrtErrorCode code, const std::string& message) {
  return ort.CreateStatus(code, ("kernel_ep: " + message).c_str());
}

#define KERNEL_EP_RETURN_IF_ERROR(expr)         \
  do {                                          \
    if (OrtStatus* kernel_ep_status_ = (expr)) { \
      return kernel_ep_status_;                 \
    }                                           \
  } while (0)

OrtStatus* DimsOf(const OrtApi& ort, const OrtValue* value, Dims* dims,
                  ONNXTensorElementDataType* type = nullptr) {
  OrtTensorTypeAndShapeInfo* info = nullptr;
  KERNEL_EP_RETURN_IF_ERROR(ort.GetTensorTypeAndShape(value, &info));
  size_t rank = 0;
  OrtStatus* status = ort.GetDimensionsCount(info, &rank);
  if (status == nullptr) {
    dims->assign(rank, 0);
    status = ort.GetDimensions(info, dims->data(), rank);
  }
  if (status == nullptr && type != nullptr) status = ort.GetTensorElementType(info, type);
  ort.ReleaseTensorTypeAndShapeInfo(info);
  return status;
}

// ---- elementwise kernels ----

struct ElementwiseKernel : OrtKernelImpl {
  const OrtApi* ort = nullptr;
  ElementwiseOp op = ElementwiseOp::kAdd;
};

OrtStatus* ORT_API_CALL ElementwiseCompute(OrtKernelImpl* this_ptr,
                                           OrtKernelContext* context) noexcept {
  const auto* kernel = static_cast<ElementwiseKernel*>(this_ptr);
  const OrtApi& ort = *kernel->ort;
  const size_t arity = nxrt_example_ep::ElementwiseOpArity(kernel->op);
  const OrtValue* inputs[2] = {nullptr, nullptr};
  Dims dims[2];
  for (size_t i = 0; i < arity; ++i) {
    KERNEL_EP_RETURN_IF_ERROR(ort.KernelContext_GetInput(context, i, &inputs[i]));
    if (inputs[i] == nullptr) return Fail(ort, ORT_INVALID_ARGUMENT, "an input is missing");
    KERNEL_EP_RETURN_IF_ERROR(DimsOf(ort, inputs[i], &dims[i]));
  }
  Dims out_dims = dims[0];
  if (arity == 2 && !nxrt_example_ep::BroadcastDims(dims[0], dims[1], &out_dims)) {
    return Fail(ort, ORT_INVALID_ARGUMENT,
                std::string(nxrt_example_ep::ElementwiseOpName(kernel->op)) +
                    ": the input shapes do not broadcast");
  }
  OrtValue* output = nullptr;
  KERNEL_EP_RETURN_IF_ERROR(
      ort.KernelContext_GetOutput(context, 0, out_dims.data(), out_dims.size(), &output));
  const void* a = nullptr;
  const void* b = nullptr;
  void* y = nullptr;
  KERNEL_EP_RETURN_IF_ERROR(ort.GetTensorData(inputs[0], &a));
  if (arity == 2) KERNEL_EP_RETURN_IF_ERROR(ort.GetTensorData(inputs[1], &b));
  KERNEL_EP_RETURN_IF_ERROR(ort.GetTensorMutableData(output, &y));
  if (arity == 2) {
    nxrt_example_ep::ApplyBinary(kernel->op, static_cast<const float*>(a), dims[0],
                                 static_cast<const float*>(b), dims[1], static_cast<float*>(y),
                                 out_dims);
  } else {
    nxrt_example_ep::ApplyUnary(kernel->op, static_cast<const float*>(a), static_cast<float*>(y),
                                nxrt_example_ep::ElementCount(out_dims));
  }
  Increment(Counter::kComputeCalls);
  return nullptr;
}

void ORT_API_CALL ReleaseOwnKernel(OrtKernelImpl* this_ptr) noexcept {
  Increment(Counter::kKernelsReleased);
  delete static_cast<ElementwiseKernel*>(this_ptr);
}

// Identity: a copy, skipped when the host aliased the output to the input.
OrtStatus* ORT_API_CALL IdentityCompute(OrtKernelImpl* this_ptr,
                                        OrtKernelContext* context) noexcept {
  const OrtApi& ort = *static_cast<ElementwiseKernel*>(this_ptr)->ort;
  const OrtValue* input = nullptr;
  KERNEL_EP_RETURN_IF_ERROR(ort.KernelContext_GetInput(context, 0, &input));
  Dims dims;
  KERNEL_EP_RETURN_IF_ERROR(DimsOf(ort, input, &dims));
  OrtValue* output = nullptr;
  KERNEL_EP_RETURN_IF_ERROR(
      ort.KernelContext_GetOutput(context, 0, dims.data(), dims.size(), &output));
  const void* x = nullptr;
  void* y = nullptr;
  size_t bytes = 0;
  KERNEL_EP_RETURN_IF_ERROR(ort.GetTensorData(input, &x));
  KERNEL_EP_RETURN_IF_ERROR(ort.GetTensorMutableData(output, &y));
  KERNEL_EP_RETURN_IF_ERROR(ort.GetTensorSizeInBytes(input, &bytes));
  if (x != y && bytes > 0) std::memcpy(y, x, bytes);
  Increment(Counter::kComputeCalls);
  return nullptr;
}

#if defined(NXRT_KERNEL_FAULT_BAD_FLAGS)
// Counts the offer and packs nothing.
OrtStatus* ORT_API_CALL CountPrePack(OrtKernelImpl*, const OrtValue*, int, OrtAllocator*,
                                     OrtSharedPrePackedWeightCache*, bool* is_packed) noexcept {
  Increment(Counter::kPrePackCalls);
  *is_packed = false;
  return nullptr;
}
#endif

template <ElementwiseOp Op>
OrtStatus* ORT_API_CALL CreateElementwise(void* state, const OrtKernelInfo*,
                                          OrtKernelImpl** out) noexcept {
  const Tables& tables = *static_cast<const Tables*>(state);
  *out = nullptr;
#if defined(NXRT_KERNEL_FAULT_CREATE_FAILS)
  if (Op == ElementwiseOp::kMul) {
    return Fail(*tables.ort, ORT_EP_FAIL, "fault fixture create_fails: the Mul kernel's creation "
                                          "fails on purpose");
  }
#elif defined(NXRT_KERNEL_FAULT_NULL_IMPL)
  if (Op == ElementwiseOp::kMul) return nullptr;
#endif
  auto* kernel = new (std::nothrow) ElementwiseKernel();
  if (kernel == nullptr) return Fail(*tables.ort, ORT_FAIL, "out of memory");
  kernel->ort_version_supported = ORT_API_VERSION;
  kernel->flags = 0;
  kernel->Compute = ElementwiseCompute;
  kernel->Release = ReleaseOwnKernel;
  kernel->ort = tables.ort;
  kernel->op = Op;
#if defined(NXRT_KERNEL_FAULT_NULL_COMPUTE)
  if (Op == ElementwiseOp::kMul) kernel->Compute = nullptr;
#elif defined(NXRT_KERNEL_FAULT_BAD_FLAGS)
  kernel->PrePackWeight = CountPrePack;
  if (Op == ElementwiseOp::kDiv) kernel->flags = 2;
#endif
  Increment(Counter::kKernelsCreated);
  *out = kernel;
  return nullptr;
}

OrtStatus* ORT_API_CALL CreateIdentity(void* state, const OrtKernelInfo*,
                                       OrtKernelImpl** out) noexcept {
  const Tables& tables = *static_cast<const Tables*>(state);
  auto* kernel = new (std::nothrow) ElementwiseKernel();
  if (kernel == nullptr) return Fail(*tables.ort, ORT_FAIL, "out of memory");
  kernel->ort_version_supported = ORT_API_VERSION;
  kernel->Compute = IdentityCompute;
  kernel->Release = ReleaseOwnKernel;
  kernel->ort = tables.ort;
  Increment(Counter::kKernelsCreated);
  *out = kernel;
  return nullptr;
}

// ---- control flow: the host's kernels with the plugin's helpers ----

struct LoopHelper : OrtLoopKernelHelper {
  const OrtApi* ort = nullptr;
};

// Writes each iteration's tensor after the other into `output`.
OrtStatus* ORT_API_CALL ConcatOutput(OrtLoopKernelHelper* this_ptr, void*,
                                     const OrtValue* const* per_iteration, size_t count,
                                     void* output, size_t output_bytes) noexcept {
  const OrtApi& ort = *static_cast<LoopHelper*>(this_ptr)->ort;
  size_t offset = 0;
  for (size_t i = 0; i < count; ++i) {
    size_t bytes = 0;
    const void* data = nullptr;
    KERNEL_EP_RETURN_IF_ERROR(ort.GetTensorSizeInBytes(per_iteration[i], &bytes));
    KERNEL_EP_RETURN_IF_ERROR(ort.GetTensorData(per_iteration[i], &data));
    if (offset + bytes > output_bytes) {
      return Fail(ort, ORT_INVALID_ARGUMENT, "ConcatOutput: the iterations hold more than the " +
                                                 std::to_string(output_bytes) + " output bytes");
    }
    std::memcpy(static_cast<char*>(output) + offset, data, bytes);
    offset += bytes;
  }
  if (offset != output_bytes) {
    return Fail(ort, ORT_INVALID_ARGUMENT, "ConcatOutput: the iterations hold " +
                                               std::to_string(offset) + " bytes, the output " +
                                               std::to_string(output_bytes));
  }
  Increment(Counter::kConcatCalls);
  return nullptr;
}

void ORT_API_CALL ReleaseLoopHelper(OrtLoopKernelHelper* this_ptr) noexcept {
  Increment(Counter::kHelpersReleased);
  delete static_cast<LoopHelper*>(this_ptr);
}

struct ScanHelper : OrtScanKernelHelper {
  const OrtApi* ort = nullptr;
};

// output = input with its dims permuted (output dim i is input dim permutation[i]).
OrtStatus* ORT_API_CALL Transpose(OrtScanKernelHelper* this_ptr, const size_t* permutation,
                                  size_t rank, const OrtValue* input, OrtSyncStream*,
                                  OrtValue* output) noexcept {
  const OrtApi& ort = *static_cast<ScanHelper*>(this_ptr)->ort;
  Dims in_dims;
  Dims out_dims;
  KERNEL_EP_RETURN_IF_ERROR(DimsOf(ort, input, &in_dims));
  KERNEL_EP_RETURN_IF_ERROR(DimsOf(ort, output, &out_dims));
  if (in_dims.size() != rank || out_dims.size() != rank) {
    return Fail(ort, ORT_INVALID_ARGUMENT, "Transpose: permutation rank " + std::to_string(rank) +
                                               " does not match the tensors");
  }
  for (size_t i = 0; i < rank; ++i) {
    if (permutation[i] >= rank || out_dims[i] != in_dims[permutation[i]]) {
      return Fail(ort, ORT_INVALID_ARGUMENT, "Transpose: the output shape is not the permuted "
                                             "input shape");
    }
  }
  size_t bytes = 0;
  const void* src = nullptr;
  void* dst = nullptr;
  KERNEL_EP_RETURN_IF_ERROR(ort.GetTensorSizeInBytes(input, &bytes));
  KERNEL_EP_RETURN_IF_ERROR(ort.GetTensorData(input, &src));
  KERNEL_EP_RETURN_IF_ERROR(ort.GetTensorMutableData(output, &dst));
  const size_t count = nxrt_example_ep::ElementCount(in_dims);
  if (count == 0) {
    Increment(Counter::kTransposeCalls);
    return nullptr;
  }
  const size_t element = bytes / count;
  std::vector<size_t> in_strides(rank, 1);
  for (size_t d = rank; d-- > 1;) in_strides[d - 1] = in_strides[d] * static_cast<size_t>(in_dims[d]);
  std::vector<size_t> index(rank, 0);  // output coordinates
  for (size_t linear = 0; linear < count; ++linear) {
    size_t offset = 0;
    for (size_t i = 0; i < rank; ++i) offset += index[i] * in_strides[permutation[i]];
    std::memcpy(static_cast<char*>(dst) + linear * element,
                static_cast<const char*>(src) + offset * element, element);
    for (size_t i = rank; i-- > 0;) {
      if (++index[i] < static_cast<size_t>(out_dims[i])) break;
      index[i] = 0;
    }
  }
  Increment(Counter::kTransposeCalls);
  return nullptr;
}

void ORT_API_CALL ReleaseScanHelper(OrtScanKernelHelper* this_ptr) noexcept {
  Increment(Counter::kHelpersReleased);
  delete static_cast<ScanHelper*>(this_ptr);
}

OrtStatus* ORT_API_CALL CreateIf(void* state, const OrtKernelInfo* info,
                                 OrtKernelImpl** out) noexcept {
#if defined(NXRT_KERNEL_FAULT_OWN_IF)
  (void)info;
  return CreateIdentity(state, nullptr, out);  // its own kernel: the host cannot run subgraphs
#else
  const Tables& tables = *static_cast<const Tables*>(state);
  KERNEL_EP_RETURN_IF_ERROR(tables.ep->CreateIfKernel(info, out));
  Increment(Counter::kControlFlowKernels);
  return nullptr;
#endif
}

OrtStatus* ORT_API_CALL CreateLoop(void* state, const OrtKernelInfo* info,
                                   OrtKernelImpl** out) noexcept {
  const Tables& tables = *static_cast<const Tables*>(state);
  auto* helper = new (std::nothrow) LoopHelper();
  if (helper == nullptr) return Fail(*tables.ort, ORT_FAIL, "out of memory");
  helper->ort_version_supported = ORT_API_VERSION;
  helper->Release = ReleaseLoopHelper;
  helper->ConcatOutput = ConcatOutput;
  helper->ort = tables.ort;
  if (OrtStatus* status = tables.ep->CreateLoopKernel(info, helper, out)) {
    delete helper;  // the host owns it only when the call succeeds
    return status;
  }
  Increment(Counter::kControlFlowKernels);
  return nullptr;
}

OrtStatus* ORT_API_CALL CreateScan(void* state, const OrtKernelInfo* info,
                                   OrtKernelImpl** out) noexcept {
  const Tables& tables = *static_cast<const Tables*>(state);
  auto* helper = new (std::nothrow) ScanHelper();
  if (helper == nullptr) return Fail(*tables.ort, ORT_FAIL, "out of memory");
  helper->ort_version_supported = ORT_API_VERSION;
  helper->Release = ReleaseScanHelper;
  helper->Transpose = Transpose;
  helper->ort = tables.ort;
  if (OrtStatus* status = tables.ep->CreateScanKernel(info, helper, out)) {
    delete helper;
    return status;
  }
  Increment(Counter::kControlFlowKernels);
  return nullptr;
}

// ---- the registry ----

struct Constraint {
  const char* name;
  std::vector<ONNXTensorElementDataType> types;
};

struct Def {
  const char* op;
  int start;
  int end;
  std::vector<Constraint> constraints;
  OrtKernelCreateFunc create;
  std::vector<size_t> cpu_inputs;
  bool alias_0 = false;  // input 0 aliases output 0
};

OrtStatus* AddDef(const OrtApi& ort, const OrtEpApi& ep, const char* ep_name, const Def& def,
                  Tables* tables, OrtKernelRegistry* registry) {
  OrtKernelDefBuilder* builder = nullptr;
  KERNEL_EP_RETURN_IF_ERROR(ep.CreateKernelDefBuilder(&builder));
  OrtStatus* status = ep.KernelDefBuilder_SetOperatorType(builder, def.op);
  if (status == nullptr) status = ep.KernelDefBuilder_SetDomain(builder, "");
  if (status == nullptr) status = ep.KernelDefBuilder_SetSinceVersion(builder, def.start, def.end);
  if (status == nullptr) status = ep.KernelDefBuilder_SetExecutionProvider(builder, ep_name);
  for (size_t input : def.cpu_inputs) {
    if (status == nullptr) status = ep.KernelDefBuilder_SetInputMemType(builder, input, OrtMemTypeCPUInput);
  }
  for (const Constraint& c : def.constraints) {
    std::vector<const OrtDataType*> types;
    for (ONNXTensorElementDataType t : c.types) {
      const OrtDataType* type = nullptr;
      if (status == nullptr) status = ep.GetTensorDataType(t, &type);
      types.push_back(type);
    }
    if (status == nullptr) {
      status = ep.KernelDefBuilder_AddTypeConstraint(builder, c.name, types.data(), types.size());
    }
  }
  if (def.alias_0 && status == nullptr) {
    const int zero = 0;
    status = ep.KernelDefBuilder_AddInputOutputAliases(builder, &zero, &zero, 1);
  }
  OrtKernelDef* kernel_def = nullptr;
  if (status == nullptr) status = ep.KernelDefBuilder_Build(builder, &kernel_def);
  ep.ReleaseKernelDefBuilder(builder);
  if (status == nullptr) {
    status = ep.KernelRegistry_AddKernel(registry, kernel_def, def.create, tables);
    ep.ReleaseKernelDef(kernel_def);
  }
  (void)ort;
  return status;
}

}  // namespace

OrtStatus* CreateKernelRegistry(const OrtApi& ort, const OrtEpApi& ep, const char* ep_name,
                                OrtKernelRegistry** out) {
  // The creation functions' state lives as long as the library.
  static Tables tables;
  tables.ort = &ort;
  tables.ep = &ep;
  constexpr auto kFloat = ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
  const std::vector<ONNXTensorElementDataType> values = {
      kFloat, ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32,
      ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64, ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL};
  const Constraint t{"T", {kFloat}};
#if defined(NXRT_KERNEL_FAULT_BAD_CONSTRAINT)
  const Constraint mul_t{"X", {kFloat}};
#else
  const Constraint mul_t = t;
#endif
  std::vector<Def> defs;
  auto binary = [&](const char* op, OrtKernelCreateFunc create, const Constraint& c) {
    defs.push_back({op, 7, 12, {c}, create, {}});
    defs.push_back({op, 13, 13, {c}, create, {}});
    defs.push_back({op, 14, 14, {c}, create, {}});
  };
  binary("Add", CreateElementwise<ElementwiseOp::kAdd>, t);
  binary("Sub", CreateElementwise<ElementwiseOp::kSub>, t);
  binary("Mul", CreateElementwise<ElementwiseOp::kMul>, mul_t);
  binary("Div", CreateElementwise<ElementwiseOp::kDiv>, t);
  defs.push_back({"Relu", 6, 12, {t}, CreateElementwise<ElementwiseOp::kRelu>, {}});
  defs.push_back({"Relu", 13, 13, {t}, CreateElementwise<ElementwiseOp::kRelu>, {}});
  defs.push_back({"Relu", 14, 14, {t}, CreateElementwise<ElementwiseOp::kRelu>, {}});
  const std::pair<const char*, OrtKernelCreateFunc> unary[] = {
      {"Sigmoid", CreateElementwise<ElementwiseOp::kSigmoid>},
      {"Tanh", CreateElementwise<ElementwiseOp::kTanh>}};
  for (const auto& [op, create] : unary) {
    defs.push_back({op, 6, 12, {t}, create, {}});
    defs.push_back({op, 13, 13, {t}, create, {}});
  }
  defs.push_back({"Identity", 1, 24, {{"V", values}}, CreateIdentity, {}, true});
  defs.push_back({"If", 1, 24, {{"B", {ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL}}, {"V", values}},
                  CreateIf, {0}});
  defs.push_back({"Loop", 1, 24,
                  {{"I", {ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64}},
                   {"B", {ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL}},
                   {"V", values}},
                  CreateLoop, {0, 1}});
  defs.push_back({"Scan", 9, 24, {{"V", values}}, CreateScan, {}});

  OrtKernelRegistry* registry = nullptr;
  KERNEL_EP_RETURN_IF_ERROR(ep.CreateKernelRegistry(&registry));
  for (const Def& def : defs) {
    if (OrtStatus* status = AddDef(ort, ep, ep_name, def, &tables, registry)) {
      ep.ReleaseKernelRegistry(registry);
      return status;
    }
  }
  *out = registry;
  return nullptr;
}

}  // namespace nxrt_kernel_ep
