// optimizer/passes/nhwc_layout.cpp: runs chains of 2-D convolutions and pools channels-last
// (NHWC), with Transpose nodes only where a chain meets the rest of the graph (level 2).
//
// oneDNN's fastest float convolutions on AVX-512 (brgconv) read and write NHWC; with ONNX's NCHW
// tensors every Conv reorders its input and output (ResNet-18: 48 reorders, ~2.3 ms of a 22 ms
// run). The pass walks the graph in topological order and keeps, per value, its NHWC twin when
// it has one:
//   - Conv and com.nxrt:FusedConv with a rank-4 float constant W (a 2-D convolution) and a
//     non-constant X become FusedConv with channels_last = 1, reading X (and Z, the residual) as
//     twins; a value without a twin gets one from a Transpose (perm 0,2,3,1) placed at its
//     first reader;
//   - MaxPool (one output, 2-D kernel), AveragePool (2-D kernel) and GlobalAveragePool whose X
//     has a twin become com.nxrt:NhwcMaxPool / NhwcAveragePool / NhwcGlobalAveragePool with the
//     same attributes (a pool with no NHWC producer stays: a transpose would cost more than it
//     saves);
//   - elementwise operators (unary activations and arithmetic, Add/Sub/Mul/Div/Max/Min/Sum/Mean/
//     Pow) whose inputs are all twins or one-element constants, at least one a twin, run on the
//     twins unchanged: both operands are rank 4 and permuted alike, so broadcasting between them
//     (an SE block's [N,C,H,W] * [N,C,1,1]) is the same in NHWC;
//   - Concat on the channel axis (1 or -3) of twins only becomes Concat on axis 3;
//   - Resize of a twin by constant scales or sizes (4 values, no `axes` attribute, no
//     tf_crop_and_resize) runs on the twin with those values in NHWC order (an FPN's upsampling
//     between convolutions).
// A converted node's output keeps its NCHW value through a Transpose (perm 0,3,1,2) right after
// it only when something else needs it: a reader that was not converted, a subgraph or a graph
// output. Float only; results are the same operations on the same numbers (convolutions may sum
// in another order inside oneDNN: float rounding).
#include <algorithm>
#include <cstring>
#include <iterator>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ep/cpu/nxrt_ops.h"
#include "optimizer/passes.h"
#include "optimizer/passes/activation_match.h"

namespace nxrt::opt {
namespace {

constexpr int64_t kToNhwc[] = {0, 2, 3, 1};
constexpr int64_t kToNchw[] = {0, 3, 1, 2};

bool IsElementwise(const ir::Node& n) {
  static const std::vector<std::string> ops = {
      "Relu", "LeakyRelu", "Sigmoid", "HardSigmoid", "HardSwish", "Tanh", "Clip", "Elu",
      "Selu", "Softplus",  "Abs",     "Neg",         "Exp",       "Log",  "Sqrt", "Erf",
      "Add",  "Sub",       "Mul",     "Div",         "Max",       "Min",  "Sum",  "Mean",
      "Pow"};
  return n.domain.empty() && std::find(ops.begin(), ops.end(), n.op_type) != ops.end();
}

// True for a default-domain Transpose of one rank-4 value with `perm`.
bool IsLayoutTranspose(const ir::Node& n, const int64_t (&perm)[4]) {
  if (!n.domain.empty() || n.op_type != "Transpose" || n.inputs.size() != 1 ||
      n.outputs.size() != 1 || n.outputs[0] == ir::kNoValue) {
    return false;
  }
  const std::vector<int64_t> p = GraphEditor::IntsAttr(n, "perm");
  return std::equal(p.begin(), p.end(), std::begin(perm), std::end(perm));
}

// `type` with its rank-4 shape permuted by `perm` (unknown dims stay unknown); a float tensor of
// unknown shape when `type` gives none.
ir::TypeInfo Permuted(const ir::TypeInfo& type, const int64_t (&perm)[4]) {
  if (!type.shape || type.shape->size() != 4) return ir::TypeInfo::Tensor(DataType::kFloat);
  std::vector<ir::Dim> dims;
  for (int64_t axis : perm) dims.push_back((*type.shape)[static_cast<size_t>(axis)]);
  return ir::TypeInfo::Tensor(DataType::kFloat, std::move(dims));
}

// A 4-element vector of per-axis values (Resize's scales or sizes) in NHWC order.
Tensor PermutedVector(const Tensor& t) {
  Tensor out = Tensor::Allocate(t.dtype(), t.shape()).value();
  const size_t size = DataTypeSize(t.dtype());
  const auto* from = static_cast<const std::byte*>(t.raw_data());
  auto* to = static_cast<std::byte*>(out.mutable_raw_data());
  for (size_t i = 0; i < 4; ++i) {
    std::memcpy(to + i * size, from + static_cast<size_t>(kToNhwc[i]) * size, size);
  }
  return out;
}

ir::Attribute IntAttribute(std::string name, int64_t value) {
  ir::Attribute a;
  a.name = std::move(name);
  a.type = ir::Attribute::Type::kInt;
  a.i = value;
  return a;
}

ir::Node TransposeNode(std::string name, ir::ValueId from, ir::ValueId to,
                       const int64_t (&perm)[4]) {
  ir::Node t;
  t.op_type = "Transpose";
  t.name = std::move(name);
  t.inputs = {from};
  t.outputs = {to};
  ir::Attribute a;
  a.name = "perm";
  a.type = ir::Attribute::Type::kInts;
  a.ints.assign(std::begin(perm), std::end(perm));
  t.attributes.push_back(std::move(a));
  return t;
}

class NhwcLayout final : public GraphPass {
 public:
  std::string_view name() const override { return "nhwc_layout"; }
  int level() const override { return 2; }

  Result<int> Apply(GraphEditor& editor) const override {
    // The Transposes at a chain's ends are default-domain operators.
    if (!editor.model().OpsetFor("")) return 0;
    Rewriter rewriter(editor);
    for (ir::NodeId id : editor.TopologicalOrder()) {
      if (!editor.IsRemoved(id)) rewriter.Visit(editor.node(id));
    }
    rewriter.KeepNchwOutputs();
    rewriter.DropBypassedTransposes();
    NXRT_RETURN_IF_ERROR(editor.Commit());
    return rewriter.rewrites();
  }

 private:
  class Rewriter {
   public:
    explicit Rewriter(GraphEditor& editor)
        : editor_(editor), converted_(editor.graph().nodes.size(), false) {}

    int rewrites() const { return rewrites_; }

    void Visit(const ir::Node& n) {
      if (IsLayoutTranspose(n, kToNhwc) && twin_.count(n.inputs[0])) {
        DropTransposeToNhwc(n);
      } else if (IsConv(n)) {
        ir::Node fused =
            Clone(n, std::string(cpu::nxrt_ops::kFusedConv), std::string(cpu::nxrt_ops::kDomain));
        std::erase_if(fused.attributes,
                      [](const ir::Attribute& a) { return a.name == "channels_last"; });
        fused.attributes.push_back(IntAttribute("channels_last", 1));
        Convert(n, std::move(fused), {0, 3});
      } else if (const std::string_view op = NhwcPool(n); !op.empty()) {
        Convert(n, Clone(n, std::string(op), std::string(cpu::nxrt_ops::kDomain)), {0});
      } else if (IsElementwise(n) && ElementwiseOperandsReady(n)) {
        std::vector<size_t> slots;
        for (size_t s = 0; s < n.inputs.size(); ++s) {
          if (twin_.count(n.inputs[s])) slots.push_back(s);
        }
        Convert(n, SameOpOnNhwc(n), slots);
      } else if (IsSpatialResize(n)) {
        ir::Node resize = SameOpOnNhwc(n);
        // Resize-10 reads (X, scales); Resize-11+ (X, roi, scales, sizes).
        const size_t first = editor_.Opset(n) < 11 ? 1 : 2;
        for (size_t s = first; s < resize.inputs.size(); ++s) {
          const Tensor* t = editor_.Constant(resize.inputs[s]);
          if (t == nullptr || t->element_count() != 4) continue;
          const std::string name = editor_.value(resize.inputs[s]).name + "_nhwc";
          resize.inputs[s] = editor_.AddInitializer(name, PermutedVector(*t));
        }
        Convert(n, std::move(resize), {0});
      } else if (IsChannelConcat(n)) {
        ir::Node concat = SameOpOnNhwc(n);
        for (ir::Attribute& a : concat.attributes) {
          if (a.name == "axis") a.i = 3;
        }
        std::vector<size_t> slots(n.inputs.size());
        for (size_t s = 0; s < slots.size(); ++s) slots[s] = s;
        Convert(n, std::move(concat), slots);
      }
    }

    // Removes the model's own Transposes to NCHW that TwinOf looked through and that nothing
    // reads any more (every reader now runs channels-last).
    void DropBypassedTransposes() {
      for (ir::NodeId id : bypassed_) {
        if (!ReadAsNchw(editor_.node(id).outputs[0])) editor_.RemoveNode(id);
      }
    }

    // Adds the Transpose back to NCHW after each converted node whose output something still
    // reads in NCHW.
    void KeepNchwOutputs() {
      for (const auto& [v, nhwc] : produced_) {
        if (!ReadAsNchw(v)) continue;
        const ir::NodeId producer = editor_.Producer(v);
        editor_.AddNode(TransposeNode(editor_.value(v).name + "_to_nchw", nhwc, v, kToNchw),
                        producer);
      }
    }

   private:
    // True when something still reads `v` as NCHW: a graph output, a subgraph or a node this
    // pass did not convert.
    bool ReadAsNchw(ir::ValueId v) const {
      if (editor_.IsGraphOutput(v)) return true;
      for (const ir::Consumer& c : editor_.Consumers(v)) {
        if (c.slot == ir::kImplicitSlot || !converted_[static_cast<size_t>(c.node)]) return true;
      }
      return false;
    }

    // A 2-D float convolution: Conv, or FusedConv not yet channels-last, with a rank-4 float
    // constant W and an X that is computed (a constant X would be transposed on every run) and
    // not typed with another rank (that fails in the Conv kernel, with the Conv's name).
    bool IsConv(const ir::Node& n) const {
      const bool conv = n.domain.empty() && n.op_type == "Conv";
      const bool fused = n.domain == cpu::nxrt_ops::kDomain &&
                         n.op_type == cpu::nxrt_ops::kFusedConv &&
                         GraphEditor::IntAttr(n, "channels_last", 0) == 0;
      if ((!conv && !fused) || n.inputs.size() < 2 || n.outputs.size() != 1) return false;
      const Tensor* w = editor_.Constant(n.inputs[1]);
      return w != nullptr && w->dtype() == DataType::kFloat && w->shape().size() == 4 &&
             editor_.Constant(n.inputs[0]) == nullptr && editor_.Rank(n.inputs[0]).value_or(4) == 4;
    }

    // The channels-last operator for a pool whose X has a twin, else "".
    std::string_view NhwcPool(const ir::Node& n) const {
      if (!n.domain.empty() || n.inputs.size() != 1 || !twin_.count(n.inputs[0])) return {};
      const bool one_output =
          n.outputs.size() == 1 || (n.outputs.size() == 2 && n.outputs[1] == ir::kNoValue);
      const bool window_2d = GraphEditor::IntsAttr(n, "kernel_shape").size() == 2;
      if (n.op_type == "MaxPool" && one_output && window_2d) return cpu::nxrt_ops::kNhwcMaxPool;
      if (n.op_type == "AveragePool" && n.outputs.size() == 1 && window_2d) {
        return cpu::nxrt_ops::kNhwcAveragePool;
      }
      if (n.op_type == "GlobalAveragePool" && n.outputs.size() == 1) {
        return cpu::nxrt_ops::kNhwcGlobalAveragePool;
      }
      return {};
    }

    bool ElementwiseOperandsReady(const ir::Node& n) const {
      if (n.outputs.size() != 1) return false;
      bool any_twin = false;
      for (size_t s = 0; s < n.inputs.size(); ++s) {
        const ir::ValueId v = n.inputs[s];
        if (v == ir::kNoValue) continue;
        if (twin_.count(v)) {
          any_twin = true;
        } else if (!fuse::ScalarFloat(editor_, v, 4)) {
          return false;
        }
      }
      return any_twin;
    }

    // Resize of a twin by constant per-axis scales or sizes (4 values, or none), no `axes`, no
    // crop region: the same resize with the values in NHWC order.
    bool IsSpatialResize(const ir::Node& n) const {
      if (!n.domain.empty() || n.op_type != "Resize" || n.outputs.size() != 1 || n.inputs.empty() ||
          !twin_.count(n.inputs[0]) || n.FindAttribute("axes") != nullptr) {
        return false;
      }
      const ir::Attribute* mode = n.FindAttribute("coordinate_transformation_mode");
      if (mode != nullptr && mode->s == "tf_crop_and_resize") return false;
      const size_t first = editor_.Opset(n) < 11 ? 1 : 2;
      bool any = false;
      for (size_t s = first; s < n.inputs.size(); ++s) {
        if (n.inputs[s] == ir::kNoValue) continue;
        const Tensor* t = editor_.Constant(n.inputs[s]);
        if (t == nullptr || t->shape().size() != 1 ||
            (t->element_count() != 0 && t->element_count() != 4)) {
          return false;
        }
        any = any || t->element_count() == 4;
      }
      return any;
    }

    bool IsChannelConcat(const ir::Node& n) const {
      if (!n.domain.empty() || n.op_type != "Concat" || n.outputs.size() != 1 ||
          n.inputs.empty()) {
        return false;
      }
      const int64_t axis = GraphEditor::IntAttr(n, "axis", 0);
      if (axis != 1 && axis != -3) return false;
      return std::all_of(n.inputs.begin(), n.inputs.end(),
                         [&](ir::ValueId v) { return twin_.count(v) > 0; });
    }

    static ir::Node Clone(const ir::Node& n, std::string op_type, std::string domain) {
      ir::Node c;
      c.name = n.name;
      c.op_type = std::move(op_type);
      c.domain = std::move(domain);
      c.inputs = n.inputs;
      c.attributes = n.attributes;
      return c;
    }

    // `n` unchanged but for its name, "<name>_nhwc": it runs on NHWC data its model never had,
    // and an error's shapes must not be taken for NCHW ones.
    static ir::Node SameOpOnNhwc(const ir::Node& n) {
      ir::Node c = Clone(n, n.op_type, n.domain);
      c.name += "_nhwc";
      return c;
    }

    // Replaces `n` by `replacement`, whose inputs at `slots` read twins (made when missing) and
    // whose outputs are new NHWC values, the twins of n's outputs.
    void Convert(const ir::Node& n, ir::Node replacement, const std::vector<size_t>& slots) {
      for (size_t s : slots) {
        if (s < replacement.inputs.size() && replacement.inputs[s] != ir::kNoValue) {
          replacement.inputs[s] = TwinOf(replacement.inputs[s], n.id);
        }
      }
      for (ir::ValueId v : n.outputs) {
        if (v == ir::kNoValue) {
          continue;
        }
        const ir::ValueId nhwc = NewTwinValue(v);
        twin_[v] = nhwc;
        produced_.emplace_back(v, nhwc);
        replacement.outputs.push_back(nhwc);
      }
      editor_.RemoveNode(n.id);
      editor_.AddNode(std::move(replacement), n.id);
      converted_[static_cast<size_t>(n.id)] = true;
      ++rewrites_;
    }

    // A new value for the NHWC twin of `v`: "<name>_nhwc", v's type with the dims permuted.
    ir::ValueId NewTwinValue(ir::ValueId v) {
      // Copies first: AddValue may move the graph's values.
      const std::string name = editor_.value(v).name + "_nhwc";
      ir::TypeInfo type = Permuted(editor_.value(v).type, kToNhwc);
      return editor_.AddValue(name, std::move(type));
    }

    // The twin of `v`, made by a Transpose placed at `reader` (before the node replacing it)
    // when `v` has none yet.
    ir::ValueId TwinOf(ir::ValueId v, ir::NodeId reader) {
      if (auto it = twin_.find(v); it != twin_.end()) return it->second;
      // The model's own Transpose from NHWC (a TensorFlow export): its input is the twin.
      const ir::NodeId producer = editor_.Producer(v);
      if (producer != ir::kNoNode && IsLayoutTranspose(editor_.node(producer), kToNchw)) {
        const ir::ValueId nhwc = editor_.node(producer).inputs[0];
        twin_[v] = nhwc;
        bypassed_.push_back(producer);
        return nhwc;
      }
      const std::string name = editor_.value(v).name;
      const ir::ValueId nhwc = NewTwinValue(v);
      editor_.AddNode(TransposeNode(name + "_to_nhwc", v, nhwc, kToNhwc), reader);
      twin_[v] = nhwc;
      return nhwc;
    }

    // `n`, a Transpose to NHWC of a value with a twin, computes that twin again: its readers
    // read the twin instead, and the node goes (an Identity keeps a graph output or a value a
    // subgraph reads by name).
    void DropTransposeToNhwc(const ir::Node& n) {
      const ir::ValueId out = n.outputs[0];
      const ir::ValueId twin = twin_.at(n.inputs[0]);
      bool keep = editor_.IsGraphOutput(out);
      for (const ir::Consumer& c : editor_.Consumers(out)) {
        keep = keep || c.slot == ir::kImplicitSlot;
      }
      editor_.ReplaceInputUses(out, twin);
      editor_.RemoveNode(n.id);
      if (keep) {
        ir::Node copy;
        copy.op_type = "Identity";
        copy.name = n.name;
        copy.inputs = {twin};
        copy.outputs = {out};
        editor_.AddNode(std::move(copy), n.id);
      }
      converted_[static_cast<size_t>(n.id)] = true;
      ++rewrites_;
    }

    GraphEditor& editor_;
    std::vector<ir::NodeId> bypassed_;  // the model's Transposes to NCHW TwinOf looked through
    std::vector<bool> converted_;                           // by original node id
    std::unordered_map<ir::ValueId, ir::ValueId> twin_;     // NCHW value → its NHWC twin
    std::vector<std::pair<ir::ValueId, ir::ValueId>> produced_;  // converted nodes' outputs
    int rewrites_ = 0;
  };
};

}  // namespace

std::unique_ptr<GraphPass> MakeNhwcLayoutPass() { return std::make_unique<NhwcLayout>(); }

}  // namespace nxrt::opt
