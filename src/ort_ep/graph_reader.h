// ort_ep/graph_reader.h: an OrtGraph (the graph ORT passes to GetCapability and Compile) read
// through the OrtApi graph functions into nxrt's IR (ir/graph.h).
//
// Layer: the plugin library. The result is a standalone ir::Model: the graph's operator sets
// and IR version, its values with ORT's inferred types and shapes (symbolic dims kept), its
// nodes in Graph_GetNodes order (so node id i is the i-th OrtNode), attributes, and the bodies of
// If/Loop/Scan nodes as subgraphs (Node_GetSubgraphs). A value the graph reads but neither
// declares as an input nor produces nor holds as an initializer (an outer-scope value of a body
// ORT offers on its own, an implicit input of a fused group) becomes a graph input of the result;
// inside bodies it stays an outer-scope value.
//
// Initializers are borrowed (Tensor::Borrow over the OrtValue's bytes, for GetCapability, where
// the graph outlives the use) or copied once (for Compile: ORT may free its constants after
// Compile when the fused group sets drop_constant_initializers).
//
// Sources: onnxruntime_c_api.h (Graph_*, Node_*, ValueInfo_*, OpAttr_*, ReadOpAttr).
#pragma once

#include <onnxruntime_c_api.h>

#include <string>
#include <vector>

#include "ir/graph.h"
#include "nxrt/status.h"

namespace nxrt::ort_ep {

enum class InitializerData { kBorrow, kCopy };

struct ReadGraph {
  ir::Model model;
  // Node id → why nxrt cannot take the node as ORT shows it ("" when it can): an attribute of an
  // OrtOpAttrType nxrt does not read, also inside the node's bodies. (STRINGS are read: ORT 1.30
  // writes each string followed by its '\0' terminator.)
  std::vector<std::string> unreadable;
};

// Reads `graph`. Errors: the host's errors from the graph functions (kRuntimeError, naming the
// call), a STRINGS attribute whose last string lacks its terminator (kRuntimeError), an element
// type nxrt does not know on an initializer (kNotImplemented, naming it).
Result<ReadGraph> ReadOrtGraph(const OrtApi& ort, const OrtGraph* graph, InitializerData data);

}  // namespace nxrt::ort_ep
