"""bench/quantize_models.py: the int8 variants of bench/make_bench_models.py's float models.

Written with python3-onnx and NumPy only (no onnxruntime Python package here), in the two forms
ONNX Runtime's quantization tool emits (onnxruntime.quantization, docs "Quantize ONNX models"):

  quantize_dynamic(model)  as quantize_dynamic(op_types_to_quantize=[Conv, MatMul]) writes it: every
      MatMul and Conv whose weight is an initializer becomes DynamicQuantizeLinear on the
      activation (one per activation, shared by its consumers), MatMulInteger / ConvInteger with
      per-tensor weights and zero points, Cast to float and Mul by activation scale x weight scale
      (a Mul node of the two scales); a Conv bias is added after (Add with a [C, 1, 1] bias).
      Weights int8 symmetric ([-127, 127], zero point 0: the default weight_type QInt8).
  quantize_qdq(model, ranges)  as quantize_static(QuantFormat.QDQ, per_channel=True) writes it for
      Conv, MatMul and Gemm: a QuantizeLinear/DequantizeLinear pair (uint8, per tensor, from the
      calibrated range) on each activation entering or leaving one of those nodes, shared by all
      consumers; weights int8 symmetric per output channel behind a DequantizeLinear (Conv and
      Gemm transB=1 axis 0, MatMul axis 1); Conv and Gemm biases int32 with scale activation scale
      x weight scale. A Relu that is the only consumer of a Conv's output is removed and the pair
      placed on its output (zero point 0 clamps as Relu did), as ORT does for removable
      activations. Other nodes stay float.

fold_batch_norm(model) folds Conv -> BatchNormalization into the Conv first, as ORT's
quant_pre_process does; calibration_model(model, tensors) adds an Identity output per tensor so
that a float run reports its range (make_bench_models.py runs it with `nxrt run --json`).
"""

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def _initializers(graph):
    return {tensor.name: tensor for tensor in graph.initializer}


def _consumers(graph):
    users = {}
    for node in graph.node:
        for name in node.input:
            users.setdefault(name, []).append(node)
    return users


def _keep_used_initializers(graph, added):
    """Drops initializers no node reads any more and appends `added` (numpy arrays by name)."""
    used = {name for node in graph.node for name in node.input}
    kept = [tensor for tensor in graph.initializer if tensor.name in used]
    kept += [numpy_helper.from_array(np.asarray(array), name) for name, array in added.items()]
    del graph.initializer[:]
    graph.initializer.extend(kept)
    del graph.value_info[:]


def fold_batch_norm(model):
    """Conv(x, W[, b]) -> BatchNormalization becomes one Conv with scaled W and a bias."""
    graph = model.graph
    inits = _initializers(graph)
    users = _consumers(graph)
    outputs = {value.name for value in graph.output}
    folded = {}
    removed = set()
    for node in graph.node:
        if node.op_type != "Conv" or node.input[1] not in inits:
            continue
        after = users.get(node.output[0], [])
        if len(after) != 1 or after[0].op_type != "BatchNormalization" or node.output[0] in outputs:
            continue
        bn = after[0]
        scale, bias, mean, var = (numpy_helper.to_array(inits[name]) for name in bn.input[1:5])
        epsilon = next((a.f for a in bn.attribute if a.name == "epsilon"), 1e-5)
        factor = scale / np.sqrt(var + epsilon)
        weight = numpy_helper.to_array(inits[node.input[1]])
        old_bias = (numpy_helper.to_array(inits[node.input[2]]) if len(node.input) > 2
                    else np.zeros(weight.shape[0], np.float32))
        w_name, b_name = node.name + "_folded_weight", node.name + "_folded_bias"
        folded[w_name] = (weight * factor[:, None, None, None]).astype(np.float32)
        folded[b_name] = ((old_bias - mean) * factor + bias).astype(np.float32)
        node.input[:] = [node.input[0], w_name, b_name]
        node.output[0] = bn.output[0]
        removed.add(bn.name)
    nodes = [node for node in graph.node if node.name not in removed]
    del graph.node[:]
    graph.node.extend(nodes)
    _keep_used_initializers(graph, folded)
    return model


def _uint8_params(low, high):
    """ORT's asymmetric uint8 scale and zero point for the range [low, high] (0 always inside)."""
    low, high = min(float(low), 0.0), max(float(high), 0.0)
    if high == low:
        return np.float32(1.0), np.uint8(0)
    scale = np.float32((high - low) / 255.0)
    return scale, np.uint8(np.clip(np.round(-low / scale), 0, 255))


def _int8_symmetric(weight, axis):
    """Int8 weights in [-127, 127], zero point 0, one scale per index of `axis` (None: one)."""
    reduce = tuple(i for i in range(weight.ndim) if i != axis) if axis is not None else None
    absmax = np.max(np.abs(weight), axis=reduce, keepdims=axis is not None)
    scale = np.where(absmax > 0, absmax / 127.0, 1.0).astype(np.float32)
    quantized = np.clip(np.round(weight / scale), -127, 127).astype(np.int8)
    return quantized, scale.reshape(-1) if axis is not None else np.float32(scale)


def quantize_dynamic(model):
    """The dynamically quantized model (see the file comment); edits `model` in place."""
    graph = model.graph
    inits = _initializers(graph)
    added = {}
    nodes = []
    activations = {}  # float tensor -> its DynamicQuantizeLinear outputs (uint8, scale, zero point)
    for node in graph.node:
        if node.op_type not in ("MatMul", "Conv") or node.input[1] not in inits:
            nodes.append(node)
            continue
        x = node.input[0]
        if x not in activations:
            names = [x + "_quantized", x + "_scale", x + "_zero_point"]
            nodes.append(helper.make_node("DynamicQuantizeLinear", [x], names,
                                          name=x + "_QuantizeLinear"))
            activations[x] = names
        x_q, x_scale, x_zero = activations[x]
        w = node.input[1]
        weight = numpy_helper.to_array(inits[w])
        added[w + "_quantized"], added[w + "_scale"] = _int8_symmetric(weight, None)
        added[w + "_zero_point"] = np.int8(0)
        base = node.name or node.output[0]
        integer_op = "MatMulInteger" if node.op_type == "MatMul" else "ConvInteger"
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        nodes.append(helper.make_node(integer_op,
                                      [x_q, w + "_quantized", x_zero, w + "_zero_point"],
                                      [base + "_output_quantized"], name=base + "_quant", **attrs))
        nodes.append(helper.make_node("Cast", [base + "_output_quantized"],
                                      [base + "_output_quantized_cast"], name=base + "_cast",
                                      to=TensorProto.FLOAT))
        nodes.append(helper.make_node("Mul", [x_scale, w + "_scale"], [base + "_scales_mul"],
                                      name=base + "_scales_mul"))
        bias = node.input[2] if len(node.input) > 2 else ""
        scaled = base + "_output_scaled" if bias else node.output[0]
        nodes.append(helper.make_node("Mul",
                                      [base + "_output_quantized_cast", base + "_scales_mul"],
                                      [scaled], name=base + "_output_scale_mul"))
        if bias:
            added[bias + "_reshaped"] = numpy_helper.to_array(inits[bias]).reshape(-1, 1, 1)
            nodes.append(helper.make_node("Add", [scaled, bias + "_reshaped"],
                                          [node.output[0]], name=base + "_bias_add"))
    del graph.node[:]
    graph.node.extend(nodes)
    _keep_used_initializers(graph, added)
    onnx.checker.check_model(model)
    return model


def _weighted(graph, inits):
    """The Conv, MatMul and Gemm nodes whose weight is a float initializer."""
    return [node for node in graph.node if node.op_type in ("Conv", "MatMul", "Gemm")
            and node.input[1] in inits and inits[node.input[1]].data_type == TensorProto.FLOAT]


def qdq_plan(model):
    """(activations to quantize, Relu nodes to drop) for quantize_qdq, in graph order."""
    graph = model.graph
    users = _consumers(graph)
    outputs = {value.name for value in graph.output}
    tensors, dropped = [], set()
    for node in _weighted(graph, _initializers(graph)):
        out = node.output[0]
        after = users.get(out, [])
        if (node.op_type == "Conv" and len(after) == 1 and after[0].op_type == "Relu"
                and out not in outputs):
            dropped.add(after[0].name)
            out = after[0].output[0]
        for name in (node.input[0], out):
            if name not in tensors:
                tensors.append(name)
    return tensors, dropped


def calibration_model(model, tensors):
    """A copy of `model` with an Identity output `<tensor>_calibration` per tensor."""
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    for name in tensors:
        copy.graph.node.append(helper.make_node("Identity", [name], [name + "_calibration"],
                                                name=name + "_calibration"))
        copy.graph.output.append(helper.make_tensor_value_info(name + "_calibration",
                                                               TensorProto.FLOAT, None))
    return copy


def quantize_qdq(model, ranges):
    """The static QDQ model (see the file comment); `ranges` maps each tensor of qdq_plan(model)
    to its calibrated (min, max). Edits `model` in place."""
    graph = model.graph
    inits = _initializers(graph)
    tensors, dropped = qdq_plan(model)
    params = {name: _uint8_params(*ranges[name]) for name in tensors}
    added = {}
    for name, (scale, zero) in params.items():
        added[name + "_scale"], added[name + "_zero_point"] = scale, zero
    # Relu dropped: the Conv writes the Relu's output, whose pair (zero point 0) clamps.
    relu_of = {node.input[0]: node.output[0] for node in graph.node if node.name in dropped}
    weight_nodes = []
    for node in _weighted(graph, inits):
        node.output[0] = relu_of.get(node.output[0], node.output[0])
        weight = numpy_helper.to_array(inits[node.input[1]])
        trans_b = any(a.name == "transB" and a.i for a in node.attribute)
        axis = 1 if node.op_type == "MatMul" or (node.op_type == "Gemm" and not trans_b) else 0
        w = node.input[1]
        added[w + "_quantized"], added[w + "_scale"] = _int8_symmetric(weight, axis)
        added[w + "_zero_point"] = np.zeros(weight.shape[axis], np.int8)
        weight_nodes.append(helper.make_node(
            "DequantizeLinear", [w + "_quantized", w + "_scale", w + "_zero_point"],
            [w + "_DequantizeLinear_Output"], name=w + "_DequantizeLinear", axis=axis))
        node.input[1] = w + "_DequantizeLinear_Output"
        if node.op_type != "MatMul" and len(node.input) > 2 and node.input[2]:
            b = node.input[2]
            bias_scale = (params[node.input[0]][0] * added[w + "_scale"]).astype(np.float32)
            bias = numpy_helper.to_array(inits[b])
            added[b + "_quantized"] = np.round(bias / bias_scale).astype(np.int32)
            added[b + "_quantized_scale"] = bias_scale
            added[b + "_quantized_zero_point"] = np.zeros(bias.shape, np.int32)
            weight_nodes.append(helper.make_node(
                "DequantizeLinear",
                [b + "_quantized", b + "_quantized_scale", b + "_quantized_zero_point"],
                [b + "_DequantizeLinear_Output"], name=b + "_DequantizeLinear", axis=0))
            node.input[2] = b + "_DequantizeLinear_Output"

    def pair(name):
        return [helper.make_node("QuantizeLinear", [name, name + "_scale", name + "_zero_point"],
                                 [name + "_QuantizeLinear_Output"], name=name + "_QuantizeLinear"),
                helper.make_node("DequantizeLinear", [name + "_QuantizeLinear_Output",
                                                      name + "_scale", name + "_zero_point"],
                                 [name + "_DequantizeLinear_Output"],
                                 name=name + "_DequantizeLinear")]

    graph_inputs = {value.name for value in graph.input}
    nodes = weight_nodes + [n for name in tensors if name in graph_inputs for n in pair(name)]
    for node in graph.node:
        if node.name in dropped:
            continue
        nodes.append(node)
        nodes += [n for name in node.output if name in params for n in pair(name)]
    quantized = set(tensors)
    for node in nodes:
        if node.op_type != "QuantizeLinear":
            node.input[:] = [name + "_DequantizeLinear_Output" if name in quantized else name
                             for name in node.input]
    del graph.node[:]
    graph.node.extend(nodes)
    _keep_used_initializers(graph, added)
    onnx.checker.check_model(model)
    return model
