#!/usr/bin/python3
"""Writes one regression model per crash kind of issue 20 into OUT_DIR (the build writes them into
its tests/fuzz/regressions/).

Each model is what a fuzz campaign found (or its minimal form): loading it, or loading and running
it with generated inputs, once crashed nxrt, hung it or tripped a sanitizer. The replay tests
(fuzz_regressions_load / fuzz_regressions_run) feed every file of the folder to the fuzz targets,
which must answer with a clean Status. Files found by libFuzzer itself are kept as they are in
tests/fuzz_regressions/ (crash-<sha1>); these are the hand-made ones, written by this script.

Usage: /usr/bin/python3 tests/fuzz/make_regressions.py OUT_DIR   (Debian's python3-onnx)
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = sys.argv[1] if len(sys.argv) == 2 else sys.exit("usage: make_regressions.py OUT_DIR")
INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)
INT32_MIN = -(2**31)


def model(name, nodes, inputs, outputs, initializers=(), opset=17, domains=()):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(initializers))
    imports = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, v) for d, v in domains]
    m = helper.make_model(graph, opset_imports=imports, producer_name="nxrt-fuzz-regression")
    m.ir_version = 8
    with open(os.path.join(OUT, name + ".onnx"), "wb") as f:
        f.write(m.SerializeToString())


def tensor(name, dtype, shape):
    return helper.make_tensor_value_info(name, dtype, shape)


def f32(name, shape):
    return tensor(name, TensorProto.FLOAT, shape)


def out(name="y"):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, None)


def ints(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def raw(name, dtype, dims, data):
    t = TensorProto()
    t.name, t.data_type = name, dtype
    t.dims.extend(dims)
    t.raw_data = data
    return t


def main():
    os.makedirs(OUT, exist_ok=True)
    x = f32("x", [1, 2, 4, 4])
    # --- security holes ---------------------------------------------------------------------
    big = TensorProto()
    big.name, big.data_type = "w", TensorProto.FLOAT
    big.dims.append(2**62 + 1)
    big.data_location = TensorProto.EXTERNAL
    for k, v in (("location", "w.bin"), ("offset", "0"), ("length", "4")):
        e = big.external_data.add()
        e.key, e.value = k, v
    model("external_data_byte_count_overflow",
          [helper.make_node("Gather", ["w", "i"], ["y"])],
          [tensor("i", TensorProto.INT64, [1])], [out()], [big])
    for location in ("../w.bin", "/etc/hostname", "/dev/zero"):
        t = TensorProto()
        t.name, t.data_type = "w", TensorProto.UINT8
        t.dims.append(8)
        t.data_location = TensorProto.EXTERNAL
        e = t.external_data.add()
        e.key, e.value = "location", location
        tag = location.strip("./").replace("/", "_")
        model("external_data_location_" + tag,
              [helper.make_node("Identity", ["w"], ["y"])], [], [out()], [t])
    model("int64_raw_data_11_bytes",
          [helper.make_node("Reshape", ["x", "shape"], ["y"])], [x], [out()],
          [raw("shape", TensorProto.INT64, [2], b"\x01" * 11)])
    const = helper.make_node("Constant", [], ["shape"])
    const.attribute.append(helper.make_attribute("value", raw("", TensorProto.INT64, [1], b"abc")))
    model("constant_int64_raw_data_3_bytes",
          [const, helper.make_node("Reshape", ["x", "shape"], ["y"])], [x], [out()])
    # --- libonnx shape inference on unvalidated graphs ----------------------------------------
    model("scan_without_body",
          [helper.make_node("Scan", ["x"], ["y"], num_scan_inputs=1)], [x], [out()], opset=11)
    model("scan_without_attributes", [helper.make_node("Scan", ["x"], ["y"])], [x], [out()],
          opset=11)
    model("input_names_nothing", [helper.make_node("Add", ["x", "ghost"], ["y"])], [x], [out()])
    # --- attribute values out of range --------------------------------------------------------
    w = numpy_helper.from_array(np.ones((2, 2, 3, 3), np.float32), "w")
    model("conv_strides_0", [helper.make_node("Conv", ["x", "w"], ["y"], strides=[0, 0])], [x],
          [out()], [w])
    model("conv_dilations_int64_max",
          [helper.make_node("Conv", ["x", "w"], ["y"], dilations=[INT64_MAX, 1])], [x], [out()],
          [w])
    model("conv_pads_int64_max",
          [helper.make_node("Conv", ["x", "w"], ["y"], pads=[0, 0, INT64_MAX, INT64_MAX])], [x],
          [out()], [w])
    model("depth_to_space_blocksize_2p62",
          [helper.make_node("DepthToSpace", ["x"], ["y"], blocksize=2**62)], [x], [out()])
    model("space_to_depth_blocksize_0",
          [helper.make_node("SpaceToDepth", ["x"], ["y"], blocksize=0)], [x], [out()])
    for tag, axis in (("int64_max", INT64_MAX), ("int32_min", INT32_MIN)):
        model("layer_norm_axis_" + tag,
              [helper.make_node("LayerNormalization", ["x", "s"], ["y"], axis=axis)], [x],
              [out()], [numpy_helper.from_array(np.ones(4, np.float32), "s")])
    model("average_pool_pads_2p32",
          [helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[2, 2],
                            pads=[2**32, 2**32, 2**32, 2**32])], [x], [out()])
    # A window table of output x kernel entries (2^40 here) once asked for terabytes in Prepare.
    model("max_pool_kernel_2p20_over_padding",
          [helper.make_node("MaxPool", ["p"], ["y"], kernel_shape=[2**20],
                            pads=[2**20 - 1, 2**20 - 1])], [f32("p", [1, 1, 1])], [out()])
    model("max_pool_same_upper_int64_max_dim",
          [helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2], auto_pad="SAME_UPPER",
                            strides=[INT64_MAX, 1])], [x], [out()])
    model("tfidf_max_skip_count_int64_max",
          [helper.make_node("TfIdfVectorizer", ["t"], ["y"], mode="TF", min_gram_length=1,
                            max_gram_length=2, max_skip_count=INT64_MAX, ngram_counts=[0, 2],
                            ngram_indexes=[0, 1, 2], pool_int64s=[1, 2, 1, 2])],
          [tensor("t", TensorProto.INT64, [2, 6])], [out()], opset=9)
    model("size_of_dims_2_int64_max", [helper.make_node("Size", ["x"], ["y"])],
          [f32("x", [2, INT64_MAX])], [tensor("y", TensorProto.INT64, [])], opset=13)
    model("tfidf_max_gram_2_pow_32",
          [helper.make_node("TfIdfVectorizer", ["t"], ["y"], mode="TF", min_gram_length=2,
                            max_gram_length=2**32, max_skip_count=5, ngram_counts=[0, 4],
                            ngram_indexes=list(range(7)),
                            pool_int64s=[2, 3, 5, 4, 5, 6, 7, 8, 6, 7])],
          [tensor("t", TensorProto.INT64, [2, 6])], [out()], opset=9)
    model("softmax_axis_int64_min", [helper.make_node("Softmax", ["x"], ["y"], axis=INT64_MIN)],
          [x], [out()])
    model("gather_axis_int64_max",
          [helper.make_node("Gather", ["x", "i"], ["y"], axis=INT64_MAX)],
          [x, tensor("i", TensorProto.INT64, [1])], [out()])
    model("concat_axis_int64_min",
          [helper.make_node("Concat", ["x", "x"], ["y"], axis=INT64_MIN)], [x], [out()])
    # --- wrong arity or rank ------------------------------------------------------------------
    model("scatternd_two_inputs", [helper.make_node("ScatterND", ["x", "x"], ["y"])], [x],
          [out()])
    model("conv_transpose_rank1_weight",
          [helper.make_node("ConvTranspose", ["x", "w1"], ["y"])], [x], [out()],
          [numpy_helper.from_array(np.ones(3, np.float32), "w1")])
    seq = f32("s", [3, 1, 2])
    rnn_w = numpy_helper.from_array(np.ones((1, 3, 2), np.float32), "W")
    rnn_r = numpy_helper.from_array(np.ones((1, 3, 1), np.float32), "R")
    model("gru_three_outputs",
          [helper.make_node("GRU", ["s", "W", "R"], ["y", "h", "extra"], hidden_size=1)], [seq],
          [out()], [rnn_w, rnn_r])
    model("rnn_three_outputs",
          [helper.make_node("RNN", ["s", "W1", "R1"], ["y", "h", "extra"], hidden_size=1)], [seq],
          [out()], [numpy_helper.from_array(np.ones((1, 1, 2), np.float32), "W1"),
                    numpy_helper.from_array(np.ones((1, 1, 1), np.float32), "R1")])
    branch = helper.make_graph([helper.make_node("Identity", ["x"], ["b"])], "b", [], [out("b")])
    model("if_without_condition",
          [helper.make_node("If", [], ["y"], then_branch=branch, else_branch=branch)], [x],
          [out()])
    model("dynamic_quantize_linear_without_scale_output",
          [helper.make_node("DynamicQuantizeLinear", ["x"], ["y"])], [x], [out()])
    model("split_empty_middle_output",
          [helper.make_node("Split", ["x"], ["a", "", "c"], axis=1)],
          [f32("x", [1, 3, 4, 4])], [out("a")])
    body = helper.make_graph([helper.make_node("Add", ["st", "e"], ["st2"]),
                              helper.make_node("Identity", ["e"], ["o"])], "body",
                             [f32("st", [2]), f32("e", [2])], [f32("st2", [2]), f32("o", [2])])
    model("scan_empty_state_input",
          [helper.make_node("Scan", ["", "xs"], ["sf", "ys"], body=body, num_scan_inputs=1)],
          [f32("xs", [3, 2])], [out("sf")], opset=11)
    model("matmul_rank0", [helper.make_node("MatMul", ["a", "b"], ["y"])],
          [f32("a", []), f32("b", [])], [out()])
    # --- mixed dtypes the schema forbids ------------------------------------------------------
    d = tensor("d", TensorProto.DOUBLE, [2, 2])
    a = f32("a", [2, 2])
    for op in ("Add", "MatMul", "Gemm"):
        model(op.lower() + "_double_float", [helper.make_node(op, ["d", "a"], ["y"])], [d, a],
              [out()])
    # At --opt-level 0 (no type inference) the types meet only at run time.
    model("flatten_then_gemm_double_float",
          [helper.make_node("Flatten", ["d"], ["f"]), helper.make_node("Gemm", ["f", "a"], ["y"])],
          [d, a], [out()])
    model("string_normalizer_on_floats",
          [helper.make_node("Identity", ["a"], ["s"]),
           helper.make_node("StringNormalizer", ["s"], ["y"])], [a], [out()], opset=10)
    # --- empty tensors where values are needed ------------------------------------------------
    model("eye_like_empty", [helper.make_node("EyeLike", ["e"], ["y"])], [f32("e", [0, 3])],
          [out()])
    model("max_unpool_empty_indices",
          [helper.make_node("MaxUnpool", ["x", "i"], ["y"], kernel_shape=[2, 2], strides=[2, 2])],
          [x, tensor("i", TensorProto.INT64, [0])], [out()])
    q = tensor("q", TensorProto.UINT8, [2, 2])
    empty_scale = numpy_helper.from_array(np.zeros(0, np.float32), "sc")
    zp = numpy_helper.from_array(np.zeros(1, np.uint8), "zp")
    model("qlinear_matmul_empty_scale",
          [helper.make_node("QLinearMatMul", ["q", "sc", "zp", "q", "sc", "zp", "sc", "zp"],
                            ["y"])], [q], [out()], [empty_scale, zp])
    momentum = helper.make_node("Momentum", ["r", "t", "w0", "g0", "v0"], ["w1", "v1"],
                                domain="ai.onnx.preview.training", alpha=0.9, beta=0.1,
                                mode="standard", norm_coefficient=0.0)
    model("momentum_empty_input", [momentum],
          [f32("r", []), tensor("t", TensorProto.INT64, []), f32("w0", [0]), f32("g0", [2]),
           f32("v0", [2])], [out("w1")], domains=[("ai.onnx.preview.training", 1)])
    # --- arithmetic: sizes that overflow ------------------------------------------------------
    model("range_int64_max_plus_1",
          [helper.make_node("Range", ["s", "l", "dl"], ["y"])], [], [out()],
          [ints("s", INT64_MAX), ints("l", INT64_MIN), ints("dl", 1)])
    model("range_zero_delta", [helper.make_node("Range", ["s", "l", "dl"], ["y"])], [], [out()],
          [ints("s", 0), ints("l", 5), ints("dl", 0)])
    model("tile_repeats_overflow", [helper.make_node("Tile", ["x", "r"], ["y"])], [x], [out()],
          [ints("r", [2**40, 2**40, 1, 1])])
    model("expand_shape_overflow", [helper.make_node("Expand", ["x", "sh"], ["y"])], [x],
          [out()], [ints("sh", [2**31, 2**31, 2**31, 4])])
    model("reshape_shape_overflow", [helper.make_node("Reshape", ["x", "sh"], ["y"])], [x],
          [out()], [ints("sh", [INT64_MAX, INT64_MAX, 0, -1])])
    model("constant_of_shape_overflow", [helper.make_node("ConstantOfShape", ["sh"], ["y"])], [],
          [out()], [ints("sh", [2**62, 2**62])])
    model("conv_output_size_overflow",
          [helper.make_node("Conv", ["x", "w"], ["y"], pads=[0, 0, 2**62, 2**62])], [x], [out()],
          [w])
    model("max_unpool_output_shape_overflow",
          [helper.make_node("MaxUnpool", ["x", "i"], ["y"], kernel_shape=[2, 2],
                            strides=[2**62, 2**62])],
          [x, tensor("i", TensorProto.INT64, [1, 2, 4, 4])], [out()])
    model("pad_2e9", [helper.make_node("Pad", ["x", "p"], ["y"])], [x], [out()],
          [ints("p", [0, 0, 2000000000, 2000000000, 0, 0, 2000000000, 2000000000])])
    model("one_hot_depth_overflow", [helper.make_node("OneHot", ["i", "dp", "v"], ["y"])],
          [tensor("i", TensorProto.INT64, [2])], [out()],
          [ints("dp", [2**62]), numpy_helper.from_array(np.array([0, 1], np.float32), "v")])
    # Loop growing its scan output forever: a zero Range delta inside the body.
    loop_body = helper.make_graph(
        [helper.make_node("Identity", ["cond"], ["cond_out"]),
         helper.make_node("Range", ["zero", "big", "zero"], ["r"]),
         helper.make_node("Cast", ["r"], ["rf"], to=TensorProto.FLOAT)],
        "loop_body",
        [tensor("i", TensorProto.INT64, []), tensor("cond", TensorProto.BOOL, [])],
        [tensor("cond_out", TensorProto.BOOL, []), f32("rf", None)],
        [ints("zero", 0), ints("big", 10)])
    model("loop_range_zero_delta",
          [helper.make_node("Loop", ["trips", ""], ["ys"], body=loop_body)], [],
          [out("ys")], [ints("trips", 1000000000)])
    # --- nesting ------------------------------------------------------------------------------
    inner = helper.make_graph([helper.make_node("Identity", ["c"], ["o"])], "leaf", [],
                              [tensor("o", TensorProto.BOOL, [])])
    leaf = inner
    for level in range(32):
        inner = helper.make_graph(
            [helper.make_node("If", ["c"], ["o"], then_branch=inner, else_branch=leaf)],
            "level%d" % level, [], [tensor("o", TensorProto.BOOL, [])])
    nested = helper.make_node("If", ["c"], ["y"], then_branch=inner, else_branch=leaf)
    model("if_nested_32_deep", [nested], [tensor("c", TensorProto.BOOL, [])],
          [tensor("y", TensorProto.BOOL, [])])


if __name__ == "__main__":
    main()
