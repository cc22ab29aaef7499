// ep/cpu/half_kernels.h: which of the CPU EP's float16/bfloat16 kernels run as fast as float32.
//
// Layer: nxrt_ep_cpu, header only. The CPU has no half-precision arithmetic that nxrt uses, so
// most float16/bfloat16 kernels that compute run element by element in the math's reference
// loops. Two kinds run at float32 speed in their own dtype: the ops of kHalfNativeOps only move,
// select or convert elements (they dispatch on the element size or convert in bulk), which costs
// less on 2-byte elements than on 4-byte ones; the unary elementwise ops (Relu, Sigmoid, Erf,
// Sign, ...: math/elementwise/unary_kinds.inc) and the reductions (ReduceMax, ReduceMean, ...)
// convert blocks to float32 in bulk (F16C) and run their float32 loop, in one pass where Cast,
// op, Cast take three.
// The optimizer's insert_cast pass (src/optimizer/passes/insert_cast.cpp) runs every other
// half-precision node in float32 and leaves these in their own dtype, unless all their
// neighbours run in float32 anyway.
#pragma once

#include <algorithm>
#include <array>
#include <iterator>
#include <string_view>

namespace nxrt::cpu {

inline constexpr std::array<std::string_view, 29> kHalfNativeOps = {
    "Cast",           "CastLike",      "Compress",     "Concat",       "DepthToSpace",
    "Dropout",        "Expand",        "Flatten",      "Gather",       "GatherElements",
    "GatherND",       "Identity",      "Pad",          "Reshape",      "ReverseSequence",
    "ScatterElements", "ScatterND",    "Shape",        "Size",         "Slice",
    "SpaceToDepth",   "Split",         "Squeeze",      "Tile",         "Transpose",
    "Trilu",          "Unsqueeze",     "Where",        "OneHot"};

// The op types of the unary elementwise kinds (those without half types never read a half
// tensor, so their presence here is moot).
inline constexpr std::string_view kHalfUnaryOps[] = {
#define NXRT_UNARY_KIND(name, functor, types, out) #name,
#include "ep/cpu/math/elementwise/unary_kinds.inc"
#undef NXRT_UNARY_KIND
};

// The op types of the reductions (math/reduction/reduce_kinds.inc): their half kernels convert
// each run or row segment in bulk and reduce it as float32.
inline constexpr std::string_view kHalfReduceOps[] = {
#define NXRT_REDUCE_KIND(name, reducer, types) "Reduce" #name,
#include "ep/cpu/math/reduction/reduce_kinds.inc"
#undef NXRT_REDUCE_KIND
};

// True when the default-domain op `op_type`'s float16/bfloat16 kernel runs as fast as float32.
inline bool HalfKernelIsNative(std::string_view op_type) {
  return std::find(kHalfNativeOps.begin(), kHalfNativeOps.end(), op_type) !=
             kHalfNativeOps.end() ||
         std::find(std::begin(kHalfUnaryOps), std::end(kHalfUnaryOps), op_type) !=
             std::end(kHalfUnaryOps) ||
         std::find(std::begin(kHalfReduceOps), std::end(kHalfReduceOps), op_type) !=
             std::end(kHalfReduceOps);
}

}  // namespace nxrt::cpu
