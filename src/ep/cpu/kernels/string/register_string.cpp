// ep/cpu/kernels/string/register_string.cpp: the string family's kernel table.
//
// Layer: nxrt_ep_cpu. One entry per (op, opset range) with the dtypes of the ONNX schema
// (onnx/defs/nlp/defs.cc, onnx/defs/text/defs.cc).
#include <utility>
#include <vector>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/register.h"
#include "ep/cpu/kernels/string/string.h"

namespace nxrt::cpu {

Status RegisterStringKernels(ep::OpRegistry& registry) {
  using kernels::Bind;
  using kernels::OnnxKernel;
  std::vector<ep::KernelDef> defs;
  defs.push_back(OnnxKernel("StringNormalizer", 10, ep::kLatestOpset,
                            {Bind("X", {0}, {0}, {DataType::kString})},
                            kernels::StringNormalizerFactory()));
  defs.push_back(OnnxKernel(
      "TfIdfVectorizer", 9, ep::kLatestOpset,
      {Bind("T", {0}, {}, {DataType::kString, DataType::kInt32, DataType::kInt64}),
       Bind("T1", {}, {0}, {DataType::kFloat})},
      kernels::TfIdfVectorizerFactory()));
  return kernels::RegisterAll(registry, std::move(defs));
}

}  // namespace nxrt::cpu
