// ep/cpu/math/testing/test_util.h: helpers of the nxrt_cpu_math tests: seeded random shapes and
// tensors, element access as double / 128-bit integer, naive index arithmetic and dtype tolerances.
//
// Layer: tests of nxrt_cpu_math only. The references in the *_test.cpp files are written with
// these plain helpers (nested index computations, double or __int128 arithmetic) so that they
// stay independent of the collapsed, typed loops under test.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "ep/cpu/math/element_types.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::math::testing {

using Int128 = __int128;

inline const std::vector<DataType>& AllNumericTypes() {
  static const std::vector<DataType> types = {
      DataType::kFloat, DataType::kDouble, DataType::kFloat16, DataType::kBFloat16,
      DataType::kInt8,  DataType::kInt16,  DataType::kInt32,   DataType::kInt64,
      DataType::kUint8, DataType::kUint16, DataType::kUint32,  DataType::kUint64};
  return types;
}

inline bool IsFloatType(DataType t) {
  return t == DataType::kFloat || t == DataType::kDouble || t == DataType::kFloat16 ||
         t == DataType::kBFloat16;
}

inline bool IsSignedType(DataType t) {
  return IsFloatType(t) || t == DataType::kInt8 || t == DataType::kInt16 ||
         t == DataType::kInt32 || t == DataType::kInt64;
}

// Element i of a numeric/bool tensor as double.
inline double GetDouble(const Tensor& t, int64_t i) {
  double v = 0;
  VisitType(NumericAndBoolTypes{}, t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    v = static_cast<double>(Load(t.data<T>()[i]));
  });
  return v;
}

// Element i of an integer/bool tensor, exactly.
inline Int128 GetInt(const Tensor& t, int64_t i) {
  Int128 v = 0;
  VisitType(Concat<IntTypes, BoolTypes>{}, t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    v = static_cast<Int128>(t.data<T>()[i]);
  });
  return v;
}

// Sets element i: floating types round `value`, integer types wrap `int_value` modulo 2^bits.
inline void SetValue(Tensor* t, int64_t i, double value, Int128 int_value) {
  VisitType(NumericAndBoolTypes{}, t->dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (kIsFloating<T>) {
      t->mutable_data<T>()[i] = Store<T>(static_cast<Compute<T>>(value));
    } else if constexpr (std::is_same_v<T, bool>) {
      t->mutable_data<T>()[i] = int_value != 0;
    } else {
      t->mutable_data<T>()[i] = static_cast<T>(static_cast<uint64_t>(int_value));
    }
  });
}

// `value` wrapped to integer type `t` (two's complement), as the tensor would store it.
inline Int128 WrapTo(DataType t, Int128 value) {
  Tensor tmp = Tensor::Allocate(t, {1}).value();
  SetValue(&tmp, 0, 0, value);
  return GetInt(tmp, 0);
}

// `value` rounded to floating type `t`.
inline double RoundTo(DataType t, double value) {
  Tensor tmp = Tensor::Allocate(t, {1}).value();
  SetValue(&tmp, 0, value, 0);
  return GetDouble(tmp, 0);
}

// A tensor of `shape` with uniform values in [lo, hi] (integers for integer types; bool 0/1).
inline Tensor RandomTensor(std::mt19937_64& rng, DataType type, const Shape& shape, double lo,
                           double hi) {
  Tensor t = Tensor::Allocate(type, shape).value();
  std::uniform_real_distribution<double> real(lo, hi);
  for (int64_t i = 0; i < t.element_count(); ++i) {
    if (IsFloatType(type)) {
      SetValue(&t, i, real(rng), 0);
    } else {
      std::uniform_int_distribution<int64_t> integer(static_cast<int64_t>(lo),
                                                     static_cast<int64_t>(hi));
      SetValue(&t, i, 0, integer(rng));
    }
  }
  return t;
}

// A random shape of rank in [min_rank, max_rank] with dims in [min_dim, max_dim].
inline Shape RandomShape(std::mt19937_64& rng, int min_rank, int max_rank, int64_t min_dim,
                         int64_t max_dim) {
  const int rank = std::uniform_int_distribution<int>(min_rank, max_rank)(rng);
  Shape shape(static_cast<size_t>(rank));
  for (int64_t& d : shape) d = std::uniform_int_distribution<int64_t>(min_dim, max_dim)(rng);
  return shape;
}

// A shape that broadcasts to `out`: some leading dims dropped, some dims set to 1.
inline Shape BroadcastableTo(std::mt19937_64& rng, const Shape& out) {
  const size_t drop = std::uniform_int_distribution<size_t>(0, out.size())(rng);
  Shape s(out.begin() + static_cast<std::ptrdiff_t>(drop), out.end());
  for (int64_t& d : s) {
    if (std::uniform_int_distribution<int>(0, 2)(rng) == 0) d = 1;
  }
  return s;
}

// The multi-index of linear position `linear` in `shape` (row-major).
inline std::vector<int64_t> Unravel(const Shape& shape, int64_t linear) {
  std::vector<int64_t> index(shape.size());
  for (size_t i = shape.size(); i-- > 0;) {
    index[i] = linear % shape[i];
    linear /= shape[i];
  }
  return index;
}

// Linear position in `in` of output multi-index `index` under right-aligned broadcasting.
inline int64_t BroadcastSource(const Shape& in, const std::vector<int64_t>& index) {
  int64_t linear = 0;
  const size_t offset = index.size() - in.size();
  for (size_t j = 0; j < in.size(); ++j) {
    linear = linear * in[j] + (in[j] == 1 ? 0 : index[offset + j]);
  }
  return linear;
}

// Relative tolerance used to compare results of type `t` computed in a different order.
inline double Tolerance(DataType t) {
  switch (t) {
    case DataType::kFloat: return 2e-6;
    case DataType::kDouble: return 1e-12;
    case DataType::kFloat16: return 2e-3;
    case DataType::kBFloat16: return 1.6e-2;
    default: return 0;
  }
}

// Expects `actual` ≈ `expected` for a floating type (NaNs match NaNs, infinities match exactly).
inline void ExpectClose(DataType t, double expected, double actual, const std::string& where) {
  if (std::isnan(expected)) {
    EXPECT_TRUE(std::isnan(actual)) << where << ": expected NaN, got " << actual;
    return;
  }
  if (std::isinf(expected) || std::isinf(actual)) {
    EXPECT_EQ(expected, actual) << where;
    return;
  }
  const double tol = Tolerance(t) * std::max(1.0, std::fabs(expected));
  EXPECT_NEAR(expected, actual, tol) << where;
}

template <typename T>
Tensor Make(const Shape& shape, const std::vector<T>& values) {
  return Tensor::FromVector<T>(shape, values).value();
}

template <typename T>
std::vector<T> Values(const Tensor& t) {
  const auto s = t.span<T>();
  return std::vector<T>(s.begin(), s.end());
}

}  // namespace nxrt::cpu::math::testing
