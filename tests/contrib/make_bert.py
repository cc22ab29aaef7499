#!/usr/bin/python3
"""tests/contrib/make_bert.py OUT_DIR: small BERT encoders in the form ONNX Runtime's transformer
optimizer (onnxruntime.transformers.optimizer, model type "bert") writes, with random fixed-seed
weights.

Inputs input_ids, token_type_ids, attention_mask int64 [batch, sequence] (a Hugging Face export);
outputs last_hidden_state float [batch, sequence, hidden] and pooler_output float [batch, hidden].
The graph: the three inputs Cast to int32; EmbedLayerNormalization (word, position and segment
tables, epsilon 1e-12); per layer the self-attention, its output projection (MatMul) with the bias
and the residual in SkipLayerNormalization, the FFN's first MatMul with its bias in BiasGelu
(erf) or FastGelu (tanh), the second MatMul, SkipLayerNormalization; the pooler Gather of token
0, MatMul, Add, Tanh. The attention is one of the optimizer's two forms:

  bert_attention_*: Attention(input, weights [H, 3H], bias [3H], mask_index) with the key lengths
                    [B] that EmbedLayerNormalization derives from the mask (its mask_index
                    output: right padding), and BiasGelu;
  bert_mha_*:       MatMul to Q, K and V, MultiHeadAttention(Q, K, V, bias [3H],
                    key_padding_mask) with the int32 mask [B, S] itself (any padding), and
                    FastGelu; EmbedLayerNormalization's mask_index is left unread.

Attribute names and input orders follow ONNX Runtime's docs/ContribOperators.md.
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper
import onnx

MS = "com.microsoft"

# name: (attention form, layers, hidden, heads, intermediate, vocab, max_positions)
SIZES = {
    "bert_attention_tiny": ("attention", 2, 64, 4, 256, 101, 64),
    "bert_mha_tiny": ("mha", 2, 64, 4, 256, 101, 64),
    "bert_attention_small": ("attention", 4, 256, 4, 1024, 1009, 128),
    "bert_mha_small": ("mha", 4, 256, 4, 1024, 1009, 128),
}


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
        return outputs[0]

    def weight(self, name, k, n):
        return self.init(name, self.rng.normal(0, 1 / np.sqrt(k), (k, n)).astype(np.float32))

    def vector(self, name, n, mean=0.0, spread=0.1):
        return self.init(name, (mean + spread * self.rng.standard_normal(n)).astype(np.float32))


def make_bert(form, layers, d, heads, inter, vocab, max_pos, seed):
    rng = np.random.default_rng(seed)
    g = Builder(rng)
    names = ("input_ids", "token_type_ids", "attention_mask")
    for name in names:
        g.node("Cast", [name], [name + "_int32"], to=TensorProto.INT32)
    word = g.init("embeddings.word_embeddings.weight",
                  rng.normal(0, 1, (vocab, d)).astype(np.float32))
    position = g.init("embeddings.position_embeddings.weight",
                      rng.normal(0, 0.5, (max_pos, d)).astype(np.float32))
    segment = g.init("embeddings.token_type_embeddings.weight",
                     rng.normal(0, 0.5, (2, d)).astype(np.float32))
    eln_inputs = ["input_ids_int32", "token_type_ids_int32", word, position, segment,
                  g.vector("embeddings.LayerNorm.weight", d, 1.0),
                  g.vector("embeddings.LayerNorm.bias", d)]
    # ORT's schema infers output 1 (mask_index) unconditionally: the MHA form leaves it unread.
    g.node("EmbedLayerNormalization", eln_inputs + ["attention_mask_int32"],
           ["embeddings", "mask_index"], MS, epsilon=1e-12)
    hidden = "embeddings"
    for i in range(layers):
        p = f"encoder.layer.{i}"
        if form == "attention":
            attn = g.node("Attention", [hidden, g.weight(p + ".attention.qkv.weight", d, 3 * d),
                                        g.vector(p + ".attention.qkv.bias", 3 * d),
                                        "mask_index"],
                          [p + ".attention"], MS, num_heads=heads)
        else:
            q, k, v = (g.node("MatMul", [hidden, g.weight(f"{p}.attention.{x}.weight", d, d)],
                              [f"{p}.attention.{x}"]) for x in ("query", "key", "value"))
            attn = g.node("MultiHeadAttention",
                          [q, k, v, g.vector(p + ".attention.qkv.bias", 3 * d),
                           "attention_mask_int32"],
                          [p + ".attention"], MS, num_heads=heads)
        projected = g.node("MatMul", [attn, g.weight(p + ".attention.output.dense.weight", d, d)],
                           [p + ".attention.output"])
        norm1 = g.node("SkipLayerNormalization",
                       [projected, hidden, g.vector(p + ".attention.output.LayerNorm.weight", d, 1),
                        g.vector(p + ".attention.output.LayerNorm.bias", d),
                        g.vector(p + ".attention.output.dense.bias", d)],
                       [p + ".attention.norm"], MS, epsilon=1e-12)
        up = g.node("MatMul", [norm1, g.weight(p + ".intermediate.dense.weight", d, inter)],
                    [p + ".intermediate"])
        gelu = "BiasGelu" if form == "attention" else "FastGelu"
        act = g.node(gelu, [up, g.vector(p + ".intermediate.dense.bias", inter)],
                     [p + ".intermediate.act"], MS)
        down = g.node("MatMul", [act, g.weight(p + ".output.dense.weight", inter, d)],
                      [p + ".output"])
        out = "last_hidden_state" if i == layers - 1 else p + ".output.norm"
        hidden = g.node("SkipLayerNormalization",
                        [down, norm1, g.vector(p + ".output.LayerNorm.weight", d, 1),
                         g.vector(p + ".output.LayerNorm.bias", d),
                         g.vector(p + ".output.dense.bias", d)],
                        [out], MS, epsilon=1e-12)
    first = g.node("Gather", [hidden, g.init("token_0", np.array(0, np.int64))], ["first_token"],
                   axis=1)
    pooled = g.node("MatMul", [first, g.weight("pooler.dense.weight", d, d)], ["pooler.dense"])
    pooled = g.node("Add", [pooled, g.vector("pooler.dense.bias", d)], ["pooler.dense.add"])
    g.node("Tanh", [pooled], ["pooler_output"])

    inputs = [helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "sequence"])
              for name in names]
    outputs = [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT,
                                             ["batch", "sequence", d]),
               helper.make_tensor_value_info("pooler_output", TensorProto.FLOAT, ["batch", d])]
    graph = helper.make_graph(g.nodes, "bert", inputs, outputs, g.initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                    helper.make_opsetid(MS, 1)])
    model.ir_version = 8
    model.producer_name = "nxrt tests/contrib/make_bert.py"
    return model


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for seed, (name, size) in enumerate(SIZES.items(), start=2260):
        # python3-onnx 1.12's checker does not know the com.microsoft ops: not run.
        onnx.save(make_bert(*size, seed=seed), os.path.join(out, name + ".onnx"))


if __name__ == "__main__":
    main()
