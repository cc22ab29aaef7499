// optimizer/passes/insert_cast.cpp: runs float16 and bfloat16 nodes in float32, with Cast nodes
// only at the edges of each float32 island (ONNX Runtime's InsertCastTransformer, followed by its
// removal of the Casts between converted nodes).
//
// The CPU has no half-precision arithmetic nxrt uses, so a half-precision kernel that computes
// is a reference loop, many times slower than its float32 twin (oneDNN, vectorised loops). A
// node is converted when it is of the default domain, has no subgraph, reads a float16 or
// bfloat16 tensor, its outputs' types are known, no `dtype`/`to` attribute names a half type,
// and the CPU EP's table has a kernel for it with every half tensor taken as float32. Nodes whose
// half kernel runs as fast as float32 (ep/cpu/half_kernels.h: Transpose, Reshape, Concat, ...,
// the unary elementwise ops and the reductions) stay in their dtype, unless every half tensor
// they read is a constant, comes from a converted node or from a model Cast from float32, and
// every reader of the half tensors they write is converted or a model Cast to float32 (ORT's
// isolated-node rule, to a fixed point, so a Reshape → Transpose chain between two converted
// nodes runs in float32 too; moving elements is exact in either dtype, and the unary ops and
// reductions compute in float32 either way).
//
// Models importing the default domain below opset 6 are left alone (Cast-1 names its target type
// as a string). The rewrite: a converted node reads the float32 form of each half input and writes a float32
// value for each half output. The float32 form of a half constant (an initializer that is not a
// graph input) is a float32 initializer converted here, at session creation (the half one is
// freed as soon as it is converted when only converted nodes read it); of a value a
// model Cast made from a float32 tensor, that tensor (the Cast pair cancels, as in ORT); of any
// other value, one inserted Cast to float. A half output keeps its value id, written by an
// inserted Cast back to its dtype, when a graph output, a subgraph or an unconverted node reads
// it, so the model's outputs keep their types; a model Cast to float reading it is dropped and
// the converted node writes that Cast's output directly. Values between converted nodes stay
// float32, never rounded to half (as in ORT, whose Cast pairs between converted nodes cancel).
#include <algorithm>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ep/cpu/half_kernels.h"
#include "ep/cpu/math/elementwise/cast.h"
#include "ep/node_info_builder.h"
#include "optimizer/passes.h"
#include "optimizer/passes/constant_evaluator.h"

namespace nxrt::opt {
namespace {

bool IsHalf(DataType t) { return t == DataType::kFloat16 || t == DataType::kBFloat16; }

bool IsHalfTensor(const GraphEditor& editor, ir::ValueId v) {
  if (v == ir::kNoValue) return false;
  const ir::TypeInfo& type = editor.value(v).type;
  return type.kind == ir::TypeInfo::Kind::kTensor && IsHalf(type.elem_type);
}

bool IsCast(const ir::Node& node) { return node.op_type == "Cast" && node.domain.empty(); }

// Cast's target type, kUndefined when absent.
DataType CastTarget(const ir::Node& node) {
  return static_cast<DataType>(GraphEditor::IntAttr(node, "to", 0));
}

ir::Node MakeCast(std::string name, ir::ValueId in, ir::ValueId out, DataType to) {
  ir::Node cast;
  cast.name = std::move(name);
  cast.op_type = "Cast";
  cast.inputs = {in};
  cast.outputs = {out};
  ir::Attribute attr;
  attr.name = "to";
  attr.type = ir::Attribute::Type::kInt;
  attr.i = static_cast<int64_t>(to);
  cast.attributes.push_back(std::move(attr));
  return cast;
}

// One Apply over one graph.
class Islands {
 public:
  explicit Islands(GraphEditor& editor)
      : editor_(editor), infos_(editor.view()), in_(editor.graph().nodes.size(), false) {}

  Result<int> Run() {
    NXRT_RETURN_IF_ERROR(Select());
    int converted = 0;
    for (ir::NodeId id : editor_.TopologicalOrder()) {
      if (!in_[static_cast<size_t>(id)]) continue;
      NXRT_RETURN_IF_ERROR(Convert(id));
      ++converted;
    }
    NXRT_RETURN_IF_ERROR(editor_.Commit());
    return converted;
  }

 private:
  // Marks the nodes to run in float32 (file comment).
  Status Select() {
    std::vector<bool> mover(in_.size(), false);
    for (ir::NodeId id : editor_.TopologicalOrder()) {
      const ir::Node& node = editor_.node(id);
      if (IsCast(node) || node.op_type == "CastLike") continue;
      NXRT_ASSIGN_OR_RETURN(bool eligible, Eligible(id));
      if (!eligible) continue;
      in_[static_cast<size_t>(id)] = true;
      mover[static_cast<size_t>(id)] = cpu::HalfKernelIsNative(node.op_type);
    }
    // Movers leave the island until each one left has only island neighbours on half tensors.
    for (bool changed = true; changed;) {
      changed = false;
      for (ir::NodeId id : editor_.TopologicalOrder()) {
        const size_t i = static_cast<size_t>(id);
        if (mover[i] && in_[i] && !Surrounded(id)) {
          in_[i] = false;
          changed = true;
        }
      }
    }
    return Status::Ok();
  }

  bool InIsland(ir::NodeId id) const { return id != ir::kNoNode && in_[static_cast<size_t>(id)]; }

  // The float32 tensor a model Cast turned into half value `v`, or kNoValue when `v` is not
  // such a Cast's output. An island reads that tensor instead (the Cast pair cancels).
  ir::ValueId CastFromFloat(ir::ValueId v) const {
    const ir::NodeId producer = editor_.Producer(v);
    if (producer == ir::kNoNode || !IsCast(editor_.node(producer))) return ir::kNoValue;
    const ir::ValueId source = editor_.node(producer).inputs[0];
    const ir::TypeInfo& type = editor_.value(source).type;
    const bool from_float =
        type.kind == ir::TypeInfo::Kind::kTensor && type.elem_type == DataType::kFloat;
    return from_float ? source : ir::kNoValue;
  }

  // A mover's half inputs are constants, island outputs or model Casts from float32 (one of the
  // last two at least), and every reader of its half outputs is an island node or a model Cast
  // to float32 (which a converted node absorbs).
  bool Surrounded(ir::NodeId id) const {
    const ir::Node& node = editor_.node(id);
    bool fed_by_island = false;
    for (ir::ValueId v : node.inputs) {
      if (!IsHalfTensor(editor_, v)) continue;
      if (InIsland(editor_.Producer(v)) || CastFromFloat(v) != ir::kNoValue) {
        fed_by_island = true;
      } else if (editor_.Constant(v) == nullptr) {
        return false;
      }
    }
    if (!fed_by_island) return false;
    for (ir::ValueId v : node.outputs) {
      if (!IsHalfTensor(editor_, v)) continue;
      if (editor_.IsGraphOutput(v)) return false;
      for (const ir::Consumer& use : editor_.Consumers(v)) {
        if (use.slot == ir::kImplicitSlot) return false;
        const ir::Node& reader = editor_.node(use.node);
        const bool to_float = IsCast(reader) && CastTarget(reader) == DataType::kFloat;
        if (!InIsland(use.node) && !to_float) return false;
      }
    }
    return true;
  }

  Result<bool> Eligible(ir::NodeId id) {
    const ir::Node& node = editor_.node(id);
    if (!node.domain.empty() || node.HasSubgraphs()) return false;
    if (std::none_of(node.inputs.begin(), node.inputs.end(),
                     [&](ir::ValueId v) { return IsHalfTensor(editor_, v); })) {
      return false;
    }
    for (ir::ValueId v : node.outputs) {
      if (v != ir::kNoValue && !editor_.value(v).type.known()) return false;
    }
    for (const ir::Attribute& attr : node.attributes) {
      if ((attr.name == "dtype" || attr.name == "to") && attr.type == ir::Attribute::Type::kInt &&
          IsHalf(static_cast<DataType>(attr.i))) {
        return false;
      }
    }
    return RunsInFloat(id);
  }

  // True when the CPU EP's table has a kernel for the node with its half tensors as float32.
  Result<bool> RunsInFloat(ir::NodeId id) {
    const NodeInfo info = infos_.Node(id);
    NodeInfo::Data data;
    data.id = info.id();
    data.name = info.name();
    data.op_type = info.op_type();
    data.domain = info.domain();
    data.opset = info.opset();
    data.since_version = info.since_version();
    data.attributes = info.attributes();
    const ir::Node& node = editor_.node(id);
    for (size_t i = 0; i < info.inputs().size(); ++i) {
      ValueInfo value = info.inputs()[i];
      if (value.kind == ValueKind::kTensor && IsHalf(value.dtype)) {
        value.dtype = DataType::kFloat;
        if (value.is_constant && i < node.inputs.size()) {
          NXRT_ASSIGN_OR_RETURN(std::optional<Tensor> converted, FloatConstant(node.inputs[i]));
          if (!converted) return false;
          value.constant = std::move(*converted);
        }
      }
      data.inputs.push_back(std::move(value));
    }
    for (ValueInfo value : info.outputs()) {
      if (value.kind == ValueKind::kTensor && IsHalf(value.dtype)) value.dtype = DataType::kFloat;
      data.outputs.push_back(std::move(value));
    }
    return CpuKernels().Supports(NodeInfo(std::move(data))).supported();
  }

  // The float32 copy of half constant `v`; nullopt when `v` is not a constant. A copy of up to
  // kKeptBytes is kept for the island's conversion; a larger one (a weight) is converted again
  // when its island reader is, so choosing the islands holds one large copy at a time.
  static constexpr size_t kKeptBytes = size_t{64} << 10;
  Result<std::optional<Tensor>> FloatConstant(ir::ValueId v) {
    auto it = constants_.find(v);
    if (it != constants_.end()) return std::optional<Tensor>(it->second);
    const Tensor* half = editor_.Constant(v);
    if (half == nullptr) return std::optional<Tensor>();
    Tensor converted;
    NXRT_RETURN_IF_ERROR(cpu::math::Cast(*half, DataType::kFloat, &converted));
    if (converted.byte_size() <= kKeptBytes) constants_.emplace(v, converted);
    return std::optional<Tensor>(std::move(converted));
  }

  ir::TypeInfo FloatType(ir::ValueId v) const {
    return ir::TypeInfo::Tensor(DataType::kFloat, editor_.value(v).type.shape);
  }

  // The float32 form of half value `v` read by island node `reader` (file comment).
  Result<ir::ValueId> FloatInput(ir::ValueId v, ir::NodeId reader) {
    auto it = as_float_.find(v);
    if (it != as_float_.end()) return it->second;
    const std::string name = editor_.value(v).name;  // a copy: AddValue grows the value list
    ir::ValueId result = ir::kNoValue;
    const ir::NodeId producer = editor_.Producer(v);
    if (editor_.Constant(v) != nullptr) {
      NXRT_ASSIGN_OR_RETURN(std::optional<Tensor> converted, FloatConstant(v));
      result = editor_.AddInitializer(name + "_fp32", std::move(*converted));
      constants_.erase(v);
      // A half initializer only the island reads is freed now, not at Commit: a model's weights
      // are held in both types one tensor at a time.
      if (OnlyIslandReads(v)) editor_.ReleaseConstant(v);
    } else if (CastFromFloat(v) != ir::kNoValue) {
      result = CastFromFloat(v);
      if (OnlyIslandReads(v)) editor_.RemoveNode(producer);
    } else {
      result = editor_.AddValue(name + "_fp32", FloatType(v));
      editor_.AddNode(MakeCast("InsertedCast_" + name, v, result, DataType::kFloat),
                      producer != ir::kNoNode ? producer : reader);
    }
    as_float_.emplace(v, result);
    return result;
  }

  bool OnlyIslandReads(ir::ValueId v) const {
    if (editor_.IsGraphOutput(v)) return false;
    for (const ir::Consumer& use : editor_.Consumers(v)) {
      if (use.slot == ir::kImplicitSlot || !InIsland(use.node)) return false;
    }
    return true;
  }

  Status Convert(ir::NodeId id) {
    ir::Node copy = editor_.node(id);
    for (ir::ValueId& v : copy.inputs) {
      if (IsHalfTensor(editor_, v)) {
        NXRT_ASSIGN_OR_RETURN(v, FloatInput(v, id));
      }
    }
    std::vector<ir::Node> casts_back;
    for (ir::ValueId& v : copy.outputs) {
      if (!IsHalfTensor(editor_, v)) continue;
      const ir::ValueId half = v;
      const DataType half_type = editor_.value(half).type.elem_type;
      // A model Cast to float reading the output: the converted node writes its output instead.
      ir::NodeId absorbed = ir::kNoNode;
      bool needs_half = editor_.IsGraphOutput(half);
      for (const ir::Consumer& use : editor_.Consumers(half)) {
        if (use.slot == ir::kImplicitSlot) {
          needs_half = true;
        } else if (InIsland(use.node)) {
          continue;
        } else if (absorbed == ir::kNoNode && IsCast(editor_.node(use.node)) &&
                   CastTarget(editor_.node(use.node)) == DataType::kFloat &&
                   !editor_.IsRemoved(use.node)) {
          absorbed = use.node;
        } else {
          needs_half = true;
        }
      }
      if (absorbed != ir::kNoNode) {
        v = editor_.node(absorbed).outputs[0];
        editor_.RemoveNode(absorbed);
      } else {
        v = editor_.AddValue(editor_.value(half).name + "_fp32", FloatType(half));
      }
      as_float_.emplace(half, v);
      if (needs_half) {
        casts_back.push_back(
            MakeCast("InsertedCast_" + editor_.value(half).name, v, half, half_type));
      }
    }
    editor_.RemoveNode(id);
    editor_.AddNode(std::move(copy), id);
    for (ir::Node& cast : casts_back) editor_.AddNode(std::move(cast), id);
    return Status::Ok();
  }

  GraphEditor& editor_;
  ep::NodeInfoBuilder infos_;
  std::vector<bool> in_;  // by node id: runs in float32
  std::unordered_map<ir::ValueId, Tensor> constants_;
  std::unordered_map<ir::ValueId, ir::ValueId> as_float_;
};

class InsertCast final : public GraphPass {
 public:
  std::string_view name() const override { return "insert_cast"; }
  int level() const override { return 2; }

  Result<int> Apply(GraphEditor& editor) const override {
    // The inserted Casts are Cast-6 or later (`to` an int; Cast-1 names the type as a string).
    if (editor.model().OpsetFor("").value_or(0) < 6) return 0;
    return Islands(editor).Run();
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeInsertCastPass() { return std::make_unique<InsertCast>(); }

}  // namespace nxrt::opt
