// ep/partitioner_property_test.cpp: the partitioner on thousands of random DAGs (fixed seeds)
// with random support sets, checked against properties computed independently here and
// against a slow reference implementation of the same rule.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <set>

#include "ep/partitioner.h"
#include "ep/test_graph.h"

namespace nxrt::ep {
namespace {

using Groups = std::vector<std::vector<int32_t>>;

struct RandomCase {
  Dag dag;
  std::vector<UnitRole> roles;
};

// A random DAG of `n` units. Units are created in a hidden sequence, each taking 0-3
// predecessors among earlier ones (mostly recent ones, sometimes any), and then get shuffled
// ids so that ids say nothing about the order.
RandomCase MakeCase(uint64_t seed, int n) {
  std::mt19937_64 rng(seed);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto chance = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; };
  std::vector<int32_t> id_of(n);
  std::iota(id_of.begin(), id_of.end(), 0);
  std::shuffle(id_of.begin(), id_of.end(), rng);

  const double p_supported = 0.2 + 0.75 * std::uniform_real_distribution<double>(0, 1)(rng);
  const double p_single = chance(0.3) ? 0.08 : 0.0;
  std::vector<std::vector<int32_t>> preds(n);
  RandomCase c;
  c.roles.assign(n, UnitRole::kBlocked);
  for (int s = 0; s < n; ++s) {
    const int32_t id = id_of[s];
    c.dag.order.push_back(id);
    const int k = s == 0 ? 0 : uniform(0, std::min(3, s));
    for (int j = 0; j < k; ++j) {
      int from = chance(0.7) ? std::max(0, s - uniform(1, 4)) : uniform(0, s - 1);
      preds[id].push_back(id_of[from]);
    }
    if (chance(p_supported))
      c.roles[id] = chance(p_single) ? UnitRole::kSingle : UnitRole::kCandidate;
  }
  c.dag.pred_offsets.push_back(0);
  for (int32_t v = 0; v < n; ++v) {
    c.dag.preds.insert(c.dag.preds.end(), preds[v].begin(), preds[v].end());
    c.dag.pred_offsets.push_back(static_cast<int32_t>(c.dag.preds.size()));
  }
  return c;
}

// The partitioning rule of ep/partitioner.h written the slow, obvious way: partitions as
// explicit member lists, levels stored per partition, and "has an edge to a visited unit
// outside" found by scanning every edge of the graph.
Groups ReferencePartition(const Dag& dag, const std::vector<UnitRole>& roles) {
  const int32_t n = dag.size();
  std::vector<std::pair<int32_t, int32_t>> edges;
  for (int32_t v = 0; v < n; ++v) {
    for (int32_t u : dag.predecessors(v)) edges.emplace_back(u, v);
  }
  std::vector<int32_t> atom(n, -1);  // -1: not visited yet
  std::vector<std::vector<int32_t>> members;
  std::vector<int32_t> level;
  std::vector<bool> atom_candidate;
  for (int32_t v : dag.order) {
    const bool candidate = roles[v] == UnitRole::kCandidate;
    int32_t v_level = 0;
    for (int32_t u : dag.predecessors(v)) {
      int32_t a = atom[u];
      v_level = std::max(v_level, level[a] + (candidate && !atom_candidate[a] ? 1 : 0));
    }
    const int32_t mine = static_cast<int32_t>(members.size());
    members.push_back({});
    level.push_back(v_level);
    atom_candidate.push_back(candidate);
    if (candidate) {
      std::set<int32_t> pred_atoms;
      for (int32_t u : dag.predecessors(v)) {
        if (atom_candidate[atom[u]]) pred_atoms.insert(atom[u]);
      }
      std::vector<int32_t> joining;
      for (int32_t a : pred_atoms) {
        bool edge_outside = false;
        for (auto [x, y] : edges) {
          if (atom[x] == a && atom[y] != -1 && atom[y] != a) edge_outside = true;
        }
        if (level[a] == v_level || !edge_outside) joining.push_back(a);
      }
      for (int32_t a : joining) {
        for (int32_t m : members[a]) {
          atom[m] = mine;
          members[mine].push_back(m);
        }
        members[a].clear();
      }
    }
    atom[v] = mine;
    members[mine].push_back(v);
  }
  // Groups in order of their first unit; members in visiting order.
  std::vector<int32_t> position(n);
  for (int32_t i = 0; i < n; ++i) position[dag.order[i]] = i;
  Groups groups;
  std::vector<int32_t> group_of_atom(members.size(), -1);
  for (int32_t v : dag.order) {
    if (roles[v] == UnitRole::kBlocked) continue;
    int32_t a = atom[v];
    if (group_of_atom[a] < 0) {
      group_of_atom[a] = static_cast<int32_t>(groups.size());
      groups.emplace_back();
    }
    groups[group_of_atom[a]].push_back(v);
  }
  return groups;
}

// Checks every property a partition must have; returns "" or the first violation.
std::string CheckProperties(const Dag& dag, const std::vector<UnitRole>& roles,
                            const Groups& groups) {
  const int32_t n = dag.size();
  std::vector<int32_t> position(n);
  for (int32_t i = 0; i < n; ++i) position[dag.order[i]] = i;
  std::vector<std::vector<int32_t>> succs(n);
  for (int32_t v = 0; v < n; ++v) {
    for (int32_t u : dag.predecessors(v)) succs[u].push_back(v);
  }

  // Disjoint, covering exactly the supported units, kSingle alone, ordered.
  std::vector<int32_t> group_of(n, -1);
  for (size_t g = 0; g < groups.size(); ++g) {
    if (groups[g].empty()) return "empty group";
    for (size_t i = 0; i < groups[g].size(); ++i) {
      int32_t u = groups[g][i];
      if (group_of[u] >= 0) return "unit in two groups";
      group_of[u] = static_cast<int32_t>(g);
      if (i > 0 && position[groups[g][i - 1]] >= position[u]) return "group not in order";
      if (roles[u] == UnitRole::kSingle && groups[g].size() != 1) return "single unit grouped";
    }
    if (g > 0 && position[groups[g - 1][0]] >= position[groups[g][0]]) return "groups not in order";
  }
  for (int32_t u = 0; u < n; ++u) {
    if ((roles[u] != UnitRole::kBlocked) != (group_of[u] >= 0)) return "coverage differs";
  }

  // Convex: no path leaves a group and re-enters it.
  for (size_t g = 0; g < groups.size(); ++g) {
    std::vector<bool> seen(n, false);
    std::vector<int32_t> stack;
    for (int32_t u : groups[g]) {
      for (int32_t s : succs[u]) {
        if (group_of[s] != static_cast<int32_t>(g) && !seen[s]) {
          seen[s] = true;
          stack.push_back(s);
        }
      }
    }
    while (!stack.empty()) {
      int32_t x = stack.back();
      stack.pop_back();
      for (int32_t s : succs[x]) {
        if (group_of[s] == static_cast<int32_t>(g)) return "group not convex";
        if (!seen[s]) {
          seen[s] = true;
          stack.push_back(s);
        }
      }
    }
  }

  // The quotient (groups contracted, other units alone) is acyclic: Kahn's algorithm ends.
  const int32_t q = static_cast<int32_t>(groups.size());
  auto vertex = [&](int32_t u) { return group_of[u] >= 0 ? group_of[u] : q + u; };
  std::vector<std::set<int32_t>> qsucc(q + n);
  std::vector<int32_t> indegree(q + n, 0);
  for (int32_t v = 0; v < n; ++v) {
    for (int32_t u : dag.predecessors(v)) {
      if (vertex(u) != vertex(v) && qsucc[vertex(u)].insert(vertex(v)).second) {
        ++indegree[vertex(v)];
      }
    }
  }
  std::vector<int32_t> ready;
  int32_t live = 0;
  for (int32_t x = 0; x < q + n; ++x) {
    bool used = x < q || group_of[x - q] < 0;
    if (!used) continue;
    ++live;
    if (indegree[x] == 0) ready.push_back(x);
  }
  int32_t done = 0;
  while (!ready.empty()) {
    int32_t x = ready.back();
    ready.pop_back();
    ++done;
    for (int32_t s : qsucc[x]) {
      if (--indegree[s] == 0) ready.push_back(s);
    }
  }
  if (done != live) return "quotient graph has a cycle";
  return "";
}

// Weakly connected components of the units, as groups in the partitioner's ordering.
Groups Components(const Dag& dag) {
  const int32_t n = dag.size();
  std::vector<int32_t> comp(n, -1);
  std::vector<std::vector<int32_t>> adj(n);
  for (int32_t v = 0; v < n; ++v) {
    for (int32_t u : dag.predecessors(v)) {
      adj[u].push_back(v);
      adj[v].push_back(u);
    }
  }
  Groups groups;
  std::vector<int32_t> group_of_comp;
  for (int32_t start : dag.order) {
    if (comp[start] >= 0) continue;
    const int32_t c = static_cast<int32_t>(group_of_comp.size());
    group_of_comp.push_back(-1);
    std::vector<int32_t> stack{start};
    comp[start] = c;
    while (!stack.empty()) {
      int32_t x = stack.back();
      stack.pop_back();
      for (int32_t y : adj[x]) {
        if (comp[y] < 0) {
          comp[y] = c;
          stack.push_back(y);
        }
      }
    }
  }
  for (int32_t v : dag.order) {
    int32_t& g = group_of_comp[comp[v]];
    if (g < 0) {
      g = static_cast<int32_t>(groups.size());
      groups.emplace_back();
    }
    groups[g].push_back(v);
  }
  return groups;
}

TEST(PartitionerPropertyTest, RandomDagsGiveConvexDeterministicClaimsEqualToTheReference) {
  constexpr int kCases = 4000;
  int multi_unit_groups = 0;
  for (int i = 0; i < kCases; ++i) {
    const uint64_t seed = 1000 + i;
    const int n = 1 + static_cast<int>(seed % 60);
    RandomCase c = MakeCase(seed, n);
    Groups groups = PartitionDag(c.dag, c.roles);
    ASSERT_EQ(CheckProperties(c.dag, c.roles, groups), "") << "seed " << seed;
    ASSERT_EQ(PartitionDag(c.dag, c.roles), groups) << "not deterministic, seed " << seed;
    ASSERT_EQ(ReferencePartition(c.dag, c.roles), groups)
        << "differs from reference, seed " << seed;
    for (const auto& g : groups) multi_unit_groups += g.size() > 1 ? 1 : 0;
  }
  // The cases must exercise merging, not only trivial singletons.
  EXPECT_GT(multi_unit_groups, kCases);
}

TEST(PartitionerPropertyTest, AllSupportedGivesOneClaimPerConnectedComponent) {
  for (int i = 0; i < 500; ++i) {
    const uint64_t seed = 90000 + i;
    RandomCase c = MakeCase(seed, 1 + static_cast<int>(seed % 50));
    c.roles.assign(c.roles.size(), UnitRole::kCandidate);
    ASSERT_EQ(PartitionDag(c.dag, c.roles), Components(c.dag)) << "seed " << seed;
  }
}

TEST(PartitionerPropertyTest, LargeRandomDagsKeepTheProperties) {
  for (int i = 0; i < 20; ++i) {
    const uint64_t seed = 70000 + i;
    RandomCase c = MakeCase(seed, 2000);
    Groups groups = PartitionDag(c.dag, c.roles);
    ASSERT_EQ(CheckProperties(c.dag, c.roles, groups), "") << "seed " << seed;
  }
}

// On IR graphs: claims equal PartitionDag's groups, and boundaries match their definition
// computed by brute force over all nodes and values.
TEST(PartitionerPropertyTest, RandomGraphBoundariesMatchTheirDefinition) {
  for (int i = 0; i < 300; ++i) {
    const uint64_t seed = 50000 + i;
    std::mt19937_64 rng(seed);
    auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    testing::TestGraph g;
    std::vector<std::string> values{"in0", "in1"};
    g.Input("in0");
    g.Input("in1");
    const int n = uniform(1, 25);
    std::vector<bool> supported;
    for (int k = 0; k < n; ++k) {
      std::vector<std::string> inputs;
      for (int j = uniform(1, 3); j > 0; --j)
        inputs.push_back(values[uniform(0, values.size() - 1)]);
      std::vector<std::string> outputs;
      for (int j = uniform(1, 2); j > 0; --j) {
        outputs.push_back("v" + std::to_string(values.size()));
        values.push_back(outputs.back());
      }
      g.Node("Op", inputs, outputs);
      supported.push_back(uniform(0, 3) != 0);
    }
    for (int j = uniform(1, 3); j > 0; --j) g.Output(values[uniform(2, values.size() - 1)]);
    ir::GraphView view = g.View();
    std::vector<Claim> claims = PartitionGraph(view, [&](ir::NodeId v) { return supported[v]; });

    std::vector<UnitRole> roles(n, UnitRole::kBlocked);
    for (int v = 0; v < n; ++v) roles[v] = supported[v] ? UnitRole::kCandidate : UnitRole::kBlocked;
    Groups groups = PartitionDag(BuildNodeDag(view), roles);
    ASSERT_EQ(claims.size(), groups.size()) << "seed " << seed;

    const ir::Graph& graph = view.graph();
    for (size_t k = 0; k < claims.size(); ++k) {
      ASSERT_EQ(claims[k].nodes, groups[k]) << "seed " << seed;
      std::set<ir::NodeId> inside(claims[k].nodes.begin(), claims[k].nodes.end());
      std::set<ir::ValueId> produced, read_outside, inputs;
      for (ir::NodeId v = 0; v < n; ++v) {
        for (ir::ValueId out : graph.nodes[v].outputs) {
          if (inside.count(v)) produced.insert(out);
        }
        for (ir::ValueId in : graph.nodes[v].inputs) {
          if (!inside.count(v)) read_outside.insert(in);
        }
      }
      for (ir::NodeId v : claims[k].nodes) {
        for (ir::ValueId in : graph.nodes[v].inputs) {
          if (!produced.count(in)) inputs.insert(in);
        }
      }
      std::set<ir::ValueId> outputs;
      for (ir::ValueId out : produced) {
        bool graph_output =
            std::find(graph.outputs.begin(), graph.outputs.end(), out) != graph.outputs.end();
        if (graph_output || read_outside.count(out)) outputs.insert(out);
      }
      EXPECT_EQ(std::set<ir::ValueId>(claims[k].inputs.begin(), claims[k].inputs.end()), inputs)
          << "seed " << seed;
      EXPECT_EQ(claims[k].inputs.size(), inputs.size()) << "duplicates, seed " << seed;
      EXPECT_EQ(std::set<ir::ValueId>(claims[k].outputs.begin(), claims[k].outputs.end()), outputs)
          << "seed " << seed;
      EXPECT_EQ(claims[k].outputs.size(), outputs.size()) << "duplicates, seed " << seed;
    }
  }
}

}  // namespace
}  // namespace nxrt::ep
