// nxrt/kernel.h: a runnable kernel and the two contexts it runs in.
//
// Part of the EP author's API (std only). An ExecutionProvider creates one Kernel per node it
// runs (or one per fused claim). The runtime then drives it in two phases:
//
//   Prepare(PrepareContext&)   input dtypes and shapes (and the values of the inputs the kernel
//                              declared in ValueInputs()) → output dtypes and shapes, workspace
//                              bytes. Called before the first Compute and again whenever an
//                              input shape, or the value of a declared value input, changes.
//   Compute(ComputeContext&)   bound input, output and workspace buffers → results written into
//                              the outputs. Never allocates, except the outputs Prepare declared
//                              as "shape known after compute" (NonZero, Unique), which it
//                              allocates through the context once it knows their shape.
//
// Many ONNX ops have output shapes that depend on input values: Reshape (input 1), Expand (1),
// Tile (1), Slice (1-4), ConstantOfShape (0), Range (0-2), Resize (scales/sizes), Pad (pads),
// TopK (k), Upsample, OneHot (depth)... Such a kernel lists those inputs in ValueInputs(); the
// runtime keeps them readable on the host during Prepare (they are small int/float tensors) and
// re-prepares when their contents change. Constant initializers are always readable.
// Ops whose output shape depends on the data itself (NonZero, Unique, NonMaxSuppression, Compress
// with a runtime condition) declare the output dynamic in Prepare instead.
//
// Memory: every buffer a kernel sees lives in its EP's device memory (host memory for the CPU EP),
// is owned by the runtime, and stays valid only during the call. Alignment: workspace and planned
// outputs start on 64-byte boundaries. Threading: one kernel instance is never prepared or
// computed by two threads at once; kernels must not keep pointers to buffers between calls.
// Errors from either phase are returned as Status; the runtime prefixes them with the node or
// claim ("node 'Reshape_4' (Reshape, opset 14): ..."), so a kernel names the input or attribute
// and the values: "input 1 has 3 elements, but the input has 4 dims".
//
// The contract, checked by the runtime's one kernel host (src/ep/kernel_host.h) for the
// executor, constant folding and kernel tests alike: Prepare reads input_value() only for present
// inputs listed in ValueInputs() or constant; it declares every present output with a valid
// index, a dtype and no negative dim; Compute calls AllocateOutput exactly once for each present
// output declared dynamic and never for another. Each violation fails the call with
// kKernelContractViolation, the message naming the kernel and the rule: "node 'NonZero_2'
// (NonZero, opset 13): kernel contract (nxrt/kernel.h): Compute did not allocate dynamic output
// 0; call AllocateOutput once". A context method that refuses a call returns that status to the
// kernel, which should pass it on.
// Source for the split: TFLite TfLiteRegistration prepare/invoke, XNNPACK reshape/setup.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "nxrt/data_type.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt {

// The status code of every broken kernel contract (see the file comment): a bug of the kernel,
// not of the model or the caller, so nxrt reports it as internal.
inline constexpr StatusCode kKernelContractViolation = StatusCode::kInternal;

class PrepareContext {
 public:
  virtual ~PrepareContext() = default;

  // Input slots of the node (or fused claim), including omitted optional ones.
  virtual int input_count() const = 0;
  // False for an omitted optional input; its dtype is kUndefined and its shape empty.
  virtual bool has_input(int i) const = 0;
  virtual DataType input_dtype(int i) const = 0;
  // Dims of input `i` (all known: Prepare runs with concrete shapes).
  virtual std::span<const int64_t> input_shape(int i) const = 0;
  // The contents of input `i`, on the host. Allowed for inputs listed in Kernel::ValueInputs()
  // and for constant initializers (and values computed from constants only). Errors:
  // kKernelContractViolation for any other input ("Prepare read input 2, which is neither a
  // constant nor a value input of this kernel; list it in ValueInputs()"), for an omitted input
  // and for an index out of range. A kernel may call it to learn whether an input is constant.
  virtual Result<const Tensor*> input_value(int i) const = 0;

  virtual int output_count() const = 0;
  // True when output `i` is consumed by someone or is a graph output; a kernel may skip the work
  // of unused optional outputs (it still declares them).
  virtual bool output_used(int i) const = 0;
  // Declares output `i` as `dtype` with `shape` (every dim >= 0). Must be called once per present
  // output before Prepare returns, unless the output is declared dynamic.
  // Errors: kKernelContractViolation for an index out of range, kUndefined dtype or a negative
  // dim.
  virtual Status SetOutput(int i, DataType dtype, Shape shape) = 0;
  // Declares that output `i` has `dtype` and a shape known only during Compute; Compute then
  // calls ComputeContext::AllocateOutput(i, shape) exactly once. Same errors as SetOutput.
  virtual Status SetOutputDynamic(int i, DataType dtype) = 0;
  // Scratch memory Compute needs, in bytes (default 0), handed out 64-byte aligned and
  // uninitialised. The memory planner places it in the run's arena like any other buffer, live
  // for the step's Compute only (its contents do not survive to the next call), so no kernel
  // allocates it itself.
  virtual void SetWorkspaceBytes(size_t bytes) = 0;
  // Threads the following Compute may use (ComputeContext::thread_count), so that Prepare can
  // size thread-dependent state (e.g. a oneDNN primitive and its scratchpad) once.
  virtual int thread_count() const { return 1; }
};

class ComputeContext {
 public:
  virtual ~ComputeContext() = default;

  virtual int input_count() const = 0;
  // The bound input, or nullptr for an omitted optional input. Shape and dtype are those Prepare
  // saw.
  virtual const Tensor* input(int i) const = 0;
  virtual int output_count() const = 0;
  // The bound output with the dtype and shape set in Prepare, contiguous, contents undefined;
  // nullptr for an omitted output and for a dynamic output not yet allocated.
  virtual Tensor* output(int i) = 0;
  // The workspace asked for in Prepare (an empty span when 0 bytes).
  virtual std::span<std::byte> workspace() = 0;
  // Allocates dynamic output `i` with `shape` and returns it. Errors: kKernelContractViolation
  // when `i` was not declared dynamic in Prepare, is omitted or already allocated, or `shape` has
  // a negative dim; kOutOfMemory when the device is full.
  virtual Result<Tensor*> AllocateOutput(int i, Shape shape) = 0;

  // Calls fn(begin, end) on disjoint ranges covering [0, n), each at least `min_chunk` long
  // (but the last), possibly on several threads, and returns when all are done. `fn` must not
  // throw and must be safe to run concurrently on disjoint ranges. The default runs fn(0, n)
  // inline; the runtime overrides it with its intra-op thread pool.
  virtual void ParallelFor(int64_t n, int64_t min_chunk,
                           const std::function<void(int64_t, int64_t)>& fn);
  // Threads ParallelFor may use, counting the caller (>= 1).
  virtual int thread_count() const { return 1; }
};

class Kernel {
 public:
  virtual ~Kernel() = default;

  // Input indices whose contents Prepare reads (see the file comment), ascending. Asked once
  // after creation. Default: none.
  virtual std::vector<int> ValueInputs() const { return {}; }

  // Sets every present output's dtype and shape (or declares it dynamic) and the workspace size.
  // Errors: kInvalidModel / kInvalidArgument for inputs the op cannot accept (rank, dtype,
  // values), naming the input and both the found and the expected value.
  virtual Status Prepare(PrepareContext& ctx) = 0;

  // Computes the outputs from the inputs. Errors: kRuntimeError for failures only known while
  // running (an index out of range in Gather's data, a device error).
  virtual Status Compute(ComputeContext& ctx) = 0;
};

}  // namespace nxrt
