// runtime/device_copies.h: copy steps where a value crosses between host memory and an EP's
// device memory (ep/device_values.h), as ORT inserts MemcpyFromHost / MemcpyToHost nodes.
//
// Layer: nxrt_runtime. The plan builder calls InsertDeviceCopies on each graph's steps, before
// ComputeValuePlans. Each value lives where its producer writes it (graph inputs, initializers,
// outer-scope values and runtime steps' outputs: host memory). As ORT does:
//   - feeds: the graph inputs a device EP reads are copied into its memory in one transfer
//     before the first step;
//   - each other step input read in another memory is rewired to a copy of the value in that
//     memory, made once per memory by a copy step placed before its first reader (a device
//     value read by another EP's device goes through a host copy; a copy to the host waits for
//     the device, since a host step reads it next);
//   - fetches: a graph output written in device memory keeps its id for its host copy, and its
//     producer writes a device value of its own; the outputs of one device are copied back in
//     one transfer after the last step, without waiting in the main graph (the EP's end of run
//     synchronizes, RunObserver::OnRunEnd) and waiting in a subgraph (the runtime reads them at
//     once); a graph output a host step also reads is copied right after its producer instead.
// So consecutive steps of one device EP pass values in device memory, and copies happen only at
// EP boundaries. Copy steps are kernel steps of the device's EP named "MemcpyFromHost_<value>" /
// "MemcpyToHost_<value>" ("MemcpyFromHost_feeds", "MemcpyToHost_fetches"; op types
// "MemcpyFromHost" / "MemcpyToHost"); they fold like any foldable step, so an initializer read
// on the device is copied there once per plan instance.
#pragma once

#include "runtime/graph_plan.h"

namespace nxrt::runtime {

// Adds `plan`'s copies and copy steps (plan.copies, plan.steps) as described above. `plan.steps`
// are the graph's steps in run order with their memory flags (StepPlan::device ...) set. Does
// nothing when no step keeps values in device memory.
void InsertDeviceCopies(GraphPlan& plan);

}  // namespace nxrt::runtime
