"""Values between numpy and nxrt: every ONNX tensor type both ways, sequences as lists,
maps as dicts and sequences of maps as lists of dicts (against ONNX Runtime 1.30), optionals as
None, arrays that need converting, and outputs that share nxrt's buffer."""
import sys

import numpy
import pytest
from onnx import TensorProto, helper, onnx_ml_pb2

import nxrt
from conftest import DTYPES, ort_outputs, save


def sample(elem, dtype, n=5):
    rng = numpy.random.default_rng(elem)
    if dtype is object:
        return numpy.array(["", "ascii", "ünïcode ✓", "a\0b", "x" * 40][:n], dtype=object)
    if elem == TensorProto.BFLOAT16:  # bfloat16 bits of 1, -2.5, 3e38, 1e-39 (subnormal), NaN
        return numpy.array([0x3F80, 0xC020, 0x7F61, 0x000B, 0x7FC0][:n], dtype=numpy.uint16)
    if dtype is numpy.bool_:
        return rng.integers(0, 2, n).astype(bool)
    if numpy.issubdtype(dtype, numpy.complexfloating):
        return (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)
    if numpy.issubdtype(dtype, numpy.floating):
        return numpy.array([0.5, -1e4, numpy.inf, -0.0, 3.25][:n], dtype=dtype)
    info = numpy.iinfo(dtype)
    return numpy.array([info.min, info.max, 0, 1, info.max // 3][:n], dtype=dtype)


def test_every_tensor_type_round_trips(models):
    session = nxrt.InferenceSession(models["identity_all"])
    feeds, want = {}, []
    for elem, dtype in DTYPES:
        name = TensorProto.DataType.Name(elem).lower()
        feeds[f"in_{name}"] = sample(elem, dtype)
        want.append(feeds[f"in_{name}"])
    types = {a.name: a.type for a in session.get_inputs()}
    assert types["in_float16"] == "tensor(float16)" and types["in_bfloat16"] == "tensor(bfloat16)"
    assert types["in_string"] == "tensor(string)" and types["in_complex128"] == "tensor(complex128)"
    got = session.run(None, feeds)
    for (elem, dtype), g, w in zip(DTYPES, got, want):
        name = TensorProto.DataType.Name(elem)
        assert g.dtype == numpy.dtype(dtype), name
        assert g.shape == w.shape, name
        if dtype is object:
            assert list(g) == list(w), name
        else:
            assert g.tobytes() == w.tobytes(), name  # bit-exact, NaN and -0.0 included


def test_strings_from_unicode_and_bytes_arrays(models):
    session = nxrt.InferenceSession(models["identity_all"])
    feeds = {}
    for elem, dtype in DTYPES:
        name = TensorProto.DataType.Name(elem).lower()
        feeds[f"in_{name}"] = sample(elem, dtype, 2)
    feeds["in_string"] = numpy.array(["ab", "çd"])  # numpy unicode, not object
    out = session.run(["out_string"], feeds)[0]
    assert out.dtype == object and list(out) == ["ab", "çd"]
    feeds["in_string"] = numpy.array([b"x", b"yz"])  # bytes
    assert list(session.run(["out_string"], feeds)[0]) == ["x", "yz"]


def test_outputs_share_nxrt_buffers_and_are_writable(models):
    session = nxrt.InferenceSession(models["affine"])
    x = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    y = session.run(None, {"x": x})[0]
    assert not y.flags.owndata and y.flags.c_contiguous and y.flags.writeable
    assert type(y.base).__name__ == "PyCapsule"  # the nxrt tensor, not a copy
    numpy.testing.assert_array_equal(y, numpy.maximum(x * 2 + [-1, 0, 1], 0))
    y[:] = 0  # the caller's own
    numpy.testing.assert_array_equal(session.run(None, {"x": x})[0], numpy.maximum(x * 2 + [-1, 0, 1], 0))


def test_non_contiguous_and_non_native_endian_inputs_are_converted(models):
    session = nxrt.InferenceSession(models["affine"])
    base = numpy.linspace(-3, 3, 24, dtype=numpy.float32).reshape(4, 6)
    b = numpy.array([-1, 0, 1], dtype=numpy.float32)
    want = numpy.maximum(base[:, ::2] * 2 + b, 0)
    strided = base[:, ::2]
    assert not strided.flags.c_contiguous
    numpy.testing.assert_array_equal(session.run(None, {"x": strided})[0], want)
    fortran = numpy.asfortranarray(base[:, :3])
    numpy.testing.assert_array_equal(session.run(None, {"x": fortran})[0],
                                     numpy.maximum(base[:, :3] * 2 + b, 0))
    swapped = base[:, ::2].astype(">f4" if sys.byteorder == "little" else "<f4")
    assert not swapped.dtype.isnative
    numpy.testing.assert_array_equal(session.run(None, {"x": swapped})[0], want)


def test_sequences_are_lists(models):
    session = nxrt.InferenceSession(models["sequences"])
    types = {a.name: (a.type, a.shape) for a in session.get_inputs() + session.get_outputs()}
    assert types["seq_in"] == ("seq(tensor(float))", [])
    assert types["seq_out"] == ("seq(tensor(float))", [])
    a = numpy.array([1, 2, 3], dtype=numpy.float32)
    b = numpy.array([4, 5, 6], dtype=numpy.float32)
    parts = [numpy.array([7.5], dtype=numpy.float32), numpy.array([8.5, 9.5], dtype=numpy.float32)]
    seq_out, length, joined = session.run(None, {"a": a, "b": b, "seq_in": parts})
    assert isinstance(seq_out, list) and len(seq_out) == 2
    numpy.testing.assert_array_equal(seq_out[0], a)
    numpy.testing.assert_array_equal(seq_out[1], b)
    assert length == 2 and length.dtype == numpy.int64
    numpy.testing.assert_array_equal(joined, [7.5, 8.5, 9.5])
    _, length, _ = session.run(None, {"a": a, "b": b, "seq_in": parts[:1]})
    assert length == 1
    # An empty list takes the declared element type; a list of another type is refused.
    session = nxrt.InferenceSession(models["seq_length"])
    assert session.run(None, {"seq": []})[0] == 0
    assert session.run(None, {"seq": [numpy.arange(3), numpy.arange(2)]})[0] == 2
    with pytest.raises(nxrt.capi.onnxruntime_pybind11_state.InvalidArgument, match="'seq'"):
        session.run(None, {"seq": [numpy.ones(2, dtype=numpy.float32)]})


def map_type(key, value):
    """map(key, tensor(value)) as ONNX-ML declares it (Debian's onnx 1.12 has no helper)."""
    t = onnx_ml_pb2.TypeProto()
    t.map_type.key_type = key
    t.map_type.value_type.tensor_type.elem_type = value
    return t


def ml_model(nodes, inputs, outputs, initializers=()):
    graph = helper.make_graph(nodes, "ml", inputs, outputs, list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                   helper.make_opsetid("ai.onnx.ml", 3)])


def assert_same_maps(got, want):
    """Maps as ORT gives them: dicts of the same keys, in the same (sorted) order, with values
    of the same Python types, floats within float32 rounding of a Softmax."""
    assert type(got) is type(want), (got, want)
    if isinstance(want, list):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert_same_maps(g, w)
        return
    assert list(got.keys()) == list(want.keys()), (got, want)
    for key, value in want.items():
        assert type(got[key]) is type(value), (key, got[key], value)
        if isinstance(value, float):
            assert abs(got[key] - value) <= 1e-6 * max(1.0, abs(value)), (key, got[key], value)
        else:
            assert got[key] == value, (key, got[key], value)


@pytest.mark.parametrize("labels", [[0, 1, 2], ["cat", "dog", "owl"]])
def test_zipmap_gives_a_list_of_dicts(labels, tmp_path):
    """A scikit-learn classifier as skl2onnx writes it: label and output_probability, the
    probabilities zipped into one dict per row."""
    rng = numpy.random.default_rng(18)
    key = TensorProto.INT64 if isinstance(labels[0], int) else TensorProto.STRING
    attribute = "classlabels_int64s" if key == TensorProto.INT64 else "classlabels_strings"
    model = ml_model(
        [helper.make_node("MatMul", ["x", "w"], ["scores"]),
         helper.make_node("Softmax", ["scores"], ["p"], axis=1),
         helper.make_node("ArgMax", ["p"], ["output_label"], axis=1, keepdims=0),
         helper.make_node("ZipMap", ["p"], ["output_probability"], domain="ai.onnx.ml",
                          **{attribute: labels})],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 4])],
        [helper.make_tensor_value_info("output_label", TensorProto.INT64, ["n"]),
         helper.make_value_info("output_probability",
                                helper.make_sequence_type_proto(map_type(key, TensorProto.FLOAT)))],
        [helper.make_tensor("w", TensorProto.FLOAT, [4, 3], rng.standard_normal(12).tolist())])
    path = save(model, str(tmp_path), "classifier")
    session = nxrt.InferenceSession(path)
    key_name = "int64" if key == TensorProto.INT64 else "string"
    assert session.get_outputs()[1].type == f"seq(map({key_name},tensor(float)))"
    assert session.get_outputs()[1].shape == []
    x = rng.standard_normal((5, 4)).astype(numpy.float32)
    label, probabilities = session.run(None, {"x": x})
    assert isinstance(probabilities, list) and len(probabilities) == 5
    assert all(isinstance(p, dict) and list(p.keys()) == sorted(labels) for p in probabilities)
    want_label, want_probabilities = ort_outputs(path, {"x": x}, str(tmp_path / "ort"))
    numpy.testing.assert_array_equal(label, want_label)
    assert_same_maps(probabilities, want_probabilities)
    # Only the probabilities, by name.
    assert_same_maps(session.run(["output_probability"], {"x": x})[0], want_probabilities)


def test_dict_vectorizer_takes_a_dict(tmp_path):
    model = ml_model(
        [helper.make_node("DictVectorizer", ["m"], ["y"], domain="ai.onnx.ml",
                          string_vocabulary=["a", "b", "c", "zz"])],
        [helper.make_value_info("m", map_type(TensorProto.STRING, TensorProto.FLOAT))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])])
    path = save(model, str(tmp_path), "vectorizer")
    session = nxrt.InferenceSession(path)
    assert session.get_inputs()[0].type == "map(string,tensor(float))"
    assert session.get_inputs()[0].shape == []
    for feed in [{"zz": 1.5, "a": -2.0, "q": 7.0}, {}, {"b": 3}]:
        got = session.run(None, {"m": feed})[0]
        if feed:  # ORT's CreateValue makes no empty map, so ort_run cannot feed one
            numpy.testing.assert_array_equal(got, ort_outputs(path, {"m": feed},
                                                              str(tmp_path / "ort"))[0])
        numpy.testing.assert_array_equal(got, [[feed.get(k, 0.0) for k in ["a", "b", "c", "zz"]]])


def test_cast_map_takes_int64_keys_and_string_values(tmp_path):
    model = ml_model(
        [helper.make_node("CastMap", ["m"], ["y"], domain="ai.onnx.ml", cast_to="TO_FLOAT",
                          map_form="SPARSE", max_map=5)],
        [helper.make_value_info("m", map_type(TensorProto.INT64, TensorProto.STRING))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 5])])
    path = save(model, str(tmp_path), "cast_map")
    session = nxrt.InferenceSession(path)
    feed = {3: "1.5", 0: "-2", 9: "4"}
    got = session.run(None, {"m": feed})[0]
    numpy.testing.assert_array_equal(got, ort_outputs(path, {"m": feed}, str(tmp_path / "ort"))[0])
    numpy.testing.assert_array_equal(got, [[-2.0, 0.0, 0.0, 1.5, 0.0]])


def test_maps_and_lists_of_dicts_round_trip(tmp_path):
    """A graph that gives back its inputs: a map(string, double) and a seq(map(int64, float)),
    fed as a dict and a list of dicts, come back as ONNX Runtime gives them."""
    seq = helper.make_sequence_type_proto(map_type(TensorProto.INT64, TensorProto.FLOAT))
    mapping = map_type(TensorProto.STRING, TensorProto.DOUBLE)
    model = ml_model([], [helper.make_value_info("S", seq), helper.make_value_info("M", mapping)],
                     [helper.make_value_info("S", seq), helper.make_value_info("M", mapping)])
    path = save(model, str(tmp_path), "pass_maps")
    session = nxrt.InferenceSession(path)
    assert [i.type for i in session.get_inputs()] == ["seq(map(int64,tensor(float)))",
                                                       "map(string,tensor(double))"]
    feeds = {"S": [{3: 0.5, -1: 0.25}, {2: 1.5}], "M": {"b": 2.0, "a": -1.25, "c": 1e300}}
    got = session.run(None, feeds)
    assert got == [[{-1: 0.25, 3: 0.5}, {2: 1.5}], {"a": -1.25, "b": 2.0, "c": 1e300}]
    assert_same_maps(got, ort_outputs(path, feeds, str(tmp_path / "ort")))


def test_optional_input_none_or_value(models):
    session = nxrt.InferenceSession(models["optional"])
    assert session.get_inputs()[0].type == "optional(tensor(float))"
    assert session.run(None, {"opt": None})[0] == numpy.array(False)
    assert session.run(None, {"opt": numpy.ones(2, dtype=numpy.float32)})[0] == numpy.array(True)


# The element types numpy has not, as ONNX numbers them (onnx.proto; Debian's onnx 1.12 lacks
# their names): float8 formats as (exponent bits, mantissa bits, bias, kind) per
# onnx/docs/technical/float8.md; kind "fn": S.1111.111 is NaN, no infinity; "uz": only 0x80 is
# NaN, no -0; "ieee": E5M2 with IEEE 754's infinities and NaNs.
FLOAT8 = {17: ("float8e4m3fn", 4, 3, 7, "fn"), 18: ("float8e4m3fnuz", 4, 3, 8, "uz"),
          19: ("float8e5m2", 5, 2, 15, "ieee"), 20: ("float8e5m2fnuz", 5, 2, 16, "uz")}
UINT4, INT4 = 21, 22


def float8_value(bits, exp_bits, man_bits, bias, kind):
    """The reference decoding of one float8 code."""
    sign = -1.0 if bits & 0x80 else 1.0
    exponent = (bits >> man_bits) & ((1 << exp_bits) - 1)
    mantissa = bits & ((1 << man_bits) - 1)
    top = (1 << exp_bits) - 1
    if kind == "uz" and bits == 0x80:
        return float("nan")
    if kind == "fn" and exponent == top and mantissa == (1 << man_bits) - 1:
        return float("nan")
    if kind == "ieee" and exponent == top:
        return sign * float("inf") if mantissa == 0 else float("nan")
    if exponent == 0:
        return sign * mantissa * 2.0 ** (1 - bias - man_bits)
    return sign * (1 + mantissa / (1 << man_bits)) * 2.0 ** (exponent - bias)


def small_types_model(folder, elem):
    """bits (elem)[n], also an output itself (nxrt's CPU EP has no Identity for these types),
    → Cast(float32) → value; x float32[n] → Cast(elem) → encoded (float8) or x int8[n] →
    Cast(elem) → packed (int4)."""
    wide = TensorProto.INT8 if elem in (UINT4, INT4) else TensorProto.FLOAT
    graph = helper.make_graph(
        [helper.make_node("Cast", ["bits"], ["value"], to=TensorProto.FLOAT),
         helper.make_node("Cast", ["x"], ["encoded"], to=elem)],
        "small_types",
        [helper.make_tensor_value_info("bits", elem, ["n"]),
         helper.make_tensor_value_info("x", wide, ["m"])],
        [helper.make_tensor_value_info("bits", elem, ["n"]),
         helper.make_tensor_value_info("value", TensorProto.FLOAT, ["n"]),
         helper.make_tensor_value_info("encoded", elem, ["m"])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = 10
    return save(model, folder, f"small_types_{elem}")


@pytest.mark.parametrize("elem", sorted(FLOAT8))
def test_float8_as_uint8_bits(elem, tmp_path):
    name, exp_bits, man_bits, bias, kind = FLOAT8[elem]
    session = nxrt.InferenceSession(small_types_model(str(tmp_path), elem))
    assert session.get_inputs()[0].type == f"tensor({name})"
    bits = numpy.arange(256, dtype=numpy.uint8)
    want = numpy.array([float8_value(b, exp_bits, man_bits, bias, kind) for b in range(256)],
                       dtype=numpy.float32)
    finite = numpy.isfinite(want)
    same, value, encoded = session.run(None, {"bits": bits, "x": want[finite]})
    assert same.dtype == numpy.uint8 and same.tobytes() == bits.tobytes()
    numpy.testing.assert_array_equal(value, want)  # NaNs in the same places
    assert encoded.dtype == numpy.uint8
    assert encoded.tolist() == bits[finite].tolist()  # every finite value back to its code
    # ONNX Runtime's way to feed a type numpy has not: an OrtValue with the ONNX element type.
    feed = nxrt.OrtValue.ortvalue_from_numpy_with_onnx_type(bits, elem)
    assert feed.data_type() == f"tensor({name})"
    out = session.run_with_ort_values(["bits"], {"bits": feed, "x": want[finite]})[0]
    assert out.data_type() == f"tensor({name})" and out.numpy().tobytes() == bits.tobytes()
    with pytest.raises(nxrt.capi.onnxruntime_pybind11_state.InvalidArgument,
                       match="'bits'.*" + name):
        session.run(None, {"bits": want, "x": want[finite]})  # float32, not the bits


@pytest.mark.parametrize("elem,lo,hi", [(INT4, -8, 7), (UINT4, 0, 15)])
def test_int4_unpacked_one_element_a_byte(elem, lo, hi, tmp_path):
    name = "int4" if elem == INT4 else "uint4"
    session = nxrt.InferenceSession(small_types_model(str(tmp_path), elem))
    narrow = numpy.int8 if elem == INT4 else numpy.uint8
    values = numpy.arange(lo, hi + 1).repeat(2)[:31]  # an odd count: the last byte half used
    bits = values.astype(narrow)
    same, value, packed = session.run(None, {"bits": bits, "x": values[::-1].astype(numpy.int8)})
    assert same.dtype == numpy.dtype(narrow) and same.shape == (31,)
    assert same.tolist() == values.tolist()
    assert value.tolist() == values.astype(numpy.float32).tolist()
    assert packed.dtype == numpy.dtype(narrow) and packed.tolist() == values[::-1].tolist()
    # Any integer dtype is taken, one element per item; values outside the range are refused.
    assert session.run(["bits"], {"bits": values.astype(numpy.int64),
                                  "x": bits.astype(numpy.int8)})[0].tolist() == values.tolist()
    bad = values.copy()
    bad[5] = hi + 1
    with pytest.raises(nxrt.capi.onnxruntime_pybind11_state.InvalidArgument,
                       match=f"'bits' is {name}: element 5 is {hi + 1}, outside {lo}..{hi}"):
        session.run(None, {"bits": bad, "x": bits.astype(numpy.int8)})
    feed = nxrt.OrtValue.ortvalue_from_numpy_with_onnx_type(bits, elem)
    assert feed.data_type() == f"tensor({name})"
    assert session.run(["bits"], {"bits": feed, "x": bits.astype(numpy.int8)})[0].tolist() == values.tolist()
    with pytest.raises(nxrt.capi.onnxruntime_pybind11_state.InvalidArgument, match="integer"):
        nxrt.OrtValue.ortvalue_from_numpy_with_onnx_type(values.astype(numpy.float32), elem)
