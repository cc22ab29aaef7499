// optimizer/matmul_add_to_gemm_test.cpp: the matmul_add_to_gemm pass on graphs before and after:
// the Gemm it makes for each C shape that broadcasts to [M, N], and the cases left alone.
#include <gtest/gtest.h>

#include <string>
#include <variant>
#include <vector>

#include "optimizer/optimizer_test_util.h"

namespace nxrt::opt {
namespace {

using testing::AddNode;
using testing::ExpectSameResults;
using testing::Floats;
using testing::FillFloatTensor;
using testing::FillValueInfo;
using testing::MakeModel;
using testing::OpTypes;
using testing::Optimize;
using testing::RandomFloats;
using testing::Rewrites;
using TestDim = ir::testing::TestDim;

struct Case {
  std::string name;
  std::vector<TestDim> a;  // A's declared dims; B is a constant [4, n]
  int64_t n = 5;
  std::vector<int64_t> c;  // C's dims (a constant)
  bool c_first = false;    // Add(C, product) instead of Add(product, C)
  bool product_is_output = false;
  bool product_read_twice = false;
};

// y = Add(MatMul(a, b), c) with b [4, n] and c constants.
onnx::ModelProto MatMulAddModel(const Case& k) {
  onnx::ModelProto m = MakeModel(17);
  onnx::GraphProto* g = m.mutable_graph();
  onnx::ValueInfoProto* a = g->add_input();
  a->set_name("a");
  a->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  onnx::TensorShapeProto* a_shape = a->mutable_type()->mutable_tensor_type()->mutable_shape();
  for (const TestDim& d : k.a) {
    if (const int64_t* v = std::get_if<int64_t>(&d)) {
      a_shape->add_dim()->set_dim_value(*v);
    } else {
      a_shape->add_dim()->set_dim_param(std::get<std::string>(d));
    }
  }
  FillValueInfo(g->add_output(), "y", onnx::TensorProto::FLOAT, {});
  g->mutable_output(0)->mutable_type()->mutable_tensor_type()->clear_shape();
  FillFloatTensor(g->add_initializer(), "b", {4, k.n}, Floats({4, k.n}, 1));
  onnx::TensorProto* c = g->add_initializer();
  FillFloatTensor(c, "c", {}, Floats(k.c, 2));
  for (int64_t d : k.c) c->add_dims(d);
  AddNode(g, "MatMul", {"a", "b"}, {"p"}, "matmul");
  if (k.c_first) {
    AddNode(g, "Add", {"c", "p"}, {"y"}, "add");
  } else {
    AddNode(g, "Add", {"p", "c"}, {"y"}, "add");
  }
  if (k.product_is_output) FillValueInfo(g->add_output(), "p", onnx::TensorProto::FLOAT, {});
  if (k.product_read_twice) {
    FillValueInfo(g->add_output(), "r", onnx::TensorProto::FLOAT, {});
    AddNode(g, "Relu", {"p"}, {"r"}, "relu");
  }
  return m;
}

TEST(MatMulAddToGemm, FusesWhenCBroadcastsToTheProduct) {
  const std::vector<Case> cases = {
      {"bias [N], batch symbolic", {"M", 4}, 5, {5}},
      {"bias [N] on the left of Add", {"M", 4}, 5, {5}, true},
      {"C [1, N]", {"M", 4}, 5, {1, 5}},
      {"C [M, 1], M fixed", {3, 4}, 5, {3, 1}},
      {"C [M, N], M fixed", {3, 4}, 5, {3, 5}},
      {"scalar C", {"M", 4}, 5, {}},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(k.name);
    const onnx::ModelProto m = MatMulAddModel(k);
    ir::Model model = Optimize(m, {"matmul_add_to_gemm"});
    const ir::Graph& g = *model.graph;
    ASSERT_EQ(OpTypes(g), std::vector<std::string>{"Gemm"});
    const ir::Node& gemm = g.nodes[0];
    ASSERT_EQ(gemm.inputs.size(), 3u);
    EXPECT_EQ(g.values[gemm.inputs[0]].name, "a");
    EXPECT_EQ(g.values[gemm.inputs[1]].name, "b");
    EXPECT_EQ(g.values[gemm.inputs[2]].name, "c");
    EXPECT_EQ(g.values[gemm.outputs[0]].name, "y");
    // alpha = beta = 1, no transposes: the schema defaults.
    EXPECT_TRUE(gemm.attributes.empty());
    const auto stats =
        ExpectSameResults(m, {{"a", RandomFloats({3, 4}, 3)}}, {"matmul_add_to_gemm"});
    EXPECT_EQ(Rewrites(stats, "matmul_add_to_gemm"), 1);
  }
}

TEST(MatMulAddToGemm, LeavesOtherRanksWideningCAndSharedProducts) {
  Case rank3{"A of rank 3", {2, 3, 4}, 5, {5}};
  Case symbolic_m{"C [M, N] with M symbolic", {"M", 4}, 5, {3, 5}};
  Case widening{"C [M, 5] on a [M, 1] product", {3, 4}, 1, {3, 5}};
  Case rank3_c{"C of rank 3", {3, 4}, 5, {1, 3, 5}};
  Case output{"product is a graph output", {3, 4}, 5, {5}};
  output.product_is_output = true;
  Case shared{"product read twice", {3, 4}, 5, {5}};
  shared.product_read_twice = true;
  for (const Case& k : {rank3, symbolic_m, widening, rank3_c, output, shared}) {
    SCOPED_TRACE(k.name);
    ir::Model model = Optimize(MatMulAddModel(k), {"matmul_add_to_gemm"});
    const std::vector<std::string> ops = OpTypes(*model.graph);
    ASSERT_GE(ops.size(), 2u);
    EXPECT_EQ(ops[0], "MatMul");
    EXPECT_EQ(ops[1], "Add");
  }
}

TEST(MatMulAddToGemm, LeavesACWhoseShapeIsUnknown) {
  onnx::ModelProto m = MakeModel(17);
  onnx::GraphProto* g = m.mutable_graph();
  FillValueInfo(g->add_input(), "a", onnx::TensorProto::FLOAT, {3, 4});
  onnx::ValueInfoProto* c = g->add_input();
  c->set_name("c");
  c->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  FillValueInfo(g->add_output(), "y", onnx::TensorProto::FLOAT, {});
  g->mutable_output(0)->mutable_type()->mutable_tensor_type()->clear_shape();
  FillFloatTensor(g->add_initializer(), "b", {4, 5}, Floats({4, 5}, 1));
  AddNode(g, "MatMul", {"a", "b"}, {"p"}, "matmul");
  AddNode(g, "Add", {"p", "c"}, {"y"}, "add");
  ir::Model model = Optimize(m, {"matmul_add_to_gemm"});
  EXPECT_EQ(OpTypes(*model.graph), (std::vector<std::string>{"MatMul", "Add"}));
}

}  // namespace
}  // namespace nxrt::opt
