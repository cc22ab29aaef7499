// runtime/session_test.cpp: the Session end to end on small models built here with the ONNX
// protobuf classes: values against hand-computed references, control flow with outer-scope
// values, input validation, reuse after errors, concurrent runs, and the placement report.
#include "nxrt/session.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <cmath>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "nxrt/placement.h"

namespace nxrt {
namespace {

void AddTensorValue(onnx::ValueInfoProto* v, const std::string& name, int elem_type,
                    const std::vector<int64_t>& dims) {
  v->set_name(name);
  auto* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(elem_type);
  auto* shape = t->mutable_shape();
  for (int64_t d : dims) {
    if (d < 0) {
      shape->add_dim()->set_dim_param("N");
    } else {
      shape->add_dim()->set_dim_value(d);
    }
  }
}

onnx::NodeProto* AddNode(onnx::GraphProto* g, const std::string& op,
                         const std::vector<std::string>& inputs,
                         const std::vector<std::string>& outputs, const std::string& name = "") {
  onnx::NodeProto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(name.empty() ? op + "_" + std::to_string(g->node_size()) : name);
  for (const auto& i : inputs) n->add_input(i);
  for (const auto& o : outputs) n->add_output(o);
  return n;
}

std::vector<std::byte> Serialize(const onnx::ModelProto& m) {
  std::string s = m.SerializeAsString();
  std::vector<std::byte> bytes(s.size());
  std::memcpy(bytes.data(), s.data(), s.size());
  return bytes;
}

onnx::ModelProto NewModel(int opset = 17) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* op = m.add_opset_import();
  op->set_domain("");
  op->set_version(opset);
  m.mutable_graph()->set_name("test");
  return m;
}

// y = (x + x) * x, z = y - x: a chain whose intermediate buffers the arena reuses.
std::vector<std::byte> ChainModel() {
  onnx::ModelProto m = NewModel();
  auto* g = m.mutable_graph();
  AddTensorValue(g->add_input(), "x", onnx::TensorProto::FLOAT, {-1, 3});
  AddNode(g, "Add", {"x", "x"}, {"a"});
  AddNode(g, "Mul", {"a", "x"}, {"y"});
  AddNode(g, "Sub", {"y", "x"}, {"z"});
  AddTensorValue(g->add_output(), "y", onnx::TensorProto::FLOAT, {-1, 3});
  AddTensorValue(g->add_output(), "z", onnx::TensorProto::FLOAT, {-1, 3});
  return Serialize(m);
}

Tensor Floats(Shape shape, std::vector<float> v) { return Tensor::FromVector(shape, v).value(); }

TEST(Session, ChainComputesAndReusesArenaAcrossRuns) {
  auto session = Session::CreateFromBytes(ChainModel());
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  for (int batch : {2, 2, 1, 4, 2}) {  // shape changes re-plan; repeats reuse the arena
    std::vector<float> x(batch * 3);
    for (size_t i = 0; i < x.size(); ++i) x[i] = 0.5f * static_cast<float>(i) - 1.0f;
    auto out = (*session)->Run({{"x", Floats({batch, 3}, x)}});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    ASSERT_EQ(out->size(), 2u);
    EXPECT_EQ((*out)[0].name, "y");
    EXPECT_EQ((*out)[0].tensor.shape(), (Shape{batch, 3}));
    for (size_t i = 0; i < x.size(); ++i) {
      EXPECT_FLOAT_EQ((*out)[0].tensor.data<float>()[i], 2 * x[i] * x[i]);
      EXPECT_FLOAT_EQ((*out)[1].tensor.data<float>()[i], 2 * x[i] * x[i] - x[i]);
    }
  }
  auto stats = (*session)->Stats();
  ASSERT_EQ(stats.size(), 3u);
  EXPECT_EQ(stats[0].op_type, "Add");
  EXPECT_EQ(stats[0].calls, 5);
  EXPECT_EQ(stats[0].ep, "cpu");
}

// RunOptions::output_allocator: the kernels write the outputs into the caller's buffers, which
// come back as the outputs (no copy), also for an output a later step reads (y); an allocator
// that answers another shape ends the run with an error naming the output.
TEST(Session, OutputAllocatorBuffersReceiveTheOutputsWithoutCopies) {
  auto session = Session::CreateFromBytes(ChainModel());
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  const std::vector<float> x = {-1.0f, -0.5f, 0.0f, 0.5f, 1.0f, 1.5f};
  std::map<std::string, std::vector<float>> buffers;
  RunOptions options;
  options.output_allocator = [&](const std::string& name, DataType dtype,
                                 const Shape& shape) -> Result<Tensor> {
    EXPECT_EQ(dtype, DataType::kFloat);
    std::vector<float>& buffer = buffers[name];
    buffer.assign(static_cast<size_t>(ElementCount(shape).value()), 0.0f);
    return Tensor::Adopt(dtype, shape, buffer.data(),
                         std::shared_ptr<const void>(buffer.data(), [](const void*) {}));
  };
  for (int run = 0; run < 2; ++run) {
    buffers.clear();
    auto out = (*session)->RunValues({{"x", Value(Floats({2, 3}, x))}}, {}, options);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    ASSERT_EQ(buffers.size(), 2u);
    for (const NamedValue& o : *out) {
      ASSERT_TRUE(buffers.count(o.name)) << o.name;
      EXPECT_EQ(o.value.tensor().raw_data(), buffers[o.name].data()) << o.name;
    }
    for (size_t i = 0; i < x.size(); ++i) {
      EXPECT_FLOAT_EQ(buffers["y"][i], 2 * x[i] * x[i]);
      EXPECT_FLOAT_EQ(buffers["z"][i], 2 * x[i] * x[i] - x[i]);
    }
  }
  options.output_allocator = [](const std::string&, DataType dtype, const Shape&) {
    return Tensor::Allocate(dtype, Shape{1});
  };
  auto bad = (*session)->RunValues({{"x", Value(Floats({2, 3}, x))}}, {}, options);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("output allocator gave output"), std::string::npos)
      << bad.status().message();
}

// Intermediates the elementwise kernels may overwrite in place (ep/in_place.h) from the second
// run on, mixed with values read again later that must stay intact:
//   a = x + x, b = Relu(a), c = b * b, d = c - a, e = -d, y = e + b = b - b^2 + a.
TEST(Session, InPlaceElementwiseStepsKeepValuesReadLater) {
  onnx::ModelProto m = NewModel();
  auto* g = m.mutable_graph();
  AddTensorValue(g->add_input(), "x", onnx::TensorProto::FLOAT, {2, 5});
  AddNode(g, "Add", {"x", "x"}, {"a"});
  AddNode(g, "Relu", {"a"}, {"b"});
  AddNode(g, "Mul", {"b", "b"}, {"c"});
  AddNode(g, "Sub", {"c", "a"}, {"d"});
  AddNode(g, "Neg", {"d"}, {"e"});
  AddNode(g, "Add", {"e", "b"}, {"y"});
  AddTensorValue(g->add_output(), "y", onnx::TensorProto::FLOAT, {2, 5});
  auto session = Session::CreateFromBytes(Serialize(m));
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  for (int run = 0; run < 4; ++run) {
    std::vector<float> x(10);
    for (size_t i = 0; i < x.size(); ++i) x[i] = 0.3f * static_cast<float>(i) - 1.2f + 0.1f * run;
    auto out = (*session)->Run({{"x", Floats({2, 5}, x)}});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    for (size_t i = 0; i < x.size(); ++i) {
      const float a = x[i] + x[i];
      const float b = std::max(a, 0.0f);
      EXPECT_FLOAT_EQ((*out)[0].tensor.data<float>()[i], b - b * b + a) << "run " << run;
    }
  }
}

TEST(Session, SelectsRequestedOutputsInOrder) {
  auto session = Session::CreateFromBytes(ChainModel());
  ASSERT_TRUE(session.ok());
  auto out = (*session)->Run({{"x", Floats({1, 3}, {1, 2, 3})}}, {"z"});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->size(), 1u);
  EXPECT_EQ((*out)[0].name, "z");
  EXPECT_FLOAT_EQ((*out)[0].tensor.data<float>()[2], 2 * 9 - 3);
}

TEST(Session, BadInputsGiveClearErrorsAndTheSessionStaysUsable) {
  auto session = Session::CreateFromBytes(ChainModel());
  ASSERT_TRUE(session.ok());
  Session& s = **session;
  auto expect_error = [&](const std::vector<NamedTensor>& in, const std::string& fragment) {
    auto r = s.Run(in);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find(fragment), std::string::npos) << r.status().message();
  };
  expect_error({{"nope", Floats({1, 3}, {1, 2, 3})}}, "unknown input 'nope'");
  expect_error({}, "missing input 'x'");
  expect_error({{"x", Tensor::FromVector<int64_t>({1, 3}, {1, 2, 3}).value()}},
               "has dtype int64, the model declares float");
  expect_error({{"x", Floats({3}, {1, 2, 3})}}, "has rank 1");
  expect_error({{"x", Floats({1, 2}, {1, 2})}}, "dim 1 must be 3");
  expect_error({{"x", Floats({1, 3}, {1, 2, 3})}, {"x", Floats({1, 3}, {1, 2, 3})}},
               "given twice");
  auto bad_output = s.Run({{"x", Floats({1, 3}, {1, 2, 3})}}, {"w"});
  ASSERT_FALSE(bad_output.ok());
  EXPECT_NE(bad_output.status().message().find("unknown output 'w'"), std::string::npos);
  // NaN and inf are computed with, not rejected.
  auto ok = s.Run({{"x", Floats({1, 3}, {NAN, INFINITY, 1})}});
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_TRUE(std::isnan((*ok)[0].tensor.data<float>()[0]));
  EXPECT_TRUE(std::isinf((*ok)[0].tensor.data<float>()[1]));
  EXPECT_FLOAT_EQ((*ok)[0].tensor.data<float>()[2], 2.0f);
}

TEST(Session, UnsupportedOpListsTheNodeAndEachEpsReason) {
  onnx::ModelProto m = NewModel();
  auto* op = m.add_opset_import();
  op->set_domain("com.example");
  op->set_version(1);
  auto* g = m.mutable_graph();
  AddTensorValue(g->add_input(), "x", onnx::TensorProto::FLOAT, {2});
  AddNode(g, "Frobnicate", {"x"}, {"y"}, "frob")->set_domain("com.example");
  AddTensorValue(g->add_output(), "y", onnx::TensorProto::FLOAT, {2});
  auto session = Session::CreateFromBytes(Serialize(m));
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.status().code(), StatusCode::kUnsupported);
  const std::string& msg = session.status().message();
  EXPECT_NE(msg.find("Frobnicate"), std::string::npos) << msg;
  EXPECT_NE(msg.find("frob"), std::string::npos) << msg;
  EXPECT_NE(msg.find("cpu: "), std::string::npos) << msg;
}

// If with branches that read outer-scope values and produce different shapes:
//   then: t = x * w (outer x, w), else: e = Concat(x, x) along axis 0.
std::vector<std::byte> IfModel() {
  onnx::ModelProto m = NewModel();
  auto* g = m.mutable_graph();
  AddTensorValue(g->add_input(), "cond", onnx::TensorProto::BOOL, {});
  AddTensorValue(g->add_input(), "x", onnx::TensorProto::FLOAT, {2});
  AddTensorValue(g->add_input(), "w", onnx::TensorProto::FLOAT, {2});
  onnx::NodeProto* n = AddNode(g, "If", {"cond"}, {"out"}, "the_if");
  auto* then_attr = n->add_attribute();
  then_attr->set_name("then_branch");
  then_attr->set_type(onnx::AttributeProto::GRAPH);
  auto* then_g = then_attr->mutable_g();
  then_g->set_name("then");
  AddNode(then_g, "Mul", {"x", "w"}, {"t"});
  AddTensorValue(then_g->add_output(), "t", onnx::TensorProto::FLOAT, {2});
  auto* else_attr = n->add_attribute();
  else_attr->set_name("else_branch");
  else_attr->set_type(onnx::AttributeProto::GRAPH);
  auto* else_g = else_attr->mutable_g();
  else_g->set_name("else");
  auto* concat = AddNode(else_g, "Concat", {"x", "x"}, {"e"});
  auto* axis = concat->add_attribute();
  axis->set_name("axis");
  axis->set_type(onnx::AttributeProto::INT);
  axis->set_i(0);
  AddTensorValue(else_g->add_output(), "e", onnx::TensorProto::FLOAT, {4});
  onnx::ValueInfoProto* out = g->add_output();
  out->set_name("out");
  out->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  return Serialize(m);
}

TEST(Session, IfRunsTheChosenBranchWithOuterScopeValues) {
  auto session = Session::CreateFromBytes(IfModel());
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  for (bool cond : {true, false, true}) {
    auto out = (*session)->Run({{"cond", Tensor::Scalar<bool>(cond)},
                                {"x", Floats({2}, {3, 4})},
                                {"w", Floats({2}, {10, 100})}});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    const Tensor& t = (*out)[0].tensor;
    if (cond) {
      ASSERT_EQ(t.shape(), (Shape{2}));
      EXPECT_FLOAT_EQ(t.data<float>()[0], 30);
      EXPECT_FLOAT_EQ(t.data<float>()[1], 400);
    } else {
      ASSERT_EQ(t.shape(), (Shape{4}));
      EXPECT_FLOAT_EQ(t.data<float>()[2], 3);
      EXPECT_FLOAT_EQ(t.data<float>()[3], 4);
    }
  }
}

// The session's placement report: the If is the runtime's (counted as the CPU EP's) and its two
// branches are graphs of the report, each placed; ExplainPlacement gives the same report, and
// without a CPU EP and fallback the If is unplaced with the reason and the session refused.
TEST(Session, PlacementShowsControlFlowRunByTheRuntimeWithItsBodiesPlaced) {
  const std::vector<std::byte> model = IfModel();
  auto session = Session::CreateFromBytes(model);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  const PlacementReport report = (*session)->Placement();
  EXPECT_TRUE(report.complete());
  EXPECT_EQ(report.optimization_level, 2);
  ASSERT_FALSE(report.passes.empty());
  EXPECT_EQ(report.passes[0].pass, "gradient_expansion");
  ASSERT_EQ(report.graphs.size(), 3u);
  const GraphPlacement& main = report.graphs[0];
  EXPECT_EQ(main.label, "main graph");
  EXPECT_EQ(main.parent, -1);
  EXPECT_TRUE(main.claims.empty());
  EXPECT_TRUE(main.declined.empty());
  ASSERT_EQ(main.runtime_nodes.size(), 1u);
  EXPECT_EQ(main.runtime_nodes[0].node.name, "the_if");
  EXPECT_EQ(main.runtime_nodes[0].ep, "cpu");
  ASSERT_EQ(main.runtime_nodes[0].subgraphs.size(), 2u);
  for (int32_t sub : main.runtime_nodes[0].subgraphs) {
    const GraphPlacement& body = report.graphs[sub];
    EXPECT_EQ(body.parent, 0);
    EXPECT_EQ(body.label.rfind("main graph / node 'the_if' ", 0), 0u) << body.label;
    ASSERT_EQ(body.claims.size(), 1u) << body.label;
    EXPECT_EQ(body.claims[0].ep, "cpu");
    EXPECT_EQ(body.claims[0].nodes.size(), 1u);
  }
  Result<PlacementReport> explained = ExplainPlacementFromBytes(model);
  ASSERT_TRUE(explained.ok()) << explained.status().ToString();
  EXPECT_EQ(PlacementReportJson(*explained), PlacementReportJson(report));
  EXPECT_EQ(PlacementReportText(report), (*session)->PlacementSummary());

  // Only an EP that is not the CPU EP, and no fallback: the If has no CPU EP to count as.
  class NotCpu : public ExecutionProvider {
   public:
    NotCpu() : ExecutionProvider("not_cpu", Device{}) {}
    KernelMatch Supports(const NodeInfo&) const override {
      return KernelMatch::Unsupported("runs nothing");
    }
    Result<std::unique_ptr<Kernel>> CreateKernel(const NodeInfo& node) override {
      return node.Error(StatusCode::kNotImplemented, "no kernels");
    }
  };
  SessionOptions strict;
  strict.allow_fallback = false;
  strict.providers.push_back(EpSpec{"", {}, {}, std::make_shared<NotCpu>()});
  Result<PlacementReport> unplaced = ExplainPlacementFromBytes(model, strict);
  ASSERT_TRUE(unplaced.ok()) << unplaced.status().ToString();
  EXPECT_FALSE(unplaced->complete());
  ASSERT_EQ(unplaced->graphs[0].declined.size(), 1u);
  EXPECT_NE(unplaced->graphs[0].declined[0].reasons[0].reason.find(
                "the runtime runs If as a node of the CPU EP"),
            std::string::npos)
      << unplaced->graphs[0].declined[0].reasons[0].reason;
  auto refused = Session::CreateFromBytes(model, strict);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kUnsupported);
  // Bodies are placed before the graph that holds them (as ONNX Runtime partitions), so the
  // first graph found with unplaced nodes is the If's then_branch.
  EXPECT_NE(refused.status().message().find("main graph / node 'the_if' then_branch"),
            std::string::npos)
      << refused.status().message();
  EXPECT_NE(refused.status().message().find("#0:Mul:Mul_1"), std::string::npos)
      << refused.status().message();
}

// Constant nodes: one folded with itself (c * c) and read by Add (kept bound across runs), one
// that is a graph output, one in If branches that fold it with the outer constant c * c. Outputs are the caller's: writing into them must not change
// what later runs return.
TEST(Session, ConstantsStayTheSameAcrossRunsWhateverTheCallerDoesWithOutputs) {
  onnx::ModelProto m = NewModel();
  auto* g = m.mutable_graph();
  AddTensorValue(g->add_input(), "x", onnx::TensorProto::FLOAT, {2});
  AddTensorValue(g->add_input(), "cond", onnx::TensorProto::BOOL, {});
  auto constant = [](onnx::NodeProto* n, std::vector<float> v) {
    auto* a = n->add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    a->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
    a->mutable_t()->add_dims(static_cast<int64_t>(v.size()));
    for (float f : v) a->mutable_t()->add_float_data(f);
  };
  constant(AddNode(g, "Constant", {}, {"c"}), {1, 2});
  constant(AddNode(g, "Constant", {}, {"k"}), {5, 6});
  AddNode(g, "Mul", {"c", "c"}, {"cc"});
  AddNode(g, "Add", {"x", "cc"}, {"y"});
  onnx::NodeProto* if_node = AddNode(g, "If", {"cond"}, {"b"});
  for (const char* branch : {"then_branch", "else_branch"}) {
    auto* a = if_node->add_attribute();
    a->set_name(branch);
    a->set_type(onnx::AttributeProto::GRAPH);
    onnx::GraphProto* body = a->mutable_g();
    body->set_name(branch);
    constant(AddNode(body, "Constant", {}, {std::string(branch) + "_v"}), {7, 8});
    AddNode(body, "Add", {"cc", std::string(branch) + "_v"}, {std::string(branch) + "_s"});
    AddTensorValue(body->add_output(), std::string(branch) + "_s", onnx::TensorProto::FLOAT, {2});
  }
  AddTensorValue(g->add_output(), "y", onnx::TensorProto::FLOAT, {2});
  AddTensorValue(g->add_output(), "k", onnx::TensorProto::FLOAT, {2});
  AddTensorValue(g->add_output(), "b", onnx::TensorProto::FLOAT, {2});
  auto session = Session::CreateFromBytes(Serialize(m));
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  for (float x0 : {10.f, 20.f, 30.f}) {
    auto out = (*session)->Run({{"x", Floats({2}, {x0, 1})}, {"cond", Tensor::Scalar<bool>(true)}});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    ASSERT_EQ(out->size(), 3u);
    EXPECT_FLOAT_EQ((*out)[0].tensor.data<float>()[0], x0 + 1);
    EXPECT_FLOAT_EQ((*out)[0].tensor.data<float>()[1], 5);
    EXPECT_FLOAT_EQ((*out)[1].tensor.data<float>()[0], 5);
    EXPECT_FLOAT_EQ((*out)[2].tensor.data<float>()[1], 12);
    for (NamedTensor& t : *out) t.tensor.mutable_data<float>()[1] = -1;  // the caller's now
  }
}

// Loop: sum = sum + x (outer) each iteration, scan output the running sum; 3 trips.
// Loop(trips, s0): s += x per iteration; outputs the final s and every s stacked.
std::vector<std::byte> LoopModel() {
  onnx::ModelProto m = NewModel();
  auto* g = m.mutable_graph();
  AddTensorValue(g->add_input(), "trips", onnx::TensorProto::INT64, {});
  AddTensorValue(g->add_input(), "x", onnx::TensorProto::FLOAT, {2});
  AddTensorValue(g->add_input(), "s0", onnx::TensorProto::FLOAT, {2});
  onnx::NodeProto* n = AddNode(g, "Loop", {"trips", "", "s0"}, {"s_final", "s_all"}, "loop");
  auto* body_attr = n->add_attribute();
  body_attr->set_name("body");
  body_attr->set_type(onnx::AttributeProto::GRAPH);
  auto* body = body_attr->mutable_g();
  body->set_name("body");
  AddTensorValue(body->add_input(), "i", onnx::TensorProto::INT64, {});
  AddTensorValue(body->add_input(), "c_in", onnx::TensorProto::BOOL, {});
  AddTensorValue(body->add_input(), "s", onnx::TensorProto::FLOAT, {2});
  AddNode(body, "Identity", {"c_in"}, {"c_out"});
  AddNode(body, "Add", {"s", "x"}, {"s_next"});
  AddNode(body, "Identity", {"s_next"}, {"s_scan"});
  AddTensorValue(body->add_output(), "c_out", onnx::TensorProto::BOOL, {});
  AddTensorValue(body->add_output(), "s_next", onnx::TensorProto::FLOAT, {2});
  AddTensorValue(body->add_output(), "s_scan", onnx::TensorProto::FLOAT, {2});
  AddTensorValue(g->add_output(), "s_final", onnx::TensorProto::FLOAT, {2});
  AddTensorValue(g->add_output(), "s_all", onnx::TensorProto::FLOAT, {3, 2});
  return Serialize(m);
}

TEST(Session, LoopCarriesStateAndStacksScanOutputs) {
  auto session = Session::CreateFromBytes(LoopModel());
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  auto out = (*session)->Run({{"trips", Tensor::Scalar<int64_t>(3)},
                              {"x", Floats({2}, {1, 2})},
                              {"s0", Floats({2}, {10, 20})}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const Tensor& fin = (*out)[0].tensor;
  const Tensor& all = (*out)[1].tensor;
  EXPECT_FLOAT_EQ(fin.data<float>()[0], 13);
  EXPECT_FLOAT_EQ(fin.data<float>()[1], 26);
  ASSERT_EQ(all.shape(), (Shape{3, 2}));
  const std::vector<float> want = {11, 22, 12, 24, 13, 26};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_FLOAT_EQ(all.data<float>()[i], want[i]);
}

// Issue 20: a Loop that runs zero times outputs its carried values as given and each scan output
// as an empty tensor of shape [0, element dims...] (the spec stacks the per-iteration values
// along a new axis 0; the body declares s_scan [2]), as ONNX Runtime 1.30 does. It gave [0].
TEST(Session, LoopOfZeroIterationsGivesScanOutputsOfShapeZeroByElement) {
  auto session = Session::CreateFromBytes(LoopModel());
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  auto out = (*session)->Run({{"trips", Tensor::Scalar<int64_t>(0)},
                              {"x", Floats({2}, {1, 2})},
                              {"s0", Floats({2}, {10, 20})}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const Tensor& fin = (*out)[0].tensor;
  ASSERT_EQ(fin.shape(), (Shape{2}));
  EXPECT_FLOAT_EQ(fin.data<float>()[0], 10);
  EXPECT_FLOAT_EQ(fin.data<float>()[1], 20);
  EXPECT_EQ((*out)[1].tensor.shape(), (Shape{0, 2}));
  EXPECT_EQ((*out)[1].tensor.dtype(), DataType::kFloat);
}

// ---- Run limits (issue 20): SessionOptions::run_time_limit_ms, loop_trip_limit,
// run_memory_limit_bytes and RunOptions::terminate. Each run stopped by one leaves the session
// usable: the next run gives the values LoopModel's reference math gives.

// The LoopModel run of 3 trips from s0 = [10, 20] with x = [1, 2]: s = s0 + k * x.
void ExpectThreeTrips(Session& session) {
  auto out = session.Run({{"trips", Tensor::Scalar<int64_t>(3)},
                          {"x", Floats({2}, {1, 2})},
                          {"s0", Floats({2}, {10, 20})}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_FLOAT_EQ((*out)[0].tensor.data<float>()[0], 13);
  EXPECT_FLOAT_EQ((*out)[0].tensor.data<float>()[1], 26);
  const std::vector<float> want = {11, 22, 12, 24, 13, 26};
  ASSERT_EQ((*out)[1].tensor.shape(), (Shape{3, 2}));
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_FLOAT_EQ((*out)[1].tensor.data<float>()[i], want[i]);
  }
}

Result<std::vector<NamedTensor>> RunTrips(Session& session, int64_t trips) {
  return session.Run({{"trips", Tensor::Scalar<int64_t>(trips)},
                      {"x", Floats({2}, {1, 2})},
                      {"s0", Floats({2}, {10, 20})}});
}

// A Loop of 2^62 trips (years of work) under a 100 ms limit stops with kDeadlineExceeded within
// bounded time, naming the limit and the Loop; the session then runs a 3-trip Loop right.
TEST(Session, RunPastItsTimeLimitStopsWithDeadlineExceededAndTheSessionStaysUsable) {
  SessionOptions options;
  options.run_time_limit_ms = 100;
  auto session = Session::CreateFromBytes(LoopModel(), options);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  const auto start = std::chrono::steady_clock::now();
  auto stopped = RunTrips(**session, int64_t{1} << 62);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(stopped.ok());
  EXPECT_EQ(stopped.status().code(), StatusCode::kDeadlineExceeded) << stopped.status().ToString();
  const std::string& message = stopped.status().message();
  EXPECT_NE(message.find("the run went past its time limit of 100 ms "
                         "(SessionOptions::run_time_limit_ms)"), std::string::npos) << message;
  EXPECT_NE(message.find("node 'loop' (Loop"), std::string::npos) << message;
  // One iteration takes microseconds: the run stops at the first check past the deadline.
  EXPECT_LT(seconds, 10.0);
  ExpectThreeTrips(**session);
  ExpectThreeTrips(**session);
}

// loop_trip_limit = 5: a Loop of 5 trips runs (s = s0 + 5 x), one of 6 or of no trip count and a
// condition that stays true stops at the limit with kDeadlineExceeded.
TEST(Session, LoopPastItsTripLimitStopsWithDeadlineExceeded) {
  SessionOptions options;
  options.loop_trip_limit = 5;
  auto session = Session::CreateFromBytes(LoopModel(), options);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  auto five = RunTrips(**session, 5);
  ASSERT_TRUE(five.ok()) << five.status().ToString();
  EXPECT_FLOAT_EQ((*five)[0].tensor.data<float>()[0], 15);
  EXPECT_FLOAT_EQ((*five)[0].tensor.data<float>()[1], 30);
  EXPECT_EQ((*five)[1].tensor.shape(), (Shape{5, 2}));
  auto six = RunTrips(**session, 6);
  ASSERT_FALSE(six.ok());
  EXPECT_EQ(six.status().code(), StatusCode::kDeadlineExceeded) << six.status().ToString();
  EXPECT_NE(six.status().message().find("node 'loop' (Loop, opset 17): the Loop ran 5 "
                                        "iterations, its trip limit (SessionOptions::"
                                        "loop_trip_limit)"),
            std::string::npos) << six.status().message();
  ExpectThreeTrips(**session);
}

// RunOptions::terminate set by another thread stops a Loop of 2^62 trips between iterations
// (the flag is read inside control-flow bodies, not only between the main graph's steps).
TEST(Session, TerminateStopsARunInsideALoop) {
  auto session = Session::CreateFromBytes(LoopModel());
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  std::atomic<bool> terminate{false};
  RunOptions run_options;
  run_options.terminate = &terminate;
  std::thread setter([&terminate] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    terminate.store(true);
  });
  auto stopped = (*session)->RunValues({{"trips", Value(Tensor::Scalar<int64_t>(int64_t{1} << 62))},
                                        {"x", Value(Floats({2}, {1, 2}))},
                                        {"s0", Value(Floats({2}, {10, 20}))}},
                                       {}, run_options);
  setter.join();
  ASSERT_FALSE(stopped.ok());
  EXPECT_EQ(stopped.status().code(), StatusCode::kRuntimeError) << stopped.status().ToString();
  EXPECT_NE(stopped.status().message().find("(RunOptions::terminate is set)"), std::string::npos)
      << stopped.status().message();
  EXPECT_NE(stopped.status().message().find("node 'loop'"), std::string::npos)
      << stopped.status().message();
  ExpectThreeTrips(**session);
}

TEST(Session, NegativeRunLimitsAreRefusedAtCreate) {
  for (int which = 0; which < 3; ++which) {
    SessionOptions options;
    (which == 0 ? options.run_time_limit_ms
     : which == 1 ? options.loop_trip_limit
                  : options.run_memory_limit_bytes) = -1;
    auto refused = Session::CreateFromBytes(LoopModel(), options);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
    const char* name = which == 0   ? "run_time_limit_ms"
                       : which == 1 ? "loop_trip_limit"
                                    : "run_memory_limit_bytes";
    EXPECT_NE(refused.status().message().find(std::string("SessionOptions::") + name +
                                              " = -1 is negative; use 0 for no limit"),
              std::string::npos) << refused.status().message();
  }
}

// shape (int64 [2]) → ConstantOfShape (value 2.5) → c; c + c → y, so c and y are alive at once:
// a run of shape [R, C] holds 4 R C bytes, then 8 R C.
std::vector<std::byte> ConstantOfShapeModel() {
  onnx::ModelProto m = NewModel();
  auto* g = m.mutable_graph();
  AddTensorValue(g->add_input(), "shape", onnx::TensorProto::INT64, {2});
  onnx::NodeProto* fill = AddNode(g, "ConstantOfShape", {"shape"}, {"c"}, "fill");
  auto* value = fill->add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  value->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
  value->mutable_t()->add_dims(1);
  value->mutable_t()->add_float_data(2.5f);
  AddNode(g, "Add", {"c", "c"}, {"y"}, "twice");
  AddTensorValue(g->add_output(), "y", onnx::TensorProto::FLOAT, {-1, -1});
  return Serialize(m);
}

Tensor Int64s(Shape shape, std::vector<int64_t> v) {
  return Tensor::FromVector(shape, v).value();
}

// Under a 1 MB limit: [100, 100] (80 kB at once) runs to 5.0 everywhere; [400, 400] fails at
// the Add (640 kB of c plus 640 kB of y) naming the node, the output and the bytes; [10^6, 10^6]
// fails before ConstantOfShape allocates its 4 TB; then [100, 100] runs again.
TEST(Session, RunPastItsMemoryLimitFailsNamingTheNodeAndTheSizes) {
  SessionOptions options;
  options.run_memory_limit_bytes = 1 << 20;
  auto session = Session::CreateFromBytes(ConstantOfShapeModel(), options);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  auto check_fits = [&] {
    auto out = (*session)->Run({{"shape", Int64s({2}, {100, 100})}});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    const Tensor& y = (*out)[0].tensor;
    ASSERT_EQ(y.shape(), (Shape{100, 100}));
    for (int64_t i = 0; i < y.element_count(); ++i) ASSERT_EQ(y.data<float>()[i], 5.0f) << i;
  };
  check_fits();
  check_fits();  // the first run's bytes were released
  auto both = (*session)->Run({{"shape", Int64s({2}, {400, 400})}});
  ASSERT_FALSE(both.ok());
  EXPECT_EQ(both.status().code(), StatusCode::kOutOfMemory) << both.status().ToString();
  EXPECT_NE(both.status().message().find(
                "node 'twice' (Add, opset 17): output 0 'y' (float[400,400]) needs 640000 bytes "
                "while the run holds 640000 bytes of tensors already: more than its memory limit "
                "of 1048576 bytes (SessionOptions::run_memory_limit_bytes)"),
            std::string::npos) << both.status().message();
  auto huge = (*session)->Run({{"shape", Int64s({2}, {1000000, 1000000})}});
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().code(), StatusCode::kOutOfMemory) << huge.status().ToString();
  EXPECT_NE(huge.status().message().find(
                "node 'fill' (ConstantOfShape, opset 17): output 0 'c' (float[1000000,1000000]) "
                "needs 4000000000000 bytes while the run holds 0 bytes"),
            std::string::npos) << huge.status().message();
  check_fits();
}

// x [N] → Expand to `shape` → y: Expand's output under a 1 MB limit.
TEST(Session, ExpandPastTheMemoryLimitFailsBeforeAllocating) {
  onnx::ModelProto m = NewModel();
  auto* g = m.mutable_graph();
  AddTensorValue(g->add_input(), "x", onnx::TensorProto::FLOAT, {-1});
  AddTensorValue(g->add_input(), "shape", onnx::TensorProto::INT64, {2});
  AddNode(g, "Expand", {"x", "shape"}, {"y"}, "expand");
  AddTensorValue(g->add_output(), "y", onnx::TensorProto::FLOAT, {-1, -1});
  SessionOptions options;
  options.run_memory_limit_bytes = 1 << 20;
  auto session = Session::CreateFromBytes(Serialize(m), options);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  auto fits = (*session)->Run({{"x", Floats({3}, {1, 2, 3})}, {"shape", Int64s({2}, {4, 3})}});
  ASSERT_TRUE(fits.ok()) << fits.status().ToString();
  ASSERT_EQ((*fits)[0].tensor.shape(), (Shape{4, 3}));
  for (int r = 0; r < 4; ++r) {
    for (int c = 0; c < 3; ++c) EXPECT_EQ((*fits)[0].tensor.data<float>()[r * 3 + c], c + 1.0f);
  }
  auto huge = (*session)->Run({{"x", Floats({3}, {1, 2, 3})},
                               {"shape", Int64s({2}, {int64_t{1} << 40, 3})}});
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().code(), StatusCode::kOutOfMemory) << huge.status().ToString();
  EXPECT_NE(huge.status().message().find("node 'expand' (Expand, opset 17): output 0 'y' "
                                         "(float[1099511627776,3]) needs 13194139533312 bytes"),
            std::string::npos) << huge.status().message();
}

// A Loop's scan output grows by 8 bytes an iteration: under a 1 kB limit, 2^62 trips stop once
// the scan outputs collected pass it (no trip count or time limit needed).
TEST(Session, LoopScanOutputsCountAgainstTheMemoryLimit) {
  SessionOptions options;
  options.run_memory_limit_bytes = 1024;
  auto session = Session::CreateFromBytes(LoopModel(), options);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  auto grown = RunTrips(**session, int64_t{1} << 62);
  ASSERT_FALSE(grown.ok());
  EXPECT_EQ(grown.status().code(), StatusCode::kOutOfMemory) << grown.status().ToString();
  // The limit is passed by the next scan output or by a body step's output, whichever comes
  // first once the scan outputs fill it.
  const std::string& message = grown.status().message();
  EXPECT_EQ(message.rfind("node 'loop' (Loop, opset 17): ", 0), 0u) << message;
  EXPECT_NE(message.find("more than its memory limit of 1024 bytes"), std::string::npos)
      << message;
  ExpectThreeTrips(**session);
}

// Stats() and the trace break control-flow bodies down: each body step is a row of its own,
// counted per iteration, linked to its Loop, in the body's graph of the placement report; the
// Loop's self time is its total less its body's; each body step's span lies inside a Loop span
// inside a run span, with its values' dtypes and shapes.
TEST(Session, StatsAndTraceBreakControlFlowBodiesDown) {
  SessionOptions options;
  options.enable_profiling = true;
  auto session = Session::CreateFromBytes(LoopModel(), options);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  for (int run = 0; run < 2; ++run) {
    ASSERT_TRUE((*session)->Run({{"trips", Tensor::Scalar<int64_t>(3)},
                                 {"x", Floats({2}, {1, 2})},
                                 {"s0", Floats({2}, {10, 20})}})
                    .ok());
  }
  const std::vector<KernelStats> stats = (*session)->Stats();
  const PlacementReport report = (*session)->Placement();
  int64_t loop = -1, add = -1;
  for (size_t i = 0; i < stats.size(); ++i) {
    if (stats[i].op_type == "Loop") loop = static_cast<int64_t>(i);
    if (stats[i].op_type == "Add") add = static_cast<int64_t>(i);
  }
  ASSERT_GE(loop, 0);
  ASSERT_GE(add, 0);
  EXPECT_EQ(stats[loop].graph, 0);
  EXPECT_EQ(stats[loop].parent, -1);
  EXPECT_EQ(stats[loop].calls, 2);
  EXPECT_EQ(stats[add].calls, 6);  // 3 iterations in each of 2 runs
  EXPECT_EQ(stats[add].parent, loop);
  ASSERT_GT(stats[add].graph, 0);
  ASSERT_LT(static_cast<size_t>(stats[add].graph), report.graphs.size());
  EXPECT_EQ(report.graphs[stats[add].graph].label, "main graph / node 'loop' body");
  double body_us = 0;
  for (const KernelStats& k : stats) {
    if (k.parent == loop) body_us += k.total_us;
    if (k.parent == -1) {
      EXPECT_EQ(k.graph, 0) << k.name;
    }
  }
  EXPECT_GT(body_us, 0);
  EXPECT_DOUBLE_EQ(stats[loop].self_us, stats[loop].total_us - body_us);
  EXPECT_DOUBLE_EQ(stats[add].self_us, stats[add].total_us);

  Result<std::string> trace = (*session)->EndProfiling();
  ASSERT_TRUE(trace.ok()) << trace.status().ToString();
  const nlohmann::json events = nlohmann::json::parse(*trace)["traceEvents"];
  struct Span {
    double begin, end;
  };
  std::vector<Span> runs, loops;
  std::vector<nlohmann::json> adds;
  for (const nlohmann::json& e : events) {
    if (e["ph"] != "X") continue;
    const Span span{e["ts"].get<double>(), e["ts"].get<double>() + e["dur"].get<double>()};
    if (e["name"] == "run") runs.push_back(span);
    if (e["args"].contains("op_type") && e["args"]["op_type"] == "Loop") loops.push_back(span);
    if (e["args"].contains("op_type") && e["args"]["op_type"] == "Add") adds.push_back(e);
  }
  ASSERT_EQ(runs.size(), 2u);
  ASSERT_EQ(loops.size(), 2u);
  ASSERT_EQ(adds.size(), 6u);
  auto inside = [](double begin, double end, const std::vector<Span>& outer) {
    return std::count_if(outer.begin(), outer.end(), [&](const Span& o) {
      return o.begin <= begin && end <= o.end;
    });
  };
  for (const Span& l : loops) EXPECT_EQ(inside(l.begin, l.end, runs), 1);
  for (const nlohmann::json& e : adds) {
    const double begin = e["ts"].get<double>(), end = begin + e["dur"].get<double>();
    EXPECT_EQ(inside(begin, end, loops), 1) << e.dump();
    EXPECT_EQ(e["args"]["graph"], "main graph / node 'loop' body");
    EXPECT_EQ(e["args"]["inputs"], (nlohmann::json{"float[2]", "float[2]"}));
    EXPECT_EQ(e["args"]["outputs"], (nlohmann::json{"float[2]"}));
  }
}

// Scan-8 (batched, sequence_lens): per batch entry b, sum += x[b, t] over the first lens[b]
// steps (reversed when directions = [1]); the scan output is the running sum, zero-padded past
// lens[b]. Random batches, lengths and values (fixed seed) against that reference.
TEST(Session, BatchedScan8HonoursSequenceLensAndDirections) {
  std::mt19937 rng(81);
  for (int iter = 0; iter < 12; ++iter) {
    const int64_t batch = std::uniform_int_distribution<int64_t>(1, 3)(rng);
    const int64_t steps = std::uniform_int_distribution<int64_t>(1, 4)(rng);
    const int64_t direction = iter % 2;
    const bool with_lens = iter % 3 != 0;
    onnx::ModelProto m = NewModel(8);
    auto* g = m.mutable_graph();
    if (with_lens) AddTensorValue(g->add_input(), "lens", onnx::TensorProto::INT64, {batch});
    AddTensorValue(g->add_input(), "s0", onnx::TensorProto::FLOAT, {batch, 2});
    AddTensorValue(g->add_input(), "x", onnx::TensorProto::FLOAT, {batch, steps, 2});
    onnx::NodeProto* n =
        AddNode(g, "Scan", {with_lens ? "lens" : "", "s0", "x"}, {"s_final", "s_all"}, "scan");
    auto* count = n->add_attribute();
    count->set_name("num_scan_inputs");
    count->set_type(onnx::AttributeProto::INT);
    count->set_i(1);
    auto* directions = n->add_attribute();
    directions->set_name("directions");
    directions->set_type(onnx::AttributeProto::INTS);
    directions->add_ints(direction);
    auto* body_attr = n->add_attribute();
    body_attr->set_name("body");
    body_attr->set_type(onnx::AttributeProto::GRAPH);
    auto* body = body_attr->mutable_g();
    body->set_name("body");
    AddTensorValue(body->add_input(), "s", onnx::TensorProto::FLOAT, {2});
    AddTensorValue(body->add_input(), "xt", onnx::TensorProto::FLOAT, {2});
    AddNode(body, "Add", {"s", "xt"}, {"s_next"});
    AddNode(body, "Identity", {"s_next"}, {"s_scan"});
    AddTensorValue(body->add_output(), "s_next", onnx::TensorProto::FLOAT, {2});
    AddTensorValue(body->add_output(), "s_scan", onnx::TensorProto::FLOAT, {2});
    AddTensorValue(g->add_output(), "s_final", onnx::TensorProto::FLOAT, {batch, 2});
    AddTensorValue(g->add_output(), "s_all", onnx::TensorProto::FLOAT, {batch, steps, 2});
    auto session = Session::CreateFromBytes(Serialize(m));
    ASSERT_TRUE(session.ok()) << session.status().ToString();

    std::vector<int64_t> lens(batch, steps);
    // Lengths from 1: an entry of length 0 has no scan output to derive the shape from.
    if (with_lens) {
      for (int64_t& l : lens) l = std::uniform_int_distribution<int64_t>(1, steps)(rng);
    }
    std::vector<float> s0(batch * 2), x(batch * steps * 2);
    for (float& v : s0) v = static_cast<float>(std::uniform_int_distribution<int>(-5, 5)(rng));
    for (float& v : x) v = static_cast<float>(std::uniform_int_distribution<int>(-5, 5)(rng));
    std::vector<float> want_final(batch * 2), want_all(batch * steps * 2, 0.0f);
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t c = 0; c < 2; ++c) {
        float sum = s0[b * 2 + c];
        for (int64_t t = 0; t < lens[b]; ++t) {
          const int64_t from = direction == 1 ? lens[b] - 1 - t : t;
          sum += x[(b * steps + from) * 2 + c];
          want_all[(b * steps + t) * 2 + c] = sum;
        }
        want_final[b * 2 + c] = sum;
      }
    }
    std::vector<NamedTensor> feeds = {{"s0", Floats({batch, 2}, s0)},
                                      {"x", Floats({batch, steps, 2}, x)}};
    if (with_lens) feeds.push_back({"lens", Tensor::FromVector<int64_t>({batch}, lens).value()});
    auto out = (*session)->Run(feeds);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    const Tensor& fin = (*out)[0].tensor;
    const Tensor& all = (*out)[1].tensor;
    ASSERT_EQ(all.shape(), (Shape{batch, steps, 2}));
    EXPECT_EQ(std::vector<float>(fin.data<float>(), fin.data<float>() + fin.element_count()),
              want_final) << "iter " << iter;
    EXPECT_EQ(std::vector<float>(all.data<float>(), all.data<float>() + all.element_count()),
              want_all) << "iter " << iter;
  }
}

TEST(Session, ConcurrentRunsFromFourThreadsAgree) {
  SessionOptions options;
  options.intra_op_threads = 2;
  auto session = Session::CreateFromBytes(ChainModel(), options);
  ASSERT_TRUE(session.ok());
  Session& s = **session;
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int run = 0; run < 50; ++run) {
        const float base = static_cast<float>(t * 100 + run);
        auto out = s.Run({{"x", Floats({1, 3}, {base, base + 1, base + 2})}});
        if (!out.ok()) {
          ++failures[t];
          continue;
        }
        for (int i = 0; i < 3; ++i) {
          const float x = base + static_cast<float>(i);
          if ((*out)[1].tensor.data<float>()[i] != 2 * x * x - x) ++failures[t];
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
}

}  // namespace
}  // namespace nxrt

namespace nxrt {
namespace {

// y = x @ W (W a [K, N] initializer) then z = y @ W2: after the first run both weights live
// only packed (the session frees the originals, ep/prepacked.h). Later runs with other row
// counts re-plan the MatMuls from the packed copies, and concurrent runs (new instances) share
// them; every result must still equal a double-precision reference.
TEST(Session, PackedWeightsServeNewShapesAndConcurrentRunsAfterTheOriginalsAreFreed) {
  constexpr int64_t K = 96, N = 80, N2 = 24;
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> w(K * N), w2(N * N2);
  for (float& v : w) v = dist(rng);
  for (float& v : w2) v = dist(rng);
  onnx::ModelProto m = NewModel();
  onnx::GraphProto* g = m.mutable_graph();
  AddTensorValue(g->add_input(), "x", onnx::TensorProto::FLOAT, {-1, K});
  AddTensorValue(g->add_output(), "z", onnx::TensorProto::FLOAT, {-1, N2});
  for (auto [name, data, rows, cols] : {std::tuple{"W", &w, K, N}, std::tuple{"W2", &w2, N, N2}}) {
    onnx::TensorProto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    t->add_dims(rows);
    t->add_dims(cols);
    for (float v : *data) t->add_float_data(v);
  }
  AddNode(g, "MatMul", {"x", "W"}, {"y"});
  AddNode(g, "MatMul", {"y", "W2"}, {"z"});
  SessionOptions options;
  options.intra_op_threads = 1;
  auto session = Session::CreateFromBytes(Serialize(m), options);
  ASSERT_TRUE(session.ok()) << session.status().message();

  auto check = [&](int64_t rows, uint32_t seed) {
    std::mt19937 local(seed);
    std::vector<float> x(rows * K);
    for (float& v : x) v = dist(local);
    auto out = (*session)->Run({{"x", Tensor::FromVector<float>({rows, K}, x).value()}});
    if (!out.ok()) return ::testing::AssertionFailure() << out.status().message();
    const float* z = (*out)[0].tensor.data<float>();
    for (int64_t r = 0; r < rows; ++r) {
      std::vector<double> y(N, 0.0);
      for (int64_t n = 0; n < N; ++n) {
        for (int64_t k = 0; k < K; ++k) y[n] += double(x[r * K + k]) * w[k * N + n];
      }
      for (int64_t n2 = 0; n2 < N2; ++n2) {
        double want = 0;
        for (int64_t n = 0; n < N; ++n) want += y[n] * w2[n * N2 + n2];
        if (std::fabs(z[r * N2 + n2] - want) > 1e-3 * (1 + std::fabs(want))) {
          return ::testing::AssertionFailure()
                 << "rows " << rows << " z[" << r << "," << n2 << "] = " << z[r * N2 + n2]
                 << ", want " << want;
        }
      }
    }
    return ::testing::AssertionSuccess();
  };
  EXPECT_TRUE(check(64, 1));
  for (int64_t rows : {1, 7, 64, 200, 3}) EXPECT_TRUE(check(rows, static_cast<uint32_t>(rows)));
  std::vector<std::thread> threads;
  std::vector<int> failures(3, 0);
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) {
        if (!check(1 + (t * 37 + i * 11) % 90, static_cast<uint32_t>(t * 100 + i))) ++failures[t];
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures, std::vector<int>(3, 0));
}

}  // namespace
}  // namespace nxrt
