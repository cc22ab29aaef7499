// ep/cpu/math/tensor/gather.h: Gather, GatherElements and GatherND (ONNX) as reference math.
//
// Layer: nxrt_cpu_math (framework-free; no IR, no EP API). The data moves by element size, so every
// dtype works (strings included); indices are int32 or int64. Negative indices count from the
// end of their axis. Indices are data, so they are checked in compute: an index out of range
// returns kInvalidArgument naming the index, its position and the axis size (never a crash).
#pragma once

#include <cstdint>
#include <span>

#include "nxrt/data_type.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::nn {

struct GatherPlan {
  DataType dtype = DataType::kUndefined;
  DataType index_type = DataType::kInt64;
  Shape output_shape;
  // Internal: data viewed as [outer, axis_dim, inner]; `count` indices.
  int64_t axis = 0;
  int64_t outer = 0;
  int64_t axis_dim = 0;
  int64_t inner = 0;
  int64_t count = 0;
};

// Gather (ONNX opset 1, 11, 13): output shape is data[:axis] + indices + data[axis+1:].
Result<GatherPlan> PrepareGather(DataType dtype, std::span<const int64_t> data_shape,
                                 DataType index_type, std::span<const int64_t> indices_shape,
                                 int64_t axis);
Status Gather(const GatherPlan& plan, const void* data, const void* indices, void* output);

struct GatherElementsPlan {
  DataType dtype = DataType::kUndefined;
  DataType index_type = DataType::kInt64;
  Shape data_shape;
  Shape output_shape;  // = the indices shape
  int64_t axis = 0;
};

// GatherElements (ONNX opset 11, 13): indices have the data's rank, and along every axis but
// `axis` a dim no larger than the data's; output[i] = data[i with i[axis] = indices[i]].
Result<GatherElementsPlan> PrepareGatherElements(DataType dtype,
                                                 std::span<const int64_t> data_shape,
                                                 DataType index_type,
                                                 std::span<const int64_t> indices_shape,
                                                 int64_t axis);
Status GatherElements(const GatherElementsPlan& plan, const void* data, const void* indices,
                      void* output);

struct GatherNDPlan {
  DataType dtype = DataType::kUndefined;
  DataType index_type = DataType::kInt64;
  Shape data_shape;
  Shape output_shape;
  // Internal: batches, tuples per batch, tuple length k, elements per gathered slice.
  int64_t batches = 0;
  int64_t tuples = 0;
  int64_t k = 0;
  int64_t slice = 0;
  int64_t batch_dims = 0;
};

// GatherND (ONNX opset 11, 12 `batch_dims`, 13): indices [..., k] with 1 <= k <= rank(data) -
// batch_dims, the first batch_dims dims equal to the data's; output shape is
// indices[:-1] + data[batch_dims + k:].
Result<GatherNDPlan> PrepareGatherND(DataType dtype, std::span<const int64_t> data_shape,
                                     DataType index_type, std::span<const int64_t> indices_shape,
                                     int64_t batch_dims);
Status GatherND(const GatherNDPlan& plan, const void* data, const void* indices, void* output);

}  // namespace nxrt::cpu::nn
