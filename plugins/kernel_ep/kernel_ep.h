// plugins/kernel_ep/kernel_ep.h: the kernel-registry test EP (ORT 1.24+ style): no Compile, a
// kernel registry (OrtEp::GetKernelRegistry), single nodes claimed with
// EpGraphSupportInfo_AddSingleNode, control flow through OrtEpApi's kernel helpers.
//
// Layer: test plugin nxrt_kernel_ep (ORT C headers only). EP name "kernel_ep", vendor "nxrt".
// Its registry holds float32 kernels for Add, Sub, Mul, Div (since_version 7 up to 14, as three
// defs: [7, 12], 13, 14, numpy broadcasting), Relu ([6, 12], 13, 14), Sigmoid and Tanh ([6, 12],
// 13), Identity ([1, 24], input 0 aliased to output 0), and If ([1, 24], CreateIfKernel), Loop
// ([1, 24], CreateLoopKernel with an OrtLoopKernelHelper) and Scan ([9, 24], CreateScanKernel
// with an OrtScanKernelHelper) with the host's control-flow kernels. GetCapability claims every
// node EpGraphSupportInfo_LookUpKernel finds a kernel for, logging each declined node.
// The faults (-DNXRT_KERNEL_FAULT_<NAME>, EP name "kernel_fault_<name>") break one thing each:
// BAD_CONSTRAINT (Mul's def names type constraint "X"), CREATE_FAILS (Mul's creation function
// fails), NULL_IMPL (it returns no kernel), NULL_COMPUTE (Mul's kernel has no Compute),
// UNREGISTERED (GetCapability claims every node, kernel or not), OWN_IF (If's kernel is the
// plugin's own instead of CreateIfKernel's), BAD_FLAGS (Div's kernel sets OrtKernelImpl::flags to
// 2, above ORT's largest flag, as an uninitialised struct would; every elementwise kernel has a
// PrePackWeight that counts its calls and packs nothing).
#pragma once

#include <cstdint>
#include <string>

#include "onnxruntime_c_api.h"

namespace nxrt_kernel_ep {

// The counters the library exports (NxrtKernelEp_<name>), since load or the last reset.
enum class Counter {
  kComputeCalls,    // successful OrtKernelImpl::Compute calls of the plugin's own kernels
  kKernelsCreated,  // OrtKernelImpl instances made by the creation functions (incl. helpers')
  kKernelsReleased,
  kControlFlowKernels,  // kernels made through CreateIfKernel / CreateLoopKernel / CreateScanKernel
  kConcatCalls,         // OrtLoopKernelHelper::ConcatOutput calls
  kTransposeCalls,      // OrtScanKernelHelper::Transpose calls
  kHelpersReleased,     // OrtLoopKernelHelper / OrtScanKernelHelper Release calls
  kPrePackCalls,        // OrtKernelImpl::PrePackWeight calls (BAD_FLAGS only has the function)
  kCount,
};

void Increment(Counter counter);
uint64_t Read(Counter counter);
void ResetCounters();

// Every node the EP claimed, "<graph name>/<node name>", sorted, joined by '\n' (since load or
// the last reset).
std::string Claims();
void RecordClaim(std::string claim);

// CreateEpFactories for the kernel EP named `ep_name` (a string that outlives the factory).
OrtStatus* CreateKernelEpFactories(const OrtApiBase* api_base, const char* ep_name,
                                   OrtEpFactory** factories, size_t max_factories,
                                   size_t* num_factories);
void ReleaseKernelEpFactory(OrtEpFactory* factory);

// The EP's kernel registry, made with the host's `ort`/`ep` tables for EP `ep_name`. The caller
// releases it with OrtEpApi::ReleaseKernelRegistry.
OrtStatus* CreateKernelRegistry(const OrtApi& ort, const OrtEpApi& ep, const char* ep_name,
                                OrtKernelRegistry** registry);

}  // namespace nxrt_kernel_ep
