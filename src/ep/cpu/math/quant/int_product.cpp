// ep/cpu/math/quant/int_product.cpp: MatMulInteger, QLinearMatMul, ConvInteger and QLinearConv on
// oneDNN's u8 x s8 -> s32 matmul, with ONNX Runtime's zero-point sums, int16 pair saturation and
// requantization (see quant.h).
// Layer: nxrt_cpu_math.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <new>
#include <string>
#include <type_traits>
#include <unordered_map>

#include <immintrin.h>
#include <omp.h>

#include "core/cpu_features.h"
#include "ep/cpu/math/element_types.h"
#include "ep/cpu/math/nn/dnnl_threads.h"
#include "ep/cpu/math/nn/dnnl_util.h"
#include "ep/cpu/math/nn_common.h"
#include "ep/cpu/math/quant/quant.h"

namespace nxrt::cpu::nn {

struct IntGemm {
  int64_t m = 0, k = 0, n = 0;
  bool split = false;     // the right operand is [hi | lo], 2n columns
  int64_t columns = 0;    // n, or 2n when split
  int threads = 1;
  dnnl::matmul primitive;
  dnnl::memory::desc src_md, weights_md, plain_weights_md, dst_md, scratchpad_md;
};

// A constant right operand of an exact pairing in 16 bits for the AVX2 product (Int16Panels):
// panels of 16 columns, each [ceil(K / 2)][16][2] (the pair k = 2p, 2p + 1 of each column side by
// side, zeros past K and N), and its per-column sums over k.
struct Int16Operand {
  int64_t panels = 0, pairs = 0;
  std::vector<int16_t> data;
  std::vector<int32_t> sums;
};

struct PackedIntOperand {
  struct Free {
    void operator()(std::byte* p) const { ::operator delete[](p, std::align_val_t{64}); }
  };
  std::unique_ptr<std::byte[], Free> data;  // in the primitive's weights layout
  std::vector<int32_t> sums;                // per column: sum over k of the converted operand
};

namespace {

using dt = dnnl::memory::data_type;

// How one product converts its operands (quant.h): ORT's pairs saturate when the left operand is
// uint8 and the right one int8; otherwise the left is offset into uint8 and the right into int8
// and split.
struct Conversion {
  bool saturate = false;
  int32_t left_shift = 0;   // added to the left operand: 128 for int8
  int32_t right_shift = 0;  // added to the right operand: -128 for uint8 (exact products only)
};

Conversion ConversionFor(DataType left, DataType right) {
  Conversion c;
  c.saturate = left == DataType::kUint8 && right == DataType::kInt8;
  c.left_shift = left == DataType::kInt8 ? 128 : 0;
  c.right_shift = right == DataType::kUint8 ? -128 : 0;
  if (c.saturate) c.left_shift = c.right_shift = 0;
  return c;
}

// Whether oneDNN's uint8 x int8 products are exact: its int8 kernels add four products into int32
// with VPDPBUSD where the CPU has VNNI (AVX512-VNNI, AMX, AVX-VNNI) and ONEDNN_MAX_CPU_ISA allows
// it; elsewhere they add pairs into a saturating int16 (VPMADDUBSW). Checked once.
bool DnnlIntProductsExact() {
  static const bool exact = [] {
    if (!CpuHasVnni()) return false;
    using isa = dnnl::cpu_isa;
    const isa effective = dnnl::get_effective_cpu_isa();
    return effective == isa::avx512_core_vnni || effective == isa::avx512_core_bf16 ||
           effective == isa::avx512_core_amx || effective == isa::avx2_vnni;
  }();
  return exact;
}

// Whether an exact product splits its right operand into [hi | lo] (quant.h): only where oneDNN's
// pairs saturate. Without the split the packed weights and the raw products take half the
// memory (ResNet-18's ConvInteger weights: 22 -> 11 MB) and the products half the work.
bool SplitRight(const Conversion& conv) { return !conv.saturate && !DnnlIntProductsExact(); }

// The conversion of a Conv's X (left) and W (right). ORT's QLinearConv has X on the left too; its
// ConvInteger has W on the left, so its only saturating case (uint8 W, int8 X) runs with W on the
// left (IntConvPlan::weights_left) and every other one is exact here.
Conversion ConvConversion(const IntConvPlan& p) {
  // ORT's QLinearConv runs a depthwise convolution (one input and one output channel per
  // group) on a kernel of its own that does not saturate.
  const bool depthwise =
      p.in_channels == p.group && p.out_channels == p.group;
  if (p.y_dtype != DataType::kInt32 && !depthwise) return ConversionFor(p.x_dtype, p.w_dtype);
  Conversion c;
  c.left_shift = p.x_dtype == DataType::kInt8 ? 128 : 0;
  c.right_shift = p.w_dtype == DataType::kUint8 ? -128 : 0;
  return c;
}

// Creates C [m, columns] (s32, row-major) = A [m, k] (u8, row-major) x B [k, columns] (s8): B's
// layout oneDNN's choice for a constant B (packed once), else row-major.
Result<std::shared_ptr<const IntGemm>> CreateIntGemm(int64_t m, int64_t k, int64_t n, bool split,
                                                     bool constant_b, int threads) {
  auto g = std::make_shared<IntGemm>();
  g->m = m;
  g->k = k;
  g->n = n;
  g->split = split;
  g->columns = split ? 2 * n : n;
  g->threads = DnnlThreadsFor(m * k * g->columns, threads);
  NXRT_ASSIGN_OR_RETURN(dnnl::engine engine, DnnlEngine());
  try {
    SetDnnlThreads(g->threads);
    const dnnl::memory::dims src{m, k}, weights{k, g->columns}, dst{m, g->columns};
    g->src_md = dnnl::memory::desc(src, dt::u8, dnnl::memory::format_tag::ab);
    g->plain_weights_md = dnnl::memory::desc(weights, dt::s8, dnnl::memory::format_tag::ab);
    const dnnl::memory::desc weights_md =
        constant_b ? dnnl::memory::desc(weights, dt::s8, dnnl::memory::format_tag::any)
                   : g->plain_weights_md;
    g->dst_md = dnnl::memory::desc(dst, dt::s32, dnnl::memory::format_tag::ab);
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(g->src_md, weights_md, g->dst_md), attr,
                                    engine);
    g->weights_md = pd.weights_desc();
    g->scratchpad_md = pd.scratchpad_desc();
    g->primitive = dnnl::matmul(pd);
  } catch (const dnnl::error& e) {
    return DnnlErrorStatus("integer matmul", e);
  }
  return std::shared_ptr<const IntGemm>(std::move(g));
}

// c = a x b on the gemm; `b` in gemm.weights_md's layout.
Status RunIntGemm(const IntGemm& gemm, const uint8_t* a, const void* b, int32_t* c,
                  std::byte* scratchpad) {
  NXRT_ASSIGN_OR_RETURN(dnnl::engine engine, DnnlEngine());
  NXRT_ASSIGN_OR_RETURN(dnnl::stream * stream, DnnlStream());
  try {
    SetDnnlThreads(gemm.threads);
    dnnl::memory src(gemm.src_md, engine, const_cast<uint8_t*>(a));
    dnnl::memory weights(gemm.weights_md, engine, const_cast<void*>(b));
    dnnl::memory dst(gemm.dst_md, engine, c);
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst}};
    if (gemm.scratchpad_md.get_size() > 0) {
      args.emplace(DNNL_ARG_SCRATCHPAD, dnnl::memory(gemm.scratchpad_md, engine, scratchpad));
    }
    gemm.primitive.execute(*stream, args);
    stream->wait();
  } catch (const dnnl::error& e) {
    return DnnlErrorStatus("integer matmul", e);
  }
  return Status::Ok();
}

// The right operand converted (offset, split into [hi | lo] when the product is exact) into
// `out` [k, columns] row-major, and its per-column sums over k before the split. at(kk, j) reads
// the original element as int32.
template <typename At>
void ConvertRight(const IntGemm& gemm, const Conversion& conv, At&& at, int8_t* out,
                  int32_t* sums) {
  const int64_t n = gemm.n, columns = gemm.columns;
  std::fill(sums, sums + n, 0);
  for (int64_t kk = 0; kk < gemm.k; ++kk) {
    int8_t* row = out + kk * columns;
    for (int64_t j = 0; j < n; ++j) {
      const int32_t v = at(kk, j) + conv.right_shift;
      sums[j] += v;
      if (gemm.split) {
        const int32_t hi = v >> 1;  // arithmetic: floor(v / 2), in [-64, 63]
        row[j] = static_cast<int8_t>(hi);
        row[n + j] = static_cast<int8_t>(v - 2 * hi);
      } else {
        row[j] = static_cast<int8_t>(v);
      }
    }
  }
}

// A constant right operand converted and reordered into the gemm's weights layout.
template <typename At>
Result<std::shared_ptr<const PackedIntOperand>> PackRight(const IntGemm& gemm,
                                                          const Conversion& conv, At&& at) {
  auto packed = std::make_shared<PackedIntOperand>();
  packed->sums.resize(static_cast<size_t>(gemm.n));
  std::vector<int8_t> plain(static_cast<size_t>(gemm.k * gemm.columns));
  ConvertRight(gemm, conv, at, plain.data(), packed->sums.data());
  const size_t bytes = std::max<size_t>(gemm.weights_md.get_size(), 1);
  packed->data.reset(new (std::align_val_t{64}) std::byte[bytes]);
  NXRT_ASSIGN_OR_RETURN(dnnl::engine engine, DnnlEngine());
  NXRT_ASSIGN_OR_RETURN(dnnl::stream * stream, DnnlStream());
  try {
    dnnl::memory from(gemm.plain_weights_md, engine, plain.data());
    dnnl::memory to(gemm.weights_md, engine, packed->data.get());
    dnnl::reorder(from, to).execute(*stream, from, to);
    stream->wait();
  } catch (const dnnl::error& e) {
    return DnnlErrorStatus("packing integer weights", e);
  }
  return std::shared_ptr<const PackedIntOperand>(std::move(packed));
}

int32_t LoadInt8(DataType dtype, const void* p, int64_t i) {
  if (p == nullptr) return 0;
  return dtype == DataType::kInt8 ? static_cast<const int8_t*>(p)[i]
                                  : static_cast<const uint8_t*>(p)[i];
}

float LoadScale(DataType dtype, const void* p, int64_t i) {
  float scale = 0;
  math::VisitType(math::TypeList<float, Float16, BFloat16>{}, dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    scale = static_cast<float>(static_cast<const T*>(p)[i]);
  });
  return scale;
}

// The corrected sum: raw - za * sum_b - zb * sum_a + k * za * zb, wrapping like ORT's int32.
inline int32_t Correct(int64_t raw, int64_t za, int64_t zb, int64_t sum_a, int64_t sum_b,
                       int64_t k) {
  return static_cast<int32_t>(raw - za * sum_b - zb * sum_a + k * za * zb);
}

// The raw product of element (i, j) of a [rows, columns] result (2 hi + lo when split).
inline int64_t Raw(const IntGemm& gemm, const int32_t* c, int64_t i, int64_t j) {
  const int32_t* row = c + i * gemm.columns;
  return gemm.split ? 2 * static_cast<int64_t>(row[j]) + row[gemm.n + j] : row[j];
}

// ORT's requantization (MlasRequantizeOutput): float(acc) * multiplier, rounded half to even,
// plus the zero point, saturated to Q.
template <typename Q>
inline Q Requantize(int32_t acc, float multiplier, int32_t zero_point) {
  constexpr float kLo = static_cast<float>(std::numeric_limits<Q>::min());
  constexpr float kHi = static_cast<float>(std::numeric_limits<Q>::max());
  float v = static_cast<float>(acc) * multiplier;
  v = std::min(std::max(v, kLo - static_cast<float>(zero_point)),
               kHi - static_cast<float>(zero_point));
  return static_cast<Q>(static_cast<int32_t>(std::nearbyint(v)) + zero_point);
}

// What turns one row of raw products into output values (quant.h): per column j the right
// operand's converted zero point zb[j] and sum sum_b[j]; for QLinear outputs the bias (or null),
// the multiplier and the output zero point; for float outputs the multiplier and the float bias
// (or null).
struct RowEpilogue {
  int64_t n = 0;
  bool split = false;  // the row holds hi [0, n) and lo [n, 2n)
  int32_t k = 0;
  const int32_t* zb = nullptr;
  const int32_t* sum_b = nullptr;
  DataType y_dtype = DataType::kInt32;  // int32: no requantization
  const int32_t* bias = nullptr;
  const float* multiplier = nullptr;
  const int32_t* y_zero_point = nullptr;  // per column
  const float* float_bias = nullptr;
};

// Wrapping int32 arithmetic, as ORT's.
inline int32_t Wrap(int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v))); }

template <typename Q>
void RowScalar(const RowEpilogue& e, const int32_t* raw, int32_t za, int32_t sum_a, Q* out,
               int64_t begin) {
  for (int64_t j = begin; j < e.n; ++j) {
    const int64_t r = e.split ? 2 * static_cast<int64_t>(raw[j]) + raw[e.n + j] : raw[j];
    int32_t acc = Correct(r, za, e.zb[j], sum_a, e.sum_b[j], e.k);
    if constexpr (std::is_same_v<Q, int32_t>) {
      out[j] = acc;
    } else if constexpr (std::is_same_v<Q, float>) {
      // MLAS's scale-bias output processor: a multiply, then an add.
      const float v = static_cast<float>(acc) * e.multiplier[j];
      out[j] = e.float_bias != nullptr ? v + e.float_bias[j] : v;
    } else {
      if (e.bias != nullptr) acc = Wrap(static_cast<int64_t>(acc) + e.bias[j]);
      out[j] = Requantize<Q>(acc, e.multiplier[j], e.y_zero_point[j]);
    }
  }
}

// The AVX2 build of RowScalar, 8 columns a step; returns the columns done (the rest go to
// RowScalar, which computes the same values).
template <typename Q>
__attribute__((target("avx2"))) int64_t RowAvx2(const RowEpilogue& e, const int32_t* raw,
                                                int32_t za, int32_t sum_a, Q* out) {
  const __m256i vza = _mm256_set1_epi32(za);
  const __m256i vsum_a = _mm256_set1_epi32(sum_a);
  const __m256i vk_za = _mm256_set1_epi32(Wrap(static_cast<int64_t>(e.k) * za));
  const __m256 vlo = _mm256_set1_ps(static_cast<float>(std::numeric_limits<Q>::min()));
  const __m256 vhi = _mm256_set1_ps(static_cast<float>(std::numeric_limits<Q>::max()));
  int64_t j = 0;
  for (; j + 8 <= e.n; j += 8) {
    __m256i r = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(raw + j));
    if (e.split) {
      const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(raw + e.n + j));
      r = _mm256_add_epi32(_mm256_add_epi32(r, r), lo);
    }
    const __m256i zb = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(e.zb + j));
    const __m256i sum_b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(e.sum_b + j));
    // raw - za * sum_b - zb * sum_a + k * za * zb
    __m256i acc = _mm256_sub_epi32(r, _mm256_mullo_epi32(vza, sum_b));
    acc = _mm256_sub_epi32(acc, _mm256_mullo_epi32(zb, vsum_a));
    acc = _mm256_add_epi32(acc, _mm256_mullo_epi32(vk_za, zb));
    if constexpr (std::is_same_v<Q, int32_t>) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + j), acc);
    } else if constexpr (std::is_same_v<Q, float>) {
      __m256 v = _mm256_mul_ps(_mm256_cvtepi32_ps(acc), _mm256_loadu_ps(e.multiplier + j));
      if (e.float_bias != nullptr) v = _mm256_add_ps(v, _mm256_loadu_ps(e.float_bias + j));
      _mm256_storeu_ps(out + j, v);
    } else {
      if (e.bias != nullptr) {
        acc = _mm256_add_epi32(acc, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(e.bias + j)));
      }
      const __m256i vzp = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(e.y_zero_point + j));
      const __m256 fzp = _mm256_cvtepi32_ps(vzp);
      __m256 v = _mm256_mul_ps(_mm256_cvtepi32_ps(acc), _mm256_loadu_ps(e.multiplier + j));
      v = _mm256_min_ps(_mm256_max_ps(v, _mm256_sub_ps(vlo, fzp)), _mm256_sub_ps(vhi, fzp));
      const __m256i q = _mm256_add_epi32(_mm256_cvtps_epi32(v), vzp);
      // 8 values in [lo, hi]: to 16 then 8 bits, lanes back in order.
      const __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
      const __m128i b = std::is_same_v<Q, uint8_t> ? _mm_packus_epi16(w, w) : _mm_packs_epi16(w, w);
      _mm_storel_epi64(reinterpret_cast<__m128i*>(out + j), b);
    }
  }
  return j;
}

// One row of outputs (`out` of e.y_dtype) from one row of raw products.
void EpilogueRow(const RowEpilogue& e, const int32_t* raw, int32_t za, int32_t sum_a, void* out) {
  const auto run = [&](auto* typed) {
    using Q = std::remove_pointer_t<decltype(typed)>;
    const int64_t done = CpuHasAvx2() ? RowAvx2<Q>(e, raw, za, sum_a, typed) : 0;
    RowScalar<Q>(e, raw, za, sum_a, typed, done);
  };
  switch (e.y_dtype) {
    case DataType::kInt8: run(static_cast<int8_t*>(out)); break;
    case DataType::kUint8: run(static_cast<uint8_t*>(out)); break;
    case DataType::kFloat: run(static_cast<float*>(out)); break;
    default: run(static_cast<int32_t*>(out)); break;
  }
}

// Row sums of a [rows, k] uint8 matrix.
void RowSums(const uint8_t* a, int64_t rows, int64_t k, int32_t* sums) {
  for (int64_t i = 0; i < rows; ++i) {
    int32_t s = 0;
    const uint8_t* row = a + i * k;
    for (int64_t kk = 0; kk < k; ++kk) s += row[kk];
    sums[i] = s;
  }
}

// Workspace carving: consecutive 64-byte aligned regions.
struct Carver {
  std::byte* base;
  size_t offset = 0;
  template <typename T>
  T* Take(int64_t count) {
    T* p = reinterpret_cast<T*>(base + offset);
    offset += Align64(static_cast<size_t>(count) * sizeof(T));
    return p;
  }
};

// ---- MatMul ----

// The exact pairings with a constant B on AVX2: both operands as they are in 16 bits, products of
// pairs of k added into int32 by VPMADDWD (exact: at most 2 * 255 * 255), the sums wrapping in
// int32 as ORT's. A row's pairs are read as one int32 each.
constexpr int kInt16Rows = 4;  // 8 accumulators, 2 of B and 4 of A: 14 of the 16 registers

std::shared_ptr<const Int16Operand> PackInt16(DataType dtype, const void* b, int64_t k,
                                              int64_t n) {
  auto packed = std::make_shared<Int16Operand>();
  packed->panels = (n + 15) / 16;
  packed->pairs = (k + 1) / 2;
  packed->data.assign(static_cast<size_t>(packed->panels * packed->pairs * 32), 0);
  packed->sums.assign(static_cast<size_t>(n), 0);
  for (int64_t kk = 0; kk < k; ++kk) {
    for (int64_t j = 0; j < n; ++j) {
      const int32_t v = LoadInt8(dtype, b, kk * n + j);
      packed->sums[static_cast<size_t>(j)] += v;
      const int64_t at = ((j / 16 * packed->pairs + kk / 2) * 16 + j % 16) * 2 + kk % 2;
      packed->data[static_cast<size_t>(at)] = static_cast<int16_t>(v);
    }
  }
  return packed;
}

// a_pairs [rows][pairs]: each row of A as int32 words holding the int16 pair (a[2p], a[2p + 1]).
void PairRows(DataType dtype, const void* a, int64_t rows, int64_t k, int64_t pairs,
              int32_t* a_pairs, int32_t* sums) {
  for (int64_t r = 0; r < rows; ++r) {
    int32_t sum = 0;
    for (int64_t p = 0; p < pairs; ++p) {
      const int32_t lo = LoadInt8(dtype, a, r * k + 2 * p);
      const int32_t hi = 2 * p + 1 < k ? LoadInt8(dtype, a, r * k + 2 * p + 1) : 0;
      sum += lo + hi;
      a_pairs[r * pairs + p] = static_cast<int32_t>((static_cast<uint32_t>(lo) & 0xFFFFu) |
                                                    (static_cast<uint32_t>(hi) << 16));
    }
    sums[r] = sum;
  }
}

// raw[r][c] (c < width) for R rows of `count` pairs of a_pairs (rows `lda` apart) and as many
// pairs of a panel of B; added to raw's values when `accumulate`.
template <int R>
__attribute__((target("avx2"))) void Int16Block(const int32_t* a_pairs, int64_t lda,
                                                int64_t count, const int16_t* panel,
                                                int32_t* raw, int64_t ldr, int64_t width,
                                                bool accumulate) {
  // Fully unrolled over the rows, so that the 2R accumulators stay in registers.
  __m256i acc[R][2];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_si256();
#pragma GCC unroll 2
  for (int64_t p = 0; p < count; ++p) {
    const __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel + 32 * p));
    const __m256i b1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel + 32 * p + 16));
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const __m256i a = _mm256_set1_epi32(a_pairs[r * lda + p]);
      acc[r][0] = _mm256_add_epi32(_mm256_madd_epi16(a, b0), acc[r][0]);
      acc[r][1] = _mm256_add_epi32(_mm256_madd_epi16(a, b1), acc[r][1]);
    }
  }
  for (int r = 0; r < R; ++r) {
    alignas(32) int32_t row[16] = {};
    int32_t* out = raw + r * ldr;
    if (accumulate) std::copy(out, out + width, row);
    _mm256_store_si256(reinterpret_cast<__m256i*>(row),
                       _mm256_add_epi32(acc[r][0], _mm256_load_si256(
                                                       reinterpret_cast<const __m256i*>(row))));
    _mm256_store_si256(reinterpret_cast<__m256i*>(row + 8),
                       _mm256_add_epi32(acc[r][1], _mm256_load_si256(
                                                       reinterpret_cast<const __m256i*>(row + 8))));
    std::copy(row, row + width, out);
  }
}

// raw [rows, n] = A x B from a_pairs and the packed B, panels spread over `threads`. K goes in
// chunks of kInt16Pairs pairs, so that a panel's chunk (8 KiB) and a block of A's rows stay in L1.
constexpr int64_t kInt16Pairs = 128;

void Int16Product(const Int16Operand& b, const int32_t* a_pairs, int64_t rows, int64_t n,
                  int32_t* raw, int threads) {
  const int64_t row_blocks = (rows + kInt16Rows - 1) / kInt16Rows;
#pragma omp parallel for num_threads(threads) if (threads > 1) schedule(static)
  for (int64_t panel = 0; panel < b.panels; ++panel) {
    const int64_t width = std::min<int64_t>(16, n - 16 * panel);
    for (int64_t p0 = 0; p0 < b.pairs; p0 += kInt16Pairs) {
      const int64_t count = std::min(kInt16Pairs, b.pairs - p0);
      const int16_t* packed = b.data.data() + (panel * b.pairs + p0) * 32;
      for (int64_t block = 0; block < row_blocks; ++block) {
        const int64_t r0 = block * kInt16Rows;
        const int32_t* a = a_pairs + r0 * b.pairs + p0;
        int32_t* out = raw + r0 * n + 16 * panel;
        const bool more = p0 > 0;
        switch (std::min<int64_t>(kInt16Rows, rows - r0)) {
          case 4: Int16Block<4>(a, b.pairs, count, packed, out, n, width, more); break;
          case 3: Int16Block<3>(a, b.pairs, count, packed, out, n, width, more); break;
          case 2: Int16Block<2>(a, b.pairs, count, packed, out, n, width, more); break;
          default: Int16Block<1>(a, b.pairs, count, packed, out, n, width, more); break;
        }
      }
    }
  }
}

// Workspace: [scratchpad | A as uint8 | B converted (when not packed) | B sums | A sums | zb' |
// raw products].
size_t MatMulWorkspace(const IntMatMulPlan& p, bool packed) {
  if (p.int16_b != nullptr) {
    // [A's pairs | A sums | zb | raw [m, n]]
    return Align64(static_cast<size_t>(p.m * p.int16_b->pairs) * sizeof(int32_t)) +
           2 * Align64(static_cast<size_t>(std::max(p.m, p.n)) * sizeof(int32_t)) +
           Align64(static_cast<size_t>(p.m * p.n) * sizeof(int32_t));
  }
  const IntGemm& g = *p.gemm;
  size_t bytes = Align64(g.scratchpad_md.get_size());
  bytes += Align64(static_cast<size_t>(p.m * p.k));
  if (!packed) bytes += Align64(static_cast<size_t>(p.k * g.columns));
  bytes += 3 * Align64(static_cast<size_t>(std::max(p.m, p.n)) * sizeof(int32_t));
  bytes += Align64(static_cast<size_t>(p.m * g.columns) * sizeof(int32_t));
  return bytes;
}

template <typename B>
auto MatrixAt(const B* b, int64_t n) {
  return [b, n](int64_t kk, int64_t j) { return static_cast<int32_t>(b[kk * n + j]); };
}

}  // namespace

Result<IntMatMulPlan> PrepareIntMatMul(std::string_view op, DataType a_dtype, DataType b_dtype,
                                       std::span<const int64_t> a_shape,
                                       std::span<const int64_t> b_shape,
                                       std::span<const int64_t> a_param_shape,
                                       std::span<const int64_t> b_param_shape,
                                       const IntProductOptions& options) {
  IntMatMulPlan plan;
  plan.a_dtype = a_dtype;
  plan.b_dtype = b_dtype;
  for (DataType t : {a_dtype, b_dtype}) {
    if (t != DataType::kInt8 && t != DataType::kUint8) {
      return MakeStatus(StatusCode::kUnsupported, op, ": operand type ", DataTypeName(t),
                        " is not supported (int8 or uint8)");
    }
  }
  if (a_shape.empty() || b_shape.empty()) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": operands of rank 0 (A ",
                      Str(a_shape), ", B ", Str(b_shape), "); MatMul needs rank >= 1");
  }
  Shape as(a_shape.begin(), a_shape.end()), bs(b_shape.begin(), b_shape.end());
  const bool a_vector = as.size() == 1, b_vector = bs.size() == 1;
  if (a_vector) as.insert(as.begin(), 1);
  if (b_vector) bs.push_back(1);
  plan.m = as[as.size() - 2];
  plan.k = as.back();
  plan.n = bs.back();
  if (bs[bs.size() - 2] != plan.k) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": A ", Str(a_shape), " and B ",
                      Str(b_shape), " disagree on K (", plan.k, " vs ", bs[bs.size() - 2], ")");
  }
  Shape ab(as.begin(), as.end() - 2), bb(bs.begin(), bs.end() - 2);
  const size_t rank = std::max(ab.size(), bb.size());
  Shape ap(rank - ab.size(), 1), bp(rank - bb.size(), 1);
  ap.insert(ap.end(), ab.begin(), ab.end());
  bp.insert(bp.end(), bb.begin(), bb.end());
  Shape batch(rank);
  for (size_t d = 0; d < rank; ++d) {
    if (ap[d] != bp[d] && ap[d] != 1 && bp[d] != 1) {
      return MakeStatus(StatusCode::kInvalidArgument, op, ": batch dims of A ", Str(a_shape),
                        " and B ", Str(b_shape), " do not broadcast");
    }
    batch[d] = ap[d] == 1 ? bp[d] : ap[d];
  }
  const int64_t batches = Product(batch);
  for (int64_t i = 0; i < batches; ++i) {
    int64_t rem = i, ai = 0, bi = 0, a_stride = 1, b_stride = 1;
    for (size_t d = rank; d-- > 0;) {
      const int64_t idx = rem % batch[d];
      rem /= batch[d];
      ai += (ap[d] == 1 ? 0 : idx) * a_stride;
      bi += (bp[d] == 1 ? 0 : idx) * b_stride;
      a_stride *= ap[d];
      b_stride *= bp[d];
    }
    plan.a_batch.push_back(ai);
    plan.b_batch.push_back(bi);
  }
  plan.output_shape = batch;
  if (!a_vector) plan.output_shape.push_back(plan.m);
  if (!b_vector) plan.output_shape.push_back(plan.n);

  const int64_t a_params = Product(a_param_shape), b_params = Product(b_param_shape);
  const int64_t a_batches = Product(ab), b_batches = Product(bb);
  if (a_params == plan.m && a_params != 1 && a_param_shape.size() <= 1) {
    plan.a_param = {0, 1};
  } else if (a_params == a_batches * plan.m && a_params != 1 && a_param_shape.size() == as.size() &&
             a_param_shape.back() == 1) {
    plan.a_param = {plan.m, 1};
  } else if (a_params != 1) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": A's zero point/scale has shape ",
                      Str(a_param_shape), "; expected one element, [", plan.m,
                      "] or A's batch dims with [", plan.m, ", 1] (A ", Str(a_shape), ")");
  }
  if (b_params == plan.n && b_params != 1 && b_param_shape.size() <= 1) {
    plan.b_param = {0, 1};
  } else if (b_params == b_batches * plan.n && b_params != 1 &&
             b_param_shape.size() == bs.size() && b_param_shape[b_param_shape.size() - 2] == 1) {
    plan.b_param = {plan.n, 1};
  } else if (b_params != 1) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": B's zero point/scale has shape ",
                      Str(b_param_shape), "; expected one element, [", plan.n,
                      "] or B's batch dims with [1, ", plan.n, "] (B ", Str(b_shape), ")");
  }
  if (batches == 0 || plan.m == 0 || plan.n == 0) return plan;

  const Conversion conv = ConversionFor(a_dtype, b_dtype);
  plan.threads = std::max(options.threads, 1);
  // The 16-bit product replaces the split only: with VNNI oneDNN's unsplit int8 product is exact
  // and several times faster (128x768x3072 at one thread, loaded: 22 ms in 16 bits).
  if (SplitRight(conv) && options.constant_b != nullptr && b_batches == 1 && CpuHasAvx2()) {
    plan.int16_b = PackInt16(b_dtype, options.constant_b, plan.k, plan.n);
    plan.workspace_bytes = MatMulWorkspace(plan, true);
    return plan;
  }
  NXRT_ASSIGN_OR_RETURN(plan.gemm, CreateIntGemm(plan.m, plan.k, plan.n, SplitRight(conv),
                                                 options.constant_b != nullptr, plan.threads));
  if (options.constant_b != nullptr) {
    for (int64_t b = 0; b < b_batches; ++b) {
      std::shared_ptr<const PackedIntOperand> packed;
      if (b_dtype == DataType::kInt8) {
        const int8_t* base = static_cast<const int8_t*>(options.constant_b) + b * plan.k * plan.n;
        NXRT_ASSIGN_OR_RETURN(packed, PackRight(*plan.gemm, conv, MatrixAt(base, plan.n)));
      } else {
        const uint8_t* base = static_cast<const uint8_t*>(options.constant_b) + b * plan.k * plan.n;
        NXRT_ASSIGN_OR_RETURN(packed, PackRight(*plan.gemm, conv, MatrixAt(base, plan.n)));
      }
      plan.packed_b.push_back(std::move(packed));
    }
  }
  plan.workspace_bytes = MatMulWorkspace(plan, !plan.packed_b.empty());
  return plan;
}

Status IntMatMul(const IntMatMulPlan& plan, const QuantOperands& q, void* y,
                 std::span<std::byte> workspace) {
  if (plan.gemm == nullptr && plan.int16_b == nullptr) return Status::Ok();
  if (workspace.size() < plan.workspace_bytes) {
    return MakeStatus(StatusCode::kInvalidArgument, "integer MatMul: workspace of ",
                      workspace.size(), " bytes, expected ", plan.workspace_bytes);
  }
  const bool in_int16 = plan.int16_b != nullptr;
  // The 16-bit product takes the operands as they are.
  const Conversion conv = in_int16 ? Conversion{} : ConversionFor(plan.a_dtype, plan.b_dtype);
  const int64_t m = plan.m, k = plan.k, n = plan.n;
  const int64_t longest = std::max(m, n);
  Carver carve{workspace.data()};
  std::byte* scratchpad = nullptr;
  uint8_t* a_u8 = nullptr;
  int8_t* b_converted = nullptr;
  int32_t *a_pairs = nullptr, *b_sums = nullptr;
  int64_t columns = n;  // of a row of raw products
  if (in_int16) {
    a_pairs = carve.Take<int32_t>(m * plan.int16_b->pairs);
  } else {
    const IntGemm& g = *plan.gemm;
    scratchpad = carve.Take<std::byte>(static_cast<int64_t>(g.scratchpad_md.get_size()));
    a_u8 = carve.Take<uint8_t>(m * k);
    b_converted = plan.packed_b.empty() ? carve.Take<int8_t>(k * g.columns) : nullptr;
    b_sums = carve.Take<int32_t>(longest);
    columns = g.columns;
  }
  int32_t* a_sums = carve.Take<int32_t>(longest);
  int32_t* zb = carve.Take<int32_t>(longest);
  int32_t* raw = carve.Take<int32_t>(m * columns);
  // Scaled outputs: QLinearMatMul's (requantized) and float ones.
  const bool requantize = plan.y_dtype != DataType::kInt32;
  const bool float_out = plan.y_dtype == DataType::kFloat;
  std::vector<float> multipliers(requantize ? static_cast<size_t>(n) : 0);
  std::vector<int32_t> y_zero_points(requantize && !float_out ? static_cast<size_t>(n) : 0);
  for (int64_t j = 0; j < static_cast<int64_t>(y_zero_points.size()); ++j) {
    y_zero_points[static_cast<size_t>(j)] =
        LoadInt8(plan.y_dtype, q.y_zero_point, j * plan.y_param_stride);
  }
  // ORT's multiplier: a_scale * b_scale, divided by y_scale unless the output is float.
  const auto multiplier = [&](float a_scale, int64_t bb, int64_t j) {
    const float ab = a_scale * LoadScale(q.scale_dtype, q.b_scale, plan.b_param.At(bb, j));
    return float_out ? ab : ab / LoadScale(q.scale_dtype, q.y_scale, j * plan.y_param_stride);
  };
  const size_t y_bytes = plan.y_dtype == DataType::kInt32 || float_out ? 4 : 1;
  RowEpilogue e;
  e.n = n;
  e.split = !in_int16 && plan.gemm->split;
  e.k = static_cast<int32_t>(k);
  e.zb = zb;
  e.y_dtype = plan.y_dtype;
  e.multiplier = multipliers.data();
  e.y_zero_point = y_zero_points.data();
  e.float_bias = q.float_bias;
  for (size_t t = 0; t < plan.a_batch.size(); ++t) {
    const int64_t ab = plan.a_batch[t], bb = plan.b_batch[t];
    if (in_int16) {
      PairRows(plan.a_dtype, static_cast<const uint8_t*>(q.a) + ab * m * k, m, k,
               plan.int16_b->pairs, a_pairs, a_sums);
      const int threads = m * n * k >= (int64_t{1} << 20) ? plan.threads : 1;
      Int16Product(*plan.int16_b, a_pairs, m, n, raw, threads);
      e.sum_b = plan.int16_b->sums.data();
    } else {
      const IntGemm& g = *plan.gemm;
      const uint8_t* a = static_cast<const uint8_t*>(q.a) + ab * m * k;
      if (conv.left_shift != 0) {
        for (int64_t i = 0; i < m * k; ++i) a_u8[i] = static_cast<uint8_t>(a[i] ^ 0x80u);
        a = a_u8;
      }
      RowSums(a, m, k, a_sums);
      const void* b_gemm = nullptr;
      if (!plan.packed_b.empty()) {
        b_gemm = plan.packed_b[static_cast<size_t>(bb)]->data.get();
        e.sum_b = plan.packed_b[static_cast<size_t>(bb)]->sums.data();
      } else {
        if (plan.b_dtype == DataType::kInt8) {
          ConvertRight(g, conv, MatrixAt(static_cast<const int8_t*>(q.b) + bb * k * n, n),
                       b_converted, b_sums);
        } else {
          ConvertRight(g, conv, MatrixAt(static_cast<const uint8_t*>(q.b) + bb * k * n, n),
                       b_converted, b_sums);
        }
        b_gemm = b_converted;
        e.sum_b = b_sums;
      }
      NXRT_RETURN_IF_ERROR(RunIntGemm(g, a, b_gemm, raw, scratchpad));
    }
    for (int64_t j = 0; j < n; ++j) {
      zb[j] = LoadInt8(plan.b_dtype, q.b_zero_point, plan.b_param.At(bb, j)) + conv.right_shift;
    }
    // Rows run in parallel when the multipliers are the same for all (A's scale per tensor).
    const bool shared_scale = plan.a_param.batch_stride == 0 && plan.a_param.position_stride == 0;
    if (requantize && shared_scale) {
      const float a_scale = LoadScale(q.scale_dtype, q.a_scale, 0);
      for (int64_t j = 0; j < n; ++j) {
        multipliers[static_cast<size_t>(j)] = multiplier(a_scale, bb, j);
      }
    }
    if (!requantize || shared_scale) {
      const int threads = m * n >= (int64_t{1} << 15) ? plan.threads : 1;
#pragma omp parallel for num_threads(threads) if (threads > 1)
      for (int64_t i = 0; i < m; ++i) {
        const int32_t za =
            LoadInt8(plan.a_dtype, q.a_zero_point, plan.a_param.At(ab, i)) + conv.left_shift;
        EpilogueRow(e, raw + i * columns, za, a_sums[i],
                    static_cast<std::byte*>(y) +
                        (static_cast<int64_t>(t) * m + i) * n * static_cast<int64_t>(y_bytes));
      }
      continue;
    }
    float last_a_scale = std::numeric_limits<float>::quiet_NaN();
    for (int64_t i = 0; i < m; ++i) {
      const int64_t out_row = static_cast<int64_t>(t) * m + i;
      const int32_t za =
          LoadInt8(plan.a_dtype, q.a_zero_point, plan.a_param.At(ab, i)) + conv.left_shift;
      {
        const float a_scale = LoadScale(q.scale_dtype, q.a_scale, plan.a_param.At(ab, i));
        if (!(a_scale == last_a_scale)) {
          for (int64_t j = 0; j < n; ++j) {
            multipliers[static_cast<size_t>(j)] = multiplier(a_scale, bb, j);
          }
          last_a_scale = a_scale;
        }
      }
      EpilogueRow(e, raw + i * columns, za, a_sums[i],
                  static_cast<std::byte*>(y) + out_row * n * static_cast<int64_t>(y_bytes));
    }
  }
  return Status::Ok();
}

// ---- Conv ----

struct IntDirectConv {
  int64_t columns = 0;  // output channels of the primitives: M, or 2M when W is split
  int64_t padded_h = 0, padded_w = 0;
  int threads = 1;
  // The convolution runs over bands of `band` output rows (the last band may be shorter), so
  // that each band's int32 products are still in cache when the epilogue reads them.
  int64_t band = 0;
  struct Piece {
    int64_t rows = 0;
    dnnl::convolution_forward primitive;
    dnnl::memory::desc src_md, dst_md, scratchpad_md;
  };
  std::vector<Piece> pieces;  // [0]: `band` rows; [1]: the last band's rows, when shorter
  dnnl::memory::desc weights_md, plain_weights_md;
  size_t scratchpad_bytes = 0;
};

namespace {

int64_t InputPixels(const IntConvPlan& p) { return Product(p.input_spatial); }

// One band's workspace of the direct convolution: its scratchpad and raw products.
size_t DirectBandBytes(const IntConvPlan& p) {
  const IntDirectConv& d = *p.direct;
  return Align64(d.scratchpad_bytes) +
         Align64(static_cast<size_t>(d.band * p.geometry.output[1] * d.columns) *
                 sizeof(int32_t));
}

// Workspace.
//   direct:      [one image's X padded channels-last | its channel sums | row sums |
//                 per thread: scratchpad, raw [band rows x W', columns]]
//   W left:      [scratchpad | columns [k, P] | column sums [P] | W sums [Mg] | zb [Mg] |
//                 raw [Mg, P]]
//   W right:     [scratchpad | X channels-last | columns [P, k] | row sums [P] |
//                 W converted (when not packed) | W sums [Mg] | zb [Mg] | raw [P, columns]]
size_t ConvWorkspace(const IntConvPlan& p) {
  const int64_t out_per_group = p.out_channels / p.group;
  if (p.direct != nullptr) {
    const IntDirectConv& d = *p.direct;
    const int64_t padded = d.padded_h * d.padded_w;
    return Align64(static_cast<size_t>(padded * p.in_channels)) +
           Align64(static_cast<size_t>(padded) * sizeof(int32_t)) +
           Align64(static_cast<size_t>(p.output_pixels) * sizeof(int32_t)) +
           static_cast<size_t>(d.threads) * DirectBandBytes(p);
  }
  const IntGemm& g = *p.gemm;
  size_t bytes = Align64(g.scratchpad_md.get_size());
  if (!p.weights_left) bytes += Align64(static_cast<size_t>(InputPixels(p) * p.in_channels));
  bytes += Align64(static_cast<size_t>(p.columns_rows * p.output_pixels));
  bytes += Align64(static_cast<size_t>(p.output_pixels) * sizeof(int32_t));
  if (!p.weights_left && p.packed_w.empty()) {
    bytes += Align64(static_cast<size_t>(p.columns_rows * g.columns));
  }
  bytes += 2 * Align64(static_cast<size_t>(out_per_group) * sizeof(int32_t));
  bytes += Align64(static_cast<size_t>(g.m * g.columns) * sizeof(int32_t));
  return bytes;
}

// W's element (kk, j) of group `group` as the right operand [k, Mg], k ordered as kernel
// position then channel (QLinearConv's, and any order is exact for the other products).
template <typename W>
auto WeightsAt(const IntConvPlan& p, const W* w, int64_t group) {
  const int64_t channels = p.in_channels / p.group;
  const int64_t taps = p.columns_rows / channels;
  const W* base = w + group * (p.out_channels / p.group) * p.columns_rows;
  const int64_t rows = p.columns_rows;
  return [base, channels, taps, rows](int64_t kk, int64_t j) {
    const int64_t tap = kk / channels, c = kk % channels;
    return static_cast<int32_t>(base[j * rows + c * taps + tap]);
  };
}

// For output pixel `o` (flat) and kernel position `tap` (flat): the flat input pixel it reads,
// or -1 in the padding.
struct TapWalker {
  const IntConvPlan& p;
  std::vector<int64_t> out_strides, tap_strides;
  explicit TapWalker(const IntConvPlan& plan) : p(plan) {
    const size_t rank = p.input_spatial.size();
    out_strides.assign(rank, 1);
    tap_strides.assign(rank, 1);
    for (size_t d = rank - 1; d-- > 0;) {
      out_strides[d] = out_strides[d + 1] * p.geometry.output[d + 1];
      tap_strides[d] = tap_strides[d + 1] * p.geometry.kernel[d + 1];
    }
  }
  int64_t Input(int64_t o, int64_t tap) const {
    int64_t offset = 0;
    for (size_t d = 0; d < p.input_spatial.size(); ++d) {
      const int64_t od = (o / out_strides[d]) % p.geometry.output[d];
      const int64_t kd = (tap / tap_strides[d]) % p.geometry.kernel[d];
      const int64_t pos = od * p.geometry.strides[d] - p.geometry.pads_begin[d] +
                          kd * p.geometry.dilations[d];
      if (pos < 0 || pos >= p.input_spatial[d]) return -1;
      offset = offset * p.input_spatial[d] + pos;
    }
    return offset;
  }
};

// oneDNN's u8 x s8 -> s32 convolution of X padded explicitly (so that the padding holds X's zero
// point, as ORT's im2col does) to `columns` output channels, channels-last source and
// destination, per band of output rows; null when oneDNN declines or gives its reference
// implementation.
std::shared_ptr<const IntDirectConv> CreateDirectConv(const IntConvPlan& p, int64_t columns) {
  const WindowGeometry& geo = p.geometry;
  auto d = std::make_shared<IntDirectConv>();
  d->columns = columns;
  d->padded_h = p.input_spatial[0] + geo.pads_begin[0] + geo.pads_end[0];
  d->padded_w = p.input_spatial[1] + geo.pads_begin[1] + geo.pads_end[1];
  // Bands run in parallel, each on one thread (its convolution and its epilogue), so threads
  // meet once per run rather than at every band.
  const int64_t macs = p.batch * p.output_pixels * columns * p.columns_rows;
  d->threads = DnnlThreadsFor(macs, p.threads);
  // About 256 KiB of int32 products per band (half of a core's L2).
  constexpr int64_t kBandBytes = int64_t{256} << 10;
  const int64_t row_bytes = geo.output[1] * columns * static_cast<int64_t>(sizeof(int32_t));
  d->band = std::clamp<int64_t>(kBandBytes / std::max<int64_t>(row_bytes, 1), 1, geo.output[0]);
  // At least one band per thread.
  d->band = std::min(d->band, std::max<int64_t>(1, geo.output[0] / d->threads));
  Result<dnnl::engine> engine = DnnlEngine();
  if (!engine.ok()) return nullptr;
  try {
    SetDnnlThreads(1);
    using tag = dnnl::memory::format_tag;
    const int64_t kh = geo.kernel[0], kw = geo.kernel[1];
    // The converted W as ConvertRight writes it: [k = (c, kh, kw), columns] row-major.
    d->plain_weights_md = dnnl::memory::desc(
        {columns, p.in_channels, kh, kw}, dt::s8,
        dnnl::memory::dims{1, kh * kw * columns, kw * columns, columns});
    const dnnl::memory::desc any_weights({columns, p.in_channels, kh, kw}, dt::s8, tag::any);
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    std::vector<int64_t> heights = {d->band};
    if (geo.output[0] % d->band != 0) heights.push_back(geo.output[0] % d->band);
    for (int64_t rows : heights) {
      IntDirectConv::Piece piece;
      piece.rows = rows;
      const int64_t in_rows = (rows - 1) * geo.strides[0] + (kh - 1) * geo.dilations[0] + 1;
      piece.src_md =
          dnnl::memory::desc({1, p.in_channels, in_rows, d->padded_w}, dt::u8, tag::nhwc);
      piece.dst_md = dnnl::memory::desc({1, columns, rows, geo.output[1]}, dt::s32, tag::nhwc);
      dnnl::convolution_forward::desc desc(
          dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, piece.src_md,
          any_weights, dnnl::memory::desc(), piece.dst_md, {geo.strides[0], geo.strides[1]},
          {geo.dilations[0] - 1, geo.dilations[1] - 1}, {0, 0}, {0, 0});
      dnnl::convolution_forward::primitive_desc pd(desc, attr, *engine);
      if (std::string_view(pd.impl_info_str()).starts_with("ref")) return nullptr;
      // oneDNN halves int8 weights on CPUs without VNNI for signed sources only; a flag here
      // would change the products. Every band must read the same packed weights.
      if (pd.weights_desc().data.extra.flags != 0) return nullptr;
      if (d->pieces.empty()) {
        d->weights_md = pd.weights_desc();
      } else if (pd.weights_desc() != d->weights_md) {
        return nullptr;
      }
      piece.scratchpad_md = pd.scratchpad_desc();
      d->scratchpad_bytes = std::max(d->scratchpad_bytes, piece.scratchpad_md.get_size());
      piece.primitive = dnnl::convolution_forward(pd);
      d->pieces.push_back(std::move(piece));
    }
  } catch (const dnnl::error&) {
    return nullptr;
  }
  return d;
}

// W's element (kk, j) as the direct convolution's right operand [k, M], k ordered as channel
// then kernel position (ONNX's own order).
template <typename W>
auto WeightsByChannelAt(const W* w, int64_t k) {
  return [w, k](int64_t kk, int64_t j) { return static_cast<int32_t>(w[j * k + kk]); };
}

template <typename At>
Result<std::shared_ptr<const PackedIntOperand>> PackDirect(const IntDirectConv& d,
                                                           const IntGemm& shape,
                                                           const Conversion& conv, At&& at) {
  auto packed = std::make_shared<PackedIntOperand>();
  packed->sums.resize(static_cast<size_t>(shape.n));
  std::vector<int8_t> plain(static_cast<size_t>(shape.k * shape.columns));
  ConvertRight(shape, conv, at, plain.data(), packed->sums.data());
  packed->data.reset(new (std::align_val_t{64}) std::byte[std::max<size_t>(
      d.weights_md.get_size(), 1)]);
  NXRT_ASSIGN_OR_RETURN(dnnl::engine engine, DnnlEngine());
  NXRT_ASSIGN_OR_RETURN(dnnl::stream * stream, DnnlStream());
  try {
    dnnl::memory from(d.plain_weights_md, engine, plain.data());
    dnnl::memory to(d.weights_md, engine, packed->data.get());
    dnnl::reorder(from, to).execute(*stream, from, to);
    stream->wait();
  } catch (const dnnl::error& e) {
    return DnnlErrorStatus("packing integer convolution weights", e);
  }
  return std::shared_ptr<const PackedIntOperand>(std::move(packed));
}

}  // namespace

Result<IntConvPlan> PrepareIntConv(std::string_view op, DataType x_dtype, DataType w_dtype,
                                   DataType y_dtype, std::span<const int64_t> x_shape,
                                   std::span<const int64_t> w_shape,
                                   std::span<const int64_t> w_zero_point_shape,
                                   std::span<const int64_t> w_scale_shape,
                                   const IntConvAttributes& attributes,
                                   const IntProductOptions& options) {
  IntConvPlan p;
  p.x_dtype = x_dtype;
  p.w_dtype = w_dtype;
  p.y_dtype = y_dtype;
  for (DataType t : {x_dtype, w_dtype}) {
    if (t != DataType::kInt8 && t != DataType::kUint8) {
      return MakeStatus(StatusCode::kUnsupported, op, ": input type ", DataTypeName(t),
                        " is not supported (int8 or uint8)");
    }
  }
  if (x_shape.size() < 3 || w_shape.size() != x_shape.size()) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": X ", Str(x_shape), " and W ",
                      Str(w_shape), " must have the same rank >= 3 ([N, C, D...], [M, C/group, "
                      "k...])");
  }
  p.group = attributes.group;
  p.batch = x_shape[0];
  p.in_channels = x_shape[1];
  p.out_channels = w_shape[0];
  if (p.group < 1 || p.in_channels != w_shape[1] * p.group || p.out_channels % p.group != 0) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": X ", Str(x_shape), ", W ",
                      Str(w_shape), " and group ", p.group,
                      " disagree (need C == W[1] * group and M divisible by group)");
  }
  const std::span<const int64_t> w_spatial = w_shape.subspan(2);
  if (!attributes.kernel_shape.empty() &&
      !std::equal(attributes.kernel_shape.begin(), attributes.kernel_shape.end(),
                  w_spatial.begin(), w_spatial.end())) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": attribute 'kernel_shape' ",
                      ShapeToString(attributes.kernel_shape), " differs from W's spatial dims ",
                      Str(w_spatial));
  }
  p.input_spatial.assign(x_shape.begin() + 2, x_shape.end());
  WindowAttributes window;
  window.auto_pad = attributes.auto_pad;
  window.strides = attributes.strides;
  window.dilations = attributes.dilations;
  window.pads = attributes.pads;
  NXRT_ASSIGN_OR_RETURN(p.geometry,
                        ComputeWindowGeometry(op, p.input_spatial, w_spatial, window));
  // Per tensor (one element) or per output channel ([M]): the stride of the channel index.
  const auto channel_stride = [&](std::span<const int64_t> shape,
                                  const char* what) -> Result<int64_t> {
    const int64_t count = Product(shape);
    if (count == p.out_channels && count != 1 && shape.size() == 1) return int64_t{1};
    if (count == 1) return int64_t{0};
    return MakeStatus(StatusCode::kInvalidArgument, op, ": ", what, " has shape ", Str(shape),
                      "; expected one element or [", p.out_channels, "]");
  };
  NXRT_ASSIGN_OR_RETURN(p.w_param_stride, channel_stride(w_zero_point_shape, "w zero point"));
  NXRT_ASSIGN_OR_RETURN(p.w_scale_stride, channel_stride(w_scale_shape, "w scale"));
  p.output_shape = {p.batch, p.out_channels};
  p.output_shape.insert(p.output_shape.end(), p.geometry.output.begin(), p.geometry.output.end());
  p.columns_rows = (p.in_channels / p.group) * Product(p.geometry.kernel);
  p.output_pixels = Product(p.geometry.output);
  if (Product(p.output_shape) == 0) return p;

  // ORT's ConvInteger multiplies W (left) by X's columns (right); its QLinearConv X's columns
  // (left) by W (right).
  const bool qlinear = y_dtype != DataType::kInt32;
  p.weights_left = !qlinear && w_dtype == DataType::kUint8 && x_dtype == DataType::kInt8;
  p.threads = std::max(options.threads, 1);
  const int64_t out_per_group = p.out_channels / p.group;
  if (p.weights_left) {
    NXRT_ASSIGN_OR_RETURN(p.gemm, CreateIntGemm(out_per_group, p.columns_rows, p.output_pixels,
                                                false, false, p.threads));
    p.workspace_bytes = ConvWorkspace(p);
    return p;
  }
  const Conversion conv = ConvConversion(p);
  const int64_t channels = p.in_channels / p.group;
  if (options.constant_b != nullptr && p.input_spatial.size() == 2 && p.group == 1 &&
      (!conv.saturate || channels % 2 == 0)) {
    // The shape of the right operand [k, M] (ConvertRight's view of it); its primitive unused.
    IntGemm shape;
    shape.k = p.columns_rows;
    shape.n = p.out_channels;
    shape.split = SplitRight(conv);
    shape.columns = shape.split ? 2 * shape.n : shape.n;
    p.direct = CreateDirectConv(p, shape.columns);
    if (p.direct != nullptr) {
      std::shared_ptr<const PackedIntOperand> packed;
      if (w_dtype == DataType::kInt8) {
        NXRT_ASSIGN_OR_RETURN(
            packed, PackDirect(*p.direct, shape, conv,
                               WeightsByChannelAt(static_cast<const int8_t*>(options.constant_b),
                                                  p.columns_rows)));
      } else {
        NXRT_ASSIGN_OR_RETURN(
            packed, PackDirect(*p.direct, shape, conv,
                               WeightsByChannelAt(static_cast<const uint8_t*>(options.constant_b),
                                                  p.columns_rows)));
      }
      p.packed_w.push_back(std::move(packed));
      p.workspace_bytes = ConvWorkspace(p);
      return p;
    }
  }
  NXRT_ASSIGN_OR_RETURN(p.gemm,
                        CreateIntGemm(p.output_pixels, p.columns_rows, out_per_group,
                                      SplitRight(conv), options.constant_b != nullptr,
                                      p.threads));
  if (options.constant_b != nullptr) {
    for (int64_t g = 0; g < p.group; ++g) {
      std::shared_ptr<const PackedIntOperand> packed;
      if (w_dtype == DataType::kInt8) {
        NXRT_ASSIGN_OR_RETURN(
            packed, PackRight(*p.gemm, conv,
                              WeightsAt(p, static_cast<const int8_t*>(options.constant_b), g)));
      } else {
        NXRT_ASSIGN_OR_RETURN(
            packed, PackRight(*p.gemm, conv,
                              WeightsAt(p, static_cast<const uint8_t*>(options.constant_b), g)));
      }
      p.packed_w.push_back(std::move(packed));
    }
  }
  p.workspace_bytes = ConvWorkspace(p);
  return p;
}

namespace {

// The columns of group `g` of one image for W as the left operand: [k, P] row-major, k ordered
// as channel then kernel position, X's own int8 values (the padding reads x_zp), and the sums
// over k per pixel.
void ColumnsByChannel(const IntConvPlan& p, const TapWalker& walk, const int8_t* x, int8_t x_zp,
                      int8_t* columns, int32_t* sums) {
  const int64_t channels = p.in_channels / p.group;
  const int64_t taps = p.columns_rows / channels;
  const int64_t in_pixels = InputPixels(p);
  const int64_t pixels = p.output_pixels;
  std::fill(sums, sums + pixels, 0);
  for (int64_t c = 0; c < channels; ++c) {
    const int8_t* xc = x + c * in_pixels;
    for (int64_t tap = 0; tap < taps; ++tap) {
      int8_t* row = columns + (c * taps + tap) * pixels;
      for (int64_t o = 0; o < pixels; ++o) {
        const int64_t at = walk.Input(o, tap);
        row[o] = at < 0 ? x_zp : xc[at];
        sums[o] += row[o];
      }
    }
  }
}

// X of one image [C, H, W] as uint8 channels-last [H + pads, W + pads, C] (int8 offset by 128:
// `flip` 0x80), the padding `pad`.
void PadToChannelsLast(const uint8_t* x, int64_t channels, int64_t h, int64_t w, int64_t top,
                       int64_t left, int64_t padded_h, int64_t padded_w, uint8_t flip,
                       uint8_t pad, uint8_t* out, int threads) {
#pragma omp parallel for num_threads(threads) if (threads > 1)
  for (int64_t r = 0; r < padded_h; ++r) {
    uint8_t* row = out + r * padded_w * channels;
    const int64_t source = r - top;
    if (source < 0 || source >= h) {
      std::memset(row, pad, static_cast<size_t>(padded_w * channels));
    } else {
      std::memset(row, pad, static_cast<size_t>(left * channels));
      std::memset(row + (left + w) * channels, pad,
                  static_cast<size_t>((padded_w - left - w) * channels));
      uint8_t* interior = row + left * channels;
      // Eight channels at a time: one 8-byte store per pixel.
      const uint64_t flip8 = 0x0101010101010101ull * flip;
      int64_t c = 0;
      for (; c + 8 <= channels; c += 8) {
        const uint8_t* xc[8];
        for (int i = 0; i < 8; ++i) xc[i] = x + ((c + i) * h + source) * w;
        for (int64_t col = 0; col < w; ++col) {
          uint64_t v = 0;
          for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(xc[i][col]) << (8 * i);
          v ^= flip8;
          std::memcpy(interior + col * channels + c, &v, 8);
        }
      }
      for (; c < channels; ++c) {
        const uint8_t* xc = x + (c * h + source) * w;
        for (int64_t col = 0; col < w; ++col) interior[col * channels + c] = xc[col] ^ flip;
      }
    }
  }
}

// Row `o` of ColumnsByPixel for a 2-D image, walking the kernel rows directly: a kernel row's
// taps inside X are adjacent there when the group has every channel and the dilation is 1, and
// are copied at once (a 7x7 kernel over 3 channels: 7 copies of up to 21 bytes, not 49 lookups).
void PixelRow2d(const IntConvPlan& p, const uint8_t* x_nhwc, int64_t group, uint8_t pad,
                int64_t o, uint8_t* row) {
  const WindowGeometry& geo = p.geometry;
  const int64_t channels = p.in_channels / p.group;
  const int64_t h = p.input_spatial[0], w = p.input_spatial[1];
  const int64_t kh = geo.kernel[0], kw = geo.kernel[1];
  const int64_t first_h = (o / geo.output[1]) * geo.strides[0] - geo.pads_begin[0];
  const int64_t first_w = (o % geo.output[1]) * geo.strides[1] - geo.pads_begin[1];
  const bool adjacent = channels == p.in_channels && geo.dilations[1] == 1;
  for (int64_t i = 0; i < kh; ++i) {
    uint8_t* out = row + i * kw * channels;
    const int64_t ih = first_h + i * geo.dilations[0];
    if (ih < 0 || ih >= h) {
      std::memset(out, pad, static_cast<size_t>(kw * channels));
      continue;
    }
    const uint8_t* x_row = x_nhwc + ih * w * p.in_channels + group * channels;
    if (adjacent) {
      // Taps [j0, j1) fall inside the row.
      const int64_t j0 = std::clamp<int64_t>(-first_w, 0, kw);
      const int64_t j1 = std::clamp<int64_t>(w - first_w, j0, kw);
      std::memset(out, pad, static_cast<size_t>(j0 * channels));
      std::memcpy(out + j0 * channels, x_row + (first_w + j0) * channels,
                  static_cast<size_t>((j1 - j0) * channels));
      std::memset(out + j1 * channels, pad, static_cast<size_t>((kw - j1) * channels));
      continue;
    }
    for (int64_t j = 0; j < kw; ++j) {
      const int64_t iw = first_w + j * geo.dilations[1];
      if (iw < 0 || iw >= w) {
        std::memset(out + j * channels, pad, static_cast<size_t>(channels));
      } else {
        std::memcpy(out + j * channels, x_row + iw * p.in_channels,
                    static_cast<size_t>(channels));
      }
    }
  }
}

// The columns of group `g` for X as the left operand: [P, k] row-major, k ordered as kernel
// position then channel, from channels-last X (the padding reads the converted x_zp), with the
// row sums.
void ColumnsByPixel(const IntConvPlan& p, const TapWalker& walk, const uint8_t* x_nhwc,
                    int64_t group, uint8_t pad, uint8_t* columns, int32_t* sums, int threads) {
  const int64_t channels = p.in_channels / p.group;
  const int64_t taps = p.columns_rows / channels;
  const int64_t k = p.columns_rows;
  const bool planar = p.input_spatial.size() == 2;
#pragma omp parallel for num_threads(threads) if (threads > 1)
  for (int64_t o = 0; o < p.output_pixels; ++o) {
    uint8_t* row = columns + o * k;
    if (planar) {
      PixelRow2d(p, x_nhwc, group, pad, o, row);
    } else {
      for (int64_t tap = 0; tap < taps; ++tap) {
        const int64_t at = walk.Input(o, tap);
        if (at < 0) {
          std::memset(row + tap * channels, pad, static_cast<size_t>(channels));
        } else {
          std::memcpy(row + tap * channels, x_nhwc + at * p.in_channels + group * channels,
                      static_cast<size_t>(channels));
        }
      }
    }
    int32_t s = 0;
    for (int64_t kk = 0; kk < k; ++kk) s += row[kk];
    sums[o] = s;
  }
}

// One output element of channel m at pixel o from the raw products [pixels, columns].
template <typename Q>
inline Q ChannelValue(const RowEpilogue& e, const int32_t* raw, int64_t columns, int64_t o,
                      int64_t m, int32_t za, int32_t sum_a) {
  const int32_t* row = raw + o * columns;
  const int64_t r = e.split ? 2 * static_cast<int64_t>(row[m]) + row[e.n + m] : row[m];
  int32_t acc = Correct(r, za, e.zb[m], sum_a, e.sum_b[m], e.k);
  if constexpr (std::is_same_v<Q, int32_t>) {
    return acc;
  } else {
    if (e.bias != nullptr) acc = Wrap(static_cast<int64_t>(acc) + e.bias[m]);
    return Requantize<Q>(acc, e.multiplier[m], e.y_zero_point[m]);
  }
}

// Pixels [o0, o1) x channels [m0, m1) of the scalar form.
template <typename Q>
void ChannelsScalar(const RowEpilogue& e, const int32_t* raw, int64_t columns, int64_t y_stride,
                    int32_t za, const int32_t* row_sums, Q* y, int64_t o0, int64_t o1, int64_t m0,
                    int64_t m1) {
  for (int64_t m = m0; m < m1; ++m) {
    for (int64_t o = o0; o < o1; ++o) {
      y[m * y_stride + o] =
          ChannelValue<Q>(e, raw, columns, o, m, za, row_sums != nullptr ? row_sums[o] : 0);
    }
  }
}

// The AVX2 form over blocks of 8 pixels x 8 channels: the raw rows of 8 pixels are combined
// (2 hi + lo), transposed to 8 channel vectors of 8 pixels, corrected, requantized and stored
// contiguously into y's channel rows. Returns the pixels done from o0 (multiples of 8 channels
// too; the caller finishes the rest with ChannelsScalar).
template <typename Q>
__attribute__((target("avx2"))) void ChannelsAvx2(const RowEpilogue& e, const int32_t* raw,
                                                  int64_t columns, int64_t y_stride, int32_t za,
                                                  const int32_t* row_sums, Q* y, int64_t o0,
                                                  int64_t o1, int64_t m1) {
  const __m256 vlo = _mm256_set1_ps(static_cast<float>(std::numeric_limits<Q>::min()));
  const __m256 vhi = _mm256_set1_ps(static_cast<float>(std::numeric_limits<Q>::max()));
  for (int64_t o = o0; o + 8 <= o1; o += 8) {
    const __m256i sum_a =
        row_sums != nullptr
            ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row_sums + o))
            : _mm256_setzero_si256();
    for (int64_t m = 0; m + 8 <= m1; m += 8) {
      __m256i r[8];
      for (int i = 0; i < 8; ++i) {
        const int32_t* row = raw + (o + i) * columns + m;
        r[i] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row));
        if (e.split) {
          const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + e.n));
          r[i] = _mm256_add_epi32(_mm256_add_epi32(r[i], r[i]), lo);
        }
      }
      const __m256i t0 = _mm256_unpacklo_epi32(r[0], r[1]), t1 = _mm256_unpackhi_epi32(r[0], r[1]);
      const __m256i t2 = _mm256_unpacklo_epi32(r[2], r[3]), t3 = _mm256_unpackhi_epi32(r[2], r[3]);
      const __m256i t4 = _mm256_unpacklo_epi32(r[4], r[5]), t5 = _mm256_unpackhi_epi32(r[4], r[5]);
      const __m256i t6 = _mm256_unpacklo_epi32(r[6], r[7]), t7 = _mm256_unpackhi_epi32(r[6], r[7]);
      const __m256i u0 = _mm256_unpacklo_epi64(t0, t2), u1 = _mm256_unpackhi_epi64(t0, t2);
      const __m256i u2 = _mm256_unpacklo_epi64(t1, t3), u3 = _mm256_unpackhi_epi64(t1, t3);
      const __m256i u4 = _mm256_unpacklo_epi64(t4, t6), u5 = _mm256_unpackhi_epi64(t4, t6);
      const __m256i u6 = _mm256_unpacklo_epi64(t5, t7), u7 = _mm256_unpackhi_epi64(t5, t7);
      __m256i c[8];
      c[0] = _mm256_permute2x128_si256(u0, u4, 0x20);
      c[1] = _mm256_permute2x128_si256(u1, u5, 0x20);
      c[2] = _mm256_permute2x128_si256(u2, u6, 0x20);
      c[3] = _mm256_permute2x128_si256(u3, u7, 0x20);
      c[4] = _mm256_permute2x128_si256(u0, u4, 0x31);
      c[5] = _mm256_permute2x128_si256(u1, u5, 0x31);
      c[6] = _mm256_permute2x128_si256(u2, u6, 0x31);
      c[7] = _mm256_permute2x128_si256(u3, u7, 0x31);
      for (int j = 0; j < 8; ++j) {
        const int64_t ch = m + j;
        const int32_t zb = e.zb[ch];
        // raw - za * sum_b - zb * sum_a + k * za * zb
        const int32_t constant = Wrap(-static_cast<int64_t>(za) * e.sum_b[ch] +
                                      static_cast<int64_t>(e.k) * za * zb +
                                      (e.bias != nullptr && !std::is_same_v<Q, int32_t>
                                           ? e.bias[ch]
                                           : 0));
        __m256i acc = _mm256_add_epi32(c[j], _mm256_set1_epi32(constant));
        acc = _mm256_sub_epi32(acc, _mm256_mullo_epi32(_mm256_set1_epi32(zb), sum_a));
        Q* out = y + ch * y_stride + o;
        if constexpr (std::is_same_v<Q, int32_t>) {
          _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), acc);
        } else {
          const float zp = static_cast<float>(e.y_zero_point[ch]);
          __m256 v = _mm256_mul_ps(_mm256_cvtepi32_ps(acc), _mm256_set1_ps(e.multiplier[ch]));
          v = _mm256_min_ps(_mm256_max_ps(v, _mm256_sub_ps(vlo, _mm256_set1_ps(zp))),
                            _mm256_sub_ps(vhi, _mm256_set1_ps(zp)));
          const __m256i q =
              _mm256_add_epi32(_mm256_cvtps_epi32(v), _mm256_set1_epi32(e.y_zero_point[ch]));
          // 8 values in [lo, hi]: to 16 then 8 bits, lanes back in order.
          const __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(q),
                                            _mm256_extracti128_si256(q, 1));
          const __m128i b = std::is_same_v<Q, uint8_t> ? _mm_packus_epi16(w, w)
                                                       : _mm_packs_epi16(w, w);
          _mm_storel_epi64(reinterpret_cast<__m128i*>(out), b);
        }
      }
    }
  }
}

// `pixels` pixels of e.n channels of y (NCHW) from raw products [pixels, columns]: element
// (o, m) goes to y[y_offset + m * y_stride + o]. row_sums ([pixels]) may be null (all zb 0).
void EpilogueToChannels(const RowEpilogue& e, const int32_t* raw, int64_t columns,
                        int64_t pixels, int32_t za, const int32_t* row_sums, void* y,
                        int64_t y_offset, int64_t y_stride, int threads) {
  constexpr int64_t kTile = 64;
  const auto run = [&](auto* typed) {
    using Q = std::remove_pointer_t<decltype(typed)>;
    Q* yc = typed + y_offset;
    const bool avx2 = CpuHasAvx2();
    const int64_t m8 = avx2 ? e.n / 8 * 8 : 0;
#pragma omp parallel for num_threads(threads) if (threads > 1)
    for (int64_t o0 = 0; o0 < pixels; o0 += kTile) {
      const int64_t o1 = std::min(pixels, o0 + kTile);
      const int64_t o8 = avx2 ? o0 + (o1 - o0) / 8 * 8 : o0;
      if (m8 > 0) ChannelsAvx2<Q>(e, raw, columns, y_stride, za, row_sums, yc, o0, o8, m8);
      ChannelsScalar<Q>(e, raw, columns, y_stride, za, row_sums, yc, o0, o8, m8, e.n);
      ChannelsScalar<Q>(e, raw, columns, y_stride, za, row_sums, yc, o8, o1, 0, e.n);
    }
  };
  switch (e.y_dtype) {
    case DataType::kInt8: run(static_cast<int8_t*>(y)); break;
    case DataType::kUint8: run(static_cast<uint8_t*>(y)); break;
    default: run(static_cast<int32_t*>(y)); break;
  }
}

}  // namespace

Status IntConv(const IntConvPlan& p, const QuantOperands& q, void* y,
               std::span<std::byte> workspace) {
  if (p.direct == nullptr && p.gemm == nullptr) return Status::Ok();
  if (workspace.size() < p.workspace_bytes) {
    return MakeStatus(StatusCode::kInvalidArgument, "integer Conv: workspace of ",
                      workspace.size(), " bytes, expected ", p.workspace_bytes);
  }
  const int64_t in_pixels = InputPixels(p);
  const int64_t channels = p.in_channels / p.group;
  const int64_t out_per_group = p.out_channels / p.group;
  const int64_t pixels = p.output_pixels, k = p.columns_rows;
  const int threads = p.threads;
  const bool requantize = p.y_dtype != DataType::kInt32;
  const int32_t x_zp = LoadInt8(p.x_dtype, q.a_zero_point, 0);
  std::vector<float> multipliers(static_cast<size_t>(p.out_channels), 1.0f);
  std::vector<int32_t> y_zero_points(static_cast<size_t>(p.out_channels), 0);
  if (requantize) {
    // ORT's multiplier per output channel: x_scale * w_scale / y_scale, in float.
    const float x_scale = LoadScale(q.scale_dtype, q.a_scale, 0);
    const float y_scale = LoadScale(q.scale_dtype, q.y_scale, 0);
    for (int64_t m = 0; m < p.out_channels; ++m) {
      multipliers[static_cast<size_t>(m)] =
          x_scale * LoadScale(q.scale_dtype, q.b_scale, m * p.w_scale_stride) / y_scale;
    }
    std::fill(y_zero_points.begin(), y_zero_points.end(),
              LoadInt8(p.y_dtype, q.y_zero_point, 0));
  }
  Carver carve{workspace.data()};

  if (p.weights_left) {
    // ConvInteger, uint8 W x int8 X: C [Mg, P] = W [Mg, k] x columns [k, P], saturating pairs.
    const IntGemm& g = *p.gemm;
    std::byte* scratchpad =
        carve.Take<std::byte>(static_cast<int64_t>(g.scratchpad_md.get_size()));
    const TapWalker walk(p);
    int8_t* columns = carve.Take<int8_t>(k * pixels);
    int32_t* column_sums = carve.Take<int32_t>(pixels);
    int32_t* w_sums = carve.Take<int32_t>(out_per_group);
    carve.Take<int32_t>(out_per_group);
    int32_t* raw = carve.Take<int32_t>(out_per_group * pixels);
    const uint8_t* w = static_cast<const uint8_t*>(q.b);
    for (int64_t n = 0; n < p.batch; ++n) {
      for (int64_t gi = 0; gi < p.group; ++gi) {
        const int8_t* x = static_cast<const int8_t*>(q.a) + (n * p.in_channels + gi * channels) *
                                                               in_pixels;
        ColumnsByChannel(p, walk, x, static_cast<int8_t>(x_zp), columns, column_sums);
        const uint8_t* wg = w + gi * out_per_group * k;
        RowSums(wg, out_per_group, k, w_sums);
        NXRT_RETURN_IF_ERROR(RunIntGemm(g, wg, columns, raw, scratchpad));
        int32_t* yg = static_cast<int32_t*>(y) + (n * p.out_channels + gi * out_per_group) *
                                                    pixels;
#pragma omp parallel for num_threads(threads) if (threads > 1)
        for (int64_t mm = 0; mm < out_per_group; ++mm) {
          const int64_t za =
              LoadInt8(p.w_dtype, q.b_zero_point, (gi * out_per_group + mm) * p.w_param_stride);
          for (int64_t o = 0; o < pixels; ++o) {
            yg[mm * pixels + o] =
                Correct(Raw(g, raw, mm, o), za, x_zp, w_sums[mm], column_sums[o], k);
          }
        }
      }
    }
    return Status::Ok();
  }

  const Conversion conv = ConvConversion(p);
  const uint8_t flip = conv.left_shift != 0 ? 0x80 : 0;
  const int32_t za = x_zp + conv.left_shift;
  const uint8_t pad = static_cast<uint8_t>(x_zp) ^ flip;
  RowEpilogue e;
  e.n = out_per_group;
  e.split = SplitRight(conv);
  e.k = static_cast<int32_t>(k);
  e.y_dtype = p.y_dtype;
  std::vector<int32_t> zb(static_cast<size_t>(p.out_channels));
  bool any_zb = false;
  for (int64_t m = 0; m < p.out_channels; ++m) {
    zb[static_cast<size_t>(m)] =
        LoadInt8(p.w_dtype, q.b_zero_point, m * p.w_param_stride) + conv.right_shift;
    any_zb = any_zb || zb[static_cast<size_t>(m)] != 0;
  }
  std::vector<int32_t> bias;
  if (q.bias != nullptr) bias.assign(q.bias, q.bias + p.out_channels);

  if (p.direct != nullptr) {
    const IntDirectConv& d = *p.direct;
    const WindowGeometry& geo = p.geometry;
    const int64_t padded = d.padded_h * d.padded_w;
    const int64_t out_w = geo.output[1];
    uint8_t* x_padded = carve.Take<uint8_t>(padded * p.in_channels);
    int32_t* pixel_sums = carve.Take<int32_t>(padded);
    int32_t* row_sums = carve.Take<int32_t>(pixels);
    std::byte* bands = carve.Take<std::byte>(d.threads * static_cast<int64_t>(DirectBandBytes(p)));
    e.zb = zb.data();
    e.sum_b = p.packed_w[0]->sums.data();
    e.bias = bias.empty() ? nullptr : bias.data();
    e.multiplier = multipliers.data();
    e.y_zero_point = y_zero_points.data();
    NXRT_ASSIGN_OR_RETURN(dnnl::engine engine, DnnlEngine());
    for (int64_t n = 0; n < p.batch; ++n) {
      PadToChannelsLast(static_cast<const uint8_t*>(q.a) + n * p.in_channels * in_pixels,
                        p.in_channels, p.input_spatial[0], p.input_spatial[1],
                        geo.pads_begin[0], geo.pads_begin[1], d.padded_h, d.padded_w, flip, pad,
                        x_padded, threads);
      if (any_zb) {
        // Each output pixel's sum of X over its window (padding included), from the padded
        // pixels' channel sums.
        for (int64_t r = 0; r < padded; ++r) {
          int32_t sum = 0;
          for (int64_t c = 0; c < p.in_channels; ++c) sum += x_padded[r * p.in_channels + c];
          pixel_sums[r] = sum;
        }
        for (int64_t oh = 0; oh < geo.output[0]; ++oh) {
          for (int64_t ow = 0; ow < out_w; ++ow) {
            int32_t sum = 0;
            for (int64_t i = 0; i < geo.kernel[0]; ++i) {
              for (int64_t j = 0; j < geo.kernel[1]; ++j) {
                sum += pixel_sums[(oh * geo.strides[0] + i * geo.dilations[0]) * d.padded_w +
                                  ow * geo.strides[1] + j * geo.dilations[1]];
              }
            }
            row_sums[oh * out_w + ow] = sum;
          }
        }
      }
      const int64_t band_count = (geo.output[0] + d.band - 1) / d.band;
      std::vector<Status> failed(static_cast<size_t>(band_count));
#pragma omp parallel for num_threads(d.threads) schedule(dynamic) if (d.threads > 1)
      for (int64_t b = 0; b < band_count; ++b) {
        const int64_t row0 = b * d.band;
        const int64_t rows = std::min(d.band, geo.output[0] - row0);
        const IntDirectConv::Piece& piece = d.pieces[rows == d.band ? 0 : 1];
        const int thread = d.threads > 1 ? omp_get_thread_num() : 0;
        std::byte* own = bands + static_cast<size_t>(thread) * DirectBandBytes(p);
        int32_t* raw = reinterpret_cast<int32_t*>(own + Align64(d.scratchpad_bytes));
        Result<dnnl::stream*> stream = DnnlStream();
        if (!stream.ok()) {
          failed[static_cast<size_t>(b)] = stream.status();
          continue;
        }
        try {
          SetDnnlThreads(1);
          std::unordered_map<int, dnnl::memory> args = {
              {DNNL_ARG_SRC,
               dnnl::memory(piece.src_md, engine,
                            x_padded + row0 * geo.strides[0] * d.padded_w * p.in_channels)},
              {DNNL_ARG_WEIGHTS, dnnl::memory(d.weights_md, engine, p.packed_w[0]->data.get())},
              {DNNL_ARG_DST, dnnl::memory(piece.dst_md, engine, raw)}};
          if (piece.scratchpad_md.get_size() > 0) {
            args.emplace(DNNL_ARG_SCRATCHPAD, dnnl::memory(piece.scratchpad_md, engine, own));
          }
          piece.primitive.execute(**stream, args);
          (*stream)->wait();
        } catch (const dnnl::error& error) {
          failed[static_cast<size_t>(b)] = DnnlErrorStatus("integer convolution", error);
          continue;
        }
        EpilogueToChannels(e, raw, d.columns, rows * out_w, za,
                           any_zb ? row_sums + row0 * out_w : nullptr, y,
                           n * p.out_channels * pixels + row0 * out_w, pixels, 1);
      }
      for (const Status& status : failed) NXRT_RETURN_IF_ERROR(status);
    }
    return Status::Ok();
  }

  const IntGemm& g = *p.gemm;
  const TapWalker walk(p);
  std::byte* scratchpad = carve.Take<std::byte>(static_cast<int64_t>(g.scratchpad_md.get_size()));
  uint8_t* x_nhwc = carve.Take<uint8_t>(in_pixels * p.in_channels);
  uint8_t* columns = carve.Take<uint8_t>(pixels * k);
  int32_t* row_sums = carve.Take<int32_t>(pixels);
  int8_t* w_converted = p.packed_w.empty() ? carve.Take<int8_t>(k * g.columns) : nullptr;
  int32_t* w_sums = carve.Take<int32_t>(out_per_group);
  carve.Take<int32_t>(out_per_group);
  int32_t* raw = carve.Take<int32_t>(pixels * g.columns);
  for (int64_t n = 0; n < p.batch; ++n) {
    // Channels-last X: a 1-D or 3-D image is its flat pixels, which ColumnsByPixel indexes.
    PadToChannelsLast(static_cast<const uint8_t*>(q.a) + n * p.in_channels * in_pixels,
                      p.in_channels, 1, in_pixels, 0, 0, 1, in_pixels, flip, pad, x_nhwc,
                      threads);
    for (int64_t gi = 0; gi < p.group; ++gi) {
      ColumnsByPixel(p, walk, x_nhwc, gi, pad, columns, row_sums, threads);
      const void* w_gemm = nullptr;
      if (!p.packed_w.empty()) {
        w_gemm = p.packed_w[static_cast<size_t>(gi)]->data.get();
        e.sum_b = p.packed_w[static_cast<size_t>(gi)]->sums.data();
      } else {
        if (p.w_dtype == DataType::kInt8) {
          ConvertRight(g, conv, WeightsAt(p, static_cast<const int8_t*>(q.b), gi), w_converted,
                       w_sums);
        } else {
          ConvertRight(g, conv, WeightsAt(p, static_cast<const uint8_t*>(q.b), gi), w_converted,
                       w_sums);
        }
        w_gemm = w_converted;
        e.sum_b = w_sums;
      }
      NXRT_RETURN_IF_ERROR(RunIntGemm(g, columns, w_gemm, raw, scratchpad));
      const size_t channel0 = static_cast<size_t>(gi * out_per_group);
      e.zb = zb.data() + channel0;
      e.bias = bias.empty() ? nullptr : bias.data() + channel0;
      e.multiplier = multipliers.data() + channel0;
      e.y_zero_point = y_zero_points.data() + channel0;
      EpilogueToChannels(e, raw, g.columns, pixels, za, row_sums, y,
                         (n * p.out_channels + gi * out_per_group) * pixels, pixels, threads);
    }
  }
  return Status::Ok();
}

}  // namespace nxrt::cpu::nn
