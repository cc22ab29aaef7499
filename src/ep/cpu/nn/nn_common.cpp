// ep/cpu/nn/nn_common.cpp: shared helpers of the CPU EP's tensor and nn reference math.
// Layer: nxrt_cpu_nn. See nn_common.h.
#include "ep/cpu/nn/nn_common.h"

#include <algorithm>
#include <utility>

namespace nxrt::cpu::nn {

Result<int64_t> NormalizeAxis(std::string_view op, int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": axis ", axis,
                      " is out of range for rank ", rank, " (accepted: ", -rank, "..", rank - 1,
                      ")");
  }
  return axis < 0 ? axis + rank : axis;
}

int64_t Product(std::span<const int64_t> dims) {
  int64_t p = 1;
  for (int64_t d : dims) p *= d;
  return p;
}

Status CheckShape(std::string_view op, std::string_view what, std::span<const int64_t> shape) {
  for (int64_t d : shape) {
    if (d < 0) {
      return MakeStatus(StatusCode::kInvalidArgument, op, ": ", what, " has shape ", Str(shape),
                        " with a negative dim");
    }
  }
  return Status::Ok();
}

Status CheckDataType(std::string_view op, DataType dtype) {
  if (DataTypeSize(dtype) == 0) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": element type ", DataTypeName(dtype),
                      " (", static_cast<int>(dtype), ") is not a tensor element type");
  }
  return Status::Ok();
}

Status CheckIndexType(std::string_view op, DataType index_type) {
  if (index_type != DataType::kInt32 && index_type != DataType::kInt64) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": indices have element type ",
                      DataTypeName(index_type), ", expected int32 or int64");
  }
  return Status::Ok();
}

Result<Shape> BroadcastShapes(std::string_view op, std::span<const int64_t> a,
                              std::span<const int64_t> b) {
  const size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      return MakeStatus(StatusCode::kInvalidArgument, op, ": shapes ", Str(a), " and ", Str(b),
                        " cannot be broadcast (dim ", i, " of the result: ", da, " vs ", db, ")");
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

std::vector<int64_t> BroadcastStrides(std::span<const int64_t> shape,
                                      std::span<const int64_t> target) {
  std::vector<int64_t> strides(target.size(), 0);
  const size_t offset = target.size() - shape.size();
  int64_t stride = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[offset + i] = shape[i] == 1 ? 0 : stride;
    stride *= shape[i];
  }
  return strides;
}

void CopyElements(DataType dtype, const void* src, void* dst, int64_t count) {
  if (count <= 0) return;
  if (dtype == DataType::kString) {
    std::copy_n(static_cast<const std::string*>(src), count, static_cast<std::string*>(dst));
    return;
  }
  std::memmove(dst, src, static_cast<size_t>(count) * DataTypeSize(dtype));
}

namespace {

// Removes size-1 dims and merges dims that are contiguous in both views.
void CoalesceDims(std::vector<int64_t>& shape, std::vector<int64_t>& a, std::vector<int64_t>& b) {
  std::vector<int64_t> s2, a2, b2;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 1) continue;
    if (!s2.empty() && a2.back() == a[i] * shape[i] && b2.back() == b[i] * shape[i]) {
      s2.back() *= shape[i];
      a2.back() = a[i];
      b2.back() = b[i];
      continue;
    }
    s2.push_back(shape[i]);
    a2.push_back(a[i]);
    b2.push_back(b[i]);
  }
  shape = std::move(s2);
  a = std::move(a2);
  b = std::move(b2);
}

template <typename E>
void StridedCopyTyped(const std::vector<int64_t>& shape, const E* src,
                      const std::vector<int64_t>& ss, E* dst, const std::vector<int64_t>& ds) {
  const size_t rank = shape.size();
  if (rank == 0) {
    *dst = *src;
    return;
  }
  const int64_t inner = shape[rank - 1];
  const int64_t s_in = ss[rank - 1];
  const int64_t d_in = ds[rank - 1];
  const int64_t rows = Product(std::span(shape).first(rank - 1));
  std::vector<int64_t> idx(rank, 0);
  int64_t s_off = 0;
  int64_t d_off = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const E* s = src + s_off;
    E* d = dst + d_off;
    if (s_in == 1 && d_in == 1) {
      std::copy_n(s, inner, d);
    } else {
      for (int64_t i = 0; i < inner; ++i) d[i * d_in] = s[i * s_in];
    }
    for (size_t k = rank - 1; k-- > 0;) {
      if (++idx[k] < shape[k]) {
        s_off += ss[k];
        d_off += ds[k];
        break;
      }
      s_off -= ss[k] * (shape[k] - 1);
      d_off -= ds[k] * (shape[k] - 1);
      idx[k] = 0;
    }
  }
}

}  // namespace

void StridedCopy(DataType dtype, std::span<const int64_t> shape, const void* src,
                 std::span<const int64_t> src_strides, void* dst,
                 std::span<const int64_t> dst_strides) {
  if (Product(shape) == 0) return;
  std::vector<int64_t> s(shape.begin(), shape.end());
  std::vector<int64_t> a(src_strides.begin(), src_strides.end());
  std::vector<int64_t> b(dst_strides.begin(), dst_strides.end());
  CoalesceDims(s, a, b);
  VisitElement(dtype, [&](auto tag) {
    using E = typename decltype(tag)::type;
    StridedCopyTyped<E>(s, static_cast<const E*>(src), a, static_cast<E*>(dst), b);
  });
}

namespace {

template <typename E>
void GatherByAxisMapsTyped(std::span<const int64_t> in_shape, const E* in,
                           const std::vector<std::vector<int64_t>>& maps, const E& fill, E* out) {
  const size_t rank = maps.size();
  if (rank == 0) {
    *out = *in;
    return;
  }
  std::vector<int64_t> in_strides = ContiguousStrides(in_shape);
  const std::vector<int64_t>& last = maps[rank - 1];
  const int64_t inner = static_cast<int64_t>(last.size());
  int64_t rows = 1;
  for (size_t k = 0; k + 1 < rank; ++k) rows *= static_cast<int64_t>(maps[k].size());
  if (rows == 0 || inner == 0) return;
  std::vector<int64_t> idx(rank, 0);
  for (int64_t r = 0; r < rows; ++r, out += inner) {
    int64_t base = 0;
    bool outside = false;
    for (size_t k = 0; k + 1 < rank; ++k) {
      const int64_t m = maps[k][idx[k]];
      if (m < 0) {
        outside = true;
        break;
      }
      base += m * in_strides[k];
    }
    if (outside) {
      std::fill_n(out, inner, fill);
    } else {
      const E* row = in + base;
      for (int64_t i = 0; i < inner; ++i) out[i] = last[i] < 0 ? fill : row[last[i]];
    }
    for (size_t k = rank - 1; k-- > 0;) {
      if (++idx[k] < static_cast<int64_t>(maps[k].size())) break;
      idx[k] = 0;
    }
  }
}

}  // namespace

void GatherByAxisMaps(DataType dtype, std::span<const int64_t> in_shape, const void* in,
                      const std::vector<std::vector<int64_t>>& maps, const void* fill, void* out) {
  VisitElement(dtype, [&](auto tag) {
    using E = typename decltype(tag)::type;
    E f{};
    if (fill != nullptr) f = *static_cast<const E*>(fill);
    GatherByAxisMapsTyped<E>(in_shape, static_cast<const E*>(in), maps, f, static_cast<E*>(out));
  });
}

}  // namespace nxrt::cpu::nn
