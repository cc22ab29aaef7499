// optimizer/passes/shape_folding.cpp: replaces shape computations that the graph's inferred
// shapes already answer by constants, then folds what they feed. Two passes share the code:
//
//   - shape_folding (level 1): Shape (opset 15: dims [start, end) of its input) when every
//     reported dim is fixed, as ONNX Runtime 1.30's constant folding does at its default level;
//   - dim_folding (level 2, CPU only): Size when every dim of its input is fixed, and Gather
//     (axis 0) of a Shape output with constant indices or Slice of a Shape output with constant
//     starts/ends/axes/steps when every dim they select is fixed, even if other dims of the shape
//     are symbolic ("batch"): the common x.shape[-1] of exported models. ORT folds these only
//     with an option its inference sessions leave off, so a plugin EP (level 1) sees them kept,
//     as in ORT.
//
// The input's dims come from its type, which ONNX shape inference and the model's value_info
// give, or from a constant's shape. Then every node all of whose inputs are constant and one of
// them made by the pass folds, as in constant_folding (same conditions, same CPU EP kernels), so
// a chain such as Shape → Gather → Unsqueeze → Concat → Reshape's shape input becomes one
// initializer. A Shape node whose output is left without readers is removed by
// dead_node_elimination.
#include <algorithm>
#include <optional>
#include <vector>

#include "optimizer/passes.h"
#include "optimizer/passes/constant_evaluator.h"

namespace nxrt::opt {
namespace {

// The dims of `v`: a known constant's shape, else its type's shape; nullopt when the rank is not
// known.
std::optional<std::vector<ir::Dim>> DimsOf(const GraphEditor& editor,
                                           const ConstantEvaluator& evaluator, ir::ValueId v) {
  if (const Tensor* t = evaluator.Known(v)) {
    std::vector<ir::Dim> dims;
    for (int64_t d : t->shape()) dims.push_back(ir::Dim::Fixed(d));
    return dims;
  }
  const ir::TypeInfo& type = editor.value(v).type;
  if (type.kind != ir::TypeInfo::Kind::kTensor || !type.shape) return std::nullopt;
  return *type.shape;
}

// The dims a Shape node reports: its input's dims [start, end) (attributes since opset 15;
// negative values count from the end, then both are clamped to [0, rank]).
std::optional<std::vector<ir::Dim>> ShapeDims(const GraphEditor& editor,
                                              const ConstantEvaluator& evaluator,
                                              const ir::Node& shape) {
  std::optional<std::vector<ir::Dim>> dims = DimsOf(editor, evaluator, shape.inputs[0]);
  if (!dims) return std::nullopt;
  const int64_t rank = static_cast<int64_t>(dims->size());
  auto clamp = [rank](int64_t i) { return std::clamp(i < 0 ? i + rank : i, int64_t{0}, rank); };
  const int64_t start = clamp(GraphEditor::IntAttr(shape, "start", 0));
  const int64_t end = clamp(GraphEditor::IntAttr(shape, "end", rank));
  if (start >= end) return std::vector<ir::Dim>{};
  return std::vector<ir::Dim>(dims->begin() + start, dims->begin() + end);
}

// The values of `dims` at `positions` as an int64 tensor of `shape`, or nullopt when one of them
// is not fixed.
std::optional<Tensor> SelectFixed(const std::vector<ir::Dim>& dims,
                                  const std::vector<int64_t>& positions, Shape shape) {
  std::vector<int64_t> values;
  for (int64_t p : positions) {
    if (!dims[static_cast<size_t>(p)].is_fixed()) return std::nullopt;
    values.push_back(dims[static_cast<size_t>(p)].value);
  }
  Result<Tensor> t = Tensor::FromVector<int64_t>(std::move(shape), values);
  if (!t.ok()) return std::nullopt;
  return std::move(t).value();
}

// Gather(axis 0) of a shape with constant indices (negative ones count from the end).
std::optional<Tensor> FoldGather(const ConstantEvaluator& evaluator, const ir::Node& gather,
                                 const std::vector<ir::Dim>& dims) {
  const int64_t axis = GraphEditor::IntAttr(gather, "axis", 0);
  if (axis != 0 && axis != -1) return std::nullopt;
  const Tensor* indices = evaluator.Known(gather.inputs[1]);
  std::optional<std::vector<int64_t>> positions = GraphEditor::IntElements(indices);
  if (!positions) return std::nullopt;
  const int64_t n = static_cast<int64_t>(dims.size());
  for (int64_t& p : *positions) {
    if (p < -n || p >= n) return std::nullopt;
    if (p < 0) p += n;
  }
  return SelectFixed(dims, *positions, indices->shape());
}

// Slice of a shape: starts/ends/axes/steps are inputs 1-4 since opset 10, attributes before.
// Positions follow the ONNX Slice rules for one axis: negative starts/ends count from the end,
// then starts clamp to [0, n] and ends to [0, n] for a positive step, to [0, n-1] and [-1, n-1]
// for a negative one.
std::optional<Tensor> FoldSlice(const GraphEditor& editor, const ConstantEvaluator& evaluator,
                                const ir::Node& slice, const std::vector<ir::Dim>& dims) {
  std::vector<int64_t> starts, ends, axes, steps;
  if (editor.Opset(slice) < 10) {
    starts = GraphEditor::IntsAttr(slice, "starts");
    ends = GraphEditor::IntsAttr(slice, "ends");
    axes = GraphEditor::IntsAttr(slice, "axes");
  } else {
    auto input = [&](size_t i) -> std::optional<std::vector<int64_t>> {
      if (i >= slice.inputs.size() || slice.inputs[i] == ir::kNoValue) {
        return std::vector<int64_t>{};
      }
      return GraphEditor::IntElements(evaluator.Known(slice.inputs[i]));
    };
    std::optional<std::vector<int64_t>> s = input(1), e = input(2), a = input(3), st = input(4);
    if (!s || !e || !a || !st) return std::nullopt;
    starts = *s;
    ends = *e;
    axes = *a;
    steps = *st;
  }
  if (starts.size() != 1 || ends.size() != 1 || axes.size() > 1 || steps.size() > 1) {
    return std::nullopt;
  }
  if (!axes.empty() && axes[0] != 0 && axes[0] != -1) return std::nullopt;
  const int64_t step = steps.empty() ? 1 : steps[0];
  if (step == 0) return std::nullopt;
  const int64_t n = static_cast<int64_t>(dims.size());
  int64_t start = starts[0] < 0 ? starts[0] + n : starts[0];
  int64_t end = ends[0] < 0 ? ends[0] + n : ends[0];
  if (step > 0) {
    start = std::clamp(start, int64_t{0}, n);
    end = std::clamp(end, int64_t{0}, n);
  } else {
    start = std::clamp(start, int64_t{0}, n - 1);
    end = std::clamp(end, int64_t{-1}, n - 1);
  }
  std::vector<int64_t> positions;
  for (int64_t p = start; step > 0 ? p < end : p > end; p += step) positions.push_back(p);
  const int64_t count = static_cast<int64_t>(positions.size());
  return SelectFixed(dims, positions, {count});
}

class ShapeFolding final : public GraphPass {
 public:
  // `selected_dims`: dim_folding (Size, and Gather/Slice of a shape's fixed dims) instead of
  // shape_folding (whole shapes).
  explicit ShapeFolding(bool selected_dims) : selected_dims_(selected_dims) {}
  std::string_view name() const override {
    return selected_dims_ ? "dim_folding" : "shape_folding";
  }
  int level() const override { return selected_dims_ ? 2 : 1; }

  Result<int> Apply(GraphEditor& editor) const override {
    ConstantEvaluator evaluator(editor);
    int folded = 0;
    for (ir::NodeId id : editor.TopologicalOrder()) {
      const ir::Node& node = editor.node(id);
      const bool feeds_on_folded = std::any_of(node.inputs.begin(), node.inputs.end(), [&](auto v) {
        return v != ir::kNoValue && evaluator.Replaced(v);
      });
      if (feeds_on_folded && evaluator.CanFold(node)) {
        NXRT_ASSIGN_OR_RETURN(bool done, evaluator.Fold(id));
        folded += done ? 1 : 0;
        continue;
      }
      std::optional<Tensor> value = Evaluate(editor, evaluator, node, selected_dims_);
      if (!value) continue;
      evaluator.Replace(id, node.outputs[0], std::move(*value));
      ++folded;
    }
    NXRT_RETURN_IF_ERROR(editor.Commit());
    return folded;
  }

 private:
  // The output of `node` when it is one of the shape patterns (file comment) and the dims it
  // reads are fixed.
  static std::optional<Tensor> Evaluate(const GraphEditor& editor,
                                        const ConstantEvaluator& evaluator, const ir::Node& node,
                                        bool selected_dims) {
    if (!node.domain.empty() || node.outputs.size() != 1 || node.outputs[0] == ir::kNoValue ||
        node.inputs.empty() || node.inputs[0] == ir::kNoValue) {
      return std::nullopt;
    }
    if (!selected_dims) {
      if (node.op_type != "Shape") return std::nullopt;
      std::optional<std::vector<ir::Dim>> dims = ShapeDims(editor, evaluator, node);
      if (!dims) return std::nullopt;
      std::vector<int64_t> all(dims->size());
      for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int64_t>(i);
      return SelectFixed(*dims, all, {static_cast<int64_t>(all.size())});
    }
    if (node.op_type == "Size") {
      std::optional<std::vector<ir::Dim>> dims = DimsOf(editor, evaluator, node.inputs[0]);
      if (!dims) return std::nullopt;
      int64_t size = 1;
      for (const ir::Dim& d : *dims) {
        // A product past INT64_MAX (declared dims [2, INT64_MAX]) stays unfolded: no tensor has
        // that many elements, and the run reports the dims.
        if (!d.is_fixed() || __builtin_mul_overflow(size, d.value, &size)) return std::nullopt;
      }
      return Tensor::Scalar<int64_t>(size);
    }
    if (node.op_type != "Gather" && node.op_type != "Slice") return std::nullopt;
    const ir::NodeId producer = editor.Producer(node.inputs[0]);
    if (producer == ir::kNoNode) return std::nullopt;
    const ir::Node& shape = editor.node(producer);
    if (shape.op_type != "Shape" || !shape.domain.empty()) return std::nullopt;
    std::optional<std::vector<ir::Dim>> dims = ShapeDims(editor, evaluator, shape);
    if (!dims) return std::nullopt;
    if (node.op_type == "Gather") {
      if (node.inputs.size() < 2 || node.inputs[1] == ir::kNoValue) return std::nullopt;
      return FoldGather(evaluator, node, *dims);
    }
    return FoldSlice(editor, evaluator, node, *dims);
  }

  bool selected_dims_;
};

}  // namespace

std::unique_ptr<GraphPass> MakeShapeFoldingPass() { return std::make_unique<ShapeFolding>(false); }
std::unique_ptr<GraphPass> MakeDimFoldingPass() { return std::make_unique<ShapeFolding>(true); }

}  // namespace nxrt::opt
