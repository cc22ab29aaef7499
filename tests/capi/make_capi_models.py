#!/usr/bin/python3
"""Writes the small ONNX models the C API suites run, into the folder given as argument.

Test support for tests/capi (Debian's /usr/bin/python3, which has onnx 1.12). Opset 17 and IR
version 8 unless said otherwise; ONNX Runtime 1.30 and nxrt both read them.
  identity_<t>.onnx   Y = Identity(X), X and Y of element type <t>, shape [d0, d1] (symbolic)
  add.onnx            C = A + B, float[batch, 3], with every piece of model metadata set
  overridable.onnx    Y = X + W, W an initializer that is also a graph input (overridable)
  seq_construct.onnx  S = SequenceConstruct(A, B): a sequence output, A float[n], B float[m]
  seq_at.onnx         L = SequenceLength(S), E = SequenceAt(S, 0): a sequence input, int64
  seq_empty.onnx      S = SequenceEmpty(dtype=int64): a sequence output with no elements
  seq_length.onnx     L = SequenceLength(S): a sequence input, int64
  optional_none.onnx  O = Optional(): an optional(tensor(float)) output holding nothing
  concat_strings.onnx Y = Concat(X, X, axis=0), string[n] (a string kernel that needs no locale)
  reshape.onnx        Y = Reshape(X, S): fails at run time when S does not fit X
  zipmap.onnx         Z = ZipMap(X), X float[n, 3], labels 30, 10, 20: a seq(map(int64, float))
                      output, as scikit-learn classifiers converted by skl2onnx end (ai.onnx.ml 3)
  dict_vectorizer.onnx Y = DictVectorizer(M), M map(string, float), vocabulary eel, cat, ant:
                      a map input
"""
import os
import sys

import onnx
from onnx import TensorProto, helper

ELEMENT_TYPES = {
    "float": TensorProto.FLOAT,
    "uint8": TensorProto.UINT8,
    "int8": TensorProto.INT8,
    "uint16": TensorProto.UINT16,
    "int16": TensorProto.INT16,
    "int32": TensorProto.INT32,
    "int64": TensorProto.INT64,
    "string": TensorProto.STRING,
    "bool": TensorProto.BOOL,
    "float16": TensorProto.FLOAT16,
    "double": TensorProto.DOUBLE,
    "uint32": TensorProto.UINT32,
    "uint64": TensorProto.UINT64,
    "bfloat16": TensorProto.BFLOAT16,
}


def save(graph, folder, name, opset=17, ml=False, **fields):
    imports = [helper.make_opsetid("", opset)]
    if ml:
        imports.append(helper.make_opsetid("ai.onnx.ml", 3))
    model = helper.make_model(graph, opset_imports=imports,
                              producer_name=fields.pop("producer_name", "nxrt capi tests"))
    model.ir_version = 8
    for key, value in fields.items():
        setattr(model, key, value)
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(folder, name))
    return model


def main(folder):
    os.makedirs(folder, exist_ok=True)
    vi = helper.make_tensor_value_info

    for type_name, elem in ELEMENT_TYPES.items():
        save(helper.make_graph(
            [helper.make_node("Identity", ["X"], ["Y"])], "identity_" + type_name,
            [vi("X", elem, ["d0", "d1"])], [vi("Y", elem, ["d0", "d1"])]),
            folder, f"identity_{type_name}.onnx")

    graph = helper.make_graph(
        [helper.make_node("Add", ["A", "B"], ["C"])], "add_graph",
        [vi("A", TensorProto.FLOAT, ["batch", 3]), vi("B", TensorProto.FLOAT, ["batch", 3])],
        [vi("C", TensorProto.FLOAT, ["batch", 3])], doc_string="the graph adds A and B")
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="nxrt capi tests", producer_version="1.2",
                              domain="ai.nxrt.test", model_version=7,
                              doc_string="adds two float tensors")
    model.ir_version = 8
    helper.set_model_props(model, {"author": "nxrt", "license": "MIT", "empty": ""})
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(folder, "add.onnx"))

    weight = helper.make_tensor("W", TensorProto.FLOAT, [3], [1.0, 2.0, 3.0])
    save(helper.make_graph(
        [helper.make_node("Add", ["X", "W"], ["Y"])], "overridable",
        [vi("X", TensorProto.FLOAT, [3]), vi("W", TensorProto.FLOAT, [3])],
        [vi("Y", TensorProto.FLOAT, [3])], initializer=[weight]), folder, "overridable.onnx")

    seq_float = helper.make_tensor_sequence_value_info
    save(helper.make_graph(
        [helper.make_node("SequenceConstruct", ["A", "B"], ["S"])], "seq_construct",
        [vi("A", TensorProto.FLOAT, ["n"]), vi("B", TensorProto.FLOAT, ["m"])],
        [seq_float("S", TensorProto.FLOAT, ["k"])]), folder, "seq_construct.onnx")

    zero = helper.make_tensor("zero", TensorProto.INT64, [], [0])
    save(helper.make_graph(
        [helper.make_node("SequenceLength", ["S"], ["L"]),
         helper.make_node("SequenceAt", ["S", "zero"], ["E"])], "seq_at",
        [seq_float("S", TensorProto.INT64, ["k"])],
        [vi("L", TensorProto.INT64, []), vi("E", TensorProto.INT64, ["k"])],
        initializer=[zero]), folder, "seq_at.onnx")

    save(helper.make_graph(
        [helper.make_node("SequenceEmpty", [], ["S"], dtype=TensorProto.INT64)], "seq_empty", [],
        [seq_float("S", TensorProto.INT64, None)]), folder, "seq_empty.onnx")
    save(helper.make_graph(
        [helper.make_node("SequenceLength", ["S"], ["L"])], "seq_length",
        [seq_float("S", TensorProto.INT64, ["k"])], [vi("L", TensorProto.INT64, [])]),
        folder, "seq_length.onnx")

    optional_type = helper.make_optional_type_proto(
        helper.make_tensor_type_proto(TensorProto.FLOAT, [2]))
    save(helper.make_graph(
        [helper.make_node("Optional", [], ["O"], type=helper.make_tensor_type_proto(
            TensorProto.FLOAT, [2]))], "optional_none", [],
        [helper.make_value_info("O", optional_type)]), folder, "optional_none.onnx")

    save(helper.make_graph(
        [helper.make_node("Concat", ["X", "X"], ["Y"], axis=0)],
        "concat_strings", [vi("X", TensorProto.STRING, ["n"])],
        [vi("Y", TensorProto.STRING, ["twice_n"])]), folder, "concat_strings.onnx")

    save(helper.make_graph(
        [helper.make_node("Reshape", ["X", "S"], ["Y"])], "reshape",
        [vi("X", TensorProto.FLOAT, ["n"]), vi("S", TensorProto.INT64, [2])],
        [vi("Y", TensorProto.FLOAT, ["a", "b"])]), folder, "reshape.onnx")

    def map_type(key):  # map(key, tensor(float)); Debian's onnx 1.12 has no helper for it
        t = onnx.TypeProto()
        t.map_type.key_type = key
        t.map_type.value_type.tensor_type.elem_type = TensorProto.FLOAT
        return t
    save(helper.make_graph(
        [helper.make_node("ZipMap", ["X"], ["Z"], domain="ai.onnx.ml",
                          classlabels_int64s=[30, 10, 20])], "zipmap",
        [vi("X", TensorProto.FLOAT, ["n", 3])],
        [helper.make_value_info(
            "Z", helper.make_sequence_type_proto(map_type(TensorProto.INT64)))]),
        folder, "zipmap.onnx", ml=True)
    save(helper.make_graph(
        [helper.make_node("DictVectorizer", ["M"], ["Y"], domain="ai.onnx.ml",
                          string_vocabulary=["eel", "cat", "ant"])], "dict_vectorizer",
        [helper.make_value_info("M", map_type(TensorProto.STRING))],
        [vi("Y", TensorProto.FLOAT, [1, 3])]), folder, "dict_vectorizer.onnx", ml=True)


if __name__ == "__main__":
    main(sys.argv[1])
