// optimizer/passes/matmul_integer_to_float_fusion.cpp: folds the scaling back to float of a
// dynamically quantized MatMul (as ONNX Runtime's quantize_dynamic writes it) into com.microsoft
// MatMulIntegerToFloat, as ONNX Runtime 1.30 does at its default optimisation level, so that the
// int32 product is scaled in the product's epilogue instead of being written, cast and
// multiplied in three more passes over memory.
//
// Matched (default domain):
//   MatMulInteger(A, B[, a_zero_point[, b_zero_point]]) -> P    (B of rank 2)
//   Cast(P, to = FLOAT) -> F
//   Mul(a_scale, b_scale) -> S    (either order: b_scale a float constant of one element or one
//                                  per column of B; a_scale a float of one element: a constant,
//                                  a DynamicQuantizeLinear's scale or typed with one element)
//   Mul(F, S) -> Y                (either order)
//   [Add(Y, bias) -> Z]           (either order; bias a float constant [N])
// with P, F, S and Y each read only by the next node (Y by the Add when it is folded in), and
// the zero points absent or: A's of one element (as a_scale), B's a constant of one element or
// [N]. The result is
//   MatMulIntegerToFloat(A, B, a_scale, b_scale, a_zero_point, b_zero_point[, bias]) -> Y or Z,
// whose kernel computes float(sum) * (a_scale * b_scale[n]) (+ bias[n]): the matched nodes'
// arithmetic in their order, so the outputs are equal bit for bit. The DynamicQuantizeLinear
// before stays (it may feed several products, as it does for attention's query, key and value).
#include <optional>
#include <string>
#include <vector>

#include "optimizer/passes.h"
#include "optimizer/passes/transformer_match.h"

namespace nxrt::opt {
namespace {

constexpr std::string_view kMsDomain = "com.microsoft";

using match::IsOp;

// The node reading `v` when `v` has exactly that one use; kNoNode otherwise.
ir::NodeId OnlyReaderId(const GraphEditor& editor, ir::ValueId v) {
  return editor.HasSingleUse(v) ? editor.Consumers(v)[0].node : ir::kNoNode;
}

bool FloatConstantOf(const GraphEditor& editor, ir::ValueId v, int64_t a, int64_t b) {
  const Tensor* t = editor.Constant(v);
  return t != nullptr && t->dtype() == DataType::kFloat &&
         (t->element_count() == a || t->element_count() == b);
}

// Whether `v` is output `slot` of a DynamicQuantizeLinear (1: its scale, 2: its zero point; both
// one element).
bool FromDynamicQuantize(const GraphEditor& editor, ir::ValueId v, size_t slot) {
  const ir::NodeId producer = editor.Producer(v);
  if (producer == ir::kNoNode) return false;
  const ir::Node& p = editor.node(producer);
  return IsOp(p, "DynamicQuantizeLinear") && p.outputs.size() > slot && p.outputs[slot] == v;
}

// `v` holds one element of `dtype` (kUndefined: any) at run time: a constant, a
// DynamicQuantizeLinear's scale or zero point, or a value typed so.
bool OneElement(const GraphEditor& editor, ir::ValueId v, DataType dtype) {
  if (const Tensor* t = editor.Constant(v)) {
    return (dtype == DataType::kUndefined || t->dtype() == dtype) && t->element_count() == 1;
  }
  if (FromDynamicQuantize(editor, v, 1)) {
    return dtype == DataType::kUndefined || dtype == DataType::kFloat;
  }
  if (FromDynamicQuantize(editor, v, 2)) return dtype == DataType::kUndefined;
  const ir::TypeInfo& type = editor.value(v).type;
  if (type.kind != ir::TypeInfo::Kind::kTensor || !type.shape ||
      (dtype != DataType::kUndefined && type.elem_type != dtype)) {
    return false;
  }
  for (const ir::Dim& d : *type.shape) {
    if (!d.is_fixed() || d.value != 1) return false;
  }
  return true;
}

// The other input of a two-input node `n` than `v`; kNoValue when `v` is not one of them.
ir::ValueId Other(const ir::Node& n, ir::ValueId v) {
  if (n.inputs.size() != 2) return ir::kNoValue;
  if (n.inputs[0] == v) return n.inputs[1];
  if (n.inputs[1] == v) return n.inputs[0];
  return ir::kNoValue;
}

class MatMulIntegerToFloatFusion final : public GraphPass {
 public:
  std::string_view name() const override { return "matmul_integer_to_float_fusion"; }
  int level() const override { return 2; }

  Result<int> Apply(GraphEditor& editor) const override {
    int fused = 0;
    for (ir::NodeId id : editor.TopologicalOrder()) {
      const ir::Node& n = editor.node(id);
      if (IsOp(n, "MatMulInteger") && !editor.IsRemoved(id) && TryFuse(editor, id)) ++fused;
    }
    NXRT_RETURN_IF_ERROR(editor.Commit());
    return fused;
  }

 private:
  static bool TryFuse(GraphEditor& editor, ir::NodeId id) {
    const ir::Node& product = editor.node(id);
    if (product.outputs.size() != 1 || product.inputs.size() < 2 ||
        editor.Rank(product.inputs[1]) != std::optional<size_t>(2)) {
      return false;
    }
    const ir::NodeId cast_id = OnlyReaderId(editor, product.outputs[0]);
    if (cast_id == ir::kNoNode) return false;
    const ir::Node& cast = editor.node(cast_id);
    if (!IsOp(cast, "Cast") || cast.outputs.size() != 1 ||
        GraphEditor::IntAttr(cast, "to", 0) != static_cast<int64_t>(DataType::kFloat)) {
      return false;
    }
    const ir::NodeId mul_id = OnlyReaderId(editor, cast.outputs[0]);
    if (mul_id == ir::kNoNode) return false;
    const ir::Node& mul = editor.node(mul_id);
    const ir::ValueId scales = IsOp(mul, "Mul") ? Other(mul, cast.outputs[0]) : ir::kNoValue;
    if (scales == ir::kNoValue || mul.outputs.size() != 1 || !editor.HasSingleUse(scales)) {
      return false;
    }
    const ir::NodeId scales_id = editor.Producer(scales);
    if (scales_id == ir::kNoNode) return false;
    const ir::Node& scales_mul = editor.node(scales_id);
    if (!IsOp(scales_mul, "Mul") || scales_mul.inputs.size() != 2) return false;
    const Tensor* b = editor.Constant(product.inputs[1]);
    const std::optional<int64_t> columns =
        b != nullptr ? std::optional<int64_t>(b->shape()[1]) : ColumnsOf(editor, product);
    if (!columns) return false;
    // b_scale: a constant of 1 or N floats; a_scale: the other, one float.
    ir::ValueId a_scale = ir::kNoValue, b_scale = ir::kNoValue;
    for (int first = 0; first < 2 && a_scale == ir::kNoValue; ++first) {
      const ir::ValueId a = scales_mul.inputs[static_cast<size_t>(first)];
      const ir::ValueId s = scales_mul.inputs[static_cast<size_t>(1 - first)];
      if (OneElement(editor, a, DataType::kFloat) && FloatConstantOf(editor, s, 1, *columns)) {
        a_scale = a;
        b_scale = s;
      }
    }
    if (a_scale == ir::kNoValue) return false;
    const auto input = [&](size_t i) {
      return i < product.inputs.size() ? product.inputs[i] : ir::kNoValue;
    };
    const ir::ValueId a_zero_point = input(2), b_zero_point = input(3);
    const Tensor* b_zero = editor.Constant(b_zero_point);
    if ((a_zero_point != ir::kNoValue &&
         !OneElement(editor, a_zero_point, DataType::kUndefined)) ||
        (b_zero_point != ir::kNoValue &&
         (b_zero == nullptr || (b_zero->element_count() != 1 &&
                                b_zero->element_count() != *columns)))) {
      return false;
    }
    // The bias Add, when Y's only reader adds a float constant [N].
    ir::ValueId bias = ir::kNoValue;
    ir::NodeId last = mul_id;
    const ir::NodeId add_id = OnlyReaderId(editor, mul.outputs[0]);
    if (add_id != ir::kNoNode && IsOp(editor.node(add_id), "Add") &&
        editor.node(add_id).outputs.size() == 1) {
      const ir::ValueId b_add = Other(editor.node(add_id), mul.outputs[0]);
      const Tensor* t = editor.Constant(b_add);
      if (t != nullptr && t->dtype() == DataType::kFloat && t->shape().size() == 1 &&
          t->shape()[0] == *columns) {
        bias = b_add;
        last = add_id;
      }
    }

    ir::Node fused;
    fused.name = product.name;
    fused.op_type = "MatMulIntegerToFloat";
    fused.domain = std::string(kMsDomain);
    fused.inputs = {product.inputs[0], product.inputs[1], a_scale, b_scale, a_zero_point,
                    b_zero_point};
    fused.inputs.push_back(bias);
    while (fused.inputs.back() == ir::kNoValue) fused.inputs.pop_back();
    fused.outputs = editor.node(last).outputs;
    for (ir::NodeId removed : {id, cast_id, scales_id, mul_id}) editor.RemoveNode(removed);
    if (last != mul_id) editor.RemoveNode(last);
    editor.AddNode(std::move(fused), last);
    return true;
  }

  // N of a runtime B typed [K, N] with N fixed; nullopt otherwise.
  static std::optional<int64_t> ColumnsOf(const GraphEditor& editor, const ir::Node& product) {
    const ir::TypeInfo& type = editor.value(product.inputs[1]).type;
    if (!type.shape || type.shape->size() != 2 || !(*type.shape)[1].is_fixed()) {
      return std::nullopt;
    }
    return (*type.shape)[1].value;
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeMatMulIntegerToFloatFusionPass() {
  return std::make_unique<MatMulIntegerToFloatFusion>();
}

}  // namespace nxrt::opt
