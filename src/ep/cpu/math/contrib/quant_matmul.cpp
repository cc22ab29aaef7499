// ep/cpu/math/contrib/quant_matmul.cpp: see quant_matmul.h.
#include "ep/cpu/math/contrib/quant_matmul.h"

namespace nxrt::cpu::contrib {

Result<IntegerToFloatPlan> PrepareIntegerToFloat(
    std::string_view op, DataType a_dtype, DataType b_dtype, std::span<const int64_t> a_shape,
    std::span<const int64_t> b_shape, int64_t a_scale_count, int64_t b_scale_count,
    std::optional<int64_t> a_zero_point_count, std::optional<int64_t> b_zero_point_count,
    std::optional<int64_t> bias_count, const nn::IntProductOptions& options) {
  IntegerToFloatPlan p;
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
  const bool any_per_column = p.b_scale_per_column || p.b_zero_point_per_column;
  const Shape a_matrix = {p.rows, p.k}, b_params = any_per_column ? Shape{p.n} : Shape{};
  NXRT_ASSIGN_OR_RETURN(p.product, nn::PrepareIntMatMul(op, a_dtype, b_dtype, a_matrix, b_shape,
                                                        {}, b_params, options));
  p.product.y_dtype = DataType::kFloat;
  return p;
}

}  // namespace nxrt::cpu::contrib
