"""nxrt.capi: where ONNX Runtime keeps its native module; here, its exception classes."""
