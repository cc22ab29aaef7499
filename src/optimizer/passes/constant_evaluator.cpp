// optimizer/passes/constant_evaluator.cpp: see constant_evaluator.h.
#include "optimizer/passes/constant_evaluator.h"

#include <string_view>

#include "ep/cpu/cpu_execution_provider.h"
#include "ep/kernel_host.h"

namespace nxrt::opt {
namespace {

bool IsRandomOp(std::string_view op) {
  return op == "RandomNormal" || op == "RandomUniform" || op == "RandomNormalLike" ||
         op == "RandomUniformLike" || op == "Multinomial" || op == "Bernoulli" || op == "Dropout";
}

}  // namespace

const ep::OpRegistry& CpuKernels() {
  static const cpu::CpuExecutionProvider cpu;
  return cpu.registry();
}

const Tensor* ConstantEvaluator::Known(ir::ValueId v) const {
  auto it = replaced_.find(v);
  return it != replaced_.end() ? &it->second : editor_->Constant(v);
}

bool ConstantEvaluator::CanFold(const ir::Node& node) const {
  if (!node.domain.empty() || IsRandomOp(node.op_type) || node.op_type == "DequantizeLinear" ||
      node.HasSubgraphs()) {
    return false;
  }
  for (ir::ValueId in : node.inputs) {
    if (in != ir::kNoValue && Known(in) == nullptr) return false;
  }
  for (ir::ValueId out : node.outputs) {
    if (out == ir::kNoValue) continue;
    const ir::TypeInfo::Kind kind = editor_->value(out).type.kind;
    if (kind != ir::TypeInfo::Kind::kTensor && kind != ir::TypeInfo::Kind::kUnknown) return false;
  }
  return true;
}

Result<bool> ConstantEvaluator::Fold(ir::NodeId id) {
  const ir::Node& node = editor_->node(id);
  // Constant(value = tensor) is its attribute: no kernel needed, so also when the model gives it
  // a type its opset's schema does not list (old PyTorch exports write int64 Constant-1 nodes).
  if (node.op_type == "Constant" && node.outputs.size() == 1 && node.outputs[0] != ir::kNoValue) {
    const ir::Attribute* value = node.FindAttribute("value");
    if (value != nullptr && value->type == ir::Attribute::Type::kTensor) {
      Replace(id, node.outputs[0], value->t);
      return true;
    }
  }
  std::vector<Tensor> inputs;
  ep::KernelRunOptions options;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const Tensor* t = node.inputs[i] == ir::kNoValue ? nullptr : Known(node.inputs[i]);
    inputs.push_back(t != nullptr ? *t : Tensor());
    options.constant_inputs.push_back(static_cast<int>(i));
  }
  if (!infos_) infos_.emplace(editor_->view());
  std::vector<std::pair<size_t, Tensor>> constants;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].defined()) constants.emplace_back(i, inputs[i]);
  }
  const NodeInfo info = ep::WithInputConstants(infos_->Node(id), constants);
  if (!CpuKernels().Supports(info).supported()) return false;
  Result<std::unique_ptr<Kernel>> kernel = CpuKernels().CreateKernel(info);
  if (!kernel.ok()) return kernel.status().WithContext(info.Description());
  options.outputs.clear();
  for (ir::ValueId out : node.outputs) {
    options.outputs.push_back(out == ir::kNoValue ? ep::OutputUse::kOmitted : ep::OutputUse::kUsed);
  }
  ep::KernelHost host(std::move(kernel).value(), info.Description());
  NXRT_ASSIGN_OR_RETURN(std::vector<Tensor> outputs, host.Run(inputs, options));
  for (size_t o = 0; o < node.outputs.size(); ++o) {
    if (node.outputs[o] != ir::kNoValue) Replace(id, node.outputs[o], std::move(outputs[o]));
  }
  return true;
}

void ConstantEvaluator::Replace(ir::NodeId id, ir::ValueId v, Tensor tensor) {
  editor_->RemoveNode(id);
  editor_->BindConstant(v, tensor);
  replaced_[v] = std::move(tensor);
}

}  // namespace nxrt::opt
