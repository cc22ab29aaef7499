// ir/onnx_test_models.h: builds small ONNX ModelProtos in tests, with the protobuf classes.
//
// Layer: tests of nxrt_ir only. Keeps tests short: a model with one graph, helpers for inputs,
// outputs, nodes, attributes and float initializers, serialization to bytes or a file, temporary
// folders, and a substring check for error messages.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <gtest/gtest.h>

#include "onnx/onnx_pb.h"

namespace nxrt::ir::testing {

// EXPECT_TRUE(Contains(status.message(), "node 'x'")) prints the whole message when it fails.
inline ::testing::AssertionResult Contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << part << "' is not in: " << text;
}

// A dim for MakeValueInfo: a number is fixed, a string symbolic, "?" unknown.
using TestDim = std::variant<int64_t, std::string>;

inline void SetTensorType(onnx::TypeProto* type, int32_t elem_type,
                          std::initializer_list<TestDim> dims) {
  onnx::TypeProto::Tensor* t = type->mutable_tensor_type();
  t->set_elem_type(elem_type);
  onnx::TensorShapeProto* shape = t->mutable_shape();
  for (const TestDim& d : dims) {
    onnx::TensorShapeProto::Dimension* dim = shape->add_dim();
    if (const int64_t* v = std::get_if<int64_t>(&d)) {
      dim->set_dim_value(*v);
    } else if (std::get<std::string>(d) != "?") {
      dim->set_dim_param(std::get<std::string>(d));
    }
  }
}

inline void FillValueInfo(onnx::ValueInfoProto* info, const std::string& name,
                          int32_t elem_type = onnx::TensorProto::FLOAT,
                          std::initializer_list<TestDim> dims = {}) {
  info->set_name(name);
  SetTensorType(info->mutable_type(), elem_type, dims);
}

inline onnx::NodeProto* AddNode(onnx::GraphProto* graph, const std::string& op_type,
                                std::initializer_list<std::string> inputs,
                                std::initializer_list<std::string> outputs,
                                const std::string& name = "", const std::string& domain = "") {
  onnx::NodeProto* node = graph->add_node();
  node->set_op_type(op_type);
  if (!name.empty()) node->set_name(name);
  if (!domain.empty()) node->set_domain(domain);
  for (const std::string& in : inputs) node->add_input(in);
  for (const std::string& out : outputs) node->add_output(out);
  return node;
}

inline onnx::AttributeProto* AddIntAttribute(onnx::NodeProto* node, const std::string& name,
                                             int64_t value) {
  onnx::AttributeProto* attr = node->add_attribute();
  attr->set_name(name);
  attr->set_type(onnx::AttributeProto::INT);
  attr->set_i(value);
  return attr;
}

inline onnx::GraphProto* AddGraphAttribute(onnx::NodeProto* node, const std::string& name) {
  onnx::AttributeProto* attr = node->add_attribute();
  attr->set_name(name);
  attr->set_type(onnx::AttributeProto::GRAPH);
  attr->mutable_g()->set_name(name);
  return attr->mutable_g();
}

inline void FillFloatTensor(onnx::TensorProto* t, const std::string& name,
                            std::initializer_list<int64_t> dims, const std::vector<float>& data) {
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t->add_dims(d);
  for (float f : data) t->add_float_data(f);
}

inline void FillInt64Tensor(onnx::TensorProto* t, const std::string& name,
                            const std::vector<int64_t>& dims, const std::vector<int64_t>& data) {
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  for (int64_t d : dims) t->add_dims(d);
  for (int64_t v : data) t->add_int64_data(v);
}

// A model with ir_version 8 and the default domain at `opset`.
inline onnx::ModelProto MakeModel(int64_t opset = 17) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.set_producer_name("nxrt-test");
  onnx::OperatorSetIdProto* import = model.add_opset_import();
  import->set_domain("");
  import->set_version(opset);
  model.mutable_graph()->set_name("main");
  return model;
}

inline std::vector<std::byte> Serialize(const onnx::ModelProto& model) {
  const std::string s = model.SerializeAsString();
  const auto* p = reinterpret_cast<const std::byte*>(s.data());
  return {p, p + s.size()};
}

inline void WriteFile(const std::filesystem::path& path, const void* data, size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
}

inline void WriteModel(const std::filesystem::path& path, const onnx::ModelProto& model) {
  const std::string s = model.SerializeAsString();
  WriteFile(path, s.data(), s.size());
}

// A fresh, empty folder under the system temp folder, removed by the destructor.
class TempDir {
 public:
  explicit TempDir(const std::string& tag) {
    static int counter = 0;
    path_ = std::filesystem::temp_directory_path() /
            ("nxrt_ir_test_" + tag + "_" + std::to_string(::getpid()) + "_" +
             std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(std::string_view name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

}  // namespace nxrt::ir::testing
