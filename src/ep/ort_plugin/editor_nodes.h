// ep/ort_plugin/editor_nodes.h: the nodes a plugin makes with OrtModelEditorApi::CreateNode (its
// EPContext nodes, returned from OrtEp::Compile) and the attributes it makes for them with
// OrtApi::CreateOpAttr.
//
// Layer: nxrt_ort_plugin (internal). Source: onnxruntime_c_api.h (OrtApi::CreateOpAttr,
// ReleaseOpAttr, ReleaseNode; OrtModelEditorApi::CreateNode), onnxruntime_ep_c_api.h
// (OrtEp::Compile: "ONNX Runtime takes ownership of the OrtNode instances"). As in ORT 1.30:
// CreateOpAttr takes INT, INTS, FLOAT, FLOATS, STRING (`len` bytes) and STRINGS; CreateNode copies its attributes; ReleaseNode frees a node CreateNode made (the nodes
// of a projected graph belong to the host and are left alone).
#pragma once

#include "ep/ep_context.h"
#include "ep/ort_plugin/api_objects.h"
#include "nxrt/status.h"

namespace nxrt::ort_plugin {

// Takes ownership of `node`, which OrtEp::Compile returned as an EPContext node: its contents,
// and the node freed. Errors (kFailedPrecondition): `node` was not made by
// OrtModelEditorApi::CreateNode (ORT refuses such nodes too).
Result<ep::EpContextCompiler::ContextNode> TakeEditorNode(OrtNode* node);

// Installs CreateOpAttr, ReleaseOpAttr and ReleaseNode (replacing api_graph.cpp's, which knew no
// node a plugin could own) and OrtModelEditorApi::CreateNode.
void InstallEditorNodeApi(OrtApi& api, OrtModelEditorApi& editor_api);

}  // namespace nxrt::ort_plugin
