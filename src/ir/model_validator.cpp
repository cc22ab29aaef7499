// ir/model_validator.cpp: the loader's checks before anything reads a graph (see
// ir/model_validator.h).
//
// Layer: nxrt_ir. Reads the proto only (nothing is converted or allocated besides name sets);
// the schema checks are libonnx's own (OpSchema::Verify and the type constraint tables).
#include "ir/model_validator.h"

#include <algorithm>
#include <exception>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/op_schema.h"
#include "ir/tensor_proto.h"
#include "onnx/defs/schema.h"

namespace nxrt::ir {
namespace {

std::string ProtoNodeLabel(const onnx::NodeProto& node, int index) {
  // Appended piece by piece: operator+ chains trip GCC 12's -Wrestrict false positive.
  std::string label = "node ";
  label += '\'';
  if (node.name().empty()) {
    // The name GraphBuilder gives an unnamed node ("<op_type>_<index>").
    label += node.op_type();
    label += '_';
    label += std::to_string(index);
  } else {
    label += node.name();
  }
  label += '\'';
  label += " (";
  label += node.op_type();
  label += ')';
  return label;
}

class ProtoValidator {
 public:
  explicit ProtoValidator(const onnx::ModelProto& model) {
    for (const onnx::OperatorSetIdProto& import : model.opset_import()) {
      opsets_.emplace(CanonicalDomain(import.domain()), import.version());
    }
    if (model.opset_import_size() == 0) opsets_.emplace("", 1);
    for (const onnx::FunctionProto& function : model.functions()) {
      local_functions_.insert(CanonicalDomain(function.domain()) + ":" + function.name());
    }
  }

  Status Graph(const onnx::GraphProto& graph, int depth) {
    DeclaredRanks(graph);
    if (depth > kMaxSubgraphDepth) {
      return MakeStatus(StatusCode::kInvalidModel, "subgraphs are nested more than ",
                        kMaxSubgraphDepth, " deep (graph '", graph.name(),
                        "' is at depth ", depth, "); nxrt refuses deeper nesting");
    }
    nodes_ += graph.node_size();
    if (nodes_ > kMaxModelNodes) {
      return MakeStatus(StatusCode::kInvalidModel, "the model has more than ", kMaxModelNodes,
                        " nodes (counting subgraphs); nxrt refuses larger graphs");
    }
    NXRT_RETURN_IF_ERROR(Tensors(graph));

    // The names this graph defines, in definition order for the sortedness check.
    std::unordered_set<std::string> defined;
    for (const onnx::ValueInfoProto& input : graph.input()) defined.insert(input.name());
    for (const onnx::TensorProto& init : graph.initializer()) defined.insert(init.name());
    for (const onnx::SparseTensorProto& init : graph.sparse_initializer()) {
      defined.insert(init.values().name());
    }
    std::unordered_set<std::string> produced;  // two producers of one name: GraphView's check
    for (const onnx::NodeProto& node : graph.node()) {
      for (const std::string& output : node.output()) {
        if (!output.empty()) produced.insert(output);
      }
    }
    scopes_.push_back({&defined, &produced});
    Status status = Nodes(graph, depth, defined);
    scopes_.pop_back();
    return status;
  }

  bool sorted() const { return sorted_; }

 private:
  // The ranks the model states (graph inputs, initializers, value_info, outputs), by name.
  void DeclaredRanks(const onnx::GraphProto& graph) {
    auto add = [&](const onnx::ValueInfoProto& info) {
      if (info.type().has_tensor_type() && info.type().tensor_type().has_shape()) {
        ranks_[info.name()] = info.type().tensor_type().shape().dim_size();
      }
    };
    for (const auto& v : graph.input()) add(v);
    for (const auto& v : graph.value_info()) add(v);
    for (const auto& v : graph.output()) add(v);
    for (const auto& t : graph.initializer()) ranks_[t.name()] = t.dims_size();
  }

  std::optional<int> RankOf(const onnx::NodeProto& node, int input) const {
    if (input >= node.input_size() || node.input(input).empty()) return std::nullopt;
    auto it = ranks_.find(node.input(input));
    if (it == ranks_.end()) return std::nullopt;
    return it->second;
  }

  // The value ranges the ONNX spec gives attributes in words ("strides ... must be > 0"), which
  // libonnx 1.12's inference functions (and kernels) divide or index by without checking, and
  // the ranks the convolution and pooling ops need of their inputs.
  Status Ranges(const onnx::NodeProto& node, const std::string& label,
                const onnx::OpSchema& schema) const {
    const bool windowed = schema.attributes().count("kernel_shape") != 0;
    for (const onnx::AttributeProto& attr : node.attribute()) {
      const std::string& name = attr.name();
      int64_t low = std::numeric_limits<int64_t>::min();
      int64_t high = std::numeric_limits<int64_t>::max();
      if (name == "strides" || name == "dilations" || name == "kernel_shape") {
        low = 1;
      } else if (name == "blocksize") {
        low = 1;
        high = std::numeric_limits<int32_t>::max();  // squared by the op
      } else if (windowed && (name == "pads" || name == "output_padding")) {
        low = 0;
      } else {
        continue;
      }
      std::vector<int64_t> values(attr.ints().begin(), attr.ints().end());
      if (attr.type() == onnx::AttributeProto::INT) values = {attr.i()};
      for (size_t i = 0; i < values.size(); ++i) {
        if (values[i] < low || values[i] > high) {
          return MakeStatus(StatusCode::kInvalidModel, label, ": attribute '", name, "' ",
                            values.size() > 1 ? "element " + std::to_string(i) + " " : "",
                            "is ", values[i], "; the ONNX spec needs ",
                            high == std::numeric_limits<int64_t>::max()
                                ? ">= " + std::to_string(low)
                                : "a value in [" + std::to_string(low) + ", " +
                                      std::to_string(high) + "]");
        }
      }
    }
    // An 'axis' counts in the rank of input 0 (of the output for OneHot, one more): every op's
    // range lies within [-r - 1, r], so a value outside it (LayerNormalization's INT64_MAX or
    // INT32_MIN) is refused here, before a kernel or libonnx's inference normalises it.
    if (const std::optional<int> rank = RankOf(node, 0)) {
      for (const onnx::AttributeProto& attr : node.attribute()) {
        if (attr.name() != "axis" || attr.type() != onnx::AttributeProto::INT) continue;
        if (attr.i() < -*rank - 1 || attr.i() > *rank) {
          return MakeStatus(StatusCode::kInvalidModel, label, ": attribute 'axis' is ", attr.i(),
                            " but input 0 '", node.input(0), "' has rank ", *rank,
                            "; give an axis in [", -*rank - 1, ", ", *rank,
                            "] (the op's own range may be narrower)");
        }
      }
    }
    if (windowed) {
      // Conv, ConvTranspose, ConvInteger, the pools: X is [N, C, D1, ...] (rank 2 or more, as
      // libonnx's inference accepts); a weight W (input 1, or 3 for QLinearConv) has X's rank.
      const std::optional<int> x_rank = RankOf(node, 0);
      if (x_rank && *x_rank < 2) {
        return MakeStatus(StatusCode::kInvalidModel, label, ": input 0 '", node.input(0),
                          "' has rank ", *x_rank, "; ", node.op_type(),
                          " needs [N, C, D1, ...], rank 2 or more");
      }
      const int w_index = node.op_type() == "QLinearConv" ? 3 : 1;
      const bool has_weight = node.op_type().find("Conv") != std::string::npos;
      const std::optional<int> w_rank = has_weight ? RankOf(node, w_index) : std::nullopt;
      if (w_rank && ((x_rank && *w_rank != *x_rank) || *w_rank < 2)) {
        return MakeStatus(StatusCode::kInvalidModel, label, ": weight (input ", w_index, " '",
                          node.input(w_index), "') has rank ", *w_rank,
                          x_rank ? "; it needs the rank of input 0, " + std::to_string(*x_rank)
                                 : std::string("; it needs rank 2 or more"));
      }
    }
    return Status::Ok();
  }

  struct Scope {
    const std::unordered_set<std::string>* defined;   // inputs, initializers (+ earlier outputs)
    const std::unordered_set<std::string>* produced;  // every node output of the graph
  };

  int64_t OpsetOf(const onnx::NodeProto& node) const {
    auto it = opsets_.find(CanonicalDomain(node.domain()));
    return it == opsets_.end() ? -1 : it->second;
  }

  // Whether `name` is defined in an enclosing graph (any scope but the innermost).
  bool DefinedOutside(const std::string& name) const {
    for (size_t i = 0; i + 1 < scopes_.size(); ++i) {
      if (scopes_[i].defined->count(name) || scopes_[i].produced->count(name)) return true;
    }
    return false;
  }

  static Status TensorIn(const onnx::TensorProto& tensor, const std::string& where) {
    Status status = CheckTensorProtoData(tensor);
    return status.ok() ? status : status.WithContext(where);
  }

  static Status SparseIn(const onnx::SparseTensorProto& sparse, const std::string& where) {
    NXRT_RETURN_IF_ERROR(TensorIn(sparse.values(), where + " (values)"));
    return TensorIn(sparse.indices(), where + " (indices)");
  }

  Status Tensors(const onnx::GraphProto& graph) {
    for (const onnx::TensorProto& init : graph.initializer()) {
      NXRT_RETURN_IF_ERROR(TensorIn(init, "initializer"));
    }
    for (const onnx::SparseTensorProto& init : graph.sparse_initializer()) {
      NXRT_RETURN_IF_ERROR(SparseIn(init, "sparse initializer"));
    }
    for (int n = 0; n < graph.node_size(); ++n) {
      const onnx::NodeProto& node = graph.node(n);
      for (const onnx::AttributeProto& attr : node.attribute()) {
        const std::string where =
            ProtoNodeLabel(node, n) + " attribute '" + attr.name() + "'";
        if (attr.has_t()) NXRT_RETURN_IF_ERROR(TensorIn(attr.t(), where));
        for (const onnx::TensorProto& t : attr.tensors()) NXRT_RETURN_IF_ERROR(TensorIn(t, where));
        if (attr.has_sparse_tensor()) NXRT_RETURN_IF_ERROR(SparseIn(attr.sparse_tensor(), where));
        for (const onnx::SparseTensorProto& t : attr.sparse_tensors()) {
          NXRT_RETURN_IF_ERROR(SparseIn(t, where));
        }
      }
    }
    return Status::Ok();
  }

  Status Nodes(const onnx::GraphProto& graph, int depth, std::unordered_set<std::string>& defined) {
    const std::unordered_set<std::string>& produced = *scopes_.back().produced;
    for (int n = 0; n < graph.node_size(); ++n) {
      const onnx::NodeProto& node = graph.node(n);
      const int64_t opset = OpsetOf(node);
      const std::string label = ProtoNodeLabel(node, n);
      if (node.op_type().empty()) {
        return MakeStatus(StatusCode::kInvalidModel, label, ": op_type is empty");
      }
      for (int i = 0; i < node.input_size(); ++i) {
        const std::string& input = node.input(i);
        if (input.empty() || defined.count(input)) continue;
        if (produced.count(input)) {
          sorted_ = false;  // produced by a later node of this graph
        } else if (!DefinedOutside(input)) {
          return MakeStatus(StatusCode::kInvalidModel, label, ": input ", i, " '", input,
                            "' is not produced by any node and is not a graph input, "
                            "initializer or value of an enclosing graph");
        }
      }
      NXRT_RETURN_IF_ERROR(Schema(node, label, opset));
      for (const onnx::AttributeProto& attr : node.attribute()) {
        std::vector<const onnx::GraphProto*> bodies;
        if (attr.has_g()) bodies.push_back(&attr.g());
        for (const onnx::GraphProto& g : attr.graphs()) bodies.push_back(&g);
        for (const onnx::GraphProto* body : bodies) {
          Status status = Graph(*body, depth + 1);
          if (!status.ok()) return status.WithContext(label + " attribute '" + attr.name() + "'");
        }
      }
      for (const std::string& output : node.output()) {
        if (!output.empty()) defined.insert(output);
      }
    }
    for (const onnx::ValueInfoProto& output : graph.output()) {
      if (output.name().empty()) {
        return Status(StatusCode::kInvalidModel, "a graph output has no name");
      }
      if (!defined.count(output.name()) && !DefinedOutside(output.name())) {
        return MakeStatus(StatusCode::kInvalidModel, "graph output '", output.name(),
                          "' is not produced by any node and is not a graph input, initializer "
                          "or value of an enclosing graph");
      }
    }
    return Status::Ok();
  }

  // libonnx's node check against the schema in force (see the header).
  Status Schema(const onnx::NodeProto& node, const std::string& label, int64_t opset) const {
    const std::string domain = CanonicalDomain(node.domain());
    if (opset < 0 || local_functions_.count(domain + ":" + node.op_type())) return Status::Ok();
    const onnx::OpSchema* schema = LibonnxSchemaAt(domain, node.op_type(), opset);
    if (schema == nullptr) return Arity(node, label, domain, opset);
    try {
      schema->Verify(node);
    } catch (const std::exception& e) {
      return MakeStatus(StatusCode::kInvalidModel, label, ": ", e.what(),
                        " (the operator's schema at opset ", opset, " in the ONNX spec)");
    }
    return Ranges(node, label, *schema);
  }

  // A node whose schema version libonnx lacks (opsets after ONNX 1.12; libonnx's Verify checks
  // the others): its input and output counts against nxrt's table, worded as Verify words them,
  // and its required inputs named.
  // An op used before its first version is refused, as ONNX Runtime's "No Op registered".
  static Status Arity(const onnx::NodeProto& node, const std::string& label,
                      const std::string& domain, int64_t opset) {
    const std::optional<OpArity> arity = ArityAt(domain, node.op_type(), opset);
    if (!arity) {
      const std::vector<OpSchemaVersion> versions = OpSchemaVersions(domain, node.op_type());
      if (versions.empty() || versions.front().since_version <= opset) return Status::Ok();
      return MakeStatus(StatusCode::kInvalidModel, label, ": ", node.op_type(),
                        " has no version at opset ", opset, " of ",
                        domain.empty() ? "ai.onnx" : domain, "; its first is version ",
                        versions.front().since_version, ": import that opset or a later one");
    }
    auto check = [&](const char* side, int count, int min, int max) {
      if (count >= min && count <= max) return Status::Ok();
      return MakeStatus(StatusCode::kInvalidModel, label, ": ", side, " size ", count,
                        " not in range [min=", min, ", max=", max,
                        "] (the operator's schema at opset ", opset, " in the ONNX spec)");
    };
    NXRT_RETURN_IF_ERROR(check("input", node.input_size(), arity->min_inputs, arity->max_inputs));
    NXRT_RETURN_IF_ERROR(check("output", node.output_size(), arity->min_outputs, arity->max_outputs));
    // The required inputs come first in every ONNX operator; as libonnx's Verify words it.
    for (int i = 0; i < arity->min_inputs && i < node.input_size(); ++i) {
      if (node.input(i).empty()) {
        return MakeStatus(StatusCode::kInvalidModel, label, ": input ", i,
                          " is required but has an empty name (the operator's schema at opset ",
                          opset, " in the ONNX spec); name the value it takes");
      }
    }
    return Status::Ok();
  }

  std::unordered_map<std::string, int64_t> opsets_;
  std::unordered_map<std::string, int> ranks_;  // declared ranks, all graphs seen so far
  std::unordered_set<std::string> local_functions_;
  std::vector<Scope> scopes_;
  int64_t nodes_ = 0;
  bool sorted_ = true;
};

// ONNX's type string of `type` ("tensor(float)", "seq(tensor(int64))", "map(int64, float)"), or
// "" when unknown.
std::string TypeString(const TypeInfo& type) {
  switch (type.kind) {
    case TypeInfo::Kind::kTensor:
    case TypeInfo::Kind::kSparseTensor:
      if (type.elem_type == DataType::kUndefined) return "";
      return std::string(type.kind == TypeInfo::Kind::kTensor ? "tensor(" : "sparse_tensor(") +
             std::string(DataTypeName(type.elem_type)) + ")";
    case TypeInfo::Kind::kSequence:
    case TypeInfo::Kind::kOptional: {
      if (!type.element) return "";
      const std::string inner = TypeString(*type.element);
      if (inner.empty()) return "";
      return (type.kind == TypeInfo::Kind::kSequence ? "seq(" : "optional(") + inner + ")";
    }
    case TypeInfo::Kind::kMap: {
      // As ONNX-ML's schemas spell map types: "map(string, float)", a tensor value by its
      // element type.
      if (!type.element || type.map_key == DataType::kUndefined) return "";
      const bool tensor = type.element->kind == TypeInfo::Kind::kTensor;
      if (tensor && type.element->elem_type == DataType::kUndefined) return "";
      const std::string inner = tensor ? std::string(DataTypeName(type.element->elem_type))
                                       : TypeString(*type.element);
      if (inner.empty()) return "";
      return "map(" + std::string(DataTypeName(type.map_key)) + ", " + inner + ")";
    }
    case TypeInfo::Kind::kUnknown: break;
  }
  return "";
}

// The formal parameter value `i` of a node binds to: formal i, or the last when it is variadic;
// nullptr past the end of a schema without a variadic last formal.
const onnx::OpSchema::FormalParameter* FormalAt(
    const std::vector<onnx::OpSchema::FormalParameter>& formals, size_t i) {
  if (i < formals.size()) return &formals[i];
  const onnx::OpSchema::FormalParameter& last = formals.back();
  return last.GetOption() == onnx::OpSchema::Variadic ? &last : nullptr;
}

// The types `schema` allows for type parameter `param` ("T"), or nullptr when `param` is a
// fixed type written in the formal ("tensor(int64)").
const std::vector<std::string>* AllowedTypes(const onnx::OpSchema& schema,
                                             const std::string& param) {
  for (const onnx::OpSchema::TypeConstraintParam& c : schema.typeConstraintParams()) {
    if (c.type_param_str == param) return &c.allowed_type_strs;
  }
  return nullptr;
}

// Checks the values bound to `formals` (a schema's inputs or outputs) against its type
// constraints; `bound` collects the type each parameter got.
Status CheckFormals(const onnx::OpSchema& schema, const Graph& graph,
                    const std::vector<ValueId>& values,
                    const std::vector<onnx::OpSchema::FormalParameter>& formals, const char* side,
                    std::unordered_map<std::string, std::pair<std::string, std::string>>& bound) {
  if (formals.empty()) return Status::Ok();
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] == kNoValue) continue;
    const onnx::OpSchema::FormalParameter* formal_at = FormalAt(formals, i);
    if (formal_at == nullptr) break;  // Verify's matter
    const onnx::OpSchema::FormalParameter& formal = *formal_at;
    const Value& value = graph.values[static_cast<size_t>(values[i])];
    const std::string type = TypeString(value.type);
    if (type.empty()) continue;
    const std::string& param = formal.GetTypeStr();
    const std::vector<std::string>* allowed_types = AllowedTypes(schema, param);
    const bool allowed =
        allowed_types == nullptr
            ? param == type  // a fixed type written in the formal, e.g. "tensor(int64)"
            : std::find(allowed_types->begin(), allowed_types->end(), type) !=
                  allowed_types->end();
    const std::string what = std::string(side) + " " + std::to_string(i) + " '" + value.name + "'";
    if (!allowed) {
      std::vector<std::string> names =
          allowed_types == nullptr ? std::vector<std::string>{param} : *allowed_types;
      std::sort(names.begin(), names.end());
      std::string list;
      for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
      return MakeStatus(StatusCode::kInvalidModel, what, " has type ", type, ", which ", param,
                        " does not allow; allowed: ", list);
    }
    const bool variadic_mixed = formal.GetOption() == onnx::OpSchema::Variadic &&
                                !formal.GetIsHomogeneous();
    if (allowed_types == nullptr || variadic_mixed) continue;
    auto [it, fresh] = bound.emplace(param, std::make_pair(type, what));
    if (!fresh && it->second.first != type) {
      return MakeStatus(StatusCode::kInvalidModel, what, " has type ", type, " but ",
                        it->second.second, " has type ", it->second.first,
                        "; both are of type parameter ", param, ", which must be one type");
    }
  }
  return Status::Ok();
}

// Each output's known type against the type the inputs bound its formal's parameter to
// (`bound`, from CheckFormals on the inputs), or its one possible type (a fixed formal such as
// "tensor(int64)", or a parameter allowing one type, as Shape's T1).
Status CheckOutputTypes(
    const onnx::OpSchema& schema, const Graph& graph, const std::vector<ValueId>& values,
    const std::unordered_map<std::string, std::pair<std::string, std::string>>& bound) {
  const std::vector<onnx::OpSchema::FormalParameter>& formals = schema.outputs();
  if (formals.empty()) return Status::Ok();
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] == kNoValue) continue;
    const onnx::OpSchema::FormalParameter* formal_at = FormalAt(formals, i);
    if (formal_at == nullptr) break;
    const onnx::OpSchema::FormalParameter& formal = *formal_at;
    if (formal.GetOption() == onnx::OpSchema::Variadic && !formal.GetIsHomogeneous()) continue;
    const Value& value = graph.values[static_cast<size_t>(values[i])];
    const std::string type = TypeString(value.type);
    if (type.empty()) continue;
    const std::string& param = formal.GetTypeStr();
    const std::vector<std::string>* allowed_types = AllowedTypes(schema, param);
    std::string want, why;
    if (auto it = bound.find(param); it != bound.end()) {
      want = it->second.first;
      why = it->second.second + " has type " + want + " and both are of type parameter " + param;
    } else if (allowed_types == nullptr || allowed_types->size() == 1) {
      want = allowed_types == nullptr ? param : allowed_types->front();
      why = "the operator's output " + std::to_string(i) + " is always " + want;
    }
    if (want.empty() || want == type) continue;
    return MakeStatus(StatusCode::kInvalidModel, "output ", i, " '", value.name,
                      "' is declared ", type, " but the node gives ", want, " (", why,
                      "); fix the output's type in the model's value_info or graph outputs");
  }
  return Status::Ok();
}

Status NodeTypesIn(const Model& model, const Graph& graph) {
  for (const Node& node : graph.nodes) {
    const int64_t opset = model.OpsetFor(node.domain).value_or(-1);
    const onnx::OpSchema* schema =
        opset < 0 ? nullptr : LibonnxSchemaAt(node.domain, node.op_type, opset);
    const std::string label =
        "node '" + node.name + "' (" + node.op_type + ", opset " + std::to_string(opset) + ")";
    if (schema != nullptr) {
      std::unordered_map<std::string, std::pair<std::string, std::string>> bound;
      // Inputs against the allowed lists. Outputs are not (an output's type is the op's to
      // decide: PyTorch's opset-6 exports hold int64 Constants, outside Constant-1's list, and
      // ONNX Runtime 1.30 runs them), but as ORT compares each declared output type with the one
      // its inference gives, an output of a fixed type, or of a parameter the inputs bound, must
      // have that type (Mul of floats declared float16 is refused).
      Status status = CheckFormals(*schema, graph, node.inputs, schema->inputs(), "input", bound);
      if (status.ok()) status = CheckOutputTypes(*schema, graph, node.outputs, bound);
      if (!status.ok()) return status.WithContext(label);
    }
    for (const Attribute& attr : node.attributes) {
      std::vector<const Graph*> bodies;
      if (attr.g) bodies.push_back(attr.g.get());
      for (const auto& g : attr.graphs) bodies.push_back(g.get());
      for (const Graph* body : bodies) {
        Status status = NodeTypesIn(model, *body);
        if (!status.ok()) return status.WithContext(label + " attribute '" + attr.name + "'");
      }
    }
  }
  return Status::Ok();
}

}  // namespace

Result<ProtoFacts> ValidateModelProto(const onnx::ModelProto& model) {
  ProtoValidator validator(model);
  NXRT_RETURN_IF_ERROR(validator.Graph(model.graph(), 0));
  ProtoFacts facts;
  facts.topologically_sorted = validator.sorted();
  return facts;
}

Status ValidateNodeTypes(const Model& model) { return NodeTypesIn(model, *model.graph); }

}  // namespace nxrt::ir
