// runtime/sequence_steps.h: the sequence and optional ops, run by the runtime itself.
//
// Layer: nxrt_runtime. EPs see tensors only (nxrt/kernel.h); the ops that make, read or pass on
// sequences and optionals are runtime steps (graph_plan.h RuntimeStep), like If and Loop.
// They move tensor handles, not data, except SplitToSequence and ConcatFromSequence, which copy
// (runtime/tensor_copy.h). A tensor entering a sequence or leaving through Optional,
// OptionalGetElement or Identity is copied when it borrows memory (an arena intermediate, an
// initializer), so a sequence never points into the arena.
//
// Ops (default domain), each at every since_version up to opset 18:
//   SequenceConstruct-11  (T...) → seq(T); at least one input, one dtype
//   SequenceEmpty-11      () → seq(dtype attribute, default float)
//   SequenceAt-11         (seq, position) → tensor; position in [-n, n-1]
//   SequenceInsert-11     (seq, tensor, position?) → seq; position in [-n, n], default n
//   SequenceErase-11      (seq, position?) → seq; position in [-n, n-1], default -1
//   SequenceLength-11     (seq) → int64 scalar
//   SplitToSequence-11    (input, split?) → seq; attributes axis (0), keepdims (1)
//   ConcatFromSequence-11 (seq) → tensor; attributes axis (required), new_axis (0)
//   Optional-15           (T?) → optional(T); no input: the empty optional (attribute `type`)
//   OptionalHasElement-15/18  (optional?) → bool scalar (18: a tensor or sequence, or omitted)
//   OptionalGetElement-15/18  (optional) → its value (18: a tensor or sequence is returned as is)
//   Identity-14/16        on a sequence or optional (on tensors Identity is an EP kernel)
// Positions are int32 or int64 tensors with one element. Errors (kInvalidArgument at run time):
// an input of the wrong kind, a position out of range, mismatched dtypes, a bad split; each
// names the input and the values. SequenceMap, which has a body, is in control_flow.h.
// Source: ONNX operator spec (onnx/defs/sequence/defs.cc, onnx/defs/optional/defs.cc).
#pragma once

#include <functional>
#include <span>
#include <string_view>
#include <vector>

#include "nxrt/node_info.h"
#include "nxrt/status.h"
#include "runtime/graph_plan.h"

namespace nxrt::runtime {

// A runtime step that holds no state: `fn` fills the outputs from the inputs (RuntimeStep::Run's
// contract), the same function for every PlanInstance. Also the form of the map ops
// (runtime/map_steps.h).
using StatelessStepFn =
    std::function<Status(std::span<const Value* const> inputs, std::vector<Value>& outputs)>;
RuntimeStepFactory StatelessStep(StatelessStepFn fn);

// True for the ops listed above except Identity (which is a sequence op only on a non-tensor).
bool IsSequenceOp(std::string_view domain, std::string_view op_type);

// The step of `node`: an op of IsSequenceOp, or an Identity of a sequence or optional.
// Errors: kInvalidModel for a bad attribute (naming it), kNotImplemented for any other op.
Result<RuntimeStepFactory> MakeSequenceStep(const NodeInfo& node);

}  // namespace nxrt::runtime
