// ep/cpu/math/tensor/transpose.h: Transpose, DepthToSpace and SpaceToDepth (ONNX) as reference
// math.
//
// Layer: nxrt_cpu_math (framework-free; no IR, no EP API). All three are axis permutations of a
// (reshaped) contiguous tensor, so they share one strided copy. They move elements by size and
// work for every dtype, strings included. Each op has a Prepare (shapes, checks) that returns a
// plan and a compute that only reads and writes the given buffers.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "nxrt/data_type.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::nn {

// A prepared permutation copy: output[i] = input viewed as `view_shape` and permuted by `perm`.
struct PermutePlan {
  DataType dtype = DataType::kUndefined;
  Shape output_shape;
  // Internal: the permuted view of the input (shape, input strides in output order, and the
  // contiguous output strides), coalesced (nn_common.h CoalesceView).
  Shape view_shape;
  std::vector<int64_t> view_strides;
  std::vector<int64_t> output_strides;
  // Independent parts of the copy (the outermost dim of the view; 1 for strings), for
  // PermuteRange on several threads, and the elements each part moves.
  int64_t units = 1;
  int64_t elements_per_unit = 0;
};

// Transpose (ONNX opset 1, 13, 21). `perm` empty means reversed axes; otherwise a permutation
// of 0..rank-1 with output_shape[i] = input_shape[perm[i]]. Errors: kInvalidArgument for a perm
// of the wrong length, a repeated or out-of-range axis (the message prints perm and shape).
Result<PermutePlan> PrepareTranspose(DataType dtype, std::span<const int64_t> input_shape,
                                     std::span<const int64_t> perm);

enum class DepthToSpaceMode { kDcr, kCrd };

// "DCR" or "CRD" (ONNX attribute spelling); kInvalidArgument otherwise.
Result<DepthToSpaceMode> ParseDepthToSpaceMode(std::string_view mode);

// DepthToSpace (ONNX opset 1, 11, 13): input [N, C, H, W] with C divisible by blocksize²,
// output [N, C/blocksize², H*blocksize, W*blocksize]. DCR: depth is (block row, block col,
// channel); CRD: (channel, block row, block col).
Result<PermutePlan> PrepareDepthToSpace(DataType dtype, std::span<const int64_t> input_shape,
                                        int64_t blocksize, DepthToSpaceMode mode);

// SpaceToDepth (ONNX opset 1, 13): input [N, C, H, W] with H and W divisible by blocksize,
// output [N, C*blocksize², H/blocksize, W/blocksize] (DCR order).
Result<PermutePlan> PrepareSpaceToDepth(DataType dtype, std::span<const int64_t> input_shape,
                                        int64_t blocksize);

// Runs a prepared permutation: `input` holds the contiguous input, `output` room for the
// contiguous output (Product(output_shape) elements; constructed strings for kString).
Status Permute(const PermutePlan& plan, const void* input, void* output);

// The parts [begin, end) of plan.units of that copy; parts may run on different threads at once.
void PermuteRange(const PermutePlan& plan, const void* input, void* output, int64_t begin,
                  int64_t end);

}  // namespace nxrt::cpu::nn
