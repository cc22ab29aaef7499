// ep/placement_test.cpp: mock EPs with chosen op sets placed in priority order, the last
// resort, failures listing every reason, plugin-style proposals with rejected claims, nodes the
// runtime runs, and the text and JSON forms of one graph (DescribePlacement, GraphPlacementText,
// GraphPlacementJson).
#include "ep/placement.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "ep/graph_claimer.h"
#include "ep/test_graph.h"

namespace nxrt::ep {
namespace {

using testing::TestGraph;

// Supports exactly the op types it is given, each at `cost` microseconds.
class MockEp : public ExecutionProvider {
 public:
  MockEp(std::string name, std::set<std::string> ops, double cost)
      : ExecutionProvider(std::move(name), Device{}), ops_(std::move(ops)), cost_(cost) {}

  KernelMatch Supports(const NodeInfo& node) const override {
    if (ops_.count(node.op_type())) return KernelMatch::Supported(cost_);
    std::string list;
    for (const std::string& op : ops_) list += (list.empty() ? "" : ", ") + op;
    return KernelMatch::Unsupported("mock ep '" + type_name() + "' runs " + list + "; not " +
                                    node.op_type());
  }
  Result<std::unique_ptr<Kernel>> CreateKernel(const NodeInfo& node) override {
    return node.Error(StatusCode::kNotImplemented, "mock ep has no kernels");
  }

 private:
  std::set<std::string> ops_;
  double cost_;
};

// Claims like an ORT plugin: answers ProposeClaims with a fixed answer.
class ClaimingEp : public ExecutionProvider, public GraphClaimer {
 public:
  ClaimingEp(std::string name, Result<GraphClaims> answer)
      : ExecutionProvider(std::move(name), Device{}), answer_(std::move(answer)) {}

  KernelMatch Supports(const NodeInfo&) const override {
    return KernelMatch::Unsupported("claims through ProposeClaims only");
  }
  Result<std::unique_ptr<Kernel>> CreateKernel(const NodeInfo& node) override {
    return node.Error(StatusCode::kNotImplemented, "no kernels");
  }
  EpExtension* QueryExtension(std::string_view name) override {
    return name == GraphClaimer::kExtensionName ? static_cast<GraphClaimer*>(this) : nullptr;
  }
  Result<GraphClaims> ProposeClaims(const ir::GraphView&, const std::vector<bool>& unavailable,
                                    const std::vector<std::string>& assigned) override {
    unavailable_seen = unavailable;
    assigned_seen = assigned;
    return answer_;
  }
  Status CompileClaims(const ir::GraphView&, std::span<const ClaimToCompile>) override {
    return MakeStatus(StatusCode::kNotImplemented, "placement tests do not compile");
  }
  Result<std::unique_ptr<Kernel>> CreateNodeKernel(const ir::Graph&, ir::NodeId) override {
    return MakeStatus(StatusCode::kNotImplemented, "placement tests make no kernels");
  }
  Result<ControlFlowHelpers> ControlFlowHelpersFor(const ir::Graph&, ir::NodeId) override {
    return MakeStatus(StatusCode::kNotImplemented, "placement tests run no control flow");
  }

  std::vector<bool> unavailable_seen;
  std::vector<std::string> assigned_seen;

 private:
  Result<GraphClaims> answer_;
};

// x → A=Add → a → U=Custom → u; B=Add(a, u) → b → C=Mul → c → D=Relu → d (output).
class PlacementTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_.Input("x");
    g_.Node("Add", {"x", "x"}, {"a"}, "A");
    g_.Node("Custom", {"a", "a"}, {"u"}, "U", "com.example");
    g_.Node("Add", {"a", "u"}, {"b"}, "B");
    g_.Node("Mul", {"b", "b"}, {"c"}, "C");
    g_.Node("Relu", {"c"}, {"d"}, "D");
    g_.Output("d");
    view_ = std::make_unique<ir::GraphView>(g_.View());
    gpu_ = std::make_shared<MockEp>("gpu", std::set<std::string>{"Add", "Mul"}, 1.0);
    cpu_ =
        std::make_shared<MockEp>("cpu", std::set<std::string>{"Add", "Custom", "Mul", "Relu"}, 0.0);
  }

  EpRegistry Registry(std::vector<std::shared_ptr<ExecutionProvider>> eps) {
    EpRegistry registry;
    for (auto& ep : eps) EXPECT_TRUE(registry.Add(ep).ok());
    EXPECT_TRUE(registry.InitializeAll().ok());
    return registry;
  }

  std::string Text(const Placement& p) { return GraphPlacementText(DescribePlacement(p, *view_)); }
  std::string Json(const Placement& p, int indent = 2) {
    return GraphPlacementJson(DescribePlacement(p, *view_), 0, indent);
  }

  std::vector<std::vector<ir::NodeId>> ClaimNodes(const Placement& p) {
    std::vector<std::vector<ir::NodeId>> out;
    for (const PlacedClaim& c : p.claims) out.push_back(c.claim.nodes);
    return out;
  }

  TestGraph g_;
  std::unique_ptr<ir::GraphView> view_;
  std::shared_ptr<MockEp> gpu_;
  std::shared_ptr<MockEp> cpu_;
};

constexpr char kTwoEpText[] =
    "graph 'test': 5 nodes, 4 claims; eps in priority order: gpu cpu\n"
    "claim 0: gpu, 1 node, cost 1 us\n"
    "  nodes:   #0:Add:A\n"
    "  inputs:  x\n"
    "  outputs: a\n"
    "claim 1: gpu, 2 nodes, cost 2 us\n"
    "  nodes:   #2:Add:B #3:Mul:C\n"
    "  inputs:  a, u\n"
    "  outputs: c\n"
    "claim 2: cpu, 1 node\n"
    "  nodes:   #1:Custom:U\n"
    "  inputs:  a\n"
    "  outputs: u\n"
    "claim 3: cpu, 1 node\n"
    "  nodes:   #4:Relu:D\n"
    "  inputs:  c\n"
    "  outputs: d\n"
    "run by the runtime: none\n"
    "declined: 2 nodes\n"
    "  #1:Custom:U -> claim 2 (cpu)\n"
    "    gpu: mock ep 'gpu' runs Add, Mul; not Custom\n"
    "  #4:Relu:D -> claim 3 (cpu)\n"
    "    gpu: mock ep 'gpu' runs Add, Mul; not Relu\n"
    "rejected claims: none\n"
    "unplaced: none\n";

TEST_F(PlacementTest, EpsClaimInPriorityOrderAndTheNextTakesWhatIsLeft) {
  EpRegistry registry = Registry({gpu_, cpu_});
  Result<Placement> p = PlaceGraph(*view_, registry);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_TRUE(p->complete());
  EXPECT_EQ(p->eps, (std::vector<std::string>{"gpu", "cpu"}));
  // The gpu cannot take A and B together: A → U → B would leave and re-enter the claim.
  EXPECT_EQ(ClaimNodes(*p), (std::vector<std::vector<ir::NodeId>>{{0}, {2, 3}, {1}, {4}}));
  EXPECT_EQ(p->claim_of_node, (std::vector<int32_t>{0, 2, 1, 1, 3}));
  EXPECT_EQ(p->claims[1].ep, 0);
  EXPECT_EQ(p->claims[2].ep, 1);
  EXPECT_FALSE(p->claims[1].fused);
  EXPECT_DOUBLE_EQ(p->claims[1].cost, 2.0);
  EXPECT_EQ(Text(*p), kTwoEpText);
}

TEST_F(PlacementTest, TheLastResortTakesWhatTheRegistryLeft) {
  EpRegistry registry = Registry({gpu_});
  ASSERT_TRUE(cpu_->Initialize({}).ok());
  PlacementOptions options;
  options.last_resort = cpu_.get();
  Result<Placement> p = PlaceGraph(*view_, registry, options);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(Text(*p), kTwoEpText);

  // Named explicitly, and not asked twice when it is in the registry too.
  options.last_resort_name = "fallback";
  p = PlaceGraph(*view_, registry, options);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->eps, (std::vector<std::string>{"gpu", "fallback"}));
  EpRegistry both = Registry({gpu_, cpu_});
  p = PlaceGraph(*view_, both, options);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->eps, (std::vector<std::string>{"gpu", "cpu"}));
}

TEST_F(PlacementTest, UnplacedNodesFailWithEveryEpsReason) {
  EpRegistry registry = Registry({gpu_});
  auto only_add_mul_relu =
      std::make_shared<MockEp>("cpu", std::set<std::string>{"Add", "Mul", "Relu"}, 0.0);
  ASSERT_TRUE(only_add_mul_relu->Initialize({}).ok());
  PlacementOptions options;
  options.last_resort = only_add_mul_relu.get();
  Result<Placement> p = PlaceGraph(*view_, registry, options);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kUnsupported);
  EXPECT_EQ(p.status().message(),
            "cannot place 1 of 5 nodes of graph 'test': no execution provider runs them\n"
            "  #1:Custom:U (com.example:Custom, opset 1)\n"
            "    gpu: mock ep 'gpu' runs Add, Mul; not Custom\n"
            "    cpu: mock ep 'cpu' runs Add, Mul, Relu; not Custom\n"
            "fix: put an EP that implements these ops in the EP list (e.g. --ep plugin:PATH), "
            "or change the model to avoid them (the CPU EP was asked too)");
}

TEST_F(PlacementTest, WithoutALastResortTheLeftoversAreListedOrReturned) {
  EpRegistry registry = Registry({gpu_});
  Result<Placement> p = PlaceGraph(*view_, registry);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message(),
            "cannot place 2 of 5 nodes of graph 'test': no execution provider runs them\n"
            "  #1:Custom:U (com.example:Custom, opset 1)\n"
            "    gpu: mock ep 'gpu' runs Add, Mul; not Custom\n"
            "  #4:Relu:D (Relu, opset 17)\n"
            "    gpu: mock ep 'gpu' runs Add, Mul; not Relu\n"
            "fix: put an EP that implements these ops in the EP list (e.g. --ep plugin:PATH), "
            "allow the CPU EP fallback, or change the model to avoid them");

  PlacementOptions options;
  options.allow_unplaced = true;
  p = PlaceGraph(*view_, registry, options);
  ASSERT_TRUE(p.ok());
  EXPECT_FALSE(p->complete());
  EXPECT_EQ(p->unplaced, (std::vector<ir::NodeId>{1, 4}));
  EXPECT_EQ(p->claim_of_node, (std::vector<int32_t>{0, -1, 1, 1, -1}));
  EXPECT_EQ(UnplacedError(*p, *view_, false).code(), StatusCode::kUnsupported);
  EXPECT_THAT(UnplacedError(*p, *view_, false).message(),
              ::testing::HasSubstr("allow the CPU EP fallback"));
  EXPECT_THAT(UnplacedError(*p, *view_, true).message(),
              ::testing::Not(::testing::HasSubstr("fallback")));
}

TEST_F(PlacementTest, NoEpAtAllIsAnErrorThatSaysSo) {
  EpRegistry registry;
  Result<Placement> p = PlaceGraph(*view_, registry);
  ASSERT_FALSE(p.ok());
  const std::string& message = p.status().message();
  EXPECT_EQ(message.substr(0, message.find('\n')),
            "cannot place 5 of 5 nodes of graph 'test': no execution provider runs them (no "
            "execution provider was given)");
}

TEST_F(PlacementTest, AnExcludedNodeGoesToTheNextEpWithTheReasonRecorded) {
  EpRegistry registry = Registry({gpu_, cpu_});
  PlacementOptions options;
  options.exclude = [](std::string_view ep, const NodeInfo& node) -> std::optional<std::string> {
    if (ep == "gpu" && node.op_type() == "Mul") return "the user keeps Mul off the gpu";
    return std::nullopt;
  };
  Result<Placement> p = PlaceGraph(*view_, registry, options);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(ClaimNodes(*p), (std::vector<std::vector<ir::NodeId>>{{0}, {2}, {1}, {3, 4}}));
  ASSERT_EQ(p->declines[3].size(), 1u);
  EXPECT_EQ(p->declines[3][0].ep, 0);
  EXPECT_EQ(p->declines[3][0].reason, "excluded: the user keeps Mul off the gpu");
}

TEST_F(PlacementTest, UninitializedEpsAreRefused) {
  EpRegistry registry;
  ASSERT_TRUE(registry.Add(gpu_).ok());
  Result<Placement> p = PlaceGraph(*view_, registry);
  EXPECT_EQ(p.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(p.status().message(),
            "ep 'gpu' is not initialized; call EpRegistry::InitializeAll before placing");
}

TEST_F(PlacementTest, ProposedClaimsAreValidatedAndBadOnesRejectedWithReasons) {
  GraphClaims answer;
  answer.claims = {{{0, 2}, true},  // A and B around U: not convex
                   {{3, 2}, true},  // B and C: fine, fused
                   {{3}, false},    // C again: already claimed
                   {{57}, false}};  // no such node
  answer.declined = {{4, "Relu is not offloaded"}};
  auto plugin = std::make_shared<ClaimingEp>("plugin", answer);
  // This gpu runs only Relu: it takes D first, so the plugin must not propose D.
  auto gpu = std::make_shared<MockEp>("gpu", std::set<std::string>{"Relu"}, 1.0);
  EpRegistry registry = Registry({gpu, plugin, cpu_});
  Result<Placement> p = PlaceGraph(*view_, registry);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(plugin->unavailable_seen, (std::vector<bool>{false, false, false, false, true}));
  EXPECT_EQ(ClaimNodes(*p), (std::vector<std::vector<ir::NodeId>>{{4}, {2, 3}, {0, 1}}));
  EXPECT_TRUE(p->claims[1].fused);
  EXPECT_EQ(p->eps[p->claims[1].ep], "plugin");
  ASSERT_EQ(p->rejected.size(), 3u);
  EXPECT_EQ(p->rejected[0].nodes, (std::vector<ir::NodeId>{0, 2}));
  EXPECT_EQ(p->rejected[0].reason,
            "the nodes are not convex: the path #0:Add:A -> #1:Custom:U -> #2:Add:B leaves the "
            "claim and re-enters it; claim the nodes in between too, or split the claim there");
  EXPECT_EQ(p->rejected[1].reason, "node #3:Mul:C is already claimed by 'plugin' (claim 1)");
  EXPECT_EQ(p->rejected[2].reason, "node id 57 does not exist; the graph has 5 nodes (ids 0..4)");
  // Per node: why the plugin did not take it.
  ASSERT_EQ(p->declines[0].size(), 2u);
  EXPECT_EQ(p->declines[0][1].reason, "its proposed claim was rejected: " + p->rejected[0].reason);
  EXPECT_EQ(p->declines[1][1].reason, "not claimed by the EP");
  ASSERT_EQ(p->declines[4].size(), 0u);  // the gpu took it before the plugin was asked
}

// Nodes an earlier round gave an EP (before function expansion) stay that EP's: no other EP may
// take them, a graph claimer is shown them assigned, and the EP claims them in its turn.
TEST_F(PlacementTest, NodesOfAnEarlierRoundKeepTheirEp) {
  GraphClaims answer;
  answer.claims = {{{1}, true}};  // U, which the cpu kept: rejected
  auto plugin = std::make_shared<ClaimingEp>("plugin", answer);
  EpRegistry registry = Registry({plugin, cpu_});
  PlacementOptions options;
  options.earlier_ep = {-1, 1, -1, -1, 1};  // U and D were the cpu's
  Result<Placement> p = PlaceGraph(*view_, registry, options);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(plugin->unavailable_seen, (std::vector<bool>{false, true, false, false, true}));
  EXPECT_EQ(plugin->assigned_seen, (std::vector<std::string>{"", "cpu", "", "", "cpu"}));
  ASSERT_EQ(p->rejected.size(), 1u);
  EXPECT_EQ(p->rejected[0].nodes, (std::vector<ir::NodeId>{1}));
  ASSERT_GE(p->claims.size(), 2u);
  EXPECT_EQ(p->claims[0].claim.nodes, (std::vector<ir::NodeId>{1}));
  EXPECT_EQ(p->claims[1].claim.nodes, (std::vector<ir::NodeId>{4}));
  EXPECT_EQ(p->claims[0].ep, 1);
  EXPECT_EQ(p->claims[1].ep, 1);
  EXPECT_TRUE(p->complete());
}

TEST_F(PlacementTest, ProposalsTheEpRejectedItselfAreRecordedAsGiven) {
  GraphClaims answer;
  answer.claims = {{{3}, true}};
  answer.rejected = {{{0, 2}, "group 0 names 1 node pointer(s) that are not nodes of the graph"}};
  auto plugin = std::make_shared<ClaimingEp>("plugin", answer);
  EpRegistry registry = Registry({plugin, cpu_});
  Result<Placement> p = PlaceGraph(*view_, registry);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  ASSERT_EQ(p->rejected.size(), 1u);
  EXPECT_EQ(p->rejected[0].nodes, (std::vector<ir::NodeId>{0, 2}));
  EXPECT_EQ(p->eps[p->rejected[0].ep], "plugin");
  EXPECT_EQ(p->declines[0][0].reason,
            "its proposed claim was rejected: group 0 names 1 node pointer(s) that are not nodes "
            "of the graph");
  EXPECT_EQ(p->declines[1][0].reason, "not claimed by the EP");
  EXPECT_EQ(ClaimNodes(*p), (std::vector<std::vector<ir::NodeId>>{{3}, {0, 1, 2}, {4}}));
}

TEST_F(PlacementTest, AnEpFailingToProposeIsRecordedAndSkipped) {
  auto plugin = std::make_shared<ClaimingEp>(
      "plugin", Status(StatusCode::kRuntimeError, "GetCapability returned ORT_FAIL: bad graph"));
  EpRegistry registry = Registry({plugin, cpu_});
  Result<Placement> p = PlaceGraph(*view_, registry);
  ASSERT_TRUE(p.ok());
  ASSERT_EQ(p->rejected.size(), 1u);
  EXPECT_TRUE(p->rejected[0].nodes.empty());
  const std::string why =
      "failed to propose claims: runtime error: GetCapability returned ORT_FAIL: bad graph";
  EXPECT_EQ(p->rejected[0].reason, why);
  for (ir::NodeId v = 0; v < 5; ++v) {
    ASSERT_EQ(p->declines[v].size(), 1u);
    EXPECT_EQ(p->declines[v][0].reason, why);
  }
  EXPECT_EQ(ClaimNodes(*p), (std::vector<std::vector<ir::NodeId>>{{0, 1, 2, 3, 4}}));
}

// x → A=Relu → a; I=If(cond) whose then_branch reads a; B=Add(a, i) → b (output).
void BuildIfGraph(TestGraph& g) {
  g.Input("x");
  g.Input("cond", DataType::kBool);
  g.Node("Relu", {"x"}, {"a"}, "A");
  ir::NodeId if_node = g.Node("If", {"cond"}, {"i"}, "I");
  g.AddSubgraph(if_node, "then_branch", {"a"});
  g.Node("Add", {"a", "i"}, {"b"}, "B");
  g.Output("b");
}

TEST(PlacementSubgraphTest, NodesWithSubgraphsArePlacedAlone) {
  TestGraph g;
  BuildIfGraph(g);
  ir::GraphView view = g.View();
  EpRegistry registry;
  ASSERT_TRUE(
      registry.Add(std::make_shared<MockEp>("cpu", std::set<std::string>{"Relu", "If", "Add"}, 0.0))
          .ok());
  ASSERT_TRUE(registry.InitializeAll().ok());
  Result<Placement> p = PlaceGraph(view, registry);
  ASSERT_TRUE(p.ok());
  std::vector<std::vector<ir::NodeId>> nodes;
  for (const PlacedClaim& c : p->claims) nodes.push_back(c.claim.nodes);
  EXPECT_EQ(nodes, (std::vector<std::vector<ir::NodeId>>{{0}, {1}, {2}}));
}

// The runtime's nodes (control flow, sequences): no EP is asked about them, nothing is recorded
// for them, a proposal holding one is rejected, and they are neither claimed nor unplaced.
TEST(PlacementSubgraphTest, RuntimeNodesAreOfferedToNoEp) {
  TestGraph g;
  BuildIfGraph(g);
  ir::GraphView view = g.View();
  GraphClaims answer;
  answer.claims = {{{1}, true}};  // the If
  auto plugin = std::make_shared<ClaimingEp>("plugin", answer);
  auto cpu = std::make_shared<MockEp>("cpu", std::set<std::string>{"Relu", "Add"}, 0.0);
  EpRegistry registry;
  ASSERT_TRUE(registry.Add(plugin).ok());
  ASSERT_TRUE(registry.Add(cpu).ok());
  ASSERT_TRUE(registry.InitializeAll().ok());
  PlacementOptions options;
  options.runtime_nodes = {false, true, false};
  Result<Placement> p = PlaceGraph(view, registry, options);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_TRUE(p->complete());
  EXPECT_EQ(p->runtime, (std::vector<ir::NodeId>{1}));
  EXPECT_EQ(plugin->unavailable_seen, (std::vector<bool>{false, true, false}));
  ASSERT_EQ(p->rejected.size(), 1u);
  EXPECT_EQ(p->rejected[0].reason, "node #1:If:I is excluded from ep 'plugin'");
  EXPECT_TRUE(p->declines[1].empty());
  EXPECT_EQ(p->claim_of_node[1], -1);
  const GraphPlacement described = DescribePlacement(*p, view);
  ASSERT_EQ(described.runtime_nodes.size(), 1u);
  EXPECT_EQ(described.runtime_nodes[0].node.name, "I");
  EXPECT_NE(GraphPlacementText(described).find("run by the runtime: 1 node\n  #1:If:I -> "),
            std::string::npos)
      << GraphPlacementText(described);
}

// A control-flow node an EP that claims whole graphs may take alone (ORT's CreateIfKernel
// style): a single-node proposal claims it, a fused one is rejected with the reason.
TEST(PlacementSubgraphTest, ClaimersTakeControlFlowAloneOnly) {
  for (bool fused : {false, true}) {
    TestGraph g;
    BuildIfGraph(g);
    ir::GraphView view = g.View();
    GraphClaims answer;
    answer.claims = {{{1}, fused}};
    auto plugin = std::make_shared<ClaimingEp>("plugin", answer);
    auto cpu = std::make_shared<MockEp>("cpu", std::set<std::string>{"Relu", "Add"}, 0.0);
    EpRegistry registry;
    ASSERT_TRUE(registry.Add(plugin).ok());
    ASSERT_TRUE(registry.Add(cpu).ok());
    ASSERT_TRUE(registry.InitializeAll().ok());
    PlacementOptions options;
    options.runtime_nodes = {false, true, false};
    options.claimable_alone = {false, true, false};
    Result<Placement> p = PlaceGraph(view, registry, options);
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    EXPECT_TRUE(p->complete());
    EXPECT_EQ(plugin->unavailable_seen, (std::vector<bool>{false, false, false}));
    if (fused) {
      ASSERT_EQ(p->rejected.size(), 1u);
      EXPECT_NE(p->rejected[0].reason.find("claims it alone with EpGraphSupportInfo_AddSingleNode"),
                std::string::npos)
          << p->rejected[0].reason;
      EXPECT_EQ(p->runtime, (std::vector<ir::NodeId>{1}));
    } else {
      EXPECT_TRUE(p->rejected.empty());
      ASSERT_GE(p->claim_of_node[1], 0);
      EXPECT_EQ(p->claims[p->claim_of_node[1]].ep, 0);
      EXPECT_FALSE(p->claims[p->claim_of_node[1]].fused);
      EXPECT_TRUE(p->runtime.empty());
    }
  }
}

TEST_F(PlacementTest, JsonHasEveryClaimDeclineAndRejection) {
  GraphClaims answer;
  answer.claims = {{{0, 2}, true}};
  auto plugin = std::make_shared<ClaimingEp>("plugin", answer);
  EpRegistry registry = Registry({plugin, cpu_});
  Result<Placement> p = PlaceGraph(*view_, registry);
  ASSERT_TRUE(p.ok());
  nlohmann::json j = nlohmann::json::parse(Json(*p));
  EXPECT_EQ(j["graph"], "test");
  EXPECT_EQ(j["node_count"], 5);
  EXPECT_EQ(j["eps"], nlohmann::json({"plugin", "cpu"}));
  EXPECT_EQ(j["complete"], true);
  ASSERT_EQ(j["claims"].size(), 1u);
  EXPECT_EQ(j["claims"][0]["ep"], "cpu");
  EXPECT_EQ(j["claims"][0]["fused"], false);
  EXPECT_EQ(j["claims"][0]["inputs"], nlohmann::json({"x"}));
  EXPECT_EQ(j["claims"][0]["outputs"], nlohmann::json({"d"}));
  ASSERT_EQ(j["claims"][0]["nodes"].size(), 5u);
  EXPECT_EQ(
      j["claims"][0]["nodes"][1],
      nlohmann::json({{"id", 1}, {"op_type", "Custom"}, {"domain", "com.example"}, {"name", "U"}}));
  ASSERT_EQ(j["declined"].size(), 5u);
  EXPECT_EQ(j["declined"][1]["node"]["name"], "U");
  EXPECT_EQ(j["declined"][1]["claim"], 0);
  EXPECT_EQ(j["declined"][1]["placed_on"], "cpu");
  EXPECT_EQ(j["declined"][1]["reasons"][0]["ep"], "plugin");
  EXPECT_EQ(j["declined"][1]["reasons"][0]["reason"], "not claimed by the EP");
  ASSERT_EQ(j["rejected_claims"].size(), 1u);
  ASSERT_EQ(j["rejected_claims"][0]["nodes"].size(), 2u);
  EXPECT_EQ(j["rejected_claims"][0]["nodes"][0]["name"], "A");
  EXPECT_EQ(j["rejected_claims"][0]["nodes"][1]["id"], 2);
  EXPECT_EQ(j["runtime_nodes"], nlohmann::json::array());
  EXPECT_EQ(j["unplaced"], nlohmann::json::array());
  // One line when asked.
  EXPECT_EQ(Json(*p, -1).find('\n'), std::string::npos);
}

TEST_F(PlacementTest, PlacementIsByteIdenticalAcrossRuns) {
  EpRegistry registry = Registry({gpu_, cpu_});
  Result<Placement> first = PlaceGraph(*view_, registry);
  ASSERT_TRUE(first.ok());
  for (int i = 0; i < 10; ++i) {
    Result<Placement> again = PlaceGraph(*view_, registry);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(Text(*again), Text(*first));
    EXPECT_EQ(Json(*again), Json(*first));
  }
}

}  // namespace
}  // namespace nxrt::ep
