// ep/cpu/testing/single_op_model.h: one-node ONNX models for kernel tests, run through the real
// session.
//
// Layer: tests of nxrt_ep_cpu (not part of the library). A test describes one node (op type,
// domain, opset, inputs, attributes, output dtypes); SingleOpModel serialises it as ModelProto
// bytes with the onnx protobuf classes and runs it with nxrt::Session::CreateFromBytes and Run, so
// every kernel test exercises the loader, placement, Prepare, memory planning and Compute
// (STYLE practice 13; TFLite's SingleOpModel).
//
//   SingleOpModel model("Add", 17);
//   model.AddInput(Input(a)).AddInput(Input(b)).AddOutput(DataType::kFloat);
//   Result<std::vector<Tensor>> outputs = model.Run();
//
// Graph inputs are named "x0", "x1", ... (by slot), outputs "y0", ...; the node is "node". An
// input given as an Initializer becomes a constant initializer (what value inputs such as
// Reshape's shape usually are); a plain Input is fed at run time with its declared shape.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nxrt/data_type.h"
#include "nxrt/execution_provider.h"
#include "nxrt/node_info.h"
#include "nxrt/session.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::testing {

// One input slot of the node.
struct OpInput {
  Tensor value;              // undefined: an omitted optional input
  bool initializer = false;  // a constant initializer rather than a graph input
};
inline OpInput Input(Tensor value) { return {std::move(value), false}; }
inline OpInput Initializer(Tensor value) { return {std::move(value), true}; }
inline OpInput Omitted() { return {}; }

// Attribute builders (nxrt::AttributeValue is the EP API's attribute form).
AttributeValue IntAttr(std::string name, int64_t value);
AttributeValue FloatAttr(std::string name, float value);
AttributeValue StringAttr(std::string name, std::string value);
AttributeValue IntsAttr(std::string name, std::vector<int64_t> values);
AttributeValue FloatsAttr(std::string name, std::vector<float> values);
AttributeValue StringsAttr(std::string name, std::vector<std::string> values);
AttributeValue TensorAttr(std::string name, Tensor value);

class SingleOpModel {
 public:
  // A node of `op_type` in `domain` ("" = ai.onnx) in a model importing that domain at `opset`
  // (and, for another domain, ai.onnx at 17 too).
  SingleOpModel(std::string op_type, int64_t opset, std::string domain = "");

  SingleOpModel& AddInput(OpInput input);
  SingleOpModel& AddAttribute(AttributeValue attribute);
  // Adds an output declared as `dtype` (kUndefined: declared without a type), rank unknown.
  SingleOpModel& AddOutput(DataType dtype);

  // The ModelProto bytes. Errors: kInvalidArgument for an attribute type the builder does not
  // write (graphs, sparse tensors, type protos) or a tensor it cannot convert.
  Result<std::string> Serialize() const;

  // What the CPU EP's Supports answers for this node (its op, opset, dtypes and attributes):
  // lets a test sweep dtypes and keep those the op's schema allows.
  KernelMatch CpuSupports() const;

  // Builds a session over Serialize()'s bytes and runs it once with the graph inputs; the outputs
  // in slot order. Errors: the session's, unchanged (creation or run).
  Result<std::vector<Tensor>> Run(const SessionOptions& options = {}) const;

 private:
  std::string op_type_;
  std::string domain_;
  int64_t opset_;
  std::vector<OpInput> inputs_;
  std::vector<AttributeValue> attributes_;
  std::vector<DataType> outputs_;
};

}  // namespace nxrt::cpu::testing
