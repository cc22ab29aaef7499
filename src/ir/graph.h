// ir/graph.h: nxrt's graph IR: Model, Graph, Node, Value, Attribute, Initializer.
//
// Layer: nxrt_ir. Loaded from ONNX by ir/onnx_loader.h; read through ir/graph_view.h (topological
// order, producers, consumers, opsets). The IR mirrors ONNX closely but owns plain C++ data:
//   - Values are stored once per Graph and referred to by ValueId (index into Graph::values).
//     Names are unique and non-empty within a graph; they are opaque strings (numbers, JSON, ...).
//   - Nodes are stored in model order and referred to by NodeId (index into Graph::nodes).
//     An omitted optional input or output (empty name in ONNX) is kNoValue.
//   - A subgraph (If/Loop/Scan body) is a Graph owned by its node's attribute; `parent` points to
//     the enclosing graph. A name a subgraph uses but does not define is an outer-scope value:
//     the subgraph holds a Value for it with `outer_scope = true`, resolved by name in an
//     ancestor.
//   - Domains are canonical: the default ONNX domain is "" (ONNX's "ai.onnx" is mapped to "").
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "nxrt/data_type.h"
#include "nxrt/tensor.h"

namespace nxrt::ir {

using ValueId = int32_t;
using NodeId = int32_t;
inline constexpr ValueId kNoValue = -1;
inline constexpr NodeId kNoNode = -1;

// One dimension of a shape: a fixed size, a named symbol ("batch", "N"), or unknown.
struct Dim {
  enum class Kind : uint8_t { kUnknown, kFixed, kSymbolic };
  Kind kind = Kind::kUnknown;
  int64_t value = -1;   // for kFixed
  std::string symbol;   // for kSymbolic

  static Dim Fixed(int64_t v) { return {Kind::kFixed, v, {}}; }
  static Dim Symbolic(std::string s) { return {Kind::kSymbolic, -1, std::move(s)}; }
  static Dim Unknown() { return {}; }
  bool is_fixed() const { return kind == Kind::kFixed; }
  // "3", "batch" or "?".
  std::string ToString() const;
  bool operator==(const Dim&) const = default;
};

// The type of a value: ONNX TypeProto. For tensors, `elem_type` and an optional shape
// (nullopt = rank unknown). Sequences and optionals hold their element type in `element`;
// maps hold `map_key` and the value type in `element`.
struct TypeInfo {
  enum class Kind : uint8_t { kUnknown, kTensor, kSparseTensor, kSequence, kOptional, kMap };
  Kind kind = Kind::kUnknown;
  DataType elem_type = DataType::kUndefined;
  std::optional<std::vector<Dim>> shape;
  std::shared_ptr<const TypeInfo> element;
  DataType map_key = DataType::kUndefined;

  static TypeInfo Tensor(DataType t, std::optional<std::vector<Dim>> s = std::nullopt) {
    TypeInfo ti;
    ti.kind = Kind::kTensor;
    ti.elem_type = t;
    ti.shape = std::move(s);
    return ti;
  }
  bool known() const { return kind != Kind::kUnknown; }
  // "tensor(float)[1,3,N,?]", "seq(tensor(int64))", "optional(...)", "map(string,...)", "unknown".
  std::string ToString() const;
};

struct Graph;

// A node attribute (ONNX AttributeProto). The numbers of `Type` are AttributeProto's.
struct Attribute {
  enum class Type : int32_t {
    kUndefined = 0, kFloat = 1, kInt = 2, kString = 3, kTensor = 4, kGraph = 5,
    kFloats = 6, kInts = 7, kStrings = 8, kTensors = 9, kGraphs = 10,
    kSparseTensor = 11, kSparseTensors = 12, kTypeProto = 13, kTypeProtos = 14,
  };
  std::string name;
  Type type = Type::kUndefined;
  float f = 0;
  int64_t i = 0;
  std::string s;  // bytes, not necessarily UTF-8
  Tensor t;       // kTensor; kSparseTensor is densified on load
  std::shared_ptr<Graph> g;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  std::vector<Tensor> tensors;  // kTensors; kSparseTensors densified
  std::vector<std::shared_ptr<Graph>> graphs;
  TypeInfo tp;
  std::vector<TypeInfo> tps;
  std::string ref_attr_name;  // set inside function bodies only
  std::string doc_string;
};

// "float", "ints", "graph", ...
std::string_view AttributeTypeName(Attribute::Type type);

struct Node {
  NodeId id = kNoNode;
  std::string name;  // may be empty in ONNX; the loader names unnamed nodes "<op_type>_<id>"
  std::string op_type;
  std::string domain;  // canonical: "" for the default ONNX domain
  std::vector<ValueId> inputs;   // kNoValue for an omitted optional input
  std::vector<ValueId> outputs;  // kNoValue for an omitted optional output
  std::vector<Attribute> attributes;  // in model order
  std::string doc_string;
  // True when the model gives the node no name (`name` was made up by the loader).
  bool unnamed = false;
  // The node's index as ONNX Runtime numbers it: its position in its graph's node list, not
  // counting the Constant nodes before it (ORT makes them initializers when it loads a model).
  // kNoNode for a node a graph pass made, unless the pass numbers its nodes as ORT does
  // (transpose_optimizer: the next indices, in the order it made them).
  NodeId model_index = kNoNode;

  // The attribute named `attr_name`, or nullptr.
  const Attribute* FindAttribute(std::string_view attr_name) const;
  // True when some attribute holds a subgraph (GRAPH or GRAPHS).
  bool HasSubgraphs() const;
};

struct Value {
  std::string name;
  TypeInfo type;
  bool outer_scope = false;  // defined in an enclosing graph (subgraphs only)
  std::string doc_string;
};

// A constant tensor bound to a value (ONNX initializer or sparse_initializer, densified).
struct Initializer {
  ValueId value = kNoValue;
  Tensor tensor;
  bool external = false;  // data lives in an external file, mapped (not copied)
  bool sparse = false;    // came from sparse_initializer
  // For external ones: the ONNX external_data `location` (relative to the model's folder) and
  // the byte offset of the data in it; the data is tensor.byte_size() bytes long.
  std::string external_location;
  int64_t external_offset = 0;
};

struct Graph {
  std::string name;
  std::string doc_string;
  std::vector<Value> values;
  std::vector<Node> nodes;
  std::vector<ValueId> inputs;   // graph inputs in model order (may include initializers, IR < 4)
  std::vector<ValueId> outputs;  // graph outputs in model order
  std::vector<Initializer> initializers;  // in model order: dense first, then sparse
  std::vector<ValueId> value_infos;       // values that had a value_info entry
  const Graph* parent = nullptr;          // enclosing graph for subgraphs
  // ONNX Runtime's running counts for this graph, kept across the rewrites that add nodes as ORT
  // does (optimizer/passes/transpose_optimizer.cpp, optimizer/function_expansion.h): the next
  // node index ORT gives (its node list only grows, so a removed node's index is not given
  // again; 0: none given yet, the next is the highest Node::model_index + 1) and the next n of the
  // "_token_<n>" names its GenerateNodeName and GenerateNodeArgName make.
  NodeId ort_next_node_index = 0;
  int ort_name_counter = 0;

  // The value named `value_name`, or kNoValue. Only this graph, not ancestors.
  ValueId FindValue(std::string_view value_name) const;
  // Adds a value; the name must not exist yet (checked by the caller). Returns its id.
  ValueId AddValue(Value v);
  // Appends an initializer; its value must exist and have none yet (checked by the caller).
  void AddInitializer(Initializer init);
  // The initializer bound to `id`, or nullptr.
  const Initializer* FindInitializer(ValueId id) const;
  // Rebuilds the name and initializer indexes after `values`/`initializers` were edited directly.
  void Reindex();

 private:
  // Lets FindValue look a string_view up without building a std::string.
  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, ValueId, NameHash, std::equal_to<>> value_index_;
  std::unordered_map<ValueId, size_t> initializer_index_;
};

struct OpsetImport {
  std::string domain;  // canonical
  int64_t version = 0;
};

// Keeps an mmap'ed external-data file alive; tensors borrow from it.
struct MappedFile;

struct Model {
  int64_t ir_version = 0;
  std::vector<OpsetImport> opset_imports;  // in model order
  std::string producer_name;
  std::string producer_version;
  std::string domain;
  int64_t model_version = 0;  // INT64_MAX when the ModelProto sets none (as in ONNX Runtime)
  std::string doc_string;
  std::vector<std::pair<std::string, std::string>> metadata;  // metadata_props in model order
  std::vector<std::string> local_functions;  // "domain:name" of model-local FunctionProtos
  std::shared_ptr<Graph> graph;
  std::vector<std::shared_ptr<const MappedFile>> external_files;
  std::string path;  // file it was loaded from; "" when loaded from bytes
  // Dim symbols type inference made up for dims it could not tell ("unk__N"; LoadOptions::
  // infer_types), which the model itself never writes. ONNX Runtime shows such dims unknown.
  std::unordered_set<std::string> inferred_symbols;

  // The imported version of `domain` ("" and "ai.onnx" are the same), or nullopt.
  std::optional<int64_t> OpsetFor(std::string_view domain) const;
};

// "" for "ai.onnx" and "", otherwise the domain unchanged.
std::string CanonicalDomain(std::string_view domain);

}  // namespace nxrt::ir
