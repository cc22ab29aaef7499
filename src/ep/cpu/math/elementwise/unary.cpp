// ep/cpu/math/elementwise/unary.cpp: functors and typed loops of the unary elementwise ops and
// Clip.
//
// Layer: nxrt_cpu_math (framework-free reference math of the CPU EP).
// A functor template Op<C> maps one value of compute type C (float for the 16-bit floats); ops
// with attributes take them in a constructor. Loops over float/double/int are plain and
// contiguous; the 16-bit floats go through float blocks on the stack, converted in bulk (F16C),
// so their loops are the float ones. In float (so also for the 16-bit floats), Exp, Log, Erf,
// Tanh, Sigmoid, Gelu, Mish, Elu, Selu, Celu, Atan, Asin, Acos, Sinh, Cosh and Softplus use the
// inline FastExp, FastLog, FastErf, FastTanh, FastSigmoid, FastExpm1, FastAtan, FastAsin,
// FastAcos, FastSinh and FastCosh of fast_math.h and fast_exp.h (each within 3 ULP of the exact
// value), so their loops vectorise; Sin, Cos and Tan use FastSin, FastCos and FastTan for
// |x| <= kFastTrigLimit and std:: beyond (MapChecked); double keeps the std:: functions. float
// loops run in the widest SIMD build the CPU has (simd_map.h).
#include "ep/cpu/math/elementwise/unary.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "ep/cpu/math/element_types.h"
#include "ep/cpu/math/fast_math.h"
#include "ep/cpu/math/half_convert.h"
#include "ep/cpu/math/shape_util.h"
#include "ep/cpu/math/simd_map.h"

namespace nxrt::cpu::math {
namespace {

// Clamp to [0, 1] that lets NaN through.
template <typename C>
C Clamp01(C v) {
  v = v < C{0} ? C{0} : v;
  return v > C{1} ? C{1} : v;
}

template <typename C>
struct AbsOp {
  C operator()(C x) const {
    if constexpr (std::is_unsigned_v<C>) return x;
    else if constexpr (std::is_integral_v<C>) return x < 0 ? WrapSub(C{0}, x) : x;
    else return std::fabs(x);
  }
};

template <typename C>
struct NegOp {
  C operator()(C x) const {
    if constexpr (std::is_integral_v<C>) return WrapSub(C{0}, x);
    else return -x;
  }
};

template <typename C>
struct SignOp {
  C operator()(C x) const {
    if constexpr (std::is_unsigned_v<C>) {
      return x > 0 ? C{1} : C{0};
    } else {
      return x > 0 ? C{1} : (x < 0 ? C{-1} : x);
    }
  }
};

template <typename C>
struct SqrtOp {
  C operator()(C x) const { return std::sqrt(x); }
};
template <typename C>
struct ExpOp {
  C operator()(C x) const {
    if constexpr (std::is_same_v<C, float>) return FastExp(x);
    else return std::exp(x);
  }
};
template <typename C>
struct LogOp {
  C operator()(C x) const {
    if constexpr (std::is_same_v<C, float>) return FastLog(x);
    else return std::log(x);
  }
};
// erf and tanh: the inline approximations of fast_math.h in float, the library functions in double.
template <typename C>
C Erf(C x) {
  if constexpr (std::is_same_v<C, float>) return FastErf(x);
  else return std::erf(x);
}

template <typename C>
C Tanh(C x) {
  if constexpr (std::is_same_v<C, float>) return FastTanh(x);
  else return std::tanh(x);
}

template <typename C>
struct ErfOp {
  C operator()(C x) const {
    if constexpr (std::is_integral_v<C>) return FloatToInt<C>(std::erf(static_cast<double>(x)));
    else return Erf(x);
  }
};
template <typename C>
struct TanhOp {
  C operator()(C x) const { return Tanh(x); }
};
template <typename C>
struct SigmoidOp {
  C operator()(C x) const {
    if constexpr (std::is_same_v<C, float>) return FastSigmoid(x);
    else return C{1} / (C{1} + std::exp(-x));
  }
};

template <typename C>
struct ReluOp {
  C operator()(C x) const { return x < C{0} ? C{0} : x; }
};

template <typename C>
struct LeakyReluOp {
  explicit LeakyReluOp(const UnaryAttrs& a) : alpha_(a.alpha) {}
  // max(x, 0) + alpha * min(x, 0): equal to `x < 0 ? alpha * x : x` for every input (NaN, -0,
  // infinities included) but without a branch, so the loop vectorises (a data-dependent branch
  // mispredicted on every other element of real activations).
  C operator()(C x) const {
    const C zero{0};
    return std::max(x, zero) + alpha_ * std::min(x, zero);
  }
  C alpha_;
};

// e^x - 1: FastExpm1 in float, std::expm1 in double.
template <typename C>
C Expm1(C x) {
  if constexpr (std::is_same_v<C, float>) return FastExpm1(x);
  else return std::expm1(x);
}

// Elu, Selu and Celu pick between arms that are both computed; in float with FloatSelect, since
// a `?:` with arithmetic in an arm keeps GCC from vectorising (fast_exp.h).
template <typename C>
C Select(bool condition, C if_true, C if_false) {
  if constexpr (std::is_same_v<C, float>) return FloatSelect(condition, if_true, if_false);
  else return condition ? if_true : if_false;
}

template <typename C>
struct EluOp {
  explicit EluOp(const UnaryAttrs& a) : alpha_(a.alpha) {}
  C operator()(C x) const { return Select(x < C{0}, alpha_ * Expm1(x), x); }
  C alpha_;
};

template <typename C>
struct SeluOp {
  explicit SeluOp(const UnaryAttrs& a) : alpha_(a.alpha), gamma_(a.gamma) {}
  C operator()(C x) const { return Select(x > C{0}, gamma_ * x, gamma_ * alpha_ * Expm1(x)); }
  C alpha_;
  C gamma_;
};

template <typename C>
struct CeluOp {
  explicit CeluOp(const UnaryAttrs& a) : alpha_(a.alpha) {}
  C operator()(C x) const {
    const C negative = alpha_ * Expm1(x / alpha_);
    return Select(x > C{0}, x, Select(negative < C{0}, negative, C{0} * x));
  }
  C alpha_;
};

template <typename C>
struct HardSigmoidOp {
  explicit HardSigmoidOp(const UnaryAttrs& a) : alpha_(a.alpha), beta_(a.beta) {}
  C operator()(C x) const { return Clamp01(alpha_ * x + beta_); }
  C alpha_;
  C beta_;
};

// x · max(0, min(1, alpha·x + beta)) with the spec's alpha = 1/6 and beta = 0.5. std::max and
// std::min instead of Clamp01 so the loop vectorises: a NaN x still gives NaN through the product.
template <typename C>
struct HardSwishOp {
  C operator()(C x) const {
    constexpr C kAlpha = C{1} / C{6};
    return x * std::min(std::max(kAlpha * x + C{0.5}, C{0}), C{1});
  }
};

// log(1 + e^x) without overflow for large x.
template <typename C>
C Softplus(C x) {
  return x > C{0} ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}

// Softplus in float: max(x, 0) + log1p(e) with e = e^-|x| in (0, 1], and log1p(e) as
// FastLog(u)·e / (u - 1) with u = 1 + e, which cancels the rounding of u (e itself where u
// rounds to 1). NaN stays NaN; -inf gives 0 and +inf +inf.
inline float FastSoftplus(float x) {
  const float e = FastExp(-std::fabs(x));
  const float u = 1.0f + e;
  const float log1p = FloatSelect(u == 1.0f, e, FastLog(u) * (e / (u - 1.0f)));
  return std::max(x, 0.0f) + log1p;
}

template <typename C>
struct SoftplusOp {
  C operator()(C x) const {
    if constexpr (std::is_same_v<C, float>) return FastSoftplus(x);
    else return Softplus(x);
  }
};

template <typename C>
struct SoftsignOp {
  C operator()(C x) const { return x / (C{1} + std::fabs(x)); }
};

// Gelu approximate="none". PrepareUnary binds GeluTanhOp for approximate="tanh": one functor per
// approximation, because a per-element test of the attribute keeps GCC from vectorising the loop.
template <typename C>
struct GeluOp {
  C operator()(C x) const {
    constexpr C kInvSqrt2 = static_cast<C>(0.70710678118654752440084436210485);
    return C{0.5} * x * (C{1} + Erf(x * kInvSqrt2));
  }
};

template <typename C>
struct GeluTanhOp {
  C operator()(C x) const {
    // sqrt(2 / pi)
    constexpr C kScale = static_cast<C>(0.79788456080286535587989211986876);
    return C{0.5} * x * (C{1} + Tanh(kScale * (x + C{0.044715} * x * x * x)));
  }
};

// x · tanh(softplus(x)). In float: with e = e^x, tanh(log(1 + e)) = n / (n + 2) where
// n = e·(e + 2), which needs one FastExp and no log. Above x = 20 the result is x: the ratio
// rounds to 1 there, and e·e overflows from x = 44.4 on.
template <typename C>
struct MishOp {
  C operator()(C x) const {
    if constexpr (std::is_same_v<C, float>) {
      const float e = FastExp(x);
      const float n = e * (e + 2.0f);
      return FloatSelect(x > 20.0f, x, x * (n / (n + 2.0f)));
    } else {
      return x * std::tanh(Softplus(x));
    }
  }
};

template <typename C>
struct ThresholdedReluOp {
  explicit ThresholdedReluOp(const UnaryAttrs& a) : alpha_(a.alpha) {}
  C operator()(C x) const { return x > alpha_ ? x : (x != x ? x : C{0}); }
  C alpha_;
};

template <typename C>
struct ShrinkOp {
  explicit ShrinkOp(const UnaryAttrs& a) : lambd_(a.lambd), bias_(a.bias) {}
  C operator()(C x) const {
    if constexpr (std::is_integral_v<C>) {
      const double v = static_cast<double>(x);
      if (v < -lambd_) return FloatToInt<C>(v + bias_);
      if (v > lambd_) return FloatToInt<C>(v - bias_);
      return 0;
    } else {
      const C lambd = static_cast<C>(lambd_);
      const C bias = static_cast<C>(bias_);
      return x < -lambd ? x + bias : (x > lambd ? x - bias : (x != x ? x : C{0}));
    }
  }
  double lambd_;
  double bias_;
};

template <typename C>
struct FloorOp {
  C operator()(C x) const { return std::floor(x); }
};
template <typename C>
struct CeilOp {
  C operator()(C x) const { return std::ceil(x); }
};
// Half to even: nearbyint in the default rounding mode (FE_TONEAREST).
template <typename C>
struct RoundOp {
  C operator()(C x) const { return std::nearbyint(x); }
};
template <typename C>
struct ReciprocalOp {
  C operator()(C x) const { return C{1} / x; }
};
// Sin, Cos and Tan in float: FastSin, FastCos and FastTan for |x| <= kFastTrigLimit, std:: beyond
// (Exact; MapChecked picks per block).
template <typename C>
struct SinOp {
  static constexpr float kFastLimit = kFastTrigLimit;
  static C Exact(C x) { return std::sin(x); }
  C operator()(C x) const {
    if constexpr (std::is_same_v<C, float>) return FastSin(x);
    else return std::sin(x);
  }
};
template <typename C>
struct CosOp {
  static constexpr float kFastLimit = kFastTrigLimit;
  static C Exact(C x) { return std::cos(x); }
  C operator()(C x) const {
    if constexpr (std::is_same_v<C, float>) return FastCos(x);
    else return std::cos(x);
  }
};
template <typename C>
struct TanOp {
  static constexpr float kFastLimit = kFastTrigLimit;
  static C Exact(C x) { return std::tan(x); }
  C operator()(C x) const {
    if constexpr (std::is_same_v<C, float>) return FastTan(x);
    else return std::tan(x);
  }
};
template <typename C>
struct AsinOp {
  C operator()(C x) const {
    if constexpr (std::is_same_v<C, float>) return FastAsin(x);
    else return std::asin(x);
  }
};
template <typename C>
struct AcosOp {
  C operator()(C x) const {
    if constexpr (std::is_same_v<C, float>) return FastAcos(x);
    else return std::acos(x);
  }
};
template <typename C>
struct AtanOp {
  C operator()(C x) const {
    if constexpr (std::is_same_v<C, float>) return FastAtan(x);
    else return std::atan(x);
  }
};
template <typename C>
struct SinhOp {
  C operator()(C x) const {
    if constexpr (std::is_same_v<C, float>) return FastSinh(x);
    else return std::sinh(x);
  }
};
template <typename C>
struct CoshOp {
  C operator()(C x) const {
    if constexpr (std::is_same_v<C, float>) return FastCosh(x);
    else return std::cosh(x);
  }
};
template <typename C>
struct AsinhOp {
  C operator()(C x) const { return std::asinh(x); }
};
template <typename C>
struct AcoshOp {
  C operator()(C x) const { return std::acosh(x); }
};
template <typename C>
struct AtanhOp {
  C operator()(C x) const { return std::atanh(x); }
};

template <typename C>
struct NotOp {
  bool operator()(bool x) const { return !x; }
};

template <typename C>
struct BitwiseNotOp {
  C operator()(C x) const { return static_cast<C>(~x); }
};

template <typename C>
struct IsNanOp {
  bool operator()(C x) const { return x != x; }
};

template <typename C>
struct IsInfOp {
  // An infinity not to detect is replaced by NaN, which equals nothing: two compares and no
  // branch per element, so the loop vectorises.
  explicit IsInfOp(const UnaryAttrs& a)
      : negative_(a.detect_negative ? -std::numeric_limits<C>::infinity()
                                    : std::numeric_limits<C>::quiet_NaN()),
        positive_(a.detect_positive ? std::numeric_limits<C>::infinity()
                                    : std::numeric_limits<C>::quiet_NaN()) {}
  bool operator()(C x) const { return (x == positive_) | (x == negative_); }
  C negative_;
  C positive_;
};

template <typename Op>
Op MakeOp(const UnaryAttrs& attrs) {
  if constexpr (std::is_constructible_v<Op, const UnaryAttrs&>) {
    return Op(attrs);
  } else {
    return Op{};
  }
}

// A float functor valid only for |x| <= Op::kFastLimit, with Op::Exact for the other inputs.
template <typename Op>
concept HasFastLimit = requires { Op::kFastLimit; };

// y[i] = op(x[i]) for float x and y (they may be the same buffer) in the widest SIMD build, for an
// op with a fast limit: blocks whose every |x| is within it take op, the others (with an inf,
// a NaN or a large value) Exact element by element beyond the limit.
template <typename Op>
void MapChecked(const Op& op, const float* x, float* y, int64_t count) {
  constexpr int64_t kBlock = 1024;
  for (int64_t start = 0; start < count; start += kBlock) {
    const int64_t n = std::min(kBlock, count - start);
    const float* xb = x + start;
    float* yb = y + start;
    int outside = 0;
    CallWidest([&] {
      for (int64_t i = 0; i < n; ++i) outside |= !(std::fabs(xb[i]) <= Op::kFastLimit);
    });
    if (outside == 0) {
      MapElements(op, xb, yb, n);
      continue;
    }
    // In the same build as the vector loop, so an element's result does not depend on whether
    // its block had an element beyond the limit.
    CallWidest([&] {
      for (int64_t i = 0; i < n; ++i) {
        yb[i] = std::fabs(xb[i]) <= Op::kFastLimit ? op(xb[i]) : Op::Exact(xb[i]);
      }
    });
  }
}

template <typename Op, typename TI, typename TO>
void RunUnaryTyped(const UnaryAttrs& attrs, const void* in, void* out, int64_t count) {
  const Op op = MakeOp<Op>(attrs);
  const auto* x = static_cast<const TI*>(in);
  auto* y = static_cast<TO*>(out);
  constexpr bool kChecked = HasFastLimit<Op> && std::is_same_v<Compute<TI>, float>;
  if constexpr (kIsHalf<TI>) {
    // A block converted to float in bulk (half_convert.h), the float loop, and a half output
    // converted back: one pass over memory at the float loop's speed, with the float results.
    constexpr int64_t kBlock = 512;
    float block_in[kBlock];
    float block_out[kBlock];
    for (int64_t start = 0; start < count; start += kBlock) {
      const int64_t n = std::min(kBlock, count - start);
      ToFloat(x + start, block_in, n);
      if constexpr (kChecked) {
        MapChecked(op, block_in, block_out, n);
        FromFloat(block_out, y + start, n);
      } else if constexpr (kIsHalf<TO>) {
        MapElements(op, block_in, block_out, n);
        FromFloat(block_out, y + start, n);
      } else {
        MapElements(op, block_in, y + start, n);
      }
    }
  } else if constexpr (kChecked) {
    MapChecked(op, x, y, count);
  } else if constexpr (std::is_same_v<TI, float>) {
    MapElements(op, x, y, count);
  } else {
    for (int64_t i = 0; i < count; ++i) y[i] = op(x[i]);
  }
}

template <template <typename> class Op, typename List, OutKind kOut>
Status BindUnary(UnaryKind kind, DataType type, UnaryPlan* plan) {
  return DispatchType<List>(type, UnaryKindName(kind), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using TO = std::conditional_t<kOut == OutKind::kBool, bool, T>;
    plan->out_type = DataTypeOf<TO>();
    plan->fn = &RunUnaryTyped<Op<Compute<T>>, T, TO>;
  });
}

template <typename T>
void RunClipTyped(const void* in, void* out, int64_t count, const void* min, const void* max) {
  using C = Compute<T>;
  const auto* x = static_cast<const T*>(in);
  auto* y = static_cast<T*>(out);
  C lo = std::numeric_limits<C>::lowest();
  C hi = std::numeric_limits<C>::max();
  if constexpr (std::is_floating_point_v<C>) {
    lo = -std::numeric_limits<C>::infinity();
    hi = std::numeric_limits<C>::infinity();
  }
  if (min != nullptr) lo = Load(*static_cast<const T*>(min));
  if (max != nullptr) hi = Load(*static_cast<const T*>(max));
  for (int64_t i = 0; i < count; ++i) {
    C v = Load(x[i]);
    v = v < lo ? lo : v;
    y[i] = Store<T>(v > hi ? hi : v);
  }
}

}  // namespace

std::string_view UnaryKindName(UnaryKind kind) {
  switch (kind) {
#define NXRT_UNARY_KIND(name, functor, types, out) \
  case UnaryKind::k##name:                         \
    return #name;
#include "ep/cpu/math/elementwise/unary_kinds.inc"
#undef NXRT_UNARY_KIND
  }
  return "unknown unary op";
}

UnaryAttrs DefaultUnaryAttrs(UnaryKind kind) {
  UnaryAttrs a;
  switch (kind) {
    case UnaryKind::kLeakyRelu: a.alpha = 0.01f; break;
    case UnaryKind::kElu:
    case UnaryKind::kCelu:
    case UnaryKind::kThresholdedRelu: a.alpha = 1.0f; break;
    case UnaryKind::kSelu:
      a.alpha = 1.67326319217681884765625f;
      a.gamma = 1.05070102214813232421875f;
      break;
    case UnaryKind::kHardSigmoid:
      a.alpha = 0.2f;
      a.beta = 0.5f;
      break;
    case UnaryKind::kShrink: a.lambd = 0.5f; break;
    default: break;
  }
  return a;
}

Result<UnaryPlan> PrepareUnary(UnaryKind kind, DataType type, const UnaryAttrs& attrs) {
  UnaryPlan plan;
  plan.kind = kind;
  plan.attrs = attrs;
  Status status;
  if (kind == UnaryKind::kGelu && attrs.gelu_tanh) {
    status = BindUnary<GeluTanhOp, FloatTypesBf16, OutKind::kSame>(kind, type, &plan);
  } else {
    switch (kind) {
#define NXRT_UNARY_KIND(name, functor, types, out)                           \
  case UnaryKind::k##name:                                                   \
    status = BindUnary<functor, types, OutKind::k##out>(kind, type, &plan); \
    break;
#include "ep/cpu/math/elementwise/unary_kinds.inc"
#undef NXRT_UNARY_KIND
    }
  }
  NXRT_RETURN_IF_ERROR(status);
  if (plan.fn == nullptr) {
    return MakeStatus(StatusCode::kInternal, "unknown unary kind ", static_cast<int>(kind));
  }
  return plan;
}

Result<UnaryPlan> PrepareUnary(UnaryKind kind, DataType type) {
  return PrepareUnary(kind, type, DefaultUnaryAttrs(kind));
}

void RunUnary(const UnaryPlan& plan, const void* in, void* out, int64_t count) {
  plan.fn(plan.attrs, in, out, count);
}

Status Unary(UnaryKind kind, const Tensor& in, Tensor* out, const UnaryAttrs& attrs) {
  const std::string_view name = UnaryKindName(kind);
  NXRT_RETURN_IF_ERROR(CheckInput(name, "input", in));
  NXRT_ASSIGN_OR_RETURN(UnaryPlan plan, PrepareUnary(kind, in.dtype(), attrs));
  NXRT_RETURN_IF_ERROR(PrepareOutput(name, plan.out_type, in.shape(), out));
  RunUnary(plan, in.raw_data(), out->mutable_raw_data(), in.element_count());
  return Status::Ok();
}

Status Unary(UnaryKind kind, const Tensor& in, Tensor* out) {
  return Unary(kind, in, out, DefaultUnaryAttrs(kind));
}

Result<ClipPlan> PrepareClip(DataType type) {
  ClipPlan plan;
  plan.type = type;
  NXRT_RETURN_IF_ERROR(DispatchType<NumericTypesBf16>(
      type, "Clip", [&](auto tag) { plan.fn = &RunClipTyped<typename decltype(tag)::type>; }));
  return plan;
}

void RunClip(const ClipPlan& plan, const void* in, void* out, int64_t count, const void* min,
             const void* max) {
  plan.fn(in, out, count, min, max);
}

Status Clip(const Tensor& in, const Tensor* min, const Tensor* max, Tensor* out) {
  NXRT_RETURN_IF_ERROR(CheckInput("Clip", "input", in));
  const void* bounds[2] = {nullptr, nullptr};
  const Tensor* given[2] = {min, max};
  const char* names[2] = {"min", "max"};
  for (int k = 0; k < 2; ++k) {
    if (given[k] == nullptr || !given[k]->defined()) continue;
    if (given[k]->dtype() != in.dtype() || given[k]->element_count() != 1) {
      return MakeStatus(StatusCode::kInvalidArgument, "Clip: ", names[k], " is ",
                        given[k]->Description(), ", expected one ", DataTypeName(in.dtype()),
                        " element");
    }
    bounds[k] = given[k]->raw_data();
  }
  NXRT_ASSIGN_OR_RETURN(ClipPlan plan, PrepareClip(in.dtype()));
  NXRT_RETURN_IF_ERROR(PrepareOutput("Clip", in.dtype(), in.shape(), out));
  RunClip(plan, in.raw_data(), out->mutable_raw_data(), in.element_count(), bounds[0], bounds[1]);
  return Status::Ok();
}

}  // namespace nxrt::cpu::math
