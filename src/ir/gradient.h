// ir/gradient.h: expands ai.onnx.preview.training Gradient nodes into ordinary ONNX nodes that
// compute the gradient by reverse-mode differentiation of the graph around them.
//
// Layer: nxrt_ir (a graph rewrite; no EP or runtime). A Gradient node (ONNX
// onnx/defs/training/defs.cc, version 1) names, by attribute, the tensors `xs` to differentiate
// with respect to, optional constant inputs `zs`, and the tensor `y`; its outputs are dY/dX for
// each X in xs, each of X's shape. No kernel can compute this: it needs the nodes between xs and
// y, which only the graph knows. So the session rewrites each Gradient node, before placement,
// into the backward nodes of the path from xs to y (seeded with dY = ones of Y's shape, so a
// non-scalar Y is differentiated as if summed), accumulating the gradient of a tensor used twice
// with Add; an X that Y does not depend on gets zeros.
//
// Differentiable ops (default domain): Add, Sub, Mul, Div, Neg, Identity, with operands of one
// known shape (broadcasting would need a reduction back to each operand's shape, which is not
// written yet). Anything else on the path fails with kUnsupported naming the node, the op and
// what is supported. The generated ops (Shape, ConstantOfShape and the ops above) exist from
// opset 9; a model importing the default domain below 9 is refused.
#pragma once

#include "ir/graph.h"
#include "nxrt/status.h"

namespace nxrt::ir {

// Rewrites every Gradient node of `model`'s main graph in place (see the file comment). A model
// without Gradient nodes is left unchanged. Errors: kInvalidModel for a Gradient node whose
// attributes name no tensor of the graph or whose outputs do not match `xs`; kUnsupported as
// above.
Status ExpandGradients(Model& model);

}  // namespace nxrt::ir
