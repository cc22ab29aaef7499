// runtime/ep_context_model.cpp: see ep_context_model.h; also nxrt::CompileModel (nxrt/compile.h).
#include "runtime/ep_context_model.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include "ep/ep_context.h"
#include "ir/onnx_loader.h"
#include "ir/onnx_writer.h"

namespace nxrt::runtime {
namespace {

// Every value name the nodes of `graph` and of its bodies read (bodies read outer values by name).
void CollectReads(const ir::Graph& graph, std::set<std::string>& names) {
  for (const ir::Node& node : graph.nodes) {
    for (ir::ValueId v : node.inputs) {
      if (v != ir::kNoValue) names.insert(graph.values[v].name);
    }
    for (const ir::Attribute& attr : node.attributes) {
      if (attr.g) CollectReads(*attr.g, names);
      for (const auto& sub : attr.graphs) CollectReads(*sub, names);
    }
  }
  for (ir::ValueId v : graph.outputs) names.insert(graph.values[v].name);
}

// The value `name` of `graph`, or an error naming the EPContext node and the value.
Result<ir::ValueId> ValueOf(const ir::Graph& graph, const std::string& name,
                            const ep::EpContextCompiler::ContextNode& node, const std::string& ep) {
  const ir::ValueId id = graph.FindValue(name);
  if (id == ir::kNoValue) {
    return MakeStatus(StatusCode::kFailedPrecondition, "ep '", ep, "': EPContext node '",
                      node.name, "' names value '", name,
                      "', which the graph does not have; fix the plugin's Compile to give the "
                      "fused node's input and output names to CreateNode");
  }
  return id;
}

// The nodes of `nodes` (of `graph`) in a topological order of the values they read, their
// bodies' reads of outer values included, keeping the given order where it allows (the first
// ready node by position each time).
std::vector<ir::Node> TopologicalOrder(const ir::Graph& graph, std::vector<ir::Node> nodes) {
  std::map<ir::ValueId, size_t> producer;
  for (size_t n = 0; n < nodes.size(); ++n) {
    for (ir::ValueId v : nodes[n].outputs) {
      if (v != ir::kNoValue) producer[v] = n;
    }
  }
  std::vector<std::vector<size_t>> readers(nodes.size());
  std::vector<size_t> waiting(nodes.size(), 0);
  for (size_t n = 0; n < nodes.size(); ++n) {
    std::set<ir::ValueId> reads(nodes[n].inputs.begin(), nodes[n].inputs.end());
    for (const ir::Attribute& attr : nodes[n].attributes) {
      std::set<std::string> names;
      if (attr.g) CollectReads(*attr.g, names);
      for (const auto& sub : attr.graphs) CollectReads(*sub, names);
      for (const std::string& name : names) reads.insert(graph.FindValue(name));
    }
    std::set<size_t> from;
    for (ir::ValueId v : reads) {
      auto it = producer.find(v);
      if (v != ir::kNoValue && it != producer.end() && it->second != n) from.insert(it->second);
    }
    for (size_t p : from) readers[p].push_back(n);
    waiting[n] = from.size();
  }
  std::set<size_t> ready;
  for (size_t n = 0; n < nodes.size(); ++n) {
    if (waiting[n] == 0) ready.insert(n);
  }
  std::vector<ir::Node> out;
  while (!ready.empty()) {
    const size_t n = *ready.begin();
    ready.erase(ready.begin());
    out.push_back(nodes[n]);
    for (size_t r : readers[n]) {
      if (--waiting[r] == 0) ready.insert(r);
    }
  }
  return out;
}

}  // namespace

Result<ir::Model> BuildEpContextModel(
    const ir::Model& model, const PlacedModel& placed, ep::EpRegistry& eps,
    int64_t* ep_context_nodes, std::vector<std::pair<std::string, std::string>>* compatibility) {
  *ep_context_nodes = 0;
  compatibility->clear();
  ir::Model out = model;
  auto graph = std::make_shared<ir::Graph>(*model.graph);
  out.graph = graph;
  const PlacedGraph* main = placed.Find(*model.graph);
  if (main == nullptr) {
    return MakeStatus(StatusCode::kInternal, "the main graph was not placed");
  }
  const auto& entries = eps.entries();
  // Node id → the EPContext node that takes the place of its claim (at the claim's first node).
  std::vector<int32_t> claim_of(graph->nodes.size(), -1);
  std::map<ir::NodeId, ir::Node> replacement;
  std::set<ir::ValueId> context_values;
  for (size_t c = 0; c < main->placement.claims.size(); ++c) {
    const ep::PlacedClaim& pc = main->placement.claims[c];
    if (!pc.fused || main->fused_names[c].empty()) continue;
    const auto& entry = entries[pc.ep];
    auto* compiler = entry.provider->GetExtension<ep::EpContextCompiler>();
    if (compiler == nullptr) continue;
    const std::string& fused = main->fused_names[c];
    const ep::EpContextCompiler::ContextNode* context = compiler->ContextNodeFor(fused);
    if (context == nullptr) {
      return MakeStatus(StatusCode::kFailedPrecondition, "ep '", entry.name,
                        "' compiled fused node '", fused,
                        "' but gave no EPContext node for it; fix the plugin's Compile to return "
                        "one (OrtModelEditorApi::CreateNode) when ep.context_enable is 1");
    }
    ir::Node node;
    node.name = context->name;
    node.op_type = context->op_type;
    node.domain = ir::CanonicalDomain(context->domain);
    node.attributes = context->attributes;
    // As ORT 1.30 writes an EPContext node: the schema's integer defaults it omits are added.
    for (const auto& [name, value] : {std::pair<const char*, int64_t>{"main_context", 1},
                                      {"embed_mode", 1}, {"max_size", 0}}) {
      if (node.FindAttribute(name) != nullptr) continue;
      ir::Attribute attr;
      attr.name = name;
      attr.type = ir::Attribute::Type::kInt;
      attr.i = value;
      node.attributes.push_back(std::move(attr));
    }
    node.doc_string = "EPContext node for " + entry.provider->type_name();
    for (const std::string& name : context->inputs) {
      ir::ValueId id = ir::kNoValue;
      if (!name.empty()) {
        NXRT_ASSIGN_OR_RETURN(id, ValueOf(*graph, name, *context, entry.name));
      }
      node.inputs.push_back(id);
      if (id != ir::kNoValue) context_values.insert(id);
    }
    for (const std::string& name : context->outputs) {
      ir::ValueId id = ir::kNoValue;
      if (!name.empty()) {
        NXRT_ASSIGN_OR_RETURN(id, ValueOf(*graph, name, *context, entry.name));
      }
      node.outputs.push_back(id);
      if (id != ir::kNoValue) context_values.insert(id);
    }
    const ir::NodeId first = *std::min_element(pc.claim.nodes.begin(), pc.claim.nodes.end());
    for (ir::NodeId n : pc.claim.nodes) claim_of[n] = static_cast<int32_t>(c);
    replacement.emplace(first, std::move(node));
    ++*ep_context_nodes;
  }
  std::vector<ir::Node> nodes;
  for (ir::NodeId n = 0; n < static_cast<ir::NodeId>(graph->nodes.size()); ++n) {
    if (claim_of[n] < 0) {
      nodes.push_back(graph->nodes[n]);
    } else if (auto it = replacement.find(n); it != replacement.end()) {
      nodes.push_back(std::move(it->second));
    }
  }
  nodes = TopologicalOrder(*graph, std::move(nodes));
  for (size_t n = 0; n < nodes.size(); ++n) nodes[n].id = static_cast<ir::NodeId>(n);
  graph->nodes = std::move(nodes);

  std::set<std::string> reads;
  CollectReads(*graph, reads);
  std::vector<ir::Initializer> kept;
  for (ir::Initializer& init : graph->initializers) {
    const std::string& name = graph->values[init.value].name;
    const bool is_input = std::find(graph->inputs.begin(), graph->inputs.end(), init.value) !=
                          graph->inputs.end();
    if (reads.count(name) > 0 || is_input) kept.push_back(std::move(init));
  }
  graph->initializers = std::move(kept);
  std::set<ir::ValueId> declared;
  std::vector<ir::ValueId> value_infos;
  auto declare = [&](ir::ValueId v) {
    const bool io = std::find(graph->inputs.begin(), graph->inputs.end(), v) != graph->inputs.end() ||
                    std::find(graph->outputs.begin(), graph->outputs.end(), v) !=
                        graph->outputs.end();
    if (io || !graph->values[v].type.known() || !declared.insert(v).second) return;
    value_infos.push_back(v);
  };
  for (ir::ValueId v : graph->value_infos) {
    if (reads.count(graph->values[v].name) > 0) declare(v);
  }
  for (ir::ValueId v : context_values) {
    if (graph->FindInitializer(v) == nullptr) declare(v);
  }
  graph->value_infos = std::move(value_infos);
  graph->Reindex();
  if (*ep_context_nodes > 0 && !out.OpsetFor(ep::kEpContextDomain)) {
    out.opset_imports.push_back({std::string(ep::kEpContextDomain), 1});
  }

  // The EPs are shown the model as it will load (bodies keep pointing at the source's graph
  // until it is read back).
  NXRT_ASSIGN_OR_RETURN(std::string bytes, ir::SerializeModel(out));
  ir::LoadOptions load;
  load.infer_types = true;
  NXRT_ASSIGN_OR_RETURN(
      ir::Model shown,
      ir::LoadModelFromBytes(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())), load));
  for (const auto& entry : entries) {
    auto* compiler = entry.provider->GetExtension<ep::EpContextCompiler>();
    if (compiler == nullptr) continue;
    Result<std::string> info = compiler->CompatibilityInfo(shown);
    if (!info.ok()) return info.status().WithContext("ep '" + entry.name + "'");
    if (info->empty()) continue;
    const std::string key = std::string(ep::kEpCompatibilityInfoPrefix) + entry.provider->type_name();
    auto it = std::find_if(out.metadata.begin(), out.metadata.end(),
                           [&](const auto& kv) { return kv.first == key; });
    if (it != out.metadata.end()) {
      it->second = *info;
    } else {
      out.metadata.emplace_back(key, *info);
    }
    compatibility->emplace_back(entry.provider->type_name(), *info);
  }
  return out;
}

Status CheckEpContextModel(const ir::Model& model, const std::string& source,
                           ep::EpRegistry& eps, std::vector<std::string>& warnings) {
  const auto& entries = eps.entries();
  std::string session_eps;
  for (const auto& entry : entries) {
    session_eps += (session_eps.empty() ? "'" : ", '") + entry.provider->type_name() + "'";
  }
  const std::string model_name = source.empty() ? std::string("the model") : "model '" + source + "'";
  std::function<Status(const ir::Graph&)> check_nodes = [&](const ir::Graph& graph) -> Status {
    for (const ir::Node& node : graph.nodes) {
      for (const ir::Attribute& attr : node.attributes) {
        if (attr.g) NXRT_RETURN_IF_ERROR(check_nodes(*attr.g));
        for (const auto& sub : attr.graphs) NXRT_RETURN_IF_ERROR(check_nodes(*sub));
      }
      if (!ep::IsEpContextNode(node)) continue;
      const ir::Attribute* from = node.FindAttribute("source");
      if (from == nullptr || from->type != ir::Attribute::Type::kString) {
        return MakeStatus(StatusCode::kInvalidModel, model_name, ": EPContext node '", node.name,
                          "' has no string attribute 'source' naming the EP that compiled it; "
                          "fix: compile the source model again (nxrt compile)");
      }
      const bool owned = std::any_of(entries.begin(), entries.end(), [&](const auto& entry) {
        return entry.provider->type_name() == from->s;
      });
      if (!owned) {
        return MakeStatus(StatusCode::kFailedPrecondition, model_name, ": EPContext node '",
                          node.name, "' holds a context compiled by EP '", from->s,
                          "' (its 'source' attribute), and no EP of this session is '", from->s,
                          "' (the session's EPs: ", session_eps,
                          "); fix: list the plugin library whose EP is '", from->s,
                          "' (--ep plugin:/path/lib.so), or run the source model instead");
      }
    }
    return Status::Ok();
  };
  NXRT_RETURN_IF_ERROR(check_nodes(*model.graph));

  for (const auto& entry : entries) {
    auto* compiler = entry.provider->GetExtension<ep::EpContextCompiler>();
    if (compiler == nullptr) continue;
    const std::string key =
        std::string(ep::kEpCompatibilityInfoPrefix) + entry.provider->type_name();
    for (const auto& [name, info] : model.metadata) {
      if (name != key) continue;
      Result<ep::CompiledModelCompatibility> verdict = compiler->ValidateCompatibility(info);
      if (!verdict.ok()) return verdict.status().WithContext(model_name);
      const std::string what = model_name + ": the context EP '" + entry.provider->type_name() +
                               "' compiled (metadata " + key + " = '" + info + "')";
      const std::string fix = "; fix: compile the source model again on this machine (nxrt "
                              "compile SOURCE.onnx --ep plugin:/path/lib.so -o OUT.onnx)";
      if (*verdict == ep::CompiledModelCompatibility::kUnsupported) {
        return MakeStatus(StatusCode::kFailedPrecondition, what,
                          " is stale: OrtEpFactory::ValidateCompiledModelCompatibilityInfo "
                          "answered EP_UNSUPPORTED",
                          fix);
      }
      if (*verdict == ep::CompiledModelCompatibility::kSupportedPreferRecompilation) {
        warnings.push_back(what + " runs, but the EP would rather recompile it "
                                  "(EP_SUPPORTED_PREFER_RECOMPILATION)" + fix);
      }
    }
  }
  return Status::Ok();
}

namespace {

Result<CompileResult> Compile(Result<ir::Model> loaded, std::string source,
                              const SessionOptions& options, const CompileOptions& compile) {
  NXRT_ASSIGN_OR_RETURN(ir::Model model, std::move(loaded));
  CompileResult result;
  std::string output = compile.output_path;
  if (output.empty() && !compile.to_bytes) {
    if (source.empty()) {
      return MakeStatus(StatusCode::kInvalidArgument,
                        "a model compiled from bytes needs CompileOptions::output_path (or "
                        "to_bytes)");
    }
    std::filesystem::path in(source);
    output = (in.parent_path() / (in.stem().string() + "_ctx.onnx")).string();
  }
  std::vector<std::pair<std::string, std::string>> config = compile.config_entries;
  config.emplace_back(ep::kEpContextEnable, "1");
  if (!output.empty()) config.emplace_back(ep::kEpContextFilePath, output);
  config.emplace_back(ep::kEpContextEmbedMode, compile.embed_context ? "1" : "0");
  NXRT_ASSIGN_OR_RETURN(std::unique_ptr<ModelPipeline> pipeline,
                        ModelPipeline::Prepare(std::move(model), options, source, std::move(config)));
  NXRT_ASSIGN_OR_RETURN(PlacedModel placed, pipeline->PlaceAll({}, false));
  NXRT_ASSIGN_OR_RETURN(ir::Model compiled,
                        BuildEpContextModel(pipeline->model(), placed, pipeline->eps(),
                                            &result.ep_context_nodes, &result.compatibility_info));
  result.warnings = pipeline->warnings();
  result.warnings.insert(result.warnings.end(), placed.warnings.begin(), placed.warnings.end());
  if (result.ep_context_nodes == 0 && compile.error_if_no_nodes_compiled) {
    return MakeStatus(StatusCode::kFailedPrecondition,
                      "no plugin EP compiled any node of ", source.empty() ? "the model" : source,
                      " (error_if_no_nodes_compiled); check that a plugin EP is listed and claims "
                      "nodes (nxrt claims)");
  }
  if (compile.to_bytes) {
    NXRT_ASSIGN_OR_RETURN(result.model_bytes, ir::SerializeModel(compiled));
  } else {
    NXRT_RETURN_IF_ERROR(ir::SaveModel(compiled, output));
    result.output_path = output;
  }
  return result;
}

}  // namespace

}  // namespace nxrt::runtime

namespace nxrt {

Result<CompileResult> CompileModel(const std::string& path, const SessionOptions& options,
                                   const CompileOptions& compile) {
  return runtime::Compile(runtime::LoadModel(path, options), path, options, compile);
}

Result<CompileResult> CompileModelFromBytes(std::span<const std::byte> bytes,
                                            const SessionOptions& options,
                                            const CompileOptions& compile) {
  return runtime::Compile(runtime::LoadModel(bytes, options), "", options, compile);
}

}  // namespace nxrt
