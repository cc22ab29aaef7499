// plugins/example_ep/program.h: a fused group compiled into a straight-line program over value
// slots, and the OrtNodeComputeInfo that runs it.
//
// Layer: test plugin nxrt_example_ep (ORT C headers only). Compile copies everything it needs
// out of the OrtGraph (names, op types, constant initializers), since the graph dies when Compile
// returns. Slots are values: the fused node's inputs (in the fused node's input order), constant
// initializers (copied here), and the outputs of the group's nodes. At run time each step reads
// its input slots, broadcasts their shapes, and writes its output slot either into a temporary
// buffer or, for a fused-node output, straight into the tensor KernelContext_GetOutput made.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "example_ep/elementwise.h"
#include "example_ep/host_api.h"

namespace nxrt_example_ep {

struct ProgramStep {
  ElementwiseOp op;
  std::string node_name;      // for messages
  std::vector<size_t> inputs; // slots, ElementwiseOpArity(op) of them
  size_t output;              // slot
};

struct ProgramConstant {
  size_t slot;
  Dims dims;
  std::vector<float> values;
};

struct Program {
  std::string name;                  // the fused node's name
  size_t num_slots = 0;
  std::vector<size_t> input_slots;   // kernel input i -> slot
  std::vector<size_t> output_slots;  // kernel output i -> slot
  std::vector<ProgramConstant> constants;
  std::vector<ProgramStep> steps;    // in the group's topological order
};

// Builds the program of one fused group. Errors (as an OrtStatus naming the fused node and the
// value): a node that is not an elementwise float op, a value that is neither a fused-node input,
// a constant float initializer nor made in the group, a fused-node output no node makes.
OrtStatus* BuildProgram(const OrtApi& ort, const OrtGraph* graph, const OrtNode* fused_node,
                        Program* program);

// The compute info of one fused group; ORT releases it through OrtEp::ReleaseNodeComputeInfos
// (ReleaseComputeInfo). Compute is reentrant: concurrent runs share nothing mutable but the
// global call counter.
struct ComputeInfo : OrtNodeComputeInfo {
  const OrtApi* ort = nullptr;
  Program program;
};

// A new compute info over `program` with every slot set (version ORT_API_VERSION), or nullptr when
// out of memory.
ComputeInfo* NewComputeInfo(const OrtApi& ort, Program program);
void ReleaseComputeInfo(OrtNodeComputeInfo* info);

// Successful Compute calls in this library since load or the last reset (all fused nodes, all
// sessions).
uint64_t ComputeCalls();
void ResetComputeCalls();

}  // namespace nxrt_example_ep
