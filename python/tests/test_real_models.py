"""The real models of docs/testing.md through nxrt.InferenceSession against ONNX Runtime 1.30,
and their NodeArgs against the models' own declarations (read with onnx)."""
import numpy
import onnx
import pytest

import nxrt
from conftest import ATOL, REAL_MODELS, RTOL, ort_outputs, real_inputs, real_model


def declared(value_info):
    """Type and shape as ONNX Runtime's NodeArg gives them, from the ValueInfoProto."""
    t = value_info.type.tensor_type
    names = {onnx.TensorProto.FLOAT: "float", onnx.TensorProto.INT64: "int64"}
    shape = []
    if t.HasField("shape"):
        for d in t.shape.dim:
            shape.append(d.dim_value if d.HasField("dim_value")
                         else d.dim_param if d.HasField("dim_param") else None)
    return f"tensor({names[t.elem_type]})", shape


@pytest.mark.parametrize("name", list(REAL_MODELS))
def test_real_model_matches_ort(name, tmp_path):
    path = real_model(name)
    session = nxrt.InferenceSession(path, providers=["CPUExecutionProvider"])
    proto = onnx.load(path, load_external_data=False)
    initializers = {i.name for i in proto.graph.initializer}
    graph_inputs = [i for i in proto.graph.input if i.name not in initializers]
    assert [i.name for i in session.get_inputs()] == [i.name for i in graph_inputs]
    for got, want in zip(session.get_inputs(), graph_inputs):
        assert (got.type, got.shape) == declared(want), got
    assert [o.name for o in session.get_outputs()] == [o.name for o in proto.graph.output]
    for got, want in zip(session.get_outputs(), proto.graph.output):
        assert (got.type, got.shape) == declared(want), got

    feeds = real_inputs(name)
    got = session.run(None, feeds)
    want = ort_outputs(path, feeds, str(tmp_path))
    assert len(got) == len(want) == len(proto.graph.output)
    for out, g, w in zip(session.get_outputs(), got, want):
        assert g.dtype == w.dtype and g.shape == w.shape, out.name
        numpy.testing.assert_allclose(g, w, rtol=RTOL, atol=ATOL, err_msg=f"{name}: {out.name}")
    # Outputs by name, in the order asked.
    names = [o.name for o in session.get_outputs()][::-1]
    for g, w in zip(session.run(names, feeds), want[::-1]):
        numpy.testing.assert_allclose(g, w, rtol=RTOL, atol=ATOL)
