// ort_ep/graph_reader.cpp: OrtGraph → ir::Model through the OrtApi graph functions.
#include "ort_ep/graph_reader.h"

#include <cstring>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "ort_ep/host_api.h"

namespace nxrt::ort_ep {
namespace {

// Returns from the enclosing function with the host's error of `expr`, naming `what`.
#define READ_CALL(expr, what) NXRT_RETURN_IF_ERROR(FromOrtStatus(ort_, (expr), what))

class Reader {
 public:
  Reader(const OrtApi& ort, InitializerData data) : ort_(ort), data_(data) {}

  Result<ReadGraph> Read(const OrtGraph* graph) {
    ReadGraph result;
    ir::Model& model = result.model;
    READ_CALL(ort_.Graph_GetOnnxIRVersion(graph, &model.ir_version), "Graph_GetOnnxIRVersion");
    size_t count = 0;
    READ_CALL(ort_.Graph_GetNumOperatorSets(graph, &count), "Graph_GetNumOperatorSets");
    std::vector<const char*> domains(count);
    std::vector<int64_t> versions(count);
    if (count > 0) {
      READ_CALL(ort_.Graph_GetOperatorSets(graph, domains.data(), versions.data(), count),
                "Graph_GetOperatorSets");
    }
    for (size_t i = 0; i < count; ++i) {
      model.opset_imports.push_back({ir::CanonicalDomain(domains[i]), versions[i]});
    }
    model.model_version = INT64_MAX;
    model.graph = std::make_shared<ir::Graph>();
    NXRT_RETURN_IF_ERROR(ReadInto(graph, *model.graph, &result.unreadable));
    ImportNodeDomains(*model.graph, model);
    return result;
  }

  // When ORT shows a graph again after fusing, it holds fused nodes whose domain is their EP's
  // name, which no operator set imports: import each such domain (version 1), so that the graph
  // stays valid for nxrt (the fused nodes themselves are never claimed: ORT assigned them).
  static void ImportNodeDomains(const ir::Graph& graph, ir::Model& model) {
    for (const ir::Node& node : graph.nodes) {
      if (!model.OpsetFor(node.domain)) model.opset_imports.push_back({node.domain, 1});
      for (const ir::Attribute& a : node.attributes) {
        if (a.g) ImportNodeDomains(*a.g, model);
      }
    }
  }

 private:
  // Reads `graph` into `out`. `unreadable` (top level only) receives per node why it cannot be
  // taken; in a body, such a node makes the body's whole node unreadable (`body_problem`).
  Status ReadInto(const OrtGraph* graph, ir::Graph& out, std::vector<std::string>* unreadable,
                  std::string* body_problem = nullptr) {
    const char* name = nullptr;
    READ_CALL(ort_.Graph_GetName(graph, &name), "Graph_GetName");
    out.name = name != nullptr ? name : "";

    size_t count = 0;
    READ_CALL(ort_.Graph_GetNumInputs(graph, &count), "Graph_GetNumInputs");
    std::vector<const OrtValueInfo*> inputs(count);
    if (count > 0) READ_CALL(ort_.Graph_GetInputs(graph, inputs.data(), count), "Graph_GetInputs");
    for (const OrtValueInfo* info : inputs) {
      NXRT_ASSIGN_OR_RETURN(ir::ValueId v, ValueOf(info, out));
      out.inputs.push_back(v);
    }

    READ_CALL(ort_.Graph_GetNumInitializers(graph, &count), "Graph_GetNumInitializers");
    std::vector<const OrtValueInfo*> initializers(count);
    if (count > 0) {
      READ_CALL(ort_.Graph_GetInitializers(graph, initializers.data(), count),
                "Graph_GetInitializers");
    }
    for (const OrtValueInfo* info : initializers) {
      NXRT_ASSIGN_OR_RETURN(ir::ValueId v, ValueOf(info, out));
      if (out.FindInitializer(v) != nullptr) continue;
      const OrtValue* value = nullptr;
      READ_CALL(ort_.ValueInfo_GetInitializerValue(info, &value), "ValueInfo_GetInitializerValue");
      NXRT_ASSIGN_OR_RETURN(Tensor tensor, TensorOf(value, out.values[v].name, data_));
      ir::Initializer init;
      init.value = v;
      init.tensor = std::move(tensor);
      out.AddInitializer(std::move(init));
    }

    READ_CALL(ort_.Graph_GetNumNodes(graph, &count), "Graph_GetNumNodes");
    std::vector<const OrtNode*> nodes(count);
    if (count > 0) READ_CALL(ort_.Graph_GetNodes(graph, nodes.data(), count), "Graph_GetNodes");
    if (unreadable != nullptr) unreadable->assign(count, {});
    std::unordered_set<ir::ValueId> produced;
    for (size_t n = 0; n < count; ++n) {
      std::string problem;
      NXRT_RETURN_IF_ERROR(ReadNode(nodes[n], static_cast<ir::NodeId>(n), out, &problem));
      for (ir::ValueId v : out.nodes.back().outputs) produced.insert(v);
      if (problem.empty()) continue;
      if (unreadable != nullptr) (*unreadable)[n] = problem;
      if (body_problem != nullptr && body_problem->empty()) *body_problem = problem;
    }

    READ_CALL(ort_.Graph_GetNumOutputs(graph, &count), "Graph_GetNumOutputs");
    std::vector<const OrtValueInfo*> outputs(count);
    if (count > 0) {
      READ_CALL(ort_.Graph_GetOutputs(graph, outputs.data(), count), "Graph_GetOutputs");
    }
    for (const OrtValueInfo* info : outputs) {
      NXRT_ASSIGN_OR_RETURN(ir::ValueId v, ValueOf(info, out));
      out.outputs.push_back(v);
    }

    // Values read but defined nowhere here: outer-scope values in a body; at the top, a constant
    // initializer of an enclosing graph (a fused group or a body ORT shows on its own reads it)
    // becomes an initializer, anything else a graph input.
    std::unordered_set<ir::ValueId> defined(out.inputs.begin(), out.inputs.end());
    for (const ir::Initializer& init : out.initializers) defined.insert(init.value);
    for (ir::ValueId v = 0; v < static_cast<ir::ValueId>(out.values.size()); ++v) {
      if (defined.count(v) != 0 || produced.count(v) != 0) continue;
      if (body_problem != nullptr) {
        out.values[v].outer_scope = true;
        continue;
      }
      bool constant = false;
      const auto info = infos_.find(out.values[v].name);
      if (info != infos_.end()) {
        READ_CALL(ort_.ValueInfo_IsConstantInitializer(info->second, &constant),
                  "ValueInfo_IsConstantInitializer");
      }
      if (!constant) {
        out.inputs.push_back(v);
        continue;
      }
      const OrtValue* value = nullptr;
      READ_CALL(ort_.ValueInfo_GetInitializerValue(info->second, &value),
                "ValueInfo_GetInitializerValue");
      NXRT_ASSIGN_OR_RETURN(Tensor tensor, TensorOf(value, out.values[v].name, data_));
      ir::Initializer init;
      init.value = v;
      init.tensor = std::move(tensor);
      out.AddInitializer(std::move(init));
    }
    return Status::Ok();
  }

  Status ReadNode(const OrtNode* node, ir::NodeId id, ir::Graph& out, std::string* problem) {
    const char* text = nullptr;
    ir::Node n;
    n.id = id;
    READ_CALL(ort_.Node_GetOperatorType(node, &text), "Node_GetOperatorType");
    n.op_type = text;
    READ_CALL(ort_.Node_GetDomain(node, &text), "Node_GetDomain");
    n.domain = ir::CanonicalDomain(text != nullptr ? text : "");
    READ_CALL(ort_.Node_GetName(node, &text), "Node_GetName");
    n.name = text != nullptr && text[0] != '\0' ? std::string(text)
                                                 : n.op_type + "_" + std::to_string(id);

    size_t count = 0;
    READ_CALL(ort_.Node_GetNumInputs(node, &count), "Node_GetNumInputs");
    std::vector<const OrtValueInfo*> values(count);
    if (count > 0) READ_CALL(ort_.Node_GetInputs(node, values.data(), count), "Node_GetInputs");
    for (const OrtValueInfo* info : values) {
      ir::ValueId v = ir::kNoValue;
      if (info != nullptr) {
        NXRT_ASSIGN_OR_RETURN(v, ValueOf(info, out));
      }
      n.inputs.push_back(v);
    }
    READ_CALL(ort_.Node_GetNumOutputs(node, &count), "Node_GetNumOutputs");
    values.assign(count, nullptr);
    if (count > 0) READ_CALL(ort_.Node_GetOutputs(node, values.data(), count), "Node_GetOutputs");
    for (const OrtValueInfo* info : values) {
      ir::ValueId v = ir::kNoValue;
      if (info != nullptr) {
        NXRT_ASSIGN_OR_RETURN(v, ValueOf(info, out));
      }
      n.outputs.push_back(v);
    }

    READ_CALL(ort_.Node_GetNumAttributes(node, &count), "Node_GetNumAttributes");
    std::vector<const OrtOpAttr*> attributes(count);
    if (count > 0) {
      READ_CALL(ort_.Node_GetAttributes(node, attributes.data(), count), "Node_GetAttributes");
    }
    for (const OrtOpAttr* attribute : attributes) {
      OrtOpAttrType type = ORT_OP_ATTR_UNDEFINED;
      READ_CALL(ort_.OpAttr_GetType(attribute, &type), "OpAttr_GetType");
      if (type == ORT_OP_ATTR_GRAPH) continue;  // read below with Node_GetSubgraphs
      NXRT_ASSIGN_OR_RETURN(ir::Attribute a, AttributeOf(attribute, type, problem, n));
      n.attributes.push_back(std::move(a));
    }

    READ_CALL(ort_.Node_GetNumSubgraphs(node, &count), "Node_GetNumSubgraphs");
    std::vector<const OrtGraph*> subgraphs(count);
    std::vector<const char*> names(count);
    if (count > 0) {
      READ_CALL(ort_.Node_GetSubgraphs(node, subgraphs.data(), count, names.data()),
                "Node_GetSubgraphs");
    }
    for (size_t s = 0; s < count; ++s) {
      auto body = std::make_shared<ir::Graph>();
      body->parent = &out;
      std::string body_problem;
      NXRT_RETURN_IF_ERROR(ReadInto(subgraphs[s], *body, nullptr, &body_problem));
      // A value the body takes from further out must be known here too, to be resolved (or to
      // become this graph's input or outer-scope value in turn).
      for (const ir::Value& value : body->values) {
        if (value.outer_scope && out.FindValue(value.name) == ir::kNoValue) {
          ir::Value outer;
          outer.name = value.name;
          outer.type = value.type;
          out.AddValue(std::move(outer));
        }
      }
      if (problem->empty() && !body_problem.empty()) {
        *problem = "its body '" + std::string(names[s]) + "' holds a node nxrt cannot take: " +
                   body_problem;
      }
      ir::Attribute a;
      a.name = names[s];
      a.type = ir::Attribute::Type::kGraph;
      a.g = std::move(body);
      n.attributes.push_back(std::move(a));
    }
    out.nodes.push_back(std::move(n));
    return Status::Ok();
  }

  Result<ir::Attribute> AttributeOf(const OrtOpAttr* attribute, OrtOpAttrType type,
                                    std::string* problem, const ir::Node& node) {
    using Type = ir::Attribute::Type;
    ir::Attribute a;
    const char* name = nullptr;
    READ_CALL(ort_.OpAttr_GetName(attribute, &name), "OpAttr_GetName");
    a.name = name;
    const std::string what = "ReadOpAttr('" + a.name + "')";
    size_t bytes = 0;
    switch (type) {
      case ORT_OP_ATTR_INT:
        a.type = Type::kInt;
        READ_CALL(ort_.ReadOpAttr(attribute, type, &a.i, sizeof(a.i), &bytes), what);
        break;
      case ORT_OP_ATTR_FLOAT:
        a.type = Type::kFloat;
        READ_CALL(ort_.ReadOpAttr(attribute, type, &a.f, sizeof(a.f), &bytes), what);
        break;
      case ORT_OP_ATTR_INTS:
      case ORT_OP_ATTR_FLOATS:
      case ORT_OP_ATTR_STRING:
      case ORT_OP_ATTR_STRINGS: {
        // First the size (the call fails when `len` is too small and sets `bytes`), then the data.
        if (OrtStatus* sizing = ort_.ReadOpAttr(attribute, type, nullptr, 0, &bytes)) {
          ort_.ReleaseStatus(sizing);
        }
        std::string raw(bytes, '\0');
        if (bytes > 0) READ_CALL(ort_.ReadOpAttr(attribute, type, raw.data(), bytes, &bytes), what);
        if (type == ORT_OP_ATTR_INTS) {
          a.type = Type::kInts;
          a.ints.resize(bytes / sizeof(int64_t));
          if (!a.ints.empty()) std::memcpy(a.ints.data(), raw.data(), a.ints.size() * sizeof(int64_t));
        } else if (type == ORT_OP_ATTR_FLOATS) {
          a.type = Type::kFloats;
          a.floats.resize(bytes / sizeof(float));
          if (!a.floats.empty()) std::memcpy(a.floats.data(), raw.data(), a.floats.size() * sizeof(float));
        } else if (type == ORT_OP_ATTR_STRING) {
          a.type = Type::kString;
          a.s = std::move(raw);
        } else {
          // ORT 1.30 writes each string followed by its '\0' terminator (as nxrt's host does).
          a.type = Type::kStrings;
          for (size_t begin = 0; begin < raw.size();) {
            const size_t end = raw.find('\0', begin);
            if (end == std::string::npos) {
              return MakeStatus(StatusCode::kRuntimeError, what, " of ", node.op_type,
                                " gave ", raw.size(), " bytes whose last string has no '\\0' "
                                "terminator; the host must end each string with one, as ORT "
                                "1.30 does");
            }
            a.strings.push_back(raw.substr(begin, end - begin));
            begin = end + 1;
          }
        }
        break;
      }
      case ORT_OP_ATTR_TENSOR: {
        a.type = Type::kTensor;
        OrtValue* value = nullptr;
        READ_CALL(ort_.OpAttr_GetTensorAttributeAsOrtValue(attribute, &value),
                  "OpAttr_GetTensorAttributeAsOrtValue");
        Result<Tensor> tensor = TensorOf(value, a.name, InitializerData::kCopy);
        ort_.ReleaseValue(value);
        NXRT_RETURN_IF_ERROR(tensor.status());
        a.t = std::move(*tensor);
        break;
      }
      default:
        if (problem->empty()) {
          *problem = "attribute '" + a.name + "' has OrtOpAttrType " + std::to_string(type) +
                     ", which nxrt does not read";
        }
        break;
    }
    return a;
  }

  // The value of `info` in `out`, added on first sight with its name and type.
  Result<ir::ValueId> ValueOf(const OrtValueInfo* info, ir::Graph& out) {
    const char* name = nullptr;
    READ_CALL(ort_.GetValueInfoName(info, &name), "GetValueInfoName");
    if (ir::ValueId v = out.FindValue(name); v != ir::kNoValue) return v;
    if (out.parent == nullptr) infos_.emplace(name, info);
    ir::Value value;
    value.name = name;
    const OrtTypeInfo* type = nullptr;
    READ_CALL(ort_.GetValueInfoTypeInfo(info, &type), "GetValueInfoTypeInfo");
    if (type != nullptr) {
      NXRT_ASSIGN_OR_RETURN(value.type, TypeOf(type));
    }
    return out.AddValue(std::move(value));
  }

  Result<ir::TypeInfo> TypeOf(const OrtTypeInfo* type) {
    ONNXType onnx_type = ONNX_TYPE_UNKNOWN;
    READ_CALL(ort_.GetOnnxTypeFromTypeInfo(type, &onnx_type), "GetOnnxTypeFromTypeInfo");
    ir::TypeInfo result;
    if (onnx_type == ONNX_TYPE_TENSOR) {
      const OrtTensorTypeAndShapeInfo* tensor = nullptr;
      READ_CALL(ort_.CastTypeInfoToTensorInfo(type, &tensor), "CastTypeInfoToTensorInfo");
      ONNXTensorElementDataType element = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
      READ_CALL(ort_.GetTensorElementType(tensor, &element), "GetTensorElementType");
      result.kind = ir::TypeInfo::Kind::kTensor;
      result.elem_type = DataTypeFromOnnx(element).value_or(DataType::kUndefined);
      if (ort_.TensorTypeAndShape_HasShape(tensor)) {
        size_t rank = 0;
        READ_CALL(ort_.GetDimensionsCount(tensor, &rank), "GetDimensionsCount");
        std::vector<int64_t> dims(rank);
        std::vector<const char*> symbols(rank, nullptr);
        if (rank > 0) {
          READ_CALL(ort_.GetDimensions(tensor, dims.data(), rank), "GetDimensions");
          READ_CALL(ort_.GetSymbolicDimensions(tensor, symbols.data(), rank),
                    "GetSymbolicDimensions");
        }
        std::vector<ir::Dim> shape;
        for (size_t d = 0; d < rank; ++d) {
          if (dims[d] >= 0) {
            shape.push_back(ir::Dim::Fixed(dims[d]));
          } else if (symbols[d] != nullptr && symbols[d][0] != '\0') {
            shape.push_back(ir::Dim::Symbolic(symbols[d]));
          } else {
            shape.push_back(ir::Dim::Unknown());
          }
        }
        result.shape = std::move(shape);
      }
    } else if (onnx_type == ONNX_TYPE_SEQUENCE || onnx_type == ONNX_TYPE_OPTIONAL) {
      OrtTypeInfo* element = nullptr;
      if (onnx_type == ONNX_TYPE_SEQUENCE) {
        const OrtSequenceTypeInfo* sequence = nullptr;
        READ_CALL(ort_.CastTypeInfoToSequenceTypeInfo(type, &sequence),
                  "CastTypeInfoToSequenceTypeInfo");
        READ_CALL(ort_.GetSequenceElementType(sequence, &element), "GetSequenceElementType");
        result.kind = ir::TypeInfo::Kind::kSequence;
      } else {
        const OrtOptionalTypeInfo* optional = nullptr;
        READ_CALL(ort_.CastTypeInfoToOptionalTypeInfo(type, &optional),
                  "CastTypeInfoToOptionalTypeInfo");
        READ_CALL(ort_.GetOptionalContainedTypeInfo(optional, &element),
                  "GetOptionalContainedTypeInfo");
        result.kind = ir::TypeInfo::Kind::kOptional;
      }
      Result<ir::TypeInfo> inner = TypeOf(element);
      ort_.ReleaseTypeInfo(element);
      NXRT_RETURN_IF_ERROR(inner.status());
      result.element = std::make_shared<const ir::TypeInfo>(std::move(*inner));
    }
    return result;
  }

  // The tensor of an OrtValue: its bytes borrowed or copied.
  Result<Tensor> TensorOf(const OrtValue* value, const std::string& name, InitializerData data) {
    OrtTensorTypeAndShapeInfo* info = nullptr;
    READ_CALL(ort_.GetTensorTypeAndShape(value, &info), "GetTensorTypeAndShape('" + name + "')");
    ONNXTensorElementDataType element = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
    size_t rank = 0;
    OrtStatus* status = ort_.GetTensorElementType(info, &element);
    if (status == nullptr) status = ort_.GetDimensionsCount(info, &rank);
    Shape shape(rank);
    if (status == nullptr && rank > 0) status = ort_.GetDimensions(info, shape.data(), rank);
    ort_.ReleaseTensorTypeAndShapeInfo(info);
    READ_CALL(status, "the type and shape of '" + name + "'");
    const std::optional<DataType> dtype = DataTypeFromOnnx(element);
    if (!dtype || *dtype == DataType::kString) {
      return MakeStatus(StatusCode::kNotImplemented, "constant '", name, "' has ONNX element type ",
                        static_cast<int>(element),
                        ", which libnxrt_ort_ep.so does not take over from the host (numeric and "
                        "bool types only)");
    }
    const void* bytes = nullptr;
    READ_CALL(ort_.GetTensorData(value, &bytes), "GetTensorData('" + name + "')");
    if (data == InitializerData::kBorrow) {
      return Tensor::Borrow(*dtype, std::move(shape), const_cast<void*>(bytes));
    }
    NXRT_ASSIGN_OR_RETURN(Tensor copy, Tensor::Allocate(*dtype, std::move(shape)));
    if (copy.byte_size() > 0) std::memcpy(copy.mutable_raw_data(), bytes, copy.byte_size());
    return copy;
  }

  const OrtApi& ort_;
  const InitializerData data_;
  std::unordered_map<std::string, const OrtValueInfo*> infos_;  // the top graph's values by name
};

#undef READ_CALL

}  // namespace

Result<ReadGraph> ReadOrtGraph(const OrtApi& ort, const OrtGraph* graph, InitializerData data) {
  return Reader(ort, data).Read(graph);
}

}  // namespace nxrt::ort_ep
