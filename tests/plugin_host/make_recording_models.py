#!/usr/bin/python3
"""Writes the models on which the fidelity test checks nxrt's level-1 rewrites against ORT 1.30.

Test support for tests/plugin_host/recording_ep_test.cpp (run with Debian's /usr/bin/python3,
onnx 1.12), into the folder given as argument. Each model exercises rewrites ONNX Runtime makes
before it calls GetCapability, so the graphs the recording EP is shown must be the same in both
hosts. Opset 17 (but where said), IR version 8, float32, static shapes (both hosts' type inference agree on them):
  rewrite_rounds.onnx     X[2,3] -> Y, Z [2,3]: Y = Neg(Add(Cast(Relu(X), float), Sub(k, k))):
                          the Cast goes in the first round, Sub(k, k) folds to 0 there, and the
                          Add of that 0 goes only in a second round of the level-1 passes;
                          Z = Relu(X)*(k+k) + Relu(X)*(k*2): the two products stay apart, as ORT
                          does not share the equal scalars its folding made
  removal_rule.onnx       X[2,3] -> C, S, N [2,3]: A = Add(X, 0) stays (X is a graph input: no
                          node to rewire), C = Cast(Relu(A), float) stays (a graph output),
                          S = Identity(Sigmoid(A)) goes (Sigmoid writes S), N = Neg(Mul(Tanh(
                          Identity(X)), 1)) loses its Identity and its Mul
  outer_constants.onnx    X[2,3], C[] bool -> Y[2,3]: A = Relu(X); If(C), then: Mul(Add(W, V), A),
                          else: Sub(A, Neg(W)); W[3], V[3] are main-graph initializers only the
                          branches read: Add(W, V) and Neg(W) fold inside the branches, and W and
                          V then leave the main graph
  slice_elimination.onnx  X[2,3] -> Y1, Y2, Y3 [2,3], Y4[2,2]: slices of R = Relu(X): the whole
                          tensor with axes (goes), the whole tensor with axes and steps 1 (goes),
                          ends 2 on axis 1 (stays); and the whole of X itself (stays: a graph
                          input, no node to rewire)
ORT's TransposeOptimizer (unnamed nodes among them, whose new outputs ORT names "_token_<n>"):
  transpose_chain.onnx    X[2,3,4] -> Y[2,3,4], S[3]: T = Transpose(X, 0 2 1); Y = Transpose(
                          LogSoftmax(Relu(Add(T, b[3])), axis 2), 0 2 1) loses both Transposes
                          (b reshaped and permuted in place, the axis moved to 1); S = Shape(Relu)
                          becomes a Gather of Shape(X)'s entries
  transpose_axes.onnx     X[1,3,4,5] -> Y[1,2,4,5], M[1,1,1,4]: Transpose(0 2 3 1), Squeeze
                          [0], Unsqueeze [0], Slice(axes [3]), Concat(axis 3), Transpose(0 3 1
                          2) -> Y: the first Transpose moves down to cancel the last, each op's
                          axes moved; M = ReduceMean(Concat, axes [1, 2]) keeps a Transpose
  transpose_outputs.onnx  X[2,3], V[3,2] -> Y, Y2[2,3], Z[3,2]: Y = Transpose(Transpose(X, 1 0),
                          1 0) becomes an Identity (X a graph input, Y a graph output); Y2 =
                          Transpose(Add(Transpose(X, 1 0), W), 1 0) loses both, W transposed in
                          place while Z = Add(V, W) reads it through a Transpose back, which the
                          next round folds
  transpose_rules.onnx    opset 15; X[2,3,4,5], C[5,3] bool, R[1,4,5] -> one output per rule:
                          T = Transpose(X, 0 2 3 1) read by Split (axis 3, split input), Pad
                          (pads input), Tile, ArgMax (axis 3, keepdims 0), Where(C, T, 0) (C
                          unsqueezed to rank 4), Shape (start 1), ReduceSum (axes input [1, 2]),
                          each but ArgMax and Shape followed by Transpose(0 3 1 2); Reshape of
                          Transpose(R, 0 2 1) [1,5,4] to [5,1,4] (a Transpose in disguise)
  transpose_body.onnx     X[2,3,4], C[] bool -> Y[2,3,4]: If(C) whose then-branch is
                          Transpose(Sigmoid(Relu(Transpose(X, 0 2 1))), 0 2 1) on the outer X
                          (the optimizer runs in bodies too, names counted per graph) and whose
                          else-branch is Neg(X)
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT
INT64_MAX = np.iinfo(np.int64).max


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def tensor(name, values, dtype=np.float32):
    return numpy_helper.from_array(np.array(values, dtype=dtype), name)


def save(graph, folder, name):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="nxrt-recording-test")
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(folder, name))


def node(op, inputs, outputs, name, **attrs):
    return helper.make_node(op, inputs, outputs, name=name, **attrs)


def main(folder):
    os.makedirs(folder, exist_ok=True)

    save(helper.make_graph(
        [node("Relu", ["X"], ["r"], "relu"),
         node("Cast", ["r"], ["c"], "cast_same", to=F),
         node("Sub", ["k", "k"], ["zero"], "k_minus_k"),
         node("Add", ["c", "zero"], ["a"], "add_zero"),
         node("Neg", ["a"], ["Y"], "neg"),
         node("Add", ["k", "k"], ["p"], "k_plus_k"),
         node("Mul", ["k", "two"], ["q"], "k_times_two"),
         node("Mul", ["r", "p"], ["rp"], "mul_p"),
         node("Mul", ["r", "q"], ["rq"], "mul_q"),
         node("Add", ["rp", "rq"], ["Z"], "add_products")], "rewrite_rounds",
        [vi("X", F, [2, 3])], [vi("Y", F, [2, 3]), vi("Z", F, [2, 3])],
        initializer=[tensor("k", 0.75), tensor("two", 2.0)]),
        folder, "rewrite_rounds.onnx")

    save(helper.make_graph(
        [node("Add", ["X", "zero"], ["a"], "add_zero_of_input"),
         node("Relu", ["a"], ["r"], "relu"),
         node("Cast", ["r"], ["C"], "cast_to_output", to=F),
         node("Sigmoid", ["a"], ["s"], "sigmoid"),
         node("Identity", ["s"], ["S"], "copy_to_output"),
         node("Identity", ["X"], ["x_copy"], "copy_of_input"),
         node("Tanh", ["x_copy"], ["t"], "tanh"),
         node("Mul", ["t", "one"], ["m"], "mul_one"),
         node("Neg", ["m"], ["N"], "neg")], "removal_rule",
        [vi("X", F, [2, 3])], [vi("C", F, [2, 3]), vi("S", F, [2, 3]), vi("N", F, [2, 3])],
        initializer=[tensor("zero", 0.0), tensor("one", 1.0)]),
        folder, "removal_rule.onnx")

    then_body = helper.make_graph(
        [node("Add", ["W", "V"], ["wv"], "then_add_constants"),
         node("Mul", ["wv", "A"], ["then_out"], "then_mul")], "then_body",
        [], [vi("then_out", F, [2, 3])])
    else_body = helper.make_graph(
        [node("Neg", ["W"], ["neg_w"], "else_neg_constant"),
         node("Sub", ["A", "neg_w"], ["else_out"], "else_sub")], "else_body",
        [], [vi("else_out", F, [2, 3])])
    save(helper.make_graph(
        [node("Relu", ["X"], ["A"], "relu"),
         node("If", ["C"], ["Y"], "branch", then_branch=then_body, else_branch=else_body)],
        "outer_constants", [vi("X", F, [2, 3]), vi("C", TensorProto.BOOL, [])],
        [vi("Y", F, [2, 3])],
        initializer=[tensor("W", [0.5, -1.25, 3.0]), tensor("V", [2.0, 0.25, -0.5])]),
        folder, "outer_constants.onnx")

    i64 = np.int64
    save(helper.make_graph(
        [node("Relu", ["X"], ["r"], "relu"),
         node("Slice", ["r", "starts", "maxes", "axes"], ["whole"], "slice_whole"),
         node("Slice", ["r", "starts", "maxes", "axes", "steps"], ["whole_steps"],
              "slice_whole_steps"),
         node("Slice", ["r", "starts", "ends_2", "axes"], ["part"], "slice_part"),
         node("Slice", ["X", "starts", "maxes", "axes"], ["whole_x"], "slice_whole_input"),
         node("Neg", ["whole"], ["Y1"], "neg_whole"),
         node("Neg", ["whole_steps"], ["Y2"], "neg_whole_steps"),
         node("Neg", ["whole_x"], ["Y3"], "neg_whole_input"),
         node("Neg", ["part"], ["Y4"], "neg_part")], "slice_elimination",
        [vi("X", F, [2, 3])],
        [vi("Y1", F, [2, 3]), vi("Y2", F, [2, 3]), vi("Y3", F, [2, 3]), vi("Y4", F, [2, 2])],
        initializer=[tensor("starts", [0, 0], i64), tensor("maxes", [INT64_MAX, INT64_MAX], i64),
                     tensor("axes", [0, 1], i64), tensor("steps", [1, 1], i64),
                     tensor("ends_2", [INT64_MAX, 2], i64)]),
        folder, "slice_elimination.onnx")

    save(helper.make_graph(
        [node("Transpose", ["X"], ["T"], "", perm=[0, 2, 1]),
         node("Add", ["T", "b"], ["A"], ""),
         node("Relu", ["A"], ["R"], "relu"),
         node("LogSoftmax", ["R"], ["L"], "", axis=2),
         node("Transpose", ["L"], ["Y"], "back", perm=[0, 2, 1]),
         node("Shape", ["R"], ["S"], "")], "transpose_chain",
        [vi("X", F, [2, 3, 4])], [vi("Y", F, [2, 3, 4]), vi("S", TensorProto.INT64, [3])],
        initializer=[tensor("b", [0.5, -1.0, 2.0])]),
        folder, "transpose_chain.onnx")

    save(helper.make_graph(
        [node("Transpose", ["X"], ["T"], "to_last", perm=[0, 2, 3, 1]),
         node("Squeeze", ["T", "axes0"], ["Q"], ""),
         node("Unsqueeze", ["Q", "axes0"], ["U"], "unsqueeze"),
         node("Slice", ["U", "start0", "end2", "axis3"], ["P"], ""),
         node("Concat", ["P", "P"], ["C"], "concat", axis=3),
         node("Sigmoid", ["C"], ["G"], ""),
         node("Transpose", ["G"], ["Y"], "to_first", perm=[0, 3, 1, 2]),
         node("ReduceMean", ["C"], ["M"], "mean", axes=[1, 2], keepdims=1)], "transpose_axes",
        [vi("X", F, [1, 3, 4, 5])], [vi("Y", F, [1, 4, 4, 5]), vi("M", F, [1, 1, 1, 4])],
        initializer=[tensor("axes0", [0], i64), tensor("start0", [0], i64),
                     tensor("end2", [2], i64), tensor("axis3", [3], i64)]),
        folder, "transpose_axes.onnx")

    save(helper.make_graph(
        [node("Transpose", ["X"], ["T1"], "", perm=[1, 0]),
         node("Transpose", ["T1"], ["Y"], "", perm=[1, 0]),
         node("Transpose", ["X"], ["T2"], "t2", perm=[1, 0]),
         node("Add", ["T2", "W"], ["A"], "add"),
         node("Transpose", ["A"], ["Y2"], "", perm=[1, 0]),
         node("Add", ["V", "W"], ["Z"], "")], "transpose_outputs",
        [vi("X", F, [2, 3]), vi("V", F, [3, 2])],
        [vi("Y", F, [2, 3]), vi("Y2", F, [2, 3]), vi("Z", F, [3, 2])],
        initializer=[tensor("W", [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])]),
        folder, "transpose_outputs.onnx")

    back = [0, 3, 1, 2]
    rules = helper.make_graph(
        [node("Transpose", ["X"], ["T"], "t", perm=[0, 2, 3, 1]),
         node("Split", ["T", "split"], ["s0", "s1"], "split", axis=3),
         node("Transpose", ["s0"], ["S0"], "", perm=back),
         node("Transpose", ["s1"], ["S1"], "", perm=back),
         node("Pad", ["T", "pads"], ["p"], "pad"),
         node("Transpose", ["p"], ["P"], "", perm=back),
         node("Tile", ["T", "repeats"], ["tl"], ""),
         node("Transpose", ["tl"], ["TL"], "", perm=back),
         node("ArgMax", ["T"], ["AM"], "argmax", axis=3, keepdims=0),
         node("Where", ["C", "T", "zero"], ["w"], "where"),
         node("Transpose", ["w"], ["W"], "", perm=back),
         node("Shape", ["T"], ["SH"], "shape", start=1),
         node("ReduceSum", ["T", "axes12"], ["rs"], "", keepdims=1),
         node("Transpose", ["rs"], ["RS"], "", perm=back),
         node("Transpose", ["R"], ["u"], "", perm=[0, 2, 1]),
         node("Reshape", ["u", "shape514"], ["RE"], "reshape")], "transpose_rules",
        [vi("X", F, [2, 3, 4, 5]), vi("C", TensorProto.BOOL, [5, 3]), vi("R", F, [1, 4, 5])],
        [vi("S0", F, [2, 1, 4, 5]), vi("S1", F, [2, 2, 4, 5]), vi("P", F, [2, 3, 6, 5]),
         vi("TL", F, [2, 3, 4, 10]), vi("AM", TensorProto.INT64, [2, 4, 5]),
         vi("W", F, [2, 3, 4, 5]), vi("SH", TensorProto.INT64, [3]), vi("RS", F, [2, 3, 1, 1]),
         vi("RE", F, [5, 1, 4])],
        initializer=[tensor("split", [1, 2], i64), tensor("pads", [0, 1, 0, 0, 0, 1, 0, 0], i64),
                     tensor("repeats", [1, 1, 2, 1], i64), tensor("zero", 0.0),
                     tensor("axes12", [1, 2], i64), tensor("shape514", [5, 1, 4], i64)])
    model = helper.make_model(rules, opset_imports=[helper.make_opsetid("", 15)],
                              producer_name="nxrt-recording-test")
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(folder, "transpose_rules.onnx"))

    then_body = helper.make_graph(
        [node("Transpose", ["X"], ["bt"], "", perm=[0, 2, 1]),
         node("Relu", ["bt"], ["br"], ""),
         node("Sigmoid", ["br"], ["bs"], "sigmoid"),
         node("Transpose", ["bs"], ["then_out"], "", perm=[0, 2, 1])], "then_body",
        [], [vi("then_out", F, [2, 3, 4])])
    else_body = helper.make_graph(
        [node("Neg", ["X"], ["else_out"], "neg")], "else_body", [], [vi("else_out", F, [2, 3, 4])])
    save(helper.make_graph(
        [node("If", ["C"], ["Y"], "branch", then_branch=then_body, else_branch=else_body)],
        "transpose_body", [vi("X", F, [2, 3, 4]), vi("C", TensorProto.BOOL, [])],
        [vi("Y", F, [2, 3, 4])]),
        folder, "transpose_body.onnx")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: make_recording_models.py OUTPUT_FOLDER")
    main(sys.argv[1])
