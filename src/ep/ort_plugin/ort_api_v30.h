/* ep/ort_plugin/ort_api_v30.h: what ONNX Runtime 1.30's C API (ORT_API_VERSION 30) adds to the
 * API 29 header nxrt builds with (onnxruntime_c_api.h from npm, which stops at version 29).
 *
 * Plain C, so that gen_api_slots.py can read it with the header. Facts from ORT 1.30's
 * onnxruntime_c_api.h and its shipped library: API 30 appends one OrtApi slot (index 425) after
 * SessionOptionsSetWeightlessSourceModelBuffer; OrtEpApi keeps its 74 slots. ORT 1.30's
 * library serves GetApi(1..30) with one table of 426 slots.
 * When npm's headers reach API 30, this file goes and OrtApi itself carries the slot.
 */
#ifndef NXRT_EP_ORT_PLUGIN_ORT_API_V30_H_
#define NXRT_EP_ORT_PLUGIN_ORT_API_V30_H_

#include <stddef.h>

#include <onnxruntime_c_api.h>

/* The OrtApi slots of version 30, in struct order, laid out right after OrtApi (version 29). */
struct OrtApiSince30 {
  /* OrtApi::KernelContext_GetPreallocatedOutput (since 1.30): the output `output_index` of the
   * kernel's node when the host allocated it before Compute (e.g. a buffer the application bound),
   * else *output = NULL. The value is owned by the context. Errors: ORT_INVALID_ARGUMENT for a
   * null context or output, or an index past KernelContext_GetOutputCount. */
  ORT_API2_STATUS(KernelContext_GetPreallocatedOutput, _In_ const OrtKernelContext* context,
                  _In_ size_t output_index, _Outptr_result_maybenull_ OrtValue** output);
};

/* OrtApi as ONNX Runtime 1.30 lays it out: the API 29 struct, then the version 30 slots. A
 * pointer to it is a valid `const OrtApi*` for every version up to 30. */
struct OrtApiVersion30 {
  OrtApi v29;
  struct OrtApiSince30 v30;
};

#endif /* NXRT_EP_ORT_PLUGIN_ORT_API_V30_H_ */
