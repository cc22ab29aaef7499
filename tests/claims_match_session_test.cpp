// tests/claims_match_session_test.cpp: for every real model (tests/real_models.h), `nxrt claims
// --json` and a session made with the same options report the same passes, rewrites and
// placement, and that placement is what the session runs.
//
// Layer: whole-system test (the CLI binary as a user runs it, and the public API). Each model,
// on the CPU EP alone and with the example plugin EP first (CPU fallback): the CLI's JSON equals
// the session's Placement() printed by the same formatter, and also OptimizerPasses(); every
// graph is complete; the session runs the model's inputs; and every step the session ran (Stats)
// is where the report says: a node's step on its claim's EP, a fused step on the claim of that
// fused name, a control-flow or sequence node on the EP its runtime node names, with as many
// steps as the main graph's report implies.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <ostream>
#include <nlohmann/json.hpp>
#include <string>

#include "nxrt/placement.h"
#include "nxrt/session.h"
#include "real_models.h"

#if !defined(NXRT_CLI) || !defined(NXRT_EXAMPLE_EP)
#error "NXRT_CLI and NXRT_EXAMPLE_EP must come from the build"
#endif

namespace nxrt {
namespace {

// One model with one EP list: "cpu" (the default) or "plugin" (the example EP, then the CPU
// fallback).
struct Case {
  std::string model;
  std::string eps;
};

// Names a case in gtest's output ("ppocrv4_det on plugin") instead of its bytes.
void PrintTo(const Case& c, std::ostream* os) { *os << c.model << " on " << c.eps; }

// The standard output of `command`; `status` its exit status.
std::string Capture(const std::string& command, int& status) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    status = -1;
    return out;
  }
  char buf[65536];
  for (size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
  status = pclose(pipe);
  return out;
}

class ClaimsMatchSession : public ::testing::TestWithParam<Case> {};

TEST_P(ClaimsMatchSession, SamePassesRewritesAndPlacementAsWhatRuns) {
  const oracle::RealModel* model = oracle::FindRealModel(GetParam().model);
  ASSERT_NE(model, nullptr);
  const std::string path = model->path().string();
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is missing: run scripts/bootstrap.sh";

  std::string command = std::string(NXRT_CLI) + " claims --json '" + path + "'";
  SessionOptions options;
  if (GetParam().eps == "plugin") {
    const std::string ep = std::string("plugin:") + NXRT_EXAMPLE_EP;
    command += " --ep '" + ep + "'";
    options.providers.push_back(EpSpec{ep, {}, {}, nullptr});
  }
  int status = 0;
  const std::string cli = Capture(command, status);
  ASSERT_EQ(status, 0) << command << "\n" << cli;
  const nlohmann::json claims = nlohmann::json::parse(cli);

  Result<std::unique_ptr<Session>> session = Session::Create(path, options);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  const PlacementReport report = (*session)->Placement();
  EXPECT_EQ(claims, nlohmann::json::parse(PlacementReportJson(report))) << command;
  const std::vector<OptimizerPassStats> passes = (*session)->OptimizerPasses();
  ASSERT_EQ(claims["optimizer"]["passes"].size(), passes.size());
  for (size_t i = 0; i < passes.size(); ++i) {
    const OptimizerPassStats& pass = passes[i];
    EXPECT_EQ(claims["optimizer"]["passes"][i]["pass"], pass.pass);
    EXPECT_EQ(claims["optimizer"]["passes"][i]["rewrites"], pass.rewrites) << pass.pass;
  }
  EXPECT_TRUE(claims["complete"].get<bool>()) << command;
  for (const GraphPlacement& g : report.graphs) EXPECT_TRUE(g.complete()) << g.label;

  Result<std::vector<NamedTensor>> inputs = oracle::RealModelInputs(*model);
  ASSERT_TRUE(inputs.ok()) << inputs.status().ToString();
  Result<std::vector<NamedTensor>> outputs = (*session)->Run(*inputs);
  ASSERT_TRUE(outputs.ok()) << outputs.status().ToString();

  // Where the report puts each step of each graph: node name or fused name → EP. The session
  // has a step per fused claim, per node of other claims and per runtime node, in every graph;
  // the main graph's ran once, a body's as often as its control-flow node chose it.
  const std::vector<KernelStats> stats = (*session)->Stats();
  for (size_t g = 0; g < report.graphs.size(); ++g) {
    const GraphPlacement& graph = report.graphs[g];
    std::map<std::string, std::string> ep_of;
    size_t steps = graph.runtime_nodes.size();
    for (const PlacementClaim& c : graph.claims) {
      if (c.fused) {
        ep_of[c.fused_name] = c.ep;
        ++steps;
        continue;
      }
      for (const PlacementNode& n : c.nodes) ep_of[n.name] = c.ep;
      steps += c.nodes.size();
    }
    for (const RuntimeNode& r : graph.runtime_nodes) ep_of[r.node.name] = r.ep;
    size_t seen = 0;
    for (const KernelStats& k : stats) {
      if (k.graph != static_cast<int32_t>(g)) continue;
      ++seen;
      ASSERT_TRUE(ep_of.count(k.name)) << "step '" << k.name << "' (" << k.op_type
                                       << ") is in no claim of " << graph.label;
      EXPECT_EQ(k.ep, ep_of[k.name]) << "step '" << k.name << "' (" << k.op_type << ")";
      if (g == 0) {
        EXPECT_EQ(k.calls, 1) << "step '" << k.name << "'";
      } else {
        EXPECT_EQ(stats.at(k.parent).graph, graph.parent) << "step '" << k.name << "'";
      }
    }
    EXPECT_EQ(seen, steps) << graph.label;
  }
}

std::vector<Case> Cases() {
  std::vector<Case> cases;
  for (const oracle::RealModel& m : oracle::RealModels()) {
    cases.push_back({m.name, "cpu"});
    cases.push_back({m.name, "plugin"});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(RealModels, ClaimsMatchSession, ::testing::ValuesIn(Cases()),
                         [](const auto& info) { return info.param.model + "_" + info.param.eps; });

}  // namespace
}  // namespace nxrt
