// ep/cpu/math/contrib/qlinear.cpp: see qlinear.h.
#include "ep/cpu/math/contrib/qlinear.h"

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include "core/cpu_features.h"
#include "ep/cpu/math/quant/quantize_avx2.h"

namespace nxrt::cpu::contrib {
namespace {

using math::LoadLanes;
using math::QuantizeScalar;
using math::RoundScalar;
using math::StoreCodes;

// fn(Q{}) with Q int8_t (`is_signed`) or uint8_t.
template <typename Fn>
void WithCodeType(bool is_signed, Fn&& fn) {
  if (is_signed) {
    fn(int8_t{});
  } else {
    fn(uint8_t{});
  }
}

// The value of byte code `code` of a Q tensor.
template <typename Q>
int32_t CodeValue(int32_t code) {
  return static_cast<int32_t>(static_cast<Q>(static_cast<uint8_t>(code)));
}

// y[i] = table[x[i]] for i < n, bytes read as uint8: 32 bytes a step in registers, the table as
// 16 rows of 16 bytes. Row h answers the bytes whose high nibble is h: x ^ (h << 4) is below 16
// exactly for them, and adding 0x70 with unsigned saturation sets bit 7 (PSHUFB's "give 0") for
// every other byte while keeping the low nibble, so the 16 lookups OR together into the result.
__attribute__((target("avx2"))) int64_t LookupBytesAvx2(const uint8_t* table, const uint8_t* x,
                                                        uint8_t* y, int64_t n) {
  __m256i rows[16];
  for (int h = 0; h < 16; ++h) {
    rows[h] = _mm256_broadcastsi128_si256(
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(table + 16 * h)));
  }
  const __m256i bias = _mm256_set1_epi8(0x70);
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + i));
    __m256i r = _mm256_setzero_si256();
    for (int h = 0; h < 16; ++h) {
      const __m256i index =
          _mm256_adds_epu8(_mm256_xor_si256(v, _mm256_set1_epi8(static_cast<char>(h << 4))), bias);
      r = _mm256_or_si256(r, _mm256_shuffle_epi8(rows[h], index));
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + i), r);
  }
  return i;
}

void LookupBytes(const uint8_t* table, const uint8_t* x, uint8_t* y, int64_t n) {
  for (int64_t i = CpuHasAvx2() ? LookupBytesAvx2(table, x, y, n) : 0; i < n; ++i) {
    y[i] = table[x[i]];
  }
}

// ---- QLinearAdd, QLinearMul ----

// The output's value with its zero point: Add: v = a * ra + (b * rb + offset) (fused);
// Mul: v = (a - za) * (b - zb) * ratio + zc (fused).
struct BinaryCoefficients {
  float ra = 0, rb = 0, offset = 0, ratio = 0;
  int32_t za = 0, zb = 0, zc = 0;
};

template <typename Q, bool kMul>
void BinaryScalar(const Q* a, int64_t sa, const Q* b, int64_t sb, Q* c, int64_t n,
                  const BinaryCoefficients& k) {
  for (int64_t i = 0; i < n; ++i) {
    const int32_t x = a[i * sa], y = b[i * sb];
    float v;
    if constexpr (kMul) {
      v = std::fma(static_cast<float>(x - k.za) * static_cast<float>(y - k.zb), k.ratio,
                   static_cast<float>(k.zc));
    } else {
      v = std::fma(static_cast<float>(x), k.ra, std::fma(static_cast<float>(y), k.rb, k.offset));
    }
    c[i] = RoundScalar<Q>(v);
  }
}

// 8 elements of p from element i on (stride 1), or p[0] in every lane (stride 0).
template <typename Q>
__attribute__((target("avx2"))) inline __m256i StridedLanes(const Q* p, int64_t stride,
                                                            int64_t i) {
  return stride == 0 ? _mm256_set1_epi32(static_cast<int32_t>(p[0])) : LoadLanes(p + i);
}

// 32 outputs c[0..32) from a and b (strides 0 or 1).
template <typename Q, bool kMul>
__attribute__((target("avx2,fma"))) inline void Binary32(const Q* a, int64_t sa, const Q* b,
                                                         int64_t sb, Q* c,
                                                         const BinaryCoefficients& k) {
  __m256i q[4];
  for (int j = 0; j < 4; ++j) {
    const __m256i x = StridedLanes(a, sa, 8 * j), y = StridedLanes(b, sb, 8 * j);
    __m256 v;
    if constexpr (kMul) {
      const __m256 fx = _mm256_cvtepi32_ps(_mm256_sub_epi32(x, _mm256_set1_epi32(k.za)));
      const __m256 fy = _mm256_cvtepi32_ps(_mm256_sub_epi32(y, _mm256_set1_epi32(k.zb)));
      v = _mm256_fmadd_ps(_mm256_mul_ps(fx, fy), _mm256_set1_ps(k.ratio),
                          _mm256_set1_ps(static_cast<float>(k.zc)));
    } else {
      v = _mm256_fmadd_ps(_mm256_cvtepi32_ps(x), _mm256_set1_ps(k.ra),
                          _mm256_fmadd_ps(_mm256_cvtepi32_ps(y), _mm256_set1_ps(k.rb),
                                          _mm256_set1_ps(k.offset)));
    }
    q[j] = math::RoundLanes<Q>(v);
  }
  StoreCodes(c, q[0], q[1], q[2], q[3]);
}

// The whole run in steps of 32; the last partial step on copies padded to 32, so that every
// element goes through Binary32.
template <typename Q, bool kMul>
__attribute__((target("avx2,fma"))) void BinaryAvx2(const Q* a, int64_t sa, const Q* b,
                                                    int64_t sb, Q* c, int64_t n,
                                                    const BinaryCoefficients& k) {
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) Binary32<Q, kMul>(a + i * sa, sa, b + i * sb, sb, c + i, k);
  if (i == n) return;
  const int64_t rest = n - i;
  Q ta[32] = {}, tb[32] = {}, tc[32];
  std::memcpy(ta, a + i * sa, static_cast<size_t>(sa == 0 ? 1 : rest));
  std::memcpy(tb, b + i * sb, static_cast<size_t>(sb == 0 ? 1 : rest));
  Binary32<Q, kMul>(ta, sa, tb, sb, tc, k);
  std::memcpy(c + i, tc, static_cast<size_t>(rest));
}

// ---- QLinearGlobalAveragePool ----

// The sum of n codes.
template <typename Q>
__attribute__((target("avx2"))) int64_t SumAvx2(const Q* x, int64_t n) {
  // psadbw against zero sums bytes as uint8; int8 codes are offset by 128 first.
  const __m256i flip = _mm256_set1_epi8(std::is_same_v<Q, int8_t> ? static_cast<char>(0x80) : 0);
  __m256i acc = _mm256_setzero_si256();
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256i v = _mm256_xor_si256(
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + i)), flip);
    acc = _mm256_add_epi64(acc, _mm256_sad_epu8(v, _mm256_setzero_si256()));
  }
  alignas(32) int64_t parts[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(parts), acc);
  int64_t sum = parts[0] + parts[1] + parts[2] + parts[3];
  if constexpr (std::is_same_v<Q, int8_t>) sum -= 128 * i;
  for (; i < n; ++i) sum += x[i];
  return sum;
}

template <typename Q>
int64_t Sum(const Q* x, int64_t n) {
  if (CpuHasAvx2()) return SumAvx2(x, n);
  int64_t sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += x[i];
  return sum;
}

// acc[j] += x[s * stride + j] for s < rows, j < 32.
template <typename Q>
__attribute__((target("avx2"))) void AccumulateColumns32(const Q* x, int64_t rows, int64_t stride,
                                                         int32_t* acc) {
  __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
  for (int64_t s = 0; s < rows; ++s) {
    const Q* row = x + s * stride;
    a0 = _mm256_add_epi32(a0, LoadLanes(row));
    a1 = _mm256_add_epi32(a1, LoadLanes(row + 8));
    a2 = _mm256_add_epi32(a2, LoadLanes(row + 16));
    a3 = _mm256_add_epi32(a3, LoadLanes(row + 24));
  }
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(acc), a0);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(acc + 8), a1);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(acc + 16), a2);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(acc + 24), a3);
}

template <typename Q>
void GlobalAveragePoolTyped(const Q* x, int64_t channels, int64_t spatial, bool channels_last,
                            const QuantParams& x_params, const QuantParams& y_params, Q* y,
                            int64_t begin, int64_t end) {
  // MLAS: the sum less x_zp * size, times x_scale / (y_scale * size), requantized.
  const float scale = x_params.scale / (y_params.scale * static_cast<float>(spatial));
  const int64_t bias = static_cast<int64_t>(x_params.zero_point) * spatial;
  const auto store = [&](int64_t i, int64_t sum) {
    const auto acc = static_cast<int32_t>(sum - bias);
    y[i] = QuantizeScalar<Q>(static_cast<float>(acc) * scale, y_params.zero_point);
  };
  if (!channels_last) {
    for (int64_t i = begin; i < end; ++i) store(i, Sum(x + i * spatial, spatial));
    return;
  }
  for (int64_t i = begin; i < end;) {
    const int64_t b = i / channels, c0 = i % channels;
    const int64_t c1 = std::min(channels, c0 + (end - i));
    const Q* image = x + b * spatial * channels;
    int64_t c = c0;
    if (CpuHasAvx2()) {
      for (; c + 32 <= c1; c += 32) {
        int32_t acc[32];
        AccumulateColumns32(image + c, spatial, channels, acc);
        for (int j = 0; j < 32; ++j) store(b * channels + c + j, acc[j]);
      }
    }
    for (; c < c1; ++c) {
      int64_t sum = 0;
      for (int64_t s = 0; s < spatial; ++s) sum += image[s * channels + c];
      store(b * channels + c, sum);
    }
    i += c1 - c0;
  }
}

}  // namespace

Result<QLinearBinaryPlan> PrepareQLinearBinary(QLinearBinaryKind kind, bool is_signed,
                                               const Shape& a_shape, const Shape& b_shape) {
  QLinearBinaryPlan p;
  p.kind = kind;
  p.is_signed = is_signed;
  const char* op = kind == QLinearBinaryKind::kAdd ? "QLinearAdd" : "QLinearMul";
  NXRT_ASSIGN_OR_RETURN(p.output_shape, math::BroadcastShapes(op, a_shape, b_shape));
  const Shape shapes[] = {a_shape, b_shape};
  NXRT_ASSIGN_OR_RETURN(p.geometry, math::MakeBroadcastGeometry(op, p.output_shape, shapes));
  return p;
}

void QLinearBinary(const QLinearBinaryPlan& p, const void* a, const QuantParams& a_params,
                   const void* b, const QuantParams& b_params, const QuantParams& c_params,
                   void* c, int64_t begin, int64_t end) {
  BinaryCoefficients k;
  k.za = a_params.zero_point;
  k.zb = b_params.zero_point;
  k.zc = c_params.zero_point;
  k.ra = a_params.scale / c_params.scale;
  k.rb = b_params.scale / c_params.scale;
  k.offset = static_cast<float>(k.zc) -
             (static_cast<float>(k.za) * k.ra + static_cast<float>(k.zb) * k.rb);
  k.ratio = a_params.scale * b_params.scale / c_params.scale;
  const int64_t sa = p.geometry.inner_stride(0), sb = p.geometry.inner_stride(1);
  const bool avx2 = CpuHasAvx2() && sa <= 1 && sb <= 1;
  WithCodeType(p.is_signed, [&](auto tag) {
    using Q = decltype(tag);
    const Q* qa = static_cast<const Q*>(a);
    const Q* qb = static_cast<const Q*>(b);
    Q* out = static_cast<Q*>(c) + begin;
    math::ForEachRunInRange<2>(p.geometry, begin, end,
                               [&](const std::array<int64_t, 2>& offsets, int64_t n) {
      const Q *x = qa + offsets[0], *y = qb + offsets[1];
      if (p.kind == QLinearBinaryKind::kMul) {
        avx2 ? BinaryAvx2<Q, true>(x, sa, y, sb, out, n, k)
             : BinaryScalar<Q, true>(x, sa, y, sb, out, n, k);
      } else {
        avx2 ? BinaryAvx2<Q, false>(x, sa, y, sb, out, n, k)
             : BinaryScalar<Q, false>(x, sa, y, sb, out, n, k);
      }
      out += n;
    });
  });
}

void QLinearSigmoid(bool is_signed, const void* x, const QuantParams& x_params,
                    const QuantParams& y_params, void* y, int64_t begin, int64_t end) {
  // 256 inputs: one table, indexed by the code's byte.
  uint8_t table[256];
  WithCodeType(is_signed, [&](auto tag) {
    using Q = decltype(tag);
    for (int32_t code = 0; code < 256; ++code) {
      const float v =
          static_cast<float>(CodeValue<Q>(code) - x_params.zero_point) * x_params.scale;
      table[code] = static_cast<uint8_t>(
          QuantizeScalar<Q>(1.0f / (1.0f + std::exp(-v)) / y_params.scale, y_params.zero_point));
    }
  });
  LookupBytes(table, static_cast<const uint8_t*>(x) + begin, static_cast<uint8_t*>(y) + begin,
              end - begin);
}

Result<Shape> QLinearGlobalAveragePoolShape(std::span<const int64_t> shape, bool channels_last) {
  if (shape.size() < 3) {
    return MakeStatus(StatusCode::kInvalidArgument, "QLinearGlobalAveragePool: X has shape ",
                      ShapeToString(shape), "; expected rank >= 3 ([N, C, spatial...] or "
                      "[N, spatial..., C] with channels_last)");
  }
  Shape out(shape.size(), 1);
  out[0] = shape[0];
  out[channels_last ? shape.size() - 1 : 1] = channels_last ? shape.back() : shape[1];
  return out;
}

void QLinearGlobalAveragePool(bool is_signed, const void* x, std::span<const int64_t> shape,
                              bool channels_last, const QuantParams& x_params,
                              const QuantParams& y_params, void* y, int64_t begin, int64_t end) {
  const int64_t c = channels_last ? shape.back() : shape[1];
  int64_t spatial = 1;
  for (size_t i = 2; i < shape.size(); ++i) spatial *= shape[i];
  if (channels_last) spatial = spatial * shape[1] / std::max<int64_t>(c, 1);
  WithCodeType(is_signed, [&](auto tag) {
    using Q = decltype(tag);
    GlobalAveragePoolTyped(static_cast<const Q*>(x), c, spatial, channels_last, x_params,
                           y_params, static_cast<Q*>(y), begin, end);
  });
}

void QLinearConcat(bool is_signed, std::span<const void* const> inputs,
                   std::span<const Shape> shapes, std::span<const QuantParams> params,
                   int64_t axis, const QuantParams& y_params, void* y, int64_t begin,
                   int64_t end) {
  const Shape& first = shapes[0];
  int64_t inner = 1;
  for (size_t i = static_cast<size_t>(axis) + 1; i < first.size(); ++i) inner *= first[i];
  // Per input: its run length in one output row, and its table when it is requantized.
  const size_t count = inputs.size();
  std::vector<int64_t> lengths(count);
  std::vector<std::array<uint8_t, 256>> tables(count);
  std::vector<bool> copy(count);
  int64_t row = 0;
  for (size_t k = 0; k < count; ++k) {
    lengths[k] = shapes[k][static_cast<size_t>(axis)] * inner;
    row += lengths[k];
    copy[k] = params[k].scale == y_params.scale && params[k].zero_point == y_params.zero_point;
    if (copy[k]) continue;
    WithCodeType(is_signed, [&](auto tag) {
      using Q = decltype(tag);
      for (int32_t code = 0; code < 256; ++code) {
        const float v = static_cast<float>(CodeValue<Q>(code) - params[k].zero_point) *
                        params[k].scale;
        tables[k][static_cast<size_t>(code)] =
            static_cast<uint8_t>(QuantizeScalar<Q>(v / y_params.scale, y_params.zero_point));
      }
    });
  }
  auto* out = static_cast<uint8_t*>(y);
  for (int64_t pos = begin; pos < end;) {
    const int64_t o = pos / row;
    int64_t within = pos % row;
    size_t k = 0;
    while (within >= lengths[k]) within -= lengths[k++];
    const int64_t n = std::min(lengths[k] - within, end - pos);
    const uint8_t* src = static_cast<const uint8_t*>(inputs[k]) + o * lengths[k] + within;
    if (copy[k]) {
      std::memcpy(out + pos, src, static_cast<size_t>(n));
    } else {
      LookupBytes(tables[k].data(), src, out + pos, n);
    }
    pos += n;
  }
}

}  // namespace nxrt::cpu::contrib
