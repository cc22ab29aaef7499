// ep/cpu/kernels/nn/pool.cpp: glue of MaxPool, AveragePool, LpPool and their Global forms over
// math/nn/pool.h.
//
// Layer: nxrt_ep_cpu (kernel glue). The attributes each opset has:
//   MaxPool      kernel_shape, auto_pad, pads, strides; storage_order and the Indices output
//                from 8; ceil_mode and dilations from 10
//   AveragePool  kernel_shape, auto_pad, pads, strides; count_include_pad from 7; ceil_mode
//                from 10; dilations from 19
//   LpPool       kernel_shape, auto_pad, pads, strides, p (a float at opset 1, an int from 2);
//                ceil_mode and dilations from 18
//   Global*      none (GlobalLpPool: p, a float at opset 1, an int from 2)
// Attributes an opset does not have are ignored, as the schema of that opset defines them away.
//
// nxrt's channels-last pools (domain com.nxrt, version 1; math/nn/nhwc_pool.h), X [N, H, W, C] and
// Y [N, H', W', C]: NhwcMaxPool has MaxPool-12's attributes (storage_order accepted and not
// used; no Indices output), NhwcAveragePool AveragePool-19's, NhwcGlobalAveragePool none (Y
// [N, 1, 1, C]). Compute splits the plan's units (output rows) across the intra-op threads.
#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/nn/nn.h"
#include "ep/cpu/kernels/tensor/tensor.h"
#include "ep/cpu/math/nn/nhwc_pool.h"
#include "ep/cpu/math/nn/pool.h"

namespace nxrt::cpu::kernels {
namespace {

class PoolKernel final : public Kernel {
 public:
  PoolKernel(nn::PoolKind kind, bool global, nn::PoolAttributes attributes)
      : kind_(kind), global_(global), attributes_(std::move(attributes)) {}

  Status Prepare(PrepareContext& ctx) override {
    const DataType dtype = ctx.input_dtype(0);
    if (global_) {
      NXRT_ASSIGN_OR_RETURN(plan_, nn::PrepareGlobalPool(kind_, dtype, ctx.input_shape(0),
                                                         attributes_.p));
    } else {
      NXRT_ASSIGN_OR_RETURN(plan_, nn::PreparePool(kind_, dtype, ctx.input_shape(0),
                                                   attributes_));
    }
    NXRT_RETURN_IF_ERROR(ctx.SetOutput(0, dtype, plan_.output_shape));
    if (kind_ == nn::PoolKind::kMax && ctx.output_count() > 1) {
      return ctx.SetOutput(1, DataType::kInt64, plan_.output_shape);
    }
    return Status::Ok();
  }

  Status Compute(ComputeContext& ctx) override {
    Tensor* indices = ctx.output_count() > 1 ? ctx.output(1) : nullptr;
    const void* x = ctx.input(0)->raw_data();
    void* y = ctx.output(0)->mutable_raw_data();
    int64_t* index_data = indices != nullptr ? indices->mutable_data<int64_t>() : nullptr;
    // Planes are independent: split them across threads, a window tap costing a streamed
    // element.
    const double plane_ns = static_cast<double>(plan_.work_per_plane) * kStreamNsPerElement;
    std::mutex mutex;
    Status status;
    ctx.ParallelFor(plan_.planes, MinItemsPerPart(plane_ns),
                    [&](int64_t begin, int64_t end) {
                      Status s = nn::PoolPlanes(plan_, x, y, index_data, begin, end);
                      if (s.ok()) return;
                      std::lock_guard<std::mutex> lock(mutex);
                      if (status.ok()) status = std::move(s);
                    });
    return status;
  }

 private:
  nn::PoolKind kind_;
  bool global_;
  nn::PoolAttributes attributes_;
  nn::PoolPlan plan_;
};

// LpPool's `p`: a float at opset 1, an int from opset 2; positive.
Result<double> LpNorm(const NodeInfo& node) {
  double p = 2.0;
  if (node.opset() < 2) {
    NXRT_ASSIGN_OR_RETURN(float value, node.GetFloat("p", 2.0f));
    p = value;
  } else {
    NXRT_ASSIGN_OR_RETURN(int64_t value, node.GetInt("p", 2));
    p = static_cast<double>(value);
  }
  if (!(p > 0)) {
    return node.Error(StatusCode::kInvalidModel, "attribute 'p' is ", p, ", expected > 0");
  }
  return p;
}

// The attributes of a windowed pool at `opset` (see the file comment).
Result<nn::PoolAttributes> WindowAttributes(nn::PoolKind kind, const NodeInfo& node,
                                            int64_t opset) {
  nn::PoolAttributes a;
  NXRT_ASSIGN_OR_RETURN(a.kernel_shape, node.GetInts("kernel_shape"));
  NXRT_ASSIGN_OR_RETURN(std::string auto_pad, node.GetString("auto_pad", "NOTSET"));
  Result<nn::AutoPad> parsed = nn::ParseAutoPad(auto_pad);
  NXRT_RETURN_IF_ERROR(AttributeError(node, "auto_pad", auto_pad, parsed.status()));
  a.auto_pad = *parsed;
  NXRT_ASSIGN_OR_RETURN(a.strides, node.GetInts("strides", {}));
  NXRT_ASSIGN_OR_RETURN(a.pads, node.GetInts("pads", {}));
  // ONNX Runtime 1.30 refuses a pad as large as its window's kernel size (PoolAttributes: "Pad
  // should be smaller than kernel"); such a window can lie wholly in the padding. A `pads` of the
  // wrong length is left to the geometry check at Prepare.
  const size_t rank = a.kernel_shape.size();
  if (a.pads.size() == 2 * rank) {
    for (size_t i = 0; i < a.pads.size(); ++i) {
      if (a.pads[i] >= a.kernel_shape[i % rank]) {
        return node.Error(StatusCode::kInvalidModel, "attribute 'pads' has ", a.pads[i],
                          " at position ", i, ", not smaller than kernel_shape[", i % rank,
                          "] = ", a.kernel_shape[i % rank],
                          "; make each pad smaller than its kernel size (as ONNX Runtime does)");
      }
    }
  }
  const int ceil_since = kind == nn::PoolKind::kLp ? 18 : 10;
  const int dilations_since = kind == nn::PoolKind::kMax ? 10
                              : kind == nn::PoolKind::kLp ? 18
                                                          : 19;
  if (opset >= ceil_since) {
    NXRT_ASSIGN_OR_RETURN(int64_t ceil_mode, node.GetInt("ceil_mode", 0));
    a.ceil_mode = ceil_mode != 0;
  }
  if (opset >= dilations_since) {
    NXRT_ASSIGN_OR_RETURN(a.dilations, node.GetInts("dilations", {}));
  }
  if (kind == nn::PoolKind::kMax && opset >= 8) {
    NXRT_ASSIGN_OR_RETURN(a.storage_order, node.GetInt("storage_order", 0));
  }
  if (kind == nn::PoolKind::kAverage && opset >= 7) {
    NXRT_ASSIGN_OR_RETURN(int64_t count_include_pad, node.GetInt("count_include_pad", 0));
    a.count_include_pad = count_include_pad != 0;
  }
  if (kind == nn::PoolKind::kLp) {
    NXRT_ASSIGN_OR_RETURN(a.p, LpNorm(node));
  }
  return a;
}

class NhwcPoolKernel final : public Kernel {
 public:
  NhwcPoolKernel(nn::PoolKind kind, bool global, nn::PoolAttributes attributes)
      : kind_(kind), global_(global), attributes_(std::move(attributes)) {}

  Status Prepare(PrepareContext& ctx) override {
    const DataType dtype = ctx.input_dtype(0);
    if (global_) {
      NXRT_ASSIGN_OR_RETURN(plan_, nn::PrepareNhwcGlobalAveragePool(dtype, ctx.input_shape(0)));
    } else {
      NXRT_ASSIGN_OR_RETURN(plan_,
                            nn::PrepareNhwcPool(kind_, dtype, ctx.input_shape(0), attributes_));
    }
    return ctx.SetOutput(0, dtype, plan_.output_shape);
  }

  Status Compute(ComputeContext& ctx) override {
    // One reference captured: the callable fits std::function's inline storage (no allocation).
    struct Run {
      const nn::NhwcPoolPlan& plan;
      const void* x;
      void* y;
    } run{plan_, ctx.input(0)->raw_data(), ctx.output(0)->mutable_raw_data()};
    // An element read costs a streamed element.
    const double unit_ns = static_cast<double>(plan_.work_per_unit) * kStreamNsPerElement;
    ctx.ParallelFor(plan_.units, MinItemsPerPart(unit_ns),
                    [&run](int64_t begin, int64_t end) {
                      nn::NhwcPoolUnits(run.plan, run.x, run.y, begin, end);
                    });
    return Status::Ok();
  }

 private:
  nn::PoolKind kind_;
  bool global_;
  nn::PoolAttributes attributes_;
  nn::NhwcPoolPlan plan_;
};

}  // namespace

ep::KernelFactory PoolFactory(nn::PoolKind kind) {
  return [kind](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(nn::PoolAttributes attributes,
                          WindowAttributes(kind, node, node.opset()));
    return std::unique_ptr<Kernel>(
        std::make_unique<PoolKernel>(kind, /*global=*/false, std::move(attributes)));
  };
}

ep::KernelFactory GlobalPoolFactory(nn::PoolKind kind) {
  return [kind](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    nn::PoolAttributes attributes;
    if (kind == nn::PoolKind::kLp) {
      NXRT_ASSIGN_OR_RETURN(attributes.p, LpNorm(node));
    }
    return std::unique_ptr<Kernel>(
        std::make_unique<PoolKernel>(kind, /*global=*/true, std::move(attributes)));
  };
}

ep::KernelFactory NhwcPoolFactory(nn::PoolKind kind) {
  return [kind](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    // The attributes of the latest MaxPool and AveragePool, whatever com.nxrt's version.
    NXRT_ASSIGN_OR_RETURN(nn::PoolAttributes attributes, WindowAttributes(kind, node, 19));
    return std::unique_ptr<Kernel>(
        std::make_unique<NhwcPoolKernel>(kind, /*global=*/false, std::move(attributes)));
  };
}

ep::KernelFactory NhwcGlobalAveragePoolFactory() {
  return [](const NodeInfo&) -> Result<std::unique_ptr<Kernel>> {
    return std::unique_ptr<Kernel>(std::make_unique<NhwcPoolKernel>(
        nn::PoolKind::kAverage, /*global=*/true, nn::PoolAttributes{}));
  };
}

}  // namespace nxrt::cpu::kernels
