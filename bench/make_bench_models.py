#!/usr/bin/python3
"""bench/make_bench_models.py: writes the generated benchmark models of issue 7 into a folder.

Run with Debian's /usr/bin/python3 (python3-onnx, python3-numpy):
    bench/make_bench_models.py [--nxrt PATH] OUT_DIR [MODEL...]
bench/side_by_side.py calls it when its model folder lacks a file. The QDQ variants are calibrated
by running the float model with the nxrt CLI (--nxrt, default $NXRT_CLI or
build/release/tools/nxrt/nxrt). Every model is opset 17, its
weights random with fixed seeds at the scale trained models have (so activations stay in range),
and its graph written node by node the way exporters write it:

  mlp.onnx          784-512-512-10 MLP (Gemm, Relu); input x[batch, 784] ("batch" symbolic)
  resnet18.onnx     ResNet-18 layout at 224x224: Conv/BatchNormalization/Relu, residual Add,
                    MaxPool, GlobalAveragePool, Flatten, Gemm; BatchNormalization kept as nodes
  bert4.onnx        BERT-base-like encoder: 4 layers, hidden 768, 12 heads, FFN 3072; word and
                    position embeddings (Gather), attention mask (1 - mask) * -10000, attention as
                    MatMul/Transpose/Reshape/Softmax, LayerNormalization written out as
                    ReduceMean/Sub/Pow/Add/Sqrt/Div/Mul/Add, GELU via Erf; inputs
                    input_ids/attention_mask[batch, sequence] int64
  gpt2_4l.onnx      GPT-2-small-like decoder: 4 layers, hidden 768, 12 heads, vocabulary 50257;
                    causal mask sliced from a 1024x1024 lower-triangular bool buffer by the
                    sequence length and applied with Where, GELU in GPT-2's tanh form, tied LM head
                    (a transposed copy, as exports store it); input input_ids[batch, sequence]
  matmul_2048.onnx  one 2048x2048 @ 2048x2048 float32 MatMul (weight an initializer), for GEMM
                    efficiency
  resnet18_fp16.onnx, bert4_fp16.onnx, gpt2_4l_fp16.onnx
                    the same models in float16 as fp16 exporters emit them (onnxconverter-common's
                    keep_io_types): every float initializer float16 (clamped to +-65504), every
                    Cast to float a Cast to float16, compute in float16, and the float graph inputs
                    and outputs kept float32 behind a Cast at each
  resnet18_int8_dyn.onnx, bert4_int8_dyn.onnx, gpt2_4l_int8_dyn.onnx
                    the same models dynamically quantized as ORT's quantize_dynamic writes them
                    (bench/quantize_models.py): DynamicQuantizeLinear on each activation,
                    MatMulInteger and ConvInteger with int8 weights and per-tensor zero points,
                    Cast and Mul by the scales; BatchNormalization folded into the Conv first,
                    as ORT's quant_pre_process does
  resnet18_qdq.onnx, bert4_qdq.onnx, gpt2_4l_qdq.onnx
                    the same models statically quantized in ORT's QDQ format: uint8
                    QuantizeLinear/DequantizeLinear pairs on the activations entering and leaving
                    each Conv, MatMul and Gemm with a weight, int8 per-channel weights behind a
                    DequantizeLinear, int32 biases; activation ranges from three fixed-seed float
                    runs (CALIBRATION_INPUTS, MinMax)
  matmul_nbits_4096.onnx  one com.microsoft MatMulNBits (opset 21 + com.microsoft 1): a[batch,
                    4096] times a 4096x4096 weight in 4 bits, blocks of 32, uint8 zero points
                    (random packed bytes, scales and zero points: 8 MiB of weights, 10.25 MiB
                    read per product with the float scales), for the decode-time bandwidth of
                    4-bit weights
"""

import argparse
import json
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import quantize_models

OPSET = 17
HERE = os.path.dirname(os.path.abspath(__file__))


class Graph:
    """Collects nodes and initializers; names are unique by a running counter."""

    def __init__(self, seed):
        self.nodes = []
        self.initializers = []
        self.rng = np.random.default_rng(seed)
        self.count = 0

    def name(self, hint):
        self.count += 1
        return f"{hint}_{self.count}"

    def const(self, hint, array):
        name = self.name(hint)
        self.initializers.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def op(self, op_type, inputs, hint=None, outputs=1, **attrs):
        base = self.name(hint or op_type.lower())
        names = [base] if outputs == 1 else [f"{base}_{i}" for i in range(outputs)]
        self.nodes.append(helper.make_node(op_type, inputs, names, name=base, **attrs))
        return names[0] if outputs == 1 else names

    def normal(self, hint, shape, std):
        return self.const(hint, (self.rng.standard_normal(shape) * std).astype(np.float32))

    def uniform(self, hint, shape, bound):
        return self.const(hint, self.rng.uniform(-bound, bound, shape).astype(np.float32))

    def save(self, path, inputs, outputs, graph_name):
        graph = helper.make_graph(self.nodes, graph_name, inputs, outputs, self.initializers)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                                  producer_name="nxrt bench/make_bench_models.py")
        model.ir_version = 8
        onnx.checker.check_model(model)
        onnx.save(model, path)


def linear_gemm(g, x, fan_in, fan_out, hint):
    """PyTorch nn.Linear on 2-D input as exported: Gemm with transB=1, uniform(1/sqrt(fan_in))."""
    bound = 1.0 / np.sqrt(fan_in)
    w = g.uniform(hint + "_weight", (fan_out, fan_in), bound)
    b = g.uniform(hint + "_bias", (fan_out,), bound)
    return g.op("Gemm", [x, w, b], hint, transB=1)


def make_mlp(path):
    g = Graph(seed=101)
    h = g.op("Relu", [linear_gemm(g, "x", 784, 512, "fc1")])
    h = g.op("Relu", [linear_gemm(g, h, 512, 512, "fc2")])
    y = linear_gemm(g, h, 512, 10, "fc3")
    g.nodes.append(helper.make_node("Identity", [y], ["logits"], name="output"))
    g.save(path, [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 784])],
           [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 10])], "mlp")


def conv_bn(g, x, c_in, c_out, kernel, stride, relu, hint):
    """Conv without bias (Kaiming normal) then BatchNormalization with trained-looking stats."""
    std = np.sqrt(2.0 / (c_in * kernel * kernel))
    w = g.normal(hint + "_weight", (c_out, c_in, kernel, kernel), std)
    pad = kernel // 2
    y = g.op("Conv", [x, w], hint, kernel_shape=[kernel, kernel], strides=[stride, stride],
             pads=[pad, pad, pad, pad])
    scale = g.const(hint + "_bn_scale", (1.0 + 0.1 * g.rng.standard_normal(c_out)).astype(np.float32))
    bias = g.const(hint + "_bn_bias", (0.1 * g.rng.standard_normal(c_out)).astype(np.float32))
    mean = g.const(hint + "_bn_mean", (0.1 * g.rng.standard_normal(c_out)).astype(np.float32))
    var = g.const(hint + "_bn_var", g.rng.uniform(0.5, 1.5, c_out).astype(np.float32))
    y = g.op("BatchNormalization", [y, scale, bias, mean, var], hint + "_bn", epsilon=1e-5)
    return g.op("Relu", [y]) if relu else y


def make_resnet18(path):
    g = Graph(seed=202)
    x = conv_bn(g, "image", 3, 64, 7, 2, True, "conv1")
    x = g.op("MaxPool", [x], "maxpool", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    c_in = 64
    for stage, c_out in enumerate([64, 128, 256, 512]):
        for block in range(2):
            stride = 2 if stage > 0 and block == 0 else 1
            hint = f"layer{stage + 1}_{block}"
            y = conv_bn(g, x, c_in, c_out, 3, stride, True, hint + "_conv1")
            y = conv_bn(g, y, c_out, c_out, 3, 1, False, hint + "_conv2")
            shortcut = x
            if stride != 1 or c_in != c_out:
                shortcut = conv_bn(g, x, c_in, c_out, 1, stride, False, hint + "_downsample")
            x = g.op("Relu", [g.op("Add", [y, shortcut])])
            c_in = c_out
    x = g.op("GlobalAveragePool", [x])
    x = g.op("Flatten", [x], axis=1)
    y = linear_gemm(g, x, 512, 1000, "fc")
    g.nodes.append(helper.make_node("Identity", [y], ["logits"], name="output"))
    g.save(path, [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, 224, 224])],
           [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 1000])], "resnet18")


def layer_norm(g, x, hidden, hint):
    """LayerNormalization over the last axis as exporters decompose it (epsilon 1e-5 / 1e-12)."""
    mean = g.op("ReduceMean", [x], hint + "_mean", axes=[-1], keepdims=1)
    centred = g.op("Sub", [x, mean])
    var = g.op("ReduceMean", [g.op("Pow", [centred, g.const("two", np.float32(2.0))])],
               hint + "_var", axes=[-1], keepdims=1)
    std = g.op("Sqrt", [g.op("Add", [var, g.const("eps", np.float32(1e-5))])])
    y = g.op("Div", [centred, std])
    gamma = g.const(hint + "_gamma", (1.0 + 0.02 * g.rng.standard_normal(hidden)).astype(np.float32))
    beta = g.const(hint + "_beta", (0.02 * g.rng.standard_normal(hidden)).astype(np.float32))
    return g.op("Add", [g.op("Mul", [y, gamma]), beta])


def dense(g, x, fan_in, fan_out, hint):
    """A transformer Linear on 3-D input: MatMul then Add, weights N(0, 0.02)."""
    w = g.normal(hint + "_weight", (fan_in, fan_out), 0.02)
    b = g.const(hint + "_bias", (0.02 * g.rng.standard_normal(fan_out)).astype(np.float32))
    return g.op("Add", [g.op("MatMul", [x, w], hint), b])


def gelu_erf(g, x):
    """x * 0.5 * (1 + erf(x / sqrt(2))), as PyTorch exports nn.GELU()."""
    e = g.op("Erf", [g.op("Div", [x, g.const("sqrt2", np.float32(np.sqrt(2.0)))])])
    half = g.op("Mul", [g.op("Add", [e, g.const("one", np.float32(1.0))]),
                        g.const("half", np.float32(0.5))])
    return g.op("Mul", [x, half])


def gelu_tanh(g, x):
    """GPT-2's 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""
    cube = g.op("Pow", [x, g.const("three", np.float32(3.0))])
    inner = g.op("Add", [x, g.op("Mul", [cube, g.const("c", np.float32(0.044715))])])
    t = g.op("Tanh", [g.op("Mul", [inner, g.const("k", np.float32(np.sqrt(2.0 / np.pi)))])])
    one_plus = g.op("Add", [t, g.const("one", np.float32(1.0))])
    return g.op("Mul", [g.op("Mul", [x, g.const("half", np.float32(0.5))]), one_plus])


def split_heads(g, x, heads, head_dim, perm):
    """[B, S, H*D] -> [B, H, S, D] (perm 0,2,1,3) or [B, H, D, S] (perm 0,2,3,1)."""
    shape = g.const("heads_shape", np.array([0, 0, heads, head_dim], np.int64))
    return g.op("Transpose", [g.op("Reshape", [x, shape])], perm=perm)


def merge_heads(g, x, hidden):
    """[B, H, S, D] -> [B, S, H*D]."""
    t = g.op("Transpose", [x], perm=[0, 2, 1, 3])
    return g.op("Reshape", [t, g.const("merged_shape", np.array([0, 0, hidden], np.int64))])


def sequence_length(g, ids):
    """The sequence length of ids[B, S] as a 1-element int64 tensor (Shape -> Slice)."""
    shape = g.op("Shape", [ids])
    return g.op("Slice", [shape, g.const("one_i", np.array([1], np.int64)),
                          g.const("two_i", np.array([2], np.int64))])


def make_bert(path, layers=4, hidden=768, heads=12, ffn=3072, vocab=30522, positions=512):
    g = Graph(seed=303)
    head_dim = hidden // heads
    words = g.op("Gather", [g.normal("word_embeddings", (vocab, hidden), 0.02), "input_ids"])
    # Position ids: a constant [1, 512] buffer sliced to the sequence length.
    position_ids = g.const("position_ids", np.arange(positions, dtype=np.int64)[None, :])
    seq = sequence_length(g, "input_ids")
    ids = g.op("Slice", [position_ids, g.const("zero_i", np.array([0], np.int64)), seq,
                         g.const("axis1", np.array([1], np.int64))])
    pos = g.op("Gather", [g.normal("position_embeddings", (positions, hidden), 0.02), ids])
    x = layer_norm(g, g.op("Add", [words, pos]), hidden, "embeddings_ln")
    # Extended mask: [B, S] -> [B, 1, 1, S], (1 - mask) * -10000.
    mask = g.op("Unsqueeze", ["attention_mask", g.const("mask_axes", np.array([1, 2], np.int64))])
    mask = g.op("Cast", [mask], to=TensorProto.FLOAT)
    mask = g.op("Sub", [g.const("one", np.float32(1.0)), mask])
    mask = g.op("Mul", [mask, g.const("neg", np.float32(-10000.0))])
    scale = g.const("scale", np.float32(np.sqrt(head_dim)))
    for layer in range(layers):
        h = f"layer{layer}"
        q = split_heads(g, dense(g, x, hidden, hidden, h + "_query"), heads, head_dim, [0, 2, 1, 3])
        k = split_heads(g, dense(g, x, hidden, hidden, h + "_key"), heads, head_dim, [0, 2, 3, 1])
        v = split_heads(g, dense(g, x, hidden, hidden, h + "_value"), heads, head_dim, [0, 2, 1, 3])
        scores = g.op("Add", [g.op("Div", [g.op("MatMul", [q, k]), scale]), mask])
        probs = g.op("Softmax", [scores], axis=-1)
        context = merge_heads(g, g.op("MatMul", [probs, v]), hidden)
        attn = dense(g, context, hidden, hidden, h + "_attn_out")
        x = layer_norm(g, g.op("Add", [attn, x]), hidden, h + "_attn_ln")
        inter = gelu_erf(g, dense(g, x, hidden, ffn, h + "_intermediate"))
        out = dense(g, inter, ffn, hidden, h + "_output")
        x = layer_norm(g, g.op("Add", [out, x]), hidden, h + "_output_ln")
    g.nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"], name="output"))
    g.save(path,
           [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "sequence"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64,
                                          ["batch", "sequence"])],
           [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT,
                                          ["batch", "sequence", hidden])], "bert4")


def make_gpt2(path, layers=4, hidden=768, heads=12, vocab=50257, positions=1024):
    g = Graph(seed=404)
    head_dim = hidden // heads
    wte = (g.rng.standard_normal((vocab, hidden)) * 0.02).astype(np.float32)
    tokens = g.op("Gather", [g.const("wte", wte), "input_ids"])
    seq = sequence_length(g, "input_ids")
    zero = g.const("zero_i", np.array([0], np.int64))
    positions_used = g.op("Range", [g.const("start", np.int64(0)),
                                    g.op("Squeeze", [seq, zero]), g.const("step", np.int64(1))])
    pos = g.op("Gather", [g.normal("wpe", (positions, hidden), 0.01), positions_used])
    x = g.op("Add", [tokens, pos])
    # Causal mask as GPT-2 exports it: bias[:, :, :S, :S] of a lower-triangular buffer.
    bias = g.const("causal_bias", np.tril(np.ones((positions, positions), bool))[None, None])
    causal = g.op("Slice", [bias, g.const("zeros2", np.array([0, 0], np.int64)),
                            g.op("Concat", [seq, seq], axis=0),
                            g.const("axes23", np.array([2, 3], np.int64))])
    masked_value = g.const("masked_value", np.float32(np.finfo(np.float32).min))
    scale = g.const("scale", np.float32(np.sqrt(head_dim)))
    for layer in range(layers):
        h = f"h{layer}"
        qkv = dense(g, layer_norm(g, x, hidden, h + "_ln1"), hidden, 3 * hidden, h + "_c_attn")
        q, k, v = g.op("Split", [qkv, g.const("split", np.array([hidden] * 3, np.int64))],
                       outputs=3, axis=2)
        q = split_heads(g, q, heads, head_dim, [0, 2, 1, 3])
        k = split_heads(g, k, heads, head_dim, [0, 2, 3, 1])
        v = split_heads(g, v, heads, head_dim, [0, 2, 1, 3])
        scores = g.op("Div", [g.op("MatMul", [q, k]), scale])
        scores = g.op("Where", [causal, scores, masked_value])
        probs = g.op("Softmax", [scores], axis=-1)
        context = merge_heads(g, g.op("MatMul", [probs, v]), hidden)
        x = g.op("Add", [x, dense(g, context, hidden, hidden, h + "_c_proj")])
        mlp = gelu_tanh(g, dense(g, layer_norm(g, x, hidden, h + "_ln2"), hidden, 4 * hidden,
                                 h + "_c_fc"))
        x = g.op("Add", [x, dense(g, mlp, 4 * hidden, hidden, h + "_mlp_c_proj")])
    x = layer_norm(g, x, hidden, "ln_f")
    logits = g.op("MatMul", [x, g.const("lm_head_weight", np.ascontiguousarray(wte.T))])
    g.nodes.append(helper.make_node("Identity", [logits], ["logits"], name="output"))
    g.save(path,
           [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "sequence"])],
           [helper.make_tensor_value_info("logits", TensorProto.FLOAT,
                                          ["batch", "sequence", vocab])], "gpt2_4l")


def make_matmul(path, n=2048):
    g = Graph(seed=505)
    w = g.normal("b", (n, n), 1.0 / np.sqrt(n))
    g.nodes.append(helper.make_node("MatMul", ["a", w], ["c"], name="matmul"))
    g.save(path, [helper.make_tensor_value_info("a", TensorProto.FLOAT, [n, n])],
           [helper.make_tensor_value_info("c", TensorProto.FLOAT, [n, n])], "matmul")


FP16_MAX = 65504.0


def to_float16(model):
    """The float16 variant of a float32 model (see the file comment); edits `model` in place."""
    graph = model.graph
    for i, tensor in enumerate(graph.initializer):
        if tensor.data_type == TensorProto.FLOAT:
            array = np.clip(numpy_helper.to_array(tensor), -FP16_MAX, FP16_MAX)
            graph.initializer[i].CopyFrom(numpy_helper.from_array(array.astype(np.float16),
                                                                  tensor.name))
    for node in graph.node:
        if node.op_type == "Cast":
            for attr in node.attribute:
                if attr.name == "to" and attr.i == TensorProto.FLOAT:
                    attr.i = TensorProto.FLOAT16
    casts_in = []
    for graph_input in graph.input:
        if graph_input.type.tensor_type.elem_type != TensorProto.FLOAT:
            continue
        inner = graph_input.name + "_fp16"
        for node in graph.node:
            node.input[:] = [inner if name == graph_input.name else name for name in node.input]
        casts_in.append(helper.make_node("Cast", [graph_input.name], [inner],
                                         name=graph_input.name + "_to_fp16",
                                         to=TensorProto.FLOAT16))
    casts_out = []
    for graph_output in graph.output:
        if graph_output.type.tensor_type.elem_type != TensorProto.FLOAT:
            continue
        inner = graph_output.name + "_fp16"
        for node in graph.node:
            node.output[:] = [inner if name == graph_output.name else name for name in node.output]
        casts_out.append(helper.make_node("Cast", [inner], [graph_output.name],
                                          name=graph_output.name + "_to_fp32",
                                          to=TensorProto.FLOAT))
    nodes = casts_in + list(graph.node) + casts_out
    del graph.node[:]
    graph.node.extend(nodes)
    del graph.value_info[:]
    onnx.checker.check_model(model)
    return model


FLOAT_MODELS = {}  # maker -> its float32 ModelProto, built once per process for all its variants


def float_model(make, path):
    """A copy of the float32 model `make` writes (writing it to `path` the first time)."""
    if make not in FLOAT_MODELS:
        make(path)
        FLOAT_MODELS[make] = onnx.load(path)
    model = onnx.ModelProto()
    model.CopyFrom(FLOAT_MODELS[make])
    return model


def float16_variant(make):
    def make_fp16(path):
        onnx.save(to_float16(float_model(make, path)), path)
    return make_fp16


def make_matmul_nbits(path, k=4096, n=4096, block=32):
    rng = np.random.default_rng(606)
    k_blocks = (k + block - 1) // block
    inits = [numpy_helper.from_array(rng.integers(0, 256, (n, k_blocks, block // 2), np.uint8), "b"),
             numpy_helper.from_array(rng.uniform(0.001, 0.01, (n, k_blocks)).astype(np.float32),
                                     "scales"),
             numpy_helper.from_array(rng.integers(0, 256, (n, (k_blocks + 1) // 2), np.uint8),
                                     "zero_points")]
    node = helper.make_node("MatMulNBits", ["a", "b", "scales", "zero_points"], ["y"],
                            name="matmul_nbits", domain="com.microsoft", K=k, N=n, bits=4,
                            block_size=block)
    graph = helper.make_graph([node], "matmul_nbits",
                              [helper.make_tensor_value_info("a", TensorProto.FLOAT, ["batch", k])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", n])],
                              inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21),
                                                    helper.make_opsetid("com.microsoft", 1)])
    model.ir_version = 8
    onnx.save(model, path)  # python3-onnx 1.12's checker knows neither opset 21 nor contrib ops


# Inputs of the calibration runs (`nxrt run --random` flags, as bench/side_by_side.py runs the
# models); one run per seed in CALIBRATION_SEEDS, ranges merged as ORT's MinMax calibrator does.
CALIBRATION_INPUTS = {
    "resnet18": ["--range", "image=-2.1,2.6"],
    "bert4": ["--dim", "batch=1", "--dim", "sequence=128", "--range", "input_ids=0,30521",
              "--value", "attention_mask=1"],
    "gpt2_4l": ["--dim", "batch=1", "--dim", "sequence=128", "--range", "input_ids=0,50256"],
}
CALIBRATION_SEEDS = (11, 12, 13)


def calibrate(nxrt, model, base, path):
    """(min, max) over the calibration runs of each tensor quantize_qdq will quantize."""
    tensors, _ = quantize_models.qdq_plan(model)
    calibration_path = path + ".calibration.onnx"
    onnx.save(quantize_models.calibration_model(model, tensors), calibration_path)
    ranges = {}
    try:
        for seed in CALIBRATION_SEEDS:
            done = subprocess.run([nxrt, "run", calibration_path, "--random", "--seed", str(seed),
                                   "--json"] + CALIBRATION_INPUTS[base],
                                  capture_output=True, text=True)
            if done.returncode != 0:
                sys.exit(f"make_bench_models.py: calibrating {base} with {nxrt} failed:\n"
                         f"{done.stdout}{done.stderr}")
            for output in json.loads(done.stdout)["outputs"]:
                name = output["name"][:-len("_calibration")]
                if name in tensors:
                    low, high = ranges.get(name, (output["min"], output["max"]))
                    ranges[name] = (min(low, output["min"]), max(high, output["max"]))
    finally:
        os.remove(calibration_path)
    return ranges


def dynamic_variant(make):
    """The dynamically quantized variant of a float model, BatchNormalization folded first
    (bench/quantize_models.py)."""
    def make_dynamic(path):
        onnx.save(quantize_models.quantize_dynamic(
            quantize_models.fold_batch_norm(float_model(make, path))), path)
    return make_dynamic


def qdq_variant(make, base):
    """The static QDQ variant of a float model, BatchNormalization folded first, calibrated on
    CALIBRATION_INPUTS[base] with the nxrt CLI (a maker that takes it: `needs_nxrt`)."""
    def make_qdq(path, nxrt):
        model = quantize_models.fold_batch_norm(float_model(make, path))
        onnx.save(quantize_models.quantize_qdq(model, calibrate(nxrt, model, base, path)), path)
    make_qdq.needs_nxrt = True
    return make_qdq


MODELS = {
    "mlp": make_mlp,
    "resnet18": make_resnet18,
    "bert4": make_bert,
    "gpt2_4l": make_gpt2,
    "matmul_2048": make_matmul,
    "resnet18_fp16": float16_variant(make_resnet18),
    "bert4_fp16": float16_variant(make_bert),
    "gpt2_4l_fp16": float16_variant(make_gpt2),
    "resnet18_int8_dyn": dynamic_variant(make_resnet18),
    "bert4_int8_dyn": dynamic_variant(make_bert),
    "gpt2_4l_int8_dyn": dynamic_variant(make_gpt2),
    "resnet18_qdq": qdq_variant(make_resnet18, "resnet18"),
    "bert4_qdq": qdq_variant(make_bert, "bert4"),
    "gpt2_4l_qdq": qdq_variant(make_gpt2, "gpt2_4l"),
    "matmul_nbits_4096": make_matmul_nbits,
}


def main():
    parser = argparse.ArgumentParser(description="writes the generated benchmark models",
                                     epilog="models: " + " ".join(MODELS))
    parser.add_argument("out_dir")
    parser.add_argument("models", nargs="*", help="default all")
    parser.add_argument("--nxrt", default=os.environ.get("NXRT_CLI") or os.path.join(
        HERE, "..", "build", "release", "tools", "nxrt", "nxrt"),
                        help="nxrt CLI that runs the calibration of the QDQ variants (default "
                             "$NXRT_CLI or build/release/tools/nxrt/nxrt)")
    args = parser.parse_args()
    wanted = args.models or list(MODELS)
    unknown = [name for name in wanted if name not in MODELS]
    if unknown:
        sys.exit(f"make_bench_models.py: unknown model(s) {unknown}; known: {list(MODELS)}")
    if any(getattr(MODELS[name], "needs_nxrt", False) for name in wanted) and not os.access(
            args.nxrt, os.X_OK):
        sys.exit(f"make_bench_models.py: --nxrt {args.nxrt} is not an executable; the QDQ "
                 "variants are calibrated with it: build the nxrt target or pass --nxrt PATH")
    os.makedirs(args.out_dir, exist_ok=True)
    for name in wanted:
        path = os.path.join(args.out_dir, name + ".onnx")
        if getattr(MODELS[name], "needs_nxrt", False):
            MODELS[name](path, args.nxrt)
        else:
            MODELS[name](path)
        print(f"wrote {path} ({os.path.getsize(path) / 2**20:.1f} MiB)")


if __name__ == "__main__":
    main()
