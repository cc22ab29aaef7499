// ep/cpu/kernels/contrib/register_contrib.cpp: the contrib family's kernel table, ONNX Runtime's
// com.microsoft operators at version 1 with the type constraints of ORT's
// docs/ContribOperators.md, restricted to what math/contrib/ computes (float).
#include <utility>
#include <vector>

#include "ep/cpu/kernels/contrib/contrib.h"
#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/register.h"

namespace nxrt::cpu {
namespace {

using kernels::Bind;
using Types = std::vector<DataType>;

ep::KernelDef MsKernel(std::string op_type, std::vector<ep::TypeConstraint> types,
                       ep::KernelFactory factory) {
  return ep::KernelDef{kernels::kMsDomain, std::move(op_type), 1, 1, std::move(types),
                       std::move(factory), nullptr};
}

}  // namespace

Status RegisterContribKernels(ep::OpRegistry& registry) {
  const Types f32 = {DataType::kFloat};
  std::vector<ep::KernelDef> defs;
  // MatMulNBits: T1 A, scales, bias and Y; T2 B; T3 zero points (packed uint8 or T1); T4 g_idx.
  defs.push_back(MsKernel("MatMulNBits",
                          {Bind("T1", {0, 2, 5}, {0}, f32), Bind("T2", {1}, {}, {DataType::kUint8}),
                           Bind("T3", {3}, {}, {DataType::kUint8, DataType::kFloat}),
                           Bind("T4", {4}, {}, {DataType::kInt32})},
                          kernels::MatMulNBitsFactory()));

  defs.push_back(MsKernel("SkipLayerNormalization",
                          {Bind("T", {0, 1, 2, 3, 4}, {0, 3}, f32), Bind("U", {}, {1, 2}, f32)},
                          kernels::SkipLayerNormalizationFactory(false)));
  defs.push_back(MsKernel("SkipSimplifiedLayerNormalization",
                          {Bind("T", {0, 1, 2, 3}, {0, 3}, f32), Bind("U", {}, {1, 2}, f32)},
                          kernels::SkipLayerNormalizationFactory(true)));
  // ORT registers its RMSNorm schema in the ONNX domain at version 1, so a node of any ai.onnx
  // opset finds it.
  defs.push_back(ep::KernelDef{"", "SimplifiedLayerNormalization", 1, ep::kLatestOpset,
                               {Bind("T", {0}, {0}, f32), Bind("V", {1}, {}, f32),
                                Bind("U", {}, {1}, f32)},
                               kernels::SimplifiedLayerNormalizationFactory(), nullptr});
  defs.push_back(MsKernel("EmbedLayerNormalization",
                          {Bind("T1", {0, 1, 7, 8}, {1}, {DataType::kInt32}),
                           Bind("T", {2, 3, 4, 5, 6}, {0, 2}, f32)},
                          kernels::EmbedLayerNormalizationFactory()));
  using contrib::GeluKind;
  defs.push_back(MsKernel("FastGelu", {Bind("T", {0, 1}, {0}, f32)},
                          kernels::GeluFactory(GeluKind::kTanh)));
  defs.push_back(MsKernel("BiasGelu", {Bind("T", {0, 1}, {0}, f32)},
                          kernels::GeluFactory(GeluKind::kErf)));
  defs.push_back(MsKernel("Gelu", {Bind("T", {0}, {0}, f32)}, kernels::GeluFactory(GeluKind::kErf)));
  defs.push_back(MsKernel("QuickGelu", {Bind("T", {0}, {0}, f32)},
                          kernels::GeluFactory(GeluKind::kQuick)));
  defs.push_back(MsKernel("BiasAdd", {Bind("T", {0, 1, 2}, {0}, f32)}, kernels::BiasAddFactory()));

  defs.push_back(MsKernel("RotaryEmbedding",
                          {Bind("T", {0, 2, 3}, {0}, f32), Bind("M", {1}, {}, {DataType::kInt64})},
                          kernels::RotaryEmbeddingFactory()));
  defs.push_back(MsKernel("GroupQueryAttention",
                          {Bind("T", {0, 1, 2, 7, 8}, {0}, f32),
                           Bind("T_CACHE", {3, 4}, {1, 2}, f32),
                           Bind("M", {5, 6}, {}, {DataType::kInt32})},
                          kernels::GroupQueryAttentionFactory()));
  const Types int8s = {DataType::kInt8, DataType::kUint8};
  for (auto [op, kind] : {std::pair{"QLinearAdd", contrib::QLinearBinaryKind::kAdd},
                          {"QLinearMul", contrib::QLinearBinaryKind::kMul}}) {
    defs.push_back(MsKernel(op, {Bind("T", {0, 2, 3, 5, 7}, {0}, int8s),
                                 Bind("S", {1, 4, 6}, {}, f32)},
                            kernels::QLinearBinaryFactory(kind)));
  }
  defs.push_back(MsKernel("QLinearSigmoid",
                          {Bind("T", {0, 2, 4}, {0}, int8s), Bind("S", {1, 3}, {}, f32)},
                          kernels::QLinearSigmoidFactory()));
  defs.push_back(MsKernel("QLinearGlobalAveragePool",
                          {Bind("T", {0, 2, 4}, {0}, int8s), Bind("S", {1, 3}, {}, f32)},
                          kernels::QLinearGlobalAveragePoolFactory()));
  defs.push_back(MsKernel("QLinearConcat",
                          {Bind("TF", {0}, {}, f32), Bind("T8", {1}, {0}, int8s)},
                          kernels::QLinearConcatFactory()));
  defs.push_back(MsKernel("MatMulIntegerToFloat",
                          {Bind("T1", {0, 4}, {}, int8s), Bind("T2", {1, 5}, {}, int8s),
                           Bind("T3", {2, 3, 6}, {0}, f32)},
                          kernels::IntegerToFloatFactory(false)));
  defs.push_back(MsKernel("DynamicQuantizeMatMul",
                          {Bind("T1", {0, 2, 4}, {0}, f32), Bind("T2", {1, 3}, {}, int8s)},
                          kernels::IntegerToFloatFactory(true)));
  defs.push_back(MsKernel("MultiHeadAttention",
                          {Bind("T", {0, 1, 2, 3, 5}, {0}, f32),
                           Bind("M", {4}, {}, {DataType::kInt32})},
                          kernels::MultiHeadAttentionFactory()));
  defs.push_back(MsKernel("Attention",
                          {Bind("T", {0, 1, 2, 5}, {0}, f32),
                           Bind("M", {3}, {}, {DataType::kInt32})},
                          kernels::AttentionFactory()));
  for (const char* op : {"FusedMatMul", "TransposeMatMul"}) {
    defs.push_back(MsKernel(op, {Bind("T", {0, 1}, {0}, f32)}, kernels::ContribFusedMatMulFactory()));
  }
  return kernels::RegisterAll(registry, std::move(defs));
}

}  // namespace nxrt::cpu
