// ep/ort_plugin/editor_nodes.cpp: see editor_nodes.h.
#include "ep/ort_plugin/editor_nodes.h"

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ep/ort_plugin/api_internal.h"
#include "ep/ort_plugin/api_table.h"
#include "ep/ort_plugin/graph_projection.h"

namespace nxrt::ort_plugin {
namespace {

using AttrType = ir::Attribute::Type;

// A node made by CreateNode: an OrtNode (so the Node_Get* readers of its name, op type, domain
// and attributes work) plus its values by name.
struct EditorNode {
  OrtNode node;
  std::vector<std::string> input_names;
  std::vector<std::string> output_names;
};

// The nodes CreateNode made that nobody released or took yet, by address.
struct EditorNodes {
  std::mutex mutex;
  std::unordered_map<const OrtNode*, std::unique_ptr<EditorNode>> nodes;
};
EditorNodes& Owned() {
  static EditorNodes* const nodes = new EditorNodes();  // plugins may hold nodes until exit
  return *nodes;
}

std::unique_ptr<EditorNode> Take(const OrtNode* node) {
  EditorNodes& owned = Owned();
  std::lock_guard<std::mutex> lock(owned.mutex);
  auto it = owned.nodes.find(node);
  if (it == owned.nodes.end()) return nullptr;
  std::unique_ptr<EditorNode> taken = std::move(it->second);
  owned.nodes.erase(it);
  return taken;
}

// OrtApi::CreateOpAttr, as ORT 1.30: `data` is one int64 / float (INT, FLOAT), `len` of them
// (INTS, FLOATS), `len` bytes of a string (STRING) or `len` NUL-terminated strings (STRINGS).
OrtStatus* ORT_API_CALL CreateOpAttrImpl(const char* name, const void* data, int len,
                                         OrtOpAttrType type, OrtOpAttr** op_attr) noexcept {
  constexpr const char* kFn = "OrtApi::CreateOpAttr";
  if (OrtStatus* s = CheckArgs(kFn, {{"name", name}, {"data", data}, {"op_attr", op_attr}})) {
    return s;
  }
  // ONNX Runtime 1.30: ORT_FAIL "Attribute type not supported yet.".
  if (OrtStatus* s = CheckEnumArg(kFn, "type", type, ORT_FAIL)) return s;
  if (len < 0) return InvalidArgument(kFn, "len is " + std::to_string(len) + "; pass a count >= 0");
  return Guarded(kFn, [&]() -> OrtStatus* {
    auto made = std::make_unique<OrtOpAttr>();
    ir::Attribute& attr = made->attr;
    attr.name = name;
    const auto* ints = static_cast<const int64_t*>(data);
    const auto* floats = static_cast<const float*>(data);
    switch (type) {
      case ORT_OP_ATTR_INT:
        attr.type = AttrType::kInt, attr.i = ints[0];
        break;
      case ORT_OP_ATTR_INTS:
        attr.type = AttrType::kInts, attr.ints.assign(ints, ints + len);
        break;
      case ORT_OP_ATTR_FLOAT:
        attr.type = AttrType::kFloat, attr.f = floats[0];
        break;
      case ORT_OP_ATTR_FLOATS:
        attr.type = AttrType::kFloats, attr.floats.assign(floats, floats + len);
        break;
      case ORT_OP_ATTR_STRING:
        attr.type = AttrType::kString, attr.s.assign(static_cast<const char*>(data), len);
        break;
      case ORT_OP_ATTR_STRINGS: {
        attr.type = AttrType::kStrings;
        const auto* strings = static_cast<const char* const*>(data);
        for (int i = 0; i < len; ++i) {
          if (strings[i] == nullptr) {
            return InvalidArgument(kFn, "attribute '" + attr.name + "': string " +
                                            std::to_string(i) + " is null");
          }
          attr.strings.emplace_back(strings[i]);
        }
        break;
      }
      default:
        return MakeOrtStatus(ORT_FAIL, std::string(kFn) + ": attribute '" + attr.name +
                                           "': OrtOpAttrType " + std::to_string(type) +
                                           " is not supported (as in ONNX Runtime 1.30); use "
                                           "INT, INTS, FLOAT, FLOATS, STRING or STRINGS");
    }
    *op_attr = made.release();
    return nullptr;
  });
}

void ORT_API_CALL ReleaseOpAttrImpl(OrtOpAttr* op_attr) { delete op_attr; }

// OrtApi::ReleaseNode: frees a node CreateNode made and nobody took; other nodes are the host's.
void ORT_API_CALL ReleaseEditorNodeImpl(OrtNode* node) { Take(node); }

// OrtModelEditorApi::CreateNode.
OrtStatus* ORT_API_CALL CreateNodeImpl(const char* operator_name, const char* domain_name,
                                       const char* node_name, const char* const* input_names,
                                       size_t input_names_len, const char* const* output_names,
                                       size_t output_names_len, OrtOpAttr** attributes,
                                       size_t attribs_len, OrtNode** node) noexcept {
  constexpr const char* kFn = "OrtModelEditorApi::CreateNode";
  if (OrtStatus* s = CheckArgs(kFn, {{"operator_name", operator_name},
                                     {"domain_name", domain_name},
                                     {"node_name", node_name},
                                     {"node", node}})) {
    return s;
  }
  if ((input_names_len > 0 && input_names == nullptr) ||
      (output_names_len > 0 && output_names == nullptr) ||
      (attribs_len > 0 && attributes == nullptr)) {
    return InvalidArgument(kFn, "an array argument is null while its length is not 0");
  }
  return Guarded(kFn, [&]() -> OrtStatus* {
    auto made = std::make_unique<EditorNode>();
    made->node.name = node_name;
    made->node.op_type = operator_name;
    made->node.domain = domain_name;
    for (size_t i = 0; i < input_names_len; ++i) {
      made->input_names.emplace_back(input_names[i] != nullptr ? input_names[i] : "");
    }
    for (size_t i = 0; i < output_names_len; ++i) {
      made->output_names.emplace_back(output_names[i] != nullptr ? output_names[i] : "");
    }
    for (size_t i = 0; i < attribs_len; ++i) {
      if (attributes[i] == nullptr) {
        return InvalidArgument(kFn, "attribute " + std::to_string(i) + " is null");
      }
      made->node.attributes.push_back(*attributes[i]);
    }
    OrtNode* raw = &made->node;
    EditorNodes& owned = Owned();
    std::lock_guard<std::mutex> lock(owned.mutex);
    owned.nodes.emplace(raw, std::move(made));
    *node = raw;
    return nullptr;
  });
}

}  // namespace

Result<ep::EpContextCompiler::ContextNode> TakeEditorNode(OrtNode* node) {
  std::unique_ptr<EditorNode> taken = Take(node);
  if (taken == nullptr) {
    return MakeStatus(StatusCode::kFailedPrecondition,
                      "the EPContext node was not made by OrtModelEditorApi::CreateNode; fix the "
                      "plugin's Compile to create it with CreateNode (and not release it)");
  }
  ep::EpContextCompiler::ContextNode out;
  out.name = std::move(taken->node.name);
  out.op_type = std::move(taken->node.op_type);
  out.domain = std::move(taken->node.domain);
  out.inputs = std::move(taken->input_names);
  out.outputs = std::move(taken->output_names);
  for (OrtOpAttr& attr : taken->node.attributes) out.attributes.push_back(std::move(attr.attr));
  return out;
}

void InstallEditorNodeApi(OrtApi& api, OrtModelEditorApi& editor_api) {
  api.CreateOpAttr = &CreateOpAttrImpl;
  api.ReleaseOpAttr = &ReleaseOpAttrImpl;
  api.ReleaseNode = &ReleaseEditorNodeImpl;
  editor_api.CreateNode = &CreateNodeImpl;
}

}  // namespace nxrt::ort_plugin
