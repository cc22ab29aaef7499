// ep/kernel_runner_test.cpp: the two-phase kernel contract (value inputs, dynamic outputs,
// workspace) exercised through RunKernel, and ExecutionProvider's host-memory defaults.
#include "ep/kernel_runner.h"

#include <gtest/gtest.h>

#include <cstring>

#include "nxrt/execution_provider.h"

namespace nxrt::ep {
namespace {

// Reshape: the output shape is the value of input 1, so input 1 is a value input.
class ReshapeKernel : public Kernel {
 public:
  std::vector<int> ValueInputs() const override { return {1}; }
  Status Prepare(PrepareContext& ctx) override {
    NXRT_ASSIGN_OR_RETURN(const Tensor* shape, ctx.input_value(1));
    Shape dims(shape->span<int64_t>().begin(), shape->span<int64_t>().end());
    return ctx.SetOutput(0, ctx.input_dtype(0), dims);
  }
  Status Compute(ComputeContext& ctx) override {
    std::memcpy(ctx.output(0)->mutable_raw_data(), ctx.input(0)->raw_data(),
                ctx.input(0)->byte_size());
    return Status::Ok();
  }
};

// NonZero: the output is [rank, count] where count depends on the data.
class NonZeroKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& ctx) override { return ctx.SetOutputDynamic(0, DataType::kInt64); }
  Status Compute(ComputeContext& ctx) override {
    EXPECT_EQ(ctx.output(0), nullptr);  // not allocated until its shape is known
    std::span<const float> x = ctx.input(0)->span<float>();
    std::vector<int64_t> where;
    for (size_t i = 0; i < x.size(); ++i) {
      if (x[i] != 0) where.push_back(static_cast<int64_t>(i));
    }
    NXRT_ASSIGN_OR_RETURN(Tensor * out,
                          ctx.AllocateOutput(0, {1, static_cast<int64_t>(where.size())}));
    std::copy(where.begin(), where.end(), out->mutable_data<int64_t>());
    return Status::Ok();
  }
};

// Reads input 1 in Prepare without declaring it.
class SneakyKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& ctx) override {
    NXRT_RETURN_IF_ERROR(ctx.input_value(1));
    return ctx.SetOutput(0, DataType::kFloat, {});
  }
  Status Compute(ComputeContext&) override { return Status::Ok(); }
};

// Asks for `bytes` of workspace and checks what Compute gets.
class WorkspaceKernel : public Kernel {
 public:
  explicit WorkspaceKernel(size_t bytes) : bytes_(bytes) {}
  Status Prepare(PrepareContext& ctx) override {
    ctx.SetWorkspaceBytes(bytes_);
    return ctx.SetOutput(0, DataType::kFloat, {});
  }
  Status Compute(ComputeContext& ctx) override {
    std::span<std::byte> ws = ctx.workspace();
    EXPECT_EQ(ws.size(), bytes_);
    if (!ws.empty()) {
      EXPECT_EQ(reinterpret_cast<uintptr_t>(ws.data()) % 64, 0u);
      std::memset(ws.data(), 0xab, ws.size());
    }
    *ctx.output(0)->mutable_data<float>() = static_cast<float>(ws.size());
    return Status::Ok();
  }

 private:
  size_t bytes_;
};

// Breaks the contract in a chosen way.
class BrokenKernel : public Kernel {
 public:
  enum class Flaw { kUndeclaredOutput, kDynamicNeverAllocated, kAllocatesStaticOutput };
  explicit BrokenKernel(Flaw flaw) : flaw_(flaw) {}
  Status Prepare(PrepareContext& ctx) override {
    if (flaw_ == Flaw::kUndeclaredOutput) return Status::Ok();
    if (flaw_ == Flaw::kDynamicNeverAllocated) return ctx.SetOutputDynamic(0, DataType::kFloat);
    return ctx.SetOutput(0, DataType::kFloat, {2});
  }
  Status Compute(ComputeContext& ctx) override {
    if (flaw_ == Flaw::kAllocatesStaticOutput) return ctx.AllocateOutput(0, {3}).status();
    return Status::Ok();
  }

 private:
  Flaw flaw_;
};

TEST(KernelRunnerTest, ValueInputsDriveOutputShapes) {
  ReshapeKernel kernel;
  Tensor data = Tensor::FromVector<float>({2, 3}, {1, 2, 3, 4, 5, 6}).value();
  Tensor shape = Tensor::FromVector<int64_t>({2}, {3, 2}).value();
  std::vector<Tensor> inputs{data, shape};
  Result<KernelRun> run = RunKernel(kernel, inputs);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_EQ(run->outputs[0].shape(), Shape({3, 2}));
  EXPECT_EQ(run->outputs[0].span<float>()[5], 6.0f);
}

TEST(KernelRunnerTest, DynamicOutputsAreAllocatedInCompute) {
  NonZeroKernel kernel;
  std::vector<Tensor> inputs{Tensor::FromVector<float>({5}, {0, 3, 0, 0, 7}).value()};
  Result<KernelRun> run = RunKernel(kernel, inputs);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_EQ(run->outputs[0].shape(), Shape({1, 2}));
  EXPECT_EQ(run->outputs[0].span<int64_t>()[0], 1);
  EXPECT_EQ(run->outputs[0].span<int64_t>()[1], 4);
}

TEST(KernelRunnerTest, PrepareMayReadOnlyDeclaredOrConstantInputs) {
  SneakyKernel kernel;
  std::vector<Tensor> inputs{Tensor::Scalar<float>(1), Tensor::Scalar<int64_t>(2)};
  Result<KernelRun> run = RunKernel(kernel, inputs);
  EXPECT_EQ(run.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(run.status().message(),
            "input 1 is not a value input of this kernel; list it in ValueInputs()");
  KernelRunOptions options;
  options.constant_inputs = {1};
  run = RunKernel(kernel, inputs, options);
  EXPECT_TRUE(run.ok()) << run.status().ToString();
  std::vector<Tensor> omitted{Tensor::Scalar<float>(1), Tensor()};
  EXPECT_EQ(RunKernel(kernel, omitted, options).status().message(), "input 1 is omitted");
}

TEST(KernelRunnerTest, WorkspaceIsAlignedAndSized) {
  WorkspaceKernel kernel(100);
  Result<KernelRun> run = RunKernel(kernel, {});
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_EQ(run->workspace_bytes, 100u);
  EXPECT_EQ(*run->outputs[0].data<float>(), 100.0f);
  WorkspaceKernel none(0);
  EXPECT_TRUE(RunKernel(none, {}).ok());
}

TEST(KernelRunnerTest, ContractBreachesAreReported) {
  BrokenKernel undeclared(BrokenKernel::Flaw::kUndeclaredOutput);
  EXPECT_EQ(RunKernel(undeclared, {}).status().message(),
            "output 0 was not declared in Prepare (call SetOutput or SetOutputDynamic)");
  BrokenKernel never(BrokenKernel::Flaw::kDynamicNeverAllocated);
  EXPECT_EQ(RunKernel(never, {}).status().message(),
            "dynamic output 0 was not allocated in Compute (call AllocateOutput)");
  BrokenKernel allocates(BrokenKernel::Flaw::kAllocatesStaticOutput);
  EXPECT_EQ(RunKernel(allocates, {}).status().message(),
            "output 0 was not declared dynamic in Prepare");
}

TEST(KernelRunnerTest, OutputDeclarationsAreChecked) {
  class BadShape : public Kernel {
   public:
    Status Prepare(PrepareContext& ctx) override {
      Status s = ctx.SetOutput(0, DataType::kFloat, {2, -1});
      EXPECT_EQ(s.message(), "output 0 declared with shape [2,-1], which has a negative dim");
      s = ctx.SetOutput(3, DataType::kFloat, {2});
      EXPECT_EQ(s.message(), "output 3 does not exist; the node has 1 outputs");
      s = ctx.SetOutput(0, DataType::kUndefined, {2});
      EXPECT_EQ(s.message(), "output 0 declared with dtype undefined");
      EXPECT_FALSE(ctx.output_used(0));
      return ctx.SetOutput(0, DataType::kFloat, {2});
    }
    Status Compute(ComputeContext&) override { return Status::Ok(); }
  } kernel;
  KernelRunOptions options;
  options.unused_outputs = {0};
  EXPECT_TRUE(RunKernel(kernel, {}, options).ok());
}

class HostEp : public ExecutionProvider {
 public:
  HostEp() : ExecutionProvider("host", Device{}) {}
  KernelMatch Supports(const NodeInfo&) const override { return KernelMatch::Supported(); }
  Result<std::unique_ptr<Kernel>> CreateKernel(const NodeInfo& node) override {
    return node.Error(StatusCode::kNotImplemented, "no kernels");
  }
};

TEST(ExecutionProviderDefaultsTest, HostMemoryAllocateCopyAndFence) {
  HostEp ep;
  EXPECT_EQ(ep.device().ToString(), "cpu:0");
  Result<DeviceBuffer> a = ep.Allocate(100, 16);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->size, 100u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a->data) % 64, 0u);
  Result<DeviceBuffer> b = ep.Allocate(100, 256);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b->data) % 256, 0u);
  std::memset(a->data, 7, 100);
  ASSERT_TRUE(ep.Copy(*a, *b).ok());
  EXPECT_EQ(static_cast<unsigned char*>(b->data)[99], 7);
  Result<Fence> fence = ep.CopyAsync(a->Slice(10, 20), b->Slice(0, 20));
  ASSERT_TRUE(fence.ok());
  EXPECT_TRUE(fence->IsDone());
  EXPECT_TRUE(fence->Wait().ok());
  EXPECT_TRUE(ep.Sync().ok());

  EXPECT_EQ(ep.Copy(*a, b->Slice(0, 10)).message(),
            "ep 'host': copy of 100 bytes into a buffer of 10 bytes");
  DeviceBuffer on_gpu{a->data, 100, Device{DeviceType::kGpu, 1}, 0};
  EXPECT_EQ(ep.Copy(on_gpu, *b).message(),
            "ep 'host' (cpu:0) cannot copy from gpu:1 to cpu:0: it only reaches host memory");
  EXPECT_EQ(ep.Allocate(8, 3).status().message(), "ep 'host': alignment 3 is not a power of two");
  Result<DeviceBuffer> empty = ep.Allocate(0, 64);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->data, nullptr);
  ep.Deallocate(*empty);
  ep.Deallocate(*a);
  ep.Deallocate(*b);
}

TEST(ExecutionProviderDefaultsTest, FusedKernelsAreOptionalAndMatchesCarryReasons) {
  HostEp ep;
  FusedNodeInfo claim;
  claim.name = "host_claim_0";
  claim.nodes.resize(3);
  EXPECT_EQ(ep.CreateFusedKernel(claim).status().code(), StatusCode::kNotImplemented);
  EXPECT_EQ(ep.CreateFusedKernel(claim).status().message(),
            "ep 'host' runs nodes one by one and cannot build a fused kernel for claim "
            "'host_claim_0' (3 nodes)");
  EXPECT_EQ(ep.QueryExtension("nxrt.graph_claimer"), nullptr);
  KernelMatch no = KernelMatch::Unsupported("input 0 has type double; cast it to float");
  EXPECT_FALSE(no.supported());
  EXPECT_EQ(no.reason(), "input 0 has type double; cast it to float");
  KernelMatch yes = KernelMatch::Supported(12.5);
  EXPECT_TRUE(yes.supported());
  EXPECT_DOUBLE_EQ(yes.cost(), 12.5);
  EXPECT_EQ(yes.reason(), "");
}

}  // namespace
}  // namespace nxrt::ep
