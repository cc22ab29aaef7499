"""An onnxruntime script with only its import changed runs on a real model, and its outputs
are ONNX Runtime 1.30's."""
import os
import subprocess
import sys

import numpy
import onnx

from conftest import ATOL, RTOL, ort_outputs, real_model


def test_onnxruntime_script_runs_unchanged(tmp_path):
    script = os.path.join(os.path.dirname(__file__), "ort_style_script.py")
    with open(script, encoding="utf-8") as f:
        text = f.read()
    assert "import nxrt as onnxruntime" in text and "nxrt." not in text.replace("import nxrt", "")
    model = real_model("oww_embedding")
    out = str(tmp_path / "out.npz")
    run = subprocess.run([sys.executable, script, model, out], capture_output=True, text=True,
                         check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    dims = onnx.load(model, load_external_data=False).graph.input[0].type.tensor_type.shape.dim
    shape = [d.dim_value if d.HasField("dim_value") else d.dim_param for d in dims]
    assert f"input: input_1 tensor(float) {shape}" in run.stdout, run.stdout
    saved = numpy.load(out)
    want = ort_outputs(model, {"input_1": saved["x"]}, str(tmp_path))
    assert len(want) == len(saved.files) - 1
    for i, w in enumerate(want):
        numpy.testing.assert_allclose(saved[f"out{i}"], w, rtol=RTOL, atol=ATOL)
