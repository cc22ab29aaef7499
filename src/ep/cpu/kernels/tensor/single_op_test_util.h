// ep/cpu/kernels/tensor/single_op_test_util.h: runs one node of the tensor and nn kernel families
// in tests (not part of the library).
//
// A test describes a node (op, opset, inputs, attributes, output count) and gets its outputs.
// RunOp serialises it as a one-node model (ep/cpu/testing/single_op_model.h) and runs it through
// nxrt::Session, so each op goes through the loader, placement on the CPU EP's real table,
// Prepare with its value inputs, memory planning and Compute. Runtime inputs are graph inputs;
// Const inputs are initializers. RunOpSequence instead drives one CPU EP kernel through the
// executor's kernel host (ep/kernel_host.h) over several input sets: the lifecycle test of a
// kernel that keeps state between Prepare calls (a cached oneDNN primitive re-planned for a new
// shape).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ep/cpu/cpu_execution_provider.h"
#include "ep/cpu/testing/single_op_model.h"
#include "ep/kernel_host.h"
#include "nxrt/kernel.h"
#include "nxrt/node_info.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::kernels::testing {

using cpu::testing::FloatAttr;
using cpu::testing::FloatsAttr;
using cpu::testing::IntAttr;
using cpu::testing::IntsAttr;
using cpu::testing::Omitted;
using cpu::testing::OpInput;
using cpu::testing::StringAttr;

// A runtime input (a graph input) and a constant one (an initializer).
inline OpInput In(Tensor t) { return cpu::testing::Input(std::move(t)); }
inline OpInput Const(Tensor t) { return cpu::testing::Initializer(std::move(t)); }

// A 1-D int64 constant (Slice starts, Pad pads, Expand shape...).
inline OpInput ConstInts(std::vector<int64_t> values) {
  const int64_t n = static_cast<int64_t>(values.size());
  return Const(Tensor::FromVector<int64_t>({n}, values).value());
}

// One node: op type and opset (default domain), inputs by slot, attributes, output count.
struct OpCase {
  OpCase() = default;
  OpCase(std::string op, int64_t op_opset, std::vector<OpInput> op_inputs = {},
         std::vector<AttributeValue> op_attributes = {}, int outputs = 1)
      : op_type(std::move(op)),
        opset(op_opset),
        inputs(std::move(op_inputs)),
        attributes(std::move(op_attributes)),
        num_outputs(outputs) {}

  std::string op_type;
  int64_t opset = 13;
  std::vector<OpInput> inputs;
  std::vector<AttributeValue> attributes;
  int num_outputs = 1;
  std::string domain;  // "" for ONNX's; "com.nxrt" for nxrt's fused operators
};

// The ValueInfo of a node input holding `input` (kAbsent when omitted).
inline ValueInfo MakeValueInfo(std::string name, const OpInput& input) {
  ValueInfo info;
  if (!input.value.defined()) return info;
  info.name = std::move(name);
  info.kind = ValueKind::kTensor;
  info.dtype = input.value.dtype();
  std::vector<DimInfo> dims;
  for (int64_t d : input.value.shape()) dims.push_back(DimInfo::Fixed(d));
  info.shape = std::move(dims);
  info.is_constant = input.initializer;
  if (input.initializer) info.constant = input.value;
  return info;
}

// The NodeInfo of `op` with inputs x0.., outputs y0.. (their dtypes unknown to the model).
inline NodeInfo MakeNode(const OpCase& op) {
  NodeInfo::Data data;
  data.id = 0;
  data.name = "node";
  data.op_type = op.op_type;
  data.opset = op.opset;
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    std::string name = "x";
    name += std::to_string(i);
    data.inputs.push_back(MakeValueInfo(name, op.inputs[i]));
  }
  for (int i = 0; i < op.num_outputs; ++i) {
    ValueInfo out;
    out.name = "y";
    out.name += std::to_string(i);
    out.kind = ValueKind::kTensor;
    data.outputs.push_back(std::move(out));
  }
  data.attributes = op.attributes;
  return NodeInfo(std::move(data));
}

// Creates the kernel of `op` with the CPU EP and runs it once per entry of `runs` through one
// ep::KernelHost, which prepares again when a run's inputs differ from the run before, as the
// executor does (op.inputs describes the node; a run may bind other shapes, as a model with
// symbolic dims does). Returns each run's outputs.
inline Result<std::vector<std::vector<Tensor>>> RunOpSequence(
    const OpCase& op, const std::vector<std::vector<OpInput>>& runs) {
  CpuExecutionProvider provider;
  NXRT_RETURN_IF_ERROR(provider.Initialize({}));
  const NodeInfo node = MakeNode(op);
  NXRT_ASSIGN_OR_RETURN(std::unique_ptr<Kernel> kernel, provider.CreateKernel(node));
  ep::KernelHost host(std::move(kernel), node.Description());
  std::vector<std::vector<Tensor>> results;
  for (const std::vector<OpInput>& inputs : runs) {
    std::vector<Tensor> tensors;
    ep::KernelRunOptions options;
    options.outputs.assign(op.num_outputs, ep::OutputUse::kUsed);
    for (size_t i = 0; i < inputs.size(); ++i) {
      tensors.push_back(inputs[i].value);
      if (inputs[i].initializer) options.constant_inputs.push_back(static_cast<int>(i));
    }
    NXRT_ASSIGN_OR_RETURN(std::vector<Tensor> outputs, host.Run(tensors, options));
    results.push_back(std::move(outputs));
  }
  return results;
}

// Runs `op` as a one-node model through a session made with `options` and returns its outputs
// (declared without a type in the model); errors are the session's (creation or run).
inline Result<std::vector<Tensor>> RunOp(const OpCase& op, const SessionOptions& options = {}) {
  cpu::testing::SingleOpModel model(op.op_type, op.opset, op.domain);
  for (const OpInput& input : op.inputs) model.AddInput(input);
  for (const AttributeValue& attribute : op.attributes) model.AddAttribute(attribute);
  for (int i = 0; i < op.num_outputs; ++i) model.AddOutput(DataType::kUndefined);
  return model.Run(options);
}

// Session options that run a node as written (no graph passes) on `threads` intra-op threads.
inline SessionOptions AsWritten(int threads) {
  SessionOptions options;
  options.optimization_level = 0;
  options.intra_op_threads = threads;
  return options;
}

// The elements of a contiguous tensor as a vector of T.
template <typename T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.element_count());
}

}  // namespace nxrt::cpu::kernels::testing
