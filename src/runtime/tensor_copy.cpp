// runtime/tensor_copy.cpp: see tensor_copy.h.
#include "runtime/tensor_copy.h"

#include <cstring>
#include <string>

namespace nxrt::runtime {
namespace {

// Copies `count` elements of `dtype` (std::string objects for kString).
void CopyElements(DataType dtype, const void* src, void* dst, int64_t count) {
  if (dtype == DataType::kString) {
    const auto* s = static_cast<const std::string*>(src);
    auto* d = static_cast<std::string*>(dst);
    for (int64_t i = 0; i < count; ++i) d[i] = s[i];
    return;
  }
  std::memcpy(dst, src, DataTypeBytes(dtype, count));
}

int64_t Product(const Shape& shape, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= shape[i];
  return p;
}

// `t` itself when contiguous, else a contiguous copy.
Result<Tensor> Contiguous(const Tensor& t) {
  if (t.is_contiguous()) return t;
  return t.Clone();
}

}  // namespace

Result<Tensor> ConcatAlongAxis(std::span<const Tensor> items, int64_t axis) {
  if (items.empty()) {
    return MakeStatus(StatusCode::kInvalidArgument, "nothing to concatenate");
  }
  const Tensor& first = items.front();
  const size_t a = static_cast<size_t>(axis);
  Shape shape = first.shape();
  shape[a] = 0;
  for (size_t k = 0; k < items.size(); ++k) {
    const Tensor& t = items[k];
    bool same = t.dtype() == first.dtype() && t.rank() == first.rank();
    for (size_t d = 0; same && d < t.rank(); ++d) {
      same = d == a || t.shape()[d] == first.shape()[d];
    }
    if (!same) {
      return MakeStatus(StatusCode::kInvalidArgument, "tensor ", k, " is ", t.Description(),
                        " but tensor 0 is ", first.Description(), "; only dim ", axis,
                        " may differ");
    }
    shape[a] += t.shape()[a];
  }
  NXRT_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(first.dtype(), shape));
  const int64_t outer = Product(shape, 0, a);
  const int64_t inner = Product(shape, a + 1, shape.size());
  const size_t elem = DataTypeSize(first.dtype());
  int64_t offset = 0;  // along the axis
  for (const Tensor& item : items) {
    NXRT_ASSIGN_OR_RETURN(Tensor t, Contiguous(item));
    const int64_t n = t.shape()[a];
    for (int64_t o = 0; o < outer; ++o) {
      CopyElements(t.dtype(), static_cast<const char*>(t.raw_data()) + o * n * inner * elem,
                   static_cast<char*>(out.mutable_raw_data()) +
                       (o * shape[a] + offset) * inner * elem,
                   n * inner);
    }
    offset += n;
  }
  return out;
}

Result<Tensor> SliceAlongAxis(const Tensor& input, int64_t axis, int64_t begin, int64_t length) {
  NXRT_ASSIGN_OR_RETURN(Tensor t, Contiguous(input));
  const size_t a = static_cast<size_t>(axis);
  Shape shape = t.shape();
  const int64_t n = shape[a];
  shape[a] = length;
  NXRT_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(t.dtype(), shape));
  const int64_t outer = Product(shape, 0, a);
  const int64_t inner = Product(shape, a + 1, shape.size());
  const size_t elem = DataTypeSize(t.dtype());
  for (int64_t o = 0; o < outer; ++o) {
    CopyElements(t.dtype(), static_cast<const char*>(t.raw_data()) + (o * n + begin) * inner * elem,
                 static_cast<char*>(out.mutable_raw_data()) + o * length * inner * elem,
                 length * inner);
  }
  return out;
}

Result<Value> OwnBuffers(const Value& value) {
  if (!value.is_tensor() || (value.tensor().owns_data() && value.tensor().is_contiguous())) {
    return value;
  }
  NXRT_ASSIGN_OR_RETURN(Tensor copy, value.tensor().Clone());
  return Value(std::move(copy));
}

}  // namespace nxrt::runtime
