// ep/cpu/math/nn_common.cpp: shared helpers of the CPU EP's tensor and nn reference math.
// Layer: nxrt_cpu_math. See nn_common.h.
#include "ep/cpu/math/nn_common.h"

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <limits>
#include <type_traits>
#include <utility>

#include "core/cpu_features.h"

namespace nxrt::cpu::nn {

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

Result<int64_t> ResolveIndex(std::string_view op, int64_t index, int64_t dim, int64_t position,
                             int64_t axis) {
  const int64_t i = index < 0 ? index + dim : index;
  if (i < 0 || i >= dim) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": index ", index, " at position ",
                      position, " is out of range for axis ", axis, " of size ", dim,
                      " (accepted: ", -dim, "..", dim - 1, ")");
  }
  return i;
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

// Removes size-1 dims and merges dims that are contiguous in both views, in place; returns the
// new rank.
size_t CoalesceDims(int64_t* shape, int64_t* a, int64_t* b, size_t rank) {
  size_t w = 0;
  for (size_t i = 0; i < rank; ++i) {
    if (shape[i] == 1) continue;
    if (w > 0 && a[w - 1] == a[i] * shape[i] && b[w - 1] == b[i] * shape[i]) {
      shape[w - 1] *= shape[i];
      a[w - 1] = a[i];
      b[w - 1] = b[i];
      continue;
    }
    shape[w] = shape[i];
    a[w] = a[i];
    b[w] = b[i];
    ++w;
  }
  return w;
}

// Steps the counter `idx` over the first `dims` dims of `shape` (the last of them fastest) and
// moves the source and destination offsets with it.
void NextIndex(std::span<const int64_t> shape, const int64_t* ss, const int64_t* ds, size_t dims,
               int64_t* idx, int64_t& s_off, int64_t& d_off) {
  for (size_t k = dims; k-- > 0;) {
    if (++idx[k] < shape[k]) {
      s_off += ss[k];
      d_off += ds[k];
      return;
    }
    s_off -= ss[k] * (shape[k] - 1);
    d_off -= ds[k] * (shape[k] - 1);
    idx[k] = 0;
  }
}

// One plane of a transpose: dst[i * ld_dst + j] = src[j * ld_src + i] for i < rows, j < cols
// (dst rows are contiguous, src columns are), in square tiles so that both sides stay in cache
// lines (an NCHW <-> NHWC transpose reads one side with a stride of H*W or C elements).
// dst[i * ld_dst + j] = src[j * ld_src + i] for i, j < 8, 4-byte elements: eight 8-lane loads,
// the 8x8 transpose in registers (unpack, shuffle, swap 128-bit halves), eight 8-lane stores.
__attribute__((target("avx2"))) inline void Transpose8x8Avx2(const uint32_t* src, int64_t ld_src,
                                                            uint32_t* dst, int64_t ld_dst) {
  __m256 r[8];
  for (int j = 0; j < 8; ++j) {
    r[j] = _mm256_loadu_ps(reinterpret_cast<const float*>(src + j * ld_src));
  }
  __m256 t[8];
  for (int j = 0; j < 8; j += 2) {
    t[j] = _mm256_unpacklo_ps(r[j], r[j + 1]);
    t[j + 1] = _mm256_unpackhi_ps(r[j], r[j + 1]);
  }
  __m256 u[8];
  for (int j = 0; j < 8; j += 4) {
    u[j] = _mm256_shuffle_ps(t[j], t[j + 2], _MM_SHUFFLE(1, 0, 1, 0));
    u[j + 1] = _mm256_shuffle_ps(t[j], t[j + 2], _MM_SHUFFLE(3, 2, 3, 2));
    u[j + 2] = _mm256_shuffle_ps(t[j + 1], t[j + 3], _MM_SHUFFLE(1, 0, 1, 0));
    u[j + 3] = _mm256_shuffle_ps(t[j + 1], t[j + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  for (int i = 0; i < 4; ++i) {
    _mm256_storeu_ps(reinterpret_cast<float*>(dst + i * ld_dst),
                     _mm256_permute2f128_ps(u[i], u[i + 4], 0x20));
    _mm256_storeu_ps(reinterpret_cast<float*>(dst + (i + 4) * ld_dst),
                     _mm256_permute2f128_ps(u[i], u[i + 4], 0x31));
  }
}

// TransposePlane for 4-byte elements on AVX2: 32x32 tiles of 8x8 register transposes, the edges
// element by element (TransposePlaneBlocks, compiled here for AVX2).
__attribute__((target("avx2"))) void TransposePlaneAvx2(const uint32_t* src, int64_t ld_src,
                                                       uint32_t* dst, int64_t ld_dst,
                                                       int64_t rows, int64_t cols);

// Transpose8x8Avx2 for 2-byte elements (float16, bfloat16) in SSE2's 8-lane 16-bit registers:
// unpacks of 16-bit, 32-bit and 64-bit pairs.
inline void Transpose8x8U16(const uint16_t* src, int64_t ld_src, uint16_t* dst, int64_t ld_dst) {
  __m128i r[8];
  for (int j = 0; j < 8; ++j) {
    r[j] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + j * ld_src));
  }
  __m128i a[8];
  for (int j = 0; j < 8; j += 2) {
    a[j] = _mm_unpacklo_epi16(r[j], r[j + 1]);
    a[j + 1] = _mm_unpackhi_epi16(r[j], r[j + 1]);
  }
  // b[k] (k < 4): columns 2k, 2k+1 of rows 0-3; b[k + 4]: the same of rows 4-7.
  __m128i b[8];
  for (int half = 0; half < 2; ++half) {
    const int o = 4 * half;
    b[o] = _mm_unpacklo_epi32(a[o], a[o + 2]);
    b[o + 1] = _mm_unpackhi_epi32(a[o], a[o + 2]);
    b[o + 2] = _mm_unpacklo_epi32(a[o + 1], a[o + 3]);
    b[o + 3] = _mm_unpackhi_epi32(a[o + 1], a[o + 3]);
  }
  for (int k = 0; k < 4; ++k) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + 2 * k * ld_dst),
                     _mm_unpacklo_epi64(b[k], b[k + 4]));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + (2 * k + 1) * ld_dst),
                     _mm_unpackhi_epi64(b[k], b[k + 4]));
  }
}

// TransposePlaneAvx2's tiling with a register transpose of 8x8 elements, the edges element by
// element.
template <typename E, typename Block>
void TransposePlaneBlocks(const E* src, int64_t ld_src, E* dst, int64_t ld_dst, int64_t rows,
                          int64_t cols, Block block) {
  constexpr int64_t kTile = 32;
  const int64_t rows8 = rows / 8 * 8, cols8 = cols / 8 * 8;
  for (int64_t i0 = 0; i0 < rows8; i0 += kTile) {
    const int64_t i1 = std::min(rows8, i0 + kTile);
    for (int64_t j0 = 0; j0 < cols8; j0 += kTile) {
      const int64_t j1 = std::min(cols8, j0 + kTile);
      for (int64_t i = i0; i < i1; i += 8) {
        for (int64_t j = j0; j < j1; j += 8) {
          block(src + j * ld_src + i, ld_src, dst + i * ld_dst + j, ld_dst);
        }
      }
    }
    for (int64_t i = i0; i < i1; ++i) {
      for (int64_t j = cols8; j < cols; ++j) dst[i * ld_dst + j] = src[j * ld_src + i];
    }
  }
  for (int64_t i = rows8; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) dst[i * ld_dst + j] = src[j * ld_src + i];
  }
}

__attribute__((target("avx2"), flatten)) void TransposePlaneAvx2(
    const uint32_t* src, int64_t ld_src, uint32_t* dst, int64_t ld_dst, int64_t rows,
    int64_t cols) {
  TransposePlaneBlocks(src, ld_src, dst, ld_dst, rows, cols, Transpose8x8Avx2);
}

template <typename E>
void TransposePlane(const E* src, int64_t ld_src, E* dst, int64_t ld_dst, int64_t rows,
                    int64_t cols) {
  if constexpr (std::is_same_v<E, uint32_t>) {
    if (rows >= 8 && cols >= 8 && CpuHasAvx2()) {
      TransposePlaneAvx2(src, ld_src, dst, ld_dst, rows, cols);
      return;
    }
  }
  if constexpr (std::is_same_v<E, uint16_t>) {
    if (rows >= 8 && cols >= 8) {
      TransposePlaneBlocks(src, ld_src, dst, ld_dst, rows, cols, Transpose8x8U16);
      return;
    }
  }
  constexpr int64_t kTile = 16;
  if (cols < kTile) {
    // Few columns (an image's 3 channels): each source column streams through a block of rows.
    constexpr int64_t kRows = 256;
    for (int64_t i0 = 0; i0 < rows; i0 += kRows) {
      const int64_t i1 = std::min(rows, i0 + kRows);
      for (int64_t j = 0; j < cols; ++j) {
        const E* s = src + j * ld_src;
        for (int64_t i = i0; i < i1; ++i) dst[i * ld_dst + j] = s[i];
      }
    }
    return;
  }
  for (int64_t i0 = 0; i0 < rows; i0 += kTile) {
    const int64_t i1 = std::min(rows, i0 + kTile);
    for (int64_t j0 = 0; j0 < cols; j0 += kTile) {
      const int64_t j1 = std::min(cols, j0 + kTile);
      for (int64_t i = i0; i < i1; ++i) {
        E* d = dst + i * ld_dst;
        const E* s = src + i;
        for (int64_t j = j0; j < j1; ++j) d[j] = s[j * ld_src];
      }
    }
  }
}

// `idx`: `shape.size()` zeros (the row counter).
template <typename E>
void StridedCopyTyped(std::span<const int64_t> shape, const E* src, const int64_t* ss, E* dst,
                      const int64_t* ds, int64_t* idx) {
  const size_t rank = shape.size();
  if (rank == 0) {
    *dst = *src;
    return;
  }
  // The innermost two dims swapped (dst's last dim strided in src, src contiguous along dst's
  // second-to-last): copy plane by plane in tiles.
  if constexpr (std::is_trivially_copyable_v<E>) {
    if (rank >= 2 && ds[rank - 1] == 1 && ss[rank - 2] == 1 && ss[rank - 1] != 1 &&
        shape[rank - 2] >= 16) {
      const int64_t planes = Product(shape.first(rank - 2));
      int64_t s_off = 0;
      int64_t d_off = 0;
      for (int64_t p = 0; p < planes; ++p) {
        TransposePlane(src + s_off, ss[rank - 1], dst + d_off, ds[rank - 2], shape[rank - 2],
                       shape[rank - 1]);
        NextIndex(shape, ss, ds, rank - 2, idx, s_off, d_off);
      }
      return;
    }
  }
  const int64_t inner = shape[rank - 1];
  const int64_t s_in = ss[rank - 1];
  const int64_t d_in = ds[rank - 1];
  const int64_t rows = Product(shape.first(rank - 1));
  int64_t s_off = 0;
  int64_t d_off = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const E* s = src + s_off;
    E* d = dst + d_off;
    if (s_in == 1 && d_in == 1) {
      std::copy_n(s, inner, d);
    } else if (s_in == 0 && d_in == 1) {
      std::fill_n(d, inner, *s);  // a broadcast row (Expand, Tile of a 1-dim)
    } else {
      for (int64_t i = 0; i < inner; ++i) d[i * d_in] = s[i * s_in];
    }
    NextIndex(shape, ss, ds, rank - 1, idx, s_off, d_off);
  }
}

}  // namespace

void StridedCopy(DataType dtype, std::span<const int64_t> shape, const void* src,
                 std::span<const int64_t> src_strides, void* dst,
                 std::span<const int64_t> dst_strides) {
  if (Product(shape) == 0) return;
  // Dims, both strides and the row counter; on the stack up to rank 8 (no heap allocation).
  const size_t rank = shape.size();
  std::array<int64_t, 4 * 8> small;
  std::vector<int64_t> large;
  int64_t* buf = small.data();
  if (rank > 8) {
    large.resize(4 * rank);
    buf = large.data();
  }
  int64_t* s = buf;
  int64_t* a = buf + rank;
  int64_t* b = buf + 2 * rank;
  int64_t* idx = buf + 3 * rank;
  std::copy(shape.begin(), shape.end(), s);
  std::copy(src_strides.begin(), src_strides.end(), a);
  std::copy(dst_strides.begin(), dst_strides.end(), b);
  const size_t r = CoalesceDims(s, a, b, rank);
  std::fill_n(idx, r, 0);
  VisitElement(dtype, [&](auto tag) {
    using E = typename decltype(tag)::type;
    StridedCopyTyped<E>(std::span<const int64_t>(s, r), static_cast<const E*>(src), a,
                        static_cast<E*>(dst), b, idx);
  });
}

void CoalesceView(Shape& shape, std::vector<int64_t>& src_strides,
                  std::vector<int64_t>& dst_strides) {
  const size_t rank = CoalesceDims(shape.data(), src_strides.data(), dst_strides.data(),
                                   shape.size());
  shape.resize(rank);
  src_strides.resize(rank);
  dst_strides.resize(rank);
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
  // The innermost axis copied as it is (a channels-last resize): whole rows at once.
  bool identity_last = inner == in_shape[rank - 1];
  for (int64_t i = 0; i < inner && identity_last; ++i) identity_last = last[i] == i;
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
      if (identity_last) {
        std::copy_n(row, inner, out);
      } else {
        for (int64_t i = 0; i < inner; ++i) out[i] = last[i] < 0 ? fill : row[last[i]];
      }
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
