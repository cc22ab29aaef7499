"""Bad input: exceptions of ONNX Runtime's classes with messages naming the input, the
expected and the given; bad paths and closed sessions; nothing aborts the interpreter."""
import json
import os
import signal
import threading
import time

import numpy
import pytest

import nxrt
from nxrt.capi.onnxruntime_pybind11_state import (Fail, InvalidArgument, InvalidGraph,
                                                   NoSuchFile, RuntimeException)


@pytest.fixture(scope="module")
def affine(models):
    return nxrt.InferenceSession(models["affine"])


X = numpy.ones((2, 3), dtype=numpy.float32)


def test_exception_classes_live_where_onnxruntime_has_them():
    import nxrt as onnxruntime
    state = onnxruntime.capi.onnxruntime_pybind11_state
    for cls in (state.Fail, state.InvalidArgument, state.NoSuchFile, state.InvalidGraph,
                state.RuntimeException, state.NotImplemented, state.EPFail):
        assert issubclass(cls, Exception)


def test_wrong_feed_name(affine):
    with pytest.raises(InvalidArgument, match=r"'xx'.*") as info:
        affine.run(None, {"xx": X})
    assert "x" in str(info.value)


def test_missing_input(models):
    session = nxrt.InferenceSession(models["sequences"])
    a = numpy.ones(2, dtype=numpy.float32)
    with pytest.raises(InvalidArgument, match=r"'seq_in'") as info:
        session.run(None, {"a": a, "b": a})
    assert "missing" in str(info.value)


def test_wrong_dtype_names_input_expected_and_given(affine):
    with pytest.raises(InvalidArgument) as info:
        affine.run(None, {"x": X.astype(numpy.float64)})
    message = str(info.value)
    assert "'x'" in message and "float" in message and "double" in message, message


def test_wrong_rank_names_input_expected_and_given(affine):
    with pytest.raises(InvalidArgument) as info:
        affine.run(None, {"x": numpy.ones((2, 3, 1), dtype=numpy.float32)})
    message = str(info.value)
    assert "'x'" in message and "rank" in message and "3" in message and "2" in message, message


def test_wrong_fixed_dim(affine):
    with pytest.raises(InvalidArgument) as info:
        affine.run(None, {"x": numpy.ones((2, 4), dtype=numpy.float32)})
    message = str(info.value)
    assert "'x'" in message and "4" in message and "3" in message, message


def test_unconvertible_values(affine):
    with pytest.raises(InvalidArgument, match=r"input 'x'.*dict"):
        affine.run(None, {"x": {"a": 1}})
    with pytest.raises(InvalidArgument, match=r"input 'x'.*datetime64"):
        affine.run(None, {"x": numpy.array(["2020-01-01"], dtype="datetime64[D]")})
    with pytest.raises(InvalidArgument, match=r"input_feed"):
        affine.run(None, [X])
    with pytest.raises(InvalidArgument, match=r"'nope'"):
        affine.run(["nope"], {"x": X})
    assert affine.run(None, {"x": X})[0].shape == (2, 3)  # still usable


def test_bad_path_and_bad_bytes(tmp_path):
    missing = str(tmp_path / "missing.onnx")
    with pytest.raises(NoSuchFile, match="missing.onnx"):
        nxrt.InferenceSession(missing)
    with pytest.raises(InvalidGraph):
        nxrt.InferenceSession(b"this is not an onnx model")
    with pytest.raises(NoSuchFile, match="no_such_ep.so"):
        nxrt.register_execution_provider_library("nope", str(tmp_path / "no_such_ep.so"))


def test_closed_session(models):
    session = nxrt.InferenceSession(models["affine"])
    session.close()
    with pytest.raises(Fail, match="closed"):
        session.run(None, {"x": X})
    with pytest.raises(Fail, match="closed"):
        session.get_modelmeta()
    with nxrt.InferenceSession(models["affine"]) as s:
        assert s.run(None, {"x": X})[0].shape == (2, 3)
    with pytest.raises(Fail, match="closed"):
        s.run(None, {"x": X})


def long_inputs():
    return {"x": numpy.eye(256, dtype=numpy.float32)}


def matmul_spans(trace_path):
    with open(trace_path, encoding="utf-8") as f:
        events = json.load(f)["traceEvents"]
    return sum(1 for e in events if e.get("ph") == "X" and e.get("args", {}).get("op_type") == "MatMul")


def test_ctrl_c_during_a_long_run_raises_keyboard_interrupt(models, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    options = nxrt.SessionOptions()
    options.enable_profiling = True
    session = nxrt.InferenceSession(models["long"], options)
    want = session.run(None, long_inputs())[0]  # the first run also creates the kernels' plans
    start = time.perf_counter()
    session.run(None, long_inputs())
    full = time.perf_counter() - start
    assert matmul_spans(session.end_profiling()) == 600
    timer = threading.Timer(full / 4, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        session.run(None, long_inputs())
    timer.join()
    assert 0 < matmul_spans(session.end_profiling()) < 300  # stopped part way
    numpy.testing.assert_array_equal(session.run(None, long_inputs())[0], want)  # still usable


def test_run_options_terminate_from_another_thread(models):
    session = nxrt.InferenceSession(models["long"])
    options = nxrt.RunOptions()
    threading.Timer(0.02, setattr, (options, "terminate", True)).start()
    with pytest.raises(RuntimeException, match="terminated"):
        session.run(None, long_inputs(), options)
    with pytest.raises(RuntimeException, match="terminated"):  # it stays set, as in ORT
        session.run(None, long_inputs(), options)
    options.terminate = False
    assert session.run(None, long_inputs(), options)[0].shape == (256, 256)

    # From a thread that is not the main one (the run is in place there).
    errors = []

    def worker():
        opts = nxrt.RunOptions()
        opts.terminate = True
        try:
            session.run(None, long_inputs(), opts)
        except RuntimeException as e:
            errors.append(str(e))

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert len(errors) == 1 and "terminated" in errors[0]


def test_a_bad_map_feed_names_the_input(tmp_path):
    """DictVectorizer's map(string, float) input: a dict of other key or value types, or
    something that is not a dict, gives InvalidArgument naming the input and both types."""
    from onnx import TensorProto, helper, onnx_ml_pb2, save
    map_type = onnx_ml_pb2.TypeProto()
    map_type.map_type.key_type = TensorProto.STRING
    map_type.map_type.value_type.tensor_type.elem_type = TensorProto.FLOAT
    graph = helper.make_graph(
        [helper.make_node("DictVectorizer", ["m"], ["y"], domain="ai.onnx.ml",
                          string_vocabulary=["a", "b"])],
        "vectorizer", [helper.make_value_info("m", map_type)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                    helper.make_opsetid("ai.onnx.ml", 3)])
    path = str(tmp_path / "vectorizer.onnx")
    save(model, path)
    session = nxrt.InferenceSession(path)
    invalid = nxrt.capi.onnxruntime_pybind11_state.InvalidArgument
    with pytest.raises(invalid, match=r"input 'm'.*int.*string key"):
        session.run(None, {"m": {1: 2.0}})
    with pytest.raises(invalid, match=r"input 'm'.*str.*float value"):
        session.run(None, {"m": {"a": "x"}})
    with pytest.raises(invalid, match=r"input 'm'.*dict"):
        session.run(None, {"m": numpy.ones(2, dtype=numpy.float32)})
