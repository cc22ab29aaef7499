"""ONNX Runtime plugin EPs from Python: the example EP (plugins/example_ep) registered by name,
picked by device, and by the "plugin:" shorthand; its compute calls counted by the library."""
import ctypes
import json
import subprocess

import numpy
import pytest

import nxrt
from nxrt.capi.onnxruntime_pybind11_state import Fail, InvalidArgument
from conftest import ATOL, RTOL, ort_outputs, real_inputs, real_model, tool


@pytest.fixture()
def example_ep():
    path = tool("NXRT_EXAMPLE_EP")
    nxrt.register_execution_provider_library("example", path)
    yield path
    nxrt.unregister_execution_provider_library("example")


def compute_calls(path):
    lib = ctypes.CDLL(path)  # the library nxrt loaded: same handle, same counters
    lib.NxrtExampleEp_ComputeCalls.restype = ctypes.c_uint64
    return lib.NxrtExampleEp_ComputeCalls()


def affine_want(x):
    return numpy.maximum(x * 2 + numpy.array([-1, 0, 1], dtype=numpy.float32), 0)


def test_register_devices_and_add_provider_for_devices(example_ep, models):
    devices = nxrt.get_ep_devices()
    assert devices[0].ep_name == "CPUExecutionProvider" and devices[0].ep_vendor == "nxrt"
    assert devices[0].device.type == nxrt.OrtHardwareDeviceType.CPU
    example = [d for d in devices if d.ep_name == "example_ep"]
    assert len(example) >= 1
    assert example[0].ep_vendor == "nxrt"
    assert example[0].device.type == nxrt.OrtHardwareDeviceType.CPU
    assert example[0].device.vendor == devices[0].device.vendor
    assert isinstance(example[0].ep_metadata, dict)

    options = nxrt.SessionOptions()
    options.add_provider_for_devices(example, {"max_group_size": "0"})
    session = nxrt.InferenceSession(models["affine"], options)
    assert session.get_providers() == ["example_ep", "CPUExecutionProvider"]
    assert session.get_provider_options() == {"example_ep": {"max_group_size": "0"},
                                              "CPUExecutionProvider": {}}
    before = compute_calls(example_ep)
    x = numpy.linspace(-2, 2, 12, dtype=numpy.float32).reshape(4, 3)
    numpy.testing.assert_allclose(session.run(None, {"x": x})[0], affine_want(x), rtol=1e-6)
    assert compute_calls(example_ep) == before + 1  # one fused node: Mul, Add, Relu

    placement = session.placement()
    claims = placement["graphs"][0]["claims"]
    assert len(claims) == 1 and claims[0]["fused"]
    assert sorted(n["op_type"] for n in claims[0]["nodes"]) == ["Add", "Mul", "Relu"]


def test_ep_options_reach_the_plugin(example_ep, models):
    options = nxrt.SessionOptions()
    example = [d for d in nxrt.get_ep_devices() if d.ep_name == "example_ep"]
    options.add_provider_for_devices(example, {"claim_ops": "Add,Relu"})
    session = nxrt.InferenceSession(models["affine"], options)
    claimed = [n["op_type"] for c in session.placement()["graphs"][0]["claims"]
               if c["ep"] != "cpu" for n in c["nodes"]]
    assert sorted(claimed) == ["Add", "Relu"]
    declined = session.placement()["graphs"][0]["declined"]
    assert any(d["node"]["op_type"] == "Mul" and "Mul" in r["reason"]
               for d in declined for r in d["reasons"]), declined
    # A bad option value: the plugin's own message.
    options = nxrt.SessionOptions()
    options.add_provider_for_devices(example, {"max_group_size": "-1"})
    session = nxrt.InferenceSession(models["affine"], options)  # dropped: the CPU EP runs all
    assert any("max_group_size" in w for w in session.warnings()), session.warnings()
    assert session.get_providers() == ["CPUExecutionProvider"]
    assert session.run(None, {"x": numpy.ones((1, 3), dtype=numpy.float32)})[0].shape == (1, 3)
    options.add_session_config_entry("session.disable_cpu_ep_fallback", "1")
    with pytest.raises(Exception, match="max_group_size"):
        nxrt.InferenceSession(models["affine"], options)


def test_plugin_shorthand_in_providers(example_ep, models):
    session = nxrt.InferenceSession(models["affine"],
                                    providers=[(f"plugin:{example_ep}", {}), "CPUExecutionProvider"])
    assert session.get_providers() == ["example_ep", "CPUExecutionProvider"]
    before = compute_calls(example_ep)
    x = numpy.ones((1, 3), dtype=numpy.float32)
    numpy.testing.assert_allclose(session.run(None, {"x": x})[0], affine_want(x))
    assert compute_calls(example_ep) == before + 1
    # A registered EP by its name.
    session = nxrt.InferenceSession(models["affine"], providers=["example_ep"])
    assert session.get_providers() == ["example_ep", "CPUExecutionProvider"]


def test_placement_is_what_nxrt_claims_prints(example_ep, models):
    cli = tool("NXRT_CLI")
    for providers, ep_flag in (([f"plugin:{example_ep}"], f"plugin:{example_ep},cpu"),
                               (["CPUExecutionProvider"], "cpu")):
        session = nxrt.InferenceSession(models["affine"], providers=providers)
        printed = subprocess.run([cli, "claims", models["affine"], "--ep", ep_flag, "--format", "json"],
                                 capture_output=True, text=True, check=True).stdout
        assert session.placement() == json.loads(printed)


def test_registration_errors(example_ep):
    with pytest.raises(Fail, match="already registered under 'example'"):
        nxrt.register_execution_provider_library("example", example_ep)
    with pytest.raises(Fail, match="no library is registered under 'other'"):
        nxrt.unregister_execution_provider_library("other")
    options = nxrt.SessionOptions()
    with pytest.raises(InvalidArgument, match="no OrtEpDevice"):
        options.add_provider_for_devices([], {})
    devices = nxrt.get_ep_devices()
    example = [d for d in devices if d.ep_name == "example_ep"]
    with pytest.raises(InvalidArgument, match="one EP per call"):
        options.add_provider_for_devices([devices[0], example[0]], {})


def test_real_model_with_the_plugin_matches_ort(example_ep, tmp_path):
    model = real_model("oww_hey_jarvis")
    options = nxrt.SessionOptions()
    options.add_provider_for_devices([d for d in nxrt.get_ep_devices() if d.ep_name == "example_ep"])
    session = nxrt.InferenceSession(model, options)
    claimed = sum(len(c["nodes"]) for c in session.placement()["graphs"][0]["claims"]
                  if c["ep"] == "example_ep")
    assert claimed > 0
    feeds = real_inputs("oww_hey_jarvis")
    before = compute_calls(example_ep)
    got = session.run(None, feeds)
    assert compute_calls(example_ep) > before
    want = ort_outputs(model, feeds, str(tmp_path))
    for g, w in zip(got, want):
        numpy.testing.assert_allclose(g, w, rtol=RTOL, atol=ATOL)
