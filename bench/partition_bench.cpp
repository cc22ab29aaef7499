// bench/partition_bench.cpp: how partitioning and placement time grows with graph size.
//
// Three layers, each on random graphs of 1k, 10k and 100k nodes:
//   PartitionDag    the partitioner itself on a DAG (ep/partitioner.h);
//   PartitionGraph  the same on an IR graph, with the node DAG built and claim boundaries
//                   computed (the GraphView is built once, outside the timing);
//   PlaceGraph      placement with two EPs (NodeInfo for every node, Supports, partitioning,
//                   boundaries).
// Graphs: "local" ones look like exported networks (each node reads 1-3 values, mostly from
// the last few nodes, sometimes from far back); "uniform" ones read from anywhere before, the
// worst case for anything that tracks reachability. 70% of nodes are supported; 1% hold
// subgraphs. Google Benchmark fits the growth (BigO) over the sizes.
#include <benchmark/benchmark.h>

#include <memory>
#include <random>
#include <set>
#include <string>

#include "ep/ep_registry.h"
#include "ep/partitioner.h"
#include "ep/placement.h"
#include "ir/graph_view.h"

namespace nxrt::ep {
namespace {

enum class Shape { kLocal, kUniform };

// Predecessor choice for node `s` (0-based creation index, s >= 1).
int PickPredecessor(std::mt19937_64& rng, int s, Shape shape) {
  std::uniform_real_distribution<double> coin(0, 1);
  if (shape == Shape::kUniform || coin(rng) < 0.05) {
    return std::uniform_int_distribution<int>(0, s - 1)(rng);
  }
  std::geometric_distribution<int> back(0.5);
  return std::max(0, s - 1 - back(rng));
}

struct RandomDag {
  Dag dag;
  std::vector<UnitRole> roles;
};

RandomDag MakeDag(int n, Shape shape, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> coin(0, 1);
  RandomDag r;
  r.roles.resize(n);
  r.dag.pred_offsets.push_back(0);
  for (int s = 0; s < n; ++s) {
    r.dag.order.push_back(s);
    const int k = s == 0 ? 0 : std::uniform_int_distribution<int>(1, std::min(3, s))(rng);
    for (int j = 0; j < k; ++j) r.dag.preds.push_back(PickPredecessor(rng, s, shape));
    r.dag.pred_offsets.push_back(static_cast<int32_t>(r.dag.preds.size()));
    double c = coin(rng);
    r.roles[s] = c < 0.01   ? UnitRole::kSingle
                 : c < 0.70 ? UnitRole::kCandidate
                            : UnitRole::kBlocked;
  }
  return r;
}

// The same kind of graph as IR: node i is "Add" (supported) or "Custom" (unsupported), reads
// 1-3 earlier values (or the graph input) and writes one; the last 8 values are graph outputs.
struct RandomModel {
  ir::Model model;
  std::shared_ptr<ir::Graph> graph;
};

std::unique_ptr<RandomModel> MakeModel(int n, Shape shape, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> coin(0, 1);
  auto m = std::make_unique<RandomModel>();
  m->graph = std::make_shared<ir::Graph>();
  m->model.opset_imports = {{"", 17}, {"com.example", 1}};
  m->model.graph = m->graph;
  ir::Graph& g = *m->graph;
  g.name = "random";
  auto add_value = [&](std::string name) {
    ir::Value v;
    v.name = std::move(name);
    v.type = ir::TypeInfo::Tensor(DataType::kFloat);
    return g.AddValue(std::move(v));
  };
  g.inputs.push_back(add_value("x"));
  for (int s = 0; s < n; ++s) {
    ir::Node node;
    node.id = s;
    const bool supported = coin(rng) < 0.70;
    node.op_type = supported ? "Add" : "Custom";
    node.domain = supported ? "" : "com.example";
    node.name = std::string("n").append(std::to_string(s));
    const int k = std::uniform_int_distribution<int>(1, 3)(rng);
    for (int j = 0; j < k; ++j) {
      // Value 0 is the graph input; value s + 1 is node s's output.
      node.inputs.push_back(s == 0 ? 0 : 1 + PickPredecessor(rng, s, shape));
    }
    node.outputs.push_back(add_value(std::string("v").append(std::to_string(s))));
    g.nodes.push_back(std::move(node));
  }
  for (int s = std::max(0, n - 8); s < n; ++s) g.outputs.push_back(1 + s);
  return m;
}

// Supports one op type at a cost of 1 us.
class OneOpEp : public ExecutionProvider {
 public:
  OneOpEp(std::string name, std::string op)
      : ExecutionProvider(std::move(name), Device{}), op_(std::move(op)) {}
  KernelMatch Supports(const NodeInfo& node) const override {
    if (node.op_type() == op_) return KernelMatch::Supported(1.0);
    return KernelMatch::Unsupported("runs only " + op_);
  }
  Result<std::unique_ptr<Kernel>> CreateKernel(const NodeInfo& node) override {
    return node.Error(StatusCode::kNotImplemented, "benchmark EP");
  }

 private:
  std::string op_;
};

void BM_PartitionDag(benchmark::State& state, Shape shape) {
  const RandomDag r = MakeDag(static_cast<int>(state.range(0)), shape, 42);
  size_t groups = 0;
  for (auto _ : state) {
    auto result = PartitionDag(r.dag, r.roles);
    groups = result.size();
    benchmark::DoNotOptimize(result.data());
  }
  state.SetComplexityN(state.range(0));
  state.counters["claims"] = static_cast<double>(groups);
  state.counters["nodes/s"] = benchmark::Counter(static_cast<double>(state.range(0)),
                                                 benchmark::Counter::kIsIterationInvariantRate);
}

void BM_PartitionGraph(benchmark::State& state, Shape shape) {
  std::unique_ptr<RandomModel> m = MakeModel(static_cast<int>(state.range(0)), shape, 42);
  Result<ir::GraphView> view = ir::GraphView::Create(m->model, *m->graph);
  if (!view.ok()) {
    state.SkipWithError(view.status().ToString().c_str());
    return;
  }
  const ir::Graph& g = *m->graph;
  NodePredicate supported = [&g](ir::NodeId v) { return g.nodes[v].op_type == "Add"; };
  size_t claims = 0;
  for (auto _ : state) {
    std::vector<Claim> result = PartitionGraph(*view, supported);
    claims = result.size();
    benchmark::DoNotOptimize(result.data());
  }
  state.SetComplexityN(state.range(0));
  state.counters["claims"] = static_cast<double>(claims);
}

void BM_PlaceGraph(benchmark::State& state, Shape shape) {
  std::unique_ptr<RandomModel> m = MakeModel(static_cast<int>(state.range(0)), shape, 42);
  Result<ir::GraphView> view = ir::GraphView::Create(m->model, *m->graph);
  EpRegistry registry;
  if (!view.ok() || !registry.Add(std::make_shared<OneOpEp>("accel", "Add")).ok() ||
      !registry.Add(std::make_shared<OneOpEp>("cpu", "Custom")).ok() ||
      !registry.InitializeAll().ok()) {
    state.SkipWithError("setup failed");
    return;
  }
  size_t claims = 0;
  for (auto _ : state) {
    Result<Placement> p = PlaceGraph(*view, registry);
    if (!p.ok()) {
      state.SkipWithError(p.status().ToString().c_str());
      return;
    }
    claims = p->claims.size();
  }
  state.SetComplexityN(state.range(0));
  state.counters["claims"] = static_cast<double>(claims);
}

void Sizes(benchmark::internal::Benchmark* b) {
  b->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond)->Complexity();
}

BENCHMARK_CAPTURE(BM_PartitionDag, local, Shape::kLocal)->Apply(Sizes);
BENCHMARK_CAPTURE(BM_PartitionDag, uniform, Shape::kUniform)->Apply(Sizes);
BENCHMARK_CAPTURE(BM_PartitionGraph, local, Shape::kLocal)->Apply(Sizes);
BENCHMARK_CAPTURE(BM_PartitionGraph, uniform, Shape::kUniform)->Apply(Sizes);
BENCHMARK_CAPTURE(BM_PlaceGraph, local, Shape::kLocal)->Apply(Sizes);

}  // namespace
}  // namespace nxrt::ep

BENCHMARK_MAIN();
