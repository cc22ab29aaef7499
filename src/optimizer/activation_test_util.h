// optimizer/activation_test_util.h: ONNX graphs of the activations the epilogue fusions match
// (matmul_activation_fusion, conv_activation_fusion), written as a model exporter writes them.
//
// Layer: tests of nxrt_optimizer only.
#pragma once

#include <string>
#include <vector>

#include "optimizer/optimizer_test_util.h"

namespace nxrt::opt::testing {

enum class Act {
  kNone,
  kRelu,
  kLeakyRelu,      // alpha 0.2
  kClip,           // min -0.5, max 0.7 as constant inputs (opset 11+)
  kSigmoid,
  kTanh,
  kHardSigmoid,    // alpha 0.3, beta 0.4
  kHardSwish,      // the opset-14 op
  kHardSwishDiv,   // x * Clip(x + 3, 0, 6) / 6, PaddlePaddle's export
  kHardSwishGate,  // x * HardSigmoid(x, 1/6, 1/2)
  kSwish,          // x * Sigmoid(x)
  kSwishScaled,    // x * Sigmoid(x * 1.5), PaddlePaddle's swish
  kGelu,           // 0.5 x (1 + erf(x / sqrt 2)), for gelu_fusion to make com.nxrt:Gelu
  kGeluTanh,       // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
};

inline const char* ActName(Act a) {
  switch (a) {
    case Act::kNone: return "";
    case Act::kRelu: return "Relu";
    case Act::kLeakyRelu: return "LeakyRelu";
    case Act::kClip: return "Clip";
    case Act::kSigmoid: return "Sigmoid";
    case Act::kTanh: return "Tanh";
    case Act::kHardSigmoid: return "HardSigmoid";
    case Act::kHardSwish:
    case Act::kHardSwishDiv:
    case Act::kHardSwishGate: return "HardSwish";
    case Act::kSwish:
    case Act::kSwishScaled: return "Swish";
    case Act::kGelu: return "Gelu";
    case Act::kGeluTanh: return "GeluTanh";
  }
  return "?";
}

inline void AddFloatAttribute(onnx::NodeProto* node, const std::string& name, float value) {
  onnx::AttributeProto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(value);
}

// A float initializer of any shape.
inline void AddFloatConstant(onnx::GraphProto* g, const std::string& name,
                             const std::vector<int64_t>& dims, const std::vector<float>& data) {
  onnx::TensorProto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t->add_dims(d);
  for (float f : data) t->add_float_data(f);
}

// A float graph input or output `info` named `name` with fixed dims `dims`.
inline void FillFloatInfo(onnx::ValueInfoProto* info, const std::string& name,
                          const std::vector<int64_t>& dims) {
  info->set_name(name);
  onnx::TypeProto::Tensor* t = info->mutable_type()->mutable_tensor_type();
  t->set_elem_type(onnx::TensorProto::FLOAT);
  onnx::TensorShapeProto* shape = t->mutable_shape();
  for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
}

// A float graph output named `name` whose shape the model leaves to inference.
inline void AddFloatOutput(onnx::GraphProto* g, const std::string& name) {
  onnx::ValueInfoProto* info = g->add_output();
  info->set_name(name);
  info->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
}

// A rank-0 float initializer.
inline std::string AddScalar(onnx::GraphProto* g, const std::string& name, float value) {
  AddFloatConstant(g, name, {}, {value});
  return name;
}

// Writes `a` of `in` into `out` (names of intermediates start with `out`). kNone: Identity.
inline void AddActivation(onnx::GraphProto* g, Act a, const std::string& in,
                          const std::string& out) {
  const std::string p = out + "_";
  switch (a) {
    case Act::kNone:
      AddNode(g, "Identity", {in}, {out});
      return;
    case Act::kRelu:
    case Act::kSigmoid:
    case Act::kTanh:
    case Act::kHardSwish:
      AddNode(g, ActName(a), {in}, {out}, p + "act");
      return;
    case Act::kLeakyRelu:
      AddFloatAttribute(AddNode(g, "LeakyRelu", {in}, {out}, p + "act"), "alpha", 0.2f);
      return;
    case Act::kClip:
      AddNode(g, "Clip", {in, AddScalar(g, p + "lo", -0.5f), AddScalar(g, p + "hi", 0.7f)}, {out},
              p + "act");
      return;
    case Act::kHardSigmoid: {
      onnx::NodeProto* n = AddNode(g, "HardSigmoid", {in}, {out}, p + "act");
      AddFloatAttribute(n, "alpha", 0.3f);
      AddFloatAttribute(n, "beta", 0.4f);
      return;
    }
    case Act::kHardSwishDiv:
      AddNode(g, "Add", {in, AddScalar(g, p + "three", 3.0f)}, {p + "shift"});
      AddNode(g, "Clip", {p + "shift", AddScalar(g, p + "zero", 0.0f), AddScalar(g, p + "six", 6.0f)},
              {p + "relu6"});
      AddNode(g, "Mul", {in, p + "relu6"}, {p + "prod"});
      AddNode(g, "Div", {p + "prod", AddScalar(g, p + "six2", 6.0f)}, {out});
      return;
    case Act::kHardSwishGate: {
      onnx::NodeProto* n = AddNode(g, "HardSigmoid", {in}, {p + "gate"});
      AddFloatAttribute(n, "alpha", 1.0f / 6);
      AddFloatAttribute(n, "beta", 0.5f);
      AddNode(g, "Mul", {p + "gate", in}, {out});
      return;
    }
    case Act::kSwish:
      AddNode(g, "Sigmoid", {in}, {p + "gate"});
      AddNode(g, "Mul", {in, p + "gate"}, {out});
      return;
    case Act::kSwishScaled:
      AddNode(g, "Mul", {in, AddScalar(g, p + "beta", 1.5f)}, {p + "scaled"});
      AddNode(g, "Sigmoid", {p + "scaled"}, {p + "gate"});
      AddNode(g, "Mul", {p + "gate", in}, {out});
      return;
    case Act::kGelu:
      AddNode(g, "Div", {in, AddScalar(g, p + "sqrt2", 1.4142135f)}, {p + "u"});
      AddNode(g, "Erf", {p + "u"}, {p + "e"});
      AddNode(g, "Add", {p + "e", AddScalar(g, p + "one", 1.0f)}, {p + "a"});
      AddNode(g, "Mul", {p + "a", in}, {p + "ax"});
      AddNode(g, "Mul", {p + "ax", AddScalar(g, p + "half", 0.5f)}, {out});
      return;
    case Act::kGeluTanh:
      AddNode(g, "Pow", {in, AddScalar(g, p + "three", 3.0f)}, {p + "c"});
      AddNode(g, "Mul", {p + "c", AddScalar(g, p + "k", 0.044715f)}, {p + "ck"});
      AddNode(g, "Add", {in, p + "ck"}, {p + "i"});
      AddNode(g, "Mul", {p + "i", AddScalar(g, p + "s", 0.7978846f)}, {p + "is"});
      AddNode(g, "Tanh", {p + "is"}, {p + "e"});
      AddNode(g, "Add", {p + "e", AddScalar(g, p + "one", 1.0f)}, {p + "a"});
      AddNode(g, "Mul", {p + "a", in}, {p + "ax"});
      AddNode(g, "Mul", {p + "ax", AddScalar(g, p + "half", 0.5f)}, {out});
      return;
  }
}

// The string attribute `name` of `n`, or "<absent>".
inline std::string StringAttr(const ir::Node& n, const std::string& name) {
  const ir::Attribute* a = n.FindAttribute(name);
  return a != nullptr && a->type == ir::Attribute::Type::kString ? a->s : "<absent>";
}

}  // namespace nxrt::opt::testing
