// ep/ort_plugin/kernel_context.cpp: see kernel_context.h.
#include "ep/ort_plugin/kernel_context.h"

#include <algorithm>
#include <string>

#include "ep/ort_plugin/api_table.h"

namespace nxrt::ort_plugin {
namespace {

bool Flag(std::span<const uint8_t> flags, size_t i) { return i < flags.size() && flags[i] != 0; }

}  // namespace

HostKernelContext::HostKernelContext(ComputeContext& ctx, const KernelCallSpec& spec,
                                     const OrtLogger* logger, PluginDeviceMemory* device,
                                     OrtSyncStream* stream, KernelCallBuffers& buffers)
    : ctx_(ctx), spec_(spec), logger_(logger), device_(device), stream_(stream), b_(buffers) {}

Status HostKernelContext::BindInputs() {
  const size_t n = spec_.input_map.empty() ? static_cast<size_t>(ctx_.input_count())
                                           : spec_.input_map.size();
  b_.inputs.resize(n);
  b_.contiguous.resize(n);
  for (size_t j = 0; j < n; ++j) {
    const int index = spec_.input_map.empty() ? static_cast<int>(j) : spec_.input_map[j];
    const Tensor* t = ctx_.input(index);
    OrtValue& v = b_.inputs[j];
    if (t == nullptr) {
      v = OrtValue{};
      continue;
    }
    const bool on_device = OnDevice(Flag(spec_.cpu_inputs, j));
    if (on_device && (!t->is_contiguous() || !device_->Owns(t->raw_data()))) {
      return MakeStatus(StatusCode::kInternal, spec_.name, ": input ", j,
                        " should be in the plugin's device memory but is not (the runtime must "
                        "copy it there first)");
    }
    if (!t->is_contiguous()) {
      NXRT_ASSIGN_OR_RETURN(b_.contiguous[j], t->Clone());
      t = &b_.contiguous[j];
    }
    v.element_type = ToOrtElementType(t->dtype());
    v.shape.assign(t->shape().begin(), t->shape().end());
    v.data = const_cast<void*>(t->raw_data());
    v.bytes = t->byte_size();
    v.memory_info = on_device ? device_->info() : &DefaultCpuAllocator().info;
  }
  b_.outputs.assign(ctx_.output_count(), OrtValue{});
  return Status::Ok();
}

const OrtValue* HostKernelContext::Input(size_t i) const {
  return i < b_.inputs.size() && b_.inputs[i].data != nullptr ? &b_.inputs[i] : nullptr;
}

OrtStatus* HostKernelContext::Output(size_t i, const int64_t* shape, size_t rank, OrtValue** out) {
  if (i >= b_.outputs.size()) {
    return MakeOrtStatus(ORT_INVALID_ARGUMENT,
                         "KernelContext_GetOutput: output index " + std::to_string(i) +
                             " is out of range; " + std::string(spec_.name) + " has " +
                             std::to_string(b_.outputs.size()) + " outputs");
  }
  if (Flag(spec_.omitted_outputs, i)) {
    *out = nullptr;  // as ORT: an omitted optional output has no value
    return nullptr;
  }
  Shape dims(shape, shape + rank);
  for (int64_t d : dims) {
    if (d < 0) {
      return MakeOrtStatus(ORT_INVALID_ARGUMENT, "KernelContext_GetOutput: output " +
                                                     std::to_string(i) + " shape " +
                                                     ShapeToString(dims) + " has a negative dim");
    }
  }
  OrtValue& v = b_.outputs[i];
  if (v.data != nullptr) {
    if (v.shape != dims) {
      return MakeOrtStatus(ORT_INVALID_ARGUMENT,
                           "KernelContext_GetOutput: output " + std::to_string(i) +
                               " was already allocated with shape " + ShapeToString(v.shape) +
                               ", now asked for " + ShapeToString(dims));
    }
    *out = &v;
    return nullptr;
  }
  // The step's allocation: the plugin's device memory for a device output (ep/device_values.h).
  Result<Tensor*> t = ctx_.AllocateOutput(static_cast<int>(i), dims);
  if (!t.ok()) return ToOrtStatus(t.status());
  v.element_type = ToOrtElementType((*t)->dtype());
  v.shape = std::move(dims);
  v.data = (*t)->mutable_raw_data();
  v.bytes = (*t)->byte_size();
  v.memory_info =
      OnDevice(Flag(spec_.cpu_outputs, i)) ? device_->info() : &DefaultCpuAllocator().info;
  *out = &v;
  return nullptr;
}

OrtStatus* HostKernelContext::ParallelFor(void (*fn)(void*, size_t), size_t total,
                                          size_t num_batch, void* data) {
  if (total == 0) return nullptr;
  const size_t batches =
      std::max<size_t>(num_batch == 0 ? static_cast<size_t>(ctx_.thread_count()) : num_batch, 1);
  const int64_t chunk = static_cast<int64_t>((total + batches - 1) / batches);
  ctx_.ParallelFor(static_cast<int64_t>(total), std::max<int64_t>(chunk, 1),
                   [&](int64_t begin, int64_t end) {
                     for (int64_t i = begin; i < end; ++i) fn(data, static_cast<size_t>(i));
                   });
  return nullptr;
}

int HostKernelContext::MissingOutput() const {
  for (size_t i = 0; i < b_.outputs.size(); ++i) {
    if (b_.outputs[i].data == nullptr && !Flag(spec_.omitted_outputs, i)) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

}  // namespace nxrt::ort_plugin
