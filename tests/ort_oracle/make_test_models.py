#!/usr/bin/python3
"""Writes the tiny ONNX models the ORT oracle tests run, into the folder given as argument.

Test support for tests/ort_oracle (run with Debian's /usr/bin/python3, which has onnx 1.12).
Models (opset 17, IR version 8, which ONNX Runtime 1.30 reads):
  add.onnx             C = A + B, float[N,3] each (symbolic batch dim "N")
  dims.onnx            Y = X * 2, float[batch, ?, 4] (one named, one unnamed dynamic dim),
                       and S = Shape(X), int64[3]
  scalar.onnx          Y = X + 1 on a rank-0 int64
  identity_<t>.onnx    Y = Identity(X), X of element type <t>[2,3], for every type below
  two_outputs.onnx     Sum = A + B and Diff = A - B (float[2]); output names "0" and "{\"k\": 1}"
  sequence_out.onnx    S = SequenceConstruct(A, A): a model whose output is not a tensor
"""
import os
import sys

import onnx
from onnx import TensorProto, helper

ELEMENT_TYPES = {
    "float": TensorProto.FLOAT,
    "double": TensorProto.DOUBLE,
    "float16": TensorProto.FLOAT16,
    "bfloat16": TensorProto.BFLOAT16,
    "int8": TensorProto.INT8,
    "int16": TensorProto.INT16,
    "int32": TensorProto.INT32,
    "int64": TensorProto.INT64,
    "uint8": TensorProto.UINT8,
    "uint16": TensorProto.UINT16,
    "uint32": TensorProto.UINT32,
    "uint64": TensorProto.UINT64,
    "bool": TensorProto.BOOL,
    "string": TensorProto.STRING,
}


def save(graph, folder, name):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="nxrt make_test_models.py")
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(folder, name))


def main(folder):
    os.makedirs(folder, exist_ok=True)
    vi = helper.make_tensor_value_info

    save(helper.make_graph(
        [helper.make_node("Add", ["A", "B"], ["C"])], "add",
        [vi("A", TensorProto.FLOAT, ["N", 3]), vi("B", TensorProto.FLOAT, ["N", 3])],
        [vi("C", TensorProto.FLOAT, ["N", 3])]), folder, "add.onnx")

    two = helper.make_tensor("two", TensorProto.FLOAT, [], [2.0])
    save(helper.make_graph(
        [helper.make_node("Mul", ["X", "two"], ["Y"]), helper.make_node("Shape", ["X"], ["S"])],
        "dims", [vi("X", TensorProto.FLOAT, ["batch", None, 4])],
        [vi("Y", TensorProto.FLOAT, ["batch", None, 4]), vi("S", TensorProto.INT64, [3])],
        initializer=[two]), folder, "dims.onnx")

    one = helper.make_tensor("one", TensorProto.INT64, [], [1])
    save(helper.make_graph(
        [helper.make_node("Add", ["X", "one"], ["Y"])], "scalar",
        [vi("X", TensorProto.INT64, [])], [vi("Y", TensorProto.INT64, [])],
        initializer=[one]), folder, "scalar.onnx")

    for type_name, element_type in ELEMENT_TYPES.items():
        save(helper.make_graph(
            [helper.make_node("Identity", ["X"], ["Y"])], "identity_" + type_name,
            [vi("X", element_type, [2, 3])], [vi("Y", element_type, [2, 3])]),
            folder, "identity_%s.onnx" % type_name)

    save(helper.make_graph(
        [helper.make_node("Add", ["A", "B"], ["0"]),
         helper.make_node("Sub", ["A", "B"], ['{"k": 1}'])], "two_outputs",
        [vi("A", TensorProto.FLOAT, [2]), vi("B", TensorProto.FLOAT, [2])],
        [vi("0", TensorProto.FLOAT, [2]), vi('{"k": 1}', TensorProto.FLOAT, [2])]),
        folder, "two_outputs.onnx")

    sequence_type = helper.make_sequence_type_proto(
        helper.make_tensor_type_proto(TensorProto.FLOAT, [2]))
    save(helper.make_graph(
        [helper.make_node("SequenceConstruct", ["A", "A"], ["S"])], "sequence_out",
        [vi("A", TensorProto.FLOAT, [2])], [helper.make_value_info("S", sequence_type)]),
        folder, "sequence_out.onnx")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: make_test_models.py OUTPUT_FOLDER")
    main(sys.argv[1])
