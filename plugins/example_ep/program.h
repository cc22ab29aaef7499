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

#include <atomic>
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

// Memory of its own that an EP variant computes in (the device EP, plugins/device_ep); the
// example EP has none and works in whatever host memory the host gives it.
struct DeviceMemory {
  // Added to every OrtEpDevice with EpDevice_AddAllocatorInfo (owned by the factory).
  const OrtMemoryInfo* info = nullptr;
  // The memory device of `info`: Compute fails unless every input and output is in it.
  const OrtMemoryDevice* device = nullptr;
  // True when `data` lies in a live block of the variant's allocator.
  bool (*contains)(const void* data) = nullptr;
  // When set (a stream-aware variant), Compute first checks its kernel context with it.
  OrtStatus* (*check_stream)(const OrtApi& ort, const OrtEpApi& ep,
                             OrtKernelContext* context) = nullptr;
};

// What the compute infos of one EP share with it. Owned by the EP, which outlives them (the host
// releases compute infos before the EP).
struct EpRuntime {
  const OrtEpApi* ep_api = nullptr;
  // Compute counts a call that starts while another Compute of this EP runs as an overlap, and
  // also as a concurrency violation when the EP answered IsConcurrentRunSupported with false
  // (option concurrent_runs=0).
  bool serial_runs = false;
  std::atomic<int> computes_in_flight{0};
  DeviceMemory device_memory;  // device_memory.info == nullptr: host memory, not checked
};

// The compute info of one fused group; ORT releases it through OrtEp::ReleaseNodeComputeInfos
// (ReleaseComputeInfo). Compute is reentrant: concurrent runs share nothing mutable but the
// counters (counters.h) and runtime->computes_in_flight.
struct ComputeInfo : OrtNodeComputeInfo {
  const OrtApi* ort = nullptr;
  EpRuntime* runtime = nullptr;
  Program program;
};

// A new compute info over `program` with every slot set (version ORT_API_VERSION), or nullptr when
// out of memory. `runtime` is the EP's and must outlive the info.
ComputeInfo* NewComputeInfo(const OrtApi& ort, EpRuntime* runtime, Program program);
void ReleaseComputeInfo(OrtNodeComputeInfo* info);

}  // namespace nxrt_example_ep
