#!/usr/bin/python3
"""tests/contrib/make_decoder.py OUT_DIR [--shape NAME=L,H,HEADS,KV,INTER,VOCAB,BLOCK,MAXPOS ...]:
small LLM decoders in the form ONNX Runtime GenAI's model builder writes (a Llama-style decoder),
with random fixed-seed weights. Without --shape it writes the two test models (SIZES); each
--shape writes NAME.onnx with L layers, hidden size H, HEADS query and KV key/value heads, MLP
size INTER, vocabulary VOCAB, int4 blocks of BLOCK and rotary caches of MAXPOS positions.

Per model: input_ids int64 [B, S], attention_mask int64 [B, T] and, per layer,
past_key_values.L.key / .value float [B, Nkv, P, H]; outputs logits float [B, S, V] and
present.L.key / .value [B, Nkv, T, H]. The graph: Gather of the embedding table; seqlens_k =
ReduceSum(attention_mask) - 1 and total_sequence_length = attention_mask's dim 1, both int32;
per layer SimplifiedLayerNormalization (first layer) or SkipSimplifiedLayerNormalization (the
residual stream), q/k/v projections as MatMulNBits, GroupQueryAttention with rotary embedding
inside (cos/sin caches as initializers) and the KV cache, o_proj (MatMulNBits),
SkipSimplifiedLayerNormalization, the SiLU MLP (gate and up MatMulNBits, Sigmoid, Mul, down
MatMulNBits); a final SkipSimplifiedLayerNormalization and the lm_head (MatMulNBits).

The weights are quantized to int4 here, following MatMulNBits' definition (ONNX Runtime's
docs/ContribOperators.md): blocks of `block_size` along K per output column, asymmetric,
scale = (max - min) / 15 over the block (min <= 0 <= max), zero point round(-min / scale) in
[0, 15], q = clamp(round(w / scale) + zero point, 0, 15), packed two per byte (low nibble first)
into B [N, k_blocks, block_size / 2] and zero points [N, ceil(k_blocks / 2)].
"""
import argparse
import os

import numpy as np
from onnx import TensorProto, helper, numpy_helper
import onnx

MS = "com.microsoft"

# name: (layers, hidden, heads, kv_heads, intermediate, vocab, block_size, max_positions)
SIZES = {
    "decoder_tiny": (2, 64, 4, 2, 96, 97, 32, 128),
    "decoder_small": (4, 256, 8, 2, 688, 1001, 64, 256),
}


def quantize_int4(w, block):
    """w float [K, N] -> (B uint8 [N, k_blocks, block/2], scales [N, k_blocks], zp packed)."""
    k, n = w.shape
    k_blocks = (k + block - 1) // block
    padded = np.zeros((k_blocks * block, n), np.float32)
    padded[:k] = w
    blocks = padded.T.reshape(n, k_blocks, block)  # [N, k_blocks, block]
    lo = np.minimum(blocks.min(axis=2), 0.0)
    hi = np.maximum(blocks.max(axis=2), 0.0)
    scale = (hi - lo) / 15.0
    scale[scale == 0] = 1.0
    zp = np.clip(np.rint(-lo / scale), 0, 15).astype(np.int32)
    q = np.clip(np.rint(blocks / scale[:, :, None]) + zp[:, :, None], 0, 15).astype(np.uint8)
    packed = (q[:, :, 0::2] | (q[:, :, 1::2] << 4)).astype(np.uint8)
    zp_padded = np.zeros((n, (k_blocks + 1) // 2 * 2), np.uint8)
    zp_padded[:, :k_blocks] = zp
    zp_packed = (zp_padded[:, 0::2] | (zp_padded[:, 1::2] << 4)).astype(np.uint8)
    return packed, scale.astype(np.float32), zp_packed


class Builder:
    def __init__(self, rng):
        self.rng = rng
        self.nodes = []
        self.initializers = []

    def init(self, name, array):
        self.initializers.append(numpy_helper.from_array(array, name))
        return name

    def node(self, op, inputs, outputs, domain="", **attrs):
        self.nodes.append(helper.make_node(op, inputs, outputs, name=outputs[0] + "_node",
                                           domain=domain, **attrs))
        return outputs

    def matmul_nbits(self, x, name, k, n, block):
        w = self.rng.normal(0, 1 / np.sqrt(k), (k, n)).astype(np.float32)
        b, scales, zp = quantize_int4(w, block)
        inputs = [x, self.init(name + ".qweight", b), self.init(name + ".scales", scales),
                  self.init(name + ".qzeros", zp)]
        return self.node("MatMulNBits", inputs, [name], MS, K=k, N=n, bits=4,
                         block_size=block, accuracy_level=0)[0]

    def norm_weight(self, name, d):
        return self.init(name, (1 + 0.1 * self.rng.standard_normal(d)).astype(np.float32))


def make_decoder(layers, d, heads, kv_heads, inter, vocab, block, max_pos, seed):
    rng = np.random.default_rng(seed)
    g = Builder(rng)
    h = d // heads
    embed = g.init("model.embed_tokens.weight",
                   rng.normal(0, 1, (vocab, d)).astype(np.float32))
    g.node("Gather", [embed, "input_ids"], ["embeddings"])
    # GQA's seqlens_k and total_sequence_length from the attention mask, as the builder does.
    g.init("one_i64", np.array([1], np.int64))
    g.node("ReduceSum", ["attention_mask", "one_i64"], ["mask_sum"], keepdims=0)
    g.node("Sub", ["mask_sum", "one_i64"], ["seqlens_k_i64"])
    g.node("Cast", ["seqlens_k_i64"], ["seqlens_k"], to=TensorProto.INT32)
    g.node("Shape", ["attention_mask"], ["mask_shape"])
    g.init("index_1", np.array(1, np.int64))
    g.node("Gather", ["mask_shape", "index_1"], ["total_len_i64"], axis=0)
    g.node("Cast", ["total_len_i64"], ["total_seq_len"], to=TensorProto.INT32)
    inv = 1.0 / (10000.0 ** (np.arange(0, h, 2, dtype=np.float64) / h))
    angles = np.outer(np.arange(max_pos, dtype=np.float64), inv)
    cos = g.init("cos_cache", np.cos(angles).astype(np.float32))
    sin = g.init("sin_cache", np.sin(angles).astype(np.float32))

    inputs = [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
              helper.make_tensor_value_info("attention_mask", TensorProto.INT64,
                                            ["batch", "total"])]
    outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT,
                                             ["batch", "seq", vocab])]
    hidden, residual = "embeddings", None
    for i in range(layers):
        p = f"model.layers.{i}"
        weight = g.norm_weight(p + ".input_layernorm.weight", d)
        if residual is None:
            g.node("SimplifiedLayerNormalization", [hidden, weight], [p + ".norm1"],
                   axis=-1, epsilon=1e-5, stash_type=1)
            residual = hidden
        else:
            g.node("SkipSimplifiedLayerNormalization", [hidden, residual, weight],
                   [p + ".norm1", "", "", p + ".residual1"], MS, epsilon=1e-5)
            residual = p + ".residual1"
        q = g.matmul_nbits(p + ".norm1", p + ".attn.q_proj", d, heads * h, block)
        k = g.matmul_nbits(p + ".norm1", p + ".attn.k_proj", d, kv_heads * h, block)
        v = g.matmul_nbits(p + ".norm1", p + ".attn.v_proj", d, kv_heads * h, block)
        past_k, past_v = f"past_key_values.{i}.key", f"past_key_values.{i}.value"
        present_k, present_v = f"present.{i}.key", f"present.{i}.value"
        for name in (past_k, past_v):
            inputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT,
                                                        ["batch", kv_heads, "past", h]))
        for name in (present_k, present_v):
            outputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT,
                                                         ["batch", kv_heads, "total", h]))
        g.node("GroupQueryAttention",
               [q, k, v, past_k, past_v, "seqlens_k", "total_seq_len", cos, sin],
               [p + ".attn", present_k, present_v], MS, num_heads=heads,
               kv_num_heads=kv_heads, do_rotary=1, rotary_interleaved=0)
        o = g.matmul_nbits(p + ".attn", p + ".attn.o_proj", heads * h, d, block)
        weight = g.norm_weight(p + ".post_attention_layernorm.weight", d)
        g.node("SkipSimplifiedLayerNormalization", [o, residual, weight],
               [p + ".norm2", "", "", p + ".residual2"], MS, epsilon=1e-5)
        residual = p + ".residual2"
        gate = g.matmul_nbits(p + ".norm2", p + ".mlp.gate_proj", d, inter, block)
        up = g.matmul_nbits(p + ".norm2", p + ".mlp.up_proj", d, inter, block)
        g.node("Sigmoid", [gate], [p + ".mlp.gate_sigmoid"])
        g.node("Mul", [gate, p + ".mlp.gate_sigmoid"], [p + ".mlp.silu"])
        g.node("Mul", [p + ".mlp.silu", up], [p + ".mlp.act"])
        hidden = g.matmul_nbits(p + ".mlp.act", p + ".mlp.down_proj", inter, d, block)
    weight = g.norm_weight("model.norm.weight", d)
    g.node("SkipSimplifiedLayerNormalization", [hidden, residual, weight],
           ["final_norm", "", "", "final_residual"], MS, epsilon=1e-5)
    g.matmul_nbits("final_norm", "logits", d, vocab, block)
    graph = helper.make_graph(g.nodes, "decoder", inputs, outputs, g.initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21),
                                                    helper.make_opsetid(MS, 1)])
    model.ir_version = 10
    model.producer_name = "nxrt tests/contrib/make_decoder.py"
    return model


def parse_shape(text):
    """NAME=L,H,HEADS,KV,INTER,VOCAB,BLOCK,MAXPOS -> (name, size tuple), checked."""
    name, _, numbers = text.partition("=")
    try:
        size = tuple(int(v) for v in numbers.split(","))
    except ValueError:
        size = ()
    fields = "L,H,HEADS,KV,INTER,VOCAB,BLOCK,MAXPOS"
    if not name or len(size) != 8 or min(size) < 1:
        raise argparse.ArgumentTypeError(f"'{text}': expected NAME={fields}, 8 positive integers")
    layers, d, heads, kv_heads, _, _, block, _ = size
    if d % heads or heads % kv_heads or (d // heads) % 2:
        raise argparse.ArgumentTypeError(
            f"'{text}': H={d} must split into HEADS={heads} heads of an even size, and HEADS "
            f"into KV={kv_heads} groups")
    if block < 16 or block & (block - 1):
        raise argparse.ArgumentTypeError(f"'{text}': BLOCK={block} must be a power of two >= 16")
    return name, size


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", help="folder the .onnx files go to")
    parser.add_argument("--shape", type=parse_shape, action="append", default=[],
                        help="NAME=L,H,HEADS,KV,INTER,VOCAB,BLOCK,MAXPOS (repeatable)")
    args = parser.parse_args()
    out = args.out
    os.makedirs(out, exist_ok=True)
    sizes = dict(args.shape) if args.shape else SIZES
    for seed, (name, size) in enumerate(sizes.items(), start=2240):
        # python3-onnx 1.12's checker knows neither opset 21 nor the contrib ops: not run.
        onnx.save(make_decoder(*size, seed=seed), os.path.join(out, name + ".onnx"))


if __name__ == "__main__":
    main()
