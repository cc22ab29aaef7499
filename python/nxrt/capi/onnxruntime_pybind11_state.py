"""The exception classes, with the names and module path of ONNX Runtime's
(onnxruntime.capi.onnxruntime_pybind11_state), so that `except InvalidArgument` code written for
ONNX Runtime works on nxrt. As in ONNX Runtime, each derives from Exception directly.

Which nxrt status code raises which class (nxrt/status.h):
  invalid argument      InvalidArgument
  invalid model         InvalidGraph
  not found             NoSuchFile       (a file, e.g. a plugin library, that does not exist)
  not implemented       NotImplemented
  unsupported           NotImplemented   (no EP can run a node)
  io error              NoSuchFile       (a model or library file missing or unreadable)
  failed precondition   Fail             (a closed session)
  runtime error         RuntimeException (a kernel failed; a run stopped by RunOptions.terminate)
  out of memory         Fail
  internal              EngineError
"""
from nxrt import _nxrt


class Fail(Exception):
    pass


class InvalidArgument(Exception):
    pass


class NoSuchFile(Exception):
    pass


class NoModel(Exception):
    pass


class EngineError(Exception):
    pass


class RuntimeException(Exception):
    pass


class InvalidProtobuf(Exception):
    pass


class ModelLoaded(Exception):
    pass


class NotImplemented(Exception):  # noqa: A001 - ONNX Runtime's name
    pass


class InvalidGraph(Exception):
    pass


class EPFail(Exception):
    pass


class NotFound(Exception):
    pass


_nxrt._set_exception_classes({
    1: InvalidArgument,
    2: InvalidGraph,
    3: NoSuchFile,
    4: NotImplemented,
    5: NotImplemented,
    6: NoSuchFile,
    7: Fail,
    8: RuntimeException,
    9: Fail,
    10: EngineError,
    11: Fail,
})
