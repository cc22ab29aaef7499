// ep/cpu/math/shape_util.cpp: axis normalisation, axis splitting and Tensor checks.
//
// Layer: nxrt_cpu_math (framework-free reference math of the CPU EP).
#include "ep/cpu/math/shape_util.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace nxrt::cpu::math {

int64_t Product(std::span<const int64_t> dims) {
  // Saturates at INT64_MAX on overflow (no tensor has that many elements, so allocating the
  // result fails cleanly) rather than wrapping.
  int64_t p = 1;
  for (int64_t d : dims) {
    if (__builtin_mul_overflow(p, d, &p)) return std::numeric_limits<int64_t>::max();
  }
  return p;
}

Result<int64_t> NormalizeAxis(std::string_view op, int64_t axis, int64_t rank) {
  if (rank == 0) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": axis ", axis,
                      " is out of range: the input is a scalar (rank 0) and has no axes");
  }
  if (axis < -rank || axis >= rank) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": axis ", axis,
                      " is out of range for rank ", rank, " (accepted: [", -rank, ", ",
                      rank - 1, "])");
  }
  return axis < 0 ? axis + rank : axis;
}

Result<std::vector<bool>> AxesMask(std::string_view op, std::span<const int64_t> axes,
                                   int64_t rank) {
  std::vector<bool> mask(static_cast<size_t>(rank), false);
  for (int64_t axis : axes) {
    NXRT_ASSIGN_OR_RETURN(int64_t a, NormalizeAxis(op, axis, rank));
    if (mask[static_cast<size_t>(a)]) {
      return MakeStatus(StatusCode::kInvalidArgument, op, ": axis ", axis,
                        " is given twice in axes ", ShapeToString(axes));
    }
    mask[static_cast<size_t>(a)] = true;
  }
  return mask;
}

AxesSplit SplitAxes(std::span<const int64_t> shape, const std::vector<bool>& reduced) {
  AxesSplit split;
  const std::vector<int64_t> strides = ContiguousStrides(shape);
  // Walk from the innermost axis outwards so that merging extends the outer end of a group.
  bool have_last = false;
  bool last_reduced = false;
  std::vector<int64_t>* last_dims = nullptr;
  std::vector<int64_t>* last_strides = nullptr;
  for (size_t i = shape.size(); i-- > 0;) {
    const int64_t dim = shape[i];
    if (reduced[i]) {
      split.reduced_count *= dim;
    } else {
      split.kept_count *= dim;
    }
    if (dim == 1) continue;
    if (!have_last) split.inner_reduced = reduced[i];
    if (have_last && last_reduced == reduced[i]) {
      last_dims->back() *= dim;
      continue;
    }
    last_dims = reduced[i] ? &split.reduced_dims : &split.kept_dims;
    last_strides = reduced[i] ? &split.reduced_strides : &split.kept_strides;
    last_dims->push_back(dim);
    last_strides->push_back(strides[i]);
    have_last = true;
    last_reduced = reduced[i];
  }
  // Built innermost first; store outermost first.
  std::reverse(split.kept_dims.begin(), split.kept_dims.end());
  std::reverse(split.kept_strides.begin(), split.kept_strides.end());
  std::reverse(split.reduced_dims.begin(), split.reduced_dims.end());
  std::reverse(split.reduced_strides.begin(), split.reduced_strides.end());
  return split;
}

Status CheckInput(std::string_view op, std::string_view what, const Tensor& t) {
  if (!t.defined()) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": ", what, " is missing");
  }
  if (!t.is_contiguous()) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": ", what, " (", t.Description(),
                      ") must be contiguous");
  }
  return Status::Ok();
}

Status PrepareOutput(std::string_view op, DataType dtype, const Shape& shape, Tensor* out) {
  if (out == nullptr) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": no output tensor given");
  }
  if (!out->defined()) {
    NXRT_ASSIGN_OR_RETURN(*out, Tensor::Allocate(dtype, shape));
    return Status::Ok();
  }
  if (out->dtype() != dtype || out->shape() != shape || !out->is_contiguous()) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": output is ", out->Description(),
                      (out->is_contiguous() ? "" : " (strided)"), ", expected contiguous ",
                      DataTypeName(dtype), ShapeToString(shape));
  }
  return Status::Ok();
}

}  // namespace nxrt::cpu::math
