// optimizer/passes/qdq_fusion.cpp: folds a float Conv or MatMul between DequantizeLinear and
// QuantizeLinear nodes (a static QDQ model) into QLinearConv or QLinearMatMul, as ONNX Runtime
// 1.30 does at its default optimisation level, so the model runs the same integer kernel and
// gives ORT's outputs bit for bit (checked against ORT on such models).
//
// Matched (default domain, opset >= 10):
//   x_q -> DequantizeLinear(x_scale, x_zero_point) -> X
//   w_q -> DequantizeLinear(w_scale, w_zero_point) -> W       (w_q a constant)
//   [b_q -> DequantizeLinear(b_scale) -> B]                   (Conv only; b_q an int32 constant)
//   Conv(X, W[, B]) or MatMul(X, W) -> Y -> QuantizeLinear(y_scale, y_zero_point) -> y_q
// with float scales and zero points that are constants: x's and y's one element, w's one element
// or one per output channel (Conv: axis 0 of W; MatMul: axis 1 of a 2-D W), B's zero point absent
// or 0; x_q and y_q both uint8 (W uint8 or int8) or both int8 (W int8), which are the pairings
// ORT's QLinearConv runs; Y read only by the QuantizeLinear, and no block_size. The result is
//   QLinearConv(x_q, x_scale, x_zp, w_q, w_scale, w_zp, y_scale, y_zp[, b_q]) (Conv's
//   attributes) or QLinearMatMul(x_q, x_scale, x_zp, w_q, w_scale, w_zp, y_scale, y_zp),
// writing y_q. As in ORT, b_q is taken as the int32 bias of the products whatever B's scale. The
// DequantizeLinear nodes of W and B go when the fused node was their only reader, X's when it
// has no other reader.
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "optimizer/passes.h"
#include "optimizer/passes/transformer_match.h"

namespace nxrt::opt {
namespace {

using match::IsOp;

int64_t Elements(const Tensor& t) { return t.element_count(); }

// A DequantizeLinear or QuantizeLinear node with its inputs: the quantized value, a float scale
// constant and an optional zero point constant.
struct Quant {
  ir::NodeId id = ir::kNoNode;
  ir::ValueId q = ir::kNoValue;
  ir::ValueId scale = ir::kNoValue;
  ir::ValueId zero_point = ir::kNoValue;
  const Tensor* scale_value = nullptr;
  const Tensor* zero_point_value = nullptr;  // null when absent
  int64_t axis = 1;
};

// `id` as a (De)QuantizeLinear of `op` with constant float scale (and zero point); nullopt
// otherwise.
std::optional<Quant> ReadQuant(const GraphEditor& editor, ir::NodeId id, std::string_view op) {
  if (id == ir::kNoNode || editor.IsRemoved(id)) return std::nullopt;
  const ir::Node& n = editor.node(id);
  if (!IsOp(n, op) || n.inputs.size() < 2 || n.outputs.size() != 1) return std::nullopt;
  if (GraphEditor::IntAttr(n, "block_size", 0) != 0) return std::nullopt;
  Quant q;
  q.id = id;
  q.q = n.inputs[0];
  q.scale = n.inputs[1];
  q.scale_value = editor.Constant(q.scale);
  if (q.scale_value == nullptr || q.scale_value->dtype() != DataType::kFloat) return std::nullopt;
  if (n.inputs.size() > 2 && n.inputs[2] != ir::kNoValue) {
    q.zero_point = n.inputs[2];
    q.zero_point_value = editor.Constant(q.zero_point);
    if (q.zero_point_value == nullptr) return std::nullopt;
  }
  q.axis = GraphEditor::IntAttr(n, "axis", 1);
  return q;
}

DataType QuantType(const GraphEditor& editor, const Quant& q) {
  if (q.zero_point_value != nullptr) return q.zero_point_value->dtype();
  if (const Tensor* t = editor.Constant(q.q)) return t->dtype();
  const ir::TypeInfo& type = editor.value(q.q).type;
  return type.kind == ir::TypeInfo::Kind::kTensor ? type.elem_type : DataType::kUndefined;
}

bool IsInt8(DataType t) { return t == DataType::kUint8 || t == DataType::kInt8; }

// One scale (and zero point) element.
bool PerTensor(const Quant& q) {
  return Elements(*q.scale_value) == 1 &&
         (q.zero_point_value == nullptr || Elements(*q.zero_point_value) == 1);
}

// Per tensor, or one per element of `axis` of the constant `w` (rank `rank`).
bool PerTensorOrAxis(const Quant& q, const Tensor& w, int64_t axis) {
  if (PerTensor(q)) return true;
  const int64_t rank = static_cast<int64_t>(w.shape().size());
  const int64_t a = q.axis < 0 ? q.axis + rank : q.axis;
  if (a != axis) return false;
  const int64_t channels = w.shape()[static_cast<size_t>(axis)];
  const auto fits = [&](const Tensor& t) {
    return t.shape().size() == 1 && t.shape()[0] == channels;
  };
  return fits(*q.scale_value) && (q.zero_point_value == nullptr || fits(*q.zero_point_value));
}

class QdqFusion final : public GraphPass {
 public:
  std::string_view name() const override { return "qdq_fusion"; }
  int level() const override { return 2; }

  Result<int> Apply(GraphEditor& editor) const override {
    int fused = 0;
    for (ir::NodeId id : editor.TopologicalOrder()) {
      const ir::Node& n = editor.node(id);
      if ((IsOp(n, "Conv") || IsOp(n, "MatMul")) && editor.Opset(n) >= 10 && TryFuse(editor, id)) {
        ++fused;
      }
    }
    NXRT_RETURN_IF_ERROR(editor.Commit());
    return fused;
  }

 private:
  static bool TryFuse(GraphEditor& editor, ir::NodeId id) {
    const ir::Node& op = editor.node(id);
    const bool conv = IsOp(op, "Conv");
    if (op.outputs.size() != 1 || op.inputs.size() < 2) return false;
    if (!conv && op.inputs.size() != 2) return false;
    const ir::ValueId y = op.outputs[0];
    if (!editor.HasSingleUse(y)) return false;
    const std::optional<Quant> yq = ReadQuant(editor, editor.Consumers(y)[0].node, "QuantizeLinear");
    const std::optional<Quant> xq = ReadQuant(editor, editor.Producer(op.inputs[0]), "DequantizeLinear");
    const std::optional<Quant> wq = ReadQuant(editor, editor.Producer(op.inputs[1]), "DequantizeLinear");
    if (!yq || !xq || !wq || yq->q != y) return false;
    const Tensor* w = editor.Constant(wq->q);
    if (w == nullptr || !PerTensor(*xq) || !PerTensor(*yq)) return false;
    // Zero points: ORT's fused kernels read them; a missing one is 0 of the quantized type.
    if (xq->zero_point_value == nullptr || yq->zero_point_value == nullptr) return false;
    const DataType xt = QuantType(editor, *xq), yt = QuantType(editor, *yq);
    const DataType wt = w->dtype();
    if (xt != yt || !IsInt8(xt) || !IsInt8(wt) ||
        (wq->zero_point_value != nullptr && wq->zero_point_value->dtype() != wt)) {
      return false;
    }
    if (xt == DataType::kInt8 && wt != DataType::kInt8) return false;
    const size_t w_rank = w->shape().size();
    if (conv ? !PerTensorOrAxis(*wq, *w, 0)
             : !(PerTensor(*wq) || (w_rank == 2 && PerTensorOrAxis(*wq, *w, 1)))) {
      return false;
    }
    ir::ValueId bias = ir::kNoValue;
    std::optional<Quant> bq;
    if (conv && op.inputs.size() > 2 && op.inputs[2] != ir::kNoValue) {
      bq = ReadQuant(editor, editor.Producer(op.inputs[2]), "DequantizeLinear");
      if (!bq) return false;
      const Tensor* b = editor.Constant(bq->q);
      if (b == nullptr || b->dtype() != DataType::kInt32) return false;
      if (bq->zero_point_value != nullptr) {
        const Tensor& z = *bq->zero_point_value;
        if (z.dtype() != DataType::kInt32) return false;
        for (int64_t i = 0; i < z.element_count(); ++i) {
          if (z.data<int32_t>()[i] != 0) return false;
        }
      }
      bias = bq->q;
    }
    // The weights' zero point: ORT's kernels need one; a missing one is a zero of W's type.
    ir::ValueId w_zero_point = wq->zero_point;
    if (w_zero_point == ir::kNoValue) {
      Tensor zero = Tensor::Allocate(wt, {}).value();
      std::memset(zero.mutable_raw_data(), 0, 1);
      w_zero_point = editor.AddInitializer(editor.value(wq->q).name + "_zero_point", zero);
    }

    ir::Node fused;
    fused.name = op.name;
    fused.op_type = conv ? "QLinearConv" : "QLinearMatMul";
    fused.inputs = {xq->q, xq->scale, xq->zero_point, wq->q, wq->scale, w_zero_point,
                    yq->scale, yq->zero_point};
    if (bias != ir::kNoValue) fused.inputs.push_back(bias);
    fused.outputs = editor.node(yq->id).outputs;
    if (conv) fused.attributes = op.attributes;
    const ir::NodeId anchor = yq->id;
    editor.RemoveNode(id);
    editor.RemoveNode(yq->id);
    const auto drop_if_only_reader = [&](const std::optional<Quant>& dq) {
      if (dq && editor.HasSingleUse(editor.node(dq->id).outputs[0])) editor.RemoveNode(dq->id);
    };
    drop_if_only_reader(wq);
    drop_if_only_reader(bq);
    drop_if_only_reader(xq);
    editor.AddNode(std::move(fused), anchor);
    return true;
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeQdqFusionPass() { return std::make_unique<QdqFusion>(); }

}  // namespace nxrt::opt
