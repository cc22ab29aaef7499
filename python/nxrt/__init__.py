"""nxrt: run ONNX models with ONNX Runtime's Python calls (docs/python.md).

    import nxrt
    session = nxrt.InferenceSession("model.onnx", providers=["CPUExecutionProvider"])
    outputs = session.run(None, {"x": x})

A script written for onnxruntime runs with `import nxrt as onnxruntime` for the common calls.
"""
from nxrt import _nxrt
from nxrt import capi
from nxrt.capi import onnxruntime_pybind11_state
from nxrt._api import (
    ExecutionMode,
    GraphOptimizationLevel,
    InferenceSession,
    IOBinding,
    ModelMetadata,
    NodeArg,
    OrtEpDevice,
    OrtHardwareDevice,
    OrtHardwareDeviceType,
    OrtValue,
    RunOptions,
    SessionOptions,
    get_all_providers,
    get_available_providers,
    get_device,
    get_ep_devices,
    get_version_string,
    register_execution_provider_library,
    set_default_logger_severity,
    set_default_logger_verbosity,
    unregister_execution_provider_library,
)

__version__ = _nxrt.version_info()["nxrt"]
