// tests/fuzz/onnx_mutator.cpp: the structure-aware ONNX mutator (see onnx_mutator.h).
#include "onnx_mutator.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "onnx/defs/schema.h"
#include "onnx/onnx_pb.h"

namespace nxrt::fuzz {
namespace {

using Rng = std::mt19937_64;

constexpr int64_t kEdgeInts[] = {0,
                                 1,
                                 -1,
                                 2,
                                 3,
                                 -2,
                                 7,
                                 64,
                                 255,
                                 int64_t{1} << 31,
                                 (int64_t{1} << 31) - 1,
                                 int64_t{1} << 32,
                                 int64_t{1} << 62,
                                 (int64_t{1} << 62) + 1,
                                 std::numeric_limits<int64_t>::max(),
                                 std::numeric_limits<int64_t>::min(),
                                 std::numeric_limits<int32_t>::min(),
                                 2000000000};

constexpr const char* kWords[] = {"", "SAME_UPPER", "SAME_LOWER", "VALID", "NOTSET", "reflect",
                                  "edge", "constant", "wrap", "linear", "nearest", "cubic",
                                  "align_corners", "asymmetric", "half_pixel", "pytorch_half_pixel",
                                  "tf_crop_and_resize", "round_prefer_floor", "floor", "ceil",
                                  "DCR", "CRD", "mean", "sum", "none", "max", "min", "add", "mul",
                                  "TF", "IDF", "TFIDF", "LOWER", "UPPER", "bilinear", "zeros",
                                  "border", "ij,jk->ik", "...ii->...i", "abc", "Relu", "Tanh",
                                  "Sigmoid", "forward", "reverse", "bidirectional", "\xff\xfe"};

template <typename T>
T Pick(Rng& rng, T n) {
  return n <= 0 ? 0 : static_cast<T>(rng() % static_cast<uint64_t>(n));
}

int64_t EdgeInt(Rng& rng) {
  if (rng() % 4 == 0) return static_cast<int64_t>(rng() % 9) - 2;
  return kEdgeInts[Pick<size_t>(rng, std::size(kEdgeInts))];
}

float EdgeFloat(Rng& rng) {
  constexpr float kFloats[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 1e-30f, 1e30f, 65504.0f,
                               std::numeric_limits<float>::infinity(),
                               -std::numeric_limits<float>::infinity(),
                               std::numeric_limits<float>::quiet_NaN(), 2.5f, -7.0f};
  return kFloats[Pick<size_t>(rng, std::size(kFloats))];
}

// Every graph of the model: the main graph first, then subgraphs depth first.
void CollectGraphs(onnx::GraphProto* graph, std::vector<onnx::GraphProto*>& out) {
  out.push_back(graph);
  for (onnx::NodeProto& node : *graph->mutable_node()) {
    for (onnx::AttributeProto& attr : *node.mutable_attribute()) {
      if (attr.has_g()) CollectGraphs(attr.mutable_g(), out);
      for (onnx::GraphProto& g : *attr.mutable_graphs()) CollectGraphs(&g, out);
    }
  }
}

// The op names of libonnx's default domain, once.
const std::vector<std::string>& OpNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const onnx::OpSchema& schema : onnx::OpSchemaRegistry::get_all_schemas()) {
      if (schema.domain().empty()) out.push_back(schema.Name());
    }
    return out;
  }();
  return names;
}

// A name used in `graph` (input, initializer or node output), or "" when it has none.
std::string SomeName(Rng& rng, const onnx::GraphProto& graph) {
  std::vector<const std::string*> names;
  for (const auto& v : graph.input()) names.push_back(&v.name());
  for (const auto& t : graph.initializer()) names.push_back(&t.name());
  for (const auto& n : graph.node()) {
    for (const auto& o : n.output()) names.push_back(&o);
  }
  return names.empty() ? std::string() : *names[Pick(rng, names.size())];
}

onnx::TensorShapeProto* SomeShape(Rng& rng, onnx::GraphProto& graph) {
  std::vector<onnx::ValueInfoProto*> values;
  for (auto& v : *graph.mutable_input()) values.push_back(&v);
  for (auto& v : *graph.mutable_output()) values.push_back(&v);
  for (auto& v : *graph.mutable_value_info()) values.push_back(&v);
  if (values.empty()) return nullptr;
  onnx::ValueInfoProto* v = values[Pick(rng, values.size())];
  if (!v->type().has_tensor_type()) return nullptr;
  return v->mutable_type()->mutable_tensor_type()->mutable_shape();
}

void MutateDims(Rng& rng, onnx::GraphProto& graph) {
  if (graph.initializer_size() > 0 && rng() % 2 == 0) {
    onnx::TensorProto& t = *graph.mutable_initializer(Pick(rng, graph.initializer_size()));
    if (t.dims_size() == 0 || rng() % 4 == 0) {
      t.add_dims(EdgeInt(rng));
    } else {
      t.set_dims(Pick(rng, t.dims_size()), EdgeInt(rng));
    }
    return;
  }
  onnx::TensorShapeProto* shape = SomeShape(rng, graph);
  if (shape == nullptr) return;
  if (shape->dim_size() == 0 || rng() % 5 == 0) {
    shape->add_dim()->set_dim_value(EdgeInt(rng));
  } else if (rng() % 5 == 0) {
    shape->mutable_dim()->RemoveLast();
  } else {
    auto* dim = shape->mutable_dim(Pick(rng, shape->dim_size()));
    if (rng() % 4 == 0) {
      dim->set_dim_param(rng() % 2 ? "N" : "");
    } else {
      dim->set_dim_value(EdgeInt(rng));
    }
  }
}

void MutateDtype(Rng& rng, onnx::GraphProto& graph) {
  const int32_t dtype = static_cast<int32_t>(rng() % 20);
  if (graph.initializer_size() > 0 && rng() % 2 == 0) {
    graph.mutable_initializer(Pick(rng, graph.initializer_size()))->set_data_type(dtype);
    return;
  }
  std::vector<onnx::ValueInfoProto*> values;
  for (auto& v : *graph.mutable_input()) values.push_back(&v);
  for (auto& v : *graph.mutable_value_info()) values.push_back(&v);
  for (auto& v : *graph.mutable_output()) values.push_back(&v);
  if (values.empty()) return;
  onnx::ValueInfoProto* v = values[Pick(rng, values.size())];
  v->mutable_type()->mutable_tensor_type()->set_elem_type(dtype);
}

void RandomAttributeValue(Rng& rng, onnx::AttributeProto& attr) {
  switch (attr.type()) {
    case onnx::AttributeProto::INT: attr.set_i(EdgeInt(rng)); break;
    case onnx::AttributeProto::FLOAT: attr.set_f(EdgeFloat(rng)); break;
    case onnx::AttributeProto::STRING: attr.set_s(kWords[Pick<size_t>(rng, std::size(kWords))]); break;
    case onnx::AttributeProto::INTS:
      if (attr.ints_size() == 0 || rng() % 3 == 0) {
        attr.add_ints(EdgeInt(rng));
      } else if (rng() % 4 == 0) {
        attr.mutable_ints()->RemoveLast();
      } else {
        attr.set_ints(Pick(rng, attr.ints_size()), EdgeInt(rng));
      }
      break;
    case onnx::AttributeProto::FLOATS:
      if (attr.floats_size() == 0 || rng() % 3 == 0) {
        attr.add_floats(EdgeFloat(rng));
      } else {
        attr.set_floats(Pick(rng, attr.floats_size()), EdgeFloat(rng));
      }
      break;
    case onnx::AttributeProto::STRINGS:
      attr.add_strings(kWords[Pick<size_t>(rng, std::size(kWords))]);
      break;
    case onnx::AttributeProto::TENSOR: {
      onnx::TensorProto& t = *attr.mutable_t();
      if (t.raw_data().size() >= 8 && rng() % 2) {
        const int64_t v = EdgeInt(rng);
        std::memcpy(t.mutable_raw_data()->data() + Pick<size_t>(rng, t.raw_data().size() / 8) * 8,
                    &v, 8);
      } else if (t.dims_size() > 0) {
        t.set_dims(Pick(rng, t.dims_size()), EdgeInt(rng));
      }
      break;
    }
    default: break;
  }
}

void MutateAttribute(Rng& rng, onnx::GraphProto& graph) {
  if (graph.node_size() == 0) return;
  onnx::NodeProto& node = *graph.mutable_node(Pick(rng, graph.node_size()));
  const int choice = static_cast<int>(rng() % 10);
  if (choice < 2 || node.attribute_size() == 0) {
    // Add one of the schema's attributes with a random value.
    const onnx::OpSchema* schema =
        onnx::OpSchemaRegistry::Schema(node.op_type(), 17, node.domain());
    if (schema == nullptr || schema->attributes().empty()) return;
    auto it = schema->attributes().begin();
    std::advance(it, Pick(rng, schema->attributes().size()));
    onnx::AttributeProto* attr = nullptr;
    for (auto& a : *node.mutable_attribute()) {
      if (a.name() == it->first) attr = &a;
    }
    if (attr == nullptr) attr = node.add_attribute();
    attr->Clear();
    attr->set_name(it->first);
    attr->set_type(it->second.type);
    RandomAttributeValue(rng, *attr);
    return;
  }
  onnx::AttributeProto& attr = *node.mutable_attribute(Pick(rng, node.attribute_size()));
  if (choice == 2) {
    node.mutable_attribute()->DeleteSubrange(Pick(rng, node.attribute_size()), 1);
  } else if (choice == 3) {
    attr.set_type(static_cast<onnx::AttributeProto::AttributeType>(rng() % 15));
  } else {
    RandomAttributeValue(rng, attr);
  }
}

void MutateArity(Rng& rng, onnx::GraphProto& graph) {
  const int choice = static_cast<int>(rng() % 9);
  if (choice == 7 && graph.input_size() > 0) {
    graph.mutable_input()->DeleteSubrange(Pick(rng, graph.input_size()), 1);
    return;
  }
  if (choice == 8 && graph.output_size() > 1) {
    graph.mutable_output()->DeleteSubrange(Pick(rng, graph.output_size()), 1);
    return;
  }
  if (graph.node_size() == 0) return;
  onnx::NodeProto& node = *graph.mutable_node(Pick(rng, graph.node_size()));
  switch (choice) {
    case 0:
      if (node.input_size() > 0) node.mutable_input()->DeleteSubrange(Pick(rng, node.input_size()), 1);
      break;
    case 1: node.add_input(SomeName(rng, graph)); break;
    case 2: node.add_input(""); break;
    case 3:
      if (node.input_size() > 0) node.set_input(Pick(rng, node.input_size()), rng() % 2 ? "" : "nowhere");
      break;
    case 4:
      if (node.output_size() > 0) node.mutable_output()->DeleteSubrange(Pick(rng, node.output_size()), 1);
      break;
    case 5: node.add_output(rng() % 2 ? "" : "extra_" + std::to_string(rng() % 4)); break;
    default:
      if (node.input_size() > 0) node.set_input(Pick(rng, node.input_size()), SomeName(rng, graph));
      break;
  }
}

void MutateOp(Rng& rng, onnx::ModelProto& model, onnx::GraphProto& graph) {
  const int choice = static_cast<int>(rng() % 6);
  if (choice == 0 && model.opset_import_size() > 0) {
    model.mutable_opset_import(0)->set_version(1 + static_cast<int64_t>(rng() % 22));
    return;
  }
  if (graph.node_size() == 0) return;
  onnx::NodeProto& node = *graph.mutable_node(Pick(rng, graph.node_size()));
  if (choice == 1) {
    node.set_domain(rng() % 2 ? "com.microsoft" : "ai.onnx.ml");
    return;
  }
  const std::vector<std::string>& ops = OpNames();
  if (!ops.empty()) node.set_op_type(ops[Pick(rng, ops.size())]);
}

void MutateSubgraph(Rng& rng, onnx::ModelProto& model, onnx::GraphProto& graph) {
  if (graph.node_size() == 0) return;
  onnx::NodeProto& node = *graph.mutable_node(Pick(rng, graph.node_size()));
  for (int i = 0; i < node.attribute_size(); ++i) {
    if (node.attribute(i).type() == onnx::AttributeProto::GRAPH && rng() % 2) {
      node.mutable_attribute()->DeleteSubrange(i, 1);
      return;
    }
  }
  // Nest a copy of the main graph (bounded: only when it is small).
  if (model.graph().ByteSizeLong() > 4096) return;
  const onnx::GraphProto copy = model.graph();
  onnx::AttributeProto* attr = node.add_attribute();
  constexpr const char* kNames[] = {"body", "then_branch", "else_branch"};
  attr->set_name(kNames[Pick<size_t>(rng, std::size(kNames))]);
  attr->set_type(onnx::AttributeProto::GRAPH);
  *attr->mutable_g() = copy;
}

void MutateRawData(Rng& rng, onnx::GraphProto& graph) {
  if (graph.initializer_size() == 0) return;
  onnx::TensorProto& t = *graph.mutable_initializer(Pick(rng, graph.initializer_size()));
  std::string& raw = *t.mutable_raw_data();
  switch (rng() % 6) {
    case 0:
      if (!raw.empty()) raw.resize(Pick(rng, raw.size()));
      break;
    case 1: raw.append(1 + Pick<size_t>(rng, 9), '\x7f'); break;
    case 2: {
      t.set_data_location(onnx::TensorProto::EXTERNAL);
      auto* entry = t.add_external_data();
      entry->set_key("location");
      constexpr const char* kLocations[] = {"w.bin", "../w.bin", "/etc/passwd", ".", "a/../../b",
                                            "/dev/zero", "link"};
      entry->set_value(kLocations[Pick<size_t>(rng, std::size(kLocations))]);
      break;
    }
    default:
      if (raw.size() >= 8) {
        const int64_t v = EdgeInt(rng);
        const size_t at = Pick<size_t>(rng, raw.size() / 8) * 8;
        if (t.data_type() == onnx::TensorProto::FLOAT) {
          const float f[2] = {EdgeFloat(rng), static_cast<float>(v)};
          std::memcpy(raw.data() + at, f, 8);
        } else {
          std::memcpy(raw.data() + at, &v, 8);
        }
      } else if (!raw.empty()) {
        raw[Pick(rng, raw.size())] = static_cast<char>(rng());
      }
      break;
  }
}

void MutateNodes(Rng& rng, onnx::GraphProto& graph) {
  if (graph.node_size() == 0) return;
  const int i = Pick(rng, graph.node_size());
  switch (rng() % 3) {
    case 0: graph.mutable_node()->DeleteSubrange(i, 1); break;
    case 1: *graph.add_node() = graph.node(i); break;
    default: graph.mutable_node()->SwapElements(i, Pick(rng, graph.node_size())); break;
  }
}

void MutateOnce(Rng& rng, onnx::ModelProto& model) {
  std::vector<onnx::GraphProto*> graphs;
  CollectGraphs(model.mutable_graph(), graphs);
  onnx::GraphProto& graph = *graphs[Pick(rng, graphs.size())];
  switch (rng() % 10) {
    case 0: MutateDims(rng, graph); break;
    case 1: MutateDtype(rng, graph); break;
    case 2:
    case 3: MutateAttribute(rng, graph); break;
    case 4: MutateArity(rng, graph); break;
    case 5: MutateOp(rng, model, graph); break;
    case 6: MutateSubgraph(rng, model, graph); break;
    case 7:
    case 8: MutateRawData(rng, graph); break;
    default: MutateNodes(rng, graph); break;
  }
}

}  // namespace

size_t MutateModel(uint8_t* data, size_t size, size_t max_size, unsigned int seed,
                   ByteMutator fallback) {
  Rng rng(seed);
  onnx::ModelProto model;
  if (rng() % 16 == 0 || !model.ParseFromArray(data, static_cast<int>(size))) {
    return fallback(data, size, max_size);
  }
  const int count = 1 + static_cast<int>(rng() % 3);
  for (int i = 0; i < count; ++i) MutateOnce(rng, model);
  std::string bytes;
  if (!model.SerializeToString(&bytes) || bytes.size() > max_size) {
    return fallback(data, size, max_size);
  }
  std::memcpy(data, bytes.data(), bytes.size());
  return bytes.size();
}

size_t CrossOverModels(const uint8_t* data1, size_t size1, const uint8_t* data2, size_t size2,
                       uint8_t* out, size_t max_out_size, unsigned int seed) {
  Rng rng(seed);
  onnx::ModelProto first;
  onnx::ModelProto second;
  std::string bytes(reinterpret_cast<const char*>(data1), size1);
  if (first.ParseFromArray(data1, static_cast<int>(size1)) &&
      second.ParseFromArray(data2, static_cast<int>(size2)) && second.graph().node_size() > 0) {
    const onnx::NodeProto& node = second.graph().node(Pick(rng, second.graph().node_size()));
    onnx::NodeProto* copy = first.mutable_graph()->add_node();
    *copy = node;
    for (const onnx::TensorProto& init : second.graph().initializer()) {
      for (const std::string& input : node.input()) {
        if (init.name() == input) *first.mutable_graph()->add_initializer() = init;
      }
    }
    for (int i = 0; i < copy->input_size(); ++i) {
      if (rng() % 2) copy->set_input(i, SomeName(rng, first.graph()));
    }
    first.SerializeToString(&bytes);
  }
  if (bytes.size() > max_out_size) return 0;
  std::memcpy(out, bytes.data(), bytes.size());
  return bytes.size();
}

}  // namespace nxrt::fuzz
