// ir/onnx_writer_test.cpp: the writer against the loader on every model of the ONNX backend test
// data (node, pytorch-converted, pytorch-operator, simple: every op type, attribute kind and
// subgraph form ONNX 1.12 ships) and on the real models of docs/testing.md: a model loaded, written
// and loaded again is the same model (nodes, names, domains, attributes with their values,
// inputs, outputs, value infos with their types, initializers byte for byte, opsets, metadata),
// and writing it again gives the same bytes.
#include "ir/onnx_writer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "ir/onnx_loader.h"
#include "onnx/onnx_pb.h"

namespace nxrt::ir {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> TestModels() {
  std::vector<fs::path> models;
  for (const char* suite : {"node", "pytorch-converted", "pytorch-operator", "simple"}) {
    const fs::path root = fs::path("/usr/share/libonnx-testdata/data") / suite;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(root, ec)) {
      if (fs::exists(entry.path() / "model.onnx")) models.push_back(entry.path() / "model.onnx");
    }
  }
  std::sort(models.begin(), models.end());
  return models;
}

bool SameTensor(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  if (a.dtype() == DataType::kString) {
    for (int64_t i = 0; i < a.element_count(); ++i) {
      if (a.data<std::string>()[i] != b.data<std::string>()[i]) return false;
    }
    return true;
  }
  return a.byte_size() == b.byte_size() &&
         (a.byte_size() == 0 || std::memcmp(a.raw_data(), b.raw_data(), a.byte_size()) == 0);
}

// Differences between graph `a` and `b` (and their subgraphs), one line each, prefixed `where`.
void Compare(const Graph& a, const Graph& b, const std::string& where,
             std::vector<std::string>& diffs) {
  auto diff = [&](const std::string& what) { diffs.push_back(where + ": " + what); };
  auto names = [](const Graph& g, const std::vector<ValueId>& ids) {
    std::string out;
    for (ValueId v : ids) out += (v == kNoValue ? "<omitted>" : g.values[v].name) + ",";
    return out;
  };
  auto types = [](const Graph& g, const std::vector<ValueId>& ids) {
    std::string out;
    for (ValueId v : ids) out += g.values[v].name + ":" + g.values[v].type.ToString() + ",";
    return out;
  };
  if (a.name != b.name) diff("graph name " + a.name + " vs " + b.name);
  if (types(a, a.inputs) != types(b, b.inputs)) diff("inputs " + types(a, a.inputs));
  if (types(a, a.outputs) != types(b, b.outputs)) diff("outputs " + types(a, a.outputs));
  if (types(a, a.value_infos) != types(b, b.value_infos)) diff("value infos");
  if (a.initializers.size() != b.initializers.size()) {
    diff("initializer count");
  } else {
    for (size_t i = 0; i < a.initializers.size(); ++i) {
      const Initializer& x = a.initializers[i];
      const Initializer& y = b.initializers[i];
      if (a.values[x.value].name != b.values[y.value].name || !SameTensor(x.tensor, y.tensor)) {
        diff("initializer '" + a.values[x.value].name + "'");
      }
    }
  }
  if (a.nodes.size() != b.nodes.size()) {
    diff("node count");
    return;
  }
  for (size_t n = 0; n < a.nodes.size(); ++n) {
    const Node& x = a.nodes[n];
    const Node& y = b.nodes[n];
    const std::string node = "node '" + x.name + "'";
    if (x.name != y.name || x.op_type != y.op_type || x.domain != y.domain) diff(node);
    if (names(a, x.inputs) != names(b, y.inputs)) diff(node + " inputs");
    if (names(a, x.outputs) != names(b, y.outputs)) diff(node + " outputs");
    if (x.attributes.size() != y.attributes.size()) {
      diff(node + " attribute count");
      continue;
    }
    for (size_t k = 0; k < x.attributes.size(); ++k) {
      const Attribute& p = x.attributes[k];
      const Attribute& q = y.attributes[k];
      const std::string attr = node + " attribute '" + p.name + "'";
      const bool tensors_equal =
          p.tensors.size() == q.tensors.size() &&
          std::equal(p.tensors.begin(), p.tensors.end(), q.tensors.begin(), SameTensor);
      if (p.name != q.name || p.f != q.f || p.i != q.i || p.s != q.s || p.ints != q.ints ||
          p.floats != q.floats || p.strings != q.strings || !tensors_equal ||
          p.tp.ToString() != q.tp.ToString() || (p.t.defined() && !SameTensor(p.t, q.t))) {
        diff(attr);
      }
      if (p.g && q.g) Compare(*p.g, *q.g, where + " / " + attr, diffs);
      if ((p.g != nullptr) != (q.g != nullptr) || p.graphs.size() != q.graphs.size()) diff(attr);
      for (size_t i = 0; i < p.graphs.size() && i < q.graphs.size(); ++i) {
        Compare(*p.graphs[i], *q.graphs[i], where + " / " + attr, diffs);
      }
    }
  }
}

// Loads, writes and reloads the model at `path`; false when the loader refuses the file itself
// (a few backend tests hold element types nxrt does not know).
bool ExpectRoundTrip(const fs::path& path) {
  SCOPED_TRACE(path.string());
  Result<Model> model = LoadModelFromFile(path);
  if (!model.ok()) return false;
  Result<std::string> bytes = SerializeModel(*model);
  EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
  if (!bytes.ok()) return true;
  const std::span<const std::byte> span(reinterpret_cast<const std::byte*>(bytes->data()),
                                        bytes->size());
  Result<Model> again = LoadModelFromBytes(span);
  EXPECT_TRUE(again.ok()) << again.status().ToString();
  if (!again.ok()) return true;
  EXPECT_EQ(again->ir_version, model->ir_version);
  EXPECT_EQ(again->producer_name, model->producer_name);
  EXPECT_EQ(again->model_version, model->model_version);
  EXPECT_EQ(again->metadata, model->metadata);
  EXPECT_EQ(again->opset_imports.size(), model->opset_imports.size());
  for (size_t i = 0; i < model->opset_imports.size() && i < again->opset_imports.size(); ++i) {
    EXPECT_EQ(again->opset_imports[i].domain, model->opset_imports[i].domain);
    EXPECT_EQ(again->opset_imports[i].version, model->opset_imports[i].version);
  }
  std::vector<std::string> diffs;
  Compare(*model->graph, *again->graph, "main graph", diffs);
  for (const std::string& d : diffs) ADD_FAILURE() << d;
  Result<std::string> twice = SerializeModel(*again);
  EXPECT_TRUE(twice.ok() && *twice == *bytes) << "writing the reloaded model gives other bytes";
  return true;
}

TEST(OnnxWriter, BackendTestModelsRoundTrip) {
  const std::vector<fs::path> models = TestModels();
  ASSERT_GT(models.size(), 1000u) << "libonnx-testdata is not installed";
  size_t written = 0;
  for (const fs::path& path : models) written += ExpectRoundTrip(path);
  EXPECT_GT(written, 1000u) << "models the loader accepts";
}

TEST(OnnxWriter, RealModelsRoundTrip) {
  std::error_code ec;
  int seen = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(NXRT_CACHE_DIR) / "models", ec)) {
    if (entry.path().extension() != ".onnx") continue;
    EXPECT_TRUE(ExpectRoundTrip(entry.path())) << entry.path();
    ++seen;
  }
  if (seen == 0) GTEST_SKIP() << "no real models in " << NXRT_CACHE_DIR << "/models";
}

// With inline_bytes_limit (the copy InferTypesAgain infers types on): each initializer over the
// limit keeps its name, element type and dims, without values, as external data at
// kOmittedDataLocation; the others are written whole, values included. Loading that copy as a
// model fails, naming the location.
TEST(OnnxWriter, InlineBytesLimitWritesLargeInitializersAsTypesOnly) {
  // y = x * w + b: w holds 300 floats (1,200 bytes), b 4.
  onnx::ModelProto source;
  source.set_ir_version(8);
  source.add_opset_import()->set_version(17);
  onnx::GraphProto* g = source.mutable_graph();
  g->set_name("g");
  for (const char* name : {"x", "y"}) {
    onnx::ValueInfoProto* info = name[0] == 'x' ? g->add_input() : g->add_output();
    info->set_name(name);
    onnx::TypeProto_Tensor* type = info->mutable_type()->mutable_tensor_type();
    type->set_elem_type(onnx::TensorProto::FLOAT);
    type->mutable_shape()->add_dim()->set_dim_value(4);
    type->mutable_shape()->add_dim()->set_dim_value(300);
  }
  onnx::NodeProto* mul = g->add_node();
  mul->set_op_type("Mul");
  for (const char* in : {"x", "w"}) mul->add_input(in);
  mul->add_output("xw");
  onnx::NodeProto* add = g->add_node();
  add->set_op_type("Add");
  for (const char* in : {"xw", "b"}) add->add_input(in);
  add->add_output("y");
  for (const auto& [name, dims] : {std::pair<const char*, std::vector<int64_t>>{"w", {300}},
                                   {"b", {4, 1}}}) {
    onnx::TensorProto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t->add_dims(d);
    for (int64_t i = 0; i < dims[0]; ++i) t->add_float_data(0.5f * static_cast<float>(i));
  }
  const std::string source_bytes = source.SerializeAsString();
  Result<Model> model = LoadModelFromBytes(std::span<const std::byte>(
      reinterpret_cast<const std::byte*>(source_bytes.data()), source_bytes.size()));
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  WriteOptions options;
  options.inline_bytes_limit = 1024;
  Result<std::string> bytes = SerializeModel(*model, options);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  onnx::ModelProto proto;
  ASSERT_TRUE(proto.ParseFromString(*bytes));
  int omitted = 0, whole = 0;
  for (const onnx::TensorProto& t : proto.graph().initializer()) {
    const Graph& graph = *model->graph;
    const Initializer* init = graph.FindInitializer(graph.FindValue(t.name()));
    ASSERT_NE(init, nullptr) << t.name();
    EXPECT_EQ(t.data_type(), static_cast<int32_t>(init->tensor.dtype())) << t.name();
    EXPECT_EQ(std::vector<int64_t>(t.dims().begin(), t.dims().end()),
              std::vector<int64_t>(init->tensor.shape().begin(), init->tensor.shape().end()))
        << t.name();
    if (init->tensor.byte_size() > options.inline_bytes_limit) {
      ++omitted;
      EXPECT_FALSE(t.has_raw_data()) << t.name();
      EXPECT_EQ(t.data_location(), onnx::TensorProto::EXTERNAL) << t.name();
      ASSERT_EQ(t.external_data_size(), 1) << t.name();
      EXPECT_EQ(t.external_data(0).key(), "location");
      EXPECT_EQ(t.external_data(0).value(), kOmittedDataLocation);
    } else {
      ++whole;
      ASSERT_TRUE(t.has_raw_data()) << t.name();
      EXPECT_EQ(t.raw_data().size(), init->tensor.byte_size()) << t.name();
      EXPECT_EQ(std::memcmp(t.raw_data().data(), init->tensor.raw_data(), t.raw_data().size()), 0)
          << t.name();
    }
  }
  EXPECT_EQ(omitted, 1);
  EXPECT_EQ(whole, 1);
  const std::span<const std::byte> span(reinterpret_cast<const std::byte*>(bytes->data()),
                                        bytes->size());
  Result<Model> again = LoadModelFromBytes(span);
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.status().message().find(kOmittedDataLocation), std::string::npos)
      << again.status().message();
}

TEST(OnnxWriter, UnwritablePathIsAnIoErrorNamingIt) {
  Result<Model> model =
      LoadModelFromFile("/usr/share/libonnx-testdata/data/node/test_add/model.onnx");
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  Status status = SaveModel(*model, "/nonexistent/folder/out.onnx");
  EXPECT_EQ(status.code(), StatusCode::kIoError);
  EXPECT_NE(status.message().find("/nonexistent/folder/out.onnx"), std::string::npos);
}

}  // namespace
}  // namespace nxrt::ir
