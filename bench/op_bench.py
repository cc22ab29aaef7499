#!/usr/bin/python3
"""bench/op_bench.py: every op of the CPU EP's kernel table, nxrt against ONNX Runtime 1.30.

    bench/op_bench.py --build-dir build/release [--ops Conv,MatMul] [--dtypes fp16,bf16]
                      [--threads 1,2] [--rounds 3] [--quick] [--out DIR] [--list] [--contrib]
                      [--nxrt-args '--disable-pass insert_cast']

The op list is the kernel table itself: `nxrt_kernel_table` (bench/kernel_table.cpp) prints the
CPU EP's entries, so a new kernel is benchmarked without anyone adding it here. Each op of the
default domain runs in every dtype both its table entry and its ONNX schema (opset 17) allow
among fp32, fp16 and bf16; the quantized ops in their uint8 and int8 forms (QLinear*, *Integer,
QuantizeLinear/DequantizeLinear, DynamicQuantizeLinear) and a QDQ-wrapped Conv and MatMul. The
shapes (two or three per op, the first being the --quick one) are RECIPES below: realistic sizes
from issue 16 (Conv 3x3 64->64 at 112^2, MatMul 128x768x3072, 800k-value activations, ...). An op
without a recipe whose schema binds every input and output to one type gets a generic
elementwise case; the others are listed at the end as "no recipe", so a gap is visible.
ONNX Runtime's contrib ops in the table (the com.microsoft domain, and the ONNX-domain ops ONNX
does not define, such as SimplifiedLayerNormalization) run in the dtypes their entries allow for
output 0, with the shapes of CONTRIB_RECIPES: a 4-bit LLM decoder's (hidden 4096, 32 query and 8
kv heads of 128: MatMulNBits 4096x4096 at 1 and 128 rows with blocks of 32 and 128,
GroupQueryAttention's decode step and prefill, RotaryEmbedding, the RMS norms) and BERT-base's
(hidden 768, sequence 128); `--contrib` selects them alone.

Each case is a one-node ONNX model written into --out/models. For each case and intra-op thread
count the script runs `nxrt bench --json` and `ort_run --bench --json` (the tools of
bench/side_by_side.py, whose process runner and chart it reuses) as separate processes, alternating
R rounds (who goes first alternates too). A first short probe sizes the timed loop to about
--target-ms per process. It prints one table worst ratio first (ratio = nxrt / ORT median; < 1
means nxrt is faster), the geometric mean per thread count and per dtype, and writes
op_ratios.svg and op_results.json into --out (default <build-dir>/op_bench).
"""

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import side_by_side  # noqa: E402  (its process runner and SVG chart)
from bench_args import check_threads_and_rounds  # noqa: E402

OPSET = 17
MS = "com.microsoft"
FLOAT_DTYPES = {"fp32": TensorProto.FLOAT, "fp16": TensorProto.FLOAT16,
                "bf16": TensorProto.BFLOAT16}
QUANT_DTYPES = {"u8": TensorProto.UINT8, "i8": TensorProto.INT8}
ALL_DTYPES = list(FLOAT_DTYPES) + list(QUANT_DTYPES)
# DataTypeName (include/nxrt/data_type.h) of each column, as nxrt_kernel_table prints it.
TABLE_NAMES = {"fp32": "float", "fp16": "float16", "bf16": "bfloat16", "u8": "uint8",
               "i8": "int8"}
SCHEMA_NAMES = {"fp32": "tensor(float)", "fp16": "tensor(float16)",
                "bf16": "tensor(bfloat16)", "u8": "tensor(uint8)", "i8": "tensor(int8)"}
NP_TYPES = {TensorProto.FLOAT: np.float32, TensorProto.FLOAT16: np.float16,
            TensorProto.UINT8: np.uint8, TensorProto.INT8: np.int8}

RNG = np.random.default_rng(16)


# ---- one-node models ----

class In:
    """A graph input fed by the tools' fixed-seed generator (uniform in `low`..`high`). With
    `passed`, the range goes to the tools as --range (ids that index a table)."""

    def __init__(self, elem, shape, low=-1.0, high=1.0, passed=False):
        self.elem, self.shape, self.low, self.high = elem, list(shape), low, high
        self.passed = passed


def const(array, elem=None):
    """An initializer; `elem` converts floats to fp16/bf16 (bf16 by truncating float32)."""
    array = np.asarray(array)
    if elem == TensorProto.BFLOAT16:
        bits = (array.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
        tensor = onnx.TensorProto(name="c", data_type=TensorProto.BFLOAT16,
                                  dims=list(array.shape))
        tensor.raw_data = bits.tobytes()
        return tensor
    if elem is not None:
        array = array.astype(NP_TYPES[elem])
    return numpy_helper.from_array(array, "c")


def weights(shape, elem, scale=None):
    fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else int(shape[0])
    scale = scale if scale is not None else 1.0 / math.sqrt(max(fan_in, 1))
    return const(RNG.uniform(-scale, scale, shape).astype(np.float32), elem)


RANGE_DOC = "op_bench --range "  # graph input doc_string carrying an In's passed range


def model(nodes, inputs, out_elems, initializers=(), contrib=False):
    """A graph of `nodes` (helper.make_node, named inputs "i0".., "c0".., outputs "y0"..):
    `inputs` are the In objects fed as i0, i1, ...; `initializers` the TensorProtos c0, c1, ...
    `contrib`: the nodes include ONNX Runtime contrib ops, which ONNX's shape inference does not
    know; the model imports com.microsoft and declares the outputs' types itself."""
    graph_inputs = [helper.make_tensor_value_info(f"i{k}", x.elem, x.shape)
                    for k, x in enumerate(inputs)]
    for graph_input, x in zip(graph_inputs, inputs):
        if x.passed:
            graph_input.doc_string = f"{RANGE_DOC}{x.low:g},{x.high:g}"
    inits = []
    for k, tensor in enumerate(initializers):
        tensor = onnx.TensorProto.FromString(tensor.SerializeToString())
        tensor.name = f"c{k}"
        inits.append(tensor)
    if contrib:
        outputs = [helper.make_tensor_value_info(f"y{k}", elem, None)
                   for k, elem in enumerate(out_elems)]
    else:
        # Output types are left to ONNX's shape inference below (the checker wants them complete).
        outputs = [helper.make_tensor_value_info(f"y{k}", TensorProto.UNDEFINED, None)
                   for k in range(len(out_elems))]
    graph = helper.make_graph(nodes, "op_bench", graph_inputs, outputs, inits)
    opsets = [helper.make_opsetid("", OPSET)] + ([helper.make_opsetid(MS, 1)] if contrib else [])
    m = helper.make_model(graph, opset_imports=opsets, producer_name="nxrt bench/op_bench.py")
    m.ir_version = 8
    return m if contrib else onnx.shape_inference.infer_shapes(m)


def single(op, inputs, out_elems, initializers=(), order=None, domain="", outputs=None, **attrs):
    """One node of `op` reading inputs then initializers (or `order`, names like "i0", "c1", "").
    A node of another `domain` (com.microsoft) makes a contrib model (see `model`); `outputs`
    names the node's outputs when some are skipped ("" as in ONNX)."""
    names = order or ([f"i{k}" for k in range(len(inputs))] +
                      [f"c{k}" for k in range(len(initializers))])
    outputs = outputs or [f"y{k}" for k in range(len(out_elems))]
    node = helper.make_node(op, names, outputs, name=op, domain=domain, **attrs)
    return model([node], inputs, out_elems, initializers,
                 contrib=is_contrib(domain, op))


def is_contrib(domain, op):
    """ONNX Runtime's contrib ops: the com.microsoft domain, and the ops ORT registers in the ONNX
    domain that ONNX does not define (SimplifiedLayerNormalization)."""
    return domain == MS or (domain in ("", "ai.onnx") and not onnx.defs.has(op))


# ---- recipes: op -> function(dtype column, elem) -> [(shape label, model)] ----

ACT = [1, 64, 112, 112]  # 802,816 values: the 800k-value activations
ACT2 = [1, 256, 56, 56]


def unary(op, **attrs):
    def make(dt, e):
        return [("1x64x112x112", single(op, [In(e, ACT)], [e], **attrs)),
                ("1x256x56x56", single(op, [In(e, ACT2)], [e], **attrs))]
    return make


def binary(op):
    def make(dt, e):
        return [("1x64x112x112 + 1x64x1x1",
                 single(op, [In(e, ACT), In(e, [1, 64, 1, 1])], [e])),
                ("128x3072 + 3072", single(op, [In(e, [128, 3072]), In(e, [3072])], [e])),
                ("1x64x112x112 same shape", single(op, [In(e, ACT), In(e, ACT)], [e]))]
    return make


def compare(op):
    def make(dt, e):
        return [("1x64x112x112 vs 1x64x1x1",
                 single(op, [In(e, ACT), In(e, [1, 64, 1, 1])], [TensorProto.BOOL]))]
    return make


def conv(dt, e):
    cases = [("3x3 64->64 112^2", [1, 64, 112, 112], [64, 64, 3, 3], 1, [1, 1, 1, 1]),
             ("1x1 256->256 28^2", [1, 256, 28, 28], [256, 256, 1, 1], 1, [0, 0, 0, 0]),
             ("dw 3x3 128ch 56^2", [1, 128, 56, 56], [128, 1, 3, 3], 128, [1, 1, 1, 1]),
             ("3x3 4 groups 64->64 56^2", [1, 64, 56, 56], [64, 16, 3, 3], 4, [1, 1, 1, 1])]
    return [(label, single("Conv", [In(e, x)], [e], [weights(w, e), weights([w[0]], e, 0.1)],
                           group=g, pads=pads))
            for label, x, w, g, pads in cases]


def conv_transpose(dt, e):
    return [("4x4 s2 64->32 56^2", single("ConvTranspose", [In(e, [1, 64, 56, 56])], [e],
                                           [weights([64, 32, 4, 4], e), weights([32], e, 0.1)],
                                           strides=[2, 2], pads=[1, 1, 1, 1]))]


def matmul(dt, e):
    return [("128x768x3072", single("MatMul", [In(e, [128, 768])], [e],
                                    [weights([768, 3072], e)])),
            ("gemv 1x4096x4096", single("MatMul", [In(e, [1, 4096])], [e],
                                        [weights([4096, 4096], e)])),
            ("batched 12x128x64x128", single("MatMul", [In(e, [12, 128, 64]),
                                                        In(e, [12, 64, 128])], [e]))]


def gemm(dt, e):
    return [("128x768x3072 transB", single("Gemm", [In(e, [128, 768])], [e],
                                          [weights([3072, 768], e), weights([3072], e, 0.1)],
                                          transB=1))]


def pool(op, **attrs):
    def make(dt, e):
        return [("1x64x112x112", single(op, [In(e, ACT)], [e], **attrs))]
    return make


def resize(dt, e):
    scales = const(np.array([1, 1, 2, 2], np.float32))
    return [("linear x2 1x64x56x56", single("Resize", [In(e, [1, 64, 56, 56])], [e],
                                            [scales], order=["i0", "", "c0"], mode="linear")),
            ("nearest x2 1x64x56x56", single("Resize", [In(e, [1, 64, 56, 56])], [e],
                                             [scales], order=["i0", "", "c0"]))]


def softmax(op):
    def make(dt, e):
        return [("12x128x128", single(op, [In(e, [12, 128, 128])], [e], axis=-1)),
                ("128x30522", single(op, [In(e, [128, 30522])], [e], axis=-1))]
    return make


def layer_norm(dt, e):
    return [("128x768", single("LayerNormalization", [In(e, [128, 768])], [e],
                               [weights([768], e, 1.0), weights([768], e, 0.1)], axis=-1))]


def reduce(op):
    def make(dt, e):
        return [("1x256x56x56 over H,W", single(op, [In(e, ACT2)], [e], axes=[2, 3])),
                ("128x768 last axis", single(op, [In(e, [128, 768])], [e], axes=[-1]))]
    return make


def reduce_axes_input(op):
    def make(dt, e):
        axes = const(np.array([2, 3], np.int64))
        axes_last = const(np.array([-1], np.int64))
        return [("1x256x56x56 over H,W", single(op, [In(e, ACT2)], [e], [axes])),
                ("128x768 last axis", single(op, [In(e, [128, 768])], [e], [axes_last]))]
    return make


def arg(op):
    def make(dt, e):
        return [("1x256x56x56 axis 1", single(op, [In(e, ACT2)], [TensorProto.INT64], axis=1))]
    return make


def batch_norm(dt, e):
    c = 64
    return [("1x64x112x112", single("BatchNormalization", [In(e, ACT)], [e],
                                     [weights([c], e, 1.0), weights([c], e, 0.1),
                                      weights([c], e, 0.1), const(np.full([c], 1.0), e)]))]


def instance_norm(dt, e):
    return [("1x64x112x112", single("InstanceNormalization", [In(e, ACT)], [e],
                                    [weights([64], e, 1.0), weights([64], e, 0.1)]))]


def transpose(dt, e):
    return [("NCHW->NHWC 1x64x112x112", single("Transpose", [In(e, ACT)], [e],
                                               perm=[0, 2, 3, 1])),
            ("12x128x64 -> 12x64x128", single("Transpose", [In(e, [12, 128, 64])], [e],
                                              perm=[0, 2, 1]))]


def concat(dt, e):
    return [("2x 1x64x112x112 axis 1", single("Concat", [In(e, ACT), In(e, ACT)], [e], axis=1))]


def split(dt, e):
    return [("1x128x112x112 axis 1 in 2", single("Split", [In(e, [1, 128, 112, 112])], [e, e],
                                                 axis=1))]


def slice_(dt, e):
    starts, ends = const(np.array([0, 1], np.int64)), const(np.array([64, 111], np.int64))
    axes = const(np.array([1, 3], np.int64))
    return [("1x128x112x112 half", single("Slice", [In(e, [1, 128, 112, 112])], [e],
                                          [starts, ends, axes]))]


def gather(dt, e):
    idx = const(RNG.integers(0, 30522, [128]).astype(np.int64))
    return [("30522x768 table, 128 rows", single("Gather", [], [e],
                                                 [weights([30522, 768], e, 1.0), idx],
                                                 axis=0)),
            ("1x64x112x112 axis 1", single("Gather", [In(e, ACT)], [e],
                                           [const(np.arange(0, 64, 2, dtype=np.int64))],
                                           axis=1))]


def reshape_like(op):
    def make(dt, e):
        shape = const(np.array([1, 64, 12544], np.int64))
        return [("1x64x112x112", single(op, [In(e, ACT)], [e], [shape]))]
    return make


def expand(dt, e):
    return [("1x64x1x1 -> 1x64x112x112",
             single("Expand", [In(e, [1, 64, 1, 1])], [e], [const(np.array(ACT, np.int64))]))]


def tile(dt, e):
    return [("1x64x56x56 x2x2", single("Tile", [In(e, [1, 64, 56, 56])], [e],
                                       [const(np.array([1, 1, 2, 2], np.int64))]))]


def squeeze(op, shape, axes):
    def make(dt, e):
        return [("x".join(map(str, shape)) + f" axes {axes}",
                 single(op, [In(e, shape)], [e], [const(np.array(axes, np.int64))]))]
    return make


def cumsum(dt, e):
    return [("128x3072 axis 1", single("CumSum", [In(e, [128, 3072])], [e],
                                       [const(np.array(1, np.int64))]))]


def topk(dt, e):
    return [("128x30522 k 50", single("TopK", [In(e, [128, 30522])], [e, TensorProto.INT64],
                                      [const(np.array([50], np.int64))]))]


def pad(dt, e):
    return [("1x64x112x112 +1 border", single("Pad", [In(e, ACT)], [e],
                                              [const(np.array([0, 0, 1, 1, 0, 0, 1, 1],
                                                              np.int64))]))]


def where(dt, e):
    return [("1x64x112x112", single("Where", [In(TensorProto.BOOL, ACT), In(e, ACT),
                                              In(e, ACT)], [e]))]


def clip(dt, e):
    return [("1x64x112x112 [0,6]", single("Clip", [In(e, ACT)], [e],
                                          [const(np.array(0.0), e), const(np.array(6.0), e)]))]


def cast(dt, e):
    other = TensorProto.FLOAT if e != TensorProto.FLOAT else TensorProto.FLOAT16
    return [(f"1x64x112x112 to {TensorProto.DataType.Name(other).lower()}",
             single("Cast", [In(e, ACT)], [other], to=other)),
            (f"1x64x112x112 from {TensorProto.DataType.Name(other).lower()}",
             single("Cast", [In(other, ACT)], [e], to=e))]


def rnn(op, gates):
    def make(dt, e):
        seq, batch, hidden = 64, 1, 256
        return [(f"seq {seq} hidden {hidden}",
                 single(op, [In(e, [seq, batch, hidden])], [e],
                        [weights([1, gates * hidden, hidden], e),
                         weights([1, gates * hidden, hidden], e),
                         weights([1, 2 * gates * hidden], e, 0.1)],
                        hidden_size=hidden))]
    return make


def q_params(e, channels=None):
    scale = const(np.array(0.02 if channels is None else [0.02] * channels, np.float32))
    zero = const(np.array(128 if e == TensorProto.UINT8 else 0).astype(NP_TYPES[e]))
    return scale, zero


def quantize_linear(dt, e):
    scale, zero = q_params(e)
    return [("1x64x112x112", single("QuantizeLinear", [In(TensorProto.FLOAT, ACT)], [e],
                                    [scale, zero]))]


def dequantize_linear(dt, e):
    scale, zero = q_params(e)
    return [("1x64x112x112", single("DequantizeLinear", [In(e, ACT, -100, 100)],
                                    [TensorProto.FLOAT], [scale, zero]))]


def dynamic_quantize(dt, e):
    if e != TensorProto.UINT8:
        return []
    return [("1x64x112x112", single("DynamicQuantizeLinear", [In(TensorProto.FLOAT, ACT)],
                                    [e, TensorProto.FLOAT, e]))]


def qweights(shape, e):
    low, high = (-100, 100) if e == TensorProto.INT8 else (28, 228)
    return const(RNG.integers(low, high, shape).astype(NP_TYPES[e]))


def conv_integer(dt, e):
    _, zero = q_params(e)
    return [("3x3 64->64 112^2", single("ConvInteger", [In(e, [1, 64, 112, 112], 0, 255)],
                                        [TensorProto.INT32],
                                        [qweights([64, 64, 3, 3], e), zero], pads=[1, 1, 1, 1],
                                        order=["i0", "c0", "c1"]))]


def matmul_integer(dt, e):
    _, zero = q_params(e)
    return [("128x768x3072", single("MatMulInteger", [In(e, [128, 768], 0, 255)],
                                    [TensorProto.INT32], [qweights([768, 3072], e), zero],
                                    order=["i0", "c0", "c1"]))]


def qlinear_conv(dt, e):
    s, z = q_params(e)
    order = ["i0", "c0", "c1", "c2", "c3", "c4", "c5", "c6"]
    return [("3x3 64->64 112^2", single("QLinearConv", [In(e, [1, 64, 112, 112], 0, 255)], [e],
                                        [s, z, qweights([64, 64, 3, 3], e), s, z, s, z],
                                        order=order, pads=[1, 1, 1, 1]))]


def qlinear_matmul(dt, e):
    s, z = q_params(e)
    order = ["i0", "c0", "c1", "c2", "c3", "c4", "c5", "c6"]
    return [("128x768x3072", single("QLinearMatMul", [In(e, [128, 768], 0, 255)], [e],
                                    [s, z, qweights([768, 3072], e), s, z, s, z], order=order))]


def qdq(inner):
    """DequantizeLinear(x), DequantizeLinear(W) -> inner float op -> QuantizeLinear: the QDQ form."""
    def make(dt, e):
        s, z = q_params(e)
        if inner == "Conv":
            x_shape, w, attrs, label = [1, 64, 112, 112], [64, 64, 3, 3], {"pads": [1, 1, 1, 1]}, \
                "3x3 64->64 112^2"
        else:
            x_shape, w, attrs, label = [128, 768], [768, 3072], {}, "128x768x3072"
        nodes = [helper.make_node("DequantizeLinear", ["i0", "c0", "c1"], ["xf"], name="dqx"),
                 helper.make_node("DequantizeLinear", ["c2", "c0", "c1"], ["wf"], name="dqw"),
                 helper.make_node(inner, ["xf", "wf"], ["yf"], name=inner, **attrs),
                 helper.make_node("QuantizeLinear", ["yf", "c0", "c1"], ["y0"], name="q")]
        return [(label, model(nodes, [In(e, x_shape, 0, 255)], [e], [s, z, qweights(w, e)]))]
    return make


# ---- ONNX Runtime's contrib ops (com.microsoft), at the sizes of the models that carry them:
# 4-bit LLM decoders (hidden 4096, 32 query and 8 kv heads of 128, ONNX Runtime GenAI's form) and
# BERT-base (hidden 768, 12 heads, FFN 3072, sequence 128, the transformer optimizer's form).

LLM_D, LLM_HEADS, LLM_KV, LLM_HEAD = 4096, 32, 8, 128
BERT_D, BERT_HEADS, BERT_FFN, BERT_S = 768, 12, 3072, 128


def nbits_weights(k, n, block):
    """Random packed 4-bit B [N, k_blocks, block/2], scales and packed uint8 zero points."""
    k_blocks = (k + block - 1) // block
    return [const(RNG.integers(0, 256, (n, k_blocks, block // 2)).astype(np.uint8)),
            const(RNG.uniform(0.001, 0.01, (n, k_blocks)).astype(np.float32)),
            const(RNG.integers(0, 256, (n, (k_blocks + 1) // 2)).astype(np.uint8))]


def matmul_nbits(dt, e):
    k = n = LLM_D
    return [(f"{m}x{k}x{n} 4b blk{block}",
             single("MatMulNBits", [In(e, [m, k])], [e], nbits_weights(k, n, block), domain=MS,
                    K=k, N=n, bits=4, block_size=block))
            for m, block in ((1, 32), (1, 128), (128, 32), (128, 128))]


def skip_norm(op, llm):
    def make(dt, e):
        cases = []
        for s in ((1, 128) if llm else (BERT_S,)):
            d = LLM_D if llm else BERT_D
            x = [1, s, d]
            params = [weights([d], e, 1.0)] + ([] if llm else [weights([d], e, 0.1),
                                                               weights([d], e, 0.1)])
            # GenAI's decoders use the residual sum (output 3); BERT's the normalised output.
            outputs = ["y0", "", "", "y1"] if llm else ["y0"]
            cases.append((f"1x{s}x{d}", single(op, [In(e, x), In(e, x)], [e] * (2 if llm else 1),
                                              params, domain=MS, outputs=outputs,
                                              epsilon=1e-5)))
        return cases
    return make


def simplified_norm(dt, e):
    return [(f"1x{s}x{LLM_D}", single("SimplifiedLayerNormalization", [In(e, [1, s, LLM_D])], [e],
                                      [weights([LLM_D], e, 1.0)], axis=-1, epsilon=1e-5))
            for s in (1, 128)]


def embed_layer_norm(dt, e):
    i32 = TensorProto.INT32
    s, vocab = BERT_S, 30522
    order = ["i0", "i1", "c0", "c1", "c2", "c3", "c4", "i2"]
    return [(f"1x{s} vocab {vocab} hidden {BERT_D}",
             single("EmbedLayerNormalization",
                    [In(i32, [1, s], 0, vocab - 1, passed=True), In(i32, [1, s], 0, 1, passed=True),
                     In(i32, [1, s], 1, 1, passed=True)],
                    [e, i32], [weights([vocab, BERT_D], e, 1.0), weights([512, BERT_D], e, 0.5),
                               weights([2, BERT_D], e, 0.5), weights([BERT_D], e, 1.0),
                               weights([BERT_D], e, 0.1)],
                    order=order, domain=MS, epsilon=1e-12))]


def bias_activation(op, bias=True, **attrs):
    def make(dt, e):
        x = [1, BERT_S, BERT_FFN]
        params = [weights([BERT_FFN], e, 0.1)] if bias else []
        return [("x".join(map(str, x)) + (" + bias" if bias else ""),
                 single(op, [In(e, x, -3, 3)], [e], params, domain=MS, **attrs))]
    return make


def bias_add(dt, e):
    x = [2, 4096, 320]  # a Stable Diffusion UNet's 64x64 latent at 320 channels
    return [("2x4096x320", single("BiasAdd", [In(e, x), In(e, x)], [e], [weights([320], e, 0.1)],
                                  order=["i0", "c0", "i1"], domain=MS))]


def rope_caches(max_pos, rotary_dim):
    inv = 1.0 / (10000.0 ** (np.arange(0, rotary_dim, 2, dtype=np.float64) / rotary_dim))
    angles = np.outer(np.arange(max_pos, dtype=np.float64), inv)
    return [const(np.cos(angles).astype(np.float32)), const(np.sin(angles).astype(np.float32))]


def rotary_embedding(dt, e):
    cases = []
    for s, start in ((1, 511), (128, 0)):
        positions = const(np.arange(start, start + s, dtype=np.int64)[None, :])
        cases.append((f"1x{s}x{LLM_D} {LLM_HEADS} heads at {start}",
                      single("RotaryEmbedding", [In(e, [1, s, LLM_D])], [e],
                             [positions] + rope_caches(4096, LLM_HEAD), domain=MS,
                             num_heads=LLM_HEADS)))
    return cases


def group_query_attention(dt, e):
    i32 = TensorProto.INT32
    kv = LLM_KV * LLM_HEAD
    attrs = {"num_heads": LLM_HEADS, "kv_num_heads": LLM_KV, "do_rotary": 1}
    cases = []
    # Decode: one token after 511 cached ones; prefill: a 128-token prompt, no past.
    for s, past in ((1, 511), (128, 0)):
        total = past + s
        consts = [const(np.array([total - 1], np.int32)), const(np.array(total, np.int32))]
        consts += rope_caches(4096, LLM_HEAD)
        inputs = [In(e, [1, s, LLM_D]), In(e, [1, s, kv]), In(e, [1, s, kv])]
        order = ["i0", "i1", "i2", "", "", "c0", "c1", "c2", "c3"]
        if past:
            inputs += [In(e, [1, LLM_KV, past, LLM_HEAD])] * 2
            order[3:5] = ["i3", "i4"]
        label = f"decode past {past}" if past else f"prefill {s}"
        cases.append((label, single("GroupQueryAttention", inputs, [e, e, e], consts,
                                    order=order, domain=MS, **attrs)))
    return cases


def multi_head_attention(dt, e):
    x = [1, BERT_S, BERT_D]
    return [(f"1x{BERT_S}x{BERT_D} {BERT_HEADS} heads + bias",
             single("MultiHeadAttention", [In(e, x), In(e, x), In(e, x)], [e],
                    [weights([3 * BERT_D], e, 0.1)], domain=MS, num_heads=BERT_HEADS))]


def attention(dt, e):
    return [(f"1x{BERT_S}x{BERT_D} {BERT_HEADS} heads, mask lengths",
             single("Attention", [In(e, [1, BERT_S, BERT_D]), In(TensorProto.INT32, [1], BERT_S,
                                                                  BERT_S, passed=True)], [e],
                    [weights([BERT_D, 3 * BERT_D], e), weights([3 * BERT_D], e, 0.1)],
                    order=["i0", "c0", "c1", "i1"], domain=MS, num_heads=BERT_HEADS))]


def fused_matmul(op):
    def make(dt, e):
        return [(f"{BERT_HEADS}x{BERT_S}x64 @ ^T, alpha 1/8",
                 single(op, [In(e, [BERT_HEADS, BERT_S, 64]), In(e, [BERT_HEADS, BERT_S, 64])],
                        [e], domain=MS, transB=1, alpha=0.125))]
    return make


def qlinear_binary(op):
    def make(dt, e):
        s, z = q_params(e)
        order = ["i0", "c0", "c1", "i1", "c0", "c1", "c0", "c1"]
        return [("1x64x112x112 same shape", single(op, [In(e, ACT), In(e, ACT)], [e], [s, z],
                                                   order=order, domain=MS))]
    return make


def qlinear_unary(op, shape, **attrs):
    def make(dt, e):
        s, z = q_params(e)
        return [("x".join(map(str, shape)), single(op, [In(e, shape)], [e], [s, z],
                                                   order=["i0", "c0", "c1", "c0", "c1"],
                                                   domain=MS, **attrs))]
    return make


def qlinear_concat(dt, e):
    s, z = q_params(e)
    x = [1, 64, 56, 56]
    return [("2x 1x64x56x56 axis 1", single("QLinearConcat", [In(e, x), In(e, x)], [e], [s, z],
                                            order=["c0", "c1", "i0", "c0", "c1", "i1", "c0",
                                                   "c1"], domain=MS, axis=1))]


def matmul_integer_to_float(dt, e):
    u8, i8 = TensorProto.UINT8, TensorProto.INT8
    scale = const(np.array(0.02, np.float32))
    return [("128x768x3072 u8 x i8", single(
        "MatMulIntegerToFloat", [In(u8, [128, 768], 0, 255)], [e],
        [qweights([768, 3072], i8), scale, scale, const(np.array(128, np.uint8)),
         const(np.array(0, np.int8)), weights([3072], e, 0.1)],
        order=["i0", "c0", "c1", "c2", "c3", "c4", "c5"], domain=MS))]


def dynamic_quantize_matmul(dt, e):
    i8 = TensorProto.INT8
    return [("128x768x3072 i8 weights", single(
        "DynamicQuantizeMatMul", [In(e, [128, 768])], [e],
        [qweights([768, 3072], i8), const(np.array(0.02, np.float32)),
         const(np.array(0, np.int8)), weights([3072], e, 0.1)], domain=MS))]


# Keyed by op type, for the com.microsoft entries of the table (and ORT's ONNX-domain contrib
# ops, is_contrib); their dtype columns are those the table allows for output 0.
CONTRIB_RECIPES = {
    "MatMulNBits": matmul_nbits,
    "SkipLayerNormalization": skip_norm("SkipLayerNormalization", llm=False),
    "SkipSimplifiedLayerNormalization": skip_norm("SkipSimplifiedLayerNormalization", llm=True),
    "SimplifiedLayerNormalization": simplified_norm,
    "EmbedLayerNormalization": embed_layer_norm,
    "FastGelu": bias_activation("FastGelu"), "BiasGelu": bias_activation("BiasGelu"),
    "Gelu": bias_activation("Gelu", bias=False),
    "QuickGelu": bias_activation("QuickGelu", bias=False, alpha=1.702),
    "BiasAdd": bias_add, "RotaryEmbedding": rotary_embedding,
    "GroupQueryAttention": group_query_attention, "MultiHeadAttention": multi_head_attention,
    "Attention": attention,
    "FusedMatMul": fused_matmul("FusedMatMul"), "TransposeMatMul": fused_matmul("TransposeMatMul"),
    "QLinearAdd": qlinear_binary("QLinearAdd"), "QLinearMul": qlinear_binary("QLinearMul"),
    "QLinearSigmoid": qlinear_unary("QLinearSigmoid", ACT),
    "QLinearGlobalAveragePool": qlinear_unary("QLinearGlobalAveragePool", ACT2,
                                              channels_last=0),
    "QLinearConcat": qlinear_concat, "MatMulIntegerToFloat": matmul_integer_to_float,
    "DynamicQuantizeMatMul": dynamic_quantize_matmul,
}


UNARY_OPS = ["Relu", "Sigmoid", "Tanh", "Erf", "Exp", "Log", "Sqrt", "Abs", "Neg", "Reciprocal",
             "Floor", "Ceil", "Round", "Sign", "Softplus", "Softsign", "Elu", "Selu", "LeakyRelu",
             "HardSigmoid", "HardSwish", "ThresholdedRelu", "Celu", "Mish", "Sin", "Cos", "Tan",
             "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Identity",
             "Dropout", "Shrink", "IsNaN", "IsInf", "Not"]

RECIPES = {op: unary(op) for op in UNARY_OPS}
RECIPES.update({op: binary(op) for op in ["Add", "Sub", "Mul", "Div", "Pow", "Max", "Min",
                                          "Mean", "Sum", "PRelu", "Mod"]})
RECIPES.update({op: compare(op) for op in ["Equal", "Less", "Greater", "LessOrEqual",
                                           "GreaterOrEqual"]})
RECIPES.update({
    "Conv": conv, "ConvTranspose": conv_transpose, "MatMul": matmul, "Gemm": gemm,
    "MaxPool": pool("MaxPool", kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1),
    "AveragePool": pool("AveragePool", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
    "GlobalAveragePool": pool("GlobalAveragePool"), "GlobalMaxPool": pool("GlobalMaxPool"),
    "LpPool": pool("LpPool", kernel_shape=[2, 2], strides=[2, 2]),
    "Resize": resize, "Softmax": softmax("Softmax"), "LogSoftmax": softmax("LogSoftmax"),
    "Hardmax": softmax("Hardmax"), "LayerNormalization": layer_norm,
    "BatchNormalization": batch_norm, "InstanceNormalization": instance_norm,
    "LRN": pool("LRN", size=5), "LpNormalization": pool("LpNormalization", axis=1),
    "MeanVarianceNormalization": pool("MeanVarianceNormalization"),
    "Transpose": transpose, "Concat": concat, "Split": split, "Slice": slice_, "Gather": gather,
    "Reshape": reshape_like("Reshape"), "Expand": expand, "Tile": tile, "Pad": pad,
    "Where": where, "Clip": clip, "Cast": cast, "Flatten": pool("Flatten", axis=1),
    "DepthToSpace": pool("DepthToSpace", blocksize=2), "SpaceToDepth": pool("SpaceToDepth",
                                                                            blocksize=2),
    "Squeeze": squeeze("Squeeze", [1, 64, 1, 12544], [0, 2]),
    "Unsqueeze": squeeze("Unsqueeze", [64, 12544], [0, 2]),
    "CumSum": cumsum, "TopK": topk,
    "LSTM": rnn("LSTM", 4), "GRU": rnn("GRU", 3), "RNN": rnn("RNN", 1),
    "ArgMax": arg("ArgMax"), "ArgMin": arg("ArgMin"),
    "QuantizeLinear": quantize_linear, "DequantizeLinear": dequantize_linear,
    "DynamicQuantizeLinear": dynamic_quantize, "ConvInteger": conv_integer,
    "MatMulInteger": matmul_integer, "QLinearConv": qlinear_conv,
    "QLinearMatMul": qlinear_matmul,
})
# Reduce* take axes as an attribute at opset 17, except ReduceSum (an input since 13).
for _op in ["ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
            "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"]:
    RECIPES[_op] = reduce(_op)
RECIPES["ReduceSum"] = reduce_axes_input("ReduceSum")
# The QDQ forms: rows of their own, run in the quantized dtypes.
QDQ_CASES = {"QDQ Conv": qdq("Conv"), "QDQ MatMul": qdq("MatMul")}
# Ops whose dtype column is their quantized (uint8/int8) type rather than a float type.
QUANT_OPS = {"QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear", "ConvInteger",
             "MatMulInteger", "QLinearConv", "QLinearMatMul"} | set(QDQ_CASES)


def generic(op):
    """A case for an op without a recipe when its schema binds all inputs and outputs to one type
    variable and has at most three inputs: elementwise on 1x64x112x112."""
    try:
        schema = onnx.defs.get_schema(op, OPSET)
    except Exception:
        return None
    formals = list(schema.inputs) + list(schema.outputs)
    if not formals or len(schema.inputs) > 3 or len({f.typeStr for f in formals}) != 1:
        return None
    if any(a.required for a in schema.attributes.values()):
        return None

    def make(dt, e):
        n_in = max(1, sum(1 for f in schema.inputs
                          if f.option != onnx.defs.OpSchema.FormalParameterOption.Optional))
        return [("1x64x112x112 (generic)",
                 single(op, [In(e, ACT) for _ in range(n_in)], [e] * len(schema.outputs)))]
    return make


# ---- the kernel table ----

def kernel_table(build_dir):
    binary = os.path.join(build_dir, "bench", "nxrt_kernel_table")
    if not os.access(binary, os.X_OK):
        sys.exit(f"op_bench.py: {binary} not found; build it (cmake --build {build_dir} "
                 f"--target nxrt_kernel_table) or pass --build-dir")
    done = subprocess.run([binary], capture_output=True, text=True, check=True)
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def schema_allows(op, dt):
    """True when ONNX's schema of `op` at OPSET has a type variable that takes dtype column `dt`
    (Where's T beside its bool condition, Cast's T2...)."""
    try:
        schema = onnx.defs.get_schema(op, OPSET)
    except Exception:
        return False
    if any(SCHEMA_NAMES[dt] in c.allowed_type_strs for c in schema.type_constraints):
        return True
    return any(f.typeStr == SCHEMA_NAMES[dt] for f in schema.inputs)


def table_ops(entries):
    """{(domain, op): dtype columns}. An ONNX op's columns are those its default-domain entries
    covering OPSET list (any type variable); a contrib op's (is_contrib) those its entries allow
    for output 0."""
    ops = {}
    for entry in entries:
        domain = "" if entry["domain"] == "ai.onnx" else entry["domain"]
        if domain not in ("", MS):  # nxrt's own com.nxrt ops are the optimizer's, not models'
            continue
        contrib = is_contrib(domain, entry["op"])
        if domain == "" and (entry["since"] > OPSET or
                             (entry["until"] is not None and entry["until"] < OPSET)):
            continue
        names = set()
        for constraint in entry["types"]:
            if not contrib or 0 in constraint["outputs"]:
                names.update(constraint["dtypes"])
        cols = ops.setdefault((domain, entry["op"]), set())
        cols.update(dt for dt, name in TABLE_NAMES.items() if name in names)
    return ops


def plan_cases(entries, args):
    """[(op, dt, label, model)] for the selected ops and dtypes; and the ops without a recipe."""
    ops = table_ops(entries)
    cases, missing = [], []
    for domain, op in sorted(ops, key=lambda key: (key[0] != "", key[1])):
        contrib = is_contrib(domain, op)
        if (args.ops and op not in args.ops) or (args.contrib and not contrib):
            continue
        if contrib:
            recipe = CONTRIB_RECIPES.get(op)
            dts = [dt for dt in ALL_DTYPES if dt in ops[(domain, op)]]
        else:
            recipe = RECIPES.get(op) or generic(op)
            if op in QUANT_OPS:
                dts = [dt for dt in QUANT_DTYPES if dt in ops[(domain, op)]]
            else:
                dts = [dt for dt in FLOAT_DTYPES
                       if dt in ops[(domain, op)] and schema_allows(op, dt)]
        if recipe is None:
            missing.append(op if not domain else f"{domain}.{op}")
            continue
        for dt in dts:
            if args.dtypes and dt not in args.dtypes:
                continue
            elem = {**FLOAT_DTYPES, **QUANT_DTYPES}[dt]
            try:
                made = recipe(dt, elem)
            except Exception as error:  # ONNX's shape inference refused the model
                missing.append(f"{op} {dt} ({str(error).splitlines()[0][:120]})")
                continue
            for label, m in (made[:1] if args.quick else made):
                cases.append((op, dt, label, m))
    for name, recipe in QDQ_CASES.items():
        if args.contrib or (args.ops and name not in args.ops and name.split()[1] not in args.ops):
            continue
        for dt in QUANT_DTYPES:
            if args.dtypes and dt not in args.dtypes:
                continue
            for label, m in recipe(dt, QUANT_DTYPES[dt]):
                cases.append((name, dt, label, m))
    return cases, missing


# ---- measuring ----

def input_flags(m):
    flags = []
    for graph_input in m.graph.input:
        elem = graph_input.type.tensor_type.elem_type
        if graph_input.doc_string.startswith(RANGE_DOC):
            flags += ["--range", f"{graph_input.name}={graph_input.doc_string[len(RANGE_DOC):]}"]
            continue
        if elem == TensorProto.BOOL:
            continue
        # The tools' inputs are uniform in [-1, 1) by default; quantized inputs get 0..255
        # (int8 clamps to its range).
        if elem in (TensorProto.UINT8, TensorProto.INT8):
            flags += ["--range", f"{graph_input.name}=-100,200"]
    return flags


def one_side(command, timeout):
    report, error = side_by_side.run_json(command, timeout)
    return report, error


def measure(args, tools, path, flags, threads):
    """A probe run sizes the loop, then R alternating rounds of both tools."""
    nxrt, ort_run = tools
    base = [path, "--threads", str(threads), "--json"] + flags
    commands = {"nxrt": [nxrt, "bench"] + base + args.nxrt_args,
                "ort": [ort_run, "--bench"] + base}
    iterations, errors = {}, {}
    for side in ("nxrt", "ort"):
        report, error = one_side(commands[side] + ["--warmup", "1", "--iterations", "2"],
                                 args.timeout)
        if error:
            errors[side] = error
            continue
        per_run = max(report["median_ms"], 1e-3)
        iterations[side] = int(min(args.max_iterations, max(3, args.target_ms / per_run)))
    reports = {"nxrt": [], "ort": []}
    for round_index in range(args.rounds):
        order = ["nxrt", "ort"] if round_index % 2 == 0 else ["ort", "nxrt"]
        for side in order:
            if side in errors:
                continue
            n = iterations[side]
            report, error = one_side(commands[side] + ["--warmup", str(max(1, n // 10)),
                                                       "--iterations", str(n)], args.timeout)
            if error:
                errors[side] = error
            else:
                reports[side].append(report)
    result = {"threads": threads, "errors": errors}
    for side in ("nxrt", "ort"):
        if reports[side]:
            result[side + "_ms"] = statistics.median(r["median_ms"] for r in reports[side])
    if "nxrt_ms" in result and "ort_ms" in result:
        result["ratio"] = result["nxrt_ms"] / result["ort_ms"]
    return result


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def print_table(results, thread_counts):
    rows = sorted(results, key=lambda r: -max((r["by_threads"][t].get("ratio", float("inf"))
                                               for t in thread_counts), default=0))
    header = ["op", "dtype", "shape"]
    for t in thread_counts:
        header += [f"nxrt ms {t}t", f"ORT ms {t}t", f"ratio {t}t"]
    lines = []
    for r in rows:
        line = [r["op"], r["dtype"], r["shape"]]
        for t in thread_counts:
            m = r["by_threads"][t]
            line += [side_by_side.fmt(m.get("nxrt_ms")) if "nxrt_ms" in m else "error",
                     side_by_side.fmt(m.get("ort_ms")) if "ort_ms" in m else "error",
                     f"{m['ratio']:.2f}" if "ratio" in m else "-"]
        lines.append(line)
    widths = [max(len(h), *(len(line[i]) for line in lines)) if lines else len(h)
              for i, h in enumerate(header)]
    print("  ".join(h.ljust(w) if i < 3 else h.rjust(w)
                    for i, (h, w) in enumerate(zip(header, widths))))
    for line in lines:
        print("  ".join(c.ljust(w) if i < 3 else c.rjust(w)
                        for i, (c, w) in enumerate(zip(line, widths))))
    summary = {}
    for t in thread_counts:
        ratios = [r["by_threads"][t]["ratio"] for r in results if "ratio" in r["by_threads"][t]]
        summary[str(t)] = {"all": geomean(ratios)}
        text = f"geometric mean nxrt/ORT at {t} thread(s): "
        text += f"{geomean(ratios):.2f} over {len(ratios)} case(s)" if ratios else "no ratio"
        for dt in ALL_DTYPES:
            sub = [r["by_threads"][t]["ratio"] for r in results
                   if r["dtype"] == dt and "ratio" in r["by_threads"][t]]
            if sub:
                summary[str(t)][dt] = geomean(sub)
                text += f"; {dt} {geomean(sub):.2f} ({len(sub)})"
        print(text)
    for r in results:
        for t in thread_counts:
            for side, error in r["by_threads"][t].get("errors", {}).items():
                print(f"  {r['op']} {r['dtype']} {r['shape']} at {t} thread(s): {side} {error}")
    return summary


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build-dir", default="build/release",
                        help="CMake build folder with tools/nxrt/nxrt, tests/ort_oracle/ort_run "
                             "and bench/nxrt_kernel_table (default build/release)")
    parser.add_argument("--ops", default="", help="comma-separated op types (default: all the "
                                                  "table has), e.g. Conv,MatMul or 'QDQ Conv'")
    parser.add_argument("--contrib", action="store_true",
                        help="only ONNX Runtime's contrib ops (com.microsoft, and the ONNX-domain "
                             "ops ONNX does not define)")
    parser.add_argument("--dtypes", default="", help="comma-separated dtype columns among " +
                        ",".join(ALL_DTYPES) + " (default all)")
    parser.add_argument("--threads", default="1,2", help="intra-op thread counts (default 1,2)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (default 3)")
    parser.add_argument("--quick", action="store_true",
                        help="the first shape of each op only, one round, 100 ms per process")
    parser.add_argument("--target-ms", type=float, default=300,
                        help="timed loop length per process, from the probe (default 300)")
    parser.add_argument("--max-iterations", type=int, default=200,
                        help="cap on timed runs per process (default 200)")
    parser.add_argument("--timeout", type=float, default=600,
                        help="seconds one process may take (default 600)")
    parser.add_argument("--out", default="", help="folder for models, op_ratios.svg and "
                                                  "op_results.json (default <build-dir>/op_bench)")
    parser.add_argument("--nxrt-args", default="",
                        help="extra flags for `nxrt bench`, space-separated, e.g. "
                             "'--disable-pass insert_cast' (the half-precision reference loops)")
    parser.add_argument("--list", action="store_true",
                        help="print the cases (op, dtype, shape) and exit without measuring")
    args = parser.parse_args()
    args.nxrt_args = args.nxrt_args.split()
    args.ops = [o for o in args.ops.split(",") if o]
    args.dtypes = [d for d in args.dtypes.split(",") if d]
    unknown = [d for d in args.dtypes if d not in ALL_DTYPES]
    if unknown:
        parser.error(f"--dtypes: unknown {unknown}; known: {','.join(ALL_DTYPES)}")
    check_threads_and_rounds(parser, args)
    if args.quick:
        args.rounds = 1
        args.target_ms = min(args.target_ms, 100)
    args.out = args.out or os.path.join(args.build_dir, "op_bench")
    return args


def main():
    args = parse_args()
    entries = kernel_table(args.build_dir)
    cases, missing = plan_cases(entries, args)
    unknown_ops = [o for o in args.ops if o not in {c[0] for c in cases} and o not in missing]
    if unknown_ops:
        sys.exit(f"op_bench.py: --ops {unknown_ops}: no such op in the CPU EP's table with a "
                 f"selected dtype")
    if args.list:
        for op, dt, label, _ in cases:
            print(f"{op}\t{dt}\t{label}")
        if missing:
            print("no recipe: " + ", ".join(missing))
        return
    tools = side_by_side.tool_paths(args.build_dir)
    model_dir = os.path.join(args.out, "models")
    os.makedirs(model_dir, exist_ok=True)
    load = os.getloadavg()
    print(f"{len(cases)} case(s) at {args.threads} thread(s); load average {load[0]:.2f} on "
          f"{os.cpu_count()} CPUs; {args.rounds} round(s) of ~{args.target_ms:.0f} ms",
          flush=True)
    started = time.time()
    results = []
    for index, (op, dt, label, m) in enumerate(cases):
        safe = "".join(ch if ch.isalnum() else "_" for ch in f"{op}_{dt}_{label}")
        path = os.path.join(model_dir, safe + ".onnx")
        onnx.save(m, path)
        flags = input_flags(m)
        row = {"op": op, "dtype": dt, "shape": label, "model": path, "by_threads": {}}
        for threads in args.thread_counts:
            row["by_threads"][threads] = measure(args, tools, path, flags, threads)
        ratios = " ".join(f"{t}t " + (f"{row['by_threads'][t]['ratio']:.2f}"
                                      if "ratio" in row["by_threads"][t] else "-")
                          for t in args.thread_counts)
        print(f"[{index + 1}/{len(cases)}] {op} {dt} {label}: {ratios}", flush=True)
        results.append(row)
    print()
    summary = print_table(results, args.thread_counts)
    if missing:
        print("in the kernel table without a recipe (not measured): " + ", ".join(missing))
    labels = {}
    for r in results:
        text = f"{r['op']} {r['dtype']} {r['shape']}"[:26]
        labels[id(r)] = text if text not in labels.values() else f"{text[:22]} #{len(labels)}"
    chart = [{"model": labels[id(r)], "threads": t, "ratio": r["by_threads"][t]["ratio"]}
             for r in results for t in args.thread_counts if "ratio" in r["by_threads"][t]]
    chart.sort(key=lambda c: -c["ratio"])
    svg = os.path.join(args.out, "op_ratios.svg")
    means = {t: summary[str(t)]["all"] for t in args.thread_counts if summary[str(t)]["all"]}
    if side_by_side.write_svg(svg, chart, args.thread_counts, means):
        print(f"wrote {svg}")
    with open(os.path.join(args.out, "op_results.json"), "w") as f:
        json.dump({"seconds": time.time() - started, "load_average_at_start": load,
                   "rounds": args.rounds, "target_ms": args.target_ms, "results": results,
                   "geometric_mean_ratio": summary, "no_recipe": missing}, f, indent=1)
    print(f"wrote {os.path.join(args.out, 'op_results.json')}")


if __name__ == "__main__":
    main()
