// ep/kernel_host_test.cpp: the kernel host (ep/kernel_host.h): prepare-if-changed, value inputs,
// dynamic outputs, workspace, the PrepareContext extensions, and every contract check with its
// one status code; and ExecutionProvider's host-memory defaults.
#include "ep/kernel_host.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <string>

#include "ep/in_place.h"
#include "ep/prepacked.h"
#include "nxrt/execution_provider.h"

namespace nxrt::ep {
namespace {

constexpr char kName[] = "node 'k' (Test)";
constexpr char kBroken[] = "node 'k' (Test): kernel contract (nxrt/kernel.h): ";

KernelHost Host(std::unique_ptr<Kernel> kernel) { return KernelHost(std::move(kernel), kName); }

// Reshape: the output shape is the value of input 1, so input 1 is a value input. Counts its
// Prepare calls.
class ReshapeKernel : public Kernel {
 public:
  explicit ReshapeKernel(int* prepares) : prepares_(prepares) {}
  std::vector<int> ValueInputs() const override { return {1}; }
  Status Prepare(PrepareContext& ctx) override {
    ++*prepares_;
    NXRT_ASSIGN_OR_RETURN(const Tensor* shape, ctx.input_value(1));
    Shape dims(shape->span<int64_t>().begin(), shape->span<int64_t>().end());
    return ctx.SetOutput(0, ctx.input_dtype(0), dims);
  }
  Status Compute(ComputeContext& ctx) override {
    std::memcpy(ctx.output(0)->mutable_raw_data(), ctx.input(0)->raw_data(),
                ctx.input(0)->byte_size());
    return Status::Ok();
  }

 private:
  int* prepares_;
};

// NonZero: the output is [1, count] where count depends on the data.
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

TEST(KernelHostTest, ValueInputsDriveOutputShapesAndRePrepare) {
  int prepares = 0;
  KernelHost host = Host(std::make_unique<ReshapeKernel>(&prepares));
  Tensor data = Tensor::FromVector<float>({2, 3}, {1, 2, 3, 4, 5, 6}).value();
  std::vector<Tensor> inputs{data, Tensor::FromVector<int64_t>({2}, {3, 2}).value()};
  Result<std::vector<Tensor>> out = host.Run(inputs);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), Shape({3, 2}));
  EXPECT_EQ((*out)[0].span<float>()[5], 6.0f);
  // Same shapes and same shape contents (in a new tensor): no second Prepare.
  inputs[1] = Tensor::FromVector<int64_t>({2}, {3, 2}).value();
  ASSERT_TRUE(host.Run(inputs).ok());
  EXPECT_EQ(prepares, 1);
  // New contents of the value input: Prepare again, new output shape.
  inputs[1] = Tensor::FromVector<int64_t>({2}, {1, 6}).value();
  out = host.Run(inputs);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(prepares, 2);
  EXPECT_EQ((*out)[0].shape(), Shape({1, 6}));
  // New data shape: Prepare again.
  inputs[0] = Tensor::FromVector<float>({6}, {1, 2, 3, 4, 5, 6}).value();
  ASSERT_TRUE(host.Run(inputs).ok());
  EXPECT_EQ(prepares, 3);
}

TEST(KernelHostTest, PreparesAgainWhenPresenceOrDtypeChanges) {
  int prepares = 0;
  class Counting : public Kernel {
   public:
    explicit Counting(int* n) : n_(n) {}
    Status Prepare(PrepareContext& ctx) override {
      ++*n_;
      return ctx.SetOutput(0, ctx.input_dtype(0), {});
    }
    Status Compute(ComputeContext&) override { return Status::Ok(); }

   private:
    int* n_;
  };
  KernelHost host = Host(std::make_unique<Counting>(&prepares));
  std::vector<Tensor> inputs{Tensor::Scalar<float>(1), Tensor::Scalar<float>(2)};
  ASSERT_TRUE(host.Run(inputs).ok());
  ASSERT_TRUE(host.Run(inputs).ok());
  EXPECT_EQ(prepares, 1);
  inputs[1] = Tensor();  // omitted now
  ASSERT_TRUE(host.Run(inputs).ok());
  EXPECT_EQ(prepares, 2);
  inputs[0] = Tensor::Scalar<int64_t>(1);
  Result<std::vector<Tensor>> out = host.Run(inputs);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(prepares, 3);
  EXPECT_EQ((*out)[0].dtype(), DataType::kInt64);
}

TEST(KernelHostTest, DynamicOutputsAreAllocatedInCompute) {
  KernelHost host = Host(std::make_unique<NonZeroKernel>());
  std::vector<Tensor> inputs{Tensor::FromVector<float>({5}, {0, 3, 0, 0, 7}).value()};
  Result<std::vector<Tensor>> out = host.Run(inputs);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), Shape({1, 2}));
  EXPECT_EQ((*out)[0].span<int64_t>()[0], 1);
  EXPECT_EQ((*out)[0].span<int64_t>()[1], 4);
}

TEST(KernelHostTest, PrepareMayReadOnlyDeclaredOrConstantInputs) {
  std::vector<Tensor> inputs{Tensor::Scalar<float>(1), Tensor::Scalar<int64_t>(2)};
  KernelHost sneaky = Host(std::make_unique<SneakyKernel>());
  Status status = sneaky.Run(inputs).status();
  EXPECT_EQ(status.code(), kKernelContractViolation);
  EXPECT_EQ(status.message(), std::string(kBroken) +
                                  "Prepare read input 1, which is neither a constant nor a value "
                                  "input of this kernel; list it in ValueInputs()");
  KernelRunOptions options;
  options.constant_inputs = {1};
  EXPECT_TRUE(Host(std::make_unique<SneakyKernel>()).Run(inputs, options).ok());
  std::vector<Tensor> omitted{Tensor::Scalar<float>(1), Tensor()};
  status = Host(std::make_unique<SneakyKernel>()).Run(omitted, options).status();
  EXPECT_EQ(status.code(), kKernelContractViolation);
  EXPECT_EQ(status.message(),
            std::string(kBroken) + "input_value(1) of an omitted input; check has_input first");
}

TEST(KernelHostTest, WorkspaceIsAlignedAndSized) {
  KernelHost host = Host(std::make_unique<WorkspaceKernel>(100));
  Result<std::vector<Tensor>> out = host.Run({});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(host.declared().workspace_bytes, 100u);
  EXPECT_EQ(*(*out)[0].data<float>(), 100.0f);
  EXPECT_TRUE(Host(std::make_unique<WorkspaceKernel>(0)).Run({}).ok());
}

// Breaks the contract in a chosen way.
class BrokenKernel : public Kernel {
 public:
  enum class Flaw {
    kUndeclaredOutput, kDynamicNeverAllocated, kAllocatesStaticOutput, kAllocatesTwice,
    kNegativeDim, kOutputOutOfRange, kUndefinedDtype, kNegativeDynamicDim, kAllocatesOmitted,
  };
  explicit BrokenKernel(Flaw flaw) : flaw_(flaw) {}
  Status Prepare(PrepareContext& ctx) override {
    switch (flaw_) {
      case Flaw::kUndeclaredOutput: return Status::Ok();
      case Flaw::kNegativeDim: return ctx.SetOutput(0, DataType::kFloat, {2, -1});
      case Flaw::kOutputOutOfRange: return ctx.SetOutput(3, DataType::kFloat, {2});
      case Flaw::kUndefinedDtype: return ctx.SetOutput(0, DataType::kUndefined, {2});
      case Flaw::kAllocatesStaticOutput: return ctx.SetOutput(0, DataType::kFloat, {2});
      default: break;
    }
    for (int i = 0; i < ctx.output_count(); ++i) {
      NXRT_RETURN_IF_ERROR(ctx.SetOutputDynamic(i, DataType::kFloat));
    }
    return Status::Ok();
  }
  Status Compute(ComputeContext& ctx) override {
    switch (flaw_) {
      case Flaw::kAllocatesStaticOutput: return ctx.AllocateOutput(0, {3}).status();
      case Flaw::kAllocatesTwice:
        NXRT_RETURN_IF_ERROR(ctx.AllocateOutput(0, {3}));
        return ctx.AllocateOutput(0, {3}).status();
      case Flaw::kNegativeDynamicDim: return ctx.AllocateOutput(0, {-3}).status();
      case Flaw::kAllocatesOmitted:
        NXRT_RETURN_IF_ERROR(ctx.AllocateOutput(0, {1}));
        return ctx.AllocateOutput(1, {1}).status();
      default: return Status::Ok();
    }
  }

 private:
  Flaw flaw_;
};

TEST(KernelHostTest, ContractViolationsHaveOneCodeAndNameTheKernel) {
  using Flaw = BrokenKernel::Flaw;
  const std::pair<Flaw, std::string> cases[] = {
      {Flaw::kUndeclaredOutput,
       "Prepare declared no dtype and shape for output 0; call SetOutput or SetOutputDynamic"},
      {Flaw::kDynamicNeverAllocated,
       "Compute did not allocate dynamic output 0; call AllocateOutput once"},
      {Flaw::kAllocatesStaticOutput,
       "AllocateOutput(0) of an output Prepare did not declare dynamic; call SetOutputDynamic in "
       "Prepare"},
      {Flaw::kAllocatesTwice,
       "AllocateOutput(0) called twice; a dynamic output is allocated once"},
      {Flaw::kNegativeDim, "SetOutput(0) with shape [2,-1], which has a negative dim"},
      {Flaw::kOutputOutOfRange, "SetOutput(3): index out of range [0, 1)"},
      {Flaw::kUndefinedDtype, "SetOutput(0) with dtype undefined"},
      {Flaw::kNegativeDynamicDim, "AllocateOutput(0) with shape [-3], which has a negative dim"},
  };
  for (const auto& [flaw, message] : cases) {
    KernelHost host = Host(std::make_unique<BrokenKernel>(flaw));
    Status status = host.Run({}).status();
    EXPECT_EQ(status.code(), kKernelContractViolation) << message;
    EXPECT_EQ(status.message(), kBroken + message);
  }
  // An omitted output is bound to nothing: allocating it breaks the contract too.
  KernelHost host = Host(std::make_unique<BrokenKernel>(Flaw::kAllocatesOmitted));
  KernelRunOptions options;
  options.outputs = {OutputUse::kUsed, OutputUse::kOmitted};
  Status status = host.Run({}, options).status();
  EXPECT_EQ(status.code(), kKernelContractViolation);
  EXPECT_EQ(status.message(), std::string(kBroken) +
                                  "AllocateOutput(1) of an omitted output; check output(1) != "
                                  "nullptr first");
}

TEST(KernelHostTest, KernelErrorsAreNamedAndPrepareRetriedAfterThem) {
  class FailsOnce : public Kernel {
   public:
    Status Prepare(PrepareContext& ctx) override {
      if (calls_++ == 0) return MakeStatus(StatusCode::kInvalidModel, "input 0 has rank 0");
      return ctx.SetOutput(0, DataType::kFloat, {});
    }
    Status Compute(ComputeContext&) override {
      return MakeStatus(StatusCode::kRuntimeError, "index 7 out of range");
    }

   private:
    int calls_ = 0;
  };
  KernelHost host = Host(std::make_unique<FailsOnce>());
  std::vector<Tensor> inputs{Tensor::Scalar<float>(1)};
  Status status = host.Run(inputs).status();
  EXPECT_EQ(status.code(), StatusCode::kInvalidModel);
  EXPECT_EQ(status.message(), "node 'k' (Test): input 0 has rank 0");
  // Same inputs, but the failed Prepare does not count: it runs again, then Compute fails.
  status = host.Run(inputs).status();
  EXPECT_EQ(status.code(), StatusCode::kRuntimeError);
  EXPECT_EQ(status.message(), "node 'k' (Test): index 7 out of range");
}

TEST(KernelHostTest, OmittedAndUnusedOutputs) {
  class TwoOutputs : public Kernel {
   public:
    Status Prepare(PrepareContext& ctx) override {
      EXPECT_EQ(ctx.output_count(), 3);
      EXPECT_TRUE(ctx.output_used(0));
      EXPECT_FALSE(ctx.output_used(1));  // unused
      EXPECT_FALSE(ctx.output_used(2));  // omitted, and left undeclared
      NXRT_RETURN_IF_ERROR(ctx.SetOutput(0, DataType::kFloat, {2}));
      return ctx.SetOutput(1, DataType::kInt64, {3});
    }
    Status Compute(ComputeContext& ctx) override {
      EXPECT_NE(ctx.output(1), nullptr);  // unused outputs are still bound
      EXPECT_EQ(ctx.output(2), nullptr);
      return Status::Ok();
    }
  };
  KernelHost host = Host(std::make_unique<TwoOutputs>());
  KernelRunOptions options;
  options.outputs = {OutputUse::kUsed, OutputUse::kUnused, OutputUse::kOmitted};
  Result<std::vector<Tensor>> out = host.Run({}, options);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->size(), 3u);
  EXPECT_EQ((*out)[1].shape(), Shape({3}));
  EXPECT_FALSE((*out)[2].defined());
}

// Packs input 0 (a constant) and offers output 0 the buffer of input 1.
class PackingKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& ctx) override {
    PrepackedConstants* prepacked = PrepackedSupport(ctx);
    InPlaceOutputs* in_place = InPlaceSupport(ctx);
    if (prepacked == nullptr || in_place == nullptr) {
      return MakeStatus(StatusCode::kUnsupported, "no prepacking or in-place support");
    }
    found = prepacked->Prepacked(0) != nullptr;
    if (!found) prepacked->SetPrepacked(0, std::make_shared<int>(42));
    in_place->AllowInPlace(0, 1);
    const std::span<const int64_t> shape = ctx.input_shape(1);
    return ctx.SetOutput(0, DataType::kFloat, Shape(shape.begin(), shape.end()));
  }
  Status Compute(ComputeContext&) override { return Status::Ok(); }
  bool found = false;
};

TEST(KernelHostTest, PrepackedCopiesAreSharedAndInPlaceOffersRecorded) {
  PrepackedCopies copies;
  std::vector<Tensor> tensors{Tensor::Scalar<float>(1), Tensor::Scalar<float>(2)};
  std::vector<const Tensor*> inputs{&tensors[0], &tensors[1]};
  const int constants[] = {0};
  const OutputUse uses[] = {OutputUse::kUsed};
  StepBinding binding;
  binding.inputs = inputs;
  binding.constant_inputs = constants;
  binding.outputs_use = uses;
  binding.prepacked = &copies;

  auto first_kernel = std::make_unique<PackingKernel>();
  PackingKernel& first = *first_kernel;
  KernelHost a = Host(std::move(first_kernel));
  Result<PrepareOutcome> outcome = a.PrepareIfChanged(binding);
  ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
  EXPECT_TRUE(outcome->prepared);
  EXPECT_TRUE(outcome->published);
  EXPECT_TRUE(outcome->in_place_changed);
  EXPECT_FALSE(first.found);
  EXPECT_EQ(a.declared().in_place, (std::vector<std::pair<int, int>>{{0, 1}}));
  ASSERT_TRUE(copies.Has(0));
  EXPECT_EQ(*std::static_pointer_cast<const int>(copies.Get(0)), 42);
  // Nothing changed: no Prepare.
  outcome = a.PrepareIfChanged(binding);
  ASSERT_TRUE(outcome.ok());
  EXPECT_FALSE(outcome->prepared);

  // Another instance's kernel of the same node finds the copy and publishes nothing; its
  // in-place offer is new to its host.
  auto second_kernel = std::make_unique<PackingKernel>();
  PackingKernel& second = *second_kernel;
  KernelHost b = Host(std::move(second_kernel));
  outcome = b.PrepareIfChanged(binding);
  ASSERT_TRUE(outcome.ok());
  EXPECT_TRUE(second.found);
  EXPECT_FALSE(outcome->published);
  EXPECT_TRUE(outcome->in_place_changed);
  // A new shape: Prepare again, with the same offer.
  Tensor wide = Tensor::FromVector<float>({2}, {1, 2}).value();
  inputs[1] = &wide;
  outcome = b.PrepareIfChanged(binding);
  ASSERT_TRUE(outcome.ok());
  EXPECT_TRUE(outcome->prepared);
  EXPECT_FALSE(outcome->in_place_changed);
}

TEST(KernelHostTest, ComputeRunsOnTheBindingsPoolAndChecksTheBinding) {
  class Parallel : public Kernel {
   public:
    Status Prepare(PrepareContext& ctx) override {
      EXPECT_EQ(ctx.thread_count(), 2);
      ctx.SetWorkspaceBytes(64);
      return ctx.SetOutput(0, DataType::kInt64, {});
    }
    Status Compute(ComputeContext& ctx) override {
      EXPECT_EQ(ctx.thread_count(), 2);
      std::atomic<int64_t> sum{0};
      ctx.ParallelFor(1000, 10, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) sum += i;
      });
      *ctx.output(0)->mutable_data<int64_t>() = sum;
      return Status::Ok();
    }
  };
  ThreadPool pool(2);
  KernelHost host = Host(std::make_unique<Parallel>());
  KernelRunOptions options;
  options.pool = &pool;
  Result<std::vector<Tensor>> out = host.Run({}, options);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*(*out)[0].data<int64_t>(), 999 * 1000 / 2);

  // A binding without the workspace the kernel asked for is the caller's bug, not the kernel's.
  const OutputUse uses[] = {OutputUse::kUsed};
  Tensor y = Tensor::Scalar<int64_t>(0);
  Tensor* outs[] = {&y};
  StepBinding binding;
  binding.outputs_use = uses;
  binding.outputs = outs;
  binding.pool = &pool;
  Status status = host.Compute(binding);
  EXPECT_EQ(status.code(), StatusCode::kInternal);
  EXPECT_EQ(status.message(),
            "node 'k' (Test): Compute bound with 1 outputs and 0 workspace bytes after a Prepare "
            "that declared 1 and 64");
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
