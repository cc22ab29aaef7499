// ep/cpu/kernels/nn/register_nn.cpp: the nn family's kernel table.
//
// Layer: nxrt_ep_cpu. One entry per (op, opset range) with the dtypes of the ONNX schema in force
// over that range (onnx/defs/math/defs.cc, nn/defs.cc, rnn/defs.cc and their old.cc; opsets 18+
// from the ONNX changelog), restricted to what the reference math computes; a range ends where a
// later schema version changed the types or the semantics.
#include <utility>
#include <vector>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/nn/nn.h"
#include "ep/cpu/kernels/register.h"
#include "ep/cpu/nxrt_ops.h"

namespace nxrt::cpu {
namespace {

using kernels::Bind;
using kernels::FloatTypes;
using kernels::OnnxKernel;
using Types = std::vector<DataType>;

// The integer types MatMul and Gemm gained at opset 9.
Types MatMulInts() {
  return {DataType::kUint32, DataType::kUint64, DataType::kInt32, DataType::kInt64};
}

// An op whose every input and output 0 are one type T.
ep::KernelDef Uniform(const char* op, int since, int until, std::vector<int> inputs, Types types,
                      ep::KernelFactory factory) {
  return OnnxKernel(op, since, until, {Bind("T", std::move(inputs), {0}, std::move(types))},
                    std::move(factory));
}

}  // namespace

Status RegisterNnKernels(ep::OpRegistry& registry) {
  using kernels::Union;
  const Types matmul9 = Union(FloatTypes(), MatMulInts());
  const Types matmul13 = Union(matmul9, {DataType::kBFloat16});
  std::vector<ep::KernelDef> defs;
  defs.push_back(Uniform("MatMul", 1, 8, {0, 1}, FloatTypes(), kernels::MatMulFactory()));
  defs.push_back(Uniform("MatMul", 9, 12, {0, 1}, matmul9, kernels::MatMulFactory()));
  defs.push_back(Uniform("MatMul", 13, kLatest, {0, 1}, matmul13, kernels::MatMulFactory()));
  defs.push_back(Uniform("Gemm", 1, 5, {0, 1, 2}, FloatTypes(), kernels::GemmFactory()));
  defs.push_back(Uniform("Gemm", 6, 6, {0, 1, 2}, FloatTypes(), kernels::GemmFactory()));
  defs.push_back(Uniform("Gemm", 7, 8, {0, 1, 2}, FloatTypes(), kernels::GemmFactory()));
  defs.push_back(Uniform("Gemm", 9, 10, {0, 1, 2}, matmul9, kernels::GemmFactory()));
  defs.push_back(Uniform("Gemm", 11, 12, {0, 1, 2}, matmul9, kernels::GemmFactory()));
  defs.push_back(Uniform("Gemm", 13, kLatest, {0, 1, 2}, matmul13, kernels::GemmFactory()));

  for (auto [since, until] : {std::pair{1, 10}, {11, kLatest}}) {
    defs.push_back(Uniform("Conv", since, until, {0, 1, 2}, FloatTypes(), kernels::ConvFactory()));
    defs.push_back(Uniform("ConvTranspose", since, until, {0, 1, 2}, FloatTypes(),
                           kernels::ConvTransposeFactory()));
  }
  // nxrt's fused operators (matmul_activation_fusion, conv_activation_fusion): MatMul, Gemm and
  // Conv with a bias/residual and an activation as oneDNN post-ops.
  defs.push_back(kernels::NxrtKernel(nxrt_ops::kFusedMatMul,
                                     {Bind("T", {0, 1, 2}, {0}, FloatTypes())},
                                     kernels::FusedMatMulFactory()));
  defs.push_back(kernels::NxrtKernel(nxrt_ops::kFusedGemm,
                                     {Bind("T", {0, 1, 2}, {0}, FloatTypes())},
                                     kernels::FusedGemmFactory()));
  defs.push_back(kernels::NxrtKernel(nxrt_ops::kFusedConv,
                                     {Bind("T", {0, 1, 2, 3}, {0}, FloatTypes())},
                                     kernels::FusedConvFactory()));

  const auto max_pool = [](int since, int until, Types types) {
    return OnnxKernel("MaxPool", since, until,
                      {Bind("T", {0}, {0}, std::move(types)),
                       Bind("I", {}, {1}, {DataType::kInt64})},
                      kernels::PoolFactory(nn::PoolKind::kMax));
  };
  defs.push_back(max_pool(1, 7, FloatTypes()));
  defs.push_back(max_pool(8, 9, FloatTypes()));
  defs.push_back(max_pool(10, 10, FloatTypes()));
  defs.push_back(max_pool(11, 11, FloatTypes()));
  defs.push_back(max_pool(12, kLatest, Union(FloatTypes(), {DataType::kInt8, DataType::kUint8})));
  for (auto [since, until] : {std::pair{1, 6}, {7, 9}, {10, 10}, {11, 18}, {19, kLatest}}) {
    defs.push_back(Uniform("AveragePool", since, until, {0}, FloatTypes(),
                           kernels::PoolFactory(nn::PoolKind::kAverage)));
  }
  for (auto [since, until] : {std::pair{1, 1}, {2, 10}, {11, 17}, {18, kLatest}}) {
    defs.push_back(Uniform("LpPool", since, until, {0}, FloatTypes(),
                           kernels::PoolFactory(nn::PoolKind::kLp)));
  }
  defs.push_back(Uniform("GlobalMaxPool", 1, kLatest, {0}, FloatTypes(),
                         kernels::GlobalPoolFactory(nn::PoolKind::kMax)));
  defs.push_back(Uniform("GlobalAveragePool", 1, kLatest, {0}, FloatTypes(),
                         kernels::GlobalPoolFactory(nn::PoolKind::kAverage)));
  // nxrt's channels-last pools ([N, H, W, C]), float and double.
  const Types nhwc_types = {DataType::kFloat, DataType::kDouble};
  defs.push_back(kernels::NxrtKernel(nxrt_ops::kNhwcMaxPool, {Bind("T", {0}, {0}, nhwc_types)},
                                     kernels::NhwcPoolFactory(nn::PoolKind::kMax)));
  defs.push_back(kernels::NxrtKernel(nxrt_ops::kNhwcAveragePool, {Bind("T", {0}, {0}, nhwc_types)},
                                     kernels::NhwcPoolFactory(nn::PoolKind::kAverage)));
  defs.push_back(kernels::NxrtKernel(nxrt_ops::kNhwcGlobalAveragePool,
                                     {Bind("T", {0}, {0}, nhwc_types)},
                                     kernels::NhwcGlobalAveragePoolFactory()));
  defs.push_back(Uniform("GlobalLpPool", 1, 1, {0}, FloatTypes(),
                         kernels::GlobalPoolFactory(nn::PoolKind::kLp)));
  defs.push_back(Uniform("GlobalLpPool", 2, kLatest, {0}, FloatTypes(),
                         kernels::GlobalPoolFactory(nn::PoolKind::kLp)));

  // Recurrent ops: T binds the float inputs and every output, T1 the int32 sequence_lens.
  const auto recurrent = [](const char* op, nn::RnnCell cell, int since, int until) {
    const bool lstm = cell == nn::RnnCell::kLstm;
    return OnnxKernel(op, since, until,
                      {Bind("T", lstm ? std::vector<int>{0, 1, 2, 3, 5, 6, 7}
                                      : std::vector<int>{0, 1, 2, 3, 5},
                            lstm ? std::vector<int>{0, 1, 2} : std::vector<int>{0, 1},
                            FloatTypes()),
                       Bind("T1", {4}, {}, {DataType::kInt32})},
                      kernels::RnnFactory(cell));
  };
  for (auto [since, until] : {std::pair{1, 6}, {7, 13}, {14, kLatest}}) {
    defs.push_back(recurrent("LSTM", nn::RnnCell::kLstm, since, until));
    defs.push_back(recurrent("RNN", nn::RnnCell::kRnn, since, until));
  }
  for (auto [since, until] : {std::pair{1, 2}, {3, 6}, {7, 13}, {14, kLatest}}) {
    defs.push_back(recurrent("GRU", nn::RnnCell::kGru, since, until));
  }

  // GridSample-16 (2-D; opset 20 made it N-D): X T1, grid T2; this kernel samples X's type.
  const Types grid_types = {DataType::kFloat, DataType::kDouble, DataType::kFloat16};
  defs.push_back(OnnxKernel("GridSample", 16, 19,
                            {Bind("T1", {0}, {0}, grid_types), Bind("T2", {1}, {}, grid_types)},
                            kernels::GridSampleFactory()));
  for (auto [since, until] : {std::pair{10, 10}, {11, kLatest}}) {
    defs.push_back(OnnxKernel("NonMaxSuppression", since, until,
                              {Bind("F", {0, 1, 3, 4}, {}, {DataType::kFloat}),
                               Bind("I", {2}, {0}, {DataType::kInt64})},
                              kernels::NonMaxSuppressionFactory()));
  }
  defs.push_back(Uniform("LRN", 1, 12, {0}, FloatTypes(), kernels::LrnFactory()));
  defs.push_back(Uniform("LRN", 13, kLatest, {0}, kernels::FloatTypesBf16(), kernels::LrnFactory()));
  defs.push_back(OnnxKernel("Einsum", 12, kLatest,
                            {kernels::BindVariadic("T", 0, {0}, kernels::NumericTypes())},
                            kernels::EinsumFactory()));
  defs.push_back(Uniform("Det", 11, kLatest, {0}, FloatTypes(), kernels::DetFactory()));
  // RoiAlign-16 added coordinate_transformation_mode (opset 10 is output_half_pixel).
  for (auto [since, until] : {std::pair{10, 15}, {16, kLatest}}) {
    defs.push_back(OnnxKernel("RoiAlign", since, until,
                              {Bind("T1", {0, 1}, {0}, FloatTypes()),
                               Bind("T2", {2}, {}, {DataType::kInt64})},
                              kernels::RoiAlignFactory()));
  }
  defs.push_back(Uniform("MaxRoiPool", 1, kLatest, {0, 1}, FloatTypes(),
                         kernels::MaxRoiPoolFactory()));
  // MaxUnpool-11 only clarified how output_shape pads the output.
  for (auto [since, until] : {std::pair{9, 10}, {11, kLatest}}) {
    defs.push_back(OnnxKernel("MaxUnpool", since, until,
                              {Bind("T1", {0}, {0}, FloatTypes()),
                               Bind("T2", {1, 2}, {}, {DataType::kInt64})},
                              kernels::MaxUnpoolFactory()));
  }
  return kernels::RegisterAll(registry, std::move(defs));
}

}  // namespace nxrt::cpu
