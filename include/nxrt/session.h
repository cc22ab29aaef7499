// nxrt/session.h: load an ONNX model once, run it many times.
//
// Public API (std only). A Session loads a model, places its nodes on execution providers in the
// user's priority order (the CPU EP takes what is left when fallback is allowed), builds an
// execution plan once, and runs it. `Run` may be called from several threads at once: each
// concurrent run gets its own kernel instances and arena, created on first need and reused.
//
//   nxrt::SessionOptions options;                    // CPU EP, threads = cores
//   auto session = nxrt::Session::Create("model.onnx", options);
//   if (!session.ok()) { print(session.status().message()); ... }
//   auto outputs = (*session)->Run({{"x", x_tensor}});
//
// Models whose inputs or outputs are sequences, optionals or ONNX-ML maps (ONNX seq(tensor(T)),
// optional(...), map(K, V), seq(map(K, V))) run through RunValues, which takes and returns
// nxrt::Value (nxrt/value.h); Run is the tensors-only form of the same call.
//
// Errors follow nxrt/status.h: every message names the model, node or value and the fix.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "nxrt/ep_config.h"
#include "nxrt/execution_provider.h"
#include "nxrt/node_info.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"
#include "nxrt/value.h"

namespace nxrt {

// One execution provider in the priority list: either a built-in by type name ("cpu") or an EP
// instance the caller made, with its options and an optional instance name.
struct EpSpec {
  std::string type;  // "cpu", or "plugin:/path/lib.so[:registration_name]"
  EpConfig config;
  std::string name;  // unique name in the session; default: derived from the type
  std::shared_ptr<ExecutionProvider> provider;  // when set, used instead of `type`
};

struct SessionOptions {
  // EPs in priority order. Empty means {"cpu"}. When `allow_fallback` is set and no entry is the
  // CPU EP, a CPU EP is appended to take the nodes no other EP claims.
  std::vector<EpSpec> providers;
  // Threads for intra-op parallelism, counting the caller; 0 = the number of cores.
  int intra_op_threads = 0;
  // Graph optimisation before placement (docs/optimizer.md): 0 = none; 1 = basic (constant and
  // shape folding, dead nodes, Conv+BatchNormalization folding, MatMul+Add → Gemm: standard ONNX
  // results any EP can take); 2 = extended, the default (also fusions into nxrt's own com.nxrt
  // operators, applied only when every EP in `providers` is the CPU EP). Results change by float
  // rounding at most. Errors at Create: kInvalidArgument outside 0..2.
  int optimization_level = 2;
  // Names of passes not to run (e.g. "conv_bn_folding"). Errors at Create: kInvalidArgument for
  // an unknown name, listing the known ones.
  std::vector<std::string> disabled_optimizers;
  // Let the CPU EP run nodes no listed EP claims. When false and a node is left, Create fails
  // with the list of such nodes and every EP's reason. When true, a plugin EP that fails to
  // load, initialize or compile its claims is dropped (Warnings() says why) and its nodes fall
  // back too.
  bool allow_fallback = true;
  // Record a span per run and per executed step (node kernel, fused claim, runtime step, the
  // steps of control-flow bodies) for EndProfiling.
  bool enable_profiling = false;
  // When set, Create (and ExplainPlacement) writes the model here as ONNX once the optimisation
  // passes ran, before EPs are placed (ONNX Runtime's SessionOptions optimized_model_filepath):
  // level 1 gives standard ONNX operators any runtime loads; level 2 may add nxrt's com.nxrt
  // operators. Initializers are written inline. Errors at Create: kIoError when the file cannot
  // be written; kNotImplemented for a model with local functions or past protobuf's 2 GiB.
  std::string optimized_model_path;
  // Symbolic dims fixed before the model is optimized and placed, as {dim name, size}: every dim
  // of the main graph's values named `first` ("batch") becomes `second` (ONNX Runtime's
  // AddFreeDimensionOverrideByName). inputs() then declares the size and Run requires it. Names
  // no dim carries are ignored, as in ONNX Runtime. Errors at Create: kInvalidArgument for a
  // negative size or an empty name.
  std::vector<std::pair<std::string, int64_t>> free_dimension_overrides;

  // Run limits: bounds on what one Run or RunValues call may take, for models or inputs from
  // untrusted places (0 = no limit, the default, for each). A run past a limit fails with the
  // code below, and the session stays usable: the next run starts with the full budget.
  // Errors at Create: kInvalidArgument for a negative value.
  //
  // Wall-clock budget of one run, in milliseconds from its start. The run checks it before each
  // step of the main graph and of If/Loop/Scan/SequenceMap bodies, and before each Loop and Scan
  // iteration; once it is spent the run stops with kDeadlineExceeded naming what it stopped
  // before. A kernel already computing is not interrupted (one kernel's time is not bounded).
  int64_t run_time_limit_ms = 0;
  // Iterations one Loop node may run in one execution (nxrt's; ONNX Runtime has no such
  // option). A Loop whose trip count M and condition would take it further stops with
  // kDeadlineExceeded naming the node and the limit.
  int64_t loop_trip_limit = 0;
  // Bytes of tensors one run may hold at once: the outputs of the steps of the main graph and
  // of control-flow bodies while they are alive (intermediates in the arena or on the heap, the
  // run's outputs), each step's workspace while it computes, and the scan outputs a Loop or Scan
  // collects. Each is counted before it is allocated when its size is known at binding,
  // otherwise (a kernel's dynamic output, a control-flow or sequence step's result) as soon as
  // it is made. An output a kernel writes in place of its input counts on its own. Not counted:
  // the inputs the caller passes, initializers, and memory a kernel allocates inside its own
  // Compute. Past the limit the run stops with kOutOfMemory naming the node, the output with its
  // dtype and shape, its bytes, the bytes held and the limit.
  int64_t run_memory_limit_bytes = 0;
};

// Settings of one call to Run or RunValues (ONNX Runtime's OrtRunOptions).
struct RunOptions {
  // When set, the run reads it before each step of the main graph and of control-flow bodies,
  // and before each Loop and Scan iteration, and once it is true stops with kRuntimeError ("the
  // run was terminated before ..."), as ONNX Runtime's RunOptionsSetTerminate. Another thread
  // may set it while the run is in progress; it must outlive the call.
  const std::atomic<bool>* terminate = nullptr;
  // When set, the run stores in it, before each step of the main graph, that step's index in
  // Stats() (where its name, op type and EP are): for progress displays, which may read it from
  // another thread at any time. It must outlive the call.
  std::atomic<int64_t>* progress = nullptr;
  // When set, the run asks it for the buffer of each main-graph output a kernel step computes,
  // with the output's name, dtype and shape once the step is prepared, instead of allocating one
  // (as ONNX Runtime's KernelContext_GetOutput lets the host own a fused node's outputs). It
  // returns a contiguous tensor of exactly that dtype and shape whose memory outlives the run;
  // RunValues hands that tensor back as the output without copying it. An error ends the run
  // with it. Outputs not asked for (graph inputs or initializers passed through, constants,
  // shapes known only after Compute, runtime steps' values, strings) come back in buffers of
  // their own.
  std::function<Result<Tensor>(const std::string& name, DataType dtype, const Shape& shape)>
      output_allocator;
};

// What a model says about itself (ModelProto fields and metadata_props; ONNX Runtime's
// OrtModelMetadata).
struct ModelMetadata {
  std::string producer_name;
  std::string graph_name;
  std::string domain;
  std::string description;        // ModelProto.doc_string
  std::string graph_description;  // GraphProto.doc_string
  int64_t version = 0;            // ModelProto.model_version; INT64_MAX when the model sets none
  std::vector<std::pair<std::string, std::string>> custom;  // metadata_props, in model order
};

// A named tensor: a run's input or output.
struct NamedTensor {
  std::string name;
  Tensor tensor;
};

// A named value (tensor, sequence, map, sequence of maps or empty optional): a run's input or
// output in RunValues.
struct NamedValue {
  std::string name;
  Value value;
};

// What one graph optimisation pass did at session creation.
struct OptimizerPassStats {
  std::string pass;  // e.g. "conv_bn_folding"
  int rewrites = 0;  // patterns rewritten, over the main graph and its subgraphs
};

// Calls and time of one step of the plan (a node kernel, a fused claim, or a node the runtime
// runs: If, Loop, Scan, SequenceMap, the sequence and optional ops), summed over the successful
// runs. The steps of control-flow bodies are steps too, counted each time their body runs.
struct KernelStats {
  std::string name;     // node name, or the claim's fused name
  std::string op_type;  // op type, or "fused"
  std::string ep;       // the EP's instance name
  int64_t calls = 0;    // times it ran (a Loop body's steps: once per iteration)
  // Wall time of those calls, microseconds; for a control-flow step it includes its bodies.
  double total_us = 0;
  // total_us less the total_us of the steps of its bodies: the time of the step itself.
  // Equal to total_us for a step without bodies. Summed over all steps: the time of the runs.
  double self_us = 0;
  // The index of the step's graph in Placement().graphs: 0 for the main graph; a body's
  // GraphPlacement::label names its control-flow node and attribute.
  int32_t graph = 0;
  // The index in Stats() of the control-flow step whose body holds this step; -1 in the main
  // graph.
  int64_t parent = -1;
};

// Where each node runs, as data (nxrt/placement.h, which callers of Session::Placement include).
struct PlacementReport;

// Builds the process-wide tables every session needs (ONNX's operator schemas, which libonnx
// makes all at once on first use: 15-30 ms, two thirds of a small model's first Create) ahead of
// the first Session::Create, as ONNX Runtime's CreateEnv does before its sessions. Optional: the
// first Create does it otherwise. Idempotent and thread-safe; it cannot fail.
void WarmUpProcess();

class Session {
 public:
  // Loads the model at `path` (external data relative to its folder) and builds the plan.
  // Errors: the loader's (kIoError, kInvalidModel), kInvalidArgument for bad options (an unknown
  // EP type, a bad option value), kUnsupported when a node has no EP (listing the nodes and each
  // EP's reason), and kernel creation errors naming the node.
  static Result<std::unique_ptr<Session>> Create(const std::string& path,
                                                 const SessionOptions& options = {});
  // The same from the bytes of a ModelProto (external data relative to the working directory).
  static Result<std::unique_ptr<Session>> CreateFromBytes(std::span<const std::byte> bytes,
                                                          const SessionOptions& options = {});
  virtual ~Session() = default;

  // The model's inputs a caller must feed (graph inputs without an initializer), and its
  // outputs, in model order, with declared dtypes and shapes. Graph inputs that have an
  // initializer (IR < 4 models list weights so) are not listed but may be fed to override it.
  virtual const std::vector<ValueInfo>& inputs() const = 0;
  virtual const std::vector<ValueInfo>& outputs() const = 0;

  // Runs the model. `inputs` must name every required input once (overridable initializers are
  // optional) with its declared dtype and a shape matching every fixed dim of the declared
  // shape; contents are not checked (NaN and inf are computed with). `output_names` selects
  // outputs (default: all, in model order). Returns the outputs in the order asked, as owned
  // tensors. Errors (kInvalidArgument): an unknown or repeated input name, a missing input, a
  // wrong dtype, rank or dim (naming the input, the expected and the given value); an unknown
  // output name; kRuntimeError from a kernel, prefixed with its node; kDeadlineExceeded and
  // kOutOfMemory past a run limit (SessionOptions::run_time_limit_ms, loop_trip_limit,
  // run_memory_limit_bytes). After any error the session stays usable.
  // Errors also: an output that is a sequence, a map or an empty optional (kInvalidArgument: use
  // RunValues).
  virtual Result<std::vector<NamedTensor>> Run(const std::vector<NamedTensor>& inputs,
                                               const std::vector<std::string>& output_names = {}) = 0;

  // Run for models with sequence, optional or map inputs and outputs. Each input's kind must fit
  // its declaration (ValueInfo::kind): a tensor for kTensor, a sequence whose element dtype is
  // the declared one for kSequence (a sequence of maps when ValueInfo::map_key is set), a map
  // with the declared key and value dtypes for kMap, and for kOptional either Value::None() or
  // the value it holds. Tensors (and sequence elements) are checked against declared dtypes;
  // tensor shapes against declared fixed dims. Outputs come back in the order asked: tensors,
  // sequences, maps, sequences of maps, or Value::None() for an optional output that holds
  // nothing. Output buffers never alias the
  // inputs' buffers. Errors: those of Run, plus an input of the wrong kind (kInvalidArgument,
  // naming the input, the declared type and the value given).
  virtual Result<std::vector<NamedValue>> RunValues(
      const std::vector<NamedValue>& inputs, const std::vector<std::string>& output_names = {}) = 0;
  // RunValues with per-call options (a terminate flag). Errors: those of RunValues, and
  // kRuntimeError when `options.terminate` stops the run.
  virtual Result<std::vector<NamedValue>> RunValues(const std::vector<NamedValue>& inputs,
                                                    const std::vector<std::string>& output_names,
                                                    const RunOptions& options) = 0;

  // The graph inputs that have an initializer (callers may feed them to override it), in model
  // order, with declared dtypes and shapes. Empty for most models (IR >= 4 exporters list
  // weights as initializers only).
  virtual std::vector<ValueInfo> OverridableInitializers() const = 0;
  // The model's metadata.
  virtual ModelMetadata Metadata() const = 0;

  // The optimisation passes that ran at creation, in order, with their rewrite counts.
  virtual std::vector<OptimizerPassStats> OptimizerPasses() const = 0;
  // Per-step statistics summed over all runs so far: the main graph's steps in plan order, then
  // the steps of each control-flow body, a body's steps after those of the graph that holds it
  // (depth first, in plan and attribute order); KernelStats::parent links each body's steps to
  // their control-flow step.
  virtual std::vector<KernelStats> Stats() const = 0;
  // A human-readable placement: PlacementReportText(Placement()).
  virtual std::string PlacementSummary() const = 0;
  // The placement the session runs (nxrt/placement.h): the passes that ran, per graph each EP's
  // claims, the nodes the runtime runs, every EP's reason for each node it declined, and the
  // warnings. The same report ExplainPlacement gives for the same model and options; after a
  // plugin EP is dropped while running, the placement the session runs now.
  virtual PlacementReport Placement() const = 0;
  // What went wrong without failing the session: plugin EPs dropped with the reason, one line
  // each (empty when none).
  virtual std::vector<std::string> Warnings() const = 0;
  // The spans recorded since creation (or the previous call) as Chrome trace JSON (the
  // "traceEvents" format chrome://tracing and Perfetto read): a complete event ("ph": "X") per
  // run ("name" "run", "cat" "session", "args" the run's number from 1 and whether it
  // succeeded) and one per step run, control-flow bodies' steps included (inside the span of
  // their control-flow step), "cat" the EP name and "args" the op type, EP, device, step, the
  // graph's label (PlacementReport) and the "inputs" and "outputs" as "float[1,512]" ("" for an
  // omitted one). Times are microseconds since the session was created; "tid" numbers the
  // calling thread; metadata events name the process and threads. Errors: kFailedPrecondition
  // when the session was created without enable_profiling.
  virtual Result<std::string> EndProfiling() = 0;
};

}  // namespace nxrt
