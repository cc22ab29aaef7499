// ep/cpu/kernels/random/register_random.cpp: the random family's kernel table.
//
// Layer: nxrt_ep_cpu. One entry per (op, opset range) with the dtypes of the ONNX schema in force
// (onnx/defs/generator/defs.cc, math/defs.cc, nn/defs.cc). The -Like ops accept any input type
// (only its shape is used) and output a float type; Dropout from opset 12 on has the ratio and
// training_mode inputs (its opset 7-11 forms, inference only, are in the elementwise family).
#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/random/random.h"
#include "ep/cpu/kernels/register.h"

namespace nxrt::cpu {

Status RegisterRandomKernels(ep::OpRegistry& registry) {
  using kernels::Bind;
  using kernels::FloatTypes;
  using kernels::OnnxKernel;
  using Types = std::vector<DataType>;
  const Types like_inputs = kernels::Union(kernels::NumericTypes(),
                                           {DataType::kBool, DataType::kString,
                                            DataType::kComplex64, DataType::kComplex128});
  const Types bernoulli_outputs =
      kernels::Union(kernels::NumericTypes(), {DataType::kBFloat16, DataType::kBool});
  std::vector<ep::KernelDef> defs;
  defs.push_back(OnnxKernel("RandomUniform", 1, kLatest, {Bind("T", {}, {0}, FloatTypes())},
                            kernels::RandomUniformFactory(/*like=*/false)));
  defs.push_back(OnnxKernel("RandomNormal", 1, kLatest, {Bind("T", {}, {0}, FloatTypes())},
                            kernels::RandomNormalFactory(/*like=*/false)));
  defs.push_back(OnnxKernel("RandomUniformLike", 1, kLatest,
                            {Bind("T1", {0}, {}, like_inputs), Bind("T2", {}, {0}, FloatTypes())},
                            kernels::RandomUniformFactory(/*like=*/true)));
  defs.push_back(OnnxKernel("RandomNormalLike", 1, kLatest,
                            {Bind("T1", {0}, {}, like_inputs), Bind("T2", {}, {0}, FloatTypes())},
                            kernels::RandomNormalFactory(/*like=*/true)));
  defs.push_back(OnnxKernel("Bernoulli", 15, kLatest,
                            {Bind("T1", {0}, {}, FloatTypes()),
                             Bind("T2", {}, {0}, bernoulli_outputs)},
                            kernels::BernoulliFactory()));
  defs.push_back(OnnxKernel("Multinomial", 7, kLatest,
                            {Bind("T1", {0}, {}, FloatTypes()),
                             Bind("T2", {}, {0}, {DataType::kInt32, DataType::kInt64})},
                            kernels::MultinomialFactory()));
  defs.push_back(OnnxKernel("Dropout", 12, 12,
                            {Bind("T", {0}, {0}, FloatTypes()), Bind("T1", {1}, {}, FloatTypes()),
                             Bind("T2", {2}, {1}, {DataType::kBool})},
                            kernels::DropoutTrainingFactory()));
  defs.push_back(OnnxKernel("Dropout", 13, kLatest,
                            {Bind("T", {0}, {0}, kernels::FloatTypesBf16()),
                             Bind("T1", {1}, {}, FloatTypes()),
                             Bind("T2", {2}, {1}, {DataType::kBool})},
                            kernels::DropoutTrainingFactory()));
  return kernels::RegisterAll(registry, std::move(defs));
}

}  // namespace nxrt::cpu
