// ep/cpu/half_kernels.h: which of the CPU EP's float16/bfloat16 kernels run as fast as float32.
//
// Layer: nxrt_ep_cpu, header only. The CPU has no half-precision arithmetic that nxrt uses, so
// every float16/bfloat16 kernel that computes runs element by element in the math's reference
// loops; the ops listed here only move, select or convert elements (they dispatch on the
// element size or convert in bulk), which costs less on 2-byte elements than on 4-byte ones.
// The optimizer's insert_cast pass (src/optimizer/passes/insert_cast.cpp) runs every other
// half-precision node in float32 and leaves these in their own dtype, unless all their
// neighbours run in float32 anyway.
#pragma once

#include <algorithm>
#include <array>
#include <string_view>

namespace nxrt::cpu {

inline constexpr std::array<std::string_view, 29> kHalfNativeOps = {
    "Cast",           "CastLike",      "Compress",     "Concat",       "DepthToSpace",
    "Dropout",        "Expand",        "Flatten",      "Gather",       "GatherElements",
    "GatherND",       "Identity",      "Pad",          "Reshape",      "ReverseSequence",
    "ScatterElements", "ScatterND",    "Shape",        "Size",         "Slice",
    "SpaceToDepth",   "Split",         "Squeeze",      "Tile",         "Transpose",
    "Trilu",          "Unsqueeze",     "Where",        "OneHot"};

// True when the default-domain op `op_type`'s float16/bfloat16 kernel only moves elements.
inline bool HalfKernelIsNative(std::string_view op_type) {
  return std::find(kHalfNativeOps.begin(), kHalfNativeOps.end(), op_type) !=
         kHalfNativeOps.end();
}

}  // namespace nxrt::cpu
