// runtime/ep_context_model.h: EPContext models (ONNX Runtime's "EP context design"): writing one
// from a placed model (nxrt::CompileModel, nxrt/compile.h) and the checks a session makes when it
// loads one.
//
// Layer: nxrt_runtime, over the EP extensions of ep/ep_context.h.
//   Writing, as ORT 1.30's CreateEpContextModel: the main graph keeps its inputs and outputs in
//   order; each fused claim whose EP returned an EPContext node is replaced by that node (the
//   other nodes stay, bodies of If/Loop/Scan as in the source); nodes are written in a
//   topological order (the source's, with each EPContext node where its claim's first node was);
//   initializers stay when a remaining node or a body reads them; the EPContext nodes' inputs and
//   outputs get value_info with their types; "com.microsoft" is imported at version 1 when the
//   model does not import it; each EP's OrtEp::GetCompiledModelCompatibilityInfo over the result
//   goes into metadata "ep_compatibility_info.<EP name>". An EPContext node gets the integer
//   defaults of ORT's EPContext schema it omits (main_context 1, embed_mode 1, max_size 0), which
//   ORT 1.30 writes too.
//   Loading (ModelPipeline::Prepare, once the EPs are initialised): every EPContext node must
//   name in `source` an EP of the session; each "ep_compatibility_info.<EP>" entry is given to
//   that EP's factory (ValidateCompiledModelCompatibilityInfo), as ORT does before it partitions:
//   EP_UNSUPPORTED refuses the model, EP_SUPPORTED_PREFER_RECOMPILATION warns.
#pragma once

#include <string>
#include <vector>

#include "ep/ep_registry.h"
#include "ir/graph.h"
#include "nxrt/compile.h"
#include "nxrt/status.h"
#include "runtime/model_pipeline.h"

namespace nxrt::runtime {

// The EPContext model of `model` placed as `placed` by `eps`, with `*ep_context_nodes` set to
// the EPContext nodes it holds and `compatibility` to the {EP name, info} pairs written. Errors
// (kFailedPrecondition): a fused claim of a plugin EP without an EPContext node, an EPContext
// node naming a value the graph lacks; the EP's compatibility-info error.
Result<ir::Model> BuildEpContextModel(
    const ir::Model& model, const PlacedModel& placed, ep::EpRegistry& eps,
    int64_t* ep_context_nodes, std::vector<std::pair<std::string, std::string>>* compatibility);

// The loading checks above, over `model` (named `source` in messages) and the initialised `eps`.
// Errors: kInvalidModel for an EPContext node without a `source` attribute; kFailedPrecondition
// for a `source` no EP of the session has, for a context an EP's factory calls unsupported, and
// for the factory's own error. Warnings (a context the EP would rather recompile) are appended
// to `warnings`.
Status CheckEpContextModel(const ir::Model& model, const std::string& source,
                           ep::EpRegistry& eps, std::vector<std::string>& warnings);

}  // namespace nxrt::runtime
