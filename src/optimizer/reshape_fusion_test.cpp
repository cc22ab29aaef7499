// optimizer/reshape_fusion_test.cpp: the reshape_fusion pass on graphs before and after: a
// Reshape target built from the input's own dims, a constant and one element left to infer
// becomes the constant ONNX Runtime's ReshapeFusion makes ([0, 3, -1]), the chain that computed it
// goes, and the cases left alone keep their Concat.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "optimizer/optimizer_test_util.h"

namespace nxrt::opt {
namespace {

using testing::AddIntAttribute;
using testing::AddNode;
using testing::ExpectSameResults;
using testing::FillValueInfo;
using testing::MakeModel;
using testing::OpTypes;
using testing::Optimize;
using testing::RandomFloats;
using testing::Rewrites;

void AddInt64s(onnx::GraphProto* g, const std::string& name, std::vector<int64_t> dims,
               const std::vector<int64_t>& values) {
  testing::FillInt64Tensor(g->add_initializer(), name, dims, values);
}

struct Variant {
  std::vector<int64_t> middle = {3};  // the constant Concat input
  int64_t allowzero = 0;
  bool target_is_output = false;
};

// y = Reshape(x, Concat(x.shape[0], middle, x.shape[1])) for x [batch, 6, 3], opset 14: the
// first element is dim 0 of x at position 0 ("copy", 0), the last dim 1 at position 2 (one
// element to infer, -1).
onnx::ModelProto ReshapeModel(const Variant& v) {
  onnx::ModelProto m = MakeModel(14);
  onnx::GraphProto* g = m.mutable_graph();
  FillValueInfo(g->add_input(), "x", onnx::TensorProto::FLOAT, {"batch", 6, 3});
  FillValueInfo(g->add_output(), "y", onnx::TensorProto::FLOAT, {});
  g->mutable_output(0)->mutable_type()->mutable_tensor_type()->clear_shape();
  if (v.target_is_output) FillValueInfo(g->add_output(), "target", onnx::TensorProto::INT64, {3});
  AddInt64s(g, "zero", {}, {0});
  AddInt64s(g, "one", {}, {1});
  AddInt64s(g, "axes", {1}, {0});
  AddInt64s(g, "middle", {static_cast<int64_t>(v.middle.size())}, v.middle);
  AddNode(g, "Shape", {"x"}, {"s"}, "shape");
  AddNode(g, "Gather", {"s", "zero"}, {"d0"}, "gather0");
  AddNode(g, "Unsqueeze", {"d0", "axes"}, {"u0"}, "unsqueeze0");
  AddNode(g, "Gather", {"s", "one"}, {"d1"}, "gather1");
  AddNode(g, "Unsqueeze", {"d1", "axes"}, {"u1"}, "unsqueeze1");
  AddIntAttribute(AddNode(g, "Concat", {"u0", "middle", "u1"}, {"target"}, "concat"), "axis", 0);
  AddIntAttribute(AddNode(g, "Reshape", {"x", "target"}, {"y"}, "reshape"), "allowzero",
                  v.allowzero);
  return m;
}

TEST(ReshapeFusionTest, TargetBecomesOrtsConstant) {
  const onnx::ModelProto proto = ReshapeModel({});
  ir::Model model = Optimize(proto, {"reshape_fusion"});
  EXPECT_EQ(OpTypes(*model.graph), (std::vector<std::string>{"Reshape"}));
  const ir::Initializer* target = model.graph->FindInitializer(model.graph->FindValue("target"));
  ASSERT_NE(target, nullptr);
  const std::vector<int64_t> values(target->tensor.span<int64_t>().begin(),
                                    target->tensor.span<int64_t>().end());
  EXPECT_EQ(values, (std::vector<int64_t>{0, 3, -1}));

  const auto stats = ExpectSameResults(proto, {{"x", RandomFloats({2, 6, 3}, 1)}},
                                       {"reshape_fusion"});
  EXPECT_EQ(Rewrites(stats, "reshape_fusion"), 1);
}

TEST(ReshapeFusionTest, LeavesOtherTargetsAlone) {
  const std::vector<std::pair<std::string, Variant>> cases = {
      {"allowzero 1: a 0 is a size", {{3}, 1, false}},
      {"a second -1 from a constant", {{-1}, 0, false}},
      {"the target is also a graph output", {{3}, 0, true}},
  };
  for (const auto& [what, variant] : cases) {
    ir::Model model = Optimize(ReshapeModel(variant), {"reshape_fusion"});
    const std::vector<std::string> ops = OpTypes(*model.graph);
    EXPECT_NE(std::find(ops.begin(), ops.end(), "Concat"), ops.end()) << what;
  }
}

}  // namespace
}  // namespace nxrt::opt
