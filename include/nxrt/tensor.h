// nxrt/tensor.h: a dense tensor: element type, shape, strides and a buffer it owns or borrows.
//
// Shapes are int64 dims (ONNX convention), each >= 0; rank 0 is a scalar with one element.
// Strides count elements, not bytes. A tensor made by `Allocate` owns a 64-byte-aligned buffer,
// zero-filled (std::string elements are constructed empty). A tensor made by `Adopt` owns a buffer
// the caller made (a std::string or vector handed over without a copy), aligned as the caller made
// it. A tensor made by `Borrow` points at memory it does not own; an optional `keep_alive` handle
// holds that memory (an mmap'ed file, a caller's buffer) alive as long as any copy of the tensor
// exists. Copies of a Tensor share the buffer (like a shared_ptr); `Clone` makes a deep,
// contiguous, owned copy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "nxrt/data_type.h"
#include "nxrt/status.h"

namespace nxrt {

using Shape = std::vector<int64_t>;

// Number of elements of `shape` (1 for rank 0); an error when a dim is negative or the product
// overflows int64.
Result<int64_t> ElementCount(std::span<const int64_t> shape);

// Row-major (C order) strides of `shape`, in elements.
std::vector<int64_t> ContiguousStrides(std::span<const int64_t> shape);

// "[1,3,224,224]".
std::string ShapeToString(std::span<const int64_t> shape);

class Tensor {
 public:
  // An empty tensor: dtype kUndefined, no buffer. `defined()` is false.
  Tensor() = default;

  // An owned, zero-filled, 64-byte-aligned, contiguous tensor.
  // Errors: kInvalidArgument for kUndefined dtype or a negative dim; kOutOfMemory when the
  // allocation fails or the byte size overflows.
  static Result<Tensor> Allocate(DataType dtype, Shape shape);

  // A contiguous tensor over `data`, not owned. `data` must hold ElementCount(shape) elements of
  // `dtype` (std::string objects for kString). `keep_alive` is held by every copy.
  // An invalid request (kUndefined dtype, a negative dim, an element count that overflows) gives
  // an undefined tensor (`defined()` false); callers check shapes with ElementCount first.
  static Tensor Borrow(DataType dtype, Shape shape, void* data,
                       std::shared_ptr<const void> keep_alive = nullptr);

  // A contiguous tensor that takes over the buffer `data`, which `owner` holds (for example a
  // shared_ptr to a std::string whose bytes are the elements) and which nothing but `owner` refers
  // to: `owns_data()` is true, and the buffer is freed with the last copy of the tensor. `data`
  // must hold ElementCount(shape) elements of `dtype`, aligned at least for the element type.
  // An invalid request gives an undefined tensor, as in Borrow.
  static Tensor Adopt(DataType dtype, Shape shape, void* data, std::shared_ptr<const void> owner);

  // A strided view over `data` (strides in elements, may be 0 for broadcast or negative). Not
  // owned. `strides` must have one entry per dim, else (or for an invalid shape or dtype, as in
  // Borrow) the result is an undefined tensor.
  static Tensor BorrowStrided(DataType dtype, Shape shape, std::vector<int64_t> strides, void* data,
                              std::shared_ptr<const void> keep_alive = nullptr);

  // An owned 1-element tensor of rank 0 holding `value`.
  template <typename T>
  static Tensor Scalar(T value) {
    Tensor t = Allocate(DataTypeOf<T>(), {}).value();
    *t.mutable_data<T>() = std::move(value);
    return t;
  }

  // An owned tensor of `shape` filled from `values` (values.size() must equal the element count).
  template <typename T>
  static Result<Tensor> FromVector(Shape shape, const std::vector<T>& values);

  bool defined() const { return dtype_ != DataType::kUndefined; }
  DataType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  const std::vector<int64_t>& strides() const { return strides_; }
  size_t rank() const { return shape_.size(); }
  int64_t element_count() const { return element_count_; }
  // DataTypeBytes(dtype(), element_count()): element_count() * DataTypeSize(dtype()), or
  // (element_count() + 1) / 2 for the packed int4/uint4.
  size_t byte_size() const { return DataTypeBytes(dtype_, element_count_); }
  bool is_contiguous() const;
  // True when the buffer was made by Allocate (or Clone) or taken over by Adopt, false when
  // borrowed.
  bool owns_data() const { return owned_; }

  const void* raw_data() const { return data_; }
  void* mutable_raw_data() { return data_; }
  template <typename T>
  const T* data() const { return static_cast<const T*>(data_); }
  template <typename T>
  T* mutable_data() { return static_cast<T*>(data_); }

  // The elements as a span; the tensor must be contiguous and of type T.
  template <typename T>
  std::span<const T> span() const { return {data<T>(), static_cast<size_t>(element_count_)}; }

  // A deep, contiguous, owned copy (strided tensors are gathered).
  Result<Tensor> Clone() const;

  // Same buffer, new shape with the same element count; the tensor must be contiguous.
  // Errors: kInvalidArgument when the counts differ or the tensor is strided.
  Result<Tensor> Reshaped(Shape shape) const;

  // "float[1,3,224,224]".
  std::string Description() const;

 private:
  DataType dtype_ = DataType::kUndefined;
  Shape shape_;
  std::vector<int64_t> strides_;
  int64_t element_count_ = 0;
  void* data_ = nullptr;
  bool owned_ = false;
  std::shared_ptr<const void> holder_;  // owned or adopted buffer, or the borrower's keep-alive
};

template <typename T>
Result<Tensor> Tensor::FromVector(Shape shape, const std::vector<T>& values) {
  NXRT_ASSIGN_OR_RETURN(Tensor t, Allocate(DataTypeOf<T>(), std::move(shape)));
  if (static_cast<int64_t>(values.size()) != t.element_count()) {
    return MakeStatus(StatusCode::kInvalidArgument, "tensor of shape ", ShapeToString(t.shape()),
                      " needs ", t.element_count(), " values, got ", values.size());
  }
  T* out = t.mutable_data<T>();
  for (size_t i = 0; i < values.size(); ++i) out[i] = values[i];
  return t;
}

}  // namespace nxrt
