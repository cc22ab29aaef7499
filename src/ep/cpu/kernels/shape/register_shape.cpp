// ep/cpu/kernels/shape/register_shape.cpp: the shape family's kernel table.
//
// Layer: nxrt_ep_cpu. One entry per (op, opset range) with the dtypes of the ONNX schema in force
// (onnx/defs/tensor/defs.cc, generator/defs.cc and their old.cc; opsets 19-21 only widened the
// types to float8/int4, which nxrt does not have). Ops that only move bytes take every tensor
// type; those that compute take what the kernel computes.
#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/register.h"
#include "ep/cpu/kernels/shape/shape.h"

namespace nxrt::cpu {
namespace {

using kernels::Bind;
using kernels::OnnxKernel;
using kernels::SameType;
using Types = std::vector<DataType>;

// The schemas' "all tensor types" before opset 13 added bfloat16.
Types AllTypes12() {
  return kernels::Union(kernels::NumericTypes(), {DataType::kBool, DataType::kString,
                                                  DataType::kComplex64, DataType::kComplex128});
}

// An op reading only its input's shape (T) and producing int64.
ep::KernelDef ShapeReader(const char* op, int since, int until, Types types,
                          ep::KernelFactory factory) {
  return OnnxKernel(op, since, until,
                    {Bind("T", {0}, {}, std::move(types)), Bind("T1", {}, {0}, {DataType::kInt64})},
                    std::move(factory));
}

}  // namespace

Status RegisterShapeKernels(ep::OpRegistry& registry) {
  using kernels::AllTypes;
  const Types numeric_bool12 = kernels::Union(kernels::NumericTypes(), {DataType::kBool});
  std::vector<ep::KernelDef> defs;
  defs.push_back(ShapeReader("Shape", 1, 12, AllTypes12(), kernels::ShapeFactory()));
  defs.push_back(ShapeReader("Shape", 13, kLatest, AllTypes(), kernels::ShapeFactory()));
  defs.push_back(ShapeReader("Size", 1, 12, AllTypes12(), kernels::SizeFactory()));
  defs.push_back(ShapeReader("Size", 13, kLatest, AllTypes(), kernels::SizeFactory()));
  defs.push_back(SameType("Reshape", 5, 12, AllTypes12(), kernels::ReshapeFactory()));
  defs.push_back(SameType("Reshape", 13, kLatest, AllTypes(), kernels::ReshapeFactory()));
  defs.push_back(SameType("Flatten", 1, 8, kernels::FloatTypes(), kernels::FlattenFactory()));
  defs.push_back(SameType("Flatten", 9, 12, AllTypes12(), kernels::FlattenFactory()));
  defs.push_back(SameType("Flatten", 13, kLatest, AllTypes(), kernels::FlattenFactory()));
  defs.push_back(SameType("Squeeze", 1, 12, AllTypes12(), kernels::SqueezeFactory(false)));
  defs.push_back(SameType("Squeeze", 13, kLatest, AllTypes(), kernels::SqueezeFactory(true)));
  defs.push_back(SameType("Unsqueeze", 1, 12, AllTypes12(), kernels::UnsqueezeFactory(false)));
  defs.push_back(SameType("Unsqueeze", 13, kLatest, AllTypes(), kernels::UnsqueezeFactory(true)));

  defs.push_back(OnnxKernel("Constant", 1, 8, {Bind("T", {}, {0}, kernels::FloatTypes())},
                            kernels::ConstantFactory()));
  defs.push_back(OnnxKernel("Constant", 9, 12, {Bind("T", {}, {0}, AllTypes12())},
                            kernels::ConstantFactory()));
  defs.push_back(OnnxKernel("Constant", 13, kLatest, {Bind("T", {}, {0}, AllTypes())},
                            kernels::ConstantFactory()));
  defs.push_back(OnnxKernel("ConstantOfShape", 9, 19,
                            {Bind("T1", {0}, {}, {DataType::kInt64}),
                             Bind("T2", {}, {0}, numeric_bool12)},
                            kernels::ConstantOfShapeFactory()));
  defs.push_back(OnnxKernel("ConstantOfShape", 20, kLatest,
                            {Bind("T1", {0}, {}, {DataType::kInt64}),
                             Bind("T2", {}, {0}, kernels::NumericAndBoolTypes())},
                            kernels::ConstantOfShapeFactory()));
  defs.push_back(OnnxKernel("Range", 11, kLatest,
                            {Bind("T", {0, 1, 2}, {0},
                                  {DataType::kFloat, DataType::kDouble, DataType::kInt16,
                                   DataType::kInt32, DataType::kInt64})},
                            kernels::RangeFactory()));
  defs.push_back(OnnxKernel("EyeLike", 9, kLatest,
                            {Bind("T1", {0}, {}, numeric_bool12),
                             Bind("T2", {}, {0}, numeric_bool12)},
                            kernels::EyeLikeFactory()));
  defs.push_back(OnnxKernel("NonZero", 9, 12,
                            {Bind("T", {0}, {}, numeric_bool12)}, kernels::NonZeroFactory()));
  defs.push_back(OnnxKernel("NonZero", 13, kLatest,
                            {Bind("T", {0}, {}, kernels::NumericAndBoolTypes())},
                            kernels::NonZeroFactory()));
  return kernels::RegisterAll(registry, std::move(defs));
}

}  // namespace nxrt::cpu
