// ep/cpu/kernels/tensor/register_tensor.cpp: the tensor (data movement) family's kernel table.
//
// Layer: nxrt_ep_cpu. One entry per (op, opset range) with the dtypes of the ONNX schema in force
// over that range (onnx/defs/tensor/defs.cc and old.cc; opsets 18+ from the ONNX changelog); a
// range ends where a later schema version changed the types or the semantics. Tile before opset
// 6 is not covered (its `tiles`/`axis` inputs are typed as the data, which no exporter writes).
// Unique leaves out the complex types, which have no order to sort by.
#include <utility>
#include <vector>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/register.h"
#include "ep/cpu/kernels/tensor/tensor.h"

namespace nxrt::cpu {
namespace {

using kernels::Bind;
using kernels::BindVariadic;
using kernels::CompressFactory;
using kernels::ConcatFactory;
using kernels::DepthToSpaceFactory;
using kernels::ExpandFactory;
using kernels::FloatTypes;
using kernels::GatherElementsFactory;
using kernels::GatherFactory;
using kernels::GatherNDFactory;
using kernels::NumericTypes;
using kernels::OneHotFactory;
using kernels::OnnxKernel;
using kernels::PadFactory;
using kernels::ResizeFactory;
using kernels::ReverseSequenceFactory;
using kernels::SameType;
using kernels::ScatterElementsFactory;
using kernels::ScatterNDFactory;
using kernels::SliceFactory;
using kernels::SpaceToDepthFactory;
using kernels::SplitFactory;
using kernels::TileFactory;
using kernels::TopKFactory;
using kernels::TransposeFactory;
using kernels::TriluFactory;
using kernels::UniqueFactory;
using kernels::UpsampleFactory;
using Types = std::vector<DataType>;

// The schemas' "all tensor types" before opset 13 added bfloat16.
Types AllTypesNoBf16() {
  return kernels::Union(kernels::NumericTypes(), {DataType::kBool, DataType::kString,
                                                  DataType::kComplex64, DataType::kComplex128});
}

// The opset's "all tensor types": with bfloat16 from opset 13.
Types All(int since) { return since >= 13 ? kernels::AllTypes() : AllTypesNoBf16(); }

// Single-type inputs (Expand's shape, Resize's scales) and the int32/int64 index type Tind.
Types Int64() { return {DataType::kInt64}; }
Types Float() { return {DataType::kFloat}; }
Types Index() { return {DataType::kInt32, DataType::kInt64}; }

// An op whose input 0 and output are T and whose inputs `indices` are Tind.
ep::KernelDef Indexed(const char* op, int since, int until, std::vector<int> t_inputs,
                      std::vector<int> indices, Types index_types, ep::KernelFactory factory) {
  return OnnxKernel(op, since, until,
                    {Bind("T", std::move(t_inputs), {0}, All(since)),
                     Bind("Tind", std::move(indices), {}, std::move(index_types))},
                    std::move(factory));
}

}  // namespace

Status RegisterTensorKernels(ep::OpRegistry& registry) {
  std::vector<ep::KernelDef> defs;
  defs.push_back(SameType("Transpose", 1, 12, All(1), TransposeFactory()));
  defs.push_back(SameType("Transpose", 13, kLatest, All(13), TransposeFactory()));
  defs.push_back(SameType("DepthToSpace", 1, 10, All(1), DepthToSpaceFactory()));
  defs.push_back(SameType("DepthToSpace", 11, 12, All(11), DepthToSpaceFactory()));
  defs.push_back(SameType("DepthToSpace", 13, kLatest, All(13), DepthToSpaceFactory()));
  defs.push_back(SameType("SpaceToDepth", 1, 12, All(1), SpaceToDepthFactory()));
  defs.push_back(SameType("SpaceToDepth", 13, kLatest, All(13), SpaceToDepthFactory()));

  const auto concat = [](int since, int until, Types types) {
    return OnnxKernel("Concat", since, until, {BindVariadic("T", 0, {0}, std::move(types))},
                      ConcatFactory());
  };
  defs.push_back(concat(1, 3, FloatTypes()));
  defs.push_back(concat(4, 10, All(4)));
  defs.push_back(concat(11, 12, All(11)));
  defs.push_back(concat(13, kLatest, All(13)));

  const auto split = [](int since, int until, Types types, Types split_types) {
    return OnnxKernel("Split", since, until,
                      {Bind("T", {0}, {0}, std::move(types)),
                       Bind("split", {1}, {}, std::move(split_types))},
                      SplitFactory());
  };
  defs.push_back(split(1, 1, FloatTypes(), FloatTypes()));
  defs.push_back(split(2, 10, All(2), Int64()));
  defs.push_back(split(11, 12, All(11), Int64()));
  defs.push_back(split(13, 17, All(13), Int64()));
  defs.push_back(split(18, kLatest, All(18), Int64()));

  defs.push_back(SameType("Slice", 1, 9, All(1), SliceFactory()));
  defs.push_back(Indexed("Slice", 10, 10, {0}, {1, 2, 3, 4}, Index(), SliceFactory()));
  defs.push_back(Indexed("Slice", 11, 12, {0}, {1, 2, 3, 4}, Index(), SliceFactory()));
  defs.push_back(Indexed("Slice", 13, kLatest, {0}, {1, 2, 3, 4}, Index(), SliceFactory()));

  defs.push_back(Indexed("Gather", 1, 10, {0}, {1}, Index(), GatherFactory()));
  defs.push_back(Indexed("Gather", 11, 12, {0}, {1}, Index(), GatherFactory()));
  defs.push_back(Indexed("Gather", 13, kLatest, {0}, {1}, Index(), GatherFactory()));
  defs.push_back(Indexed("GatherElements", 11, 12, {0}, {1}, Index(), GatherElementsFactory()));
  defs.push_back(
      Indexed("GatherElements", 13, kLatest, {0}, {1}, Index(), GatherElementsFactory()));
  defs.push_back(Indexed("GatherND", 11, 11, {0}, {1}, Int64(), GatherNDFactory()));
  defs.push_back(Indexed("GatherND", 12, 12, {0}, {1}, Int64(), GatherNDFactory()));
  defs.push_back(Indexed("GatherND", 13, kLatest, {0}, {1}, Int64(), GatherNDFactory()));

  defs.push_back(Indexed("Scatter", 9, 10, {0, 2}, {1}, Index(), ScatterElementsFactory()));
  for (auto [since, until] : {std::pair{11, 12}, {13, 15}, {16, 17}, {18, kLatest}}) {
    defs.push_back(Indexed("ScatterElements", since, until, {0, 2}, {1}, Index(),
                           ScatterElementsFactory()));
    defs.push_back(
        Indexed("ScatterND", since, until, {0, 2}, {1}, Int64(), ScatterNDFactory()));
  }

  defs.push_back(Indexed("Tile", 6, 12, {0}, {1}, Int64(), TileFactory()));
  defs.push_back(Indexed("Tile", 13, kLatest, {0}, {1}, Int64(), TileFactory()));
  defs.push_back(Indexed("Expand", 8, 12, {0}, {1}, Int64(), ExpandFactory()));
  defs.push_back(Indexed("Expand", 13, kLatest, {0}, {1}, Int64(), ExpandFactory()));

  const auto pad = [](int since, int until, Types types) {
    return OnnxKernel("Pad", since, until,
                      {Bind("T", {0, 2}, {0}, std::move(types)), Bind("pads", {1}, {}, Int64()),
                       Bind("Tind", {3}, {}, Index())},
                      PadFactory());
  };
  defs.push_back(pad(1, 1, FloatTypes()));
  defs.push_back(pad(2, 10, FloatTypes()));
  defs.push_back(pad(11, 12, NumericTypes()));
  defs.push_back(pad(13, 17, All(13)));
  defs.push_back(pad(18, 18, All(18)));
  defs.push_back(pad(19, kLatest, All(19)));

  defs.push_back(OnnxKernel("Resize", 10, 10,
                            {Bind("T", {0}, {0}, All(10)), Bind("scales", {1}, {}, Float())},
                            ResizeFactory()));
  for (auto [since, until] : {std::pair{11, 12}, {13, 17}, {18, 18}, {19, kLatest}}) {
    defs.push_back(OnnxKernel("Resize", since, until,
                              {Bind("T1", {0}, {0}, All(since)),
                               Bind("T2", {1}, {}, FloatTypes()), Bind("scales", {2}, {}, Float()),
                               Bind("sizes", {3}, {}, Int64())},
                              ResizeFactory()));
  }
  defs.push_back(SameType("Upsample", 7, 8, All(7), UpsampleFactory()));
  defs.push_back(OnnxKernel("Upsample", 9, 9,
                            {Bind("T", {0}, {0}, All(9)), Bind("scales", {1}, {}, Float())},
                            UpsampleFactory()));

  defs.push_back(OnnxKernel("Trilu", 14, kLatest,
                            {Bind("T", {0}, {0}, All(14)), Bind("k", {1}, {}, Int64())},
                            TriluFactory()));
  for (auto [since, until] : {std::pair{9, 10}, {11, kLatest}}) {
    defs.push_back(OnnxKernel("Compress", since, until,
                              {Bind("T", {0}, {0}, AllTypesNoBf16()),
                               Bind("T1", {1}, {}, {DataType::kBool})},
                              CompressFactory()));
    defs.push_back(OnnxKernel("OneHot", since, until,
                              {Bind("T1", {0}, {}, NumericTypes()),
                               Bind("T2", {1}, {}, NumericTypes()),
                               Bind("T3", {2}, {0}, AllTypesNoBf16())},
                              OneHotFactory()));
  }
  defs.push_back(OnnxKernel("ReverseSequence", 10, kLatest,
                            {Bind("T", {0}, {0}, AllTypesNoBf16()),
                             Bind("sequence_lens", {1}, {}, Int64())},
                            ReverseSequenceFactory()));
  // TopK: the float types until opset 11 added the integers; indices are int64.
  const auto topk = [](int since, int until, Types types) {
    return OnnxKernel("TopK", since, until,
                      {Bind("T", {0}, {0}, std::move(types)), Bind("K", {1}, {}, Int64()),
                       Bind("I", {}, {1}, Int64())},
                      TopKFactory());
  };
  defs.push_back(topk(1, 9, FloatTypes()));
  defs.push_back(topk(10, 10, FloatTypes()));
  defs.push_back(topk(11, kLatest, NumericTypes()));
  // Unique over the types with an order (not complex).
  defs.push_back(OnnxKernel(
      "Unique", 11, kLatest,
      {Bind("T", {0}, {0}, kernels::Union(NumericTypes(), {DataType::kBool, DataType::kString}))},
      UniqueFactory()));
  return kernels::RegisterAll(registry, std::move(defs));
}

}  // namespace nxrt::cpu
