// ep/cpu/math/tensor/select.h: element-selecting tensor ops (ONNX Trilu, Compress, ReverseSequence,
// OneHot) as reference math.
//
// Layer: nxrt_cpu_math (framework-free; no IR, no EP API). Trilu, Compress and ReverseSequence move
// elements by size, so every dtype works (strings included); OneHot reads numeric indices and
// writes elements of any dtype. Prepare* functions check shapes and attributes and return a plan
// (kInvalidArgument naming the op, the input and both values); the compute functions take
// contiguous buffers. Values that are data (Compress's condition, ReverseSequence's lengths) are
// checked while computing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "nxrt/data_type.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::nn {

struct TriluPlan {
  DataType dtype = DataType::kUndefined;
  int64_t batches = 0;  // product of the dims before the last two
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t k = 0;
  bool upper = true;
};

// Trilu (ONNX opset 14): input of rank >= 2, viewed as a batch of [rows, cols] matrices. Keeps
// element (i, j) when j - i >= k (upper) or j - i <= k (lower), else writes zero (the empty
// string for strings). Output shape = input shape.
Result<TriluPlan> PrepareTrilu(DataType dtype, std::span<const int64_t> shape, int64_t k,
                               bool upper);
void Trilu(const TriluPlan& plan, const void* input, void* output);

// Compress (ONNX opset 9; negative axis from 11): `condition` is a 1-D bool tensor whose length
// may be shorter than the selected axis (the rest counts as false). Without an axis the input is
// flattened. The output shape depends on the condition's values: CompressOutputShape counts them.
struct CompressPlan {
  DataType dtype = DataType::kUndefined;
  Shape input_shape;
  bool has_axis = false;
  int64_t axis = 0;           // normalised, when has_axis
  int64_t outer = 1;          // elements before the axis (flattened: 1)
  int64_t axis_dim = 0;       // the axis length (flattened: the element count)
  int64_t inner = 1;          // elements after the axis (flattened: 1)
  int64_t condition_len = 0;  // entries of the condition that are used: min(len, axis_dim)
};

Result<CompressPlan> PrepareCompress(DataType dtype, std::span<const int64_t> input_shape,
                                     std::span<const int64_t> condition_shape, bool has_axis,
                                     int64_t axis);
// The output shape for `condition` (condition_len bools).
Shape CompressOutputShape(const CompressPlan& plan, const bool* condition);
void Compress(const CompressPlan& plan, const void* input, const bool* condition, void* output);

// ReverseSequence (ONNX opset 10): input of rank >= 2; `time_axis` and `batch_axis` are 0 and 1
// in some order; sequence_lens holds one length per batch entry, each in [0, time dim]
// (kInvalidArgument otherwise, found while computing). For every batch b, the first
// sequence_lens[b] steps along the time axis are reversed and the rest copied.
struct ReverseSequencePlan {
  DataType dtype = DataType::kUndefined;
  int64_t batch_axis = 1;
  int64_t time_axis = 0;
  int64_t batch = 0;
  int64_t time = 0;
  int64_t inner = 1;  // elements per (time, batch) step
};

Result<ReverseSequencePlan> PrepareReverseSequence(DataType dtype,
                                                   std::span<const int64_t> input_shape,
                                                   std::span<const int64_t> lens_shape,
                                                   int64_t batch_axis, int64_t time_axis);
Status ReverseSequence(const ReverseSequencePlan& plan, const void* input, const int64_t* lens,
                       void* output);

// OneHot (ONNX opset 9, 11): output shape is the indices' shape with `depth` inserted at `axis`
// (in [-r-1, r] for indices of rank r). An index in [0, depth) selects the on value; from opset 11
// an index in [-depth, 0) counts from the end (index + depth). Any other index (and a negative one
// at opset 9) gives an all-off row, as the spec states. Indices may have any numeric type
// (floating ones are truncated toward zero); `values` holds [off, on] of the output dtype.
struct OneHotPlan {
  DataType index_type = DataType::kUndefined;
  DataType dtype = DataType::kUndefined;
  Shape output_shape;
  int64_t outer = 0;  // index elements before the axis
  int64_t depth = 0;
  int64_t inner = 0;  // index elements after the axis
  bool negative_indices = true;
};

Result<OneHotPlan> PrepareOneHot(DataType index_type, std::span<const int64_t> indices_shape,
                                 int64_t depth, DataType dtype, int64_t axis,
                                 bool negative_indices);
// `scratch` holds plan.outer * plan.inner int64 values (OneHotScratchBytes).
size_t OneHotScratchBytes(const OneHotPlan& plan);
Status OneHot(const OneHotPlan& plan, const void* indices, const void* values, void* output,
              int64_t* scratch);

}  // namespace nxrt::cpu::nn
