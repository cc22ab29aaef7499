// optimizer/shape_folding_test.cpp: the shape_folding (level 1) and dim_folding (level 2) passes
// on graphs before and after: fully static Shape (shape_folding), Size and Gather and Slice of a
// partly symbolic shape (dim_folding only, as ONNX Runtime keeps them at its default level), the
// chain they feed, and what is left when a selected dim is symbolic or the rank is unknown.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "optimizer/optimizer_test_util.h"

namespace nxrt::opt {
namespace {

using testing::AddIntAttribute;
using testing::AddNode;
using testing::ExpectSameResults;
using testing::FillFloatTensor;
using testing::FillInt64Tensor;
using testing::FillValueInfo;
using testing::MakeModel;
using testing::OpTypes;
using testing::Optimize;
using testing::RandomFloats;
using testing::Rewrites;

// The constant bound to input `slot` of `node` as int64 values; empty when not a constant.
std::vector<int64_t> ConstantInput(const ir::Graph& g, const ir::Node& node, size_t slot) {
  const ir::Initializer* init = g.FindInitializer(node.inputs[slot]);
  if (init == nullptr || init->tensor.dtype() != DataType::kInt64) return {};
  return {init->tensor.span<int64_t>().begin(), init->tensor.span<int64_t>().end()};
}

// x [batch, 4, 8] → Reshape(x, Concat([-1], Unsqueeze(Gather(Shape(x), 2)))) = y [batch*4, 8]:
// the flatten-all-but-last idiom of exported models.
onnx::ModelProto GatherChainModel() {
  onnx::ModelProto m = MakeModel(17);
  onnx::GraphProto* g = m.mutable_graph();
  FillValueInfo(g->add_input(), "x", onnx::TensorProto::FLOAT, {"batch", 4, 8});
  FillValueInfo(g->add_output(), "y", onnx::TensorProto::FLOAT, {"?", "?"});
  FillInt64Tensor(g->add_initializer(), "last", {}, {2});
  FillInt64Tensor(g->add_initializer(), "axes0", {1}, {0});
  FillInt64Tensor(g->add_initializer(), "minus_one", {1}, {-1});
  AddNode(g, "Shape", {"x"}, {"s"}, "shape");
  AddNode(g, "Gather", {"s", "last"}, {"d"}, "gather");
  AddNode(g, "Unsqueeze", {"d", "axes0"}, {"du"}, "unsqueeze");
  onnx::NodeProto* concat = AddNode(g, "Concat", {"minus_one", "du"}, {"target"}, "concat");
  AddIntAttribute(concat, "axis", 0);
  AddNode(g, "Reshape", {"x", "target"}, {"y"}, "reshape");
  return m;
}

TEST(ShapeFolding, GatherOfAFixedDimFoldsTheChainEvenWithASymbolicBatch) {
  ir::Model model = Optimize(GatherChainModel(), {"dim_folding", "dead_node_elimination"});
  const ir::Graph& g = *model.graph;
  ASSERT_EQ(OpTypes(g), std::vector<std::string>{"Reshape"});
  EXPECT_EQ(ConstantInput(g, g.nodes[0], 1), (std::vector<int64_t>{-1, 8}));

  const auto stats = ExpectSameResults(GatherChainModel(), {{"x", RandomFloats({3, 4, 8}, 11)}},
                                       {"dim_folding"});
  // Gather, Unsqueeze, Concat; the Shape node is left to dead_node_elimination.
  EXPECT_EQ(Rewrites(stats, "dim_folding"), 3);

  // Level 1 keeps the chain, as ONNX Runtime shows it to a plugin EP.
  ir::Model level1 = Optimize(GatherChainModel(), {"shape_folding", "dead_node_elimination"});
  EXPECT_EQ(OpTypes(*level1.graph),
            (std::vector<std::string>{"Shape", "Gather", "Unsqueeze", "Concat", "Reshape"}));
}

TEST(ShapeFolding, StaticShapeWithStartAndSizeBecomeConstants) {
  onnx::ModelProto m = MakeModel(17);
  onnx::GraphProto* g = m.mutable_graph();
  FillValueInfo(g->add_input(), "x", onnx::TensorProto::FLOAT, {2, 3, 4});
  FillValueInfo(g->add_output(), "tail", onnx::TensorProto::INT64, {2});
  FillValueInfo(g->add_output(), "y", onnx::TensorProto::FLOAT, {2, 3, 4});
  onnx::NodeProto* shape = AddNode(g, "Shape", {"x"}, {"tail"}, "shape_tail");
  AddIntAttribute(shape, "start", -2);
  AddNode(g, "Size", {"x"}, {"n"}, "size");
  onnx::NodeProto* cast = AddNode(g, "Cast", {"n"}, {"nf"}, "cast");
  AddIntAttribute(cast, "to", onnx::TensorProto::FLOAT);
  AddNode(g, "Mul", {"x", "nf"}, {"y"}, "mul");

  ir::Model level1 = Optimize(m, {"shape_folding"});
  EXPECT_EQ(OpTypes(*level1.graph), (std::vector<std::string>{"Size", "Cast", "Mul"}));

  ir::Model model = Optimize(m, {"shape_folding", "dim_folding"});
  const ir::Graph& ig = *model.graph;
  ASSERT_EQ(OpTypes(ig), std::vector<std::string>{"Mul"});
  const ir::Initializer* tail = ig.FindInitializer(ig.FindValue("tail"));
  ASSERT_NE(tail, nullptr);
  EXPECT_EQ(std::vector<int64_t>(tail->tensor.span<int64_t>().begin(),
                                 tail->tensor.span<int64_t>().end()),
            (std::vector<int64_t>{3, 4}));
  const ir::Initializer* nf = ig.FindInitializer(ig.nodes[0].inputs[1]);
  ASSERT_NE(nf, nullptr);
  EXPECT_EQ(nf->tensor.rank(), 0u);
  EXPECT_EQ(*nf->tensor.data<float>(), 2.0f * 3.0f * 4.0f);

  const auto stats = ExpectSameResults(m, {{"x", RandomFloats({2, 3, 4}, 5)}},
                                       {"shape_folding", "dim_folding"});
  EXPECT_EQ(Rewrites(stats, "shape_folding"), 1);  // the Shape
  EXPECT_EQ(Rewrites(stats, "dim_folding"), 2);    // the Size and the Cast it feeds
}

// x [batch, 4, 8]: Slice(Shape(x), starts, ends[, axes, steps]) → graph output "sliced".
onnx::ModelProto SliceModel(int64_t start, int64_t end, int64_t step) {
  onnx::ModelProto m = MakeModel(17);
  onnx::GraphProto* g = m.mutable_graph();
  FillValueInfo(g->add_input(), "x", onnx::TensorProto::FLOAT, {"batch", 4, 8});
  FillValueInfo(g->add_output(), "sliced", onnx::TensorProto::INT64, {"?"});
  FillInt64Tensor(g->add_initializer(), "starts", {1}, {start});
  FillInt64Tensor(g->add_initializer(), "ends", {1}, {end});
  FillInt64Tensor(g->add_initializer(), "axes", {1}, {0});
  FillInt64Tensor(g->add_initializer(), "steps", {1}, {step});
  AddNode(g, "Shape", {"x"}, {"s"}, "shape");
  AddNode(g, "Slice", {"s", "starts", "ends", "axes", "steps"}, {"sliced"}, "slice");
  return m;
}

TEST(ShapeFolding, SliceOfFixedDimsFoldsAndOneReachingASymbolicDimDoesNot) {
  struct Case {
    int64_t start, end, step;
    std::vector<int64_t> expected;  // empty: not folded
  };
  const int64_t kMax = std::numeric_limits<int64_t>::max();
  const std::vector<Case> cases = {
      {1, kMax, 1, {4, 8}},  // x.shape[1:]
      {-1, -3, -1, {8, 4}},  // x.shape[-1:-3:-1]
      {-2, -1, 1, {4}},      // x.shape[-2:-1]
      {0, 2, 1, {}},         // includes batch
      {kMax, 0, -1, {8, 4}},  // reversed, stops before batch
      {kMax, -kMax, -1, {}},  // reversed, reaches batch
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << "slice " << c.start << ":" << c.end << ":" << c.step);
    const onnx::ModelProto m = SliceModel(c.start, c.end, c.step);
    ir::Model model = Optimize(m, {"dim_folding", "dead_node_elimination"});
    const ir::Graph& g = *model.graph;
    if (c.expected.empty()) {
      EXPECT_EQ(OpTypes(g), (std::vector<std::string>{"Shape", "Slice"}));
      continue;
    }
    EXPECT_TRUE(g.nodes.empty());
    const ir::Initializer* sliced = g.FindInitializer(g.FindValue("sliced"));
    ASSERT_NE(sliced, nullptr);
    EXPECT_EQ(std::vector<int64_t>(sliced->tensor.span<int64_t>().begin(),
                                   sliced->tensor.span<int64_t>().end()),
              c.expected);
    ExpectSameResults(m, {{"x", RandomFloats({2, 4, 8}, 9)}}, {"dim_folding"});
  }
}

TEST(ShapeFolding, LeavesSymbolicDimsAndUnknownRanks) {
  onnx::ModelProto m = MakeModel(17);
  onnx::GraphProto* g = m.mutable_graph();
  FillValueInfo(g->add_input(), "x", onnx::TensorProto::FLOAT, {"batch", 4});
  onnx::ValueInfoProto* any = g->add_input();
  any->set_name("any");
  any->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  FillValueInfo(g->add_output(), "s", onnx::TensorProto::INT64, {2});
  FillValueInfo(g->add_output(), "b", onnx::TensorProto::INT64, {});
  FillValueInfo(g->add_output(), "n", onnx::TensorProto::INT64, {});
  FillValueInfo(g->add_output(), "f", onnx::TensorProto::INT64, {});
  FillInt64Tensor(g->add_initializer(), "zero", {}, {0});
  FillInt64Tensor(g->add_initializer(), "one", {}, {1});
  AddNode(g, "Shape", {"x"}, {"s"}, "shape");       // batch is symbolic
  AddNode(g, "Gather", {"s", "zero"}, {"b"}, "gather_batch");
  AddNode(g, "Size", {"x"}, {"n"}, "size");          // batch is symbolic
  AddNode(g, "Shape", {"any"}, {"sa"}, "shape_any");  // rank unknown
  AddNode(g, "Gather", {"sa", "one"}, {"f"}, "gather_any");

  ir::Model model = Optimize(m, {"shape_folding", "dim_folding", "dead_node_elimination"});
  EXPECT_EQ(OpTypes(*model.graph),
            (std::vector<std::string>{"Shape", "Gather", "Size", "Shape", "Gather"}));
}

// Declared dims whose product passes INT64_MAX ([2, INT64_MAX], fuzz regression
// size_of_dims_2_int64_max, a signed overflow under UBSan before): Size stays a node; [3, 5]
// folds to 15.
TEST(ShapeFolding, SizeWhoseProductOverflowsStaysUnfolded) {
  for (const auto& [dims, folds] :
       {std::pair{std::vector<int64_t>{2, std::numeric_limits<int64_t>::max()}, false},
        std::pair{std::vector<int64_t>{3, 5}, true}}) {
    onnx::ModelProto m = MakeModel(17);
    onnx::GraphProto* g = m.mutable_graph();
    FillValueInfo(g->add_input(), "x", onnx::TensorProto::FLOAT, {dims[0], dims[1]});
    FillValueInfo(g->add_output(), "n", onnx::TensorProto::INT64, {});
    AddNode(g, "Size", {"x"}, {"n"}, "size");
    ir::Model model = Optimize(m, {"dim_folding", "dead_node_elimination"});
    if (!folds) {
      EXPECT_EQ(OpTypes(*model.graph), std::vector<std::string>{"Size"});
      continue;
    }
    EXPECT_TRUE(model.graph->nodes.empty());
    const ir::Initializer* n = model.graph->FindInitializer(model.graph->outputs[0]);
    ASSERT_NE(n, nullptr);
    EXPECT_EQ(n->tensor.span<int64_t>()[0], 15);
  }
}

}  // namespace
}  // namespace nxrt::opt
