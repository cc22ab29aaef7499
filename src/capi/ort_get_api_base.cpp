// capi/ort_get_api_base.cpp: the symbols libonnxruntime.so.1 exports, those ONNX Runtime 1.30's
// library exports (version VERS_1.30.0, onnxruntime.map): OrtGetApiBase, and the provider
// factories of cpu_provider_factory.h and ORT's CUDA and TensorRT headers.
//
// Layer: the libonnxruntime shared library only. OrtSessionOptionsAppendExecutionProvider_CPU
// appends nxrt's CPU EP; the CUDA and TensorRT factories return ORT_NOT_IMPLEMENTED naming
// themselves (nxrt has neither EP), so an application linked against ORT that calls them loads
// and gets an error it can handle.
#include "capi/capi.h"
#include "ep/ort_plugin/api_table.h"

#define NXRT_EXPORT extern "C" __attribute__((visibility("default")))

NXRT_EXPORT const OrtApiBase* ORT_API_CALL OrtGetApiBase(void) noexcept {
  return nxrt::capi::ApiBase();
}

NXRT_EXPORT OrtStatus* ORT_API_CALL OrtSessionOptionsAppendExecutionProvider_CPU(
    OrtSessionOptions* options, int /*use_arena*/) noexcept {
  return nxrt::capi::AppendCpuExecutionProvider(options);
}

NXRT_EXPORT OrtStatus* ORT_API_CALL OrtSessionOptionsAppendExecutionProvider_CUDA(
    OrtSessionOptions* /*options*/, int /*device_id*/) noexcept {
  return nxrt::ort_plugin::MakeOrtStatus(
      ORT_NOT_IMPLEMENTED,
      "OrtSessionOptionsAppendExecutionProvider_CUDA is not implemented by nxrt: nxrt has no CUDA "
      "execution provider");
}

NXRT_EXPORT OrtStatus* ORT_API_CALL OrtSessionOptionsAppendExecutionProvider_Tensorrt(
    OrtSessionOptions* /*options*/, int /*device_id*/) noexcept {
  return nxrt::ort_plugin::MakeOrtStatus(
      ORT_NOT_IMPLEMENTED,
      "OrtSessionOptionsAppendExecutionProvider_Tensorrt is not implemented by nxrt: nxrt has no "
      "TensorRT execution provider");
}
