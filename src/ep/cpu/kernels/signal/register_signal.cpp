// ep/cpu/kernels/signal/register_signal.cpp: the signal family's kernel table.
//
// Layer: nxrt_ep_cpu. One entry per (op, opset range) with the dtypes of the ONNX schema
// (onnx/defs/math/defs.cc, opset 17; DFT-20 from the ONNX changelog: `axis` became an input).
#include <utility>
#include <vector>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/register.h"
#include "ep/cpu/kernels/signal/signal.h"

namespace nxrt::cpu {

Status RegisterSignalKernels(ep::OpRegistry& registry) {
  using kernels::Bind;
  using kernels::OnnxKernel;
  using Types = std::vector<DataType>;
  const Types ints = {DataType::kInt32, DataType::kInt64};
  const Types floats = kernels::FloatTypesBf16();
  const Types numeric = kernels::NumericTypesBf16();
  std::vector<ep::KernelDef> defs;
  for (auto [op, kind] : {std::pair{"HannWindow", math::WindowKind::kHann},
                          {"HammingWindow", math::WindowKind::kHamming},
                          {"BlackmanWindow", math::WindowKind::kBlackman}}) {
    defs.push_back(OnnxKernel(op, 17, kLatest,
                              {Bind("T1", {0}, {}, ints), Bind("T2", {}, {0}, numeric)},
                              kernels::WindowFactory(kind)));
  }
  defs.push_back(OnnxKernel("MelWeightMatrix", 17, kLatest,
                            {Bind("T1", {0, 1, 2}, {}, ints), Bind("T2", {3, 4}, {}, floats),
                             Bind("T3", {}, {0}, numeric)},
                            kernels::MelWeightMatrixFactory()));
  defs.push_back(OnnxKernel("DFT", 17, 19, {Bind("T1", {0}, {0}, floats), Bind("T2", {1}, {}, ints)},
                            kernels::DftFactory(false)));
  defs.push_back(OnnxKernel("DFT", 20, kLatest,
                            {Bind("T1", {0}, {0}, floats), Bind("T2", {1}, {}, ints),
                             Bind("Taxis", {2}, {}, {DataType::kInt64})},
                            kernels::DftFactory(true)));
  defs.push_back(OnnxKernel("STFT", 17, kLatest,
                            {Bind("T1", {0, 2}, {0}, floats), Bind("T2", {1, 3}, {}, ints)},
                            kernels::StftFactory()));
  return kernels::RegisterAll(registry, std::move(defs));
}

}  // namespace nxrt::cpu
