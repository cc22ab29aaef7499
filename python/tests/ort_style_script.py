"""A script written for onnxruntime, with only its import changed (it read
`import onnxruntime`). test_ort_script.py runs it on a real model.

usage: ort_style_script.py MODEL.onnx OUT.npz
"""
import sys

import numpy as np
import nxrt as onnxruntime

model_path, out_path = sys.argv[1], sys.argv[2]

options = onnxruntime.SessionOptions()
options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
options.intra_op_num_threads = 2
options.log_severity_level = 3
session = onnxruntime.InferenceSession(model_path, sess_options=options,
                                       providers=["CPUExecutionProvider"])
print("providers:", session.get_providers(), "available:", onnxruntime.get_available_providers())
meta = session.get_modelmeta()
print("producer:", meta.producer_name, "version:", meta.version)

model_input = session.get_inputs()[0]
print("input:", model_input.name, model_input.type, model_input.shape)
shape = [d if isinstance(d, int) else 1 for d in model_input.shape]
x = np.random.default_rng(0).uniform(-1.0, 3.0, size=shape).astype(np.float32)

output_names = [o.name for o in session.get_outputs()]
run_options = onnxruntime.RunOptions()
run_options.log_severity_level = 3
try:
    outputs = session.run(output_names, {model_input.name: x}, run_options)
except onnxruntime.capi.onnxruntime_pybind11_state.InvalidArgument as e:
    sys.exit(f"bad input: {e}")
for name, value in zip(output_names, outputs):
    print("output:", name, value.dtype, value.shape)
np.savez(out_path, x=x, **{f"out{i}": v for i, v in enumerate(outputs)})
