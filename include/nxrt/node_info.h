// nxrt/node_info.h: the read-only view of one graph node that an execution provider sees.
//
// Part of the EP author's API (std only: no IR types). nxrt builds a NodeInfo from its graph IR
// (src/ep/node_info_builder.h) and passes it to ExecutionProvider::Supports and CreateKernel; a
// test can also fill one by hand through NodeInfo::Data. Everything is a copy or a shared,
// immutable tensor, so a NodeInfo stays valid after the graph is gone.
//
// What it mirrors (ONNX NodeProto plus what nxrt knows about it):
//   - identity: id (index in its graph), name, op_type, domain ("" is the default ONNX domain),
//     the node's effective opset (its domain's import version) and the operator schema's
//     since_version at that opset (Add at opset 17 has since_version 14; -1 when no schema is
//     known, e.g. custom domains);
//   - inputs and outputs in slot order: name, kind, element type, shape (each dim fixed, symbolic
//     or unknown; or the whole rank unknown) and, for constant initializers, the tensor itself;
//     an omitted optional input or output has kind kAbsent and an empty name;
//   - attributes as stored in the model (schema defaults are not filled in: use the getters with
//     a default), with typed getters returning Result<T>;
//   - whether the node carries subgraphs (If/Loop/Scan bodies) and under which attribute names.
// Source: onnx/onnx.proto (NodeProto, AttributeProto, ValueInfoProto, TensorShapeProto).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nxrt/data_type.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt {

// One dimension of a declared shape: a fixed size (>= 0), a named symbol ("batch"), or unknown.
struct DimInfo {
  enum class Kind : uint8_t { kUnknown, kFixed, kSymbolic };
  Kind kind = Kind::kUnknown;
  int64_t value = -1;  // the size, for kFixed only
  std::string symbol;  // the name, for kSymbolic only

  static DimInfo Fixed(int64_t v) { return {Kind::kFixed, v, {}}; }
  static DimInfo Symbolic(std::string s) { return {Kind::kSymbolic, -1, std::move(s)}; }
  static DimInfo Unknown() { return {}; }
  bool is_fixed() const { return kind == Kind::kFixed; }
  // "3", "batch" or "?".
  std::string ToString() const;
  bool operator==(const DimInfo&) const = default;
};

// What kind of value flows through an input or output slot (ONNX TypeProto's cases).
enum class ValueKind : uint8_t {
  kAbsent,   // omitted optional input/output (empty name in the model)
  kUnknown,  // the model gives no type
  kTensor,
  kSparseTensor,
  kSequence,  // dtype is the element tensors' type, when known; map_key is set when the
              // elements are maps (seq(map(K, V))), dtype then being their value type
  kOptional,  // dtype is the contained tensor's type, when known
  kMap,       // map_key is the key type, dtype the value type, when it is a tensor type
};

// "absent", "unknown", "tensor", "sparse_tensor", "sequence", "optional", "map".
std::string_view ValueKindName(ValueKind kind);

// One input or output of a node.
struct ValueInfo {
  std::string name;  // "" only for kAbsent
  ValueKind kind = ValueKind::kAbsent;
  DataType dtype = DataType::kUndefined;      // kUndefined when not known from the model
  // The key type of a kMap, or of the maps of a kSequence of maps (int64 or string in ONNX-ML
  // models); kUndefined for every other value.
  DataType map_key = DataType::kUndefined;
  // nullopt: rank unknown; {} : a scalar. For kSequence and kOptional: the shape of the element
  // (contained) tensor, when it is a tensor.
  std::optional<std::vector<DimInfo>> shape;
  // True for an initializer that a caller cannot override (an initializer that is not also a
  // graph input), looked up through enclosing graphs for outer-scope values. `constant` then
  // holds its value (shared, not copied). Outputs of Constant nodes are not initializers: false.
  bool is_constant = false;
  Tensor constant;

  bool present() const { return kind != ValueKind::kAbsent; }
  // The rank, or nullopt when unknown.
  std::optional<size_t> rank() const;
  // True when the rank is known and every dim is fixed.
  bool has_static_shape() const;
  // The dims as int64 when has_static_shape(); nullopt otherwise.
  std::optional<Shape> static_shape() const;
  // "x: tensor(float)[N,3,?,?]", "x: tensor(float)[rank ?]", "<absent>", "c: tensor(int64)[2]
  // (constant)".
  std::string ToString() const;
};

// The ONNX AttributeProto types, with AttributeProto's numbers.
enum class AttributeType : int32_t {
  kUndefined = 0,
  kFloat = 1,
  kInt = 2,
  kString = 3,
  kTensor = 4,
  kGraph = 5,
  kFloats = 6,
  kInts = 7,
  kStrings = 8,
  kTensors = 9,
  kGraphs = 10,
  kSparseTensor = 11,
  kSparseTensors = 12,
  kTypeProto = 13,
  kTypeProtos = 14,
};

// "float", "int", "string", "tensor", "graph", "floats", "ints", ..., "undefined".
std::string_view AttributeTypeName(AttributeType type);

// One attribute. Only the field matching `type` is meaningful. Sparse tensors are densified
// into `tensor`/`tensors`. Graphs are not exposed to EPs (only their count): a node with
// subgraphs is placed as a single node and its EP gets the bodies through the runtime.
struct AttributeValue {
  std::string name;
  AttributeType type = AttributeType::kUndefined;
  float f = 0;
  int64_t i = 0;
  std::string s;  // bytes, not necessarily UTF-8
  Tensor tensor;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  std::vector<Tensor> tensors;
  int graph_count = 0;  // 1 for kGraph, the list length for kGraphs
};

class NodeInfo {
 public:
  // Everything a NodeInfo holds; filled by nxrt's builder or by hand in tests.
  struct Data {
    int64_t id = -1;
    std::string name;
    std::string op_type;
    std::string domain;      // "" for the default ONNX domain ("ai.onnx")
    int64_t opset = 0;       // the domain's imported version
    int since_version = -1;  // schema version in effect at `opset`; -1 when unknown
    std::vector<ValueInfo> inputs;
    std::vector<ValueInfo> outputs;
    std::vector<AttributeValue> attributes;  // in model order
  };

  NodeInfo() = default;
  explicit NodeInfo(Data data) : data_(std::move(data)) {}

  int64_t id() const { return data_.id; }
  const std::string& name() const { return data_.name; }
  const std::string& op_type() const { return data_.op_type; }
  const std::string& domain() const { return data_.domain; }
  int64_t opset() const { return data_.opset; }
  int since_version() const { return data_.since_version; }

  // Slot-ordered; omitted optional slots are present with kind kAbsent. Trailing omitted inputs
  // may simply be missing (ONNX allows both), so check `i < inputs().size()` first.
  const std::vector<ValueInfo>& inputs() const { return data_.inputs; }
  const std::vector<ValueInfo>& outputs() const { return data_.outputs; }
  // True when slot `i` exists and is not omitted.
  bool has_input(size_t i) const { return i < data_.inputs.size() && data_.inputs[i].present(); }
  bool has_output(size_t i) const { return i < data_.outputs.size() && data_.outputs[i].present(); }

  const std::vector<AttributeValue>& attributes() const { return data_.attributes; }
  // The attribute named `name`, or nullptr.
  const AttributeValue* FindAttribute(std::string_view name) const;
  bool HasAttribute(std::string_view name) const { return FindAttribute(name) != nullptr; }

  // Typed getters. The one-argument form requires the attribute; the two-argument form returns
  // `default_value` when it is absent (use the schema's default). Both fail with
  // kInvalidModel when the attribute has another type, e.g.
  //   "node 'Conv_3' (Conv, opset 11): attribute 'group' is a float, expected an int"
  // and the required form fails with kInvalidModel when it is missing:
  //   "node 'Transpose_1' (Transpose, opset 13): required attribute 'perm' is missing".
  Result<int64_t> GetInt(std::string_view name) const;
  Result<int64_t> GetInt(std::string_view name, int64_t default_value) const;
  Result<float> GetFloat(std::string_view name) const;
  Result<float> GetFloat(std::string_view name, float default_value) const;
  Result<std::string> GetString(std::string_view name) const;
  Result<std::string> GetString(std::string_view name, std::string_view default_value) const;
  Result<std::vector<int64_t>> GetInts(std::string_view name) const;
  Result<std::vector<int64_t>> GetInts(std::string_view name,
                                       std::vector<int64_t> default_value) const;
  Result<std::vector<float>> GetFloats(std::string_view name) const;
  Result<std::vector<float>> GetFloats(std::string_view name,
                                       std::vector<float> default_value) const;
  Result<std::vector<std::string>> GetStrings(std::string_view name) const;
  Result<Tensor> GetTensor(std::string_view name) const;

  // True when some attribute holds a graph (If's branches, Loop's and Scan's bodies).
  bool has_subgraphs() const;
  // Names of the attributes holding graphs, in model order ("then_branch", "else_branch").
  std::vector<std::string> subgraph_attribute_names() const;

  // "node 'Conv_12' (Conv, opset 17)"; other domains as "(com.microsoft:FusedConv, opset 1)".
  std::string Description() const;
  // "#12:Conv:Conv_12", the short form used in placement listings.
  std::string ShortName() const;
  // A Status of `code` whose message is Description() + ": " + the pieces, e.g.
  // node.Error(StatusCode::kInvalidModel, "input 1 has rank ", r, ", expected 4").
  template <typename... Args>
  Status Error(StatusCode code, const Args&... args) const {
    return MakeStatus(code, Description(), ": ", args...);
  }

 private:
  // The attribute `name` when it exists with `type`; kInvalidModel when it has another type;
  // nullptr (ok) when absent.
  Result<const AttributeValue*> Typed(std::string_view name, AttributeType type) const;
  Status Missing(std::string_view name) const;

  Data data_;
};

}  // namespace nxrt
