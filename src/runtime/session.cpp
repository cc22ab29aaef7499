// runtime/session.cpp: nxrt::Session: the model pipeline (load → optimise → EPs → place,
// runtime/model_pipeline.h), then the plan once; run many times, from many threads (see
// include/nxrt/session.h).
#include "nxrt/session.h"

#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <new>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "core/thread_pool.h"
#include "ep/graph_claimer.h"
#include "ep/ort_plugin/graph_projection.h"
#include "ep/node_info_builder.h"
#include "ep/run_observer.h"
#include "ir/onnx_loader.h"
#include "ir/op_schema.h"
#include "nxrt/placement.h"
#include "runtime/executor.h"
#include "runtime/graph_plan.h"
#include "runtime/model_info.h"
#include "runtime/model_pipeline.h"
#include "runtime/plan_builder.h"

namespace nxrt {
namespace {

using runtime::GraphPlan;
using runtime::PlanInstance;
using runtime::ValueSource;

// Every step of a plan tree (runtime::FlattenSteps), with the index of each step's graph in the
// placement report: Stats() rows and trace spans are by this table's index.
struct StepTable {
  std::shared_ptr<GraphPlan> plan;
  std::vector<runtime::FlatStep> steps;
  std::vector<int32_t> graphs;
};

class SessionImpl final : public Session {
 public:
  static Result<std::unique_ptr<Session>> Make(ir::Model model, const SessionOptions& options,
                                               std::string source) {
    std::unique_ptr<SessionImpl> s(new SessionImpl(options));
    NXRT_RETURN_IF_ERROR(s->Init(std::move(model), options, std::move(source)));
    return std::unique_ptr<Session>(std::move(s));
  }

  const std::vector<ValueInfo>& inputs() const override { return inputs_; }
  const std::vector<ValueInfo>& outputs() const override { return outputs_; }

  Result<std::vector<NamedTensor>> Run(const std::vector<NamedTensor>& inputs,
                                       const std::vector<std::string>& output_names) override {
    std::vector<NamedValue> fed;
    fed.reserve(inputs.size());
    for (const NamedTensor& in : inputs) fed.push_back({in.name, Value(in.tensor)});
    NXRT_ASSIGN_OR_RETURN(std::vector<NamedValue> outputs, RunValues(fed, output_names));
    std::vector<NamedTensor> result;
    result.reserve(outputs.size());
    for (NamedValue& out : outputs) {
      if (!out.value.is_tensor()) {
        return MakeStatus(StatusCode::kInvalidArgument, "output '", out.name, "' is ",
                          out.value.Description(), ", not a tensor; call RunValues to get ",
                          "sequences, maps and optionals");
      }
      result.push_back({std::move(out.name), out.value.tensor()});
    }
    return result;
  }

  Result<std::vector<NamedValue>> RunValues(const std::vector<NamedValue>& inputs,
                                            const std::vector<std::string>& output_names) override {
    return RunValues(inputs, output_names, RunOptions{});
  }

  Result<std::vector<NamedValue>> RunValues(const std::vector<NamedValue>& inputs,
                                            const std::vector<std::string>& output_names,
                                            const RunOptions& run_options) override {
    const ir::Graph& g = *pipeline_->model().graph;
    std::vector<ir::ValueId> wanted;
    if (output_names.empty()) {
      wanted = g.outputs;
    } else {
      for (const std::string& name : output_names) {
        auto it = std::find_if(g.outputs.begin(), g.outputs.end(),
                               [&](ir::ValueId v) { return g.values[v].name == name; });
        if (it == g.outputs.end()) {
          return MakeStatus(StatusCode::kInvalidArgument, "unknown output '", name,
                            "'; the model's outputs are: ", ListNames(outputs_));
        }
        wanted.push_back(*it);
      }
    }

    // A plugin EP whose kernel fails while running is dropped when fallback is allowed: the
    // plan is rebuilt without it and the run repeated once on the new plan.
    Lease lease;
    lease.input_shapes = InputShapes(inputs);
    NXRT_RETURN_IF_ERROR(Acquire(lease));
    SetRunOptions(*lease.instance, run_options);
    std::optional<size_t> failed_step;
    Status status = BindInputs(inputs, lease.instance->values());
    if (!status.ok()) {
      Return(lease);
      return status;
    }
    status = RunPlan(lease, run_options, failed_step);
    // A run stopped by a limit (failed_step unset) says nothing about an EP, and is not repeated.
    if (!status.ok() && options_.allow_fallback && failed_step) {
      std::shared_ptr<GraphPlan> failed_plan = lease.plan;
      Return(lease);
      NXRT_ASSIGN_OR_RETURN(bool replanned, DropFailedPluginEp(failed_plan, failed_step, status));
      if (replanned) {
        NXRT_RETURN_IF_ERROR(Acquire(lease));
        SetRunOptions(*lease.instance, run_options);
        status = BindInputs(inputs, lease.instance->values());
        if (status.ok()) status = RunPlan(lease, run_options, failed_step);
      }
    }
    if (!status.ok()) {
      Return(lease);
      return status;
    }
    Result<std::vector<NamedValue>> result = CollectOutputs(inputs, wanted, lease.instance->values());
    Return(lease);
    return result;
  }

  // Hands `options`' per-run settings to the instance that runs the main graph.
  void SetRunOptions(PlanInstance& instance, const RunOptions& options) const {
    instance.set_progress(options.progress);
    if (!options.output_allocator) {
      instance.set_output_allocator({});
      return;
    }
    const ir::Graph& g = *pipeline_->model().graph;
    instance.set_output_allocator(
        [&g, &allocate = options.output_allocator](ir::ValueId v, DataType dtype,
                                                  const Shape& shape) -> Result<Tensor> {
          NXRT_ASSIGN_OR_RETURN(Tensor t, allocate(g.values[v].name, dtype, shape));
          if (t.dtype() != dtype || t.shape() != shape || !t.is_contiguous()) {
            return MakeStatus(StatusCode::kInvalidArgument, "the output allocator gave output '",
                              g.values[v].name, "' a tensor of another dtype or shape, or a "
                              "strided one; it must return exactly what it is asked for");
          }
          return t;
        });
  }

  // Tensors that are the caller's buffers (graph inputs, also when passed through a sequence
  // or an optional) or the model's (initializers) are copied.
  Result<std::vector<NamedValue>> CollectOutputs(const std::vector<NamedValue>& inputs,
                                                 const std::vector<ir::ValueId>& wanted,
                                                 const std::vector<Value>& values) const {
    const ir::Graph& g = *pipeline_->model().graph;
    auto fed = [&](const Tensor& t) {
      if (t.byte_size() == 0) return false;
      for (const NamedValue& in : inputs) {
        if (in.value.is_tensor() && in.value.tensor().raw_data() == t.raw_data()) return true;
        for (const Tensor& e : in.value.sequence()) {
          if (e.raw_data() == t.raw_data()) return true;
        }
      }
      return false;
    };
    auto owned = [&](const Tensor& t) -> Result<Tensor> {
      if (fed(t) || !t.owns_data()) return t.Clone();
      return t;
    };
    std::vector<NamedValue> result;
    result.reserve(wanted.size());
    for (ir::ValueId v : wanted) {
      const Value& value = values[v];
      if (!value.defined()) {
        return MakeStatus(StatusCode::kInternal, "output '", g.values[v].name,
                          "' has no value after the run");
      }
      if (value.is_tensor()) {
        NXRT_ASSIGN_OR_RETURN(Tensor t, owned(value.tensor()));
        result.push_back({g.values[v].name, Value(std::move(t))});
      } else if (value.is_sequence()) {
        std::vector<Tensor> elements;
        for (const Tensor& e : value.sequence()) {
          NXRT_ASSIGN_OR_RETURN(Tensor t, owned(e));
          elements.push_back(std::move(t));
        }
        NXRT_ASSIGN_OR_RETURN(Value seq, Value::Sequence(value.dtype(), std::move(elements)));
        result.push_back({g.values[v].name, std::move(seq)});
      } else {
        result.push_back({g.values[v].name, value});
      }
    }
    return result;
  }

  // A pooled instance of the current plan, held by one run.
  struct Lease {
    std::shared_ptr<GraphPlan> plan;
    std::shared_ptr<const StepTable> table;  // the plan's
    std::unique_ptr<PlanInstance> instance;
    std::string input_shapes;  // the run's, InputShapes
    int reuses = 0;            // runs on these shapes the instance served before this one
  };

  // An idle instance and the input shapes of its last run, which its kernels were prepared for
  // and its arena laid out for.
  struct IdleInstance {
    std::unique_ptr<PlanInstance> instance;
    std::string input_shapes;
    int reuses = 0;  // runs after the first that found it prepared for these shapes
  };

  // Instances that sequential runs may keep, one per set of input shapes: a decoder's prefill
  // and decode steps alternate two sets, and each keeps its prepared kernels and its arena
  // instead of preparing again and allocating anew at every switch.
  static constexpr size_t kShapeInstances = 2;

  // The names, dtypes and shapes of `inputs`, sorted by name, as one string.
  static std::string InputShapes(const std::vector<NamedValue>& inputs) {
    std::vector<const NamedValue*> sorted;
    sorted.reserve(inputs.size());
    for (const NamedValue& in : inputs) sorted.push_back(&in);
    std::sort(sorted.begin(), sorted.end(),
              [](const NamedValue* a, const NamedValue* b) { return a->name < b->name; });
    std::string key;
    for (const NamedValue* in : sorted) {
      key += in->name;
      key += '\0';
      if (in->value.is_tensor()) {
        const Tensor& t = in->value.tensor();
        key += DataTypeName(t.dtype());
        for (int64_t d : t.shape()) key += ',' + std::to_string(d);
      }
      key += '\0';
    }
    return key;
  }

  // Leases the idle instance last run on the lease's input shapes, or one never run; else, while
  // fewer than kShapeInstances exist, a new one; else an idle one whose shapes were never run
  // again, the one returned last, or, when each was reused, the one returned longest ago (its
  // kernels prepare again for the new shapes). A decoder's decode steps each have new shapes
  // (the attention mask grows by one): taking the one returned longest ago handed the prefill's
  // instance to the second step, so every prompt prepared all its kernels again; the steps now
  // take turns on an instance no shapes came back to, and the prefill, whose shapes do come
  // back, keeps its own.
  Status Acquire(Lease& lease) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      lease.plan = plan_;
      lease.table = table_;
      ++active_runs_;  // from here on, also while making kernels: FreePrepacked waits
      auto same = std::find_if(free_instances_.begin(), free_instances_.end(),
                               [&](const IdleInstance& idle) {
                                 return idle.input_shapes == lease.input_shapes;
                               });
      if (same == free_instances_.end()) {
        same = std::find_if(free_instances_.begin(), free_instances_.end(),
                            [](const IdleInstance& idle) { return idle.input_shapes.empty(); });
      }
      const size_t existing = free_instances_.size() + static_cast<size_t>(active_runs_ - 1);
      const bool matched = same != free_instances_.end();
      if (!matched && existing >= kShapeInstances && !free_instances_.empty()) {
        const auto once = std::find_if(free_instances_.rbegin(), free_instances_.rend(),
                                       [](const IdleInstance& idle) { return idle.reuses == 0; });
        same = once != free_instances_.rend() ? std::prev(once.base()) : free_instances_.begin();
      }
      if (same != free_instances_.end()) {
        lease.reuses = matched && !same->input_shapes.empty() ? same->reuses + 1 : 0;
        lease.instance = std::move(same->instance);
        free_instances_.erase(same);
      }
    }
    if (!lease.instance) {
      Result<std::unique_ptr<PlanInstance>> made = PlanInstance::Create(*lease.plan);
      if (!made.ok()) {
        std::lock_guard<std::mutex> lock(mutex_);
        --active_runs_;
        return made.status();
      }
      lease.instance = std::move(*made);
      if (free_prepacked_) {
        lease.instance->set_prepacked_hook([this](PlanInstance& i) { FreePrepacked(i); });
      }
    }
    return Status::Ok();
  }

  // Frees the data of initializers that every reading kernel has prepacked (ep/prepacked.h),
  // right after the step of `running` that published the last copy. Only when
  // `running` is the one run in progress: another run's kernel may be re-preparing from the
  // data. Each instance's slot gets the data-less tensor, so no copy keeps the buffer alive.
  void FreePrepacked(PlanInstance& running) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (active_runs_ != 1) return;
    bool freed = false;
    for (ir::ValueId v : plan_->PrepackedInitializers()) {
      for (ir::Initializer& init : pipeline_->model().graph->initializers) {
        if (init.value != v || init.tensor.raw_data() == nullptr) continue;
        const Shape shape(init.tensor.shape().begin(), init.tensor.shape().end());
        init.tensor = Tensor::Borrow(init.tensor.dtype(), shape, nullptr);
        running.values()[v] = Value(init.tensor);
        for (IdleInstance& idle : free_instances_) {
          idle.instance->values()[v] = Value(init.tensor);
        }
        for (runtime::StepPlan& step : plan_->steps) DropConstant(step, v, init.tensor);
        freed = true;
      }
    }
#ifdef __GLIBC__
    // Weights below glibc's mmap threshold sit in the heap; hand their pages back now, so the
    // next packed copy does not add to the peak.
    if (freed) malloc_trim(0);
#endif
  }

  // Points the constant of `step`'s node inputs reading `v` at `freed` (data-less).
  static void DropConstant(runtime::StepPlan& step, ir::ValueId v, const Tensor& freed) {
    if (!step.node_info) return;
    std::vector<std::pair<size_t, Tensor>> constants;
    const std::vector<ValueInfo>& inputs = step.node_info->inputs();
    for (size_t i = 0; i < inputs.size() && i < step.explicit_inputs; ++i) {
      if (step.inputs[i] == v && inputs[i].is_constant) constants.emplace_back(i, freed);
    }
    if (!constants.empty()) *step.node_info = ep::WithInputConstants(*step.node_info, constants);
  }

  // Unbinds the run's inputs and outputs and puts the instance back in the pool, unless the
  // session replanned meanwhile (the instance is then stale and dropped).
  void Return(Lease& lease) {
    if (!lease.instance) return;
    lease.instance->ReleaseBindings();
    lease.instance->set_output_allocator({});  // it refers to the finished call's RunOptions
    std::lock_guard<std::mutex> lock(mutex_);
    --active_runs_;
    if (lease.plan == plan_) {
      free_instances_.push_back({std::move(lease.instance), lease.input_shapes, lease.reuses});
    }
    lease.instance.reset();
    lease.table.reset();
  }

  // Runs the leased instance within the session's run limits and `run_options`' terminate flag;
  // `failed_step` receives the step that failed, if one did (not when a limit stopped the run).
  Status RunPlan(Lease& lease, const RunOptions& run_options,
                 std::optional<size_t>& failed_step) {
    PlanInstance& instance = *lease.instance;
    const std::shared_ptr<GraphPlan>& plan = lease.plan;
    std::vector<runtime::StepCounters>& counters = instance.counters();
    counters.assign(lease.table->steps.size(), {});
    size_t started = 0;
    Status status;
    for (; started < observers_.size(); ++started) {
      status = observers_[started]->OnRunStart();
      if (!status.ok()) break;
    }
    std::vector<runtime::StepSpan> spans;
    const auto run_start = std::chrono::steady_clock::now();
    runtime::RunLimits limits;
    limits.terminate = run_options.terminate;
    if (options_.run_time_limit_ms > 0) {
      limits.time_limit_ms = options_.run_time_limit_ms;
      limits.deadline = run_start + std::chrono::milliseconds(options_.run_time_limit_ms);
    }
    limits.loop_trip_limit = options_.loop_trip_limit;
    limits.memory_limit_bytes = options_.run_memory_limit_bytes;
    const bool limited = limits.terminate != nullptr || options_.run_time_limit_ms > 0 ||
                         limits.loop_trip_limit > 0 || limits.memory_limit_bytes > 0;
    if (status.ok()) {
      status = instance.Run(*pool_, runtime::RunRecord{counters, profiling_ ? &spans : nullptr,
                                                       limited ? &limits : nullptr});
    }
    const double run_us = std::chrono::duration<double, std::micro>(
                              std::chrono::steady_clock::now() - run_start).count();
    for (size_t i = started; i-- > 0;) {
      Status ended = observers_[i]->OnRunEnd();
      if (status.ok()) status = ended;
    }
    if (!status.ok()) failed_step = instance.failed_step();
    // A kernel that fails while running reports what it found wrong; for the caller it is a run
    // failure, not a bad argument or model (session.h: kRuntimeError from a kernel).
    if (failed_step && (status.code() == StatusCode::kInvalidArgument ||
                        status.code() == StatusCode::kInvalidModel)) {
      status = Status(StatusCode::kRuntimeError, status.message());
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (plan != plan_) return status;  // replanned meanwhile: the counts are stale
    if (profiling_) {
      const uint32_t thread = ThreadIndex();
      runs_.push_back({run_start, run_us, thread, ++run_count_, status.ok()});
      for (runtime::StepSpan& span : spans) {
        events_.push_back({lease.table, std::move(span), thread});
      }
    }
    if (status.ok()) {
      for (size_t i = 0; i < counters.size(); ++i) {
        counters_[i].calls += counters[i].calls;
        counters_[i].total_us += counters[i].total_us;
      }
    }
    return status;
  }

  // When `step` (the step that failed in `plan`) ran on an ORT plugin EP, rebuilds the plan
  // without that EP and returns true; false when the failure is not a plugin's.
  Result<bool> DropFailedPluginEp(const std::shared_ptr<GraphPlan>& plan,
                                  std::optional<size_t> step, const Status& error) {
    if (!step || *step >= plan->steps.size()) return false;
    ExecutionProvider* ep = plan->steps[*step].ep;
    if (ep == nullptr || ep->GetExtension<ep::GraphClaimer>() == nullptr) return false;
    std::lock_guard<std::mutex> lock(mutex_);
    if (plan != plan_) return true;  // another run replanned already
    const std::string& name = plan->steps[*step].ep_name;
    failed_eps_.emplace(name, error.message());
    warnings_.push_back("ep '" + name + "' dropped while running, its nodes fall back: " +
                        error.message());
    NXRT_RETURN_IF_ERROR(Replan());
    free_instances_.clear();
    return true;
  }

  // Places every graph without the EPs in failed_eps_ and builds the plan from that placement.
  // Called by Init and, holding mutex_, by DropFailedPluginEp.
  Status Replan() {
    NXRT_ASSIGN_OR_RETURN(runtime::PlacedModel placed, pipeline_->PlaceAll(failed_eps_, false));
    for (const auto& entry : pipeline_->eps().entries()) {
      auto* claimer = entry.provider->GetExtension<ep::GraphClaimer>();
      if (claimer == nullptr || placed.dropped.count(entry.name) != 0) continue;
      NXRT_RETURN_IF_ERROR(claimer->BeginPlan(placed.graphs.size()));
    }
    runtime::PlanBuilder builder(pipeline_->eps(), placed);
    NXRT_ASSIGN_OR_RETURN(plan_, builder.Build(*pipeline_->model().graph));
    table_ = MakeStepTable(plan_, placed);
    for (const std::string& warning : placed.warnings) warnings_.push_back(warning);
    failed_eps_ = std::move(placed.dropped);  // an EP whose compile failed stays out of replans
    placement_ = pipeline_->Report(placed);
    placement_.warnings = warnings_;
    counters_.assign(table_->steps.size(), {});
    return Status::Ok();
  }

  // Every step of `plan` and of its sub-plans (runtime::FlattenSteps), each with the index of its
  // graph in `placed` (the placement report's graph order).
  static std::shared_ptr<const StepTable> MakeStepTable(const std::shared_ptr<GraphPlan>& plan,
                                                        const runtime::PlacedModel& placed) {
    auto table = std::make_shared<StepTable>();
    table->plan = plan;
    table->steps = runtime::FlattenSteps(*plan);
    for (const runtime::FlatStep& entry : table->steps) {
      int32_t graph = 0;
      for (size_t g = 0; g < placed.graphs.size(); ++g) {
        if (placed.graphs[g].graph == entry.plan->graph) graph = static_cast<int32_t>(g);
      }
      table->graphs.push_back(graph);
    }
    return table;
  }

  std::vector<OptimizerPassStats> OptimizerPasses() const override { return pipeline_->passes(); }

  std::vector<ValueInfo> OverridableInitializers() const override {
    std::vector<ValueInfo> overridable;
    for (size_t k = 0; k < all_inputs_.size(); ++k) {
      if (layout_->values[layout_->inputs[k]].initializer != nullptr) {
        overridable.push_back(all_inputs_[k]);
      }
    }
    return overridable;
  }

  ModelMetadata Metadata() const override {
    return ort_plugin::ModelMetadataOf(pipeline_->model());
  }

  std::vector<KernelStats> Stats() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    const std::vector<runtime::FlatStep>& steps = table_->steps;
    std::vector<KernelStats> stats;
    stats.reserve(steps.size());
    for (size_t i = 0; i < steps.size(); ++i) {
      const runtime::StepPlan& step = steps[i].plan->steps[steps[i].step];
      KernelStats k;
      k.name = step.name;
      k.op_type = step.op_type;
      k.ep = step.ep_name;
      k.calls = counters_[i].calls;
      k.total_us = counters_[i].total_us;
      k.self_us = counters_[i].total_us;
      k.graph = table_->graphs[i];
      k.parent = steps[i].parent;
      stats.push_back(std::move(k));
    }
    for (const KernelStats& k : stats) {
      if (k.parent >= 0) stats[static_cast<size_t>(k.parent)].self_us -= k.total_us;
    }
    return stats;
  }

  std::string PlacementSummary() const override { return PlacementReportText(Placement()); }

  PlacementReport Placement() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return placement_;
  }

  std::vector<std::string> Warnings() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return warnings_;
  }

  Result<std::string> EndProfiling() override {
    if (!profiling_) {
      return MakeStatus(StatusCode::kFailedPrecondition,
                        "profiling is off; create the session with "
                        "SessionOptions::enable_profiling = true");
    }
    std::vector<Event> events;
    std::vector<RunEvent> runs;
    std::vector<std::string> labels;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      events.swap(events_);
      runs.swap(runs_);
      for (const GraphPlacement& g : placement_.graphs) labels.push_back(g.label);
    }
    auto since_created = [&](std::chrono::steady_clock::time_point t) {
      return std::chrono::duration<double, std::micro>(t - created_).count();
    };
    nlohmann::json trace = nlohmann::json::array();
    trace.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", 0},
                     {"args", {{"name", "nxrt session"}}}});
    std::set<uint32_t> threads;
    for (const RunEvent& r : runs) threads.insert(r.thread);
    for (uint32_t t : threads) {
      trace.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 0}, {"tid", t},
                       {"args", {{"name", "run thread " + std::to_string(t)}}}});
    }
    for (const RunEvent& r : runs) {
      trace.push_back({{"name", "run"},
                       {"cat", "session"},
                       {"ph", "X"},
                       {"ts", since_created(r.start)},
                       {"dur", r.duration_us},
                       {"pid", 0},
                       {"tid", r.thread},
                       {"args", {{"run", r.index}, {"ok", r.ok}}}});
    }
    for (const Event& e : events) {
      const runtime::FlatStep& entry = e.table->steps[e.span.stat];
      const runtime::StepPlan& step = entry.plan->steps[entry.step];
      const int32_t graph = e.table->graphs[e.span.stat];
      trace.push_back(
          {{"name", step.name},
           {"cat", step.ep_name},
           {"ph", "X"},
           {"ts", since_created(e.span.start)},
           {"dur", e.span.duration_us},
           {"pid", 0},
           {"tid", e.thread},
           {"args",
            {{"op_type", step.op_type},
             {"ep", step.ep_name},
             {"device", step.ep != nullptr ? step.ep->device().ToString() : "cpu:0"},
             {"step", step.description},
             {"graph", static_cast<size_t>(graph) < labels.size() ? labels[graph] : ""},
             {"inputs", e.span.inputs},
             {"outputs", e.span.outputs}}}});
    }
    return nlohmann::json{{"traceEvents", trace}, {"displayTimeUnit", "ms"}}.dump(1);
  }

 private:
  // A small stable number per thread for trace events.
  static uint32_t ThreadIndex() {
    static std::atomic<uint32_t> next{0};
    thread_local const uint32_t index = next++;
    return index;
  }

  explicit SessionImpl(const SessionOptions& options)
      : options_(options),
        profiling_(options.enable_profiling),
        created_(std::chrono::steady_clock::now()) {
    int threads = options.intra_op_threads;
    if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    pool_ = std::make_unique<ThreadPool>(threads);
  }

  Status Init(ir::Model model, const SessionOptions& options, std::string source) {
    NXRT_ASSIGN_OR_RETURN(pipeline_, runtime::ModelPipeline::Prepare(std::move(model), options,
                                                                      std::move(source)));
    // Freeing prepacked initializers needs a plan that never changes: a plugin EP failing at
    // run time makes the session replan, and the new kernels would need the originals.
    free_prepacked_ = pipeline_->only_cpu();
    warnings_ = pipeline_->warnings();
    for (const auto& entry : pipeline_->eps().entries()) {
      if (auto* observer = entry.provider->GetExtension<ep::RunObserver>()) {
        observers_.push_back(observer);
      }
    }
    NXRT_RETURN_IF_ERROR(Replan());
    layout_ = plan_;

    // Public input/output metadata.
    NXRT_ASSIGN_OR_RETURN(const ir::GraphView* view,
                          pipeline_->View(*pipeline_->model().graph));
    ep::NodeInfoBuilder infos(*view);
    for (ir::ValueId v : plan_->inputs) {
      all_inputs_.push_back(infos.Value(v));
      if (plan_->values[v].initializer == nullptr) inputs_.push_back(all_inputs_.back());
    }
    for (ir::ValueId v : plan_->outputs) outputs_.push_back(infos.Value(v));
    // The first instance now, so session creation reports kernel errors.
    NXRT_ASSIGN_OR_RETURN(std::unique_ptr<PlanInstance> first, PlanInstance::Create(*plan_));
    if (free_prepacked_) first->set_prepacked_hook([this](PlanInstance& i) { FreePrepacked(i); });
    free_instances_.push_back({std::move(first), std::string()});
    return Status::Ok();
  }

  static std::string ListNames(const std::vector<ValueInfo>& infos) {
    std::string s;
    for (const ValueInfo& v : infos) s += (s.empty() ? "'" : ", '") + v.name + "'";
    return s.empty() ? "(none)" : s;
  }

  // Checks `inputs` against the model's declared inputs and binds them into `values`.
  Status BindInputs(const std::vector<NamedValue>& inputs, std::vector<Value>& values) const {
    std::vector<bool> bound(all_inputs_.size(), false);
    for (const NamedValue& in : inputs) {
      auto it = std::find_if(all_inputs_.begin(), all_inputs_.end(),
                             [&](const ValueInfo& v) { return v.name == in.name; });
      if (it == all_inputs_.end()) {
        return MakeStatus(StatusCode::kInvalidArgument, "unknown input '", in.name,
                          "'; the model's inputs are: ", ListNames(inputs_));
      }
      const size_t k = static_cast<size_t>(it - all_inputs_.begin());
      if (bound[k]) {
        return MakeStatus(StatusCode::kInvalidArgument, "input '", in.name, "' is given twice");
      }
      bound[k] = true;
      NXRT_RETURN_IF_ERROR(CheckInput(*it, in.value));
      NXRT_ASSIGN_OR_RETURN(values[layout_->inputs[k]], Contiguous(in.value));
    }
    for (size_t k = 0; k < all_inputs_.size(); ++k) {
      if (bound[k]) continue;
      if (layout_->values[layout_->inputs[k]].initializer != nullptr) {
        values[layout_->inputs[k]] = Value(*layout_->values[layout_->inputs[k]].initializer);
        continue;
      }
      return MakeStatus(StatusCode::kInvalidArgument, "missing input '", all_inputs_[k].name,
                        "' (", all_inputs_[k].ToString(),
                        "); give it a value of that type and shape");
    }
    return Status::Ok();
  }

  // `value` with its tensors made contiguous (kernels read contiguous tensors).
  static Result<Value> Contiguous(const Value& value) {
    if (value.is_tensor() && !value.tensor().is_contiguous()) {
      NXRT_ASSIGN_OR_RETURN(Tensor t, value.tensor().Clone());
      return Value(std::move(t));
    }
    if (!value.is_sequence()) return value;
    std::vector<Tensor> elements;
    for (const Tensor& e : value.sequence()) {
      if (e.is_contiguous()) {
        elements.push_back(e);
      } else {
        NXRT_ASSIGN_OR_RETURN(Tensor t, e.Clone());
        elements.push_back(std::move(t));
      }
    }
    return Value::Sequence(value.dtype(), std::move(elements));
  }

  static Status CheckInput(const ValueInfo& declared, const Value& value) {
    if (!value.defined()) {
      return MakeStatus(StatusCode::kInvalidArgument, "input '", declared.name,
                        "' is an empty tensor with no dtype");
    }
    const bool map_sequence = declared.kind == ValueKind::kSequence &&
                              declared.map_key != DataType::kUndefined;
    const bool fits = declared.kind == ValueKind::kUnknown ||
                      (declared.kind == ValueKind::kTensor && value.is_tensor()) ||
                      (declared.kind == ValueKind::kSequence && !map_sequence &&
                       value.is_sequence()) ||
                      (map_sequence && value.is_map_sequence()) ||
                      (declared.kind == ValueKind::kMap && value.is_map()) ||
                      declared.kind == ValueKind::kOptional;
    if (declared.kind == ValueKind::kSparseTensor) {
      return MakeStatus(StatusCode::kNotImplemented, "input '", declared.name, "' is a ",
                        ValueKindName(declared.kind), "; nxrt runs tensors, sequences, maps and ",
                        "optionals only");
    }
    if (!fits) {
      return MakeStatus(StatusCode::kInvalidArgument, "input '", declared.name, "' is declared ",
                        declared.ToString(), " but the value given is ", value.Description(),
                        "; give it a ",
                        map_sequence ? "sequence of maps" : ValueKindName(declared.kind));
    }
    if (value.is_map() || value.is_map_sequence()) {
      const bool key_fits =
          declared.map_key == DataType::kUndefined || value.map_key_dtype() == declared.map_key;
      const bool value_fits =
          declared.dtype == DataType::kUndefined || value.dtype() == declared.dtype;
      if (!key_fits || !value_fits) {
        return MakeStatus(StatusCode::kInvalidArgument, "input '", declared.name, "' is ",
                          value.Description(), ", the model declares ", declared.ToString());
      }
      return Status::Ok();
    }
    if (!value.is_tensor()) {
      if (declared.dtype != DataType::kUndefined && value.is_sequence() &&
          value.dtype() != declared.dtype) {
        return MakeStatus(StatusCode::kInvalidArgument, "input '", declared.name,
                          "' is a sequence of ", DataTypeName(value.dtype()),
                          " tensors, the model declares ", declared.ToString());
      }
      return Status::Ok();
    }
    const Tensor& t = value.tensor();
    if (declared.dtype != DataType::kUndefined && t.dtype() != declared.dtype) {
      return MakeStatus(StatusCode::kInvalidArgument, "input '", declared.name, "' has dtype ",
                        DataTypeName(t.dtype()), ", the model declares ",
                        DataTypeName(declared.dtype));
    }
    if (declared.shape) {
      const auto& dims = *declared.shape;
      if (dims.size() != t.rank()) {
        return MakeStatus(StatusCode::kInvalidArgument, "input '", declared.name, "' has rank ",
                          t.rank(), " (shape ", ShapeToString(t.shape()), "), the model declares ",
                          declared.ToString());
      }
      for (size_t d = 0; d < dims.size(); ++d) {
        if (dims[d].is_fixed() && dims[d].value != t.shape()[d]) {
          return MakeStatus(StatusCode::kInvalidArgument, "input '", declared.name,
                            "' has shape ", ShapeToString(t.shape()), ", but dim ", d,
                            " must be ", dims[d].value, " (", declared.ToString(), ")");
        }
      }
    }
    return Status::Ok();
  }

  std::unique_ptr<runtime::ModelPipeline> pipeline_;  // the model, its EPs and views
  std::shared_ptr<GraphPlan> plan_;  // guarded by mutex_ (replaced when a plugin EP is dropped)
  std::shared_ptr<const StepTable> table_;  // plan_'s steps and its sub-plans' (guarded by mutex_)
  // The first plan, never replaced: inputs, outputs and initializers are the same in every plan.
  std::shared_ptr<const GraphPlan> layout_;
  std::vector<ValueInfo> all_inputs_;  // every graph input, in plan_->inputs order
  std::vector<ValueInfo> inputs_;      // those without an initializer default
  std::vector<ValueInfo> outputs_;
  PlacementReport placement_;          // of plan_ (guarded by mutex_)
  std::vector<std::string> warnings_;  // guarded by mutex_
  bool free_prepacked_ = false;  // every EP is the CPU EP: the plan never changes
  int active_runs_ = 0;          // runs holding an instance (guarded by mutex_)
  struct Event {
    std::shared_ptr<const StepTable> table;  // the step table the span indexes
    runtime::StepSpan span;
    uint32_t thread = 0;
  };
  // One run, for its span in the trace.
  struct RunEvent {
    std::chrono::steady_clock::time_point start;
    double duration_us = 0;
    uint32_t thread = 0;
    int64_t index = 0;  // 1 for the first run profiled
    bool ok = false;
  };
  SessionOptions options_;
  runtime::DroppedEps failed_eps_;  // plugin EPs dropped (compiling or running), and why
  const bool profiling_;
  const std::chrono::steady_clock::time_point created_;
  std::vector<Event> events_;     // guarded by mutex_
  std::vector<RunEvent> runs_;    // guarded by mutex_
  int64_t run_count_ = 0;         // runs profiled (guarded by mutex_)
  std::vector<ep::RunObserver*> observers_;  // EPs told when runs start and end
  std::unique_ptr<ThreadPool> pool_;
  mutable std::mutex mutex_;
  std::vector<IdleInstance> free_instances_;  // oldest first
  std::vector<runtime::StepCounters> counters_;
};

// Runs `make` (loading, optimisation, placement, kernel creation), turning an allocation failure
// thrown anywhere in it (a kernel's tables, a folded constant, a container sized by the model)
// into kOutOfMemory.
template <typename Make>
Result<std::unique_ptr<Session>> GuardAllocations(Make&& make) {
  try {
    return make();
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory,
                  "out of memory while creating the session (the model's sizes ask for more than "
                  "the system has)");
  } catch (const std::length_error& e) {
    return MakeStatus(StatusCode::kOutOfMemory, "a size the model implies is too large to hold (",
                      e.what(), ")");
  }
}

}  // namespace

void WarmUpProcess() { ir::LoadOperatorSchemas(); }

Result<std::unique_ptr<Session>> Session::Create(const std::string& path,
                                                 const SessionOptions& options) {
  Result<std::unique_ptr<Session>> session =
      GuardAllocations([&]() -> Result<std::unique_ptr<Session>> {
        NXRT_ASSIGN_OR_RETURN(ir::Model model, runtime::LoadModel(path, options));
        return SessionImpl::Make(std::move(model), options, path);
      });
  if (!session.ok()) return session.status().WithContext("model '" + path + "'");
  return session;
}

Result<std::unique_ptr<Session>> Session::CreateFromBytes(std::span<const std::byte> bytes,
                                                          const SessionOptions& options) {
  return GuardAllocations([&]() -> Result<std::unique_ptr<Session>> {
    NXRT_ASSIGN_OR_RETURN(ir::Model model, runtime::LoadModel(bytes, options));
    return SessionImpl::Make(std::move(model), options, "");
  });
}

namespace runtime {

Result<std::unique_ptr<Session>> CreateSession(ir::Model model, const SessionOptions& options,
                                               std::string source) {
  return GuardAllocations([&]() -> Result<std::unique_ptr<Session>> {
    return SessionImpl::Make(std::move(model), options, std::move(source));
  });
}

}  // namespace runtime
}  // namespace nxrt
