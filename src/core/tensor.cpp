// core/tensor.cpp: shape helpers and the Tensor buffer (nxrt/tensor.h).
//
// Layer: nxrt_core (standard library only). Owned buffers come from calloc with 63 bytes of slack
// for the 64-byte alignment: calloc hands out zeroed pages without touching them, so a large
// tensor costs no memset, and a size the system cannot provide fails cleanly instead of aborting.
#include "nxrt/tensor.h"

#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <sstream>

namespace nxrt {
namespace {

constexpr size_t kAlignment = 64;

// Calls `fn(source_offset, index)` for every element of `shape` in row-major order, where
// `source_offset` is the element offset given by `strides` and `index` the linear position.
template <typename Fn>
void ForEachStridedElement(const Shape& shape, const std::vector<int64_t>& strides, int64_t count,
                           Fn&& fn) {
  const size_t rank = shape.size();
  std::vector<int64_t> position(rank, 0);
  int64_t offset = 0;
  for (int64_t index = 0; index < count; ++index) {
    fn(offset, index);
    for (size_t axis = rank; axis-- > 0;) {
      offset += strides[axis];
      if (++position[axis] < shape[axis]) break;
      offset -= strides[axis] * shape[axis];
      position[axis] = 0;
    }
  }
}

}  // namespace

Result<int64_t> ElementCount(std::span<const int64_t> shape) {
  int64_t count = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0) {
      return MakeStatus(StatusCode::kInvalidArgument, "shape ", ShapeToString(shape), " has dim ",
                        i, " = ", shape[i], "; dims must be >= 0");
    }
  }
  for (int64_t dim : shape) {
    if (__builtin_mul_overflow(count, dim, &count)) {
      return MakeStatus(StatusCode::kInvalidArgument, "shape ", ShapeToString(shape),
                        " has more elements than int64 can count");
    }
  }
  return count;
}

std::vector<int64_t> ContiguousStrides(std::span<const int64_t> shape) {
  // Checked: a shape whose element count overflows int64 (which no tensor can have, ElementCount
  // refuses it) gets strides that saturate at INT64_MAX instead of wrapping, since callers may
  // compute strides before they check the count.
  std::vector<int64_t> strides(shape.size(), 1);
  int64_t stride = 1;
  for (size_t axis = shape.size(); axis-- > 0;) {
    strides[axis] = stride;
    if (__builtin_mul_overflow(stride, shape[axis], &stride)) {
      stride = std::numeric_limits<int64_t>::max();
    }
  }
  return strides;
}

std::string ShapeToString(std::span<const int64_t> shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out += ',';
    out += std::to_string(shape[i]);
  }
  out += ']';
  return out;
}

Result<Tensor> Tensor::Allocate(DataType dtype, Shape shape) {
  if (DataTypeBits(dtype) == 0) {
    return MakeStatus(StatusCode::kInvalidArgument, "cannot allocate a tensor of type ",
                      DataTypeName(dtype), " (number ", static_cast<int32_t>(dtype), ")");
  }
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0) {
      return MakeStatus(StatusCode::kInvalidArgument, "cannot allocate ", DataTypeName(dtype),
                        ShapeToString(shape), ": dim ", i, " is negative");
    }
  }
  Result<int64_t> count = ElementCount(shape);
  size_t bytes = 0;
  if (!count.ok() ||
      __builtin_mul_overflow(static_cast<uint64_t>(*count), DataTypeBits(dtype), &bytes) ||
      (bytes = (bytes + 7) / 8) > std::numeric_limits<size_t>::max() - kAlignment) {
    return MakeStatus(StatusCode::kOutOfMemory, "cannot allocate ", DataTypeName(dtype),
                      ShapeToString(shape), ": the byte size overflows");
  }

  void* base = std::calloc(1, bytes + kAlignment - 1);
  if (base == nullptr) {
    return MakeStatus(StatusCode::kOutOfMemory, "cannot allocate ", DataTypeName(dtype),
                      ShapeToString(shape), ": ", bytes, " bytes are not available");
  }
  const auto address = reinterpret_cast<uintptr_t>(base);
  void* aligned = reinterpret_cast<void*>((address + kAlignment - 1) & ~(kAlignment - 1));

  const int64_t n = *count;
  if (dtype == DataType::kString) {
    auto* strings = static_cast<std::string*>(aligned);
    for (int64_t i = 0; i < n; ++i) new (strings + i) std::string();
  }
  auto release = [base, dtype, n](void* data) {
    if (dtype == DataType::kString) {
      auto* strings = static_cast<std::string*>(data);
      for (int64_t i = 0; i < n; ++i) strings[i].~basic_string();
    }
    std::free(base);
  };

  Tensor t;
  try {
    // On failure shared_ptr calls `release` itself before rethrowing.
    t.holder_ = std::shared_ptr<void>(aligned, release);
  } catch (const std::bad_alloc&) {
    return MakeStatus(StatusCode::kOutOfMemory, "cannot allocate ", DataTypeName(dtype),
                      ShapeToString(shape), ": no memory for the buffer's owner");
  }
  t.dtype_ = dtype;
  t.strides_ = ContiguousStrides(shape);
  t.shape_ = std::move(shape);
  t.element_count_ = n;
  t.data_ = aligned;
  t.owned_ = true;
  return t;
}

Tensor Tensor::Borrow(DataType dtype, Shape shape, void* data,
                      std::shared_ptr<const void> keep_alive) {
  std::vector<int64_t> strides = ContiguousStrides(shape);
  return BorrowStrided(dtype, std::move(shape), std::move(strides), data, std::move(keep_alive));
}

Tensor Tensor::Adopt(DataType dtype, Shape shape, void* data, std::shared_ptr<const void> owner) {
  Tensor t = Borrow(dtype, std::move(shape), data, std::move(owner));
  t.owned_ = t.defined();
  return t;
}

Tensor Tensor::BorrowStrided(DataType dtype, Shape shape, std::vector<int64_t> strides, void* data,
                             std::shared_ptr<const void> keep_alive) {
  Result<int64_t> count = ElementCount(shape);
  if (!count.ok() || strides.size() != shape.size() || DataTypeBits(dtype) == 0) return Tensor();
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.strides_ = std::move(strides);
  t.element_count_ = *count;
  t.data_ = data;
  t.owned_ = false;
  t.holder_ = std::move(keep_alive);
  return t;
}

bool Tensor::is_contiguous() const {
  if (element_count_ == 0) return true;
  int64_t expected = 1;
  for (size_t axis = shape_.size(); axis-- > 0;) {
    // The stride of a size-1 axis is never used to reach an element.
    if (shape_[axis] == 1) continue;
    if (strides_[axis] != expected) return false;
    expected *= shape_[axis];
  }
  return true;
}

Result<Tensor> Tensor::Clone() const {
  if (!defined()) return Tensor();
  NXRT_ASSIGN_OR_RETURN(Tensor copy, Allocate(dtype_, shape_));
  if (element_count_ == 0) return copy;
  const size_t element_size = DataTypeSize(dtype_);

  if (dtype_ == DataType::kString) {
    const auto* source = static_cast<const std::string*>(data_);
    auto* target = static_cast<std::string*>(copy.data_);
    try {
      ForEachStridedElement(shape_, strides_, element_count_,
                            [&](int64_t offset, int64_t index) { target[index] = source[offset]; });
    } catch (const std::bad_alloc&) {
      return MakeStatus(StatusCode::kOutOfMemory, "cannot clone ", Description(),
                        ": out of memory while copying strings");
    }
    return copy;
  }

  if (is_contiguous()) {
    std::memcpy(copy.data_, data_, byte_size());
    return copy;
  }
  if (IsPacked4Bit(dtype_)) {
    // Two elements per byte: gather nibble by nibble into the zero-filled copy.
    const auto* source = static_cast<const uint8_t*>(data_);
    auto* target = static_cast<uint8_t*>(copy.data_);
    ForEachStridedElement(shape_, strides_, element_count_, [&](int64_t offset, int64_t index) {
      const int nibble = (source[offset / 2] >> (4 * (offset % 2))) & 0x0F;
      target[index / 2] = static_cast<uint8_t>(target[index / 2] | (nibble << (4 * (index % 2))));
    });
    return copy;
  }
  const auto* source = static_cast<const std::byte*>(data_);
  auto* target = static_cast<std::byte*>(copy.data_);
  ForEachStridedElement(shape_, strides_, element_count_, [&](int64_t offset, int64_t index) {
    std::memcpy(target + index * static_cast<int64_t>(element_size),
                source + offset * static_cast<int64_t>(element_size), element_size);
  });
  return copy;
}

Result<Tensor> Tensor::Reshaped(Shape shape) const {
  if (!is_contiguous()) {
    return MakeStatus(StatusCode::kInvalidArgument, "cannot reshape strided ", Description(),
                      " to ", ShapeToString(shape), "; Clone it first");
  }
  NXRT_ASSIGN_OR_RETURN(int64_t count, ElementCount(shape));
  if (count != element_count_) {
    return MakeStatus(StatusCode::kInvalidArgument, "cannot reshape ", Description(), " (",
                      element_count_, " elements) to ", ShapeToString(shape), " (", count,
                      " elements)");
  }
  Tensor t = *this;
  t.strides_ = ContiguousStrides(shape);
  t.shape_ = std::move(shape);
  return t;
}

std::string Tensor::Description() const {
  std::string out(DataTypeName(dtype_));
  out += ShapeToString(shape_);
  return out;
}

}  // namespace nxrt
