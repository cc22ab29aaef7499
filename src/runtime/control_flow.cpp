// runtime/control_flow.cpp: If, Loop and Scan steps (see control_flow.h).
#include "runtime/control_flow.h"

#include <algorithm>

#include "runtime/executor.h"
#include "runtime/tensor_copy.h"

namespace nxrt::runtime {

bool IsControlFlowOp(std::string_view domain, std::string_view op_type) {
  return IsClaimableControlFlowOp(domain, op_type) || (domain.empty() && op_type == "SequenceMap");
}

bool IsClaimableControlFlowOp(std::string_view domain, std::string_view op_type) {
  return domain.empty() && (op_type == "If" || op_type == "Loop" || op_type == "Scan");
}

namespace {

// A subgraph plan with its lazily created instance.
class SubgraphRunner {
 public:
  explicit SubgraphRunner(SubgraphPlan sub) : sub_(std::move(sub)) {}

  // Runs the subgraph with `graph_inputs` (one per plan input, in order; unset = omitted)
  // and the enclosing step's inputs for outer-scope values, recording its steps in `record`.
  // Fills `outputs` (resized to the plan's outputs) with values that own their buffers.
  Status Run(std::span<const Value* const> step_inputs, std::span<Value> graph_inputs,
             std::vector<Value>& outputs, ThreadPool& pool, const RunRecord& record) {
    const GraphPlan& plan = *sub_.plan;
    if (!instance_) {
      NXRT_ASSIGN_OR_RETURN(instance_, PlanInstance::Create(plan));
    }
    if (graph_inputs.size() != plan.inputs.size()) {
      return MakeStatus(StatusCode::kInvalidModel, "subgraph '", plan.graph->name, "' has ",
                        plan.inputs.size(), " inputs, but ", graph_inputs.size(),
                        " values are passed to it");
    }
    std::vector<Value>& values = instance_->values();
    for (size_t i = 0; i < plan.inputs.size(); ++i) {
      values[plan.inputs[i]] = std::move(graph_inputs[i]);
    }
    for (const auto& [value, index] : sub_.outer_bindings) {
      if (plan.values[value].constant_outer && values[value].defined()) continue;  // kept bound
      if (step_inputs[index] != nullptr) values[value] = *step_inputs[index];
    }
    Status status = instance_->Run(pool, record);
    outputs.resize(plan.outputs.size());
    for (size_t k = 0; k < plan.outputs.size() && status.ok(); ++k) {
      const ir::ValueId v = plan.outputs[k];
      Value& value = values[v];
      if (!value.defined()) {
        status = MakeStatus(StatusCode::kRuntimeError, "subgraph '", plan.graph->name,
                            "' output '", plan.ValueName(v), "' has no value");
      } else if (plan.values[v].source != ValueSource::kStep && value.is_tensor()) {
        // Tensors that are inputs, initializers or outer values may be borrowed: copy them.
        Result<Tensor> copy = value.tensor().Clone();
        if (copy.ok()) {
          outputs[k] = Value(std::move(copy).value());
        } else {
          status = copy.status();
        }
      } else if (plan.values[v].source == ValueSource::kStep &&
                 std::find(plan.outputs.begin() + k + 1, plan.outputs.end(), v) ==
                     plan.outputs.end()) {
        outputs[k] = std::move(value);  // its last listing as an output
        value = Value();
      } else {
        outputs[k] = value;
      }
    }
    instance_->ReleaseBindings();
    if (!status.ok()) return status.WithContext("in subgraph '" + plan.graph->name + "'");
    return status;
  }

 private:
  SubgraphPlan sub_;
  std::unique_ptr<PlanInstance> instance_;
};

Result<bool> ReadBool(const Value* v, std::string_view what) {
  const Tensor* t = v != nullptr && v->is_tensor() ? &v->tensor() : nullptr;
  if (t == nullptr || t->dtype() != DataType::kBool || t->element_count() != 1) {
    return MakeStatus(StatusCode::kInvalidArgument, what, " must be a bool tensor with one ",
                      "element, got ", v ? v->Description() : std::string("nothing"));
  }
  return *t->data<bool>();
}

// The bytes a Loop or Scan holds in its scan outputs between iterations, charged to the run's
// memory limit as they grow and released when the step ends (its stacked outputs are then
// charged by the executor).
class ScanCharge {
 public:
  explicit ScanCharge(RunLimits* limits) : limits_(limits) {}
  ScanCharge(const ScanCharge&) = delete;
  ScanCharge& operator=(const ScanCharge&) = delete;
  ~ScanCharge() {
    if (limits_ != nullptr) limits_->Release(bytes_);
  }
  // Charges `value`, scan output `k` of iteration `it`, or fails naming them.
  Status Add(const Value& value, size_t k, int64_t it) {
    if (limits_ == nullptr || limits_->memory_limit_bytes <= 0) return Status::Ok();
    const int64_t bytes = ValueBytes(value);
    if (!limits_->TryCharge(bytes)) {
      return limits_->OverMemoryLimit(
          bytes, "scan output " + std::to_string(k) + " of iteration " + std::to_string(it) +
                     " (" + value.Description() + ", kept until the scan outputs are stacked)");
    }
    bytes_ += bytes;
    return Status::Ok();
  }

 private:
  RunLimits* limits_;
  int64_t bytes_ = 0;
};

// Before iteration `it` of a Loop (`loop`) or Scan: the run's terminate flag, deadline and, for
// a Loop, trip limit.
Status CheckIteration(const RunRecord& record, int64_t it, bool loop) {
  if (record.limits == nullptr) return Status::Ok();
  if (loop) NXRT_RETURN_IF_ERROR(record.limits->CheckLoopTrip(it, "the Loop"));
  return record.limits->CheckStop("iteration " + std::to_string(it));
}

// Stacks `items` (tensors of equal dtypes and shapes) along a new axis `axis`, in reverse order
// when `reverse`.
Result<Tensor> Stack(const std::vector<Value>& items, int64_t axis, bool reverse,
                     std::string_view what) {
  const Tensor& first = items.front().tensor();
  std::vector<Tensor> unit;  // each item with a dim of 1 inserted at `axis`
  unit.reserve(items.size());
  for (const Value& v : items) {
    const Tensor& t = v.tensor();
    if (!v.is_tensor() || t.dtype() != first.dtype() || t.shape() != first.shape()) {
      return MakeStatus(StatusCode::kRuntimeError, what, " changes from ", first.Description(),
                        " to ", v.Description(), " between iterations; it must be a tensor of ",
                        "one dtype and shape");
    }
    if (axis < 0 || axis > static_cast<int64_t>(first.rank())) {
      return MakeStatus(StatusCode::kInvalidModel, what, " axis ", axis,
                        " is out of range for rank ", first.rank() + 1);
    }
    Shape shape = t.shape();
    shape.insert(shape.begin() + axis, 1);
    NXRT_ASSIGN_OR_RETURN(Tensor c, t.is_contiguous() ? t : t.Clone());
    NXRT_ASSIGN_OR_RETURN(Tensor r, c.Reshaped(std::move(shape)));
    unit.push_back(std::move(r));
  }
  if (reverse) std::reverse(unit.begin(), unit.end());
  return ConcatAlongAxis(unit, axis);
}

// Slice `index` of `t` along `axis`, without that axis.
Result<Tensor> SliceAxis(const Tensor& t, int64_t axis, int64_t index) {
  NXRT_ASSIGN_OR_RETURN(Tensor slice, SliceAlongAxis(t, axis, index, 1));
  Shape shape = t.shape();
  shape.erase(shape.begin() + axis);
  return slice.Reshaped(std::move(shape));
}

class IfStep final : public RuntimeStep {
 public:
  IfStep(SubgraphPlan then_branch, SubgraphPlan else_branch)
      : then_(std::move(then_branch)), else_(std::move(else_branch)) {}

  Status Run(std::span<const Value* const> inputs, std::vector<Value>& outputs,
             ThreadPool& pool, const RunRecord& record) override {
    NXRT_ASSIGN_OR_RETURN(bool cond, ReadBool(inputs[0], "input 0 'cond'"));
    std::vector<Value>& result = result_;
    Status status = (cond ? then_ : else_).Run(inputs, {}, result, pool, record);
    if (status.ok() && result.size() != outputs.size()) {
      status = MakeStatus(StatusCode::kInvalidModel, cond ? "then_branch" : "else_branch",
                          " has ", result.size(), " outputs, the If node has ", outputs.size());
    }
    for (size_t i = 0; i < result.size(); ++i) {
      if (status.ok()) outputs[i] = std::move(result[i]);
      result[i] = Value();
    }
    return status;
  }

 private:
  SubgraphRunner then_;
  SubgraphRunner else_;
  std::vector<Value> result_;  // the branch's outputs; unset between runs
};

// The per-iteration tensors `items` (one dtype and shape) stacked along a new axis 0 by
// `concat` (an EP's ControlFlowHelpers::concat).
Result<Tensor> StackWith(const decltype(ControlFlowHelpers::concat)& concat, const std::vector<Value>& items,
                         std::string_view what) {
  const Value& first = items.front();
  std::vector<Tensor> owned;
  owned.reserve(items.size());
  std::vector<const Tensor*> parts;
  for (const Value& v : items) {
    if (!v.is_tensor() || !first.is_tensor() || v.tensor().dtype() != first.tensor().dtype() ||
        v.tensor().shape() != first.tensor().shape()) {
      return MakeStatus(StatusCode::kRuntimeError, what, " changes from ", first.Description(),
                        " to ", v.Description(), " between iterations; it must be a tensor of ",
                        "one dtype and shape");
    }
    if (v.tensor().is_contiguous()) {
      parts.push_back(&v.tensor());
      continue;
    }
    NXRT_ASSIGN_OR_RETURN(Tensor c, v.tensor().Clone());
    owned.push_back(std::move(c));
    parts.push_back(&owned.back());
  }
  Shape shape = first.tensor().shape();
  shape.insert(shape.begin(), static_cast<int64_t>(items.size()));
  NXRT_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(first.tensor().dtype(), std::move(shape)));
  NXRT_RETURN_IF_ERROR(concat(parts, out.mutable_raw_data(), out.byte_size()));
  return out;
}

// `t` transposed by `perm` (output dim i is input dim perm[i]) by `transpose` (an EP's
// ControlFlowHelpers::transpose).
Result<Tensor> TransposeWith(const decltype(ControlFlowHelpers::transpose)& transpose, const Tensor& t,
                             const std::vector<size_t>& perm) {
  Shape shape(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) shape[i] = t.shape()[perm[i]];
  NXRT_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(t.dtype(), std::move(shape)));
  NXRT_ASSIGN_OR_RETURN(Tensor in, t.is_contiguous() ? Result<Tensor>(t) : t.Clone());
  NXRT_RETURN_IF_ERROR(transpose(perm, in, out));
  return out;
}

class LoopStep final : public RuntimeStep {
 public:
  LoopStep(SubgraphPlan body, size_t explicit_inputs, std::vector<LoopScanType> scan_types,
           ControlFlowHelpers helpers)
      : body_(std::move(body)), explicit_inputs_(explicit_inputs),
        scan_types_(std::move(scan_types)), helpers_(std::move(helpers)) {}

  Status Run(std::span<const Value* const> inputs, std::vector<Value>& outputs,
             ThreadPool& pool, const RunRecord& record) override {
    int64_t max_trips = -1;  // -1: no limit
    if (explicit_inputs_ > 0 && inputs[0] != nullptr) {
      const Tensor& m = inputs[0]->tensor();
      if (m.dtype() != DataType::kInt64 || m.element_count() != 1) {
        return MakeStatus(StatusCode::kInvalidArgument, "input 0 'M' must be an int64 tensor ",
                          "with one element, got ", inputs[0]->Description());
      }
      max_trips = *m.data<int64_t>();
    }
    bool cond = true;
    if (explicit_inputs_ > 1 && inputs[1] != nullptr) {
      NXRT_ASSIGN_OR_RETURN(cond, ReadBool(inputs[1], "input 1 'cond'"));
    }
    const size_t carried = explicit_inputs_ > 2 ? explicit_inputs_ - 2 : 0;
    std::vector<Value> state(carried);
    for (size_t i = 0; i < carried; ++i) {
      if (inputs[2 + i] == nullptr) {
        return MakeStatus(StatusCode::kInvalidModel, "loop-carried input ", 2 + i, " is omitted");
      }
      // Owned, because a loop that runs zero times outputs it.
      NXRT_ASSIGN_OR_RETURN(state[i], OwnBuffers(*inputs[2 + i]));
    }
    if (outputs.size() < carried) {
      return MakeStatus(StatusCode::kInvalidModel, "Loop has ", carried,
                        " loop-carried inputs but only ", outputs.size(), " outputs");
    }
    const size_t scan_count = outputs.size() - carried;
    std::vector<std::vector<Value>> scans(scan_count);
    ScanCharge scan_charge(record.limits);
    for (int64_t it = 0; (max_trips < 0 || it < max_trips) && cond; ++it) {
      NXRT_RETURN_IF_ERROR(CheckIteration(record, it, /*loop=*/true));
      std::vector<Value> body_inputs;
      body_inputs.emplace_back(Tensor::Scalar<int64_t>(it));
      body_inputs.emplace_back(Tensor::Scalar<bool>(cond));
      for (const Value& s : state) body_inputs.push_back(s);
      std::vector<Value> result;
      NXRT_RETURN_IF_ERROR(body_.Run(inputs, body_inputs, result, pool, record));
      if (result.size() != 1 + carried + scan_count) {
        return MakeStatus(StatusCode::kInvalidModel, "Loop body has ", result.size(),
                          " outputs, expected 1 + ", carried, " + ", scan_count);
      }
      NXRT_ASSIGN_OR_RETURN(cond, ReadBool(&result[0], "body output 0 'cond'"));
      for (size_t i = 0; i < carried; ++i) state[i] = std::move(result[1 + i]);
      for (size_t k = 0; k < scan_count; ++k) {
        NXRT_RETURN_IF_ERROR(scan_charge.Add(result[1 + carried + k], k, it));
        scans[k].push_back(std::move(result[1 + carried + k]));
      }
    }
    for (size_t i = 0; i < carried; ++i) outputs[i] = std::move(state[i]);
    for (size_t k = 0; k < scan_count; ++k) {
      if (scans[k].empty()) {
        // Zero iterations: [0, element dims...] from the body's declared output (LoopScanType).
        const LoopScanType type = k < scan_types_.size() ? scan_types_[k] : LoopScanType{};
        Shape shape = {0};
        if (type.element_shape) {
          for (int64_t d : *type.element_shape) shape.push_back(std::max<int64_t>(d, 0));
        }
        const DataType dt = type.dtype != DataType::kUndefined ? type.dtype : DataType::kFloat;
        NXRT_ASSIGN_OR_RETURN(outputs[carried + k], Tensor::Allocate(dt, std::move(shape)));
        continue;
      }
      const std::string what = "Loop scan output " + std::to_string(k);
      if (helpers_.concat) {
        NXRT_ASSIGN_OR_RETURN(outputs[carried + k], StackWith(helpers_.concat, scans[k], what));
      } else {
        NXRT_ASSIGN_OR_RETURN(outputs[carried + k], Stack(scans[k], 0, false, what));
      }
    }
    return Status::Ok();
  }

 private:
  SubgraphRunner body_;
  size_t explicit_inputs_;
  std::vector<LoopScanType> scan_types_;
  ControlFlowHelpers helpers_;
};

class ScanStep final : public RuntimeStep {
 public:
  // The node's inputs from `first_input` on are the states and scan inputs (Scan-8 has
  // sequence_lens before them).
  ScanStep(SubgraphPlan body, ScanAttributes attrs, size_t explicit_inputs,
           size_t first_input = 0, ControlFlowHelpers helpers = {})
      : body_(std::move(body)), attrs_(std::move(attrs)), explicit_inputs_(explicit_inputs),
        first_(first_input), helpers_(std::move(helpers)) {}

  Status Run(std::span<const Value* const> inputs, std::vector<Value>& outputs,
             ThreadPool& pool, const RunRecord& record) override {
    const size_t m = static_cast<size_t>(attrs_.num_scan_inputs);
    if (m == 0 || m + first_ > explicit_inputs_) {
      return MakeStatus(StatusCode::kInvalidModel, "num_scan_inputs = ", m, " but the node has ",
                        explicit_inputs_, " inputs");
    }
    const size_t n = explicit_inputs_ - first_ - m;
    const auto own = inputs.subspan(first_);  // the states, then the scan inputs
    std::vector<Value> state(n);
    for (size_t i = 0; i < n + m; ++i) {
      if (own[i] == nullptr) {
        return MakeStatus(StatusCode::kInvalidModel, i < n ? "state" : "scan", " input ",
                          first_ + i, " is omitted (an empty name); Scan needs every input");
      }
    }
    for (size_t i = 0; i < n; ++i) {
      NXRT_ASSIGN_OR_RETURN(state[i], OwnBuffers(*own[i]));
    }
    int64_t length = -1;
    for (size_t j = 0; j < m; ++j) {
      if (!own[n + j]->is_tensor()) {
        return MakeStatus(StatusCode::kInvalidArgument, "scan input ", j, " is ",
                          own[n + j]->Description(), "; scan inputs must be tensors");
      }
      const Tensor& x = own[n + j]->tensor();
      const int64_t axis = attrs_.input_axes[j];
      if (axis >= static_cast<int64_t>(x.rank())) {
        return MakeStatus(StatusCode::kInvalidModel, "scan input ", j, " has rank ", x.rank(),
                          " but scan_input_axes says axis ", axis);
      }
      if (length >= 0 && x.shape()[axis] != length) {
        return MakeStatus(StatusCode::kInvalidArgument, "scan input ", j, " has ",
                          x.shape()[axis], " iterations along axis ", axis, ", expected ", length);
      }
      length = x.shape()[axis];
    }
    // With an EP's transpose (ORT's Scan kernel helper), a scan input whose axis is not 0 is
    // transposed once to put it first, as ORT's Scan does.
    std::vector<Tensor> scan_inputs(m);
    std::vector<int64_t> slice_axes(attrs_.input_axes.begin(), attrs_.input_axes.end());
    for (size_t j = 0; j < m; ++j) {
      scan_inputs[j] = own[n + j]->tensor();
      if (!helpers_.transpose || slice_axes[j] == 0) continue;
      std::vector<size_t> perm{static_cast<size_t>(slice_axes[j])};
      for (size_t d = 0; d < scan_inputs[j].rank(); ++d) {
        if (d != static_cast<size_t>(slice_axes[j])) perm.push_back(d);
      }
      NXRT_ASSIGN_OR_RETURN(scan_inputs[j],
                            TransposeWith(helpers_.transpose, scan_inputs[j], perm));
      slice_axes[j] = 0;
    }
    const size_t k_count = outputs.size() - n;
    std::vector<std::vector<Value>> scans(k_count);
    ScanCharge scan_charge(record.limits);
    for (int64_t it = 0; it < length; ++it) {
      NXRT_RETURN_IF_ERROR(CheckIteration(record, it, /*loop=*/false));
      std::vector<Value> body_inputs = state;
      for (size_t j = 0; j < m; ++j) {
        const int64_t index = attrs_.input_directions[j] == 1 ? length - 1 - it : it;
        NXRT_ASSIGN_OR_RETURN(Tensor slice, SliceAxis(scan_inputs[j], slice_axes[j], index));
        body_inputs.emplace_back(std::move(slice));
      }
      std::vector<Value> result;
      NXRT_RETURN_IF_ERROR(body_.Run(inputs, body_inputs, result, pool, record));
      if (result.size() != n + k_count) {
        return MakeStatus(StatusCode::kInvalidModel, "Scan body has ", result.size(),
                          " outputs, expected ", n + k_count);
      }
      for (size_t i = 0; i < n; ++i) state[i] = std::move(result[i]);
      for (size_t k = 0; k < k_count; ++k) {
        NXRT_RETURN_IF_ERROR(scan_charge.Add(result[n + k], k, it));
        scans[k].push_back(std::move(result[n + k]));
      }
    }
    for (size_t i = 0; i < n; ++i) outputs[i] = std::move(state[i]);
    for (size_t k = 0; k < k_count; ++k) {
      if (scans[k].empty()) {
        return MakeStatus(StatusCode::kNotImplemented, "Scan with zero iterations: the shape of ",
                          "scan output ", k, " cannot be derived");
      }
      const int64_t axis = attrs_.output_axes[k];
      const std::string what = "Scan output " + std::to_string(k);
      if (!helpers_.transpose || axis == 0) {
        NXRT_ASSIGN_OR_RETURN(outputs[n + k],
                              Stack(scans[k], axis, attrs_.output_directions[k] == 1, what));
        continue;
      }
      // Stacked along axis 0, then moved to `axis` by the EP's transpose, as ORT's Scan does.
      NXRT_ASSIGN_OR_RETURN(Tensor stacked,
                            Stack(scans[k], 0, attrs_.output_directions[k] == 1, what));
      if (axis >= static_cast<int64_t>(stacked.rank())) {
        return MakeStatus(StatusCode::kInvalidModel, what, " axis ", axis,
                          " is out of range for rank ", stacked.rank());
      }
      std::vector<size_t> perm;
      for (size_t d = 1; d <= static_cast<size_t>(axis); ++d) perm.push_back(d);
      perm.push_back(0);
      for (size_t d = static_cast<size_t>(axis) + 1; d < stacked.rank(); ++d) perm.push_back(d);
      NXRT_ASSIGN_OR_RETURN(outputs[n + k], TransposeWith(helpers_.transpose, stacked, perm));
    }
    return Status::Ok();
  }

 private:
  SubgraphRunner body_;
  ScanAttributes attrs_;
  size_t explicit_inputs_;
  size_t first_;
  ControlFlowHelpers helpers_;
};

// Scan-8: inputs are sequence_lens (optional int64 [batch]), N states [batch, ...] and M scan
// inputs [batch, sequence, ...]. Each batch entry runs as the later Scan over its slices (the
// first sequence_lens[b] steps, all when omitted) and the outputs are stacked along a new axis 0;
// scan outputs of entries shorter than the longest are padded with zeros (empty strings).
class BatchedScanStep final : public RuntimeStep {
 public:
  BatchedScanStep(SubgraphPlan body, ScanAttributes attrs, size_t explicit_inputs)
      : num_scan_inputs_(static_cast<size_t>(attrs.num_scan_inputs)),
        explicit_inputs_(explicit_inputs),
        scan_(std::move(body), std::move(attrs), explicit_inputs, /*first_input=*/1) {}

  Status Run(std::span<const Value* const> inputs, std::vector<Value>& outputs,
             ThreadPool& pool, const RunRecord& record) override {
    if (num_scan_inputs_ == 0 || num_scan_inputs_ + 1 > explicit_inputs_) {
      return MakeStatus(StatusCode::kInvalidModel, "num_scan_inputs = ", num_scan_inputs_,
                        " but the node has ", explicit_inputs_, " inputs");
    }
    const size_t n = explicit_inputs_ - 1 - num_scan_inputs_;
    int64_t batch = -1, steps = -1;
    for (size_t i = 1; i < explicit_inputs_; ++i) {
      const Value* v = inputs[i];
      const bool scan_input = i > n;
      if (v == nullptr || !v->is_tensor() || v->tensor().rank() < (scan_input ? 2u : 1u)) {
        return MakeStatus(StatusCode::kInvalidArgument, "input ", i, " is ",
                          v ? v->Description() : std::string("omitted"), "; Scan-8 needs ",
                          scan_input ? "[batch, sequence, ...] scan inputs" : "[batch, ...] states");
      }
      const Shape& shape = v->tensor().shape();
      if ((batch >= 0 && shape[0] != batch) || (scan_input && steps >= 0 && shape[1] != steps)) {
        return MakeStatus(StatusCode::kInvalidArgument, "input ", i, " has shape ",
                          ShapeToString(shape), ", but the others have batch ", batch,
                          " and sequence length ", steps);
      }
      batch = shape[0];
      if (scan_input) steps = shape[1];
    }
    std::vector<int64_t> lens(static_cast<size_t>(batch), steps);
    if (inputs[0] != nullptr) {
      const Value* v = inputs[0];
      if (!v->is_tensor() || v->tensor().dtype() != DataType::kInt64 ||
          v->tensor().shape() != Shape{batch}) {
        return MakeStatus(StatusCode::kInvalidArgument, "input 0 'sequence_lens' is ",
                          v->Description(), ", expected int64 [", batch, "]");
      }
      NXRT_ASSIGN_OR_RETURN(Tensor own, v->tensor().Clone());
      for (int64_t b = 0; b < batch; ++b) {
        lens[b] = own.data<int64_t>()[b];
        if (lens[b] < 0 || lens[b] > steps) {
          return MakeStatus(StatusCode::kInvalidArgument, "sequence_lens[", b, "] is ", lens[b],
                            ", expected a length in [0, ", steps, "]");
        }
      }
    }
    if (batch == 0) {
      return MakeStatus(StatusCode::kNotImplemented, "Scan-8 with batch size 0: the shapes of ",
                        "its outputs cannot be derived");
    }
    std::vector<std::vector<Value>> per_output(outputs.size());
    for (int64_t b = 0; b < batch; ++b) {
      std::vector<Value> slices(explicit_inputs_);
      std::vector<const Value*> entry(inputs.begin(), inputs.end());
      entry[0] = nullptr;
      for (size_t i = 1; i < explicit_inputs_; ++i) {
        NXRT_ASSIGN_OR_RETURN(Tensor slice, SliceAxis(inputs[i]->tensor(), 0, b));
        if (i > n && lens[b] < steps) {
          NXRT_ASSIGN_OR_RETURN(slice, SliceAlongAxis(slice, 0, 0, lens[b]));
        }
        slices[i] = Value(std::move(slice));
        entry[i] = &slices[i];
      }
      std::vector<Value> result(outputs.size());
      NXRT_RETURN_IF_ERROR(scan_.Run(entry, result, pool, record).WithContext(
          "batch entry " + std::to_string(b)));
      for (size_t k = 0; k < result.size(); ++k) {
        if (k >= n && lens[b] < steps) {
          const Tensor& t = result[k].tensor();
          Shape pad_shape = t.shape();
          pad_shape[0] = steps - lens[b];
          NXRT_ASSIGN_OR_RETURN(Tensor pad, Tensor::Allocate(t.dtype(), std::move(pad_shape)));
          NXRT_ASSIGN_OR_RETURN(Tensor padded, ConcatAlongAxis(std::vector<Tensor>{t, pad}, 0));
          result[k] = Value(std::move(padded));
        }
        per_output[k].push_back(std::move(result[k]));
      }
    }
    for (size_t k = 0; k < outputs.size(); ++k) {
      NXRT_ASSIGN_OR_RETURN(outputs[k],
                            Stack(per_output[k], 0, false, "Scan output " + std::to_string(k)));
    }
    return Status::Ok();
  }

 private:
  size_t num_scan_inputs_;
  size_t explicit_inputs_;
  ScanStep scan_;
};

class SequenceMapStep final : public RuntimeStep {
 public:
  SequenceMapStep(SubgraphPlan body, size_t explicit_inputs, std::vector<DataType> out_dtypes)
      : body_(std::move(body)), explicit_inputs_(explicit_inputs),
        out_dtypes_(std::move(out_dtypes)) {}

  Status Run(std::span<const Value* const> inputs, std::vector<Value>& outputs,
             ThreadPool& pool, const RunRecord& record) override {
    if (inputs[0] == nullptr || !inputs[0]->is_sequence()) {
      return MakeStatus(StatusCode::kInvalidArgument, "input 0 'input_sequence' must be a ",
                        "sequence, got ", inputs[0] ? inputs[0]->Description() : "nothing");
    }
    const size_t length = inputs[0]->sequence().size();
    for (size_t j = 1; j < explicit_inputs_; ++j) {
      const Value* in = inputs[j];
      if (in == nullptr || !(in->is_tensor() || in->is_sequence())) {
        return MakeStatus(StatusCode::kInvalidArgument, "additional input ", j, " is ",
                          in ? in->Description() : "omitted",
                          "; it must be a tensor or a sequence");
      }
      if (in->is_sequence() && in->sequence().size() != length) {
        return MakeStatus(StatusCode::kInvalidArgument, "input ", j, " is a sequence of ",
                          in->sequence().size(), " tensors, but input 0 has ", length,
                          "; sequences must have the same length");
      }
    }
    std::vector<std::vector<Tensor>> results(outputs.size());
    for (size_t i = 0; i < length; ++i) {
      std::vector<Value> body_inputs;
      for (size_t j = 0; j < explicit_inputs_; ++j) {
        if (inputs[j]->is_sequence()) {
          body_inputs.emplace_back(inputs[j]->sequence()[i]);
        } else {
          body_inputs.push_back(*inputs[j]);
        }
      }
      std::vector<Value> result;
      NXRT_RETURN_IF_ERROR(body_.Run(inputs, body_inputs, result, pool, record));
      if (result.size() != outputs.size()) {
        return MakeStatus(StatusCode::kInvalidModel, "SequenceMap body has ", result.size(),
                          " outputs, the node has ", outputs.size());
      }
      for (size_t k = 0; k < outputs.size(); ++k) {
        if (!result[k].is_tensor()) {
          return MakeStatus(StatusCode::kInvalidModel, "body output ", k, " is ",
                            result[k].Description(), "; SequenceMap collects tensors only");
        }
        results[k].push_back(result[k].tensor());
      }
    }
    for (size_t k = 0; k < outputs.size(); ++k) {
      DataType dtype = results[k].empty() ? out_dtypes_[k] : results[k].front().dtype();
      if (dtype == DataType::kUndefined) {
        return MakeStatus(StatusCode::kInvalidModel, "output ", k, " is an empty sequence whose ",
                          "element type the model does not declare; declare the output's type");
      }
      NXRT_ASSIGN_OR_RETURN(outputs[k], Value::Sequence(dtype, std::move(results[k])));
    }
    return Status::Ok();
  }

 private:
  SubgraphRunner body_;
  size_t explicit_inputs_;
  std::vector<DataType> out_dtypes_;
};

}  // namespace

RuntimeStepFactory MakeIfStep(SubgraphPlan then_branch, SubgraphPlan else_branch) {
  return [then_branch = std::move(then_branch), else_branch = std::move(else_branch)] {
    return std::unique_ptr<RuntimeStep>(new IfStep(then_branch, else_branch));
  };
}

RuntimeStepFactory MakeLoopStep(SubgraphPlan body, size_t explicit_inputs,
                                std::vector<LoopScanType> scan_types, ControlFlowHelpers helpers) {
  return [body = std::move(body), explicit_inputs, scan_types = std::move(scan_types),
          helpers = std::move(helpers)] {
    return std::unique_ptr<RuntimeStep>(new LoopStep(body, explicit_inputs, scan_types, helpers));
  };
}

RuntimeStepFactory MakeScanStep(SubgraphPlan body, ScanAttributes attributes,
                                size_t explicit_inputs, ControlFlowHelpers helpers) {
  return [body = std::move(body), attributes = std::move(attributes), explicit_inputs,
          helpers = std::move(helpers)] {
    if (attributes.batched) {
      return std::unique_ptr<RuntimeStep>(new BatchedScanStep(body, attributes, explicit_inputs));
    }
    return std::unique_ptr<RuntimeStep>(
        new ScanStep(body, attributes, explicit_inputs, 0, helpers));
  };
}

RuntimeStepFactory MakeSequenceMapStep(SubgraphPlan body, size_t explicit_inputs,
                                       std::vector<DataType> out_dtypes) {
  return [body = std::move(body), explicit_inputs, out_dtypes = std::move(out_dtypes)] {
    return std::unique_ptr<RuntimeStep>(new SequenceMapStep(body, explicit_inputs, out_dtypes));
  };
}

}  // namespace nxrt::runtime
