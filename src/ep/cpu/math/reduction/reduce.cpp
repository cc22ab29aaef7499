// ep/cpu/math/reduction/reduce.cpp: reducers, the reduction driver, and ArgMax/ArgMin.
//
// Layer: nxrt_cpu_math (framework-free reference math of the CPU EP).
// The driver works on the collapsed kept/reduced axes (SplitAxes). When the innermost axis is
// reduced, each output element reduces contiguous runs (8 partial accumulators so the loop
// vectorises). When it is kept, outputs are produced in blocks of kReduceLanes neighbours whose
// accumulators live on the stack, and each reduced index adds one contiguous row segment.
// float16 and bfloat16 runs and segments are converted to float in bulk (half_convert.h) and
// reduced as float ones.
// A reducer R<T> defines the accumulator type A and Init / Map / Combine / Finalize; the result of
// an element set S is Finalize(Combine over x in S of Map(x)); LogSumExp also needs the set's
// maximum first (kNeedsShift).
#include "ep/cpu/math/reduction/reduce.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "ep/cpu/math/arg_best.h"
#include "ep/cpu/math/element_types.h"
#include "ep/cpu/math/half_convert.h"
#include "ep/cpu/math/simd_map.h"

namespace nxrt::cpu::math {
namespace {

constexpr int64_t kReduceLanes = 64;

// Accumulator of sums and products: float for the float types (double for double), 64-bit
// integers for the integer types.
template <typename T>
using Accum = std::conditional_t<
    std::is_same_v<T, double>, double,
    std::conditional_t<kIsFloating<T>, float,
                       std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>>;

// Accumulator of the reductions with a real-valued final step (sqrt, log).
template <typename T>
using RealAccum = std::conditional_t<std::is_integral_v<T>, double, Accum<T>>;

template <typename A>
A AccAdd(A a, A b) {
  if constexpr (std::is_integral_v<A>) return WrapAdd(a, b);
  else return a + b;
}

template <typename A>
A AccMul(A a, A b) {
  if constexpr (std::is_integral_v<A>) return WrapMul(a, b);
  else return a * b;
}

template <typename A>
A AccAbs(A x) {
  if constexpr (std::is_unsigned_v<A>) return x;
  else if constexpr (std::is_integral_v<A>) return x < 0 ? WrapSub(A{0}, x) : x;
  else return std::fabs(x);
}

// Shared parts of the additive reducers.
template <typename AccType>
struct Additive {
  using A = AccType;
  static constexpr bool kNeedsShift = false;
  static A Init() { return A{0}; }
  static A Combine(A a, A b) { return AccAdd(a, b); }
};

template <typename T>
struct SumReducer : Additive<Accum<T>> {
  using A = Accum<T>;
  static A Map(A x, A) { return x; }
  static A Finalize(A acc, int64_t, A) { return acc; }
};

template <typename T>
struct MeanReducer : Additive<Accum<T>> {
  using A = Accum<T>;
  static A Map(A x, A) { return x; }
  static A Finalize(A acc, int64_t count, A) {
    if constexpr (std::is_integral_v<A>) {
      return count == 0 ? A{0} : static_cast<A>(acc / static_cast<A>(count));
    } else {
      return acc / static_cast<A>(count);
    }
  }
};

template <typename T>
struct L1Reducer : Additive<Accum<T>> {
  using A = Accum<T>;
  static A Map(A x, A) { return AccAbs(x); }
  static A Finalize(A acc, int64_t, A) { return acc; }
};

template <typename T>
struct SumSquareReducer : Additive<Accum<T>> {
  using A = Accum<T>;
  static A Map(A x, A) { return AccMul(x, x); }
  static A Finalize(A acc, int64_t, A) { return acc; }
};

template <typename T>
struct L2Reducer : Additive<RealAccum<T>> {
  using A = RealAccum<T>;
  static A Map(A x, A) { return x * x; }
  static A Finalize(A acc, int64_t, A) { return std::sqrt(acc); }
};

template <typename T>
struct LogSumReducer : Additive<RealAccum<T>> {
  using A = RealAccum<T>;
  static A Map(A x, A) { return x; }
  static A Finalize(A acc, int64_t, A) { return std::log(acc); }
};

template <typename T>
struct LogSumExpReducer : Additive<RealAccum<T>> {
  using A = RealAccum<T>;
  static constexpr bool kNeedsShift = true;
  static A Map(A x, A shift) { return std::exp(x - shift); }
  static A Finalize(A acc, int64_t, A shift) { return std::log(acc) + shift; }
};

template <typename T>
struct ProdReducer {
  using A = Accum<T>;
  static constexpr bool kNeedsShift = false;
  static A Init() { return A{1}; }
  static A Map(A x, A) { return x; }
  static A Combine(A a, A b) { return AccMul(a, b); }
  static A Finalize(A acc, int64_t, A) { return acc; }
};

template <typename C>
C Lowest() {
  if constexpr (std::is_floating_point_v<C>) return -std::numeric_limits<C>::infinity();
  else return std::numeric_limits<C>::lowest();
}

template <typename C>
C Highest() {
  if constexpr (std::is_floating_point_v<C>) return std::numeric_limits<C>::infinity();
  else return std::numeric_limits<C>::max();
}

template <typename T>
struct MaxReducer {
  using A = Compute<T>;
  static constexpr bool kNeedsShift = false;
  static constexpr int kExtreme = 1;  // FoldRun's float path
  static A Init() { return Lowest<A>(); }
  static A Map(A x, A) { return x; }
  static A Combine(A a, A b) { return MaxPropagateNan(a, b); }
  static A Finalize(A acc, int64_t, A) { return acc; }
};

template <typename T>
struct MinReducer {
  using A = Compute<T>;
  static constexpr bool kNeedsShift = false;
  static constexpr int kExtreme = -1;
  static A Init() { return Highest<A>(); }
  static A Map(A x, A) { return x; }
  static A Combine(A a, A b) { return MinPropagateNan(a, b); }
  static A Finalize(A acc, int64_t, A) { return acc; }
};

// LogSumExp's shift: the maximum, or 0 when that is not finite (an all -inf or empty set keeps
// -inf, a +inf or NaN element keeps +inf or NaN).
template <typename A>
A ShiftFromMax(A max) {
  if constexpr (std::is_floating_point_v<A>) return std::isfinite(max) ? max : A{0};
  else return max;
}

template <typename R, typename T>
typename R::A Widen(const T& x) {
  return static_cast<typename R::A>(Load(x));
}

// +1 for the Max reducers, -1 for Min, 0 for the others.
template <typename R>
constexpr int Extreme() {
  if constexpr (requires { R::kExtreme; }) return R::kExtreme;
  else return 0;
}

// FoldRun for float Max (kMax) and Min: the plain `v > m ? v : m` (one max instruction per
// vector, which drops a NaN v) in 32 partial results, beside 32 partial sums of the run, which
// are NaN if an element is NaN (or if +inf and -inf meet in one; then the scan finds none). Only
// then is the run scanned for its first NaN, which is the result as MaxPropagateNan gives it.
// The partial results start at acc (all NaN if acc is, and a NaN one stays NaN) and fold
// pairwise, a tree whose halves vectorise, inside the SIMD build: a serial fold of 32 scalars
// after it took as long as the loop over a row of 768.
template <bool kMax, typename T>
float FoldExtremeRun(const T* p, int64_t n, float acc, int64_t* done) {
  constexpr int kFoldLanes = 32;
  float best = acc;
  float total = 0.0f;
  int64_t i = 0;
  CallWidest([&] {
    // Locals, not the captured variables: through the references GCC stores every partial
    // result back to memory each step.
    float m[kFoldLanes];
    float sum[kFoldLanes];
    const float start = acc;
    for (int j = 0; j < kFoldLanes; ++j) {
      m[j] = start;
      sum[j] = 0.0f;
    }
    const T* src = p;
    const int64_t count = n;
    int64_t k = 0;
    for (; k + kFoldLanes <= count; k += kFoldLanes) {
      for (int j = 0; j < kFoldLanes; ++j) {
        const float v = Load(src[k + j]);
        m[j] = kMax ? (v > m[j] ? v : m[j]) : (v < m[j] ? v : m[j]);
        sum[j] += v;
      }
    }
    for (int h = kFoldLanes / 2; h > 0; h /= 2) {
      for (int j = 0; j < h; ++j) {
        const float v = m[j + h];
        m[j] = kMax ? (v > m[j] ? v : m[j]) : (v < m[j] ? v : m[j]);
        sum[j] += sum[j + h];
      }
    }
    best = m[0];
    total = sum[0];
    i = k;
  });
  *done = i;
  if (total != total) {
    for (int64_t k = 0; k < i; ++k) {
      const float v = Load(p[k]);
      if (v != v) return v;
    }
  }
  return best;
}

// Folds the contiguous run p[0, n) into acc. Floating accumulators use 32 partial results, which
// the compiler may not introduce itself (it would reorder the additions): four independent
// vectors of 8, so a Combine longer than one add (Max and Min test for NaN and blend, about 7
// cycles of latency) does not make the loop wait on its own previous step; in the widest SIMD
// build (simd_map.h). Integer folds are associative, so the plain loop already vectorises. (GCC
// 12.2 at -O3 also miscompiled the lane form for int8 inputs widened to int64 when inlined here;
// reduce_test caught it.) Float Max and Min take FoldExtremeRun.
template <typename R, typename T>
typename R::A FoldRun(const T* p, int64_t n, typename R::A acc, typename R::A shift) {
  using A = typename R::A;
  constexpr int kFoldLanes = 32;
  int64_t i = 0;
  if constexpr (Extreme<R>() != 0 && std::is_same_v<A, float>) {
    if (n >= 2 * kFoldLanes) acc = FoldExtremeRun<(Extreme<R>() > 0)>(p, n, acc, &i);
  } else if (std::is_floating_point_v<A> && n >= 2 * kFoldLanes) {
    A lanes[kFoldLanes];
    CallWidest([&] {
      // Locals, as FoldExtremeRun says why.
      A part[kFoldLanes];
      for (A& lane : part) lane = R::Init();
      const T* src = p;
      const int64_t count = n;
      const A s = shift;
      int64_t k = 0;
      for (; k + kFoldLanes <= count; k += kFoldLanes) {
        for (int j = 0; j < kFoldLanes; ++j) {
          part[j] = R::Combine(part[j], R::Map(Widen<R>(src[k + j]), s));
        }
      }
      std::copy_n(part, kFoldLanes, lanes);
      i = k;
    });
    for (A lane : lanes) acc = R::Combine(acc, lane);
  }
  for (; i < n; ++i) acc = R::Combine(acc, R::Map(Widen<R>(p[i]), shift));
  return acc;
}

// FoldRun over 16-bit floats: blocks converted to float in bulk (F16C, half_convert.h), each
// folded as a float run.
template <typename R, typename T>
typename R::A FoldHalfRun(const T* p, int64_t n, typename R::A acc, typename R::A shift) {
  constexpr int64_t kBlock = 1024;
  float block[kBlock];
  for (int64_t start = 0; start < n; start += kBlock) {
    const int64_t len = std::min(kBlock, n - start);
    ToFloat(p + start, block, len);
    acc = FoldRun<R>(block, len, acc, shift);
  }
  return acc;
}

template <typename R, typename T>
typename R::A FoldAny(const T* p, int64_t n, typename R::A acc, typename R::A shift) {
  if constexpr (kIsHalf<T>) return FoldHalfRun<R>(p, n, acc, shift);
  else return FoldRun<R>(p, n, acc, shift);
}

template <typename T>
using MaxOf = MaxReducer<T>;

template <typename T, template <typename> class Reducer>
void ReduceTyped(const AxesSplit& s, const void* in, void* out) {
  using R = Reducer<T>;
  using A = typename R::A;
  const auto* x = static_cast<const T*>(in);
  auto* y = static_cast<T*>(out);
  const int64_t count = s.reduced_count;
  if (s.kept_count == 0) return;
  if (count == 0) {
    const T identity = ConvertElement<T>(R::Finalize(R::Init(), 0, A{0}));
    std::fill(y, y + s.kept_count, identity);
    return;
  }
  if (s.inner_reduced) {
    const int64_t run = s.reduced_dims.back();
    const std::span<const int64_t> outer_dims(s.reduced_dims.data(), s.reduced_dims.size() - 1);
    const std::span<const int64_t> outer_strides(s.reduced_strides.data(),
                                                 s.reduced_strides.size() - 1);
    int64_t o = 0;
    ForEachOffset(s.kept_dims, s.kept_strides, [&](int64_t kept_offset) {
      const T* base = x + kept_offset;
      A shift{0};
      if constexpr (R::kNeedsShift) {
        A max = MaxOf<A>::Init();
        ForEachOffset(outer_dims, outer_strides, [&](int64_t r) {
          max = FoldAny<MaxOf<A>>(base + r, run, max, A{0});
        });
        shift = ShiftFromMax(max);
      }
      A acc = R::Init();
      ForEachOffset(outer_dims, outer_strides,
                    [&](int64_t r) { acc = FoldAny<R>(base + r, run, acc, shift); });
      y[o++] = ConvertElement<T>(R::Finalize(acc, count, shift));
    });
    return;
  }
  // The innermost axis is kept (or there is no axis left): blocks of kReduceLanes outputs.
  const int64_t inner = s.kept_dims.empty() ? 1 : s.kept_dims.back();
  const size_t outer_rank = s.kept_dims.empty() ? 0 : s.kept_dims.size() - 1;
  const std::span<const int64_t> outer_dims(s.kept_dims.data(), outer_rank);
  const std::span<const int64_t> outer_strides(s.kept_strides.data(), outer_rank);
  // The row segment [at, at + w) as values Widen reads: 16-bit floats converted in bulk first.
  float converted[kReduceLanes];
  const auto segment = [&converted](const T* at, int64_t w) {
    if constexpr (kIsHalf<T>) {
      ToFloat(at, converted, w);
      return static_cast<const float*>(converted);
    } else {
      return at;
    }
  };
  int64_t o = 0;
  ForEachOffset(outer_dims, outer_strides, [&](int64_t kept_offset) {
    for (int64_t c = 0; c < inner; c += kReduceLanes) {
      const int64_t w = std::min(kReduceLanes, inner - c);
      const T* base = x + kept_offset + c;
      A shift[kReduceLanes];
      A acc[kReduceLanes];
      for (int64_t j = 0; j < w; ++j) {
        shift[j] = MaxOf<A>::Init();
        acc[j] = R::Init();
      }
      if constexpr (R::kNeedsShift) {
        ForEachOffset(s.reduced_dims, s.reduced_strides, [&](int64_t r) {
          const auto* row = segment(base + r, w);
          for (int64_t j = 0; j < w; ++j) {
            shift[j] = MaxPropagateNan(shift[j], Widen<R>(row[j]));
          }
        });
        for (int64_t j = 0; j < w; ++j) shift[j] = ShiftFromMax(shift[j]);
      }
      ForEachOffset(s.reduced_dims, s.reduced_strides, [&](int64_t r) {
        const auto* row = segment(base + r, w);
        for (int64_t j = 0; j < w; ++j) {
          acc[j] = R::Combine(acc[j], R::Map(Widen<R>(row[j]), shift[j]));
        }
      });
      for (int64_t j = 0; j < w; ++j) y[o + c + j] = ConvertElement<T>(R::Finalize(acc[j], count, shift[j]));
    }
    o += inner;
  });
}

// ArgMax/ArgMin over `outer` blocks of [axis_dim, inner], columns [0, width) of each (arg_best.h).
template <typename T, bool kIsMax>
void ArgReduceTyped(int64_t outer, int64_t axis_dim, int64_t inner, int64_t width,
                    bool select_last, const void* in, int64_t* out) {
  const auto* x = static_cast<const T*>(in);
  for (int64_t o = 0; o < outer; ++o) {
    const T* block = x + o * axis_dim * inner;
    if (inner == 1) {
      out[o] = ArgBestRow<kIsMax>(block, axis_dim, select_last);
    } else {
      ArgBestColumns<kIsMax>(axis_dim, inner, width, select_last, block, out + o * inner);
    }
  }
}

}  // namespace

std::string_view ReduceKindName(ReduceKind kind) {
  switch (kind) {
#define NXRT_REDUCE_KIND(name, reducer, types) \
  case ReduceKind::k##name:                    \
    return "Reduce" #name;
#include "ep/cpu/math/reduction/reduce_kinds.inc"
#undef NXRT_REDUCE_KIND
  }
  return "unknown reduction";
}

Result<ReducePlan> PrepareReduce(ReduceKind kind, DataType type, const Shape& in_shape,
                                 std::span<const int64_t> axes, const ReduceAttrs& attrs) {
  const std::string_view name = ReduceKindName(kind);
  ReducePlan plan;
  plan.kind = kind;
  plan.type = type;
  const auto rank = static_cast<int64_t>(in_shape.size());
  std::vector<bool> mask;
  if (axes.empty()) {
    mask.assign(in_shape.size(), !attrs.noop_with_empty_axes);
  } else {
    NXRT_ASSIGN_OR_RETURN(mask, AxesMask(name, axes, rank));
  }
  for (size_t i = 0; i < in_shape.size(); ++i) {
    if (!mask[i]) {
      plan.out_shape.push_back(in_shape[i]);
    } else if (attrs.keepdims) {
      plan.out_shape.push_back(1);
    }
  }
  plan.split = SplitAxes(in_shape, mask);
  Status status;
  switch (kind) {
#define NXRT_REDUCE_KIND(name, reducer, types)                                   \
  case ReduceKind::k##name:                                                      \
    status = DispatchType<types>(type, ReduceKindName(kind), [&](auto tag) {    \
      plan.fn = &ReduceTyped<typename decltype(tag)::type, reducer>;             \
    });                                                                          \
    break;
#include "ep/cpu/math/reduction/reduce_kinds.inc"
#undef NXRT_REDUCE_KIND
  }
  NXRT_RETURN_IF_ERROR(status);
  return plan;
}

void RunReduce(const ReducePlan& plan, const void* in, void* out) {
  plan.fn(plan.split, in, out);
}

Status Reduce(ReduceKind kind, const Tensor& in, std::span<const int64_t> axes,
              const ReduceAttrs& attrs, Tensor* out) {
  const std::string_view name = ReduceKindName(kind);
  NXRT_RETURN_IF_ERROR(CheckInput(name, "input", in));
  NXRT_ASSIGN_OR_RETURN(ReducePlan plan, PrepareReduce(kind, in.dtype(), in.shape(), axes, attrs));
  NXRT_RETURN_IF_ERROR(PrepareOutput(name, plan.type, plan.out_shape, out));
  RunReduce(plan, in.raw_data(), out->mutable_raw_data());
  return Status::Ok();
}

Result<ArgReducePlan> PrepareArgReduce(bool is_max, DataType type, const Shape& in_shape,
                                       const ArgReduceAttrs& attrs) {
  const std::string_view name = is_max ? "ArgMax" : "ArgMin";
  NXRT_ASSIGN_OR_RETURN(const int64_t axis,
                        NormalizeAxis(name, attrs.axis, static_cast<int64_t>(in_shape.size())));
  ArgReducePlan plan;
  plan.select_last_index = attrs.select_last_index;
  const auto a = static_cast<size_t>(axis);
  plan.axis_dim = in_shape[a];
  plan.outer = Product(std::span(in_shape.data(), a));
  plan.inner = Product(std::span(in_shape.data() + a + 1, in_shape.size() - a - 1));
  if (plan.axis_dim == 0 && plan.outer * plan.inner != 0) {
    return MakeStatus(StatusCode::kInvalidArgument, name, ": axis ", attrs.axis,
                      " of input shape ", ShapeToString(in_shape),
                      " has length 0, so there is no index to return");
  }
  plan.out_shape = in_shape;
  if (attrs.keepdims) {
    plan.out_shape[a] = 1;
  } else {
    plan.out_shape.erase(plan.out_shape.begin() + static_cast<std::ptrdiff_t>(a));
  }
  NXRT_RETURN_IF_ERROR(DispatchType<NumericTypesBf16>(type, name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    plan.fn = is_max ? &ArgReduceTyped<T, true> : &ArgReduceTyped<T, false>;
  }));
  return plan;
}

void RunArgReduce(const ArgReducePlan& plan, const void* in, int64_t* out) {
  if (plan.axis_dim == 0) return;
  plan.fn(plan.outer, plan.axis_dim, plan.inner, plan.inner, plan.select_last_index, in, out);
}

namespace {

Status ArgReduce(bool is_max, const Tensor& in, const ArgReduceAttrs& attrs, Tensor* out) {
  const std::string_view name = is_max ? "ArgMax" : "ArgMin";
  NXRT_RETURN_IF_ERROR(CheckInput(name, "input", in));
  NXRT_ASSIGN_OR_RETURN(ArgReducePlan plan, PrepareArgReduce(is_max, in.dtype(), in.shape(), attrs));
  NXRT_RETURN_IF_ERROR(PrepareOutput(name, DataType::kInt64, plan.out_shape, out));
  RunArgReduce(plan, in.raw_data(), out->mutable_data<int64_t>());
  return Status::Ok();
}

}  // namespace

Status ArgMax(const Tensor& in, const ArgReduceAttrs& attrs, Tensor* out) {
  return ArgReduce(true, in, attrs, out);
}

Status ArgMin(const Tensor& in, const ArgReduceAttrs& attrs, Tensor* out) {
  return ArgReduce(false, in, attrs, out);
}

}  // namespace nxrt::cpu::math
