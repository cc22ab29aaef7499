// runtime/map_steps_test.cpp: ONNX-ML's ZipMap, DictVectorizer and CastMap (runtime/map_steps.h)
// through the session, compared with ONNX Runtime 1.30 (tests/ort_oracle/ort_oracle.h) on random
// models and maps from fixed seeds: string and int64 keys, repeated labels, keys missing from a
// vocabulary, every cast and both CastMap forms, and a scikit-learn style classifier ending in
// ZipMap (skl2onnx's output_probability). The models are built here as ONNX protos.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "nxrt/session.h"
#include "nxrt/value.h"
#include "ort_oracle/ort_oracle.h"

namespace nxrt::runtime {
namespace {

constexpr int kFloat = onnx::TensorProto::FLOAT;
constexpr int kInt64 = onnx::TensorProto::INT64;
constexpr int kString = onnx::TensorProto::STRING;

onnx::TypeProto TensorType(int elem, const std::vector<int64_t>& dims) {
  onnx::TypeProto t;
  t.mutable_tensor_type()->set_elem_type(elem);
  auto* shape = t.mutable_tensor_type()->mutable_shape();
  for (int64_t d : dims) {
    if (d < 0) {
      shape->add_dim()->set_dim_param("N");
    } else {
      shape->add_dim()->set_dim_value(d);
    }
  }
  return t;
}

onnx::TypeProto MapType(int key, int value) {
  onnx::TypeProto t;
  t.mutable_map_type()->set_key_type(key);
  t.mutable_map_type()->mutable_value_type()->mutable_tensor_type()->set_elem_type(value);
  return t;
}

onnx::TypeProto SeqMapType(int key, int value) {
  onnx::TypeProto t;
  *t.mutable_sequence_type()->mutable_elem_type() = MapType(key, value);
  return t;
}

// A model of `nodes` with one input "x" and the given outputs, ONNX opset 17 and ai.onnx.ml 3.
struct ModelBuilder {
  onnx::ModelProto model;
  onnx::GraphProto* graph;

  ModelBuilder() : graph(model.mutable_graph()) {
    model.set_ir_version(8);
    auto* onnx_set = model.add_opset_import();
    onnx_set->set_domain("");
    onnx_set->set_version(17);
    auto* ml = model.add_opset_import();
    ml->set_domain("ai.onnx.ml");
    ml->set_version(3);
    graph->set_name("map_ops");
  }
  onnx::NodeProto* Node(const std::string& op, std::vector<std::string> in,
                        std::vector<std::string> out, bool ml = true) {
    auto* n = graph->add_node();
    n->set_op_type(op);
    n->set_name(op + "_" + std::to_string(graph->node_size()));
    if (ml) n->set_domain("ai.onnx.ml");
    for (auto& i : in) n->add_input(i);
    for (auto& o : out) n->add_output(o);
    return n;
  }
  void Input(const std::string& name, const onnx::TypeProto& type) {
    auto* v = graph->add_input();
    v->set_name(name);
    *v->mutable_type() = type;
  }
  void Output(const std::string& name, const onnx::TypeProto& type) {
    auto* v = graph->add_output();
    v->set_name(name);
    *v->mutable_type() = type;
  }
};

void AddStrings(onnx::NodeProto* n, const std::string& name, const std::vector<std::string>& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRINGS);
  for (const auto& s : v) a->add_strings(s);
}
void AddInts(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t i : v) a->add_ints(i);
}
void AddString(onnx::NodeProto* n, const std::string& name, const std::string& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}
void AddInt(onnx::NodeProto* n, const std::string& name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

class MapOpsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    Result<oracle::OrtOracle> ort = oracle::OrtOracle::Load();
    ASSERT_TRUE(ort.ok()) << ort.status().ToString();
    ort_ = new oracle::OrtOracle(std::move(ort).value());
  }
  static void TearDownTestSuite() {
    delete ort_;
    ort_ = nullptr;
  }

  // The outputs of `model` in nxrt and in ONNX Runtime for `feeds`, expected to be equal: the
  // same kinds and types, the same keys, and values within `tolerance` (relative to
  // max(1, |ORT's|)) for floats, exactly equal otherwise. Returns nxrt's outputs.
  std::vector<NamedValue> ExpectMatchesOrt(const ModelBuilder& builder,
                                           const std::vector<NamedValue>& feeds,
                                           const std::string& what, double tolerance = 0) {
    const std::string bytes = builder.model.SerializeAsString();
    const std::string path = ::testing::TempDir() + "nxrt_map_ops_" +
                             ::testing::UnitTest::GetInstance()->current_test_info()->name() +
                             ".onnx";
    std::ofstream(path, std::ios::binary) << bytes;
    Result<oracle::OracleSession> ort_session = ort_->CreateSession(path);
    std::remove(path.c_str());
    EXPECT_TRUE(ort_session.ok()) << what << ": " << ort_session.status().ToString();
    if (!ort_session.ok()) return {};
    Result<std::vector<NamedValue>> want = ort_session->RunValues(feeds);
    EXPECT_TRUE(want.ok()) << what << ": ORT: " << want.status().ToString();
    auto session = Session::CreateFromBytes(std::as_bytes(std::span(bytes.data(), bytes.size())));
    EXPECT_TRUE(session.ok()) << what << ": " << session.status().ToString();
    if (!want.ok() || !session.ok()) return {};
    Result<std::vector<NamedValue>> got = (*session)->RunValues(feeds);
    EXPECT_TRUE(got.ok()) << what << ": " << got.status().ToString();
    if (!got.ok()) return {};
    EXPECT_EQ(got->size(), want->size()) << what;
    for (size_t i = 0; i < got->size() && i < want->size(); ++i) {
      ExpectSameValue((*got)[i].value, (*want)[i].value, tolerance,
                      what + ", output '" + (*want)[i].name + "'");
    }
    return std::move(got).value();
  }

  static void ExpectSameTensor(const Tensor& got, const Tensor& want, double tolerance,
                               const std::string& what) {
    ASSERT_EQ(got.dtype(), want.dtype()) << what;
    ASSERT_EQ(got.shape(), want.shape()) << what;
    for (int64_t i = 0; i < want.element_count(); ++i) {
      switch (want.dtype()) {
        case DataType::kFloat: {
          const double g = got.data<float>()[i], w = want.data<float>()[i];
          ASSERT_LE(std::fabs(g - w), tolerance * std::max(1.0, std::fabs(w)))
              << what << ": element " << i << " is " << g << ", ORT gives " << w;
          break;
        }
        case DataType::kDouble:
          ASSERT_EQ(got.data<double>()[i], want.data<double>()[i]) << what << ": element " << i;
          break;
        case DataType::kInt64:
          ASSERT_EQ(got.data<int64_t>()[i], want.data<int64_t>()[i]) << what << ": element " << i;
          break;
        case DataType::kString:
          ASSERT_EQ(got.data<std::string>()[i], want.data<std::string>()[i])
              << what << ": element " << i;
          break;
        default: FAIL() << what << ": unexpected dtype " << DataTypeName(want.dtype());
      }
    }
  }

  static void ExpectSameValue(const Value& got, const Value& want, double tolerance,
                              const std::string& what) {
    ASSERT_EQ(got.kind(), want.kind())
        << what << ": " << got.Description() << " vs ORT's " << want.Description();
    ASSERT_EQ(got.dtype(), want.dtype()) << what;
    ASSERT_EQ(got.map_key_dtype(), want.map_key_dtype()) << what;
    if (want.is_tensor()) return ExpectSameTensor(got.tensor(), want.tensor(), tolerance, what);
    if (want.is_map()) {
      ExpectSameTensor(got.map_keys(), want.map_keys(), 0, what + " keys");
      ExpectSameTensor(got.map_values(), want.map_values(), tolerance, what + " values");
      return;
    }
    ASSERT_EQ(got.maps().size(), want.maps().size()) << what;
    for (size_t i = 0; i < want.maps().size(); ++i) {
      ExpectSameValue(got.maps()[i], want.maps()[i], tolerance, what + " map " + std::to_string(i));
    }
  }

  static Tensor Floats(std::mt19937& rng, const Shape& shape) {
    Tensor t = Tensor::Allocate(DataType::kFloat, shape).value();
    std::uniform_real_distribution<float> dist(-4.0F, 4.0F);
    for (int64_t i = 0; i < t.element_count(); ++i) t.mutable_data<float>()[i] = dist(rng);
    return t;
  }

  static int Uniform(std::mt19937& rng, int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  }

  static oracle::OrtOracle* ort_;
};

oracle::OrtOracle* MapOpsTest::ort_ = nullptr;

TEST_F(MapOpsTest, ZipMapMatchesOrtForStringAndInt64Labels) {
  std::mt19937 rng(18);
  for (int trial = 0; trial < 12; ++trial) {
    const bool strings = trial % 2 == 0;
    const int classes = Uniform(rng, 1, 7);
    const int rows = Uniform(rng, 1, 4);
    const bool one_d = trial % 4 == 1;
    ModelBuilder b;
    auto* n = b.Node("ZipMap", {"x"}, {"z"});
    std::vector<std::string> labels_s;
    std::vector<int64_t> labels_i;
    // Labels from a small pool, so that some repeat.
    for (int c = 0; c < classes; ++c) {
      labels_s.push_back(std::string(1, static_cast<char>('a' + Uniform(rng, 0, 5))) + "x");
      labels_i.push_back(Uniform(rng, -3, 6) * 7);
    }
    if (strings) {
      AddStrings(n, "classlabels_strings", labels_s);
    } else {
      AddInts(n, "classlabels_int64s", labels_i);
    }
    const Shape shape = one_d ? Shape{classes} : Shape{rows, classes};
    b.Input("x", TensorType(kFloat, one_d ? std::vector<int64_t>{classes}
                                          : std::vector<int64_t>{-1, classes}));
    b.Output("z", SeqMapType(strings ? kString : kInt64, kFloat));
    ExpectMatchesOrt(b, {{"x", Value(Floats(rng, shape))}},
                     "trial " + std::to_string(trial) + " x " + ShapeToString(shape));
  }
}

TEST_F(MapOpsTest, ZipMapOfNoRowsIsAnEmptySequence) {
  ModelBuilder b;
  AddInts(b.Node("ZipMap", {"x"}, {"z"}), "classlabels_int64s", {3, 1});
  b.Input("x", TensorType(kFloat, {-1, 2}));
  b.Output("z", SeqMapType(kInt64, kFloat));
  std::vector<NamedValue> got = ExpectMatchesOrt(
      b, {{"x", Value(Tensor::Allocate(DataType::kFloat, {0, 2}).value())}}, "0 rows");
  ASSERT_EQ(got.size(), 1U);
  EXPECT_TRUE(got[0].value.is_map_sequence());
  EXPECT_TRUE(got[0].value.maps().empty());
}

// A random map of `count` keys drawn from `pool` (which the vocabulary partly covers).
template <typename K>
Value RandomMap(std::mt19937& rng, const std::vector<K>& pool, DataType value_dtype, int count) {
  std::vector<K> keys;
  for (int i = 0; i < count; ++i) keys.push_back(pool[rng() % pool.size()]);
  Tensor k = Tensor::FromVector<K>({count}, keys).value();
  Tensor v = Tensor::Allocate(value_dtype, {count}).value();
  for (int i = 0; i < count; ++i) {
    const int x = static_cast<int>(rng() % 2001) - 1000;
    switch (value_dtype) {
      case DataType::kFloat: v.mutable_data<float>()[i] = static_cast<float>(x) / 8; break;
      case DataType::kDouble: v.mutable_data<double>()[i] = static_cast<double>(x) / 3; break;
      case DataType::kInt64: v.mutable_data<int64_t>()[i] = x; break;
      default: v.mutable_data<std::string>()[i] = "s" + std::to_string(x); break;
    }
  }
  return Value::Map(k, v).value();
}

TEST_F(MapOpsTest, DictVectorizerMatchesOrtForEveryMapTypeOrtRuns) {
  std::mt19937 rng(1818);
  const std::vector<std::string> string_pool = {"a", "b", "c", "dd", "e", "zz", "q"};
  const std::vector<int64_t> int_pool = {-5, 0, 1, 2, 17, 40, 1000};
  // ORT 1.30's DictVectorizer kernels: string keys with int64, float or double values; int64
  // keys with string, float or double values.
  const std::vector<std::pair<bool, DataType>> types = {
      {true, DataType::kInt64},   {true, DataType::kFloat},  {true, DataType::kDouble},
      {false, DataType::kString}, {false, DataType::kFloat}, {false, DataType::kDouble}};
  for (const auto& [string_keys, value_dtype] : types) {
    for (int trial = 0; trial < 3; ++trial) {
      ModelBuilder b;
      auto* n = b.Node("DictVectorizer", {"m"}, {"y"});
      const int vocabulary_size = Uniform(rng, 1, 6);
      std::vector<std::string> vocab_s;
      std::vector<int64_t> vocab_i;
      for (int i = 0; i < vocabulary_size; ++i) {
        vocab_s.push_back(string_pool[rng() % string_pool.size()]);
        vocab_i.push_back(int_pool[rng() % int_pool.size()]);
      }
      if (string_keys) {
        AddStrings(n, "string_vocabulary", vocab_s);
      } else {
        AddInts(n, "int64_vocabulary", vocab_i);
      }
      const int onnx_value = static_cast<int>(value_dtype);  // DataType numbers are ONNX's
      b.Input("m", MapType(string_keys ? kString : kInt64, onnx_value));
      b.Output("y", TensorType(onnx_value, {1, vocabulary_size}));
      const int count = Uniform(rng, 0, 6);
      Value map = string_keys ? RandomMap(rng, string_pool, value_dtype, count)
                              : RandomMap(rng, int_pool, value_dtype, count);
      ExpectMatchesOrt(b, {{"m", map}},
                       std::string(DataTypeName(value_dtype)) + " values, trial " +
                           std::to_string(trial) + ", map " + map.Description());
    }
  }
}

TEST_F(MapOpsTest, CastMapMatchesOrtForEveryCastAndForm) {
  std::mt19937 rng(180);
  const std::vector<int64_t> key_pool = {0, 1, 2, 3, 5, 8, 13};
  const std::vector<std::string> numbers = {"12.5", " -3", "7abc", "0", "1e3", "-0.25", "42"};
  for (const DataType value_dtype : {DataType::kFloat, DataType::kString}) {
    for (const std::string cast_to : {"TO_FLOAT", "TO_INT64", "TO_STRING"}) {
      for (const bool sparse : {false, true}) {
        ModelBuilder b;
        auto* n = b.Node("CastMap", {"m"}, {"y"});
        AddString(n, "cast_to", cast_to);
        AddString(n, "map_form", sparse ? "SPARSE" : "DENSE");
        const int max_map = Uniform(rng, 1, 10);
        if (sparse) AddInt(n, "max_map", max_map);
        const int out_type = cast_to == "TO_FLOAT"   ? kFloat
                             : cast_to == "TO_INT64" ? kInt64
                                                     : kString;
        b.Input("m", MapType(kInt64, value_dtype == DataType::kFloat ? kFloat : kString));
        b.Output("y", TensorType(out_type, {1, -1}));
        const int count = Uniform(rng, 0, 6);
        Value map = RandomMap(rng, key_pool, value_dtype, count);
        if (value_dtype == DataType::kString) {
          // Number strings that stof and stoll both read.
          Tensor v = Tensor::Allocate(DataType::kString, {map.map_keys().element_count()}).value();
          for (int64_t i = 0; i < v.element_count(); ++i) {
            v.mutable_data<std::string>()[i] = numbers[rng() % numbers.size()];
          }
          map = Value::Map(map.map_keys(), v).value();
        }
        ExpectMatchesOrt(
            b, {{"m", map}},
            cast_to +
                (sparse ? " SPARSE max_map " + std::to_string(max_map) : std::string(" DENSE")) +
                " of " + map.Description());
      }
    }
  }
}

// skl2onnx's LogisticRegression: label and probabilities, the probabilities zipped into one map
// per row (output_probability, seq(map(int64, tensor(float)))).
TEST_F(MapOpsTest, ClassifierWithZipMapMatchesOrt) {
  std::mt19937 rng(7);
  const int features = 5, classes = 3;
  ModelBuilder b;
  auto* w = b.graph->add_initializer();
  w->set_name("coef");
  w->set_data_type(kFloat);
  w->add_dims(features);
  w->add_dims(classes);
  std::uniform_real_distribution<float> dist(-1.0F, 1.0F);
  for (int i = 0; i < features * classes; ++i) w->add_float_data(dist(rng));
  b.Node("MatMul", {"x", "coef"}, {"scores"}, false);
  b.Node("Softmax", {"scores"}, {"probabilities"}, false);
  auto* argmax = b.Node("ArgMax", {"probabilities"}, {"label"}, false);
  AddInt(argmax, "axis", 1);
  AddInt(argmax, "keepdims", 0);
  AddInts(b.Node("ZipMap", {"probabilities"}, {"output_probability"}), "classlabels_int64s",
          {0, 1, 2});
  b.Input("x", TensorType(kFloat, {-1, features}));
  b.Output("label", TensorType(kInt64, {-1}));
  b.Output("output_probability", SeqMapType(kInt64, kFloat));
  std::vector<NamedValue> got =
      ExpectMatchesOrt(b, {{"x", Value(Floats(rng, {6, features}))}}, "classifier", 1e-5);
  ASSERT_EQ(got.size(), 2U);
  ASSERT_EQ(got[1].value.maps().size(), 6U);
  EXPECT_EQ(got[1].value.maps()[0].map_keys().element_count(), classes);
}

TEST_F(MapOpsTest, SessionDeclaresMapTypes) {
  ModelBuilder b;
  AddStrings(b.Node("DictVectorizer", {"m"}, {"y"}), "string_vocabulary", {"a"});
  AddStrings(b.Node("ZipMap", {"y"}, {"z"}), "classlabels_strings", {"k"});
  b.Input("m", MapType(kString, kFloat));
  b.Output("z", SeqMapType(kString, kFloat));
  const std::string bytes = b.model.SerializeAsString();
  auto session = Session::CreateFromBytes(std::as_bytes(std::span(bytes.data(), bytes.size())));
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  const ValueInfo& in = (*session)->inputs()[0];
  EXPECT_EQ(in.kind, ValueKind::kMap);
  EXPECT_EQ(in.map_key, DataType::kString);
  EXPECT_EQ(in.dtype, DataType::kFloat);
  EXPECT_EQ(in.ToString(), "m: map(string,float)");
  const ValueInfo& out = (*session)->outputs()[0];
  EXPECT_EQ(out.kind, ValueKind::kSequence);
  EXPECT_EQ(out.map_key, DataType::kString);
  EXPECT_EQ(out.ToString(), "z: sequence(map(string,float))");
}

TEST_F(MapOpsTest, BadInputsAndAttributesAreNamed) {
  ModelBuilder b;
  AddInts(b.Node("ZipMap", {"x"}, {"z"}), "classlabels_int64s", {1, 2, 3});
  b.Input("x", TensorType(kFloat, {-1, -1}));
  b.Output("z", SeqMapType(kInt64, kFloat));
  std::string bytes = b.model.SerializeAsString();
  auto session = Session::CreateFromBytes(std::as_bytes(std::span(bytes.data(), bytes.size())));
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  auto wrong_width =
      (*session)->RunValues({{"x", Value(Tensor::Allocate(DataType::kFloat, {2, 4}).value())}});
  ASSERT_FALSE(wrong_width.ok());
  // A step's failure names its node (Session::Run's kRuntimeError), then the cause.
  EXPECT_EQ(wrong_width.status().code(), StatusCode::kRuntimeError);
  EXPECT_NE(wrong_width.status().message().find("ZipMap_1"), std::string::npos)
      << wrong_width.status().ToString();
  EXPECT_NE(
      wrong_width.status().message().find("rows of 4 values, but the node has 3 class labels"),
      std::string::npos)
      << wrong_width.status().ToString();

  ModelBuilder both;
  auto* n = both.Node("ZipMap", {"x"}, {"z"});
  AddInts(n, "classlabels_int64s", {1});
  AddStrings(n, "classlabels_strings", {"a"});
  both.Input("x", TensorType(kFloat, {-1, 1}));
  both.Output("z", SeqMapType(kInt64, kFloat));
  bytes = both.model.SerializeAsString();
  auto bad = Session::CreateFromBytes(std::as_bytes(std::span(bytes.data(), bytes.size())));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("exactly one"), std::string::npos)
      << bad.status().ToString();

  ModelBuilder vectorizer;
  AddInts(vectorizer.Node("DictVectorizer", {"m"}, {"y"}), "int64_vocabulary", {1});
  vectorizer.Input("m", MapType(kInt64, kFloat));
  vectorizer.Output("y", TensorType(kFloat, {1, 1}));
  bytes = vectorizer.model.SerializeAsString();
  session = Session::CreateFromBytes(std::as_bytes(std::span(bytes.data(), bytes.size())));
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  Value string_map = Value::Map(Tensor::FromVector<std::string>({1}, {"a"}).value(),
                                Tensor::FromVector<float>({1}, {1.0F}).value())
                         .value();
  auto wrong_map = (*session)->RunValues({{"m", string_map}});
  ASSERT_FALSE(wrong_map.ok());
  EXPECT_NE(wrong_map.status().message().find("map(string,float)"), std::string::npos)
      << wrong_map.status().ToString();
  auto tensor_for_map = (*session)->RunValues({{"m", Value(Tensor::Scalar<float>(1))}});
  ASSERT_FALSE(tensor_for_map.ok());
  EXPECT_NE(tensor_for_map.status().message().find("input 'm'"), std::string::npos)
      << tensor_for_map.status().ToString();
}

TEST(MapValueTest, MapSortsKeysAndKeepsTheFirstOfARepeatedKey) {
  Value map = Value::Map(Tensor::FromVector<int64_t>({4}, {5, -1, 5, 2}).value(),
                         Tensor::FromVector<float>({4}, {1, 2, 3, 4}).value())
                  .value();
  EXPECT_EQ(map.Description(), "map(int64,float)[3]");
  EXPECT_EQ(std::vector<int64_t>(map.map_keys().span<int64_t>().begin(),
                                 map.map_keys().span<int64_t>().end()),
            (std::vector<int64_t>{-1, 2, 5}));
  EXPECT_EQ(std::vector<float>(map.map_values().span<float>().begin(),
                               map.map_values().span<float>().end()),
            (std::vector<float>{2, 4, 1}));
  EXPECT_FALSE(Value::Map(Tensor::FromVector<float>({1}, {1}).value(),
                          Tensor::FromVector<float>({1}, {1}).value())
                   .ok());
  EXPECT_FALSE(Value::Map(Tensor::FromVector<int64_t>({2}, {1, 2}).value(),
                          Tensor::FromVector<float>({1}, {1}).value())
                   .ok());
  Result<Value> mixed = Value::MapSequence(DataType::kString, DataType::kFloat, {map});
  ASSERT_FALSE(mixed.ok());
  EXPECT_NE(mixed.status().message().find("sequence element 0 is map(int64,float)[3]"),
            std::string::npos)
      << mixed.status().ToString();
}

}  // namespace
}  // namespace nxrt::runtime
