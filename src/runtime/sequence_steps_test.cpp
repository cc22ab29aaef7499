// runtime/sequence_steps_test.cpp: the sequence and optional ops (runtime/sequence_steps.h) and
// SequenceMap, each run as a small ONNX model through Session::RunValues on random inputs
// (fixed seeds) against references written here from the ONNX definitions by index arithmetic;
// the Session's value API (kinds checked, no aliasing of the caller's buffers, Run refusing
// sequence outputs); sequences carried through Loop and If; the named errors.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "nxrt/session.h"

namespace nxrt {
namespace {

constexpr int kFloat = onnx::TensorProto::FLOAT;
constexpr int kInt64 = onnx::TensorProto::INT64;

void TensorType(onnx::TypeProto* t, int elem) { t->mutable_tensor_type()->set_elem_type(elem); }
void SequenceType(onnx::TypeProto* t, int elem) {
  TensorType(t->mutable_sequence_type()->mutable_elem_type(), elem);
}

// A value declared as a tensor ("T"), a sequence ("S") or an optional tensor ("O") of `elem`.
void Declare(onnx::ValueInfoProto* v, const std::string& name, char kind, int elem) {
  v->set_name(name);
  onnx::TypeProto* t = v->mutable_type();
  if (kind == 'S') SequenceType(t, elem);
  if (kind == 'T') TensorType(t, elem);
  if (kind == 'O') TensorType(t->mutable_optional_type()->mutable_elem_type(), elem);
}

struct Io {
  std::string name;
  char kind;  // 'T', 'S', 'O'
  int elem;
};

onnx::NodeProto* AddNode(onnx::GraphProto* g, const std::string& op,
                         const std::vector<std::string>& inputs,
                         const std::vector<std::string>& outputs) {
  onnx::NodeProto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(op + "_" + std::to_string(g->node_size()));
  for (const auto& i : inputs) n->add_input(i);
  for (const auto& o : outputs) n->add_output(o);
  return n;
}

void IntAttribute(onnx::NodeProto* n, const std::string& name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

// A model whose graph `build` fills between the declared inputs and outputs.
template <typename Build>
std::unique_ptr<Session> MakeSession(const std::vector<Io>& inputs, const std::vector<Io>& outputs,
                                     Build build, int opset = 17) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* op = m.add_opset_import();
  op->set_domain("");
  op->set_version(opset);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("sequences");
  for (const Io& io : inputs) Declare(g->add_input(), io.name, io.kind, io.elem);
  for (const Io& io : outputs) Declare(g->add_output(), io.name, io.kind, io.elem);
  build(g);
  const std::string bytes = m.SerializeAsString();
  auto session = Session::CreateFromBytes(
      std::span<const std::byte>(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()));
  EXPECT_TRUE(session.ok()) << session.status().ToString();
  return session.ok() ? std::move(session).value() : nullptr;
}

Tensor RandomFloats(std::mt19937& rng, Shape shape) {
  Tensor t = Tensor::Allocate(DataType::kFloat, std::move(shape)).value();
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  for (int64_t i = 0; i < t.element_count(); ++i) t.mutable_data<float>()[i] = dist(rng);
  return t;
}

Shape RandomShape(std::mt19937& rng, size_t rank, int64_t max_dim = 4) {
  Shape s(rank);
  for (int64_t& d : s) d = std::uniform_int_distribution<int64_t>(1, max_dim)(rng);
  return s;
}

int64_t Uniform(std::mt19937& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

Value Sequence(std::vector<Tensor> tensors, DataType dtype = DataType::kFloat) {
  return Value::Sequence(dtype, std::move(tensors)).value();
}

void ExpectSameTensor(const Tensor& got, const Tensor& want, const std::string& what) {
  ASSERT_EQ(got.dtype(), want.dtype()) << what;
  ASSERT_EQ(got.shape(), want.shape()) << what;
  ASSERT_EQ(0, std::memcmp(got.raw_data(), want.raw_data(), want.byte_size())) << what;
}

void ExpectSameSequence(const Value& got, const std::vector<Tensor>& want) {
  ASSERT_TRUE(got.is_sequence()) << got.Description();
  ASSERT_EQ(got.sequence().size(), want.size()) << got.Description();
  for (size_t i = 0; i < want.size(); ++i) {
    ExpectSameTensor(got.sequence()[i], want[i], "element " + std::to_string(i));
  }
}

Result<std::vector<NamedValue>> RunModel(Session& s, std::vector<NamedValue> inputs) {
  return s.RunValues(inputs);
}

// Row-major index helpers for the index-arithmetic references.
std::vector<int64_t> Unravel(int64_t i, const Shape& shape) {
  std::vector<int64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = i % shape[d];
    i /= shape[d];
  }
  return idx;
}
int64_t Ravel(const std::vector<int64_t>& idx, const Shape& shape) {
  int64_t i = 0;
  for (size_t d = 0; d < shape.size(); ++d) i = i * shape[d] + idx[d];
  return i;
}

TEST(SequenceOps, ConstructAtLengthRandomized) {
  std::mt19937 rng(11);
  auto s = MakeSession({{"a", 'T', kFloat}, {"b", 'T', kFloat}, {"c", 'T', kFloat},
                        {"p", 'T', kInt64}},
                       {{"at", 'T', kFloat}, {"len", 'T', kInt64}}, [](onnx::GraphProto* g) {
                         AddNode(g, "SequenceConstruct", {"a", "b", "c"}, {"seq"});
                         AddNode(g, "SequenceAt", {"seq", "p"}, {"at"});
                         AddNode(g, "SequenceLength", {"seq"}, {"len"});
                       });
  ASSERT_NE(s, nullptr);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<Tensor> t;
    for (int k = 0; k < 3; ++k) {
      t.push_back(RandomFloats(rng, RandomShape(rng, static_cast<size_t>(Uniform(rng, 0, 3)))));
    }
    const int64_t p = Uniform(rng, -3, 2);
    auto out = RunModel(*s, {{"a", t[0]}, {"b", t[1]}, {"c", t[2]}, {"p", Tensor::Scalar<int64_t>(p)}});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    ExpectSameTensor((*out)[0].value.tensor(), t[p < 0 ? p + 3 : p], "SequenceAt");
    EXPECT_NE((*out)[0].value.tensor().raw_data(), t[p < 0 ? p + 3 : p].raw_data())
        << "an output must not alias an input's buffer";
    EXPECT_EQ((*out)[1].value.tensor().data<int64_t>()[0], 3);
  }
  auto bad = RunModel(*s, {{"a", Tensor::Scalar(1.0f)}, {"b", Tensor::Scalar(2.0f)},
                      {"c", Tensor::Scalar(3.0f)}, {"p", Tensor::Scalar<int64_t>(3)}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("position 3 is out of range [-3, 2]"), std::string::npos)
      << bad.status().message();
}

TEST(SequenceOps, EmptyInsertEraseRandomized) {
  std::mt19937 rng(12);
  // seq = Insert(Insert(Empty, x), y, p_insert); out = Erase(seq_in ∪ ..., p_erase)
  auto s = MakeSession(
      {{"seq", 'S', kFloat}, {"x", 'T', kFloat}, {"pi", 'T', kInt64}, {"pe", 'T', kInt64}},
      {{"inserted", 'S', kFloat}, {"erased", 'S', kFloat}, {"fresh", 'S', kFloat}},
      [](onnx::GraphProto* g) {
        AddNode(g, "SequenceInsert", {"seq", "x", "pi"}, {"inserted"});
        AddNode(g, "SequenceErase", {"inserted", "pe"}, {"erased"});
        AddNode(g, "SequenceEmpty", {}, {"empty"});
        AddNode(g, "SequenceInsert", {"empty", "x"}, {"fresh"});
      });
  ASSERT_NE(s, nullptr);
  for (int trial = 0; trial < 30; ++trial) {
    const int64_t n = Uniform(rng, 0, 5);
    std::vector<Tensor> elements;
    for (int64_t k = 0; k < n; ++k) elements.push_back(RandomFloats(rng, RandomShape(rng, 2)));
    Tensor x = RandomFloats(rng, RandomShape(rng, 1));
    const int64_t pi = Uniform(rng, -n, n);
    const int64_t pe = Uniform(rng, -(n + 1), n);
    std::vector<Tensor> inserted = elements;
    inserted.insert(inserted.begin() + (pi < 0 ? pi + n : pi), x);
    std::vector<Tensor> erased = inserted;
    erased.erase(erased.begin() + (pe < 0 ? pe + n + 1 : pe));
    auto out = RunModel(*s, {{"seq", Sequence(elements)}, {"x", x},
                        {"pi", Tensor::Scalar<int64_t>(pi)}, {"pe", Tensor::Scalar<int64_t>(pe)}});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    ExpectSameSequence((*out)[0].value, inserted);
    ExpectSameSequence((*out)[1].value, erased);
    ExpectSameSequence((*out)[2].value, {x});
  }
  // Erase with the default position drops the last tensor; int32 positions are accepted.
  auto s2 = MakeSession({{"seq", 'S', kFloat}}, {{"out", 'S', kFloat}}, [](onnx::GraphProto* g) {
    AddNode(g, "SequenceErase", {"seq"}, {"out"});
  });
  ASSERT_NE(s2, nullptr);
  Tensor a = RandomFloats(rng, {2}), b = RandomFloats(rng, {3});
  auto out = RunModel(*s2, {{"seq", Sequence({a, b})}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ExpectSameSequence((*out)[0].value, {a});
  auto empty = RunModel(*s2, {{"seq", Sequence({})}});
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("cannot erase from an empty sequence"),
            std::string::npos);
}

TEST(SequenceOps, InsertRejectsAnotherDtype) {
  auto s = MakeSession({{"seq", 'S', kFloat}, {"x", 'T', kInt64}}, {{"out", 'S', kFloat}},
                       [](onnx::GraphProto* g) {
                         AddNode(g, "SequenceInsert", {"seq", "x"}, {"out"});
                       });
  ASSERT_NE(s, nullptr);
  auto out = RunModel(*s, {{"seq", Sequence({})}, {"x", Tensor::Scalar<int64_t>(1)}});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("the sequence holds float tensors"), std::string::npos)
      << out.status().message();
}

// SplitToSequence by index arithmetic: piece k holds input elements whose axis index lies in
// [begin_k, begin_k + length_k).
std::vector<Tensor> ReferenceSplit(const Tensor& x, int64_t axis, std::vector<int64_t> lengths,
                                   bool squeeze) {
  std::vector<Tensor> pieces;
  int64_t begin = 0;
  for (int64_t length : lengths) {
    Shape shape = x.shape();
    shape[axis] = length;
    Tensor piece = Tensor::Allocate(DataType::kFloat, shape).value();
    for (int64_t i = 0; i < piece.element_count(); ++i) {
      std::vector<int64_t> idx = Unravel(i, shape);
      idx[axis] += begin;
      piece.mutable_data<float>()[i] = x.data<float>()[Ravel(idx, x.shape())];
    }
    if (squeeze) {
      shape.erase(shape.begin() + axis);
      piece = piece.Reshaped(shape).value();
    }
    pieces.push_back(piece);
    begin += length;
  }
  return pieces;
}

TEST(SequenceOps, SplitToSequenceRandomized) {
  std::mt19937 rng(13);
  for (int trial = 0; trial < 24; ++trial) {
    const size_t rank = static_cast<size_t>(Uniform(rng, 1, 3));
    Tensor x = RandomFloats(rng, RandomShape(rng, rank, 5));
    const int64_t axis = Uniform(rng, -static_cast<int64_t>(rank), rank - 1);
    const int64_t a = axis < 0 ? axis + static_cast<int64_t>(rank) : axis;
    const int64_t dim = x.shape()[a];
    const int mode = trial % 4;  // no split keepdims 1 / 0, scalar split, 1-D split
    const int64_t keepdims = mode == 1 ? 0 : 1;
    std::vector<int64_t> lengths;
    Tensor split;
    if (mode <= 1) {
      lengths.assign(dim, 1);
    } else if (mode == 2) {
      const int64_t size = Uniform(rng, 1, dim);
      for (int64_t b = 0; b < dim; b += size) lengths.push_back(std::min(size, dim - b));
      split = Tensor::Scalar<int64_t>(size);
    } else {
      for (int64_t left = dim; left > 0;) {
        lengths.push_back(Uniform(rng, 0, left));
        left -= lengths.back();
      }
      split = Tensor::FromVector<int64_t>({static_cast<int64_t>(lengths.size())}, lengths).value();
    }
    auto s = MakeSession(
        mode >= 2 ? std::vector<Io>{{"x", 'T', kFloat}, {"split", 'T', kInt64}}
                  : std::vector<Io>{{"x", 'T', kFloat}},
        {{"out", 'S', kFloat}}, [&](onnx::GraphProto* g) {
          auto* n = AddNode(g, "SplitToSequence",
                            mode >= 2 ? std::vector<std::string>{"x", "split"}
                                      : std::vector<std::string>{"x"},
                            {"out"});
          IntAttribute(n, "axis", axis);
          IntAttribute(n, "keepdims", keepdims);
        });
    ASSERT_NE(s, nullptr);
    std::vector<NamedValue> in = {{"x", x}};
    if (mode >= 2) in.push_back({"split", split});
    auto out = RunModel(*s, in);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    ExpectSameSequence((*out)[0].value, ReferenceSplit(x, a, lengths, mode == 1));
  }
}

TEST(SequenceOps, SplitToSequenceRejectsLengthsThatDoNotSum) {
  auto s = MakeSession({{"x", 'T', kFloat}, {"split", 'T', kInt64}}, {{"out", 'S', kFloat}},
                       [](onnx::GraphProto* g) {
                         AddNode(g, "SplitToSequence", {"x", "split"}, {"out"});
                       });
  ASSERT_NE(s, nullptr);
  auto out = RunModel(*s, {{"x", Tensor::Allocate(DataType::kFloat, {5}).value()},
                      {"split", Tensor::FromVector<int64_t>({2}, {2, 2}).value()}});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("split [2,2] sums to 4"), std::string::npos)
      << out.status().message();
}

// ConcatFromSequence by index arithmetic: output element idx comes from the tensor whose range
// along the axis holds idx[axis] (new_axis: the tensor idx[axis], the axis dropped).
Tensor ReferenceConcat(const std::vector<Tensor>& items, int64_t axis, bool new_axis) {
  Shape shape = items.front().shape();
  if (new_axis) {
    shape.insert(shape.begin() + axis, static_cast<int64_t>(items.size()));
  } else {
    shape[axis] = 0;
    for (const Tensor& t : items) shape[axis] += t.shape()[axis];
  }
  Tensor out = Tensor::Allocate(DataType::kFloat, shape).value();
  for (int64_t i = 0; i < out.element_count(); ++i) {
    std::vector<int64_t> idx = Unravel(i, shape);
    size_t k = 0;
    if (new_axis) {
      k = static_cast<size_t>(idx[axis]);
      idx.erase(idx.begin() + axis);
    } else {
      while (idx[axis] >= items[k].shape()[axis]) idx[axis] -= items[k++].shape()[axis];
    }
    out.mutable_data<float>()[i] = items[k].data<float>()[Ravel(idx, items[k].shape())];
  }
  return out;
}

TEST(SequenceOps, ConcatFromSequenceRandomized) {
  std::mt19937 rng(14);
  for (int trial = 0; trial < 24; ++trial) {
    const bool new_axis = trial % 2 == 1;
    const int64_t rank = Uniform(rng, 1, 3);
    const int64_t out_rank = rank + (new_axis ? 1 : 0);
    const int64_t axis = Uniform(rng, -out_rank, out_rank - 1);
    const int64_t a = axis < 0 ? axis + out_rank : axis;
    const Shape base = RandomShape(rng, static_cast<size_t>(rank));
    std::vector<Tensor> items;
    for (int64_t k = Uniform(rng, 1, 4); k > 0; --k) {
      Shape shape = base;
      if (!new_axis) shape[a] = Uniform(rng, 0, 3);
      items.push_back(RandomFloats(rng, shape));
    }
    auto s = MakeSession({{"seq", 'S', kFloat}}, {{"out", 'T', kFloat}}, [&](onnx::GraphProto* g) {
      auto* n = AddNode(g, "ConcatFromSequence", {"seq"}, {"out"});
      IntAttribute(n, "axis", axis);
      IntAttribute(n, "new_axis", new_axis ? 1 : 0);
    });
    ASSERT_NE(s, nullptr);
    auto out = RunModel(*s, {{"seq", Sequence(items)}});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    ExpectSameTensor((*out)[0].value.tensor(), ReferenceConcat(items, a, new_axis), "concat");
  }
}

TEST(SequenceOps, OptionalOpsRandomized) {
  std::mt19937 rng(15);
  // has = OptionalHasElement(o); got = OptionalGetElement(Optional(x)); none = Optional()
  auto s = MakeSession({{"o", 'O', kFloat}, {"x", 'T', kFloat}},
                       {{"has", 'T', onnx::TensorProto::BOOL}, {"got", 'T', kFloat},
                        {"none", 'O', kFloat}},
                       [](onnx::GraphProto* g) {
                         AddNode(g, "OptionalHasElement", {"o"}, {"has"});
                         AddNode(g, "Optional", {"x"}, {"wrapped"});
                         AddNode(g, "OptionalGetElement", {"wrapped"}, {"got"});
                         auto* n = AddNode(g, "Optional", {}, {"none"});
                         auto* a = n->add_attribute();
                         a->set_name("type");
                         a->set_type(onnx::AttributeProto::TYPE_PROTO);
                         TensorType(a->mutable_tp(), kFloat);
                       });
  ASSERT_NE(s, nullptr);
  for (int trial = 0; trial < 10; ++trial) {
    const bool present = trial % 2 == 0;
    Tensor x = RandomFloats(rng, RandomShape(rng, 2));
    Value o = present ? Value(RandomFloats(rng, RandomShape(rng, 1))) : Value::None();
    auto out = RunModel(*s, {{"o", o}, {"x", x}});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ((*out)[0].value.tensor().data<bool>()[0], present);
    ExpectSameTensor((*out)[1].value.tensor(), x, "OptionalGetElement(Optional(x))");
    EXPECT_TRUE((*out)[2].value.is_none());
  }
  auto get = MakeSession({{"o", 'O', kFloat}}, {{"y", 'T', kFloat}}, [](onnx::GraphProto* g) {
    AddNode(g, "OptionalGetElement", {"o"}, {"y"});
  });
  ASSERT_NE(get, nullptr);
  auto none = RunModel(*get, {{"o", Value::None()}});
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("is an empty optional"), std::string::npos);
}

TEST(SequenceOps, IdentityOfSequenceAndOptionalRunsInTheRuntime) {
  std::mt19937 rng(16);
  auto s = MakeSession({{"seq", 'S', kFloat}, {"o", 'O', kFloat}},
                       {{"seq_out", 'S', kFloat}, {"o_out", 'O', kFloat}},
                       [](onnx::GraphProto* g) {
                         AddNode(g, "Identity", {"seq"}, {"seq_out"});
                         AddNode(g, "Identity", {"o"}, {"o_out"});
                       });
  ASSERT_NE(s, nullptr);
  std::vector<Tensor> items = {RandomFloats(rng, {2, 2}), RandomFloats(rng, {3})};
  auto out = RunModel(*s, {{"seq", Sequence(items)}, {"o", Value::None()}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ExpectSameSequence((*out)[0].value, items);
  EXPECT_NE((*out)[0].value.sequence()[0].raw_data(), items[0].raw_data());
  EXPECT_TRUE((*out)[1].value.is_none());
}

TEST(SequenceOps, SequenceMapRandomized) {
  std::mt19937 rng(17);
  // out_k = in_seq[k] + bias, shapes_k = Shape(in_seq[k]), over a sequence of length 0..4.
  auto s = MakeSession({{"in_seq", 'S', kFloat}, {"bias", 'T', kFloat}},
                       {{"sum", 'S', kFloat}, {"shapes", 'S', kInt64}}, [](onnx::GraphProto* g) {
                         auto* n = AddNode(g, "SequenceMap", {"in_seq", "bias"}, {"sum", "shapes"});
                         auto* a = n->add_attribute();
                         a->set_name("body");
                         a->set_type(onnx::AttributeProto::GRAPH);
                         onnx::GraphProto* body = a->mutable_g();
                         body->set_name("body");
                         Declare(body->add_input(), "x", 'T', kFloat);
                         Declare(body->add_input(), "b", 'T', kFloat);
                         Declare(body->add_output(), "y", 'T', kFloat);
                         Declare(body->add_output(), "shape", 'T', kInt64);
                         AddNode(body, "Add", {"x", "b"}, {"y"});
                         AddNode(body, "Shape", {"x"}, {"shape"});
                       });
  ASSERT_NE(s, nullptr);
  for (int trial = 0; trial < 10; ++trial) {
    Tensor bias = RandomFloats(rng, {3});
    std::vector<Tensor> items, sums, shapes;
    for (int64_t k = Uniform(rng, 0, 4); k > 0; --k) {
      Tensor x = RandomFloats(rng, {Uniform(rng, 1, 3), 3});
      Tensor sum = Tensor::Allocate(DataType::kFloat, x.shape()).value();
      for (int64_t i = 0; i < x.element_count(); ++i) {
        sum.mutable_data<float>()[i] = x.data<float>()[i] + bias.data<float>()[i % 3];
      }
      items.push_back(x);
      sums.push_back(sum);
      shapes.push_back(Tensor::FromVector<int64_t>({2}, x.shape()).value());
    }
    auto out = RunModel(*s, {{"in_seq", Sequence(items)}, {"bias", bias}});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    ExpectSameSequence((*out)[0].value, sums);
    ExpectSameSequence((*out)[1].value, shapes);
    EXPECT_EQ((*out)[1].value.dtype(), DataType::kInt64);
  }
}

TEST(SequenceOps, LoopCarriesASequence) {
  // seq_out = Loop(M) over seq: insert iteration number i, as a [1] tensor, each trip.
  auto s = MakeSession({{"m", 'T', kInt64}, {"seq", 'S', kInt64}}, {{"seq_out", 'S', kInt64}},
                       [](onnx::GraphProto* g) {
                         auto* n = AddNode(g, "Loop", {"m", "", "seq"}, {"seq_out"});
                         auto* a = n->add_attribute();
                         a->set_name("body");
                         a->set_type(onnx::AttributeProto::GRAPH);
                         onnx::GraphProto* body = a->mutable_g();
                         body->set_name("body");
                         Declare(body->add_input(), "i", 'T', kInt64);
                         Declare(body->add_input(), "c", 'T', onnx::TensorProto::BOOL);
                         Declare(body->add_input(), "s", 'S', kInt64);
                         Declare(body->add_output(), "c_out", 'T', onnx::TensorProto::BOOL);
                         Declare(body->add_output(), "s_out", 'S', kInt64);
                         AddNode(body, "Identity", {"c"}, {"c_out"});
                         AddNode(body, "SequenceConstruct", {"i"}, {"one"});
                         auto* cat = AddNode(body, "ConcatFromSequence", {"one"}, {"i1"});
                         IntAttribute(cat, "axis", 0);
                         IntAttribute(cat, "new_axis", 1);
                         AddNode(body, "SequenceInsert", {"s", "i1"}, {"s_out"});
                       });
  ASSERT_NE(s, nullptr);
  for (int64_t m : {0, 1, 4}) {
    auto out = RunModel(*s, {{"m", Tensor::Scalar<int64_t>(m)},
                        {"seq", Sequence({}, DataType::kInt64)}});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    std::vector<Tensor> want;
    for (int64_t i = 0; i < m; ++i) want.push_back(Tensor::FromVector<int64_t>({1}, {i}).value());
    ExpectSameSequence((*out)[0].value, want);
  }
}

TEST(SessionValues, KindsAreCheckedAndRunRefusesSequenceOutputs) {
  auto s = MakeSession({{"x", 'T', kFloat}}, {{"seq", 'S', kFloat}}, [](onnx::GraphProto* g) {
    AddNode(g, "SequenceConstruct", {"x"}, {"seq"});
  });
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->outputs()[0].kind, ValueKind::kSequence);
  auto tensors = s->Run({{"x", Tensor::Scalar(1.0f)}});
  ASSERT_FALSE(tensors.ok());
  EXPECT_NE(tensors.status().message().find("call RunValues"), std::string::npos);
  auto wrong = s->RunValues({{"x", Sequence({Tensor::Scalar(1.0f)})}});
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("input 'x' is declared"), std::string::npos)
      << wrong.status().message();

  auto seq_in = MakeSession({{"seq", 'S', kFloat}}, {{"n", 'T', kInt64}}, [](onnx::GraphProto* g) {
    AddNode(g, "SequenceLength", {"seq"}, {"n"});
  });
  ASSERT_NE(seq_in, nullptr);
  auto typed = seq_in->RunValues({{"seq", Sequence({}, DataType::kInt64)}});
  ASSERT_FALSE(typed.ok());
  EXPECT_NE(typed.status().message().find("is a sequence of int64 tensors"), std::string::npos)
      << typed.status().message();
  auto len = seq_in->RunValues({{"seq", Sequence({Tensor::Scalar(1.0f), Tensor::Scalar(2.0f)})}});
  ASSERT_TRUE(len.ok()) << len.status().ToString();
  EXPECT_EQ((*len)[0].value.tensor().data<int64_t>()[0], 2);
}

TEST(SessionValues, TensorRunStillWorksAroundSequences) {
  // The tensors-only Run on a model whose sequences stay inside.
  auto s = MakeSession({{"x", 'T', kFloat}}, {{"y", 'T', kFloat}}, [](onnx::GraphProto* g) {
    AddNode(g, "SplitToSequence", {"x"}, {"seq"});
    auto* n = AddNode(g, "ConcatFromSequence", {"seq"}, {"y"});
    IntAttribute(n, "axis", 0);
  });
  ASSERT_NE(s, nullptr);
  Tensor x = Tensor::FromVector<float>({3, 2}, {1, 2, 3, 4, 5, 6}).value();
  auto out = s->Run({{"x", x}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ExpectSameTensor((*out)[0].tensor, x, "split then concat");
}

}  // namespace
}  // namespace nxrt
