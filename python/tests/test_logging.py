"""Log settings: SessionOptions.log_severity_level / log_verbosity_level / logid and
set_default_logger_severity decide which of the session's lines reach stderr (warnings: a plugin
EP dropped under fallback; verbose: ONNX Runtime's "Node placements" lines)."""
import pytest

import nxrt
from nxrt.capi.onnxruntime_pybind11_state import InvalidArgument
from conftest import tool


@pytest.fixture()
def default_logger():
    yield
    nxrt.set_default_logger_severity(2)
    nxrt.set_default_logger_verbosity(0)


def lines(text, letter):
    return [line.split("] ", 1)[1] for line in text.splitlines() if f"[{letter}:onnxruntime:" in line]


def options(severity=None, verbosity=None, logid=None):
    o = nxrt.SessionOptions()
    o.graph_optimization_level = nxrt.GraphOptimizationLevel.ORT_DISABLE_ALL  # the 3 nodes stay
    if severity is not None:
        o.log_severity_level = severity
    if verbosity is not None:
        o.log_verbosity_level = verbosity
    if logid is not None:
        o.logid = logid
    return o


def test_verbose_placement_lines_follow_severity_and_verbosity(models, capsys, default_logger):
    assert nxrt.SessionOptions().log_severity_level == -1  # ONNX Runtime's: the default logger's
    nxrt.InferenceSession(models["affine"], options())
    assert capsys.readouterr().err == ""  # the default logger drops verbose lines
    nxrt.InferenceSession(models["affine"], options(severity=0, logid="affine"))
    err = capsys.readouterr().err
    assert lines(err, "V") == ["Node placements",
                               " All nodes placed on [CPUExecutionProvider]. Number of nodes: 3"]
    assert "[V:onnxruntime:affine, nxrt]" in err
    nxrt.InferenceSession(models["affine"], options(severity=0, verbosity=1))
    assert lines(capsys.readouterr().err, "V")[2:] == ["  Mul (mul)", "  Add (add)", "  Relu (relu)"]
    nxrt.set_default_logger_severity(0)  # reaches sessions left at -1 ...
    nxrt.InferenceSession(models["affine"], options())
    assert len(lines(capsys.readouterr().err, "V")) == 2
    nxrt.InferenceSession(models["affine"], options(severity=1))  # ... not those that set one
    assert capsys.readouterr().err == ""


def test_plugin_ep_dropped_is_a_warning_unless_silenced(models, capsys, default_logger):
    nxrt.register_execution_provider_library("example_log", tool("NXRT_EXAMPLE_EP"))
    try:
        example = [d for d in nxrt.get_ep_devices() if d.ep_name == "example_ep"]

        def make(o):
            o.add_provider_for_devices(example, {"max_group_size": "-1"})  # the EP fails
            return nxrt.InferenceSession(models["affine"], o)
        session = make(options())
        warned = lines(capsys.readouterr().err, "W")
        assert warned == session.warnings() and any("max_group_size" in w for w in warned)
        make(options(severity=3))
        assert lines(capsys.readouterr().err, "W") == []
        nxrt.set_default_logger_severity(3)
        make(options())
        assert lines(capsys.readouterr().err, "W") == []
        good = options(severity=0)
        good.add_provider_for_devices(example, {"claim_ops": "Add,Relu"})
        nxrt.InferenceSession(models["affine"], good)
        verbose = lines(capsys.readouterr().err, "V")
        assert verbose[0] == "Node placements"
        assert sorted(verbose[1:]) == [
            " Node(s) placed on [CPUExecutionProvider]. Number of nodes: 1",  # Mul
            " Node(s) placed on [example_ep]. Number of nodes: 2"]
    finally:
        nxrt.unregister_execution_provider_library("example_log")


@pytest.mark.parametrize("bad", [5, -2, "2", 1.0])
def test_bad_severity_names_the_setting_and_the_allowed_values(models, bad):
    with pytest.raises(InvalidArgument, match=r"log_severity_level is .*allowed: -1 .*4 \(fatal\)"):
        nxrt.InferenceSession(models["affine"], options(severity=bad))
    with pytest.raises(InvalidArgument, match=r"severity is .*allowed: 0 \(verbose\)"):
        nxrt.set_default_logger_severity(bad)
