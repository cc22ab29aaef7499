// plugins/example_ep/elementwise.cpp: reference loops for the example EP's elementwise ops.
#include "example_ep/elementwise.h"

#include <algorithm>
#include <cmath>

namespace nxrt_example_ep {

std::string_view ElementwiseOpName(ElementwiseOp op) {
  switch (op) {
    case ElementwiseOp::kAdd: return "Add";
    case ElementwiseOp::kMul: return "Mul";
    case ElementwiseOp::kSub: return "Sub";
    case ElementwiseOp::kDiv: return "Div";
    case ElementwiseOp::kRelu: return "Relu";
    case ElementwiseOp::kSigmoid: return "Sigmoid";
    case ElementwiseOp::kTanh: return "Tanh";
  }
  return "";
}

std::optional<ElementwiseOp> ElementwiseOpFromName(std::string_view op_type) {
  for (ElementwiseOp op : kAllElementwiseOps) {
    if (ElementwiseOpName(op) == op_type) return op;
  }
  return std::nullopt;
}

size_t ElementwiseOpArity(ElementwiseOp op) {
  switch (op) {
    case ElementwiseOp::kAdd:
    case ElementwiseOp::kMul:
    case ElementwiseOp::kSub:
    case ElementwiseOp::kDiv: return 2;
    default: return 1;
  }
}

size_t ElementCount(const Dims& dims) {
  size_t count = 1;
  for (int64_t d : dims) count *= static_cast<size_t>(d);
  return count;
}

bool BroadcastDims(const Dims& a, const Dims& b, Dims* out) {
  const size_t rank = std::max(a.size(), b.size());
  out->assign(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    // i counts from the innermost dim.
    const int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    const int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (da != db && da != 1 && db != 1) return false;
    (*out)[rank - 1 - i] = da == 1 ? db : da;
  }
  return true;
}

namespace {

// Element strides of `dims` seen in an output of rank `rank`: 0 where the dim broadcasts.
Dims BroadcastStrides(const Dims& dims, const Dims& out_dims) {
  const size_t rank = out_dims.size();
  Dims strides(rank, 0);
  int64_t stride = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    const size_t axis = dims.size() - 1 - i;
    const size_t out_axis = rank - 1 - i;
    strides[out_axis] = dims[axis] == 1 ? 0 : stride;
    stride *= dims[axis];
  }
  return strides;
}

float Combine(ElementwiseOp op, float a, float b) {
  switch (op) {
    case ElementwiseOp::kAdd: return a + b;
    case ElementwiseOp::kMul: return a * b;
    case ElementwiseOp::kSub: return a - b;
    case ElementwiseOp::kDiv: return a / b;
    default: return 0.0f;
  }
}

}  // namespace

void ApplyBinary(ElementwiseOp op, const float* a, const Dims& a_dims, const float* b,
                 const Dims& b_dims, float* out, const Dims& out_dims) {
  const size_t count = ElementCount(out_dims);
  if (a_dims == out_dims && b_dims == out_dims) {
    for (size_t i = 0; i < count; ++i) out[i] = Combine(op, a[i], b[i]);
    return;
  }
  const Dims a_strides = BroadcastStrides(a_dims, out_dims);
  const Dims b_strides = BroadcastStrides(b_dims, out_dims);
  const size_t rank = out_dims.size();
  Dims index(rank, 0);
  int64_t a_offset = 0;
  int64_t b_offset = 0;
  for (size_t i = 0; i < count; ++i) {
    out[i] = Combine(op, a[a_offset], b[b_offset]);
    // Odometer step over the output index, innermost dim first.
    for (size_t axis = rank; axis-- > 0;) {
      a_offset += a_strides[axis];
      b_offset += b_strides[axis];
      if (++index[axis] < out_dims[axis]) break;
      a_offset -= a_strides[axis] * out_dims[axis];
      b_offset -= b_strides[axis] * out_dims[axis];
      index[axis] = 0;
    }
  }
}

void ApplyUnary(ElementwiseOp op, const float* x, float* y, size_t count) {
  switch (op) {
    case ElementwiseOp::kRelu:
      for (size_t i = 0; i < count; ++i) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
      return;
    case ElementwiseOp::kSigmoid:
      for (size_t i = 0; i < count; ++i) y[i] = 1.0f / (1.0f + std::exp(-x[i]));
      return;
    case ElementwiseOp::kTanh:
      for (size_t i = 0; i < count; ++i) y[i] = std::tanh(x[i]);
      return;
    default: return;
  }
}

}  // namespace nxrt_example_ep
