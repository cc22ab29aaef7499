// plugins/example_ep/elementwise.h: the float32 elementwise math the example EP runs.
//
// Layer: kernel math of the test plugin nxrt_example_ep. Knows nothing of ONNX Runtime: it takes
// shapes (int64 dims, row-major, contiguous) and raw float buffers. The binary ops follow numpy
// broadcasting (dims aligned from the right; a dim of 1 stretches). To add an op: a value in
// ElementwiseOp, its name in kElementwiseOpNames, and a case in the matching apply function.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace nxrt_example_ep {

enum class ElementwiseOp { kAdd, kMul, kSub, kDiv, kRelu, kSigmoid, kTanh };

inline constexpr ElementwiseOp kAllElementwiseOps[] = {
    ElementwiseOp::kAdd,  ElementwiseOp::kMul,     ElementwiseOp::kSub, ElementwiseOp::kDiv,
    ElementwiseOp::kRelu, ElementwiseOp::kSigmoid, ElementwiseOp::kTanh};

// The ONNX op type (domain ""), e.g. "Add".
std::string_view ElementwiseOpName(ElementwiseOp op);

// The op whose ONNX op type is `op_type`, or nullopt.
std::optional<ElementwiseOp> ElementwiseOpFromName(std::string_view op_type);

// 2 for Add/Mul/Sub/Div, 1 for Relu/Sigmoid/Tanh.
size_t ElementwiseOpArity(ElementwiseOp op);

using Dims = std::vector<int64_t>;

// Product of the dims (1 for rank 0).
size_t ElementCount(const Dims& dims);

// numpy broadcast of `a` and `b` into `out`; false when some aligned pair of dims differs and
// neither is 1 (e.g. [2,3] with [4,3]).
bool BroadcastDims(const Dims& a, const Dims& b, Dims* out);

// out = a (op) b elementwise with broadcasting; `out_dims` must be BroadcastDims(a_dims, b_dims).
// `out` holds ElementCount(out_dims) floats and overlaps neither input. `op` must be binary.
void ApplyBinary(ElementwiseOp op, const float* a, const Dims& a_dims, const float* b,
                 const Dims& b_dims, float* out, const Dims& out_dims);

// y[i] = op(x[i]) for `count` floats; y may alias x. `op` must be unary.
void ApplyUnary(ElementwiseOp op, const float* x, float* y, size_t count);

}  // namespace nxrt_example_ep
