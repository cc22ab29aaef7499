// runtime/control_flow.h: If, Loop, Scan and SequenceMap: nodes whose subgraphs run through the
// same plan machinery as the main graph (runtime/graph_plan.h, runtime/executor.h).
//
// Layer: nxrt_runtime. The plan builder compiles each subgraph into a GraphPlan and hands it to
// the factory here. A subgraph reads outer-scope values by name: the node's implicit inputs
// (GraphView::implicit_inputs), which follow its explicit inputs in the step's input list, are
// bound to the subgraph's outer-scope values with the same names. A body's steps are counted
// and traced in the enclosing run's RunRecord (runtime/graph_plan.h), each time the body runs.
// Values flowing through If and Loop (outputs, loop-carried values, outer-scope values) may be
// tensors, sequences or empty optionals (If-13/16, Loop-13/16); scan inputs and outputs and
// SequenceMap's per-element body outputs are tensors.
// Source: ONNX operator spec, If-1/11/13/16, Loop-1/11/13/16, Scan-9/11/16, SequenceMap-17.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ep/graph_claimer.h"
#include "runtime/graph_plan.h"

namespace nxrt::runtime {

// True for the ops whose subgraphs the runtime runs: If, Loop, Scan, SequenceMap (default domain).
bool IsControlFlowOp(std::string_view domain, std::string_view op_type);
// True for If, Loop and Scan: the control-flow ops an ORT plugin EP may claim alone (its kernel
// made by OrtEpApi::CreateIfKernel/CreateLoopKernel/CreateScanKernel).
bool IsClaimableControlFlowOp(std::string_view domain, std::string_view op_type);

// If: runs `then_branch` when input 0 (a one-element bool tensor) is true, else `else_branch`.
RuntimeStepFactory MakeIfStep(SubgraphPlan then_branch, SubgraphPlan else_branch);

// What the EP that claimed a control-flow node lends it (ep/graph_claimer.h); empty functions:
// the runtime does that work itself.
using ControlFlowHelpers = ep::GraphClaimer::ControlFlowHelpers;

// One Loop scan output's type: the node output's declared dtype, and the shape of one iteration's
// value as the body's output declares it (nullopt: rank unknown; -1: a dim that is not fixed).
// A loop that runs zero times outputs an empty tensor of shape [0, element dims...], each dim
// that is not fixed 0, as ONNX Runtime 1.30's Loop does; [0] when the rank is unknown.
struct LoopScanType {
  DataType dtype = DataType::kUndefined;
  std::optional<Shape> element_shape;
};

// Loop: inputs M (optional int64 trip count), cond (optional bool), then N loop-carried values;
// the body maps (iteration_num, cond, N values) → (cond, N values, K scan outputs). Outputs: the
// N final values, then the K scan outputs stacked along a new axis 0 (by `helpers.concat` when
// set, once per scan output of a loop that ran, as ORT's Loop calls OrtLoopKernelHelper::
// ConcatOutput). `explicit_inputs` is the node's input count; `scan_types` the K scan outputs'
// types, used for the empty outputs of a loop that runs zero times.
RuntimeStepFactory MakeLoopStep(SubgraphPlan body, size_t explicit_inputs,
                                std::vector<LoopScanType> scan_types,
                                ControlFlowHelpers helpers = {});

// Scan (opset ≥ 9): N state inputs then `num_scan_inputs` scan inputs, sliced along
// `input_axes` (forward or reverse per `input_directions`); outputs the N final states then the
// K scan outputs stacked along `output_axes` (per `output_directions`). Axes are non-negative
// (the builder normalises them).
struct ScanAttributes {
  int64_t num_scan_inputs = 0;
  std::vector<int64_t> input_axes;
  std::vector<int64_t> input_directions;
  std::vector<int64_t> output_axes;
  std::vector<int64_t> output_directions;
  // Scan-8: input 0 is sequence_lens and every other input and output has a leading batch axis
  // (the axes above are then those of one batch entry: all 0).
  bool batched = false;
};
// With `helpers.transpose` (ORT's OrtScanKernelHelper::Transpose), a scan input whose axis is
// not 0 is transposed to put that axis first before slicing, and a scan output whose axis is not
// 0 is stacked along 0 and then transposed into place, as ORT's Scan does; Scan-8 never has
// helpers.
RuntimeStepFactory MakeScanStep(SubgraphPlan body, ScanAttributes attributes,
                                size_t explicit_inputs, ControlFlowHelpers helpers = {});

// SequenceMap (opset 17): input 0 a sequence of L tensors, inputs 1.. tensors or sequences of
// length L; the body runs L times on (element i of each sequence, each tensor whole) and output
// k is the sequence of the body's output k over the L runs. `out_dtypes`: the element dtypes of
// the outputs, from the model (for L = 0; kUndefined when not declared).
// Errors: input 0 not a sequence, sequences of different lengths, a body output that is not a
// tensor (kInvalidArgument / kInvalidModel, naming the input or output).
RuntimeStepFactory MakeSequenceMapStep(SubgraphPlan body, size_t explicit_inputs,
                                       std::vector<DataType> out_dtypes);

}  // namespace nxrt::runtime
