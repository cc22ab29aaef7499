"""Shared fixtures of the nxrt Python suite (CTest nxrt_python_pytest; docs/python.md).

CTest sets PYTHONPATH to <build>/python (the module as built) and the paths below. ONNX
Runtime 1.30's outputs come from `ort_run` (tests/ort_oracle), which loads ORT's own
libonnxruntime.so.1 from the cache; there is no onnxruntime Python package here.
"""
import json
import os
import subprocess

import numpy
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

CACHE = os.environ.get("NXRT_CACHE") or os.path.expanduser("~/.cache/nxrt")
MODELS = os.path.join(CACHE, "models")

# tests/real_models.h: every input of the seven real models (name, dtype, shape, and the value
# range: ("uniform", lo, hi) or ("constant", v)), and the tolerances nxrt is held to.
REAL_MODELS = {
    "ppocrv4_det": [("x", numpy.float32, (1, 3, 480, 640), ("uniform", -2.1, 2.6))],
    "ppocrv4_rec": [("x", numpy.float32, (1, 3, 48, 320), ("uniform", -1.0, 1.0))],
    "silero_vad_v5": [("input", numpy.float32, (1, 512), ("uniform", -0.5, 0.5)),
                      ("state", numpy.float32, (2, 1, 128), ("constant", 0.0)),
                      ("sr", numpy.int64, (), ("constant", 16000))],
    "silero_vad_v4_legacy": [("input", numpy.float32, (1, 512), ("uniform", -0.5, 0.5)),
                             ("sr", numpy.int64, (), ("constant", 16000)),
                             ("h", numpy.float32, (2, 1, 64), ("constant", 0.0)),
                             ("c", numpy.float32, (2, 1, 64), ("constant", 0.0))],
    "oww_melspectrogram": [("input", numpy.float32, (1, 1760), ("uniform", -3000.0, 3000.0))],
    "oww_embedding": [("input_1", numpy.float32, (1, 76, 32, 1), ("uniform", -1.0, 3.0))],
    "oww_hey_jarvis": [("x.1", numpy.float32, (1, 16, 96), ("uniform", -2.0, 2.0))],
}
RTOL, ATOL = 1e-4, 1e-5


def tool(env_name):
    path = os.environ.get(env_name)
    if not path or not os.path.exists(path):
        pytest.fail(f"${env_name} is not set to a built file; run the suite through CTest "
                    "(ctest -R nxrt_python_pytest)")
    return path


def real_model(name):
    path = os.path.join(MODELS, name + ".onnx")
    if not os.path.exists(path):
        pytest.fail(f"{path} is missing: run scripts/bootstrap.sh")
    return path


def real_inputs(name, seed=1):
    rng = numpy.random.default_rng(seed)
    feeds = {}
    for input_name, dtype, shape, dist in REAL_MODELS[name]:
        if dist[0] == "uniform":
            feeds[input_name] = rng.uniform(dist[1], dist[2], size=shape).astype(dtype)
        else:
            feeds[input_name] = numpy.full(shape, dist[1], dtype=dtype)
    return feeds


def ort_outputs(model_path, feeds, folder):
    """ONNX Runtime 1.30's outputs for `feeds` (all outputs, in model order), by ort_run with
    one thread and graph optimisations off. A dict feeds a map input and a list of dicts a
    sequence of maps (ort_run --map-input, typed as the model declares the input); map outputs
    come back as dicts and sequences of maps as lists of dicts."""
    os.makedirs(folder, exist_ok=True)
    args = [tool("NXRT_ORT_RUN"), model_path, "--threads", "1", "--no-opt",
            "--output-dir", os.path.join(folder, "out")]
    declared = {i.name: i.type for i in onnx.load(model_path).graph.input}
    for name, value in feeds.items():
        if isinstance(value, dict) or (isinstance(value, list) and value
                                       and all(isinstance(v, dict) for v in value)):
            path = os.path.join(folder, f"in_{len(args)}.json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump(map_json(value, declared[name]), f)
            args += ["--map-input", f"{name}={path}"]
            continue
        path = os.path.join(folder, f"in_{len(args)}.npy")
        numpy.save(path, value)
        args += ["--input", f"{name}={path}"]
    run = subprocess.run(args, capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    outputs = []
    for line in run.stdout.splitlines():
        if line.startswith("wrote '"):
            path = line.rsplit(" to ", 1)[1]
            if path.endswith(".json"):
                with open(path, encoding="utf-8") as f:
                    outputs.append(map_from_json(json.load(f)))
            else:
                outputs.append(numpy.load(path))
    return outputs


def map_json(value, type_proto):
    """A dict (map) or list of dicts (sequence of maps) in ort_run's --map-input form, typed by
    the model's TypeProto for the input."""
    if isinstance(value, list):
        return [map_json(v, type_proto.sequence_type.elem_type) for v in value]
    names = {TensorProto.INT64: "int64", TensorProto.STRING: "string",
             TensorProto.FLOAT: "float", TensorProto.DOUBLE: "double"}
    return {"key_type": names[type_proto.map_type.key_type],
            "value_type": names[type_proto.map_type.value_type.tensor_type.elem_type],
            "keys": list(value.keys()), "values": list(value.values())}


def map_from_json(item):
    """ort_run's JSON of a map output as a dict, of a sequence of maps as a list of dicts."""
    if isinstance(item, list):
        return [map_from_json(m) for m in item]
    return dict(zip(item["keys"], item["values"]))


def save(model, folder, name):
    path = os.path.join(folder, name + ".onnx")
    onnx.save(model, path)
    return path


# Every ONNX tensor type nxrt runs, with the numpy dtype ONNX Runtime's Python gives it.
DTYPES = [
    (TensorProto.FLOAT, numpy.float32), (TensorProto.UINT8, numpy.uint8),
    (TensorProto.INT8, numpy.int8), (TensorProto.UINT16, numpy.uint16),
    (TensorProto.INT16, numpy.int16), (TensorProto.INT32, numpy.int32),
    (TensorProto.INT64, numpy.int64), (TensorProto.STRING, object),
    (TensorProto.BOOL, numpy.bool_), (TensorProto.FLOAT16, numpy.float16),
    (TensorProto.DOUBLE, numpy.float64), (TensorProto.UINT32, numpy.uint32),
    (TensorProto.UINT64, numpy.uint64), (TensorProto.COMPLEX64, numpy.complex64),
    (TensorProto.COMPLEX128, numpy.complex128), (TensorProto.BFLOAT16, numpy.uint16),
]


@pytest.fixture(scope="session")
def models(tmp_path_factory):
    """Small models written with onnx for the API tests: name → path."""
    folder = str(tmp_path_factory.mktemp("models"))
    out = {}
    # y = relu(x * 2 + b), x float[batch, 3], with metadata.
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 3])
    graph = helper.make_graph(
        [helper.make_node("Mul", ["x", "two"], ["m"], name="mul"),
         helper.make_node("Add", ["m", "b"], ["a"], name="add"),
         helper.make_node("Relu", ["a"], ["y"], name="relu")],
        "affine", [x], [y],
        [helper.make_tensor("two", TensorProto.FLOAT, [], [2.0]),
         helper.make_tensor("b", TensorProto.FLOAT, [3], [-1.0, 0.0, 1.0])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="nxrt-pytest", doc_string="affine then relu")
    model.model_version = 7
    model.domain = "test.nxrt"
    model.graph.doc_string = "the graph"
    helper.set_model_props(model, {"author": "pytest", "purpose": "metadata"})
    out["affine"] = save(model, folder, "affine")

    # Shapes as ORT prints them: fixed, symbolic, unknown dims; a scalar; an unknown rank.
    dims = helper.make_tensor_value_info("d", TensorProto.FLOAT, [2, "n", None])
    scalar = helper.make_tensor_value_info("s", TensorProto.INT64, [])
    unranked = helper.make_tensor_value_info("u", TensorProto.FLOAT, None)
    graph = helper.make_graph(
        [helper.make_node("Identity", ["d"], ["d_out"]),
         helper.make_node("Identity", ["s"], ["s_out"]),
         helper.make_node("Identity", ["u"], ["u_out"])],
        "dims", [dims, scalar, unranked],
        [helper.make_tensor_value_info("d_out", TensorProto.FLOAT, [2, "n", None]),
         helper.make_tensor_value_info("s_out", TensorProto.INT64, []),
         helper.make_tensor_value_info("u_out", TensorProto.FLOAT, None)])
    out["dims"] = save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
                       folder, "dims")

    # One Identity per tensor type.
    inputs, outputs, nodes = [], [], []
    for elem, _ in DTYPES:
        name = TensorProto.DataType.Name(elem).lower()
        inputs.append(helper.make_tensor_value_info(f"in_{name}", elem, ["n"]))
        outputs.append(helper.make_tensor_value_info(f"out_{name}", elem, ["n"]))
        nodes.append(helper.make_node("Identity", [f"in_{name}"], [f"out_{name}"]))
    graph = helper.make_graph(nodes, "identity_all", inputs, outputs)
    out["identity_all"] = save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)]),
                               folder, "identity_all")

    # Sequences: seq(tensor(float)) out of two tensors; a sequence in, its length and its sum.
    a = helper.make_tensor_value_info("a", TensorProto.FLOAT, ["n"])
    b = helper.make_tensor_value_info("b", TensorProto.FLOAT, ["n"])
    seq_in = helper.make_tensor_sequence_value_info("seq_in", TensorProto.FLOAT, None)
    graph = helper.make_graph(
        [helper.make_node("SequenceConstruct", ["a", "b"], ["seq_out"]),
         helper.make_node("SequenceLength", ["seq_in"], ["length"]),
         helper.make_node("ConcatFromSequence", ["seq_in"], ["joined"], axis=0)],
        "sequences", [a, b, seq_in],
        [helper.make_tensor_sequence_value_info("seq_out", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("length", TensorProto.INT64, []),
         helper.make_tensor_value_info("joined", TensorProto.FLOAT, None)])
    out["sequences"] = save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
                            folder, "sequences")

    # The length of a sequence of int64 tensors: an empty list in.
    graph = helper.make_graph(
        [helper.make_node("SequenceLength", ["seq"], ["length"])], "seq_length",
        [helper.make_tensor_sequence_value_info("seq", TensorProto.INT64, None)],
        [helper.make_tensor_value_info("length", TensorProto.INT64, [])])
    out["seq_length"] = save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
                             folder, "seq_length")

    # Optional: optional(tensor(float)) in; whether it holds a value, and the value or [] out.
    opt = helper.make_tensor_value_info("opt", TensorProto.FLOAT, ["n"])
    opt.type.CopyFrom(helper.make_optional_type_proto(opt.type))
    graph = helper.make_graph(
        [helper.make_node("OptionalHasElement", ["opt"], ["has"])],
        "optional", [opt], [helper.make_tensor_value_info("has", TensorProto.BOOL, [])])
    out["optional"] = save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]),
                           folder, "optional")

    # A long run: a chain of MatMuls of 256x256 (hundreds of ms), for Ctrl-C and terminate. The
    # weights keep the values' scale (uniform of variance 1/256).
    rng = numpy.random.default_rng(5)
    n, steps = 256, 300
    w = rng.uniform(-(3 / n) ** 0.5, (3 / n) ** 0.5, size=(n, n)).astype(numpy.float32)
    nodes = [helper.make_node("MatMul", ["x" if i == 0 else f"h{i}", "w"],
                              ["y" if i == steps - 1 else f"h{i + 1}"], name=f"mm{i}")
             for i in range(steps)]
    graph = helper.make_graph(
        nodes, "long", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [n, n])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [n, n])],
        [numpy_helper.from_array(w, "w")])
    out["long"] = save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
                       folder, "long")
    return out
