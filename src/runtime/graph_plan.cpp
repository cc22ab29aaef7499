// runtime/graph_plan.cpp: the value bookkeeping of a plan (see graph_plan.h).
#include "runtime/graph_plan.h"

#include <algorithm>
#include <map>

namespace nxrt::runtime {

int64_t ValueBytes(const Value& value) {
  if (value.is_tensor()) return static_cast<int64_t>(value.tensor().byte_size());
  int64_t bytes = 0;
  if (value.is_sequence()) {
    for (const Tensor& t : value.sequence()) bytes += static_cast<int64_t>(t.byte_size());
  }
  if (value.is_map()) {
    bytes += static_cast<int64_t>(value.map_keys().byte_size() + value.map_values().byte_size());
  }
  for (const Value& map : value.maps()) bytes += ValueBytes(map);
  return bytes;
}

Status RunLimits::CheckStop(std::string_view before) {
  if (terminate != nullptr && terminate->load(std::memory_order_relaxed)) {
    stopped = true;
    return MakeStatus(StatusCode::kRuntimeError, "the run was terminated before ", before,
                      " (RunOptions::terminate is set)");
  }
  if (deadline == std::chrono::steady_clock::time_point::max() ||
      std::chrono::steady_clock::now() < deadline) {
    return Status::Ok();
  }
  stopped = true;
  return MakeStatus(StatusCode::kDeadlineExceeded, "the run went past its time limit of ",
                    time_limit_ms, " ms (SessionOptions::run_time_limit_ms) before ", before,
                    "; raise the limit or give smaller inputs");
}

Status RunLimits::CheckLoopTrip(int64_t trip, std::string_view loop) {
  if (loop_trip_limit <= 0 || trip < loop_trip_limit) return Status::Ok();
  stopped = true;
  return MakeStatus(StatusCode::kDeadlineExceeded, loop, " ran ", trip,
                    " iterations, its trip limit (SessionOptions::loop_trip_limit), and would "
                    "run more; raise the limit, or check the Loop's trip count M and condition");
}

Status RunLimits::OverMemoryLimit(int64_t bytes, std::string_view what) {
  stopped = true;
  return MakeStatus(StatusCode::kOutOfMemory, what, " needs ", bytes, " bytes while the run ",
                    "holds ", held_bytes, " bytes of tensors already: more than its memory ",
                    "limit of ", memory_limit_bytes, " bytes (SessionOptions::",
                    "run_memory_limit_bytes); raise the limit or give smaller inputs");
}

void GraphPlan::ComputeValuePlans() {
  const ir::Graph& g = *graph;
  values.assign(value_count(), ValuePlan{});
  inputs.clear();
  outer_scope.clear();
  constant_outer.resize(g.values.size());
  for (ir::ValueId id = 0; id < static_cast<ir::ValueId>(g.values.size()); ++id) {
    if (g.values[id].outer_scope) {
      values[id].source = ValueSource::kOuterScope;
      values[id].constant_outer = constant_outer[id];
      outer_scope.push_back(id);
    }
  }
  for (const ir::Initializer& init : g.initializers) {
    values[init.value].source = ValueSource::kInitializer;
    values[init.value].initializer = &init.tensor;
  }
  for (ir::ValueId id : g.inputs) {
    // A graph input with an initializer is an overridable default: the caller may bind it.
    values[id].source = ValueSource::kGraphInput;
    if (const ir::Initializer* init = g.FindInitializer(id)) values[id].initializer = &init->tensor;
    inputs.push_back(id);
  }
  for (int32_t s = 0; s < static_cast<int32_t>(steps.size()); ++s) {
    for (ir::ValueId v : steps[s].inputs) {
      if (v != ir::kNoValue) values[v].last_use_step = s;
    }
    for (ir::ValueId v : steps[s].outputs) {
      if (v == ir::kNoValue) continue;
      values[v].source = ValueSource::kStep;
      values[v].producer_step = s;
    }
  }
  outputs = g.outputs;
  for (ir::ValueId v : outputs) values[v].graph_output = true;
  // Constant steps, in step order so that chains of them fold.
  for (StepPlan& step : steps) {
    auto constant_input = [&](ir::ValueId v) { return v == ir::kNoValue || Constant(v); };
    auto plain_output = [&](ir::ValueId v) { return v == ir::kNoValue || !values[v].graph_output; };
    step.constant = step.foldable && step.make_kernel &&
                    std::all_of(step.inputs.begin(), step.inputs.end(), constant_input) &&
                    std::all_of(step.outputs.begin(), step.outputs.end(), plain_output);
    if (!step.constant) continue;
    for (ir::ValueId v : step.outputs) {
      if (v == ir::kNoValue) continue;
      values[v].pinned = true;
      values[v].fold_only = true;
    }
  }
  for (const StepPlan& step : steps) {
    if (step.constant) continue;
    for (ir::ValueId v : step.inputs) {
      if (v != ir::kNoValue) values[v].fold_only = false;
    }
  }
  // Sub-plans learn which of their outer-scope values are constant here, then fold in turn.
  for (const StepPlan& step : steps) {
    for (const SubgraphPlan& sub : step.subgraphs) {
      GraphPlan& inner = *sub.plan;
      inner.constant_outer.assign(inner.graph->values.size(), false);
      for (const auto& [inner_value, index] : sub.outer_bindings) {
        const ir::ValueId v = index < step.inputs.size() ? step.inputs[index] : ir::kNoValue;
        inner.constant_outer[inner_value] = v != ir::kNoValue && Constant(v);
      }
      inner.ComputeValuePlans();
    }
  }
}

bool GraphPlan::Constant(ir::ValueId v) const {
  const ValuePlan& vp = values[v];
  return vp.source == ValueSource::kInitializer || vp.pinned || vp.constant_outer;
}

std::string GraphPlan::ValueName(ir::ValueId v) const {
  const size_t own = graph->values.size();
  if (v < 0) return "(none)";
  if (static_cast<size_t>(v) < own) return graph->values[v].name;
  const Copy& copy = copies[static_cast<size_t>(v) - own];
  return graph->values[copy.of].name +
         (copy.memory.empty() ? " (host copy)" : " (in ep '" + copy.memory + "' memory)");
}

std::vector<ir::ValueId> GraphPlan::PrepackedInitializers() const {
  // Readers of each initializer, as (step, slot); -1 marks a reader that cannot prepack.
  std::map<ir::ValueId, std::vector<std::pair<size_t, int>>> readers;
  const ir::Graph& g = *graph;
  for (const ir::Initializer& init : g.initializers) {
    if (values[init.value].source == ValueSource::kInitializer && !values[init.value].graph_output) {
      readers[init.value];
    }
  }
  for (size_t s = 0; s < steps.size(); ++s) {
    const StepPlan& step = steps[s];
    for (size_t i = 0; i < step.inputs.size(); ++i) {
      auto it = readers.find(step.inputs[i]);
      if (it == readers.end()) continue;
      const bool kernel_slot = step.make_kernel && !step.constant && i < step.explicit_inputs;
      it->second.emplace_back(s, kernel_slot ? static_cast<int>(i) : -1);
    }
  }
  std::vector<ir::ValueId> result;
  for (const auto& [v, uses] : readers) {
    const bool all = !uses.empty() && std::all_of(uses.begin(), uses.end(), [&](const auto& use) {
      return use.second >= 0 && steps[use.first].prepacked->Has(use.second);
    });
    if (all) result.push_back(v);
  }
  return result;
}

namespace {

void Number(GraphPlan& plan, int64_t parent, std::vector<FlatStep>& table) {
  plan.stats_offset = table.size();
  for (size_t s = 0; s < plan.steps.size(); ++s) table.push_back({&plan, s, parent});
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    for (const SubgraphPlan& sub : plan.steps[s].subgraphs) {
      Number(*sub.plan, static_cast<int64_t>(plan.stats_offset + s), table);
    }
  }
}

}  // namespace

std::vector<FlatStep> FlattenSteps(GraphPlan& root) {
  std::vector<FlatStep> table;
  Number(root, -1, table);
  return table;
}

}  // namespace nxrt::runtime
