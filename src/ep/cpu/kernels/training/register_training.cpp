// ep/cpu/kernels/training/register_training.cpp: the training family's kernel table.
//
// Layer: nxrt_ep_cpu. The optimizers of the ai.onnx.preview.training domain, version 1
// (onnx/defs/training/defs.cc): T1 (R) and T3 (X, G, states) float or double, T2 (T) int64.
// BatchNormalization's training mode is reached through the normalisation family's entry.
// Gradient (same domain) has no kernel: it differentiates the graph around it, which a kernel,
// seeing only its own node, cannot do; the session expands it into ordinary nodes before
// placement (optimizer/passes/gradient_expansion.cpp).
#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/register.h"
#include "ep/cpu/kernels/training/training.h"

namespace nxrt::cpu {

Status RegisterTrainingKernels(ep::OpRegistry& registry) {
  using kernels::Bind;
  using kernels::BindVariadic;
  const std::vector<DataType> floats = {DataType::kFloat, DataType::kDouble};
  const std::pair<const char*, math::OptimizerKind> ops[] = {
      {"Adagrad", math::OptimizerKind::kAdagrad},
      {"Momentum", math::OptimizerKind::kMomentum},
      {"Adam", math::OptimizerKind::kAdam}};
  std::vector<ep::KernelDef> defs;
  for (auto [op, kind] : ops) {
    ep::KernelDef def;
    def.domain = "ai.onnx.preview.training";
    def.op_type = op;
    def.since_version = 1;
    def.types = {Bind("T1", {0}, {}, floats), Bind("T2", {1}, {}, {DataType::kInt64}),
                 BindVariadic("T3", 2, {}, floats)};
    def.factory = kernels::OptimizerFactory(kind);
    defs.push_back(std::move(def));
  }
  return kernels::RegisterAll(registry, std::move(defs));
}

}  // namespace nxrt::cpu
