// ep/cpu/math/elementwise/binary.cpp: functors and typed loops of the binary and variadic
// elementwise ops.
//
// Layer: nxrt_cpu_math (framework-free reference math of the CPU EP).
// A functor template Op<C> computes one element in the compute type C (float for the 16-bit
// floats). BinaryLoop specialises the inner run on the inputs' inner strides (both contiguous, one
// broadcast scalar) so the plain loops over float/int auto-vectorise.
#include "ep/cpu/math/elementwise/binary.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "ep/cpu/math/element_types.h"
#include "ep/cpu/math/fast_exp.h"
#include "ep/cpu/math/shape_util.h"

namespace nxrt::cpu::math {
namespace {

// ---- functors (C: compute type of the inputs) ----

template <typename C>
struct AddOp {
  C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>) return WrapAdd(a, b);
    else return a + b;
  }
};

template <typename C>
struct SubOp {
  C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>) return WrapSub(a, b);
    else return a - b;
  }
};

template <typename C>
struct MulOp {
  C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>) return WrapMul(a, b);
    else return a * b;
  }
};

template <typename C>
struct DivOp {
  C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>) {
      if (b == 0) return 0;
      if constexpr (std::is_signed_v<C>) {
        if (b == -1) return WrapSub(C{0}, a);
      }
      return static_cast<C>(a / b);
    } else {
      return a / b;
    }
  }
};

// Mod with fmod=0: the result has the divisor's sign.
template <typename C>
struct FloorModOp {
  C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>) {
      if (b == 0) return 0;
      if constexpr (std::is_signed_v<C>) {
        if (b == -1) return 0;
        C r = static_cast<C>(a % b);
        if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<C>(r + b);
        return r;
      } else {
        return static_cast<C>(a % b);
      }
    } else {
      C r = std::fmod(a, b);
      if (r != 0 && ((r < 0) != (b < 0))) r += b;
      if (r == 0) r = std::copysign(C{0}, b);
      return r;
    }
  }
};

// Mod with fmod=1: C fmod, the result has the dividend's sign.
template <typename C>
struct TruncModOp {
  C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>) {
      if (b == 0) return 0;
      if constexpr (std::is_signed_v<C>) {
        if (b == -1) return 0;
      }
      return static_cast<C>(a % b);
    } else {
      return std::fmod(a, b);
    }
  }
};

// Pow with base compute type C and exponent compute type E; the result has type C.
template <typename C, typename E>
struct PowOp {
  C operator()(C base, E exponent) const {
    if constexpr (std::is_floating_point_v<C>) {
      // x^2 (variance in decomposed LayerNorm) as one correctly rounded multiply, not a pow call.
      if (exponent == E{2}) return base * base;
      using W = std::conditional_t<std::is_floating_point_v<E>, std::common_type_t<C, E>, C>;
      return static_cast<C>(std::pow(static_cast<W>(base), static_cast<W>(exponent)));
    } else if constexpr (std::is_floating_point_v<E>) {
      return FloatToInt<C>(std::pow(static_cast<double>(base), static_cast<double>(exponent)));
    } else {
      if constexpr (std::is_signed_v<E>) {
        if (exponent < 0) {
          if (base == 1) return 1;
          if (base == -1) return (exponent % 2 == 0) ? 1 : -1;
          return 0;
        }
      }
      C result = 1;
      C factor = base;
      for (auto e = static_cast<std::make_unsigned_t<E>>(exponent); e != 0; e >>= 1) {
        if (e & 1) result = WrapMul(result, factor);
        factor = WrapMul(factor, factor);
      }
      return result;
    }
  }
};

template <typename C>
struct MaxOp {
  C operator()(C a, C b) const { return MaxPropagateNan(a, b); }
};

template <typename C>
struct MinOp {
  C operator()(C a, C b) const { return MinPropagateNan(a, b); }
};

template <typename C>
struct EqualOp {
  bool operator()(const C& a, const C& b) const { return a == b; }
};
template <typename C>
struct LessOp {
  bool operator()(C a, C b) const { return a < b; }
};
template <typename C>
struct LessOrEqualOp {
  bool operator()(C a, C b) const { return a <= b; }
};
template <typename C>
struct GreaterOp {
  bool operator()(C a, C b) const { return a > b; }
};
template <typename C>
struct GreaterOrEqualOp {
  bool operator()(C a, C b) const { return a >= b; }
};

template <typename C>
struct AndOp {
  bool operator()(bool a, bool b) const { return a && b; }
};
template <typename C>
struct OrOp {
  bool operator()(bool a, bool b) const { return a || b; }
};
template <typename C>
struct XorOp {
  bool operator()(bool a, bool b) const { return a != b; }
};

template <typename C>
struct ShiftLeftOp {
  C operator()(C a, C b) const {
    if (b >= sizeof(C) * 8) return 0;
    return static_cast<C>(static_cast<uint64_t>(a) << b);
  }
};
template <typename C>
struct ShiftRightOp {
  C operator()(C a, C b) const {
    if (b >= sizeof(C) * 8) return 0;
    return static_cast<C>(a >> b);
  }
};

template <typename C>
struct BitwiseAndOp {
  C operator()(C a, C b) const { return static_cast<C>(a & b); }
};
template <typename C>
struct BitwiseOrOp {
  C operator()(C a, C b) const { return static_cast<C>(a | b); }
};
template <typename C>
struct BitwiseXorOp {
  C operator()(C a, C b) const { return static_cast<C>(a ^ b); }
};

// In float (so also for the 16-bit floats) FloatSelect computes both arms: a `?:` with the
// product in one arm keeps GCC from vectorising the loop (fast_exp.h).
template <typename C>
struct PReluOp {
  C operator()(C x, C slope) const {
    if constexpr (std::is_integral_v<C>) {
      return x < 0 ? WrapMul(x, slope) : x;
    } else if constexpr (std::is_same_v<C, float>) {
      return FloatSelect(x < 0.0f, x * slope, x);
    } else {
      return x < 0 ? x * slope : x;
    }
  }
};

// ---- typed loops ----

// out[i] = op(a[i * sa], b[i * sb]) for i < n, with the common stride patterns spelled out so
// the compiler vectorises them.
template <typename Op, typename TA, typename TB, typename TO>
void BinaryLoop(const TA* a, int64_t sa, const TB* b, int64_t sb, TO* out, int64_t n) {
  const Op op{};
  const auto f = [&op](const TA& x, const TB& y) -> TO {
    return Store<TO>(static_cast<Compute<TO>>(op(Load(x), Load(y))));
  };
  if (sa == 1 && sb == 1) {
    for (int64_t i = 0; i < n; ++i) out[i] = f(a[i], b[i]);
  } else if (sa == 0 && sb == 1) {
    const TA x = a[0];
    for (int64_t i = 0; i < n; ++i) out[i] = f(x, b[i]);
  } else if (sa == 1 && sb == 0) {
    const TB y = b[0];
    for (int64_t i = 0; i < n; ++i) out[i] = f(a[i], y);
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = f(a[i * sa], b[i * sb]);
  }
}

template <typename Op, typename TA, typename TB, typename TO>
void RunTyped(const BroadcastGeometry& g, const void* a, const void* b, void* out) {
  const auto* pa = static_cast<const TA*>(a);
  const auto* pb = static_cast<const TB*>(b);
  auto* po = static_cast<TO*>(out);
  const int64_t sa = g.inner_stride(0);
  const int64_t sb = g.inner_stride(1);
  int64_t written = 0;
  ForEachRun<2>(g, [&](const std::array<int64_t, 2>& offsets, int64_t n) {
    BinaryLoop<Op>(pa + offsets[0], sa, pb + offsets[1], sb, po + written, n);
    written += n;
  });
}

// Binds Op<Compute<T>> for a = b = T; the output is T (kSame) or bool (kBool).
template <template <typename> class Op, typename List, OutKind kOut = OutKind::kSame>
Status Bind(std::string_view op_name, DataType type, BinaryPlan* plan) {
  return DispatchType<List>(type, op_name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using TO = std::conditional_t<kOut == OutKind::kBool, bool, T>;
    plan->out_type = DataTypeOf<TO>();
    plan->fn = &RunTyped<Op<Compute<T>>, T, T, TO>;
  });
}

using PowBaseTypes = TypeList<int32_t, int64_t, float, double, Float16, BFloat16>;

Status BindPow(DataType base_type, DataType exponent_type, BinaryPlan* plan) {
  Status inner;
  Status outer = DispatchType<PowBaseTypes>(base_type, "Pow", [&](auto base_tag) {
    using TB = typename decltype(base_tag)::type;
    inner = DispatchType<NumericTypesBf16>(exponent_type, "Pow exponent", [&](auto exp_tag) {
      using TE = typename decltype(exp_tag)::type;
      plan->out_type = DataTypeOf<TB>();
      plan->fn = &RunTyped<PowOp<Compute<TB>, Compute<TE>>, TB, TE, TB>;
    });
  });
  NXRT_RETURN_IF_ERROR(outer);
  return inner;
}

using PReluTypes = Concat<FloatTypesBf16, TypeList<int32_t, int64_t, uint32_t, uint64_t>>;

Status BindKind(BinaryKind kind, DataType type, const BinaryAttrs& attrs, BinaryPlan* plan) {
  const std::string_view name = BinaryKindName(kind);
  switch (kind) {
    case BinaryKind::kAdd: return Bind<AddOp, NumericTypesBf16>(name, type, plan);
    case BinaryKind::kSub: return Bind<SubOp, NumericTypesBf16>(name, type, plan);
    case BinaryKind::kMul: return Bind<MulOp, NumericTypesBf16>(name, type, plan);
    case BinaryKind::kDiv: return Bind<DivOp, NumericTypesBf16>(name, type, plan);
    case BinaryKind::kMod:
      return attrs.fmod ? Bind<TruncModOp, NumericTypesBf16>(name, type, plan)
                        : Bind<FloorModOp, NumericTypesBf16>(name, type, plan);
    case BinaryKind::kPow: return Status(StatusCode::kInternal, "Pow is bound by BindPow");
    case BinaryKind::kMax: return Bind<MaxOp, NumericTypesBf16>(name, type, plan);
    case BinaryKind::kMin: return Bind<MinOp, NumericTypesBf16>(name, type, plan);
    case BinaryKind::kEqual:
      return Bind<EqualOp, Concat<NumericAndBoolTypes, StringTypes>, OutKind::kBool>(name, type,
                                                                                   plan);
    case BinaryKind::kLess: return Bind<LessOp, NumericTypesBf16, OutKind::kBool>(name, type, plan);
    case BinaryKind::kLessOrEqual:
      return Bind<LessOrEqualOp, NumericTypesBf16, OutKind::kBool>(name, type, plan);
    case BinaryKind::kGreater:
      return Bind<GreaterOp, NumericTypesBf16, OutKind::kBool>(name, type, plan);
    case BinaryKind::kGreaterOrEqual:
      return Bind<GreaterOrEqualOp, NumericTypesBf16, OutKind::kBool>(name, type, plan);
    case BinaryKind::kAnd: return Bind<AndOp, BoolTypes>(name, type, plan);
    case BinaryKind::kOr: return Bind<OrOp, BoolTypes>(name, type, plan);
    case BinaryKind::kXor: return Bind<XorOp, BoolTypes>(name, type, plan);
    case BinaryKind::kBitShift:
      return attrs.shift_left ? Bind<ShiftLeftOp, UnsignedIntTypes>(name, type, plan)
                              : Bind<ShiftRightOp, UnsignedIntTypes>(name, type, plan);
    case BinaryKind::kBitwiseAnd: return Bind<BitwiseAndOp, IntTypes>(name, type, plan);
    case BinaryKind::kBitwiseOr: return Bind<BitwiseOrOp, IntTypes>(name, type, plan);
    case BinaryKind::kBitwiseXor: return Bind<BitwiseXorOp, IntTypes>(name, type, plan);
    case BinaryKind::kPRelu: return Bind<PReluOp, PReluTypes>(name, type, plan);
  }
  return MakeStatus(StatusCode::kInternal, "unknown binary kind ", static_cast<int>(kind));
}

// Mean's final division, in the compute type.
template <typename T>
void DivideInPlace(void* out, int64_t count, int64_t inputs) {
  auto* p = static_cast<T*>(out);
  const Compute<T> divisor = static_cast<Compute<T>>(inputs);
  for (int64_t i = 0; i < count; ++i) p[i] = Store<T>(Load(p[i]) / divisor);
}

}  // namespace

std::string_view BinaryKindName(BinaryKind kind) {
  switch (kind) {
#define NXRT_BINARY_KIND(name) \
  case BinaryKind::k##name:    \
    return #name;
#include "ep/cpu/math/elementwise/binary_kinds.inc"
#undef NXRT_BINARY_KIND
  }
  return "unknown binary op";
}

Result<BinaryPlan> PrepareBinary(BinaryKind kind, DataType a_type, const Shape& a_shape,
                                 DataType b_type, const Shape& b_shape,
                                 const BinaryAttrs& attrs) {
  const std::string_view name = BinaryKindName(kind);
  BinaryPlan plan;
  plan.kind = kind;
  if (kind == BinaryKind::kPow) {
    NXRT_RETURN_IF_ERROR(BindPow(a_type, b_type, &plan));
  } else {
    if (a_type != b_type) {
      return MakeStatus(StatusCode::kInvalidArgument, name, ": input types differ: ",
                        DataTypeName(a_type), " vs ", DataTypeName(b_type));
    }
    NXRT_RETURN_IF_ERROR(BindKind(kind, a_type, attrs, &plan));
  }
  NXRT_ASSIGN_OR_RETURN(plan.out_shape, BroadcastShapes(name, a_shape, b_shape));
  if (kind == BinaryKind::kPRelu && plan.out_shape != a_shape) {
    return MakeStatus(StatusCode::kInvalidArgument,
                      "PRelu: slope shape ", ShapeToString(b_shape),
                      " does not broadcast to input shape ", ShapeToString(a_shape));
  }
  const Shape shapes[] = {a_shape, b_shape};
  NXRT_ASSIGN_OR_RETURN(plan.geometry, MakeBroadcastGeometry(name, plan.out_shape, shapes));
  return plan;
}

void RunBinary(const BinaryPlan& plan, const void* a, const void* b, void* out) {
  plan.fn(plan.geometry, a, b, out);
}

Status Binary(BinaryKind kind, const Tensor& a, const Tensor& b, Tensor* out,
              const BinaryAttrs& attrs) {
  const std::string_view name = BinaryKindName(kind);
  NXRT_RETURN_IF_ERROR(CheckInput(name, "input A", a));
  NXRT_RETURN_IF_ERROR(CheckInput(name, "input B", b));
  NXRT_ASSIGN_OR_RETURN(BinaryPlan plan,
                        PrepareBinary(kind, a.dtype(), a.shape(), b.dtype(), b.shape(), attrs));
  NXRT_RETURN_IF_ERROR(PrepareOutput(name, plan.out_type, plan.out_shape, out));
  RunBinary(plan, a.raw_data(), b.raw_data(), out->mutable_raw_data());
  return Status::Ok();
}

namespace {

std::string_view VariadicName(VariadicKind kind) {
  switch (kind) {
    case VariadicKind::kMax: return "Max";
    case VariadicKind::kMin: return "Min";
    case VariadicKind::kSum: return "Sum";
    case VariadicKind::kMean: return "Mean";
  }
  return "unknown variadic op";
}

}  // namespace

Result<VariadicPlan> PrepareVariadic(VariadicKind kind, DataType type,
                                     std::span<const Shape> input_shapes) {
  const std::string_view name = VariadicName(kind);
  if (input_shapes.empty()) {
    return MakeStatus(StatusCode::kInvalidArgument, name, ": needs at least one input");
  }
  VariadicPlan plan;
  plan.kind = kind;
  plan.type = type;
  NXRT_ASSIGN_OR_RETURN(plan.out_shape, BroadcastShapes(name, input_shapes));
  BinaryPlan step;
  switch (kind) {
    case VariadicKind::kMax:
      NXRT_RETURN_IF_ERROR((Bind<MaxOp, NumericTypesBf16>(name, type, &step)));
      break;
    case VariadicKind::kMin:
      NXRT_RETURN_IF_ERROR((Bind<MinOp, NumericTypesBf16>(name, type, &step)));
      break;
    case VariadicKind::kSum:
      NXRT_RETURN_IF_ERROR((Bind<AddOp, NumericTypesBf16>(name, type, &step)));
      break;
    case VariadicKind::kMean:
      NXRT_RETURN_IF_ERROR((Bind<AddOp, FloatTypesBf16>(name, type, &step)));
      NXRT_RETURN_IF_ERROR(DispatchType<FloatTypesBf16>(type, name, [&](auto tag) {
        plan.finish = &DivideInPlace<typename decltype(tag)::type>;
      }));
      break;
  }
  step.out_shape = plan.out_shape;
  for (size_t k = 1; k < input_shapes.size(); ++k) {
    const Shape shapes[] = {k == 1 ? input_shapes[0] : plan.out_shape, input_shapes[k]};
    NXRT_ASSIGN_OR_RETURN(step.geometry, MakeBroadcastGeometry(name, plan.out_shape, shapes));
    plan.steps.push_back(step);
  }
  return plan;
}

void RunVariadic(const VariadicPlan& plan, std::span<const void* const> inputs, void* out) {
  const int64_t count = Product(plan.out_shape);
  if (plan.steps.empty()) {
    if (out != inputs[0]) {
      std::memmove(out, inputs[0], static_cast<size_t>(count) * DataTypeSize(plan.type));
    }
  } else {
    for (size_t k = 0; k < plan.steps.size(); ++k) {
      RunBinary(plan.steps[k], k == 0 ? inputs[0] : out, inputs[k + 1], out);
    }
  }
  if (plan.finish != nullptr) {
    plan.finish(out, count, static_cast<int64_t>(inputs.size()));
  }
}

Status Variadic(VariadicKind kind, std::span<const Tensor> inputs, Tensor* out) {
  const std::string_view name = VariadicName(kind);
  if (inputs.empty()) {
    return MakeStatus(StatusCode::kInvalidArgument, name, ": needs at least one input");
  }
  std::vector<Shape> shapes;
  std::vector<const void*> data;
  for (size_t k = 0; k < inputs.size(); ++k) {
    NXRT_RETURN_IF_ERROR(CheckInput(name, "input " + std::to_string(k), inputs[k]));
    if (inputs[k].dtype() != inputs[0].dtype()) {
      return MakeStatus(StatusCode::kInvalidArgument, name, ": input ", k, " has type ",
                        DataTypeName(inputs[k].dtype()), ", input 0 has ",
                        DataTypeName(inputs[0].dtype()));
    }
    shapes.push_back(inputs[k].shape());
    data.push_back(inputs[k].raw_data());
  }
  NXRT_ASSIGN_OR_RETURN(VariadicPlan plan, PrepareVariadic(kind, inputs[0].dtype(), shapes));
  NXRT_RETURN_IF_ERROR(PrepareOutput(name, plan.type, plan.out_shape, out));
  RunVariadic(plan, data, out->mutable_raw_data());
  return Status::Ok();
}

}  // namespace nxrt::cpu::math
