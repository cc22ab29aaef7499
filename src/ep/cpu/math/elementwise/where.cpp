// ep/cpu/math/elementwise/where.cpp: ONNX Where over the broadcast geometry.
//
// Layer: nxrt_cpu_math (framework-free reference math of the CPU EP).
// Elements are moved as unsigned integers of their size. For those the pick is a bit mask, not a
// `?:`: both sides are read (every index is in range) and no branch is left, so the loops
// vectorise instead of mispredicting on random conditions.
#include "ep/cpu/math/elementwise/where.h"

#include <string>
#include <type_traits>

#include "ep/cpu/math/element_types.h"
#include "ep/cpu/math/shape_util.h"

namespace nxrt::cpu::math {
namespace {

struct Bytes16 {
  uint64_t lo;
  uint64_t hi;
};

// `condition ? a : b` (condition: a bool's byte); a mask for the unsigned integer types.
template <typename E>
E Pick(uint8_t condition, const E& a, const E& b) {
  if constexpr (std::is_unsigned_v<E>) {
    const E mask = static_cast<E>(E{0} - static_cast<E>(condition != 0));
    return static_cast<E>((a & mask) | (b & static_cast<E>(~mask)));
  } else {
    return condition != 0 ? a : b;
  }
}

template <typename E>
void RunWhereTyped(const BroadcastGeometry& g, const bool* condition, const void* x,
                   const void* y, void* out) {
  const auto* pc = reinterpret_cast<const uint8_t*>(condition);
  const auto* px = static_cast<const E*>(x);
  const auto* py = static_cast<const E*>(y);
  auto* po = static_cast<E*>(out);
  const int64_t sc = g.inner_stride(0);
  const int64_t sx = g.inner_stride(1);
  const int64_t sy = g.inner_stride(2);
  int64_t written = 0;
  ForEachRun<3>(g, [&](const std::array<int64_t, 3>& offsets, int64_t n) {
    const uint8_t* c = pc + offsets[0];
    const E* a = px + offsets[1];
    const E* b = py + offsets[2];
    E* o = po + written;
    if (sc == 1 && sx == 1 && sy == 1) {
      for (int64_t i = 0; i < n; ++i) o[i] = Pick(c[i], a[i], b[i]);
    } else {
      for (int64_t i = 0; i < n; ++i) o[i] = Pick(c[i * sc], a[i * sx], b[i * sy]);
    }
    written += n;
  });
}

}  // namespace

Result<WherePlan> PrepareWhere(const Shape& condition_shape, DataType type, const Shape& x_shape,
                               DataType y_type, const Shape& y_shape) {
  if (type != y_type) {
    return MakeStatus(StatusCode::kInvalidArgument, "Where: X has type ", DataTypeName(type),
                      ", Y has type ", DataTypeName(y_type));
  }
  WherePlan plan;
  plan.type = type;
  if (type == DataType::kString) {
    plan.fn = &RunWhereTyped<std::string>;
  } else {
    switch (DataTypeSize(type)) {
      case 1: plan.fn = &RunWhereTyped<uint8_t>; break;
      case 2: plan.fn = &RunWhereTyped<uint16_t>; break;
      case 4: plan.fn = &RunWhereTyped<uint32_t>; break;
      case 8: plan.fn = &RunWhereTyped<uint64_t>; break;
      case 16: plan.fn = &RunWhereTyped<Bytes16>; break;
      default:
        return MakeStatus(StatusCode::kUnsupported, "Where does not support element type ",
                          DataTypeName(type));
    }
  }
  const Shape shapes[] = {condition_shape, x_shape, y_shape};
  NXRT_ASSIGN_OR_RETURN(plan.out_shape, BroadcastShapes("Where", shapes));
  NXRT_ASSIGN_OR_RETURN(plan.geometry, MakeBroadcastGeometry("Where", plan.out_shape, shapes));
  return plan;
}

void RunWhere(const WherePlan& plan, const bool* condition, const void* x, const void* y,
              void* out) {
  plan.fn(plan.geometry, condition, x, y, out);
}

Status Where(const Tensor& condition, const Tensor& x, const Tensor& y, Tensor* out) {
  NXRT_RETURN_IF_ERROR(CheckInput("Where", "condition", condition));
  NXRT_RETURN_IF_ERROR(CheckInput("Where", "X", x));
  NXRT_RETURN_IF_ERROR(CheckInput("Where", "Y", y));
  if (condition.dtype() != DataType::kBool) {
    return MakeStatus(StatusCode::kInvalidArgument, "Where: condition must be bool, got ",
                      DataTypeName(condition.dtype()));
  }
  NXRT_ASSIGN_OR_RETURN(WherePlan plan, PrepareWhere(condition.shape(), x.dtype(), x.shape(),
                                                     y.dtype(), y.shape()));
  NXRT_RETURN_IF_ERROR(PrepareOutput("Where", plan.type, plan.out_shape, out));
  RunWhere(plan, condition.data<bool>(), x.raw_data(), y.raw_data(), out->mutable_raw_data());
  return Status::Ok();
}

}  // namespace nxrt::cpu::math
