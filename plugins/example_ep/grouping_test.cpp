// plugins/example_ep/grouping_test.cpp: GroupConvex on small graphs whose convex groups are
// worked out by hand in each test's comment (nodes named by topological index).
#include "example_ep/grouping.h"

#include <gtest/gtest.h>

namespace nxrt_example_ep {
namespace {

using Groups = std::vector<std::vector<size_t>>;

TEST(GroupConvexTest, ChainIsOneGroup) {
  // 0 -> 1 -> 2 -> 3
  EXPECT_EQ(GroupConvex({{}, {0}, {1}, {2}}, {true, true, true, true}, 0), (Groups{{0, 1, 2, 3}}));
}

TEST(GroupConvexTest, UnsupportedNodeSplitsAChain) {
  // 0 -> 1(x) -> 2 -> 3
  EXPECT_EQ(GroupConvex({{}, {0}, {1}, {2}}, {true, false, true, true}, 0),
            (Groups{{0}, {2, 3}}));
}

TEST(GroupConvexTest, PathThroughAnUnsupportedNodeKeepsEndsApart) {
  // 0 -> 1(x) -> 2 and 0 -> 2: {0, 2} would leave through 1 and come back.
  EXPECT_EQ(GroupConvex({{}, {0}, {0, 1}}, {true, false, true}, 0), (Groups{{0}, {2}}));
}

TEST(GroupConvexTest, DiamondMergesBranchesIntoOneGroup) {
  // 0 -> {1, 2} -> 3
  EXPECT_EQ(GroupConvex({{}, {0}, {0}, {1, 2}}, {true, true, true, true}, 0),
            (Groups{{0, 1, 2, 3}}));
}

TEST(GroupConvexTest, IndependentBranchesMergeAtTheirJoin) {
  // 0 -> 2, 1 -> 3, {2, 3} -> 4: groups {0,2} and {1,3} merge through 4.
  EXPECT_EQ(GroupConvex({{}, {}, {0}, {1}, {2, 3}}, {true, true, true, true, true}, 0),
            (Groups{{0, 1, 2, 3, 4}}));
}

TEST(GroupConvexTest, GroupsThatAnOutsidePathLinksDoNotMerge) {
  // 0 -> 1(x) -> 2; 0 -> 3; {2, 3} -> 4. Node 2 cannot join {0} (path through 1). Node 4 cannot
  // join {0, 3} (0 -> 1 -> 2 -> 4 would leave and re-enter), so it joins {2}.
  const Groups groups =
      GroupConvex({{}, {0}, {1}, {0}, {2, 3}}, {true, false, true, true, true}, 0);
  EXPECT_EQ(groups, (Groups{{0, 3}, {2, 4}}));
}

TEST(GroupConvexTest, MaxGroupSizeCutsAChain) {
  EXPECT_EQ(GroupConvex({{}, {0}, {1}, {2}, {3}}, {true, true, true, true, true}, 2),
            (Groups{{0, 1}, {2, 3}, {4}}));
}

TEST(GroupConvexTest, NothingSupportedIsNoGroup) {
  EXPECT_TRUE(GroupConvex({{}, {0}}, {false, false}, 0).empty());
}

}  // namespace
}  // namespace nxrt_example_ep
