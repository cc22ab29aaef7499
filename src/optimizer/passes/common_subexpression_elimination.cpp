// optimizer/passes/common_subexpression_elimination.cpp: merges nodes that compute the same
// values, as ONNX Runtime 1.30's CommonSubexpressionElimination does at level 1, so a plugin EP
// is shown the nodes ORT shows it.
//
// Value numbering, as ORT does it: walking the graph in ORT's topological order
// (ir/ort_node_order.h), each graph input, initializer and outer-scope value is a number of its
// own; a node's output i gets the number of (op type, domain, attributes with the schema's
// defaults filled in, as ORT's resolved nodes carry them, the numbers of its inputs without
// trailing omitted ones, i). Nodes ORT does not merge get numbers of their own: nodes with a
// subgraph, nodes of a domain other than the default ONNX one, the random operators
// (RandomNormal, RandomUniform, their -Like forms, Multinomial), and nodes with an attribute of a
// type ORT does not compare (tensors, graphs, type protos). The first node in ORT's order that
// computes a number keeps its outputs; the readers of a later output with the same number read
// the first one's instead, unless it is a graph output or a subgraph reads it, and a later node
// none of whose outputs is read any more goes. Floats compare as numbers (a NaN attribute never
// equals another). Runs on every graph, subgraphs included, as ORT's does.
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "ir/op_schema.h"
#include "ir/ort_node_order.h"
#include "optimizer/passes.h"

namespace nxrt::opt {
namespace {

// The bits of `f` as a key field (-0 as 0, which ORT's == finds equal).
std::string FloatField(float f) {
  if (f == 0.0f) f = 0.0f;
  uint32_t bits = 0;
  std::memcpy(&bits, &f, sizeof(bits));
  return std::to_string(bits);
}

// Appends a length-prefixed field, so that concatenated fields cannot collide.
void Put(std::string& key, const std::string& field) {
  key += std::to_string(field.size());
  key += ':';
  key += field;
}

// `attr` as a key field, or false for the attribute types ORT never finds equal.
bool PutAttribute(std::string& key, const ir::Attribute& attr) {
  using Type = ir::Attribute::Type;
  Put(key, attr.name);
  key += std::to_string(static_cast<int>(attr.type)) + ';';
  switch (attr.type) {
    case Type::kFloat:
      if (attr.f != attr.f) return false;  // NaN: ORT's == is false
      key += FloatField(attr.f) + ';';
      return true;
    case Type::kInt: key += std::to_string(attr.i) + ';'; return true;
    case Type::kString: Put(key, attr.s); return true;
    case Type::kFloats:
      for (float f : attr.floats) {
        if (f != f) return false;
        key += FloatField(f) + ',';
      }
      key += ';';
      return true;
    case Type::kInts:
      for (int64_t i : attr.ints) key += std::to_string(i) + ',';
      key += ';';
      return true;
    case Type::kStrings:
      for (const std::string& s : attr.strings) Put(key, s);
      key += ';';
      return true;
    default: return false;
  }
}

bool Deterministic(const ir::Node& node) {
  if (!node.domain.empty()) return false;
  const std::string& op = node.op_type;
  return op != "RandomNormal" && op != "RandomUniform" && op != "RandomNormalLike" &&
         op != "RandomUniformLike" && op != "Multinomial";
}

class CommonSubexpressionElimination final : public GraphPass {
 public:
  std::string_view name() const override { return "common_subexpression_elimination"; }
  int level() const override { return 1; }

  Result<int> Apply(GraphEditor& editor) const override {
    const ir::GraphView& view = editor.view();
    const std::vector<ir::NodeId> order = ir::OrtTopologicalOrder(view, ir::OrtNodeIndices(view));
    std::vector<int64_t> number(editor.graph().values.size(), -1);
    int64_t next = 0;
    // Key of a computed value → (its number, the value that keeps it).
    std::map<std::string, std::pair<int64_t, ir::ValueId>> numbered;
    std::vector<ir::ValueId> keeper(editor.graph().values.size(), ir::kNoValue);
    for (ir::NodeId id : order) {
      const ir::Node& node = editor.node(id);
      std::string key;
      bool mergeable = !node.HasSubgraphs() && Deterministic(node);
      if (mergeable) {
        Put(key, node.op_type);
        Put(key, node.domain);
        std::map<std::string, const ir::Attribute*> attrs;
        for (const ir::Attribute& a : node.attributes) attrs[a.name] = &a;
        const std::vector<ir::Attribute> defaults =
            ir::AttributeDefaults(node.domain, node.op_type, editor.Opset(node));
        for (const ir::Attribute& a : defaults) attrs.try_emplace(a.name, &a);
        for (const auto& [attr_name, attr] : attrs) {
          mergeable = mergeable && PutAttribute(key, *attr);
        }
        size_t inputs = node.inputs.size();
        while (inputs > 0 && node.inputs[inputs - 1] == ir::kNoValue) --inputs;
        key += '(';
        for (size_t i = 0; i < inputs; ++i) {
          const ir::ValueId v = node.inputs[i];
          if (v != ir::kNoValue && number[v] < 0) number[v] = next++;
          key += std::to_string(v == ir::kNoValue ? -1 : number[v]) + ',';
        }
        key += ')';
      }
      for (size_t o = 0; o < node.outputs.size(); ++o) {
        const ir::ValueId out = node.outputs[o];
        if (out == ir::kNoValue) continue;
        if (!mergeable) {
          number[out] = next++;
          keeper[out] = out;
          continue;
        }
        auto [it, first] =
            numbered.try_emplace(key + std::to_string(o), std::pair{next, out});
        if (first) ++next;
        number[out] = it->second.first;
        keeper[out] = it->second.second;
      }
    }
    int merged = 0;
    for (ir::NodeId id : order) {
      const ir::Node& node = editor.node(id);
      bool replaced = false;
      bool still_read = false;
      for (ir::ValueId out : node.outputs) {
        if (out == ir::kNoValue) continue;
        bool read_by_subgraph = false;
        bool read = false;
        for (const ir::Consumer& c : editor.Consumers(out)) {
          read = true;
          read_by_subgraph = read_by_subgraph || c.slot == ir::kImplicitSlot;
        }
        if (keeper[out] != out && !editor.IsGraphOutput(out) && !read_by_subgraph) {
          editor.ReplaceInputUses(out, keeper[out]);
          replaced = true;
          continue;
        }
        still_read = still_read || read || editor.IsGraphOutput(out);
      }
      if (!replaced) continue;
      ++merged;
      if (!still_read) editor.RemoveNode(id);
    }
    NXRT_RETURN_IF_ERROR(editor.Commit());
    return merged;
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeCommonSubexpressionEliminationPass() {
  return std::make_unique<CommonSubexpressionElimination>();
}

}  // namespace nxrt::opt
