// ep/cpu/kernels/tensor/tensor.h: kernel factories of the CPU EP's tensor (data movement) family,
// used by its table (register_tensor.cpp), and the small helpers its glue shares.
//
// Layer: nxrt_ep_cpu (kernel glue over the reference math of src/ep/cpu/math/tensor). Each factory
// reads the node's attributes once, picks the form of the op from the node's opset (attributes
// before an opset, inputs after), and returns a kernel whose Prepare resolves the math plan from
// the input dtypes, shapes and value inputs and whose Compute only runs it. Factories fail with
// kInvalidModel naming the attribute and its value. Every op here moves elements by size, so
// they take every dtype their schema allows, strings included.
#pragma once

#include <string_view>

#include "ep/op_registry.h"
#include "nxrt/kernel.h"
#include "nxrt/node_info.h"
#include "nxrt/status.h"

namespace nxrt::cpu::kernels {

// Transpose (`perm`, default: reversed axes).
ep::KernelFactory TransposeFactory();
// DepthToSpace (`blocksize`, `mode` DCR/CRD from opset 11) and SpaceToDepth (`blocksize`).
ep::KernelFactory DepthToSpaceFactory();
ep::KernelFactory SpaceToDepthFactory();

// Concat (`axis`; optional with default 1 at opset 1 only).
ep::KernelFactory ConcatFactory();
// Split: sizes from the `split` attribute (opset < 13), from input 1 (opset 1 and >= 13), or
// equal parts; opset 18 `num_outputs` allows a smaller last part.
ep::KernelFactory SplitFactory();

// Slice: starts/ends/axes attributes (opset 1) or value inputs 1-4 (opset >= 10).
ep::KernelFactory SliceFactory();

// Gather (`axis`), GatherElements (`axis`), GatherND (`batch_dims` from opset 12).
ep::KernelFactory GatherFactory();
ep::KernelFactory GatherElementsFactory();
ep::KernelFactory GatherNDFactory();

// ScatterElements (`axis`, `reduction` from opset 16, max/min from 18), the legacy Scatter
// (opset 9-10, `axis`) and ScatterND (`reduction` from opset 16, max/min from 18).
ep::KernelFactory ScatterElementsFactory();
ep::KernelFactory ScatterNDFactory();

// Tile (opset >= 6): repeats from value input 1.
ep::KernelFactory TileFactory();
// Expand: the target shape from value input 1.
ep::KernelFactory ExpandFactory();

// Pad: `paddings` (opset 1) or `pads` (opset 2) and `value` attributes, or the pads value input
// and optional constant_value input (opset >= 11) and axes value input (opset >= 18); `mode`
// constant/reflect/edge (and wrap from opset 19).
ep::KernelFactory PadFactory();

// Resize (opset 10: `mode` and scales input; 11+: roi/scales/sizes inputs and the coordinate
// attributes; 18+: antialias, axes, keep_aspect_ratio_policy) and Upsample (opset 7: `scales`
// attribute; 9: scales input), both nearest/linear with opset 10's asymmetric coordinates.
ep::KernelFactory ResizeFactory();
ep::KernelFactory UpsampleFactory();

// Trilu (`upper`; optional value input 1 `k`), Compress (`axis` or flattened; dynamic output),
// ReverseSequence (`batch_axis`, `time_axis`), OneHot (`axis`; value input 1 `depth`; negative
// indices count from the end from opset 11).
ep::KernelFactory TriluFactory();
ep::KernelFactory CompressFactory();
ep::KernelFactory ReverseSequenceFactory();
ep::KernelFactory OneHotFactory();

// TopK (`k` attribute at opset 1, value input 1 from opset 10; `axis`, `largest`) and Unique
// (`axis`, `sorted`; all outputs dynamic).
ep::KernelFactory TopKFactory();
ep::KernelFactory UniqueFactory();

// A compute-time failure of the math (an index out of range in the data) as kRuntimeError, the
// code kernel.h gives errors known only while running; success stays success.
Status AsRuntimeError(const Status& status);

// An attribute parse error of the math (ParsePadMode, ParseResizeMode...) as kInvalidModel naming
// the node, the attribute and its value; success stays success.
Status AttributeError(const NodeInfo& node, std::string_view attribute, std::string_view value,
                      const Status& status);

}  // namespace nxrt::cpu::kernels
