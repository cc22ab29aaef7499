// ep/cpu/kernels/reduction/register_reduction.cpp: the reduction family's kernel table.
//
// Layer: nxrt_ep_cpu. One entry per (op, opset range) with the dtypes of the ONNX schema in force
// (onnx/defs/reduction/defs.cc and old.cc). The axes moved from an attribute to input 1 at
// ReduceSum-13 and at every other Reduce*-18; ReduceMax/ReduceMin-20 added bool.
#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/reduction/reduction.h"
#include "ep/cpu/kernels/register.h"

namespace nxrt::cpu {
namespace {

using kernels::Bind;
using math::ReduceKind;
using Types = std::vector<DataType>;

ep::KernelDef Reduce(ReduceKind kind, int since, int until, Types types, bool axes_as_input) {
  return kernels::OnnxKernel(std::string(math::ReduceKindName(kind)), since, until,
                             {Bind("T", {0}, {0}, std::move(types))},
                             kernels::ReduceFactory(kind, axes_as_input));
}

ep::KernelDef ArgReduce(bool is_max, int since, int until, Types types) {
  return kernels::OnnxKernel(is_max ? "ArgMax" : "ArgMin", since, until,
                             {Bind("T", {0}, {}, std::move(types))},
                             kernels::ArgReduceFactory(is_max));
}

}  // namespace

Status RegisterReductionKernels(ep::OpRegistry& registry) {
  const Types types7 = kernels::ArithTypes7();
  const Types types13 = kernels::Union(types7, {DataType::kBFloat16});
  const Types max12 = kernels::Union(types7, {DataType::kUint8, DataType::kInt8});
  const Types max13 = kernels::Union(max12, {DataType::kBFloat16});
  const Types max20 = kernels::Union(max13, {DataType::kBool});
  std::vector<ep::KernelDef> defs;
  defs.push_back(Reduce(ReduceKind::kSum, 1, 12, types7, /*axes_as_input=*/false));
  defs.push_back(Reduce(ReduceKind::kSum, 13, kLatest, types13, /*axes_as_input=*/true));
  for (ReduceKind kind : {ReduceKind::kMean, ReduceKind::kProd, ReduceKind::kL1, ReduceKind::kL2,
                          ReduceKind::kLogSum, ReduceKind::kLogSumExp, ReduceKind::kSumSquare}) {
    defs.push_back(Reduce(kind, 1, 12, types7, /*axes_as_input=*/false));
    defs.push_back(Reduce(kind, 13, 17, types13, /*axes_as_input=*/false));
    defs.push_back(Reduce(kind, 18, kLatest, types13, /*axes_as_input=*/true));
  }
  for (ReduceKind kind : {ReduceKind::kMax, ReduceKind::kMin}) {
    defs.push_back(Reduce(kind, 1, 11, types7, /*axes_as_input=*/false));
    defs.push_back(Reduce(kind, 12, 12, max12, /*axes_as_input=*/false));
    defs.push_back(Reduce(kind, 13, 17, max13, /*axes_as_input=*/false));
    defs.push_back(Reduce(kind, 18, 19, max13, /*axes_as_input=*/true));
    defs.push_back(Reduce(kind, 20, kLatest, max20, /*axes_as_input=*/true));
  }
  for (bool is_max : {true, false}) {
    defs.push_back(ArgReduce(is_max, 1, 12, kernels::NumericTypes()));
    defs.push_back(ArgReduce(is_max, 13, kLatest, kernels::NumericTypesBf16()));
  }
  return kernels::RegisterAll(registry, std::move(defs));
}

}  // namespace nxrt::cpu
