// runtime/tensor_copy.h: the few tensor copies the runtime makes itself: concatenating along an
// axis and slicing a range of an axis. Used by Loop/Scan (stacking per-iteration outputs,
// slicing scan inputs) and by SplitToSequence/ConcatFromSequence (runtime/sequence_steps.h).
//
// Layer: nxrt_runtime. Every dtype, strings included (std::string elements are copied). Inputs
// may be strided; results are owned and contiguous. OwnBuffers is the rule every runtime step
// follows for what it outputs (graph_plan.h RuntimeStep).
#pragma once

#include <cstdint>
#include <span>

#include "nxrt/status.h"
#include "nxrt/tensor.h"
#include "nxrt/value.h"

namespace nxrt::runtime {

// Concatenates `items` along `axis` (0 <= axis < rank). Every item has the same dtype and rank
// and the same dims except along `axis`. Errors: kInvalidArgument for no items, a dtype or
// rank difference or another dim that differs, naming the item and both shapes; kOutOfMemory.
Result<Tensor> ConcatAlongAxis(std::span<const Tensor> items, int64_t axis);

// Elements [begin, begin + length) of `t` along `axis` (the axis keeps its place, with size
// `length`). The caller checks 0 <= axis < rank and that the range lies in the dim.
Result<Tensor> SliceAlongAxis(const Tensor& t, int64_t axis, int64_t begin, int64_t length);

// `value` when it does not borrow memory (a tensor that owns its buffer, a sequence, none);
// otherwise a copy of its tensor that does (an arena tensor, an initializer, a strided view).
// Sequence elements own theirs by construction (runtime/sequence_steps.h).
Result<Value> OwnBuffers(const Value& value);

}  // namespace nxrt::runtime
