// ir/graph_builder.h: ONNX GraphProto (with its nodes, attributes and subgraphs) → ir::Graph.
//
// Layer: nxrt_ir, internal to the ONNX loader (ir/onnx_loader.cpp), which handles the ModelProto
// around the graph and validates the result with GraphView.
//
// What the builder guarantees for each graph it returns:
//   - every value has a unique, non-empty name; graph inputs, initializers (dense and densified
//     sparse), node outputs, and outer-scope values each map to one Value;
//   - every node input and graph output resolves to a value of this graph; a name defined only in
//     an enclosing graph becomes a Value with `outer_scope = true` here, and also in every graph
//     between (so each subgraph lists all it reads from outside, directly or through its own
//     subgraphs);
//   - types come from the graph inputs, initializers, graph outputs and value_info, in that
//     priority;
//   - unnamed nodes are named "<op_type>_<id>" (with "_<k>" appended when that name is taken);
//   - attributes of every kind are converted, GRAPH/GRAPHS recursively with `parent` set.
#pragma once

#include <memory>
#include <vector>

#include "ir/external_data.h"
#include "ir/graph.h"
#include "ir/tensor_proto.h"
#include "nxrt/status.h"
#include "onnx/onnx_pb.h"

namespace nxrt::ir {

// The IR type of an ONNX TypeProto. Errors: kUnsupported for an element type nxrt does not know
// (ONNX numbers above 16, e.g. float8).
Result<TypeInfo> TypeFromProto(const onnx::TypeProto& proto);

class GraphBuilder {
 public:
  // `external` resolves external tensor data of initializers and tensor attributes; it must
  // outlive the builder.
  explicit GraphBuilder(ExternalDataResolver* external);

  // Converts the model's main graph. Consumes `proto`'s tensor data: each tensor takes over its
  // raw_data buffer without a copy (TakeTensorFromProto), so the weights are held once.
  // Errors (kInvalidModel unless noted; messages name the node, attribute, value or tensor; a
  // problem inside a subgraph is prefixed with its node and attribute): empty or duplicate graph
  // input names, unnamed or duplicate initializers, a node without op_type, a node input or graph
  // output defined nowhere, an attribute without a name, listed twice, of an unknown type, or
  // with no value; tensor data that cannot be read (from ir/tensor_proto.h and
  // ir/external_data.h); kUnsupported element types.
  Result<std::shared_ptr<Graph>> Build(onnx::GraphProto& proto);

  // Marks the value_info entries of each graph proto from index `count` on as inferred (added by
  // shape inference, not written in the model): they give values their types but are not
  // recorded in Graph::value_infos. Graphs not in the map have no inferred entries.
  void SetDeclaredValueInfoCounts(std::unordered_map<const onnx::GraphProto*, int> counts) {
    declared_value_info_counts_ = std::move(counts);
  }

 private:
  Result<std::shared_ptr<Graph>> BuildGraph(onnx::GraphProto& proto, const Graph* parent);
  Status AddInputsAndInitializers(onnx::GraphProto& proto, Graph& graph);
  Status AddNodes(const onnx::GraphProto& proto, Graph& graph);
  Status AddOutputsAndTypes(const onnx::GraphProto& proto, Graph& graph);
  Status ConnectNodes(onnx::GraphProto& proto, Graph& graph);
  Result<Attribute> ConvertAttribute(onnx::AttributeProto& proto, const Graph& owner);
  // TakeTensorFromProto with the builder's external data resolver.
  Result<Tensor> ConsumeTensor(onnx::TensorProto& proto);

  // The value named `name` as seen from scope `level` of scopes_ (0 = main graph), adding
  // outer-scope values on the way down; kNoValue when no scope defines it.
  ValueId Resolve(size_t level, const std::string& name);

  ExternalDataFn load_external_;  // calls the resolver given to the constructor
  std::unordered_map<const onnx::GraphProto*, int> declared_value_info_counts_;
  std::vector<Graph*> scopes_;  // graphs being built, outermost first
};

}  // namespace nxrt::ir
