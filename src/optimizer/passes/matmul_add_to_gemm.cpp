// optimizer/passes/matmul_add_to_gemm.cpp: replaces MatMul(A, B) followed by Add(·, C) by
// Gemm(A, B, C).
//
// Matched: MatMul of float A [M, K] and B [K, N] (both of rank 2: Gemm is a 2-D op, and MatMul
// of other ranks broadcasts or squeezes differently) whose output has no other reader (not a
// graph output, not read by a subgraph) and feeds an Add, on either side, whose other input C is
// a float tensor of known shape that broadcasts unidirectionally to [M, N]: rank <= 2 and, right
// aligned, each dim 1 or the fixed size of the matching output dim. Then Add's output is [M, N],
// the shape Gemm gives, while an Add that would widen the result (C [M, 5] on a [M, 1] product)
// is left alone. Gemm with alpha = beta = 1 and no transposes computes A @ B + C (ONNX Gemm,
// opset 7+, where C broadcasts without the `broadcast` attribute of earlier opsets); the CPU EP
// runs a [N]-shaped C as the matmul's bias epilogue instead of a second pass over the output.
// The Gemm takes over the Add's output value.
#include <optional>
#include <vector>

#include "optimizer/passes.h"

namespace nxrt::opt {
namespace {

// The dims of float tensor `v`: a constant's shape, else its type's shape; nullopt when the
// dtype is not float or the rank is unknown.
std::optional<std::vector<ir::Dim>> FloatDims(const GraphEditor& editor, ir::ValueId v) {
  if (const Tensor* t = editor.Constant(v)) {
    if (t->dtype() != DataType::kFloat) return std::nullopt;
    std::vector<ir::Dim> dims;
    for (int64_t d : t->shape()) dims.push_back(ir::Dim::Fixed(d));
    return dims;
  }
  const ir::TypeInfo& type = editor.value(v).type;
  if (type.kind != ir::TypeInfo::Kind::kTensor || type.elem_type != DataType::kFloat ||
      !type.shape) {
    return std::nullopt;
  }
  return *type.shape;
}

// True when every dim of `c` (right aligned against `out`) is fixed and 1 or equal to a fixed
// dim of `out`, and `c` has no more dims than `out`.
bool BroadcastsTo(const std::vector<ir::Dim>& c, const std::vector<ir::Dim>& out) {
  if (c.size() > out.size()) return false;
  const size_t offset = out.size() - c.size();
  for (size_t i = 0; i < c.size(); ++i) {
    if (!c[i].is_fixed()) return false;
    if (c[i].value == 1) continue;
    const ir::Dim& o = out[offset + i];
    if (!o.is_fixed() || o.value != c[i].value) return false;
  }
  return true;
}

class MatMulAddToGemm final : public GraphPass {
 public:
  std::string_view name() const override { return "matmul_add_to_gemm"; }
  int level() const override { return 1; }

  Result<int> Apply(GraphEditor& editor) const override {
    int fused = 0;
    for (ir::NodeId id : editor.TopologicalOrder()) {
      const ir::Node& add = editor.node(id);
      if (add.op_type != "Add" || !add.domain.empty() || add.inputs.size() != 2 ||
          add.outputs.size() != 1 || editor.Opset(add) < 7) {
        continue;
      }
      for (int side = 0; side < 2; ++side) {
        if (TryFuse(editor, id, side)) {
          ++fused;
          break;
        }
      }
    }
    NXRT_RETURN_IF_ERROR(editor.Commit());
    return fused;
  }

 private:
  // Fuses when Add input `side` is the product of a matching MatMul (file comment).
  static bool TryFuse(GraphEditor& editor, ir::NodeId add_id, int side) {
    const ir::Node& add = editor.node(add_id);
    const ir::ValueId product = add.inputs[side];
    const ir::ValueId c = add.inputs[1 - side];
    const ir::NodeId matmul_id = editor.Producer(product);
    if (matmul_id == ir::kNoNode || editor.IsRemoved(matmul_id) || !editor.HasSingleUse(product)) {
      return false;
    }
    const ir::Node& matmul = editor.node(matmul_id);
    if (matmul.op_type != "MatMul" || !matmul.domain.empty() || matmul.inputs.size() != 2) {
      return false;
    }
    std::optional<std::vector<ir::Dim>> a = FloatDims(editor, matmul.inputs[0]);
    std::optional<std::vector<ir::Dim>> b = FloatDims(editor, matmul.inputs[1]);
    std::optional<std::vector<ir::Dim>> c_dims = FloatDims(editor, c);
    if (!a || !b || !c_dims || a->size() != 2 || b->size() != 2) return false;
    if (!BroadcastsTo(*c_dims, {(*a)[0], (*b)[1]})) return false;

    ir::Node gemm;
    gemm.name = matmul.name;
    gemm.op_type = "Gemm";
    gemm.inputs = {matmul.inputs[0], matmul.inputs[1], c};
    gemm.outputs = add.outputs;
    editor.RemoveNode(matmul_id);
    editor.RemoveNode(add_id);
    editor.AddNode(std::move(gemm), add_id);
    return true;
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeMatMulAddToGemmPass() { return std::make_unique<MatMulAddToGemm>(); }

}  // namespace nxrt::opt
