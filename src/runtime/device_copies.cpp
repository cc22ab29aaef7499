// runtime/device_copies.cpp: see device_copies.h.
#include "runtime/device_copies.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace nxrt::runtime {
namespace {

// A memory: null for host memory, else the EP keeping values in its device memory.
using Memory = ep::DeviceValues*;

// dst[i] = src[i] in another memory, in one transfer: the kernel of a copy step.
class DeviceCopyKernel final : public Kernel {
 public:
  DeviceCopyKernel(ep::DeviceValues& device, bool to_device, bool wait)
      : device_(device), to_device_(to_device), wait_(wait) {}

  Status Prepare(PrepareContext& ctx) override {
    for (int i = 0; i < ctx.input_count(); ++i) {
      if (!ctx.has_input(i)) {
        return MakeStatus(StatusCode::kInternal, "a copy step has no input ", i, " to copy");
      }
      const std::span<const int64_t> shape = ctx.input_shape(i);
      NXRT_RETURN_IF_ERROR(ctx.SetOutput(i, ctx.input_dtype(i), Shape(shape.begin(), shape.end())));
    }
    return Status::Ok();
  }

  Status Compute(ComputeContext& ctx) override {
    const int n = ctx.input_count();
    src_.assign(static_cast<size_t>(n), nullptr);
    dst_.assign(static_cast<size_t>(n), nullptr);
    gathered_.resize(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      const Tensor* src = ctx.input(i);
      if (!src->is_contiguous()) {  // a strided host view
        NXRT_ASSIGN_OR_RETURN(gathered_[i], src->Clone());
        src = &gathered_[i];
      }
      src_[i] = src;
      dst_[i] = ctx.output(i);
    }
    return device_.CopyTensors(src_, dst_, to_device_, wait_);
  }

 private:
  ep::DeviceValues& device_;
  bool to_device_;
  bool wait_;
  std::vector<const Tensor*> src_;
  std::vector<Tensor*> dst_;
  std::vector<Tensor> gathered_;
};

struct DeviceEp {
  ExecutionProvider* ep = nullptr;
  std::string name;
};

class Inserter {
 public:
  explicit Inserter(GraphPlan& plan) : plan_(plan), own_(plan.graph->values.size()) {}

  void Run() {
    std::vector<StepPlan> steps = std::move(plan_.steps);
    plan_.steps.clear();
    plan_.copies.clear();
    for (const StepPlan& step : steps) {
      if (step.device != nullptr) eps_[step.device] = {step.ep, step.ep_name};
    }
    FindHomesAndReaders(steps);
    // Feeds: the graph inputs each device reads, copied in one transfer before the first step,
    // as ORT copies a run's feeds.
    for (const auto& [device, owner] : eps_) {
      std::vector<std::pair<ir::ValueId, ir::ValueId>> feeds;
      for (ir::ValueId v : plan_.graph->inputs) {
        if (!readers_[{v, device}]) continue;
        const ir::ValueId on_device = NewCopy(v, device);
        versions_[{v, device}] = on_device;
        feeds.emplace_back(v, on_device);
      }
      if (!feeds.empty()) plan_.steps.push_back(CopyStep(feeds, device, true, true, "feeds"));
    }
    std::map<Memory, std::vector<std::pair<ir::ValueId, ir::ValueId>>> fetches;
    for (StepPlan& step : steps) {
      std::vector<StepPlan> before;
      for (size_t i = 0; i < step.inputs.size(); ++i) {
        const ir::ValueId v = step.inputs[i];
        if (v == ir::kNoValue) continue;
        const Memory want =
            i < step.explicit_inputs && step.InputOnDevice(i) ? step.device : nullptr;
        step.inputs[i] = VersionIn(v, want, before);
      }
      for (StepPlan& copy : before) plan_.steps.push_back(std::move(copy));
      // A graph output written on a device: the step writes a device value of its own; the
      // graph output is its host copy, made with the run's fetches at the end (or, when a host
      // step reads it too, right away).
      std::vector<StepPlan> after;
      for (size_t o = 0; o < step.outputs.size(); ++o) {
        const ir::ValueId v = step.outputs[o];
        if (v == ir::kNoValue || !step.OutputOnDevice(o) || !IsGraphOutput(v)) continue;
        const ir::ValueId on_device = NewCopy(v, step.device);
        step.outputs[o] = on_device;
        versions_[{v, step.device}] = on_device;
        versions_[{v, nullptr}] = v;
        if (readers_[{v, nullptr}]) {
          after.push_back(CopyStep({{on_device, v}}, step.device, false, true, ""));
        } else {
          fetches[step.device].emplace_back(on_device, v);
        }
      }
      plan_.steps.push_back(std::move(step));
      for (StepPlan& copy : after) plan_.steps.push_back(std::move(copy));
    }
    // In a subgraph, the runtime reads the outputs as soon as the body ends: wait for them.
    const bool wait = plan_.graph->parent != nullptr;
    for (auto& [device, pairs] : fetches) {
      plan_.steps.push_back(CopyStep(pairs, device, false, wait, "fetches"));
    }
  }

 private:
  // home_: values written in device memory; readers_[(v, memory)]: some step reads v there.
  void FindHomesAndReaders(const std::vector<StepPlan>& steps) {
    for (const StepPlan& step : steps) {
      for (size_t i = 0; i < step.inputs.size(); ++i) {
        if (step.inputs[i] == ir::kNoValue) continue;
        const Memory memory =
            i < step.explicit_inputs && step.InputOnDevice(i) ? step.device : nullptr;
        readers_[{step.inputs[i], memory}] = true;
      }
      for (size_t o = 0; o < step.outputs.size(); ++o) {
        if (step.outputs[o] != ir::kNoValue && step.OutputOnDevice(o)) {
          home_[step.outputs[o]] = step.device;
        }
      }
    }
  }

  bool IsGraphOutput(ir::ValueId v) const {
    return std::find(plan_.graph->outputs.begin(), plan_.graph->outputs.end(), v) !=
           plan_.graph->outputs.end();
  }

  Memory HomeOf(ir::ValueId v) const {
    auto it = home_.find(v);
    return it == home_.end() ? nullptr : it->second;
  }

  ir::ValueId NewCopy(ir::ValueId of, Memory memory) {
    plan_.copies.push_back({of, memory == nullptr ? std::string() : eps_.at(memory).name});
    return static_cast<ir::ValueId>(own_ + plan_.copies.size() - 1);
  }

  ir::ValueId OriginOf(ir::ValueId v) const {
    return static_cast<size_t>(v) < own_ ? v : plan_.copies[static_cast<size_t>(v) - own_].of;
  }

  // A copy step of the (source, destination) pairs into (`to_device`) or out of `device`'s
  // memory; `batch` names a run's feeds or fetches ("" for one value).
  StepPlan CopyStep(const std::vector<std::pair<ir::ValueId, ir::ValueId>>& pairs, Memory device,
                    bool to_device, bool wait, const std::string& batch) {
    const DeviceEp& owner = eps_.at(device);
    const std::string what =
        batch.empty() ? plan_.graph->values[OriginOf(pairs.front().first)].name : batch;
    StepPlan copy;
    copy.name = (to_device ? "MemcpyFromHost_" : "MemcpyToHost_") + what;
    copy.op_type = to_device ? "MemcpyFromHost" : "MemcpyToHost";
    copy.ep_name = owner.name;
    copy.ep = owner.ep;
    copy.device = device;
    for (const auto& [src, dst] : pairs) {
      copy.inputs.push_back(src);
      copy.outputs.push_back(dst);
    }
    copy.explicit_inputs = copy.inputs.size();
    copy.inputs_on_device.assign(pairs.size(), !to_device);
    copy.outputs_on_device.assign(pairs.size(), to_device);
    copy.description = "copy of " + (batch.empty() ? "'" + what + "'" : "the " + batch) + " " +
                       (to_device ? "into the memory of ep '" + owner.name + "'"
                                  : "from the memory of ep '" + owner.name + "' to the host");
    copy.foldable = true;
    copy.make_kernel = [device, to_device, wait]() -> Result<std::unique_ptr<Kernel>> {
      return std::unique_ptr<Kernel>(new DeviceCopyKernel(*device, to_device, wait));
    };
    return copy;
  }

  // The id of `v`'s value in `memory`, adding the copy steps that make it to `before`.
  ir::ValueId VersionIn(ir::ValueId v, Memory memory, std::vector<StepPlan>& before) {
    auto it = versions_.find({v, memory});
    if (it != versions_.end()) return it->second;
    const Memory home = HomeOf(v);
    if (home == memory) {
      versions_[{v, memory}] = v;
      return v;
    }
    if (memory == nullptr) {  // device → host, which a host step reads right away
      const ir::ValueId src = VersionIn(v, home, before);
      const ir::ValueId host = NewCopy(v, nullptr);
      before.push_back(CopyStep({{src, host}}, home, false, true, ""));
      versions_[{v, nullptr}] = host;
      return host;
    }
    const ir::ValueId host = VersionIn(v, nullptr, before);  // → host → device
    const ir::ValueId on_device = NewCopy(v, memory);
    before.push_back(CopyStep({{host, on_device}}, memory, true, true, ""));
    versions_[{v, memory}] = on_device;
    return on_device;
  }

  GraphPlan& plan_;
  const size_t own_;
  std::map<Memory, DeviceEp> eps_;
  std::map<ir::ValueId, Memory> home_;
  std::map<std::pair<ir::ValueId, Memory>, bool> readers_;
  std::map<std::pair<ir::ValueId, Memory>, ir::ValueId> versions_;
};

}  // namespace

void InsertDeviceCopies(GraphPlan& plan) {
  bool any = false;
  for (const StepPlan& step : plan.steps) any = any || step.device != nullptr;
  if (any) Inserter(plan).Run();
}

}  // namespace nxrt::runtime
