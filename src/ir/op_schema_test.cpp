// ir/op_schema_test.cpp: operator schema versions: known values from the ONNX operator docs,
// agreement with libonnx for opsets 1-17, and nxrt's table for opsets 18-21 and ai.onnx.ml 4-5.
#include "ir/op_schema.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "onnx/defs/schema.h"

namespace nxrt::ir {
namespace {

TEST(OpSchemaTest, KnownSinceVersions) {
  EXPECT_EQ(SinceVersion("", "Add", 17), 14);
  EXPECT_EQ(SinceVersion("", "Add", 6), 6);
  EXPECT_EQ(SinceVersion("", "Add", 1), 1);
  EXPECT_EQ(SinceVersion("", "Softmax", 11), 11);
  EXPECT_EQ(SinceVersion("", "Softmax", 12), 11);
  EXPECT_EQ(SinceVersion("", "Softmax", 13), 13);
  EXPECT_EQ(SinceVersion("", "Conv", 17), 11);
  EXPECT_EQ(SinceVersion("", "Clip", 9), 6);
  EXPECT_EQ(SinceVersion("", "Clip", 11), 11);
  EXPECT_EQ(SinceVersion("", "LayerNormalization", 17), 17);
}

TEST(OpSchemaTest, DomainSpellings) {
  EXPECT_EQ(SinceVersion("ai.onnx", "Add", 17), 14);
  EXPECT_EQ(SinceVersion("ai.onnx.ml", "LabelEncoder", 2), 2);
  EXPECT_EQ(SinceVersion("ai.onnx.ml", "LabelEncoder", 3), 2);
  EXPECT_EQ(SinceVersion("ai.onnx.preview.training", "Adam", 1), 1);
}

TEST(OpSchemaTest, UnknownOps) {
  EXPECT_EQ(SinceVersion("", "NoSuchOp", 17), -1);
  EXPECT_EQ(SinceVersion("com.microsoft", "FusedConv", 1), -1);
  EXPECT_EQ(SinceVersion("", "Add", 0), -1);  // older than every version
  EXPECT_EQ(SinceVersion("", "LayerNormalization", 16), -1);
  EXPECT_FALSE(IsKnownOp("", "NoSuchOp"));
  EXPECT_FALSE(IsKnownOp("com.microsoft", "FusedConv"));
  EXPECT_TRUE(OpSchemaVersions("", "NoSuchOp").empty());
  EXPECT_FALSE(SchemaAt("", "NoSuchOp", 17).has_value());
}

TEST(OpSchemaTest, Opset18To21FromNxrtTable) {
  EXPECT_EQ(SinceVersion("", "ReduceMean", 18), 18);
  EXPECT_EQ(SinceVersion("", "ReduceMean", 17), 13);
  EXPECT_EQ(SinceVersion("", "ReduceSum", 18), 13);  // took `axes` as an input already at 13
  EXPECT_EQ(SinceVersion("", "ReduceMax", 19), 18);
  EXPECT_EQ(SinceVersion("", "ReduceMax", 20), 20);
  EXPECT_EQ(SinceVersion("", "Split", 18), 18);
  EXPECT_EQ(SinceVersion("", "Pad", 18), 18);
  EXPECT_EQ(SinceVersion("", "Pad", 20), 19);
  EXPECT_EQ(SinceVersion("", "Pad", 21), 21);
  EXPECT_EQ(SinceVersion("", "Resize", 19), 19);
  EXPECT_EQ(SinceVersion("", "ScatterND", 18), 18);
  EXPECT_EQ(SinceVersion("", "GroupNormalization", 18), 18);
  EXPECT_EQ(SinceVersion("", "GroupNormalization", 21), 21);
  EXPECT_EQ(SinceVersion("", "GroupNormalization", 17), -1);
  EXPECT_EQ(SinceVersion("", "BitwiseAnd", 18), 18);
  EXPECT_EQ(SinceVersion("", "Equal", 19), 19);
  EXPECT_EQ(SinceVersion("", "Cast", 19), 19);
  EXPECT_EQ(SinceVersion("", "Cast", 21), 21);
  EXPECT_EQ(SinceVersion("", "If", 20), 19);
  EXPECT_EQ(SinceVersion("", "Gelu", 20), 20);
  EXPECT_EQ(SinceVersion("", "Transpose", 21), 21);
  EXPECT_EQ(SinceVersion("", "Add", 21), 14);
  EXPECT_EQ(SinceVersion("ai.onnx.ml", "LabelEncoder", 4), 4);
  EXPECT_EQ(SinceVersion("ai.onnx.ml", "TreeEnsemble", 5), 5);
}

TEST(OpSchemaTest, OpsetsAboveTheKnownRangeUseTheNewestKnownVersion) {
  EXPECT_EQ(MaxKnownOpset(""), 21);
  EXPECT_EQ(MaxKnownOpset("ai.onnx.ml"), 5);
  EXPECT_EQ(MaxKnownOpset("ai.onnx.preview.training"), 1);
  EXPECT_EQ(MaxKnownOpset("com.example"), -1);
  EXPECT_EQ(SinceVersion("", "Cast", 22), 21);
  EXPECT_EQ(SinceVersion("", "Add", 30), 14);
}

TEST(OpSchemaTest, VersionRanges) {
  std::vector<OpSchemaVersion> pad = OpSchemaVersions("", "Pad");
  std::vector<int> since;
  for (const OpSchemaVersion& v : pad) since.push_back(v.since_version);
  EXPECT_EQ(since, (std::vector<int>{1, 2, 11, 13, 18, 19, 21}));
  std::optional<OpSchemaVersion> add = SchemaAt("", "Add", 15);
  ASSERT_TRUE(add.has_value());
  EXPECT_EQ(add->since_version, 14);
  EXPECT_EQ(add->last_opset, 21);
  std::optional<OpSchemaVersion> softmax = SchemaAt("", "Softmax", 11);
  ASSERT_TRUE(softmax.has_value());
  EXPECT_EQ(softmax->since_version, 11);
  EXPECT_EQ(softmax->last_opset, 12);
  EXPECT_TRUE(IsKnownOp("", "Add"));
  EXPECT_TRUE(IsKnownOp("ai.onnx", "Mish"));
}

TEST(OpSchemaTest, Deprecation) {
  std::optional<OpSchemaVersion> upsample = SchemaAt("", "Upsample", 10);
  ASSERT_TRUE(upsample.has_value());
  EXPECT_TRUE(upsample->deprecated);
  EXPECT_FALSE(SchemaAt("", "Upsample", 9)->deprecated);
  EXPECT_TRUE(SchemaAt("ai.onnx.ml", "TreeEnsembleRegressor", 5)->deprecated);
  EXPECT_FALSE(SchemaAt("ai.onnx.ml", "TreeEnsembleRegressor", 4)->deprecated);
}

// Formal parameters and constraints, as the ONNX operator docs list them.
TEST(OpSchemaTest, SignaturesFromTheSchema) {
  std::optional<OperatorSignature> add = SignatureAt("", "Add", 17);
  ASSERT_TRUE(add.has_value());
  EXPECT_EQ(add->since_version, 14);
  EXPECT_FALSE(add->from_older_version);
  ASSERT_EQ(add->inputs.size(), 2u);
  EXPECT_EQ(add->inputs[0].name, "A");
  EXPECT_EQ(add->inputs[1].type_str, "T");
  ASSERT_EQ(add->constraints.size(), 1u);
  const OperatorSignature::Constraint* t = add->FindConstraint("T");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->inputs, (std::vector<size_t>{0, 1}));
  EXPECT_EQ(t->outputs, (std::vector<size_t>{0}));
  EXPECT_NE(std::find(t->types.begin(), t->types.end(), "tensor(float)"), t->types.end());
  EXPECT_EQ(add->FindConstraint("T1"), nullptr);
  EXPECT_EQ(add->FormalOfInput(1), 1u);
  EXPECT_FALSE(add->FormalOfInput(2).has_value());

  // Concat's one variadic input takes every actual input.
  std::optional<OperatorSignature> concat = SignatureAt("ai.onnx", "Concat", 13);
  ASSERT_TRUE(concat.has_value());
  EXPECT_EQ(concat->inputs[0].option, OperatorSignature::Option::kVariadic);
  EXPECT_EQ(concat->FormalOfInput(5), 0u);

  // Squeeze-13 takes `axes` as an optional tensor(int64) input, not a constraint.
  std::optional<OperatorSignature> squeeze = SignatureAt("", "Squeeze", 13);
  ASSERT_TRUE(squeeze.has_value());
  ASSERT_EQ(squeeze->inputs.size(), 2u);
  EXPECT_EQ(squeeze->inputs[1].option, OperatorSignature::Option::kOptional);
  EXPECT_EQ(squeeze->inputs[1].type_str, "tensor(int64)");

  // Squeeze-21 is newer than libonnx: version 13's parameters stand in.
  std::optional<OperatorSignature> squeeze21 = SignatureAt("", "Squeeze", 21);
  ASSERT_TRUE(squeeze21.has_value());
  EXPECT_EQ(squeeze21->since_version, 21);
  EXPECT_TRUE(squeeze21->from_older_version);
  EXPECT_EQ(squeeze21->inputs.size(), 2u);

  EXPECT_FALSE(SignatureAt("", "NoSuchOp", 17).has_value());
  EXPECT_FALSE(SignatureAt("com.microsoft", "FusedConv", 1).has_value());
}

// The arity rows of the versions after ONNX 1.12 against libonnx's newest version of the same op:
// equal, except where the ONNX spec moved an attribute into an input (the reductions and Pad at
// 18, DFT's axis at 20) or made the input optional (OptionalHasElement-18).
TEST(OpSchemaTest, ArityAfterOpset17KeepsTheOlderVersionsUnlessTheSpecChangedIt) {
  const std::map<std::string, int> more_inputs = {
      {"ReduceL1", 2},   {"ReduceL2", 2},   {"ReduceLogSum", 2},    {"ReduceLogSumExp", 2},
      {"ReduceMax", 2},  {"ReduceMean", 2}, {"ReduceMin", 2},       {"ReduceProd", 2},
      {"ReduceSumSquare", 2}, {"Pad", 4},   {"DFT", 3}};
  const std::map<std::string, int> fewer_inputs = {{"OptionalHasElement", 0}};
  int checked = 0;
  for (const onnx::OpSchema& schema : onnx::OpSchemaRegistry::get_all_schemas()) {
    const bool ml = schema.domain() == "ai.onnx.ml";
    if (!schema.domain().empty() && !ml) continue;
    const onnx::OpSchema* newest =
        onnx::OpSchemaRegistry::Schema(schema.Name(), ml ? 3 : 17, schema.domain());
    if (newest == nullptr || newest->SinceVersion() != schema.SinceVersion()) continue;  // once
    for (int opset = ml ? 4 : 18; opset <= MaxKnownOpset(schema.domain()); ++opset) {
      if (LibonnxSchemaAt(schema.domain(), schema.Name(), opset) != nullptr) continue;
      const std::optional<OpArity> arity = ArityAt(schema.domain(), schema.Name(), opset);
      ASSERT_TRUE(arity.has_value()) << schema.Name() << " at opset " << opset;
      const auto more = more_inputs.find(schema.Name());
      const auto fewer = fewer_inputs.find(schema.Name());
      EXPECT_EQ(arity->min_inputs, fewer != fewer_inputs.end() ? fewer->second : schema.min_input())
          << schema.Name() << " at " << opset;
      EXPECT_EQ(arity->max_inputs, more != more_inputs.end() ? more->second : schema.max_input())
          << schema.Name() << " at " << opset;
      EXPECT_EQ(arity->min_outputs, schema.min_output()) << schema.Name() << " at " << opset;
      EXPECT_EQ(arity->max_outputs, schema.max_output()) << schema.Name() << " at " << opset;
      ++checked;
    }
  }
  EXPECT_GT(checked, 100);

  // Ops new after ONNX 1.12 (no libonnx version to compare with): from their spec pages.
  ASSERT_TRUE(ArityAt("", "StringSplit", 20).has_value());
  EXPECT_EQ(ArityAt("", "StringSplit", 20)->max_outputs, 2);
  EXPECT_EQ(ArityAt("", "DeformConv", 19)->max_inputs, 5);
  EXPECT_EQ(ArityAt("", "Col2Im", 21)->min_inputs, 3);
  EXPECT_FALSE(ArityAt("com.microsoft", "FusedConv", 1).has_value());
  EXPECT_FALSE(ArityAt("", "BitwiseAnd", 17).has_value());
}

// Every op libonnx knows, at every opset it knows, gets libonnx's answer.
TEST(OpSchemaTest, AgreesWithLibonnxUpToOpset17) {
  const auto& ranges = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  int checked = 0;
  for (const onnx::OpSchema& schema : onnx::OpSchemaRegistry::get_all_schemas()) {
    const auto range = ranges.at(schema.domain());
    for (int opset = 1; opset <= range.second; ++opset) {
      const onnx::OpSchema* want =
          onnx::OpSchemaRegistry::Schema(schema.Name(), opset, schema.domain());
      EXPECT_EQ(SinceVersion(schema.domain(), schema.Name(), opset),
                want ? want->SinceVersion() : -1)
          << schema.domain() << ":" << schema.Name() << " at opset " << opset;
      ++checked;
    }
  }
  EXPECT_GT(checked, 2000);
}

}  // namespace
}  // namespace nxrt::ir
