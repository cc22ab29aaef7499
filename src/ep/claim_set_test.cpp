// ep/claim_set_test.cpp: validation of claims from outside, one test per kind of bad claim,
// and the unit graph handed to the partitioner.
#include "ep/claim_set.h"

#include <gtest/gtest.h>

#include "ep/test_graph.h"

namespace nxrt::ep {
namespace {

using testing::TestGraph;

// x → A → a → U → u; B reads a and u; I is an If reading a from its branch; C reads b.
class ClaimSetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_.Input("x");
    g_.Input("cond", DataType::kBool);
    g_.Node("Add", {"x", "x"}, {"a"}, "A");                    // #0
    g_.Node("Custom", {"a", "a"}, {"u"}, "U", "com.example");  // #1
    g_.Node("Add", {"a", "u"}, {"b"}, "B");                    // #2
    ir::NodeId if_node = g_.Node("If", {"cond"}, {"i"}, "I");  // #3
    g_.AddSubgraph(if_node, "then_branch", {"a"});
    g_.Node("Relu", {"b"}, {"c"}, "C");  // #4
    g_.Output("c");
    g_.Output("i");
    view_ = std::make_unique<ir::GraphView>(g_.View());
    claims_ = std::make_unique<ClaimSet>(*view_);
  }

  std::string Check(std::vector<ir::NodeId> nodes) {
    Status s = claims_->Validate(nodes);
    if (!s.ok()) {
      EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    }
    return s.ok() ? "ok" : s.message();
  }

  TestGraph g_;
  std::unique_ptr<ir::GraphView> view_;
  std::unique_ptr<ClaimSet> claims_;
};

TEST_F(ClaimSetTest, AcceptsConvexClaims) {
  EXPECT_EQ(Check({0}), "ok");
  EXPECT_EQ(Check({2, 4}), "ok");
  EXPECT_EQ(Check({4, 1, 2, 0}), "ok");  // any order; the whole chain
  EXPECT_EQ(Check({3}), "ok");           // a node with subgraphs, alone
}

TEST_F(ClaimSetTest, RejectsAnEmptyClaim) { EXPECT_EQ(Check({}), "the claim is empty"); }

TEST_F(ClaimSetTest, RejectsUnknownNodes) {
  EXPECT_EQ(Check({0, 57}), "node id 57 does not exist; the graph has 5 nodes (ids 0..4)");
  EXPECT_EQ(Check({-1}), "node id -1 does not exist; the graph has 5 nodes (ids 0..4)");
}

TEST_F(ClaimSetTest, RejectsANodeListedTwice) {
  EXPECT_EQ(Check({2, 4, 2}), "node #2:Add:B is listed twice");
}

TEST_F(ClaimSetTest, RejectsNodesAlreadyClaimed) {
  claims_->Add("gpu", std::vector<ir::NodeId>{4});
  EXPECT_EQ(Check({2, 4}), "node #4:Relu:C is already claimed by 'gpu' (claim 0)");
  EXPECT_EQ(Check({4}), "node #4:Relu:C is already claimed by 'gpu' (claim 0)");
}

TEST_F(ClaimSetTest, RejectsNodesWithSubgraphsInGroups) {
  EXPECT_EQ(Check({0, 3}),
            "node #3:If:I holds subgraphs and can only be claimed alone (the claim has 2 nodes)");
}

TEST_F(ClaimSetTest, RejectsANonConvexSetNamingThePath) {
  EXPECT_EQ(Check({0, 2}),
            "the nodes are not convex: the path #0:Add:A -> #1:Custom:U -> #2:Add:B leaves the "
            "claim and re-enters it; claim the nodes in between too, or split the claim there");
  EXPECT_EQ(Check({0, 4}),
            "the nodes are not convex: the path #0:Add:A -> #2:Add:B -> #4:Relu:C leaves the "
            "claim and re-enters it; claim the nodes in between too, or split the claim there");
}

TEST(ClaimSetCycleTest, RejectsAClaimThatWouldCycleThroughAnotherClaim) {
  // a → p and q → b, where p and q are unrelated but already form one claim K. {a, b} has no
  // path between its nodes, yet a → K → b: with K running as one unit, {a, b} would wait for
  // K and K for {a, b}.
  TestGraph g;
  g.Input("x");
  g.Node("Relu", {"x"}, {"va"}, "a");       // #0
  g.Node("Relu", {"va"}, {"vp"}, "p");      // #1
  g.Node("Relu", {"x"}, {"vq"}, "q");       // #2
  g.Node("Add", {"vq", "x"}, {"vb"}, "b");  // #3
  g.Output("vp");
  g.Output("vb");
  ir::GraphView view = g.View();
  ClaimSet claims(view);
  ASSERT_TRUE(claims.Validate(std::vector<ir::NodeId>{1, 2}).ok());
  claims.Add("npu", std::vector<ir::NodeId>{1, 2});
  Status s = claims.Validate(std::vector<ir::NodeId>{0, 3});
  EXPECT_EQ(s.message(),
            "the nodes are not convex: the path #0:Relu:a -> #1:Relu:p (in claim 0 of 'npu') -> "
            "#2:Relu:q (in claim 0 of 'npu') -> #3:Add:b leaves the claim and re-enters it; "
            "claim the nodes in between too, or split the claim there");
}

TEST(ClaimSetCycleTest, LongPathsAreShortenedInTheMessage) {
  TestGraph g;
  g.Input("x");
  g.Node("Relu", {"x"}, {"v0"}, "n0");
  for (int i = 1; i <= 12; ++i) {
    g.Node("Relu", {"v" + std::to_string(i - 1)}, {"v" + std::to_string(i)},
           "n" + std::to_string(i));
  }
  g.Output("v12");
  ir::GraphView view = g.View();
  ClaimSet claims(view);
  EXPECT_EQ(claims.Validate(std::vector<ir::NodeId>{0, 12}).message(),
            "the nodes are not convex: the path #0:Relu:n0 -> #1:Relu:n1 -> #2:Relu:n2 -> "
            "#3:Relu:n3 -> ... -> #9:Relu:n9 -> #10:Relu:n10 -> #11:Relu:n11 -> #12:Relu:n12 "
            "leaves the claim and re-enters it; claim the nodes in between too, or split the "
            "claim there");
}

TEST_F(ClaimSetTest, UnitsContractClaimsAndKeepATopologicalOrder) {
  ASSERT_TRUE(claims_->Validate(std::vector<ir::NodeId>{4, 2}).ok());
  EXPECT_EQ(claims_->Add("gpu", std::vector<ir::NodeId>{4, 2}), 0);
  EXPECT_EQ(claims_->nodes(0), (std::vector<ir::NodeId>{2, 4}));
  EXPECT_EQ(claims_->owner(0), "gpu");
  Result<ClaimSet::Units> units = claims_->BuildUnits();
  ASSERT_TRUE(units.ok()) << units.status().ToString();
  // Node order A(0) U(1) B(2) I(3) C(4); {B, C} is one unit, first seen at B.
  EXPECT_EQ(units->node_of_unit, (std::vector<ir::NodeId>{0, 1, ir::kNoNode, 3}));
  EXPECT_EQ(units->unit_of_node, (std::vector<int32_t>{0, 1, 2, 3, 2}));
  EXPECT_EQ(units->dag.order, (std::vector<int32_t>{0, 1, 2, 3}));
  // {B, C} reads a (from A) and u (from U); I reads a from its branch; C's read of b is inside.
  auto preds = [&](int32_t u) {
    std::span<const int32_t> p = units->dag.predecessors(u);
    return std::vector<int32_t>(p.begin(), p.end());
  };
  EXPECT_EQ(preds(2), (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(preds(3), (std::vector<int32_t>{0}));
}

TEST_F(ClaimSetTest, UnitsReportAClaimAddedWithoutValidationThatMadeACycle) {
  claims_->Add("gpu", std::vector<ir::NodeId>{0, 2});  // not convex: A → U → B
  Result<ClaimSet::Units> units = claims_->BuildUnits();
  EXPECT_EQ(units.status().code(), StatusCode::kInternal);
  EXPECT_EQ(units.status().message(),
            "the placed claims form a cycle (4 units, 0 ordered); a claim was added without "
            "validation");
}

}  // namespace
}  // namespace nxrt::ep
