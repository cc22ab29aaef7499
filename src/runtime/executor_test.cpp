// runtime/executor_test.cpp: PlanInstance on hand-made plans of test kernels: workspaces packed
// in the arena with the intermediates, runs with new shapes, and the steady-state promise of
// executor.h (a run allocates nothing on the heap but its graph outputs), counted by replacing
// the global operator new in this test binary; and a Session whose runs alternate two input
// shapes staying in that steady state (one pooled instance per shape).
#include "runtime/executor.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "ep/test_graph.h"
#include "nxrt/session.h"
#include "runtime/memory_planner.h"

namespace {

std::atomic<bool> g_counting{false};
std::atomic<int64_t> g_allocations{0};

void* Allocate(std::size_t bytes, std::size_t alignment) {
  if (g_counting.load(std::memory_order_relaxed)) ++g_allocations;
  if (bytes == 0) bytes = 1;
  return alignment <= alignof(std::max_align_t)
             ? std::malloc(bytes)
             : std::aligned_alloc(alignment, (bytes + alignment - 1) / alignment * alignment);
}

void* AllocateOrThrow(std::size_t bytes, std::size_t alignment) {
  void* p = Allocate(bytes, alignment);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

}  // namespace

void* operator new(std::size_t n) { return AllocateOrThrow(n, alignof(std::max_align_t)); }
void* operator new[](std::size_t n) { return AllocateOrThrow(n, alignof(std::max_align_t)); }
void* operator new(std::size_t n, std::align_val_t a) {
  return AllocateOrThrow(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, std::align_val_t a) {
  return AllocateOrThrow(n, static_cast<std::size_t>(a));
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  return Allocate(n, alignof(std::max_align_t));
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  return Allocate(n, alignof(std::max_align_t));
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

namespace nxrt::runtime {
namespace {

// Heap allocations (operator new) made while `fn` runs.
template <typename Fn>
int64_t CountAllocations(Fn&& fn) {
  g_allocations = 0;
  g_counting = true;
  fn();
  g_counting = false;
  return g_allocations.load();
}

// y[j] = x[0] + 1 for every j, y being `factor` times as long as x; asks for `workspace` bytes,
// fills them, and records where they were.
class FillKernel : public Kernel {
 public:
  FillKernel(int64_t factor, size_t workspace, std::vector<const std::byte*>* seen)
      : factor_(factor), workspace_(workspace), seen_(seen) {}
  Status Prepare(PrepareContext& ctx) override {
    ctx.SetWorkspaceBytes(workspace_);
    return ctx.SetOutput(0, DataType::kFloat, {ctx.input_shape(0)[0] * factor_});
  }
  Status Compute(ComputeContext& ctx) override {
    std::span<std::byte> ws = ctx.workspace();
    if (!ws.empty()) std::memset(ws.data(), 0x5a, ws.size());
    seen_->push_back(ws.data());
    Tensor* y = ctx.output(0);
    const float v = ctx.input(0)->data<float>()[0] + 1;
    std::fill(y->mutable_data<float>(), y->mutable_data<float>() + y->element_count(), v);
    return Status::Ok();
  }

 private:
  int64_t factor_;
  size_t workspace_;
  std::vector<const std::byte*>* seen_;
};

// A chain x -> v1 -> ... -> y of FillKernel steps, step s multiplying the length by factors[s]
// and asking for workspaces[s] bytes.
class Chain {
 public:
  Chain(const std::vector<int64_t>& factors, const std::vector<size_t>& workspaces) {
    std::string in = "x";
    g_.Input("x");
    for (size_t s = 0; s < factors.size(); ++s) {
      const std::string out = s + 1 == factors.size() ? "y" : "v" + std::to_string(s + 1);
      const std::string name = "fill_" + std::to_string(s);
      g_.Node("Fill", {in}, {out}, name, "test");
      StepPlan step;
      step.name = name;
      step.op_type = "Fill";
      step.ep_name = "test";
      step.make_kernel = [this, f = factors[s],
                          w = workspaces[s]]() -> Result<std::unique_ptr<Kernel>> {
        return std::unique_ptr<Kernel>(std::make_unique<FillKernel>(f, w, &workspaces_seen));
      };
      step.inputs = {g_.Value(in)};
      step.explicit_inputs = 1;
      step.outputs = {g_.Value(out)};
      step.description = "node '" + name + "' (Fill)";
      plan_.steps.push_back(std::move(step));
      in = out;
    }
    g_.Output("y");
    plan_.graph = &g_.graph();
    plan_.ComputeValuePlans();
    instance_ = PlanInstance::Create(plan_).value();
  }

  PlanInstance& instance() { return *instance_; }

  // Binds x (outside any count), runs, and returns y.
  Result<Tensor> Run(const Tensor& x, ThreadPool& pool, int64_t* allocations = nullptr) {
    workspaces_seen.clear();
    instance_->values()[g_.Value("x")] = Value(x);
    Status status;
    const int64_t n = CountAllocations([&] { status = instance_->Run(pool, {}); });
    if (allocations != nullptr) *allocations = n;
    NXRT_RETURN_IF_ERROR(status);
    Tensor y = instance_->values()[g_.Value("y")].tensor();
    instance_->ReleaseBindings();
    return y;
  }

  std::vector<const std::byte*> workspaces_seen;

 private:
  ep::testing::TestGraph g_;
  GraphPlan plan_;
  std::unique_ptr<PlanInstance> instance_;
};

bool InArena(const Arena& arena, const std::byte* p) {
  return p != nullptr && p >= arena.data() && p < arena.data() + arena.size();
}

TEST(ExecutorTest, SteadyStateRunsAllocateOnlyTheGraphOutputs) {
  ThreadPool pool(1);
  Chain chain({1, 1, 1, 1, 1, 1}, {4096, 4096, 0, 4096, 4096, 4096});
  const Tensor x = Tensor::FromVector<float>({256}, std::vector<float>(256, 2.0f)).value();
  int64_t first = 0, steady = 0;
  ASSERT_TRUE(chain.Run(x, pool, &first).ok());
  ASSERT_TRUE(chain.Run(x, pool).ok());
  Result<Tensor> y = chain.Run(x, pool, &steady);
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ(y->shape(), Shape({256}));
  EXPECT_EQ(y->data<float>()[255], 8.0f);

  // What allocating the one graph output costs, counted the same way.
  const int64_t output = CountAllocations([] { (void)Tensor::Allocate(DataType::kFloat, {256}); });
  EXPECT_GT(output, 0);
  EXPECT_EQ(steady, output) << "the first run made " << first;
  EXPECT_GT(first, steady);  // the first run placed everything on its own, then planned
  // Every workspace of the steady run was arena bytes.
  ASSERT_EQ(chain.workspaces_seen.size(), 6u);
  for (size_t s = 0; s < 6; ++s) {
    if (s == 2) continue;  // asked for none
    EXPECT_TRUE(InArena(chain.instance().arena(), chain.workspaces_seen[s])) << "step " << s;
  }
}

TEST(ExecutorTest, WorkspacesShareTheArenaWithIntermediates) {
  // fill_0: x[16] -> v1 (1 KB) with a 64 KB workspace; fill_1: v1 -> v2 (64 KB); fill_2: v2 ->
  // v3 (64 KB); fill_3: v3 -> y (a graph output, not in the arena). The workspace is live at
  // step 0 only, when just v1 is, so it shares bytes with v2 and v3: the arena is the 128 KB of
  // v2 + v3, not 128 KB + 64 KB as with a workspace beside the arena.
  ThreadPool pool(1);
  Chain chain({16, 64, 1, 1}, {65536, 0, 0, 0});
  const Tensor x = Tensor::FromVector<float>({16}, std::vector<float>(16, 0.0f)).value();
  ASSERT_TRUE(chain.Run(x, pool).ok());
  Result<Tensor> y = chain.Run(x, pool);
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ(y->shape(), Shape({16 * 16 * 64}));
  EXPECT_EQ(y->data<float>()[0], 4.0f);
  const std::vector<BufferLifetime> buffers = {
      {65536, 0, 0},       // fill_0's workspace
      {1024, 0, 1},        // v1
      {65536, 1, 2},       // v2
      {65536, 2, 3},       // v3
  };
  EXPECT_EQ(PeakLiveBytes(buffers), 131072);
  EXPECT_EQ(chain.instance().arena().size(), 131072);
  EXPECT_TRUE(InArena(chain.instance().arena(), chain.workspaces_seen[0]));
}

TEST(ExecutorTest, NewShapesRunOnTheirOwnBuffersThenReplan) {
  ThreadPool pool(2);
  Chain chain({2, 1, 3}, {256, 512, 0});
  for (int64_t n : {8, 8, 32, 32, 4}) {
    const Tensor x = Tensor::FromVector<float>({n}, std::vector<float>(n, 1.5f)).value();
    Result<Tensor> y = chain.Run(x, pool);
    ASSERT_TRUE(y.ok()) << y.status().ToString();
    EXPECT_EQ(y->shape(), Shape({n * 6}));
    EXPECT_EQ(y->data<float>()[n * 6 - 1], 4.5f);
    // Planned from this run: v1 and v2 (n * 2 floats each) and the workspaces of steps 0, 1.
    const std::vector<BufferLifetime> buffers = {
        {n * 8, 0, 1}, {n * 8, 1, 2}, {256, 0, 0}, {512, 1, 1}};
    EXPECT_EQ(chain.instance().arena().size(), PeakLiveBytes(buffers)) << "x[" << n << "]";
  }
}

// x [-1, 3] -> Add(x, x) = a -> Mul(a, x) = y: `a` is an intermediate the arena holds.
std::vector<std::byte> AddMulModel() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("add_mul");
  const auto declare = [](onnx::ValueInfoProto* v, const char* name) {  // float [n, 3]
    v->set_name(name);
    onnx::TypeProto_Tensor* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    t->mutable_shape()->add_dim()->set_dim_param("n");
    t->mutable_shape()->add_dim()->set_dim_value(3);
  };
  declare(g->add_input(), "x");
  declare(g->add_output(), "y");
  onnx::NodeProto* add = g->add_node();
  add->set_op_type("Add");
  add->add_input("x");
  add->add_input("x");
  add->add_output("a");
  onnx::NodeProto* mul = g->add_node();
  mul->set_op_type("Mul");
  mul->add_input("a");
  mul->add_input("x");
  mul->add_output("y");
  const std::string bytes = m.SerializeAsString();
  const auto* data = reinterpret_cast<const std::byte*>(bytes.data());
  return std::vector<std::byte>(data, data + bytes.size());
}

// Sequential runs alternating two input shapes (a decoder's prefill and decode steps) each get
// the pooled instance last run on their shapes: once both ran twice, a run after the other's
// allocates exactly what a run repeating its own shape does (no kernel preparing again, no
// intermediate outside the arena, no new layout), and computes the same.
TEST(ExecutorTest, SessionRunsAlternatingTwoShapesStayInSteadyState) {
  SessionOptions options;
  options.intra_op_threads = 1;
  Result<std::unique_ptr<Session>> session = Session::CreateFromBytes(AddMulModel(), options);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  const auto input = [](int64_t n) {
    std::vector<float> x(static_cast<size_t>(n * 3));
    for (size_t i = 0; i < x.size(); ++i) x[i] = 0.25f * static_cast<float>(i) - 1.0f;
    return Tensor::FromVector<float>({n, 3}, x).value();
  };
  const Tensor prefill = input(32), decode = input(1);
  const auto run = [&](const Tensor& x, int64_t* allocations) {
    const std::vector<NamedTensor> feeds = {{"x", x}};
    const std::vector<std::string> names = {"y"};
    std::optional<Result<std::vector<NamedTensor>>> out;
    *allocations = CountAllocations([&] { out.emplace((*session)->Run(feeds, names)); });
    ASSERT_TRUE(out->ok()) << out->status().ToString();
    const Tensor& y = (**out)[0].tensor;
    ASSERT_EQ(y.shape(), x.shape());
    for (int64_t i = 0; i < x.element_count(); ++i) {
      const float v = x.data<float>()[i];
      ASSERT_EQ(y.data<float>()[i], 2 * v * v) << "element " << i;
    }
  };
  // Two rounds first: the pool's own containers reach their size.
  int64_t ignored = 0, after_other = 0, repeated = 0;
  for (const Tensor* x : {&prefill, &decode, &prefill, &decode}) run(*x, &ignored);
  for (const Tensor* x : {&prefill, &decode, &prefill, &decode}) {
    run(*x, &after_other);
    run(*x, &repeated);
    EXPECT_EQ(after_other, repeated) << "x" << ShapeToString(x->shape());
  }
}

// A decoder's decode steps each have new input shapes (its attention mask grows by one per
// token): they re-prepare one pooled instance among themselves, and the prefill's instance stays
// prepared for the next prompt, which then allocates what a repeated prefill does.
TEST(ExecutorTest, SessionKeepsThePrefillInstanceThroughStepsOfGrowingShapes) {
  SessionOptions options;
  options.intra_op_threads = 1;
  Result<std::unique_ptr<Session>> session = Session::CreateFromBytes(AddMulModel(), options);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  const auto run = [&](int64_t n) {
    const Tensor x = Tensor::FromVector<float>({n, 3}, std::vector<float>(
                                                           static_cast<size_t>(n * 3), 0.5f))
                         .value();
    const std::vector<NamedTensor> feeds = {{"x", x}};
    const std::vector<std::string> names = {"y"};
    std::optional<Result<std::vector<NamedTensor>>> out;
    const int64_t allocations =
        CountAllocations([&] { out.emplace((*session)->Run(feeds, names)); });
    EXPECT_TRUE(out->ok()) << out->status().ToString();
    return allocations;
  };
  for (int64_t n : {32, 1, 2, 32}) run(n);  // the pool's own containers reach their size
  const int64_t repeated = run(32);
  for (int64_t n = 3; n < 8; ++n) run(n);
  EXPECT_EQ(run(32), repeated);
}

}  // namespace
}  // namespace nxrt::runtime
