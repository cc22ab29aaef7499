#!/usr/bin/python3
"""Writes the models the example EP's ORT test runs, into the folder given as argument.

Test support for plugins/example_ep_ort_test.cpp (run with Debian's /usr/bin/python3, onnx 1.12).
Models (opset 17, IR version 8), float32 throughout; constants are initializers:
  chain.onnx    X[2,3,4], B[3,4] -> Y[2,3,4]:
                Add(X,B) -> Mul(,m[3,1]) -> Relu -> Sigmoid -> Tanh -> Sub(,s[]) -> Div(,d[4])
                (7 elementwise nodes, one fused group)
  split.onnx    X[2,4] -> Y[2,5]: Add(X,a[4]) -> Relu -> MatMul(,W[4,5]) -> Sigmoid -> Mul(,m[5])
                (MatMul splits the elementwise nodes into two groups)
  reentry.onnx  X[3,4] -> Y[3,4]: A = Add(X,c[4]); S = Softmax(A); Y = Mul(A,S)
                (Add and Mul are joined directly and through Softmax: two groups, not one)
  dynamic.onnx  X[batch,3], B[3] -> Y[batch,3]: T = Tanh(Add(X,B)); Y = Mul(T,X)
                (symbolic batch dim; X feeds two nodes)
  branch.onnx   X[2,3], C[] bool -> Y[2,3]: A = Add(X,branch_b[3]); I = If(C) with then:
                Relu(A), else: Sigmoid(A) (both read A from the outer scope); Y = Mul(I,X)
                (the If is ORT's CPU EP's; the elementwise nodes around it and in the
                branches are the plugin's)
  loop.onnx     X[2,3], N[] int64, C[] bool -> S[2,3], R[N,2,3]: Loop(N, C, zeros) whose body
                keeps cond (Identity), adds X (outer scope) to the carried S and scans Relu(S)
  scan.onnx     S0[3], X[3,4] -> S[3], Y[3,4]: Scan over axis 1 of X (scan_input_axes [1],
                scan_output_axes [1]) whose body adds the slice to the state and outputs
                Tanh of the new state
  chain_opset11.onnx, chain_opset13.onnx   chain.onnx at opsets 11 and 13 (Add-7 / Add-13,
                Relu-6 / Relu-13, ...: other since_versions for kernel registries to match)
Constants are arithmetic sequences (CONSTANTS below) that example_ep_ort_test.cpp rebuilds for its
own reference computation.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

# Every constant is a short arithmetic sequence so that the C++ test can rebuild it exactly:
# value[i] = start + step * i (flattened row-major).
CONSTANTS = {
    "chain_m": ([3, 1], 0.5, 0.25),
    "chain_s": ([], 0.125, 0.0),
    "chain_d": ([4], 1.5, 0.5),
    "split_a": ([4], -0.5, 0.25),
    "split_w": ([4, 5], -1.0, 0.1),
    "split_m": ([5], 2.0, -0.25),
    "reentry_c": ([4], 0.25, 0.5),
    "branch_b": ([3], -0.75, 0.5),
}


def constant(name):
    dims, start, step = CONSTANTS[name]
    count = int(np.prod(dims)) if dims else 1
    values = (start + step * np.arange(count)).astype(np.float32).reshape(dims)
    return numpy_helper.from_array(values, name)


def save(graph, folder, name, opset=17):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="nxrt make_example_ep_models.py")
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(folder, name))


def main(folder):
    os.makedirs(folder, exist_ok=True)
    vi = helper.make_tensor_value_info
    node = helper.make_node
    f = TensorProto.FLOAT

    for opset, file in ((17, "chain.onnx"), (11, "chain_opset11.onnx"),
                        (13, "chain_opset13.onnx")):
        save(helper.make_graph(
            [node("Add", ["X", "B"], ["a"], name="add"),
             node("Mul", ["a", "chain_m"], ["m"], name="mul"),
             node("Relu", ["m"], ["r"], name="relu"),
             node("Sigmoid", ["r"], ["g"], name="sigmoid"),
             node("Tanh", ["g"], ["t"], name="tanh"),
             node("Sub", ["t", "chain_s"], ["s"], name="sub"),
             node("Div", ["s", "chain_d"], ["Y"], name="div")], "chain",
            [vi("X", f, [2, 3, 4]), vi("B", f, [3, 4])], [vi("Y", f, [2, 3, 4])],
            initializer=[constant("chain_m"), constant("chain_s"), constant("chain_d")]),
            folder, file, opset)

    save(helper.make_graph(
        [node("Add", ["X", "split_a"], ["a"], name="add"),
         node("Relu", ["a"], ["r"], name="relu"),
         node("MatMul", ["r", "split_w"], ["p"], name="matmul"),
         node("Sigmoid", ["p"], ["g"], name="sigmoid"),
         node("Mul", ["g", "split_m"], ["Y"], name="mul")], "split",
        [vi("X", f, [2, 4])], [vi("Y", f, [2, 5])],
        initializer=[constant("split_a"), constant("split_w"), constant("split_m")]),
        folder, "split.onnx")

    save(helper.make_graph(
        [node("Add", ["X", "reentry_c"], ["A"], name="add"),
         node("Softmax", ["A"], ["S"], name="softmax", axis=-1),
         node("Mul", ["A", "S"], ["Y"], name="mul")], "reentry",
        [vi("X", f, [3, 4])], [vi("Y", f, [3, 4])],
        initializer=[constant("reentry_c")]),
        folder, "reentry.onnx")

    save(helper.make_graph(
        [node("Add", ["X", "B"], ["a"], name="add"),
         node("Tanh", ["a"], ["T"], name="tanh"),
         node("Mul", ["T", "X"], ["Y"], name="mul")], "dynamic",
        [vi("X", f, ["batch", 3]), vi("B", f, [3])], [vi("Y", f, ["batch", 3])]),
        folder, "dynamic.onnx")

    then_branch = helper.make_graph([node("Relu", ["A"], ["T"], name="then_relu")], "then",
                                    [], [vi("T", f, [2, 3])])
    else_branch = helper.make_graph([node("Sigmoid", ["A"], ["E"], name="else_sigmoid")],
                                    "else", [], [vi("E", f, [2, 3])])
    save(helper.make_graph(
        [node("Add", ["X", "branch_b"], ["A"], name="add"),
         node("If", ["C"], ["I"], name="if", then_branch=then_branch, else_branch=else_branch),
         node("Mul", ["I", "X"], ["Y"], name="mul")], "branch",
        [vi("X", f, [2, 3]), vi("C", TensorProto.BOOL, [])], [vi("Y", f, [2, 3])],
        initializer=[constant("branch_b")]),
        folder, "branch.onnx")

    b = TensorProto.BOOL
    i64 = TensorProto.INT64
    body = helper.make_graph(
        [node("Identity", ["cond_in"], ["cond_out"], name="loop_keep_cond"),
         node("Add", ["acc_in", "X"], ["acc_out"], name="loop_add"),
         node("Relu", ["acc_out"], ["scan_out"], name="loop_relu")], "loop_body",
        [vi("iter", i64, []), vi("cond_in", b, []), vi("acc_in", f, [2, 3])],
        [vi("cond_out", b, []), vi("acc_out", f, [2, 3]), vi("scan_out", f, [2, 3])])
    zeros = numpy_helper.from_array(np.zeros([2, 3], np.float32), "loop_zeros")
    save(helper.make_graph(
        [node("Loop", ["N", "C", "loop_zeros"], ["S", "R"], name="loop", body=body)], "loop",
        [vi("X", f, [2, 3]), vi("N", i64, []), vi("C", b, [])],
        [vi("S", f, [2, 3]), vi("R", f, ["trips", 2, 3])], initializer=[zeros]),
        folder, "loop.onnx")

    scan_body = helper.make_graph(
        [node("Add", ["s_in", "x_t"], ["s_out"], name="scan_add"),
         node("Tanh", ["s_out"], ["y_t"], name="scan_tanh")], "scan_body",
        [vi("s_in", f, [3]), vi("x_t", f, [3])], [vi("s_out", f, [3]), vi("y_t", f, [3])])
    save(helper.make_graph(
        [node("Scan", ["S0", "X"], ["S", "Y"], name="scan", body=scan_body, num_scan_inputs=1,
              scan_input_axes=[1], scan_output_axes=[1])], "scan",
        [vi("S0", f, [3]), vi("X", f, [3, 4])], [vi("S", f, [3]), vi("Y", f, [3, 4])]),
        folder, "scan.onnx")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: make_example_ep_models.py OUTPUT_FOLDER")
    main(sys.argv[1])
