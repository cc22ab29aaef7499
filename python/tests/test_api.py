"""The rest of ONNX Runtime's call shape: NodeArgs, metadata, SessionOptions, RunOptions,
providers, profiling, io_binding, OrtValue."""
import json
import os
import warnings

import numpy
import onnx
import pytest

import nxrt
from nxrt.capi.onnxruntime_pybind11_state import InvalidArgument

X = numpy.array([[-1.0, 0.25, 2.0], [0.5, -0.5, 0.0]], dtype=numpy.float32)
WANT = numpy.maximum(X * 2 + numpy.array([-1, 0, 1], dtype=numpy.float32), 0)


def test_node_args_as_onnxruntime_prints_them(models):
    session = nxrt.InferenceSession(models["dims"])
    got = [(a.name, a.type, a.shape) for a in session.get_inputs()]
    assert got == [("d", "tensor(float)", [2, "n", None]), ("s", "tensor(int64)", []),
                   ("u", "tensor(float)", [])]
    assert repr(session.get_inputs()[0]) == "NodeArg(name='d', type='tensor(float)', shape=[2, 'n', None])"
    assert [(a.name, a.shape) for a in session.get_outputs()] == [
        ("d_out", [2, "n", None]), ("s_out", []), ("u_out", [])]


def test_modelmeta(models):
    meta = nxrt.InferenceSession(models["affine"]).get_modelmeta()
    model = onnx.load(models["affine"])
    assert meta.producer_name == model.producer_name == "nxrt-pytest"
    assert meta.graph_name == "affine" and meta.domain == "test.nxrt"
    assert meta.description == "affine then relu" and meta.graph_description == "the graph"
    assert meta.version == 7
    assert meta.custom_metadata_map == {"author": "pytest", "purpose": "metadata"}
    # No model_version in the file: INT64_MAX, as ONNX Runtime's ModelMetadataGetVersion gives
    # (tests/capi/capi_diff_test.c compares the two).
    from conftest import real_model
    assert not onnx.load(real_model("oww_embedding"), load_external_data=False).HasField("model_version")
    assert nxrt.InferenceSession(real_model("oww_embedding")).get_modelmeta().version == 2**63 - 1


def test_defaults_and_providers(models):
    session = nxrt.InferenceSession(models["affine"])
    assert session.get_providers() == ["CPUExecutionProvider"]
    assert nxrt.get_available_providers() == ["CPUExecutionProvider"]
    numpy.testing.assert_array_equal(session.run(None, {"x": X})[0], WANT)
    numpy.testing.assert_array_equal(session.run([], {"x": X})[0], WANT)
    numpy.testing.assert_array_equal(session.run(["y"], {"x": X})[0], WANT)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        session = nxrt.InferenceSession(models["affine"],
                                        providers=["CUDAExecutionProvider", "CPUExecutionProvider"])
    assert any("CUDAExecutionProvider" in str(w.message) for w in caught)
    assert session.get_providers() == ["CPUExecutionProvider"]
    with pytest.raises(ValueError, match="same length"):
        nxrt.InferenceSession(models["affine"], providers=["CPUExecutionProvider"], provider_options=[{}, {}])


def test_from_bytes_and_pathlike(models):
    import pathlib
    with open(models["affine"], "rb") as f:
        session = nxrt.InferenceSession(f.read())
    numpy.testing.assert_array_equal(session.run(None, {"x": X})[0], WANT)
    session = nxrt.InferenceSession(pathlib.Path(models["affine"]))
    numpy.testing.assert_array_equal(session.run(None, {"x": X})[0], WANT)


def test_free_dimension_override(models):
    options = nxrt.SessionOptions()
    options.add_free_dimension_override_by_name("batch", 2)
    session = nxrt.InferenceSession(models["affine"], options)
    assert session.get_inputs()[0].shape == [2, 3]
    numpy.testing.assert_array_equal(session.run(None, {"x": X})[0], WANT)
    with pytest.raises(InvalidArgument, match="'x'"):
        session.run(None, {"x": X[:1]})
    with pytest.raises(InvalidArgument, match="batch"):
        options.add_free_dimension_override_by_name("batch", -1)


def test_optimization_levels_and_threads(models, tmp_path):
    seen = {}
    for level in nxrt.GraphOptimizationLevel:
        options = nxrt.SessionOptions()
        options.graph_optimization_level = level
        options.intra_op_num_threads = 1
        session = nxrt.InferenceSession(models["affine"], options)
        seen[level] = session.placement()["optimizer"]["level"]
        numpy.testing.assert_array_equal(session.run(None, {"x": X})[0], WANT)
    assert seen[nxrt.GraphOptimizationLevel.ORT_DISABLE_ALL] == 0
    assert seen[nxrt.GraphOptimizationLevel.ORT_ENABLE_BASIC] == 1
    assert seen[nxrt.GraphOptimizationLevel.ORT_ENABLE_ALL] == 2
    passes = lambda s: [p["pass"] for p in s.placement()["optimizer"]["passes"]]
    assert "constant_folding" in passes(nxrt.InferenceSession(models["affine"]))
    session = nxrt.InferenceSession(models["affine"], disabled_optimizers=["constant_folding"])
    assert "constant_folding" not in passes(session)
    numpy.testing.assert_array_equal(session.run(None, {"x": X})[0], WANT)
    with pytest.raises(InvalidArgument, match="constant_fold"):
        nxrt.InferenceSession(models["affine"], disabled_optimizers=["constant_fold"])
    options = nxrt.SessionOptions()
    options.graph_optimization_level = nxrt.GraphOptimizationLevel.ORT_ENABLE_BASIC
    options.optimized_model_filepath = str(tmp_path / "optimized.onnx")
    nxrt.InferenceSession(models["affine"], options)
    optimized = onnx.load(str(tmp_path / "optimized.onnx"))
    onnx.checker.check_model(optimized)
    assert [n.op_type for n in optimized.graph.node]  # the graph after nxrt's passes


def test_profiling(models, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert nxrt.InferenceSession(models["affine"]).end_profiling() == ""
    options = nxrt.SessionOptions()
    options.enable_profiling = True
    options.profile_file_prefix = "prof"
    session = nxrt.InferenceSession(models["affine"], options)
    session.run(None, {"x": X})
    session.run(None, {"x": X})
    path = session.end_profiling()
    assert path.startswith("prof_") and path.endswith(".json")
    events = json.load(open(path))["traceEvents"]
    runs = [e for e in events if e.get("name") == "run" and e.get("ph") == "X"]
    assert len(runs) == 2
    assert {e["args"]["op_type"] for e in events if e.get("ph") == "X" and e.get("cat") != "session"} \
        >= {"Relu"}


def test_session_config_entries(models):
    options = nxrt.SessionOptions()
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    with pytest.raises(InvalidArgument, match="not set"):
        options.get_session_config_entry("nope")
    run_options = nxrt.RunOptions()
    run_options.add_run_config_entry("a", "b")
    assert run_options.get_run_config_entry("a") == "b"
    assert run_options.terminate is False
    session = nxrt.InferenceSession(models["affine"], options)
    numpy.testing.assert_array_equal(session.run(None, {"x": X}, run_options)[0], WANT)


def test_io_binding_and_ortvalues(models):
    session = nxrt.InferenceSession(models["affine"])
    binding = session.io_binding()
    binding.bind_cpu_input("x", X)
    binding.bind_output("y")
    session.run_with_iobinding(binding)
    numpy.testing.assert_array_equal(binding.copy_outputs_to_cpu()[0], WANT)
    assert binding.get_outputs()[0].shape() == [2, 3]

    # Pointers: an input bound by address, an output copied into a caller's buffer.
    out = numpy.zeros((2, 3), dtype=numpy.float32)
    binding = session.io_binding()
    binding.bind_input("x", "cpu", 0, numpy.float32, [2, 3], X.ctypes.data)
    binding.bind_output("y", "cpu", 0, numpy.float32, [2, 3], out.ctypes.data)
    session.run_with_iobinding(binding)
    numpy.testing.assert_array_equal(out, WANT)

    value = nxrt.OrtValue.ortvalue_from_numpy(X)
    assert value.data_type() == "tensor(float)" and value.is_tensor() and value.device_name() == "cpu"
    got = session.run_with_ort_values(["y"], {"x": value})
    numpy.testing.assert_array_equal(got[0].numpy(), WANT)
    with pytest.raises(InvalidArgument, match="cuda"):
        nxrt.OrtValue.ortvalue_from_numpy(X, "cuda", 0)
