// nxrt/value.h: a value of an ONNX graph at run time: a tensor, a sequence of tensors, a map, a
// sequence of maps, or an optional that holds nothing.
//
// Public API (std only). ONNX values have these kinds (onnx/onnx.proto TypeProto): tensors,
// sequences seq(tensor(T)) (opset 11+), optionals optional(tensor(T)) or
// optional(seq(tensor(T))) (opset 15+), and ONNX-ML's maps map(K, V) and seq(map(K, V)) (the
// types of ai.onnx.ml's ZipMap, DictVectorizer and CastMap). A Value is one of:
//   kTensor       a Tensor;
//   kSequence     an ordered, immutable list of tensors of one element type, possibly empty (the
//                 element type is kept so that an empty sequence stays typed);
//   kMap          a map from int64 or string keys to int64, float, double or string values (the
//                 maps ONNX Runtime runs), held as two 1-D tensors of equal length, keys sorted
//                 ascending and unique (ONNX Runtime's maps are std::map);
//   kMapSequence  an ordered, immutable list of maps of one key and one value type;
//   kNone         an optional that holds nothing.
// An optional that holds something is that tensor or sequence itself, as in ONNX Runtime: the
// declared type (ValueInfo::kind == kOptional) says that a slot is optional, the Value whether
// it holds anything. A default-constructed Value is unset (`defined()` false), as is a Value made
// from an undefined Tensor. Copies share the tensors' buffers and the sequence's list; nothing
// in nxrt writes to a sequence's tensors after the sequence is made.
// Sequences hold tensors or maps only: seq(seq(...)) and seq(optional(...)) are not run by nxrt.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "nxrt/data_type.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt {

class Value {
 public:
  enum class Kind : uint8_t { kUnset, kTensor, kSequence, kNone, kMap, kMapSequence };

  Value() = default;
  // A tensor value (unset when `tensor` is undefined). Implicit, so that a Tensor can be passed
  // wherever a Value is expected.
  Value(Tensor tensor);  // NOLINT(google-explicit-constructor)

  // A sequence of `tensors`, each of dtype `elem_dtype`. Errors: kInvalidArgument when
  // `elem_dtype` is kUndefined or an element is undefined or of another dtype, naming the
  // element ("sequence element 2 is int64[3]; every element must be float").
  static Result<Value> Sequence(DataType elem_dtype, std::vector<Tensor> tensors);
  // An optional that holds nothing.
  static Value None();
  // A map of keys[i] -> values[i]: `keys` and `values` are 1-D tensors of equal length, keys of
  // dtype int64 or string, values int64, float, double or string. The map holds them sorted by
  // key in new buffers; a repeated key keeps its first value, as ONNX Runtime's
  // OrtApi::CreateValue. Errors: kInvalidArgument naming the tensor and its type for another
  // rank, length or dtype.
  static Result<Value> Map(const Tensor& keys, const Tensor& values);
  // A sequence of `maps`, each a kMap with keys of `key_dtype` and values of `value_dtype`,
  // possibly empty. Errors: kInvalidArgument naming the element that is not such a map
  // ("sequence element 1 is map(string,float)[2]; every element must be map(int64,float)"), or
  // when a dtype is not one a map may have.
  static Result<Value> MapSequence(DataType key_dtype, DataType value_dtype,
                                   std::vector<Value> maps);

  Kind kind() const { return kind_; }
  bool defined() const { return kind_ != Kind::kUnset; }
  bool is_tensor() const { return kind_ == Kind::kTensor; }
  bool is_sequence() const { return kind_ == Kind::kSequence; }
  bool is_none() const { return kind_ == Kind::kNone; }
  bool is_map() const { return kind_ == Kind::kMap; }
  bool is_map_sequence() const { return kind_ == Kind::kMapSequence; }

  // The tensor of a kTensor value; an undefined tensor for the other kinds.
  const Tensor& tensor() const { return tensor_; }
  // The elements of a kSequence value in order; empty for the other kinds.
  std::span<const Tensor> sequence() const;
  // The keys and the values of a kMap value: 1-D, of equal length, sorted by key; undefined
  // tensors for the other kinds.
  const Tensor& map_keys() const { return map_keys_; }
  const Tensor& map_values() const { return map_values_; }
  // The maps of a kMapSequence value in order; empty for the other kinds.
  std::span<const Value> maps() const;
  // The key dtype of a kMap or kMapSequence value (int64 or string); kUndefined otherwise.
  DataType map_key_dtype() const { return key_dtype_; }
  // The tensor's dtype, the sequence's element dtype, the value dtype of a map or of a sequence's
  // maps, or kUndefined (kNone, kUnset).
  DataType dtype() const;

  // "float[2,3]", "seq(float)[]", "seq(int64)[int64[2], int64[3]]", "map(int64,float)[3]",
  // "seq(map(string,float))[map(string,float)[2]]", "none", "unset".
  std::string Description() const;

 private:
  Kind kind_ = Kind::kUnset;
  Tensor tensor_;
  DataType elem_dtype_ = DataType::kUndefined;
  std::shared_ptr<const std::vector<Tensor>> sequence_;
  DataType key_dtype_ = DataType::kUndefined;
  Tensor map_keys_;
  Tensor map_values_;
  std::shared_ptr<const std::vector<Value>> maps_;
};

// True for the dtypes a map's keys may have (int64, string) and its values (int64, float,
// double, string): the maps ONNX Runtime makes and reads.
bool IsMapKeyDtype(DataType dtype);
bool IsMapValueDtype(DataType dtype);

// "tensor", "sequence", "map", "map_sequence", "none" or "unset".
std::string_view ValueKindName(Value::Kind kind);

}  // namespace nxrt
