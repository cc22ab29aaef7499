// ep/cpu/kernels/elementwise/register_elementwise.cpp: the elementwise family's kernel table.
//
// Layer: nxrt_ep_cpu. One entry per (op, opset range) with the dtypes of the ONNX schema in force
// over that range (onnx/defs/math/defs.cc, logical/defs.cc, tensor/defs.cc and their old.cc);
// a range ends where a later schema version changed the types or the semantics. The binary ops
// before opset 7 (`broadcast`/`axis` attributes, PRelu-6's per-channel slope) have their own
// legacy entries, since old exporters (PyTorch's opset-6 era) wrote them; the unary ops start at
// opset 6 (their opset-1 schemas only add consumed_inputs).
#include <tuple>

#include "ep/cpu/kernels/elementwise/elementwise.h"
#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/register.h"
#include "ep/cpu/math/element_types.h"
#include "ep/cpu/nxrt_ops.h"

namespace nxrt::cpu {
namespace {

using kernels::Bind;
using kernels::BindVariadic;
using kernels::OnnxKernel;
using math::BinaryKind;
using math::UnaryKind;
using math::VariadicKind;
using Types = std::vector<DataType>;

// Signed types of Neg-6 and Relu-14 besides the float types.
Types SignedInts() {
  return {DataType::kInt8, DataType::kInt16, DataType::kInt32, DataType::kInt64};
}

// A T(A, B) -> T binary op.
ep::KernelDef Binary(BinaryKind kind, int since, int until, Types types) {
  return OnnxKernel(std::string(math::BinaryKindName(kind)), since, until,
                    {Bind("T", {0, 1}, {0}, std::move(types))}, kernels::BinaryFactory(kind));
}

// A T(A, B) -> bool comparison or logic op.
ep::KernelDef Predicate(BinaryKind kind, int since, int until, Types types) {
  return OnnxKernel(std::string(math::BinaryKindName(kind)), since, until,
                    {Bind("T", {0, 1}, {}, std::move(types)),
                     Bind("T1", {}, {0}, {DataType::kBool})},
                    kernels::BinaryFactory(kind));
}

// The opset < 7 form of a T(A, B) -> T op (legacy broadcast/axis attributes).
ep::KernelDef LegacyBinary(BinaryKind kind, int since, int until, Types types) {
  return OnnxKernel(std::string(math::BinaryKindName(kind)), since, until,
                    {Bind("T", {0, 1}, {0}, std::move(types))},
                    kernels::LegacyBinaryFactory(kind));
}

// The opset < 7 form of a T(A, B) -> bool op.
ep::KernelDef LegacyPredicate(BinaryKind kind, int since, int until, Types types) {
  return OnnxKernel(std::string(math::BinaryKindName(kind)), since, until,
                    {Bind("T", {0, 1}, {}, std::move(types)),
                     Bind("T1", {}, {0}, {DataType::kBool})},
                    kernels::LegacyBinaryFactory(kind));
}

// Pow: base and result T, exponent T1 (T everywhere before opset 12).
ep::KernelDef Pow(int since, int until, Types base, Types exponent) {
  return OnnxKernel("Pow", since, until,
                    {Bind("T", {0}, {0}, std::move(base)),
                     Bind("T1", {1}, {}, std::move(exponent))},
                    kernels::BinaryFactory(BinaryKind::kPow));
}

ep::KernelDef Variadic(std::string op, VariadicKind kind, int since, int until, Types types) {
  return OnnxKernel(std::move(op), since, until, {BindVariadic("T", 0, {0}, std::move(types))},
                    kernels::VariadicFactory(kind));
}

// A T -> T unary op.
ep::KernelDef Unary(UnaryKind kind, int since, int until, Types types) {
  return OnnxKernel(std::string(math::UnaryKindName(kind)), since, until,
                    {Bind("T", {0}, {0}, std::move(types))}, kernels::UnaryFactory(kind));
}

// A T1 -> bool unary predicate (IsNaN, IsInf).
ep::KernelDef UnaryPredicate(UnaryKind kind, int since, int until, Types types) {
  return OnnxKernel(std::string(math::UnaryKindName(kind)), since, until,
                    {Bind("T1", {0}, {}, std::move(types)), Bind("T2", {}, {0}, {DataType::kBool})},
                    kernels::UnaryFactory(kind));
}

}  // namespace

Status RegisterElementwiseKernels(ep::OpRegistry& registry) {
  using kernels::AllTypes;
  using kernels::ArithTypes7;
  using kernels::FloatTypes;
  using kernels::FloatTypesBf16;
  using kernels::IntTypes;
  using kernels::NumericAndBoolTypes;
  using kernels::NumericTypes;
  using kernels::NumericTypesBf16;
  using kernels::Union;
  const Types kBool = {DataType::kBool};
  const Types kUnsigned = {DataType::kUint8, DataType::kUint16, DataType::kUint32,
                           DataType::kUint64};
  const Types kPreluInts = {DataType::kUint32, DataType::kUint64, DataType::kInt32,
                            DataType::kInt64};
  const Types kPowBase = {DataType::kInt32, DataType::kInt64, DataType::kFloat16,
                          DataType::kFloat, DataType::kDouble};
  std::vector<ep::KernelDef> defs;
  for (BinaryKind kind : {BinaryKind::kAdd, BinaryKind::kSub, BinaryKind::kMul, BinaryKind::kDiv}) {
    defs.push_back(LegacyBinary(kind, 1, 5, FloatTypes()));
    defs.push_back(LegacyBinary(kind, 6, 6, ArithTypes7()));
    defs.push_back(Binary(kind, 7, 12, ArithTypes7()));
    defs.push_back(Binary(kind, 13, 13, Union(ArithTypes7(), {DataType::kBFloat16})));
    defs.push_back(Binary(kind, 14, kLatest, NumericTypesBf16()));
  }
  defs.push_back(LegacyBinary(BinaryKind::kPow, 1, 6, FloatTypes()));
  defs.push_back(Pow(7, 11, FloatTypes(), FloatTypes()));
  defs.push_back(Pow(12, 12, kPowBase, NumericTypes()));
  defs.push_back(Pow(13, 14, Union(kPowBase, {DataType::kBFloat16}), NumericTypes()));
  defs.push_back(Pow(15, kLatest, Union(kPowBase, {DataType::kBFloat16}), NumericTypesBf16()));
  defs.push_back(Binary(BinaryKind::kMod, 10, 12, NumericTypes()));
  defs.push_back(Binary(BinaryKind::kMod, 13, kLatest, NumericTypesBf16()));
  defs.push_back(Binary(BinaryKind::kBitShift, 11, kLatest, kUnsigned));
  defs.push_back(Binary(BinaryKind::kBitwiseAnd, 18, kLatest, IntTypes()));
  defs.push_back(Binary(BinaryKind::kBitwiseOr, 18, kLatest, IntTypes()));
  defs.push_back(Binary(BinaryKind::kBitwiseXor, 18, kLatest, IntTypes()));
  defs.push_back(LegacyBinary(BinaryKind::kPRelu, 1, 6, FloatTypes()));
  defs.push_back(Binary(BinaryKind::kPRelu, 7, 8, FloatTypes()));
  defs.push_back(Binary(BinaryKind::kPRelu, 9, 15, Union(FloatTypes(), kPreluInts)));
  defs.push_back(Binary(BinaryKind::kPRelu, 16, kLatest, Union(FloatTypesBf16(), kPreluInts)));

  for (auto [op, kind] : {std::pair{"Max", VariadicKind::kMax}, {"Min", VariadicKind::kMin}}) {
    defs.push_back(Variadic(op, kind, 6, 11, FloatTypes()));
    defs.push_back(Variadic(op, kind, 12, 12, NumericTypes()));
    defs.push_back(Variadic(op, kind, 13, kLatest, NumericTypesBf16()));
  }
  for (auto [op, kind] : {std::pair{"Sum", VariadicKind::kSum}, {"Mean", VariadicKind::kMean}}) {
    defs.push_back(Variadic(op, kind, 6, 12, FloatTypes()));
    defs.push_back(Variadic(op, kind, 13, kLatest, FloatTypesBf16()));
  }

  defs.push_back(LegacyPredicate(BinaryKind::kEqual, 1, 6,
                                 {DataType::kBool, DataType::kInt32, DataType::kInt64}));
  defs.push_back(Predicate(BinaryKind::kEqual, 7, 10,
                           {DataType::kBool, DataType::kInt32, DataType::kInt64}));
  defs.push_back(Predicate(BinaryKind::kEqual, 11, 12, Union(kBool, NumericTypes())));
  defs.push_back(Predicate(BinaryKind::kEqual, 13, 18, Union(kBool, NumericTypesBf16())));
  defs.push_back(Predicate(BinaryKind::kEqual, 19, kLatest,
                           Union(NumericAndBoolTypes(), {DataType::kString})));
  for (BinaryKind kind : {BinaryKind::kLess, BinaryKind::kGreater}) {
    defs.push_back(LegacyPredicate(kind, 1, 6, FloatTypes()));
    defs.push_back(Predicate(kind, 7, 8, FloatTypes()));
    defs.push_back(Predicate(kind, 9, 12, NumericTypes()));
    defs.push_back(Predicate(kind, 13, kLatest, NumericTypesBf16()));
  }
  for (BinaryKind kind : {BinaryKind::kLessOrEqual, BinaryKind::kGreaterOrEqual}) {
    defs.push_back(Predicate(kind, 12, 15, NumericTypes()));
    defs.push_back(Predicate(kind, 16, kLatest, NumericTypesBf16()));
  }
  for (BinaryKind kind : {BinaryKind::kAnd, BinaryKind::kOr, BinaryKind::kXor}) {
    defs.push_back(LegacyPredicate(kind, 1, 6, kBool));
    defs.push_back(Predicate(kind, 7, kLatest, kBool));
  }
  defs.push_back(OnnxKernel("Where", 9, 15,
                            {Bind("B", {0}, {}, kBool),
                             Bind("T", {1, 2}, {0}, Union(NumericTypes(), {DataType::kBool,
                                      DataType::kString, DataType::kComplex64,
                                      DataType::kComplex128}))},
                            kernels::WhereFactory()));
  defs.push_back(OnnxKernel("Where", 16, kLatest,
                            {Bind("B", {0}, {}, kBool), Bind("T", {1, 2}, {0}, AllTypes())},
                            kernels::WhereFactory()));

  // Unary ops whose schemas went from FloatTypes (opset 6) to FloatTypesBf16 (opset 13).
  for (UnaryKind kind : {UnaryKind::kSqrt, UnaryKind::kExp, UnaryKind::kLog, UnaryKind::kTanh,
                         UnaryKind::kSigmoid, UnaryKind::kFloor, UnaryKind::kCeil,
                         UnaryKind::kReciprocal}) {
    defs.push_back(Unary(kind, 6, 12, FloatTypes()));
    defs.push_back(Unary(kind, 13, kLatest, FloatTypesBf16()));
  }
  defs.push_back(Unary(UnaryKind::kAbs, 6, 12, NumericTypes()));
  defs.push_back(Unary(UnaryKind::kAbs, 13, kLatest, NumericTypesBf16()));
  defs.push_back(Unary(UnaryKind::kNeg, 6, 12, Union(FloatTypes(), SignedInts())));
  defs.push_back(Unary(UnaryKind::kNeg, 13, kLatest, Union(FloatTypesBf16(), SignedInts())));
  defs.push_back(Unary(UnaryKind::kSign, 9, 12, NumericTypes()));
  defs.push_back(Unary(UnaryKind::kSign, 13, kLatest, NumericTypesBf16()));
  defs.push_back(Unary(UnaryKind::kErf, 9, 12, NumericTypes()));
  defs.push_back(Unary(UnaryKind::kErf, 13, kLatest, NumericTypesBf16()));
  defs.push_back(Unary(UnaryKind::kRelu, 6, 12, FloatTypes()));
  defs.push_back(Unary(UnaryKind::kRelu, 13, 13, FloatTypesBf16()));
  defs.push_back(Unary(UnaryKind::kRelu, 14, kLatest, Union(FloatTypesBf16(), SignedInts())));
  defs.push_back(Unary(UnaryKind::kLeakyRelu, 6, 15, FloatTypes()));
  defs.push_back(Unary(UnaryKind::kLeakyRelu, 16, kLatest, FloatTypesBf16()));
  for (UnaryKind kind : {UnaryKind::kElu, UnaryKind::kSelu, UnaryKind::kHardSigmoid}) {
    defs.push_back(Unary(kind, 6, kLatest, FloatTypes()));
  }
  defs.push_back(Unary(UnaryKind::kSoftplus, 1, kLatest, FloatTypes()));
  defs.push_back(Unary(UnaryKind::kSoftsign, 1, kLatest, FloatTypes()));
  for (UnaryKind kind : {UnaryKind::kSin, UnaryKind::kCos, UnaryKind::kTan, UnaryKind::kAsin,
                         UnaryKind::kAcos, UnaryKind::kAtan}) {
    defs.push_back(Unary(kind, 7, kLatest, FloatTypes()));
  }
  for (UnaryKind kind : {UnaryKind::kSinh, UnaryKind::kCosh, UnaryKind::kAsinh,
                         UnaryKind::kAcosh, UnaryKind::kAtanh}) {
    defs.push_back(Unary(kind, 9, kLatest, FloatTypes()));
  }
  defs.push_back(Unary(UnaryKind::kShrink, 9, kLatest, NumericTypes()));
  defs.push_back(Unary(UnaryKind::kThresholdedRelu, 10, kLatest, FloatTypes()));
  defs.push_back(Unary(UnaryKind::kRound, 11, kLatest, FloatTypes()));
  defs.push_back(Unary(UnaryKind::kCelu, 12, kLatest, {DataType::kFloat}));
  defs.push_back(Unary(UnaryKind::kHardSwish, 14, kLatest, FloatTypes()));
  defs.push_back(Unary(UnaryKind::kMish, 18, kLatest, FloatTypes()));
  defs.push_back(Unary(UnaryKind::kGelu, 20, kLatest, FloatTypesBf16()));
  // com.nxrt:Gelu: what gelu_fusion makes of x * 0.5 * (1 + Erf(x / sqrt(2))) and of the tanh
  // form; the same semantics as Gelu-20 (attribute approximate "none" or "tanh").
  defs.push_back(kernels::NxrtKernel(nxrt_ops::kGelu, {Bind("T", {0}, {0}, FloatTypesBf16())},
                                     kernels::UnaryFactory(UnaryKind::kGelu)));
  defs.push_back(Unary(UnaryKind::kNot, 1, kLatest, kBool));
  defs.push_back(Unary(UnaryKind::kBitwiseNot, 18, kLatest, IntTypes()));
  defs.push_back(UnaryPredicate(UnaryKind::kIsNaN, 9, 12, FloatTypes()));
  defs.push_back(UnaryPredicate(UnaryKind::kIsNaN, 13, kLatest, FloatTypesBf16()));
  defs.push_back(UnaryPredicate(UnaryKind::kIsInf, 10, 19, {DataType::kFloat, DataType::kDouble}));
  defs.push_back(UnaryPredicate(UnaryKind::kIsInf, 20, kLatest, FloatTypesBf16()));

  const auto clip = [](int since, int until, Types types) {
    return OnnxKernel("Clip", since, until, {Bind("T", {0, 1, 2}, {0}, std::move(types))},
                      kernels::ClipFactory(/*bounds_as_inputs=*/since >= 11));
  };
  defs.push_back(clip(6, 10, FloatTypes()));
  defs.push_back(clip(11, 11, FloatTypes()));
  defs.push_back(clip(12, 12, NumericTypes()));
  defs.push_back(clip(13, kLatest, NumericTypesBf16()));

  const Types cast6 = Union(NumericTypes(), kBool);
  const Types cast9 = Union(cast6, {DataType::kString});
  const Types cast13 = Union(NumericAndBoolTypes(), {DataType::kString});
  const Types cast19 = Union(cast13, math::DataTypes(math::Float8Types{}));
  const Types cast21 = Union(cast19, {DataType::kInt4, DataType::kUint4});
  const auto cast = [](int since, int until, const Types& types) {
    return OnnxKernel("Cast", since, until,
                      {Bind("T1", {0}, {}, types), Bind("T2", {}, {0}, types)},
                      kernels::CastFactory(), kernels::CastCheck());
  };
  defs.push_back(cast(6, 8, cast6));
  defs.push_back(cast(9, 12, cast9));
  defs.push_back(cast(13, 18, cast13));
  defs.push_back(cast(19, 20, cast19));
  defs.push_back(cast(21, kLatest, cast21));
  for (const auto& [since, until, types] :
       {std::tuple{15, 18, cast13}, {19, 20, cast19}, {21, kLatest, cast21}}) {
    defs.push_back(OnnxKernel("CastLike", since, until,
                              {Bind("T1", {0}, {}, types), Bind("T2", {1}, {0}, types)},
                              kernels::CastLikeFactory()));
  }

  const Types all12 = Union(NumericTypes(), {DataType::kBool, DataType::kString,
                                             DataType::kComplex64, DataType::kComplex128});
  defs.push_back(OnnxKernel("Identity", 1, 12, {Bind("T", {0}, {0}, all12)},
                            kernels::IdentityFactory(), kernels::TensorOnlyCheck()));
  defs.push_back(OnnxKernel("Identity", 13, kLatest, {Bind("V", {0}, {0}, AllTypes())},
                            kernels::IdentityFactory(), kernels::TensorOnlyCheck()));

  defs.push_back(OnnxKernel("Dropout", 7, 9, {Bind("T", {0}, {0, 1}, FloatTypes())},
                            kernels::DropoutFactory(/*mask_is_bool=*/false)));
  defs.push_back(OnnxKernel("Dropout", 10, 11,
                            {Bind("T", {0}, {0}, FloatTypes()), Bind("T1", {}, {1}, kBool)},
                            kernels::DropoutFactory(/*mask_is_bool=*/true)));
  // Dropout-12+ (ratio and training_mode inputs) is in the random family (kernels/random/).
  return kernels::RegisterAll(registry, std::move(defs));
}

}  // namespace nxrt::cpu
