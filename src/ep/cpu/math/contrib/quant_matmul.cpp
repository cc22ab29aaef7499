// ep/cpu/math/contrib/quant_matmul.cpp: see quant_matmul.h.
#include "ep/cpu/math/contrib/quant_matmul.h"

#include <string>
#include <vector>

namespace nxrt::cpu::contrib {
namespace {

inline int32_t Load(const void* p, int64_t i, bool is_signed) {
  return is_signed ? static_cast<const int8_t*>(p)[i] : static_cast<const uint8_t*>(p)[i];
}

}  // namespace

Result<IntegerToFloatPlan> PrepareIntegerToFloat(
    std::string_view op, DataType a_dtype, DataType b_dtype, std::span<const int64_t> a_shape,
    std::span<const int64_t> b_shape, int64_t a_scale_count, int64_t b_scale_count,
    std::optional<int64_t> a_zero_point_count, std::optional<int64_t> b_zero_point_count,
    std::optional<int64_t> bias_count) {
  IntegerToFloatPlan p;
  p.a_signed = a_dtype == DataType::kInt8;
  p.b_signed = b_dtype == DataType::kInt8;
  if (b_shape.size() != 2 || a_shape.empty() || a_shape.back() != b_shape[0]) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": A ", ShapeToString(a_shape),
                      " and B ", ShapeToString(b_shape),
                      " do not fit; the CPU EP multiplies A [..., K] with a 2-D B [K, N]");
  }
  p.k = b_shape[0];
  p.n = b_shape[1];
  p.rows = 1;
  for (size_t i = 0; i + 1 < a_shape.size(); ++i) p.rows *= a_shape[i];
  const auto per_column = [&](std::string_view what, int64_t count, bool* flag) -> Status {
    if (count == 1 || count == p.n) {
      *flag = count == p.n && p.n != 1;
      return Status::Ok();
    }
    return MakeStatus(StatusCode::kInvalidArgument, op, ": ", what, " has ", count,
                      " elements; expected 1 or N = ", p.n);
  };
  if (a_scale_count != 1 || a_zero_point_count.value_or(1) != 1) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": a_scale has ", a_scale_count,
                      " and a_zero_point ", a_zero_point_count.value_or(0),
                      " elements; the CPU EP takes them per tensor (one element)");
  }
  NXRT_RETURN_IF_ERROR(per_column("b_scale", b_scale_count, &p.b_scale_per_column));
  if (b_zero_point_count) {
    NXRT_RETURN_IF_ERROR(
        per_column("b_zero_point", *b_zero_point_count, &p.b_zero_point_per_column));
  }
  if (bias_count && *bias_count != p.n) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": bias has ", *bias_count,
                      " elements; expected N = ", p.n);
  }
  p.output_shape.assign(a_shape.begin(), a_shape.end());
  p.output_shape.back() = p.n;
  return p;
}

void IntegerToFloatRows(const IntegerToFloatPlan& p, const IntegerToFloatOperands& o, float* y,
                        int64_t begin, int64_t end) {
  std::vector<int32_t> acc(static_cast<size_t>(p.n));
  std::vector<int32_t> b_zp(static_cast<size_t>(p.n), 0);
  if (o.b_zero_point != nullptr) {
    for (int64_t j = 0; j < p.n; ++j) {
      b_zp[static_cast<size_t>(j)] =
          Load(o.b_zero_point, p.b_zero_point_per_column ? j : 0, p.b_signed);
    }
  }
  for (int64_t r = begin; r < end; ++r) {
    std::fill(acc.begin(), acc.end(), 0);
    for (int64_t kk = 0; kk < p.k; ++kk) {
      const int32_t a = Load(o.a, r * p.k + kk, p.a_signed) - o.a_zero_point;
      if (a == 0) continue;
      for (int64_t j = 0; j < p.n; ++j) {
        acc[static_cast<size_t>(j)] +=
            a * (Load(o.b, kk * p.n + j, p.b_signed) - b_zp[static_cast<size_t>(j)]);
      }
    }
    for (int64_t j = 0; j < p.n; ++j) {
      const float scale = o.a_scale * o.b_scale[p.b_scale_per_column ? j : 0];
      y[r * p.n + j] = static_cast<float>(acc[static_cast<size_t>(j)]) * scale +
                       (o.bias != nullptr ? o.bias[j] : 0.0f);
    }
  }
}

}  // namespace nxrt::cpu::contrib
