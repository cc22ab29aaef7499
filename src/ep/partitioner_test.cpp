// ep/partitioner_test.cpp: claims on small hand-built graphs, each checked against claims and
// boundaries worked out by hand.
#include "ep/partitioner.h"

#include <gtest/gtest.h>

#include <set>

#include "ep/test_graph.h"

namespace nxrt::ep {
namespace {

using testing::TestGraph;

// Claims as node names, and boundaries as value names, for readable comparisons.
struct NamedClaim {
  std::vector<std::string> nodes;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  bool operator==(const NamedClaim&) const = default;
};

std::ostream& operator<<(std::ostream& os, const NamedClaim& c) {
  auto list = [&](const std::vector<std::string>& v) {
    os << "[";
    for (size_t i = 0; i < v.size(); ++i) os << (i ? " " : "") << v[i];
    os << "]";
  };
  os << "nodes ";
  list(c.nodes);
  os << " in ";
  list(c.inputs);
  os << " out ";
  list(c.outputs);
  return os;
}

std::vector<NamedClaim> Named(const ir::GraphView& view, const std::vector<Claim>& claims) {
  std::vector<NamedClaim> out;
  for (const Claim& c : claims) {
    NamedClaim n;
    for (ir::NodeId v : c.nodes) n.nodes.push_back(view.graph().nodes[v].name);
    for (ir::ValueId v : c.inputs) n.inputs.push_back(view.graph().values[v].name);
    for (ir::ValueId v : c.outputs) n.outputs.push_back(view.graph().values[v].name);
    out.push_back(std::move(n));
  }
  return out;
}

// Supported: every node whose op type is in `ops`.
NodePredicate Ops(const ir::GraphView& view, std::set<std::string> ops) {
  return [&view, ops](ir::NodeId v) { return ops.count(view.graph().nodes[v].op_type) > 0; };
}

TEST(PartitionerTest, ThreeNodeCaseGivesTwoClaimsNeverOne) {
  // A=Add(x,x)→a, U=Custom(a,a)→u unsupported, B=Add(a,u)→b. {A,B} would not be convex:
  // the path A → U → B leaves and re-enters it.
  TestGraph g;
  g.Input("x");
  g.Node("Add", {"x", "x"}, {"a"}, "A");
  g.Node("Custom", {"a", "a"}, {"u"}, "U", "com.example");
  g.Node("Add", {"a", "u"}, {"b"}, "B");
  g.Output("b");
  ir::GraphView view = g.View();
  std::vector<NamedClaim> claims = Named(view, PartitionGraph(view, Ops(view, {"Add"})));
  EXPECT_EQ(claims, (std::vector<NamedClaim>{{{"A"}, {"x"}, {"a"}}, {{"B"}, {"a", "u"}, {"b"}}}));
}

TEST(PartitionerTest, SupportedChainIsOneClaim) {
  TestGraph g;
  g.Input("x");
  g.Node("Relu", {"x"}, {"a"}, "A");
  g.Node("Tanh", {"a"}, {"b"}, "B");
  g.Node("Relu", {"b"}, {"c"}, "C");
  g.Output("c");
  ir::GraphView view = g.View();
  EXPECT_EQ(Named(view, PartitionGraph(view, Ops(view, {"Relu", "Tanh"}))),
            (std::vector<NamedClaim>{{{"A", "B", "C"}, {"x"}, {"c"}}}));
}

TEST(PartitionerTest, UnsupportedNodeSplitsAChain) {
  TestGraph g;
  g.Input("x");
  g.Node("Relu", {"x"}, {"a"}, "A");
  g.Node("Custom", {"a"}, {"u"}, "U", "com.example");
  g.Node("Relu", {"u"}, {"b"}, "B");
  g.Node("Relu", {"b"}, {"c"}, "C");
  g.Output("c");
  ir::GraphView view = g.View();
  EXPECT_EQ(Named(view, PartitionGraph(view, Ops(view, {"Relu"}))),
            (std::vector<NamedClaim>{{{"A"}, {"x"}, {"a"}}, {{"B", "C"}, {"u"}, {"c"}}}));
}

TEST(PartitionerTest, SupportedDiamondIsOneClaim) {
  TestGraph g;
  g.Input("x");
  g.Node("Relu", {"x"}, {"a"}, "A");
  g.Node("Tanh", {"a"}, {"l"}, "L");
  g.Node("Sigmoid", {"a"}, {"r"}, "R");
  g.Node("Add", {"l", "r"}, {"d"}, "D");
  g.Output("d");
  ir::GraphView view = g.View();
  EXPECT_EQ(Named(view, PartitionGraph(view, Ops(view, {"Relu", "Tanh", "Sigmoid", "Add"}))),
            (std::vector<NamedClaim>{{{"A", "L", "R", "D"}, {"x"}, {"d"}}}));
}

TEST(PartitionerTest, DiamondWithAnUnsupportedArmKeepsTheJoinApart) {
  // A → U → D and A → R → D: D cannot join {A, R}, the path A → U → D would leave it.
  TestGraph g;
  g.Input("x");
  g.Node("Relu", {"x"}, {"a"}, "A");
  g.Node("Custom", {"a"}, {"u"}, "U", "com.example");
  g.Node("Sigmoid", {"a"}, {"r"}, "R");
  g.Node("Add", {"u", "r"}, {"d"}, "D");
  g.Output("d");
  ir::GraphView view = g.View();
  EXPECT_EQ(Named(view, PartitionGraph(view, Ops(view, {"Relu", "Sigmoid", "Add"}))),
            (std::vector<NamedClaim>{{{"A", "R"}, {"x"}, {"a", "r"}}, {{"D"}, {"u", "r"}, {"d"}}}));
}

TEST(PartitionerTest, UnsupportedSideBranchFromAGraphInputDoesNotSplit) {
  // The shape-computation pattern: x → A → B and x → U (unsupported) → C, then D = B + C.
  // Nothing of {A, B, C, D} reaches U, so one claim is convex; U only feeds it.
  TestGraph g;
  g.Input("x");
  g.Node("Relu", {"x"}, {"a"}, "A");
  g.Node("Relu", {"a"}, {"b"}, "B");
  g.Node("Shape", {"x"}, {"s"}, "U");
  g.Node("Cast", {"s"}, {"c"}, "C");
  g.Node("Add", {"b", "c"}, {"d"}, "D");
  g.Output("d");
  ir::GraphView view = g.View();
  EXPECT_EQ(Named(view, PartitionGraph(view, Ops(view, {"Relu", "Cast", "Add"}))),
            (std::vector<NamedClaim>{{{"A", "B", "C", "D"}, {"x", "s"}, {"d"}}}));
}

TEST(PartitionerTest, IndependentBranchesAfterAnUnsupportedNodeMerge) {
  // S feeds an unsupported U and a supported R; T reads U. {S, R} is convex, T stands apart.
  TestGraph g;
  g.Input("x");
  g.Node("Relu", {"x"}, {"s"}, "S");
  g.Node("Custom", {"s"}, {"u"}, "U", "com.example");
  g.Node("Relu", {"u"}, {"t"}, "T");
  g.Node("Relu", {"s"}, {"r"}, "R");
  g.Output("t");
  g.Output("r");
  ir::GraphView view = g.View();
  EXPECT_EQ(Named(view, PartitionGraph(view, Ops(view, {"Relu"}))),
            (std::vector<NamedClaim>{{{"S", "R"}, {"x"}, {"s", "r"}}, {{"T"}, {"u"}, {"t"}}}));
}

TEST(PartitionerTest, DeclinesASafeMergeTheLevelTestCannotCertify) {
  // The documented limit of the linear test (docs/partitioning.md §4): {A, C, D} would be
  // convex, but A is below D's level and already has an edge to a visited node (U2), so the
  // certificate cannot show that U2 does not lead to D.
  TestGraph g;
  g.Input("x");
  g.Node("Relu", {"x"}, {"a"}, "A");
  g.Node("Custom", {"a"}, {"u2"}, "U2", "com.example");
  g.Node("Custom", {"x"}, {"u"}, "U", "com.example");
  g.Node("Relu", {"u"}, {"c"}, "C");
  g.Node("Add", {"c", "a"}, {"d"}, "D");
  g.Output("u2");
  g.Output("d");
  ir::GraphView view = g.View();
  EXPECT_EQ(Named(view, PartitionGraph(view, Ops(view, {"Relu", "Add"}))),
            (std::vector<NamedClaim>{{{"A"}, {"x"}, {"a"}}, {{"C", "D"}, {"u", "a"}, {"d"}}}));
}

TEST(PartitionerTest, MultipleOutputsLeaveTheClaimOnlyWhenReadOutside) {
  // P splits x into p0, p1, p2: Q reads p0 (inside), U reads p1 (outside), p2 is unused.
  TestGraph g;
  g.Input("x");
  g.Node("Split", {"x"}, {"p0", "p1", "p2"}, "P");
  g.Node("Relu", {"p0"}, {"q"}, "Q");
  g.Node("Custom", {"p1"}, {"u"}, "U", "com.example");
  g.Output("q");
  g.Output("u");
  ir::GraphView view = g.View();
  EXPECT_EQ(Named(view, PartitionGraph(view, Ops(view, {"Split", "Relu"}))),
            (std::vector<NamedClaim>{{{"P", "Q"}, {"x"}, {"p1", "q"}}}));
}

TEST(PartitionerTest, GraphOutputsInsideAClaimAreClaimOutputs) {
  TestGraph g;
  g.Input("x");
  g.Node("Relu", {"x"}, {"a"}, "A");
  g.Node("Relu", {"a"}, {"b"}, "B");
  g.Node("Relu", {"b"}, {"c"}, "C");
  g.Output("a");
  g.Output("c");
  ir::GraphView view = g.View();
  EXPECT_EQ(Named(view, PartitionGraph(view, Ops(view, {"Relu"}))),
            (std::vector<NamedClaim>{{{"A", "B", "C"}, {"x"}, {"a", "c"}}}));
}

TEST(PartitionerTest, InitializersAndRepeatedInputsAreListedOnce) {
  TestGraph g;
  g.Input("x");
  g.Initializer("w", Tensor::Scalar<float>(2.0f));
  g.Node("Mul", {"x", "w"}, {"a"}, "A");
  g.Node("Add", {"a", "w"}, {"b"}, "B");
  g.Node("Add", {"b", "x"}, {"c"}, "C");
  g.Output("c");
  ir::GraphView view = g.View();
  EXPECT_EQ(Named(view, PartitionGraph(view, Ops(view, {"Mul", "Add"}))),
            (std::vector<NamedClaim>{{{"A", "B", "C"}, {"x", "w"}, {"c"}}}));
}

TEST(PartitionerTest, NodesWithSubgraphsAreClaimedAloneWithTheirImplicitInputs) {
  // A → a; If(cond) reads `a` only inside its branch (an implicit input); B reads the If's
  // output. The If is claimed alone, and it separates A from B.
  TestGraph g;
  g.Input("x");
  g.Input("cond", DataType::kBool);
  g.Node("Relu", {"x"}, {"a"}, "A");
  ir::NodeId if_node = g.Node("If", {"cond"}, {"i"}, "I");
  g.AddSubgraph(if_node, "then_branch", {"a"});
  g.AddSubgraph(if_node, "else_branch", {"x"});
  g.Node("Relu", {"i"}, {"b"}, "B");
  g.Output("b");
  ir::GraphView view = g.View();
  EXPECT_EQ(Named(view, PartitionGraph(view, Ops(view, {"Relu", "If"}))),
            (std::vector<NamedClaim>{
                {{"A"}, {"x"}, {"a"}}, {{"I"}, {"cond", "x", "a"}, {"i"}}, {{"B"}, {"i"}, {"b"}}}));
}

TEST(PartitionerTest, ExcludedNodesAreNeverClaimedAndClaimsFormAroundThem) {
  TestGraph g;
  g.Input("x");
  g.Node("Relu", {"x"}, {"a"}, "A");
  g.Node("Relu", {"a"}, {"b"}, "B");
  g.Node("Relu", {"b"}, {"c"}, "C");
  g.Output("c");
  ir::GraphView view = g.View();
  PartitionOptions options;
  options.exclude = [](ir::NodeId v) { return v == 1; };
  EXPECT_EQ(Named(view, PartitionGraph(view, Ops(view, {"Relu"}), options)),
            (std::vector<NamedClaim>{{{"A"}, {"x"}, {"a"}}, {{"C"}, {"b"}, {"c"}}}));
}

TEST(PartitionerTest, NothingSupportedGivesNoClaims) {
  TestGraph g;
  g.Input("x");
  g.Node("Relu", {"x"}, {"a"}, "A");
  g.Output("a");
  ir::GraphView view = g.View();
  EXPECT_TRUE(PartitionGraph(view, [](ir::NodeId) { return false; }).empty());
}

TEST(PartitionerTest, ClaimsAreIdenticalOnEveryRun) {
  TestGraph g;
  g.Input("x");
  const char* ops[] = {"Relu", "Custom", "Relu", "Add", "Custom", "Add", "Relu", "Add"};
  std::string prev = "x";
  std::string prev2 = "x";
  for (int i = 0; i < 8; ++i) {
    const std::string index = std::to_string(i);
    const std::string out = std::string("v").append(index);
    g.Node(ops[i], {prev, prev2}, {out}, std::string("N").append(index),
           std::string(ops[i]) == "Custom" ? "com.example" : "");
    prev2 = prev;
    prev = out;
  }
  g.Output(prev);
  ir::GraphView view = g.View();
  const std::vector<NamedClaim> first =
      Named(view, PartitionGraph(view, Ops(view, {"Relu", "Add"})));
  for (int run = 0; run < 20; ++run) {
    EXPECT_EQ(Named(view, PartitionGraph(view, Ops(view, {"Relu", "Add"}))), first);
  }
}

}  // namespace
}  // namespace nxrt::ep
