// nxrt/value.h: a value of an ONNX graph at run time: a tensor, a sequence of tensors, or an
// optional that holds nothing.
//
// Public API (std only). ONNX values have three kinds (onnx/onnx.proto TypeProto): tensors,
// sequences seq(tensor(T)) (opset 11+) and optionals optional(tensor(T)) or
// optional(seq(tensor(T))) (opset 15+). A Value is one of:
//   kTensor    a Tensor;
//   kSequence  an ordered, immutable list of tensors of one element type, possibly empty (the
//              element type is kept so that an empty sequence stays typed);
//   kNone      an optional that holds nothing.
// An optional that holds something is that tensor or sequence itself, as in ONNX Runtime: the
// declared type (ValueInfo::kind == kOptional) says that a slot is optional, the Value whether
// it holds anything. A default-constructed Value is unset (`defined()` false), as is a Value made
// from an undefined Tensor. Copies share the tensors' buffers and the sequence's list; nothing
// in nxrt writes to a sequence's tensors after the sequence is made.
// Sequences hold tensors only: seq(seq(...)), seq(optional(...)) and maps are not run by nxrt.
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
  enum class Kind : uint8_t { kUnset, kTensor, kSequence, kNone };

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

  Kind kind() const { return kind_; }
  bool defined() const { return kind_ != Kind::kUnset; }
  bool is_tensor() const { return kind_ == Kind::kTensor; }
  bool is_sequence() const { return kind_ == Kind::kSequence; }
  bool is_none() const { return kind_ == Kind::kNone; }

  // The tensor of a kTensor value; an undefined tensor for the other kinds.
  const Tensor& tensor() const { return tensor_; }
  // The elements of a kSequence value in order; empty for the other kinds.
  std::span<const Tensor> sequence() const;
  // The tensor's dtype, the sequence's element dtype, or kUndefined (kNone, kUnset).
  DataType dtype() const;

  // "float[2,3]", "seq(float)[]", "seq(int64)[int64[2], int64[3]]", "none", "unset".
  std::string Description() const;

 private:
  Kind kind_ = Kind::kUnset;
  Tensor tensor_;
  DataType elem_dtype_ = DataType::kUndefined;
  std::shared_ptr<const std::vector<Tensor>> sequence_;
};

// "tensor", "sequence", "none" or "unset".
std::string_view ValueKindName(Value::Kind kind);

}  // namespace nxrt
