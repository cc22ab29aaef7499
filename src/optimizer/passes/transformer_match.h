// optimizer/passes/transformer_match.h: small graph queries shared by the fusions
// (layer_norm_fusion, gelu_fusion, qdq_fusion, matmul_integer_to_float_fusion): whether a node is
// a given op, the node making a value when it has a given op type, the value of a one-element
// constant, the other operand of a binary node.
// Values inside a pattern often have no type in the model (the session does not run ONNX shape
// inference for the CPU EP), so the passes use ranks and dims only when a type states them.
//
// Layer: nxrt_optimizer, internal to the passes.
#pragma once

#include <cmath>
#include <optional>
#include <string_view>

#include "nxrt/data_type.h"
#include "optimizer/graph_editor.h"

namespace nxrt::opt::match {

// True when `n` is the default-domain op `op_type`.
inline bool IsOp(const ir::Node& n, std::string_view op_type) {
  return n.op_type == op_type && n.domain.empty();
}

// The default-domain node of type `op_type` producing `v`, or nullptr.
inline const ir::Node* ProducerOp(const GraphEditor& editor, ir::ValueId v,
                                  std::string_view op_type) {
  if (v == ir::kNoValue) return nullptr;
  const ir::NodeId id = editor.Producer(v);
  if (id == ir::kNoNode) return nullptr;
  const ir::Node& n = editor.node(id);
  return n.domain.empty() && n.op_type == op_type ? &n : nullptr;
}

// The only reader of `v` when `v` has a single use (GraphEditor::HasSingleUse) and that reader is
// a default-domain node of type `op_type`; nullptr otherwise.
inline const ir::Node* SingleConsumerOp(const GraphEditor& editor, ir::ValueId v,
                                        std::string_view op_type) {
  if (!editor.HasSingleUse(v)) return nullptr;
  const ir::Node& n = editor.node(editor.Consumers(v)[0].node);
  return n.domain.empty() && n.op_type == op_type ? &n : nullptr;
}

// For a node with two inputs of which one is `v`: the other one (for {v, v}: v); kNoValue when
// the node does not have exactly two inputs or does not read `v`.
inline ir::ValueId OtherInput(const ir::Node& n, ir::ValueId v) {
  if (n.inputs.size() != 2) return ir::kNoValue;
  if (n.inputs[0] == v) return n.inputs[1];
  if (n.inputs[1] == v) return n.inputs[0];
  return ir::kNoValue;
}

// The value of `v` when it is a constant holding one element of a float or integer type, as
// double; nullopt otherwise, and also when the constant's rank exceeds `max_rank` (broadcasting
// it would then raise the rank of the other operand).
inline std::optional<double> ScalarConstant(const GraphEditor& editor, ir::ValueId v,
                                            size_t max_rank) {
  const Tensor* t = editor.Constant(v);
  if (t == nullptr || t->element_count() != 1 || t->shape().size() > max_rank) return std::nullopt;
  switch (t->dtype()) {
    case DataType::kFloat:
      return static_cast<double>(t->data<float>()[0]);
    case DataType::kDouble:
      return t->data<double>()[0];
    case DataType::kFloat16:
      return static_cast<double>(static_cast<float>(t->data<Float16>()[0]));
    case DataType::kBFloat16:
      return static_cast<double>(static_cast<float>(t->data<BFloat16>()[0]));
    case DataType::kInt32:
      return static_cast<double>(t->data<int32_t>()[0]);
    case DataType::kInt64:
      return static_cast<double>(t->data<int64_t>()[0]);
    default:
      return std::nullopt;
  }
}

// ScalarConstant for a float constant only. The fusions make float kernels: a float constant
// operand of Add/Sub/Mul/Div binds the other operand to float too (the ops take one type T),
// which settles the element type of values whose type the model does not state.
inline std::optional<double> FloatScalar(const GraphEditor& editor, ir::ValueId v,
                                         size_t max_rank) {
  const Tensor* t = editor.Constant(v);
  if (t == nullptr || t->dtype() != DataType::kFloat) return std::nullopt;
  return ScalarConstant(editor, v, max_rank);
}

// |value - expected| <= rtol * |expected|: exporters write constants such as sqrt(2) or
// sqrt(2/pi) with float rounding or fewer digits. Also true when `value` is `expected` rounded to
// float16 or bfloat16: a half-precision model's constant, which insert_cast made float32.
inline bool Near(std::optional<double> value, double expected, double rtol = 1e-4) {
  if (!value) return false;
  if (std::fabs(*value - expected) <= rtol * std::fabs(expected)) return true;
  const float e = static_cast<float>(expected);
  return *value == static_cast<double>(static_cast<float>(Float16(e))) ||
         *value == static_cast<double>(static_cast<float>(BFloat16(e)));
}

}  // namespace nxrt::opt::match
