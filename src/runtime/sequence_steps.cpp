// runtime/sequence_steps.cpp: see sequence_steps.h.
#include "runtime/sequence_steps.h"

#include <algorithm>
#include <array>
#include <functional>

#include "runtime/tensor_copy.h"

namespace nxrt::runtime {
namespace {

using Inputs = std::span<const Value* const>;

// A stateless step: the same function for every PlanInstance.
class FunctionStep final : public RuntimeStep {
 public:
  explicit FunctionStep(std::shared_ptr<const StatelessStepFn> fn) : fn_(std::move(fn)) {}
  Status Run(Inputs inputs, std::vector<Value>& outputs, ThreadPool&,
             const RunRecord&) override {
    return (*fn_)(inputs, outputs);
  }

 private:
  std::shared_ptr<const StatelessStepFn> fn_;
};

const Value* InputAt(Inputs inputs, size_t i) { return i < inputs.size() ? inputs[i] : nullptr; }

// Input `i` as a sequence.
Result<const Value*> SequenceInput(Inputs inputs, size_t i, std::string_view name) {
  const Value* v = InputAt(inputs, i);
  if (v == nullptr || !v->is_sequence()) {
    return MakeStatus(StatusCode::kInvalidArgument, "input ", i, " '", name,
                      "' must be a sequence, got ", v ? v->Description() : "nothing");
  }
  return v;
}

// Input `i` as a tensor.
Result<const Tensor*> TensorInput(Inputs inputs, size_t i, std::string_view name) {
  const Value* v = InputAt(inputs, i);
  if (v == nullptr || !v->is_tensor()) {
    return MakeStatus(StatusCode::kInvalidArgument, "input ", i, " '", name,
                      "' must be a tensor, got ", v ? v->Description() : "nothing");
  }
  return &v->tensor();
}

// The one int32/int64 element of `t` as int64.
Result<int64_t> ReadIndex(const Tensor& t, std::string_view name) {
  if ((t.dtype() != DataType::kInt32 && t.dtype() != DataType::kInt64) || t.element_count() != 1) {
    return MakeStatus(StatusCode::kInvalidArgument, "'", name, "' must be an int32 or int64 ",
                      "scalar, got ", t.Description());
  }
  return t.dtype() == DataType::kInt32 ? int64_t{*t.data<int32_t>()} : *t.data<int64_t>();
}

// Position input `i` normalised against a sequence of `n` tensors: `fallback` when omitted;
// negative values count from the back; the range is [-n, n - 1], or [-n, n] when `allow_end`.
Result<int64_t> Position(Inputs inputs, size_t i, int64_t n, bool allow_end, int64_t fallback) {
  const Value* v = InputAt(inputs, i);
  if (v == nullptr) return fallback;
  NXRT_ASSIGN_OR_RETURN(const Tensor* t, TensorInput(inputs, i, "position"));
  NXRT_ASSIGN_OR_RETURN(int64_t p, ReadIndex(*t, "position"));
  const int64_t last = allow_end ? n : n - 1;
  if (p < -n || p > last) {
    return MakeStatus(StatusCode::kInvalidArgument, "position ", p, " is out of range [", -n,
                      ", ", last, "] for a sequence of ", n, " tensors");
  }
  return p < 0 ? p + n : p;
}

Result<Value> MakeSequence(DataType dtype, std::vector<Tensor> tensors) {
  for (Tensor& t : tensors) {
    NXRT_ASSIGN_OR_RETURN(Value owned, OwnBuffers(Value(t)));
    t = owned.tensor();
  }
  return Value::Sequence(dtype, std::move(tensors));
}

std::vector<Tensor> Elements(const Value& seq) {
  return std::vector<Tensor>(seq.sequence().begin(), seq.sequence().end());
}

// `axis` in [-rank, rank - 1] → [0, rank - 1].
Result<int64_t> NormalizeAxis(int64_t axis, int64_t rank, std::string_view what) {
  if (axis < -rank || axis >= rank) {
    return MakeStatus(StatusCode::kInvalidArgument, what, " ", axis, " is out of range [", -rank,
                      ", ", rank - 1, "]");
  }
  return axis < 0 ? axis + rank : axis;
}

Status SequenceConstruct(Inputs inputs, std::vector<Value>& outputs) {
  if (inputs.empty()) {
    return MakeStatus(StatusCode::kInvalidArgument, "SequenceConstruct needs at least one input");
  }
  std::vector<Tensor> tensors;
  for (size_t i = 0; i < inputs.size(); ++i) {
    NXRT_ASSIGN_OR_RETURN(const Tensor* t, TensorInput(inputs, i, "inputs"));
    if (!tensors.empty() && t->dtype() != tensors.front().dtype()) {
      return MakeStatus(StatusCode::kInvalidArgument, "input ", i, " is ", t->Description(),
                        " but input 0 is ", tensors.front().Description(),
                        "; a sequence holds tensors of one dtype");
    }
    tensors.push_back(*t);
  }
  const DataType dtype = tensors.front().dtype();
  NXRT_ASSIGN_OR_RETURN(outputs[0], MakeSequence(dtype, std::move(tensors)));
  return Status::Ok();
}

Status SequenceAt(Inputs inputs, std::vector<Value>& outputs) {
  NXRT_ASSIGN_OR_RETURN(const Value* seq, SequenceInput(inputs, 0, "input_sequence"));
  const int64_t n = static_cast<int64_t>(seq->sequence().size());
  if (InputAt(inputs, 1) == nullptr) {
    return MakeStatus(StatusCode::kInvalidArgument, "input 1 'position' is required");
  }
  NXRT_ASSIGN_OR_RETURN(int64_t p, Position(inputs, 1, n, false, 0));
  outputs[0] = Value(seq->sequence()[static_cast<size_t>(p)]);
  return Status::Ok();
}

Status SequenceInsert(Inputs inputs, std::vector<Value>& outputs) {
  NXRT_ASSIGN_OR_RETURN(const Value* seq, SequenceInput(inputs, 0, "input_sequence"));
  NXRT_ASSIGN_OR_RETURN(const Tensor* t, TensorInput(inputs, 1, "tensor"));
  if (t->dtype() != seq->dtype()) {
    return MakeStatus(StatusCode::kInvalidArgument, "input 1 'tensor' is ", t->Description(),
                      " but the sequence holds ", DataTypeName(seq->dtype()),
                      " tensors; cast it first");
  }
  const int64_t n = static_cast<int64_t>(seq->sequence().size());
  NXRT_ASSIGN_OR_RETURN(int64_t p, Position(inputs, 2, n, true, n));
  std::vector<Tensor> tensors = Elements(*seq);
  tensors.insert(tensors.begin() + p, *t);
  NXRT_ASSIGN_OR_RETURN(outputs[0], MakeSequence(seq->dtype(), std::move(tensors)));
  return Status::Ok();
}

Status SequenceErase(Inputs inputs, std::vector<Value>& outputs) {
  NXRT_ASSIGN_OR_RETURN(const Value* seq, SequenceInput(inputs, 0, "input_sequence"));
  const int64_t n = static_cast<int64_t>(seq->sequence().size());
  if (n == 0) {
    return MakeStatus(StatusCode::kInvalidArgument, "cannot erase from an empty sequence");
  }
  NXRT_ASSIGN_OR_RETURN(int64_t p, Position(inputs, 1, n, false, n - 1));
  std::vector<Tensor> tensors = Elements(*seq);
  tensors.erase(tensors.begin() + p);
  NXRT_ASSIGN_OR_RETURN(outputs[0], Value::Sequence(seq->dtype(), std::move(tensors)));
  return Status::Ok();
}

Status SequenceLength(Inputs inputs, std::vector<Value>& outputs) {
  NXRT_ASSIGN_OR_RETURN(const Value* seq, SequenceInput(inputs, 0, "input_sequence"));
  outputs[0] = Value(Tensor::Scalar<int64_t>(static_cast<int64_t>(seq->sequence().size())));
  return Status::Ok();
}

Status SplitToSequence(Inputs inputs, std::vector<Value>& outputs, int64_t axis_attr,
                       bool keepdims) {
  NXRT_ASSIGN_OR_RETURN(const Tensor* input, TensorInput(inputs, 0, "input"));
  const int64_t rank = static_cast<int64_t>(input->rank());
  NXRT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_attr, rank, "attribute 'axis'"));
  const int64_t dim = input->shape()[static_cast<size_t>(axis)];
  std::vector<int64_t> lengths;
  bool squeeze = false;
  if (InputAt(inputs, 1) == nullptr) {
    lengths.assign(static_cast<size_t>(dim), 1);  // chunks of 1; keepdims says if the axis stays
    squeeze = !keepdims;
  } else {
    NXRT_ASSIGN_OR_RETURN(const Tensor* split, TensorInput(inputs, 1, "split"));
    if ((split->dtype() != DataType::kInt32 && split->dtype() != DataType::kInt64) ||
        split->rank() > 1) {
      return MakeStatus(StatusCode::kInvalidArgument, "input 1 'split' must be an int32 or int64 ",
                        "scalar or 1-D tensor, got ", split->Description());
    }
    std::vector<int64_t> values;
    for (int64_t i = 0; i < split->element_count(); ++i) {
      values.push_back(split->dtype() == DataType::kInt32 ? split->data<int32_t>()[i]
                                                           : split->data<int64_t>()[i]);
    }
    if (split->rank() == 0) {
      if (values[0] <= 0) {
        return MakeStatus(StatusCode::kInvalidArgument, "split size ", values[0],
                          " must be positive");
      }
      for (int64_t begin = 0; begin < dim; begin += values[0]) {
        lengths.push_back(std::min(values[0], dim - begin));  // the last chunk may be shorter
      }
    } else {
      int64_t sum = 0;
      for (int64_t v : values) {
        if (v < 0) {
          return MakeStatus(StatusCode::kInvalidArgument, "split ",
                            ShapeToString(values), " has a negative length");
        }
        sum += v;
      }
      if (sum != dim) {
        return MakeStatus(StatusCode::kInvalidArgument, "split ", ShapeToString(values),
                          " sums to ", sum, " but the input ", input->Description(),
                          " has ", dim, " along axis ", axis);
      }
      lengths = std::move(values);
    }
  }
  std::vector<Tensor> pieces;
  int64_t begin = 0;
  for (int64_t length : lengths) {
    NXRT_ASSIGN_OR_RETURN(Tensor piece, SliceAlongAxis(*input, axis, begin, length));
    if (squeeze) {
      Shape shape = piece.shape();
      shape.erase(shape.begin() + axis);
      NXRT_ASSIGN_OR_RETURN(piece, piece.Reshaped(std::move(shape)));
    }
    pieces.push_back(std::move(piece));
    begin += length;
  }
  NXRT_ASSIGN_OR_RETURN(outputs[0], Value::Sequence(input->dtype(), std::move(pieces)));
  return Status::Ok();
}

Status ConcatFromSequence(Inputs inputs, std::vector<Value>& outputs, int64_t axis_attr,
                          bool new_axis) {
  NXRT_ASSIGN_OR_RETURN(const Value* seq, SequenceInput(inputs, 0, "input_sequence"));
  std::span<const Tensor> items = seq->sequence();
  if (items.empty()) {
    return MakeStatus(StatusCode::kInvalidArgument,
                      "input 0 'input_sequence' is empty; there is nothing to concatenate");
  }
  const int64_t rank = static_cast<int64_t>(items.front().rank()) + (new_axis ? 1 : 0);
  NXRT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_attr, rank, "attribute 'axis'"));
  if (!new_axis) {
    NXRT_ASSIGN_OR_RETURN(outputs[0], ConcatAlongAxis(items, axis));
    return Status::Ok();
  }
  std::vector<Tensor> unit;  // each element with a dim of 1 inserted at `axis`
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].shape() != items.front().shape()) {
      return MakeStatus(StatusCode::kInvalidArgument, "with new_axis = 1 every tensor must have ",
                        "the same shape; tensor ", i, " is ", items[i].Description(),
                        ", tensor 0 is ", items.front().Description());
    }
    Shape shape = items[i].shape();
    shape.insert(shape.begin() + axis, 1);
    NXRT_ASSIGN_OR_RETURN(Tensor r, items[i].Reshaped(std::move(shape)));
    unit.push_back(std::move(r));
  }
  NXRT_ASSIGN_OR_RETURN(outputs[0], ConcatAlongAxis(unit, axis));
  return Status::Ok();
}

// Optional(x) and Identity of a sequence or optional: the input itself. OptionalGetElement: the
// same, but an empty optional is an error.
Status PassThrough(Inputs inputs, std::vector<Value>& outputs, bool none_is_error) {
  const Value* v = InputAt(inputs, 0);
  if (v == nullptr) {
    return MakeStatus(StatusCode::kInvalidArgument, "input 0 is required");
  }
  if (none_is_error && v->is_none()) {
    return MakeStatus(StatusCode::kInvalidArgument, "input 0 is an empty optional; test it with ",
                      "OptionalHasElement before getting its element");
  }
  NXRT_ASSIGN_OR_RETURN(outputs[0], OwnBuffers(*v));
  return Status::Ok();
}

}  // namespace

RuntimeStepFactory StatelessStep(StatelessStepFn fn) {
  auto shared = std::make_shared<const StatelessStepFn>(std::move(fn));
  return [shared] { return std::unique_ptr<RuntimeStep>(new FunctionStep(shared)); };
}

bool IsSequenceOp(std::string_view domain, std::string_view op_type) {
  static constexpr std::array<std::string_view, 11> kOps = {
      "SequenceConstruct", "SequenceEmpty",      "SequenceAt",         "SequenceInsert",
      "SequenceErase",     "SequenceLength",     "SplitToSequence",    "ConcatFromSequence",
      "Optional",          "OptionalHasElement", "OptionalGetElement"};
  return domain.empty() && std::find(kOps.begin(), kOps.end(), op_type) != kOps.end();
}

Result<RuntimeStepFactory> MakeSequenceStep(const NodeInfo& node) {
  const std::string& op = node.op_type();
  if (op == "SequenceConstruct") return StatelessStep(SequenceConstruct);
  if (op == "SequenceAt") return StatelessStep(SequenceAt);
  if (op == "SequenceInsert") return StatelessStep(SequenceInsert);
  if (op == "SequenceErase") return StatelessStep(SequenceErase);
  if (op == "SequenceLength") return StatelessStep(SequenceLength);
  if (op == "SequenceEmpty") {
    NXRT_ASSIGN_OR_RETURN(int64_t code, node.GetInt("dtype", 1));
    const std::optional<DataType> dtype = DataTypeFromOnnx(static_cast<int32_t>(code));
    if (!dtype || *dtype == DataType::kUndefined) {
      return node.Error(StatusCode::kInvalidModel, "attribute 'dtype' = ", code,
                        " is not an ONNX tensor element type");
    }
    return StatelessStep([dtype = *dtype](Inputs, std::vector<Value>& outputs) -> Status {
      NXRT_ASSIGN_OR_RETURN(outputs[0], Value::Sequence(dtype, {}));
      return Status::Ok();
    });
  }
  if (op == "SplitToSequence") {
    NXRT_ASSIGN_OR_RETURN(int64_t axis, node.GetInt("axis", 0));
    NXRT_ASSIGN_OR_RETURN(int64_t keepdims, node.GetInt("keepdims", 1));
    return StatelessStep([axis, keepdims](Inputs inputs, std::vector<Value>& outputs) {
      return SplitToSequence(inputs, outputs, axis, keepdims != 0);
    });
  }
  if (op == "ConcatFromSequence") {
    NXRT_ASSIGN_OR_RETURN(int64_t axis, node.GetInt("axis"));
    NXRT_ASSIGN_OR_RETURN(int64_t new_axis, node.GetInt("new_axis", 0));
    if (new_axis != 0 && new_axis != 1) {
      return node.Error(StatusCode::kInvalidModel, "attribute 'new_axis' = ", new_axis,
                        "; it must be 0 or 1");
    }
    return StatelessStep([axis, new_axis](Inputs inputs, std::vector<Value>& outputs) {
      return ConcatFromSequence(inputs, outputs, axis, new_axis == 1);
    });
  }
  if (op == "Optional") {
    return StatelessStep([](Inputs inputs, std::vector<Value>& outputs) -> Status {
      if (InputAt(inputs, 0) == nullptr) {
        outputs[0] = Value::None();
        return Status::Ok();
      }
      return PassThrough(inputs, outputs, false);
    });
  }
  if (op == "OptionalHasElement") {
    return StatelessStep([](Inputs inputs, std::vector<Value>& outputs) -> Status {
      const Value* v = InputAt(inputs, 0);
      outputs[0] = Value(Tensor::Scalar<bool>(v != nullptr && !v->is_none()));
      return Status::Ok();
    });
  }
  if (op == "OptionalGetElement") {
    return StatelessStep([](Inputs inputs, std::vector<Value>& outputs) {
      return PassThrough(inputs, outputs, true);
    });
  }
  if (op == "Identity") {
    return StatelessStep([](Inputs inputs, std::vector<Value>& outputs) {
      return PassThrough(inputs, outputs, false);
    });
  }
  return node.Error(StatusCode::kNotImplemented, "not a sequence or optional op");
}

}  // namespace nxrt::runtime
