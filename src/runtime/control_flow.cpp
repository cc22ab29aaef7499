// runtime/control_flow.cpp: If, Loop and Scan steps (see control_flow.h).
#include "runtime/control_flow.h"

#include <cstring>

namespace nxrt::runtime {
namespace {

// Copies `count` elements of `dtype` (std::string objects for kString).
void CopyElements(DataType dtype, const void* src, void* dst, int64_t count) {
  if (dtype == DataType::kString) {
    const auto* s = static_cast<const std::string*>(src);
    auto* d = static_cast<std::string*>(dst);
    for (int64_t i = 0; i < count; ++i) d[i] = s[i];
    return;
  }
  std::memcpy(dst, src, static_cast<size_t>(count) * DataTypeSize(dtype));
}

int64_t Product(const Shape& shape, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= shape[i];
  return p;
}

// A subgraph plan with its lazily created instance.
class SubgraphRunner {
 public:
  explicit SubgraphRunner(SubgraphPlan sub) : sub_(std::move(sub)) {}

  // Runs the subgraph with `graph_inputs` (one per plan input, in order; undefined = omitted)
  // and the enclosing step's inputs for outer-scope values. Returns owned outputs.
  Result<std::vector<Tensor>> Run(std::span<const Tensor* const> step_inputs,
                                  std::vector<Tensor> graph_inputs, ThreadPool& pool) {
    const GraphPlan& plan = *sub_.plan;
    if (!instance_) {
      NXRT_ASSIGN_OR_RETURN(instance_, PlanInstance::Create(plan));
    }
    if (graph_inputs.size() != plan.inputs.size()) {
      return MakeStatus(StatusCode::kInvalidModel, "subgraph '", plan.graph->name, "' has ",
                        plan.inputs.size(), " inputs, but ", graph_inputs.size(),
                        " values are passed to it");
    }
    std::vector<Tensor> values(plan.values.size());
    for (size_t i = 0; i < plan.inputs.size(); ++i) {
      values[plan.inputs[i]] = std::move(graph_inputs[i]);
    }
    for (const auto& [value, index] : sub_.outer_bindings) {
      if (step_inputs[index] != nullptr) values[value] = *step_inputs[index];
    }
    NXRT_RETURN_IF_ERROR(instance_->Run(values, pool, {}).WithContext(
        "in subgraph '" + plan.graph->name + "'"));
    std::vector<Tensor> outputs;
    outputs.reserve(plan.outputs.size());
    for (ir::ValueId v : plan.outputs) {
      Tensor& t = values[v];
      if (!t.defined()) {
        return MakeStatus(StatusCode::kRuntimeError, "subgraph '", plan.graph->name,
                          "' output '", plan.graph->values[v].name, "' has no value");
      }
      // Outputs that are inputs, initializers or outer values are borrowed: copy them.
      if (plan.values[v].source != ValueSource::kStep) {
        NXRT_ASSIGN_OR_RETURN(Tensor copy, t.Clone());
        outputs.push_back(std::move(copy));
      } else {
        outputs.push_back(std::move(t));
      }
    }
    return outputs;
  }

 private:
  SubgraphPlan sub_;
  std::unique_ptr<PlanInstance> instance_;
};

Result<bool> ReadBool(const Tensor* t, std::string_view what) {
  if (t == nullptr || t->dtype() != DataType::kBool || t->element_count() != 1) {
    return MakeStatus(StatusCode::kInvalidArgument, what, " must be a bool tensor with one ",
                      "element, got ", t ? t->Description() : std::string("nothing"));
  }
  return *t->data<bool>();
}

// Stacks `items` (equal dtypes and shapes) along a new axis `axis`, in reverse order when
// `reverse`.
Result<Tensor> Stack(const std::vector<Tensor>& items, int64_t axis, bool reverse,
                     std::string_view what) {
  const Tensor& first = items.front();
  for (const Tensor& t : items) {
    if (t.dtype() != first.dtype() || t.shape() != first.shape()) {
      return MakeStatus(StatusCode::kRuntimeError, what, " changes from ", first.Description(),
                        " to ", t.Description(), " between iterations");
    }
  }
  if (axis < 0 || axis > static_cast<int64_t>(first.rank())) {
    return MakeStatus(StatusCode::kInvalidModel, what, " axis ", axis, " is out of range for rank ",
                      first.rank() + 1);
  }
  Shape shape = first.shape();
  shape.insert(shape.begin() + axis, static_cast<int64_t>(items.size()));
  NXRT_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(first.dtype(), shape));
  const int64_t outer = Product(first.shape(), 0, static_cast<size_t>(axis));
  const int64_t inner = Product(first.shape(), static_cast<size_t>(axis), first.rank());
  const size_t elem = DataTypeSize(first.dtype());
  const int64_t n = static_cast<int64_t>(items.size());
  for (int64_t j = 0; j < n; ++j) {
    const Tensor& item = items[reverse ? n - 1 - j : j];
    for (int64_t o = 0; o < outer; ++o) {
      CopyElements(first.dtype(), static_cast<const char*>(item.raw_data()) + o * inner * elem,
                   static_cast<char*>(out.mutable_raw_data()) + (o * n + j) * inner * elem, inner);
    }
  }
  return out;
}

// Slice `index` of `t` along `axis`, without that axis.
Result<Tensor> SliceAxis(const Tensor& t, int64_t axis, int64_t index) {
  Shape shape = t.shape();
  const int64_t n = shape[axis];
  shape.erase(shape.begin() + axis);
  NXRT_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(t.dtype(), shape));
  const int64_t outer = Product(t.shape(), 0, static_cast<size_t>(axis));
  const int64_t inner = Product(t.shape(), static_cast<size_t>(axis) + 1, t.rank());
  const size_t elem = DataTypeSize(t.dtype());
  for (int64_t o = 0; o < outer; ++o) {
    CopyElements(t.dtype(), static_cast<const char*>(t.raw_data()) + (o * n + index) * inner * elem,
                 static_cast<char*>(out.mutable_raw_data()) + o * inner * elem, inner);
  }
  return out;
}

class IfStep final : public ControlFlowStep {
 public:
  IfStep(SubgraphPlan then_branch, SubgraphPlan else_branch)
      : then_(std::move(then_branch)), else_(std::move(else_branch)) {}

  Status Run(std::span<const Tensor* const> inputs, std::vector<Tensor>& outputs,
             ThreadPool& pool) override {
    NXRT_ASSIGN_OR_RETURN(bool cond, ReadBool(inputs[0], "input 0 'cond'"));
    NXRT_ASSIGN_OR_RETURN(std::vector<Tensor> result,
                          (cond ? then_ : else_).Run(inputs, {}, pool));
    if (result.size() != outputs.size()) {
      return MakeStatus(StatusCode::kInvalidModel, cond ? "then_branch" : "else_branch", " has ",
                        result.size(), " outputs, the If node has ", outputs.size());
    }
    for (size_t i = 0; i < outputs.size(); ++i) outputs[i] = std::move(result[i]);
    return Status::Ok();
  }

 private:
  SubgraphRunner then_;
  SubgraphRunner else_;
};

class LoopStep final : public ControlFlowStep {
 public:
  LoopStep(SubgraphPlan body, size_t explicit_inputs, std::vector<DataType> scan_dtypes)
      : body_(std::move(body)), explicit_inputs_(explicit_inputs),
        scan_dtypes_(std::move(scan_dtypes)) {}

  Status Run(std::span<const Tensor* const> inputs, std::vector<Tensor>& outputs,
             ThreadPool& pool) override {
    int64_t max_trips = -1;  // -1: no limit
    if (explicit_inputs_ > 0 && inputs[0] != nullptr) {
      const Tensor& m = *inputs[0];
      if (m.dtype() != DataType::kInt64 || m.element_count() != 1) {
        return MakeStatus(StatusCode::kInvalidArgument, "input 0 'M' must be an int64 tensor ",
                          "with one element, got ", m.Description());
      }
      max_trips = *m.data<int64_t>();
    }
    bool cond = true;
    if (explicit_inputs_ > 1 && inputs[1] != nullptr) {
      NXRT_ASSIGN_OR_RETURN(cond, ReadBool(inputs[1], "input 1 'cond'"));
    }
    const size_t carried = explicit_inputs_ > 2 ? explicit_inputs_ - 2 : 0;
    std::vector<Tensor> state(carried);
    for (size_t i = 0; i < carried; ++i) {
      if (inputs[2 + i] == nullptr) {
        return MakeStatus(StatusCode::kInvalidModel, "loop-carried input ", 2 + i, " is omitted");
      }
      state[i] = *inputs[2 + i];
    }
    if (outputs.size() < carried) {
      return MakeStatus(StatusCode::kInvalidModel, "Loop has ", carried,
                        " loop-carried inputs but only ", outputs.size(), " outputs");
    }
    const size_t scan_count = outputs.size() - carried;
    std::vector<std::vector<Tensor>> scans(scan_count);
    for (int64_t it = 0; (max_trips < 0 || it < max_trips) && cond; ++it) {
      std::vector<Tensor> body_inputs;
      body_inputs.push_back(Tensor::Scalar<int64_t>(it));
      body_inputs.push_back(Tensor::Scalar<bool>(cond));
      for (const Tensor& s : state) body_inputs.push_back(s);
      NXRT_ASSIGN_OR_RETURN(std::vector<Tensor> result,
                            body_.Run(inputs, std::move(body_inputs), pool));
      if (result.size() != 1 + carried + scan_count) {
        return MakeStatus(StatusCode::kInvalidModel, "Loop body has ", result.size(),
                          " outputs, expected 1 + ", carried, " + ", scan_count);
      }
      NXRT_ASSIGN_OR_RETURN(cond, ReadBool(&result[0], "body output 0 'cond'"));
      for (size_t i = 0; i < carried; ++i) state[i] = std::move(result[1 + i]);
      for (size_t k = 0; k < scan_count; ++k) scans[k].push_back(std::move(result[1 + carried + k]));
    }
    for (size_t i = 0; i < carried; ++i) outputs[i] = std::move(state[i]);
    for (size_t k = 0; k < scan_count; ++k) {
      if (scans[k].empty()) {
        // Zero iterations: an empty tensor; the element shape is unknown, so rank 1.
        const DataType dt = k < scan_dtypes_.size() && scan_dtypes_[k] != DataType::kUndefined
                                ? scan_dtypes_[k]
                                : DataType::kFloat;
        NXRT_ASSIGN_OR_RETURN(outputs[carried + k], Tensor::Allocate(dt, {0}));
        continue;
      }
      NXRT_ASSIGN_OR_RETURN(outputs[carried + k],
                            Stack(scans[k], 0, false, "Loop scan output " + std::to_string(k)));
    }
    return Status::Ok();
  }

 private:
  SubgraphRunner body_;
  size_t explicit_inputs_;
  std::vector<DataType> scan_dtypes_;
};

class ScanStep final : public ControlFlowStep {
 public:
  ScanStep(SubgraphPlan body, ScanAttributes attrs, size_t explicit_inputs)
      : body_(std::move(body)), attrs_(std::move(attrs)), explicit_inputs_(explicit_inputs) {}

  Status Run(std::span<const Tensor* const> inputs, std::vector<Tensor>& outputs,
             ThreadPool& pool) override {
    const size_t m = static_cast<size_t>(attrs_.num_scan_inputs);
    if (m == 0 || m > explicit_inputs_) {
      return MakeStatus(StatusCode::kInvalidModel, "num_scan_inputs = ", m, " but the node has ",
                        explicit_inputs_, " inputs");
    }
    const size_t n = explicit_inputs_ - m;
    std::vector<Tensor> state(n);
    for (size_t i = 0; i < n; ++i) state[i] = *inputs[i];
    int64_t length = -1;
    for (size_t j = 0; j < m; ++j) {
      const Tensor& x = *inputs[n + j];
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
    const size_t k_count = outputs.size() - n;
    std::vector<std::vector<Tensor>> scans(k_count);
    for (int64_t it = 0; it < length; ++it) {
      std::vector<Tensor> body_inputs = state;
      for (size_t j = 0; j < m; ++j) {
        const int64_t index = attrs_.input_directions[j] == 1 ? length - 1 - it : it;
        NXRT_ASSIGN_OR_RETURN(Tensor slice,
                              SliceAxis(*inputs[n + j], attrs_.input_axes[j], index));
        body_inputs.push_back(std::move(slice));
      }
      NXRT_ASSIGN_OR_RETURN(std::vector<Tensor> result,
                            body_.Run(inputs, std::move(body_inputs), pool));
      if (result.size() != n + k_count) {
        return MakeStatus(StatusCode::kInvalidModel, "Scan body has ", result.size(),
                          " outputs, expected ", n + k_count);
      }
      for (size_t i = 0; i < n; ++i) state[i] = std::move(result[i]);
      for (size_t k = 0; k < k_count; ++k) scans[k].push_back(std::move(result[n + k]));
    }
    for (size_t i = 0; i < n; ++i) outputs[i] = std::move(state[i]);
    for (size_t k = 0; k < k_count; ++k) {
      if (scans[k].empty()) {
        return MakeStatus(StatusCode::kNotImplemented, "Scan with zero iterations: the shape of ",
                          "scan output ", k, " cannot be derived");
      }
      NXRT_ASSIGN_OR_RETURN(outputs[n + k],
                            Stack(scans[k], attrs_.output_axes[k], attrs_.output_directions[k] == 1,
                                  "Scan output " + std::to_string(k)));
    }
    return Status::Ok();
  }

 private:
  SubgraphRunner body_;
  ScanAttributes attrs_;
  size_t explicit_inputs_;
};

}  // namespace

ControlFlowFactory MakeIfStep(SubgraphPlan then_branch, SubgraphPlan else_branch) {
  return [then_branch = std::move(then_branch), else_branch = std::move(else_branch)] {
    return std::unique_ptr<ControlFlowStep>(new IfStep(then_branch, else_branch));
  };
}

ControlFlowFactory MakeLoopStep(SubgraphPlan body, size_t explicit_inputs,
                                std::vector<DataType> scan_dtypes) {
  return [body = std::move(body), explicit_inputs, scan_dtypes = std::move(scan_dtypes)] {
    return std::unique_ptr<ControlFlowStep>(new LoopStep(body, explicit_inputs, scan_dtypes));
  };
}

ControlFlowFactory MakeScanStep(SubgraphPlan body, ScanAttributes attributes,
                                size_t explicit_inputs) {
  return [body = std::move(body), attributes = std::move(attributes), explicit_inputs] {
    return std::unique_ptr<ControlFlowStep>(new ScanStep(body, attributes, explicit_inputs));
  };
}

}  // namespace nxrt::runtime
