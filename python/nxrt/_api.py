"""ONNX Runtime's Python call shape over nxrt's C++ session (docs/python.md).

The classes and functions here take and give what onnxruntime's do (onnxruntime 1.22+:
onnxruntime/python/onnxruntime_inference_collection.py and onnxruntime_pybind_state.cc are the
reference); the work is done by the native module nxrt._nxrt over libnxrt.so.
"""
import datetime
import enum
import json
import os
import sys
import threading
import warnings

import numpy

from nxrt import _nxrt
from nxrt.capi.onnxruntime_pybind11_state import Fail, InvalidArgument

CPU_PROVIDER = "CPUExecutionProvider"


class GraphOptimizationLevel(enum.IntEnum):
    """ONNX Runtime's levels. nxrt has three (SessionOptions::optimization_level): DISABLE_ALL
    runs no pass (0), ENABLE_BASIC the standard-ONNX rewrites (1), and EXTENDED, LAYOUT and ALL
    also nxrt's fusions (2)."""
    ORT_DISABLE_ALL = 0
    ORT_ENABLE_BASIC = 1
    ORT_ENABLE_EXTENDED = 2
    ORT_ENABLE_LAYOUT = 3
    ORT_ENABLE_ALL = 99


_NXRT_LEVEL = {0: 0, 1: 1, 2: 2, 3: 2, 99: 2}


class ExecutionMode(enum.IntEnum):
    """Accepted for compatibility; nxrt runs each graph's steps in plan order."""
    ORT_SEQUENTIAL = 0
    ORT_PARALLEL = 1


class OrtHardwareDeviceType(enum.IntEnum):
    CPU = 0
    GPU = 1
    NPU = 2


class OrtHardwareDevice:
    """A hardware device (ONNX Runtime's OrtHardwareDevice)."""

    def __init__(self, info):
        self.type = OrtHardwareDeviceType[info["type"]]
        self.vendor_id = info["vendor_id"]
        self.device_id = info["device_id"]
        self.vendor = info["vendor"]
        self.metadata = dict(info["metadata"])

    def __repr__(self):
        return (f"OrtHardwareDevice(type={self.type.name}, vendor={self.vendor!r}, "
                f"vendor_id={self.vendor_id:#x}, device_id={self.device_id:#x})")


class OrtEpDevice:
    """An EP on a hardware device (ONNX Runtime's OrtEpDevice), from get_ep_devices()."""

    def __init__(self, info, library):
        self.ep_name = info["ep_name"]
        self.ep_vendor = info["ep_vendor"]
        self.ep_metadata = dict(info["ep_metadata"])
        self.ep_options = dict(info["ep_options"])
        self.device = OrtHardwareDevice(info["device"])
        self._library = library  # None for nxrt's CPU EP

    def __repr__(self):
        return f"OrtEpDevice(ep_name={self.ep_name!r}, ep_vendor={self.ep_vendor!r}, device={self.device!r})"


_libraries = {}  # registration name → nxrt._nxrt._PluginLibrary
_libraries_lock = threading.Lock()


def register_execution_provider_library(registration_name, library_path):
    """Loads an ONNX Runtime plugin-EP library and adds its devices to get_ep_devices()."""
    with _libraries_lock:
        if registration_name in _libraries:
            raise Fail(f"a library is already registered under '{registration_name}'; "
                       "unregister it first or pick another name")
        _libraries[registration_name] = _nxrt._load_plugin_library(os.fspath(library_path),
                                                                   registration_name)


def unregister_execution_provider_library(registration_name):
    """Removes a library's devices from get_ep_devices(); sessions using it keep it loaded."""
    with _libraries_lock:
        if registration_name not in _libraries:
            raise Fail(f"no library is registered under '{registration_name}'")
        del _libraries[registration_name]


# The default logger (onnxruntime's set_default_logger_severity / _verbosity): what a session
# whose log_severity_level is -1 logs.
_default_log = {"severity": 2, "verbosity": 0}
_SEVERITY_LETTERS = "VIWEF"


def _check_severity(what, level, lowest):
    if isinstance(level, bool) or not isinstance(level, int) or not lowest <= level <= 4:
        allowed = "-1 (the default logger's), " if lowest < 0 else ""
        raise InvalidArgument(f"{what} is {level!r}; allowed: {allowed}0 (verbose), 1 (info), "
                              "2 (warning), 3 (error), 4 (fatal)")
    return level


def set_default_logger_severity(severity):
    """The severity below which the default logger drops lines (0 verbose, 1 info, 2 warning,
    the default, 3 error, 4 fatal): sessions whose log_severity_level is -1 use it."""
    _default_log["severity"] = _check_severity("severity", severity, 0)


def set_default_logger_verbosity(verbosity):
    """The default logger's verbosity: at 1 and above, verbose placement lines list every node."""
    if isinstance(verbosity, bool) or not isinstance(verbosity, int) or verbosity < 0:
        raise InvalidArgument(f"verbosity is {verbosity!r}; give an int >= 0")
    _default_log["verbosity"] = verbosity


def _log(severity, threshold, logid, message):
    """One line to stderr in ONNX Runtime's form when `severity` reaches `threshold`."""
    if severity < threshold:
        return
    stamp = datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S.%f")
    sys.stderr.write(f"{stamp} [{_SEVERITY_LETTERS[severity]}:onnxruntime:{logid}, nxrt] "
                     f"{message}\n")


def get_ep_devices():
    """nxrt's CPU EP device first, then each registered library's devices in registration
    order."""
    devices = [OrtEpDevice(_nxrt._cpu_ep_device(), None)]
    with _libraries_lock:
        for library in _libraries.values():
            devices.extend(OrtEpDevice(d, library) for d in library.devices())
    return devices


def get_available_providers():
    """The EPs a `providers` list may name: nxrt's CPU EP. Plugin EPs are named as
    "plugin:/path/lib.so" or by the ep_name of a registered library's device."""
    return [CPU_PROVIDER]


def get_all_providers():
    return [CPU_PROVIDER]


def get_device():
    return "CPU"


def get_version_string():
    return _nxrt.version_info()["nxrt"]


def _ep_spec(name, options):
    """(EpSpec type, config) for a providers entry, or None for a name nxrt does not have."""
    options = {str(k): str(v) for k, v in (options or {}).items()}
    if name == CPU_PROVIDER:
        return ("cpu", options)
    if name.startswith("plugin:"):
        return (name, options)
    with _libraries_lock:
        for library in _libraries.values():
            if any(d["ep_name"] == name for d in library.devices()):
                kind, config = library.spec(name)
                return (kind, {**config, **options})
    return None


class SessionOptions:
    """ONNX Runtime's SessionOptions. Used by nxrt: intra_op_num_threads (0: one per core),
    graph_optimization_level, enable_profiling, profile_file_prefix, optimized_model_filepath,
    free dimension overrides, EP devices, the config entries "ep.<ep_name>.<key>" (options of
    that plugin EP) and "session.disable_cpu_ep_fallback" ("1": a node no listed EP claims, or
    a plugin EP that fails, fails the session instead of falling back to the CPU EP), and the
    log settings: log_severity_level (-1, the default: the default logger's severity; 0..4),
    log_verbosity_level and logid, for the lines the session writes to stderr when it is made
    (warnings: plugin EPs dropped under fallback; verbose: the node placement). Kept without
    effect: inter_op_num_threads, execution_mode, enable_cpu_mem_arena, enable_mem_pattern,
    enable_mem_reuse, use_deterministic_compute and other config entries."""

    def __init__(self):
        self.intra_op_num_threads = 0
        self.inter_op_num_threads = 0
        self.graph_optimization_level = GraphOptimizationLevel.ORT_ENABLE_ALL
        self.execution_mode = ExecutionMode.ORT_SEQUENTIAL
        self.enable_profiling = False
        self.profile_file_prefix = "onnxruntime_profile_"
        self.optimized_model_filepath = ""
        self.log_severity_level = -1
        self.log_verbosity_level = 0
        self.logid = ""
        self.enable_cpu_mem_arena = True
        self.enable_mem_pattern = True
        self.enable_mem_reuse = True
        self.use_deterministic_compute = False
        self._config = {}
        self._free_dims = []
        self._device_providers = []  # (EpSpec type, config, ORT name)

    def add_session_config_entry(self, key, value):
        self._config[str(key)] = str(value)

    def get_session_config_entry(self, key):
        if key not in self._config:
            raise InvalidArgument(f"session config entry '{key}' is not set")
        return self._config[key]

    def add_free_dimension_override_by_name(self, dim_name, dim_value):
        if not dim_name or int(dim_value) < 0:
            raise InvalidArgument(f"free dimension override '{dim_name}' = {dim_value}: give a "
                                  "non-empty dim name and a size >= 0")
        self._free_dims.append((str(dim_name), int(dim_value)))

    def add_provider_for_devices(self, ep_devices, provider_options=None):
        """Appends the EP of `ep_devices` (OrtEpDevice objects of one EP from get_ep_devices)
        with its options."""
        if not ep_devices:
            raise InvalidArgument("no OrtEpDevice given; pass one or more devices from get_ep_devices()")
        first = ep_devices[0]
        for i, device in enumerate(ep_devices):
            if not isinstance(device, OrtEpDevice):
                raise InvalidArgument(f"ep_devices[{i}] is a {type(device).__name__}, not an "
                                      "OrtEpDevice from get_ep_devices()")
            if device.ep_name != first.ep_name or device._library is not first._library:
                raise InvalidArgument(f"ep_devices[{i}] belongs to EP '{device.ep_name}', "
                                      f"ep_devices[0] to '{first.ep_name}'; add one EP per call")
        options = {str(k): str(v) for k, v in (provider_options or {}).items()}
        if first._library is None:
            self._device_providers.append(("cpu", options, CPU_PROVIDER))
        else:
            kind, config = first._library.spec(first.ep_name)
            self._device_providers.append((kind, {**config, **options}, first.ep_name))


class RunOptions:
    """ONNX Runtime's RunOptions: `terminate` stops the runs using this object before their
    next step (they raise RuntimeException) while it is True. Kept without effect:
    log_severity_level, log_verbosity_level, logid, only_execute_path_to_fetches, run config
    entries."""

    def __init__(self):
        self._flag = _nxrt._TerminateFlag()
        self.log_severity_level = 2
        self.log_verbosity_level = 0
        self.logid = ""
        self.only_execute_path_to_fetches = False
        self._config = {}

    @property
    def terminate(self):
        return self._flag.value

    @terminate.setter
    def terminate(self, value):
        self._flag.value = bool(value)

    def add_run_config_entry(self, key, value):
        self._config[str(key)] = str(value)

    def get_run_config_entry(self, key):
        if key not in self._config:
            raise InvalidArgument(f"run config entry '{key}' is not set")
        return self._config[key]


class NodeArg:
    """An input or output of the model: name, type ("tensor(float)") and shape (ints, str for
    symbolic dims, None for unknown ones)."""

    def __init__(self, name, type, shape):
        self.name = name
        self.type = type
        self.shape = shape

    def __repr__(self):
        return f"NodeArg(name='{self.name}', type='{self.type}', shape={self.shape})"

    __str__ = __repr__


class ModelMetadata:
    def __init__(self, m):
        self.producer_name = m["producer_name"]
        self.graph_name = m["graph_name"]
        self.domain = m["domain"]
        self.description = m["description"]
        self.graph_description = m["graph_description"]
        self.version = m["version"]
        self.custom_metadata_map = dict(m["custom_metadata_map"])


class OrtValue:
    """A CPU tensor, sequence or None as ONNX Runtime's OrtValue (nxrt keeps a numpy array or
    a list of them, and the ONNX element type when numpy has none for it)."""

    def __init__(self, value, onnx_element_type=None):
        self._value = value
        self._onnx_type = onnx_element_type

    @staticmethod
    def ortvalue_from_numpy_with_onnx_type(data, onnx_element_type):
        """`data` taken as a tensor of ONNX element type `onnx_element_type` (a TensorProto
        DataType number), for the types numpy has not: bfloat16 (16) from uint16 bits, the
        float8 types (17-20) from uint8 bits, int4/uint4 (22, 21) from an integer array of one
        element per item; any other type from the numpy dtype ONNX Runtime gives it."""
        data = numpy.asarray(data)
        want = _ONNX_TYPE_NUMPY.get(int(onnx_element_type))
        if want is None:
            raise InvalidArgument(f"onnx_element_type {onnx_element_type} is not a tensor type "
                                  "nxrt has; give a TensorProto.DataType number from 1 to 22")
        fits = (data.dtype.kind in "iu" if want == "int" else
                data.dtype.kind in "OUS" if want == "object" else data.dtype == numpy.dtype(want))
        if not fits:
            wanted = "an integer" if want == "int" else f"a {want}"
            raise InvalidArgument(f"onnx_element_type {onnx_element_type} takes {wanted} array, "
                                  f"the array is {data.dtype}; convert it with .astype()")
        return OrtValue(data, int(onnx_element_type))

    @staticmethod
    def ortvalue_from_numpy(numpy_obj, device_type="cpu", device_id=0):
        _check_cpu(device_type)
        return OrtValue(numpy.asarray(numpy_obj))

    @staticmethod
    def ortvalue_from_shape_and_type(shape, element_type, device_type="cpu", device_id=0):
        _check_cpu(device_type)
        return OrtValue(numpy.zeros(shape, dtype=element_type))

    def numpy(self):
        return self._value

    def is_tensor(self):
        return isinstance(self._value, numpy.ndarray)

    def has_value(self):
        return self._value is not None

    def shape(self):
        return list(self._value.shape)

    def data_type(self):
        if self._onnx_type is not None:
            return f"tensor({_ONNX_TYPE_NAMES[self._onnx_type]})"
        return f"tensor({_onnx_type_name(self._value.dtype)})"

    def element_type(self):
        return self._value.dtype.type

    def device_name(self):
        return "cpu"

    def data_ptr(self):
        return self._value.ctypes.data


def _check_cpu(device_type):
    if str(device_type).lower() != "cpu":
        raise InvalidArgument(f"device type '{device_type}': nxrt's Python module binds CPU "
                              "memory only; pass 'cpu'")


_ONNX_NAMES = {"float32": "float", "float64": "double", "float16": "float16", "bool": "bool",
               "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64",
               "uint8": "uint8", "uint16": "uint16", "uint32": "uint32", "uint64": "uint64",
               "complex64": "complex64", "complex128": "complex128", "object": "string"}


# ONNX element type → the numpy dtype that holds it ("int": any integer dtype, one element an
# item), and its ONNX name.
_ONNX_TYPE_NUMPY = {1: "float32", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32",
                    7: "int64", 8: "object", 9: "bool", 10: "float16", 11: "float64",
                    12: "uint32", 13: "uint64", 14: "complex64", 15: "complex128",
                    16: "uint16", 17: "uint8", 18: "uint8", 19: "uint8", 20: "uint8",
                    21: "int", 22: "int"}
_ONNX_TYPE_NAMES = {1: "float", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32",
                    7: "int64", 8: "string", 9: "bool", 10: "float16", 11: "double",
                    12: "uint32", 13: "uint64", 14: "complex64", 15: "complex128",
                    16: "bfloat16", 17: "float8e4m3fn", 18: "float8e4m3fnuz", 19: "float8e5m2",
                    20: "float8e5m2fnuz", 21: "uint4", 22: "int4"}


# "tensor(float8e4m3fn)" → 17, for the types numpy gives in another dtype.
_ONNX_TYPE_BY_NAME = {f"tensor({_ONNX_TYPE_NAMES[t]})": t for t in (16, 17, 18, 19, 20, 21, 22)}


def _feed(name, value):
    """(name, value) for the native run, or (name, array, ONNX element type) for an OrtValue
    made with one."""
    if isinstance(value, OrtValue):
        if value._onnx_type is not None:
            return (name, value._value, value._onnx_type)
        return (name, value._value)
    return (name, value)


def _onnx_type_name(dtype):
    dtype = numpy.dtype(dtype)
    if dtype.kind in "OUS":
        return "string"
    return _ONNX_NAMES.get(dtype.name, dtype.name)


class IOBinding:
    """ONNX Runtime's IOBinding for CPU memory: inputs bound by array, OrtValue or pointer;
    outputs gathered after run_with_iobinding (copied into a bound buffer when one was given)."""

    def __init__(self, session):
        self._session = session
        self._inputs = {}
        self._outputs = {}  # name → OrtValue to fill, or None
        self._results = []

    def bind_cpu_input(self, name, arr_on_cpu):
        self._inputs[name] = numpy.asarray(arr_on_cpu)

    def bind_input(self, name, device_type, device_id, element_type, shape, buffer_ptr):
        _check_cpu(device_type)
        self._inputs[name] = _array_at(buffer_ptr, element_type, shape)

    def bind_ortvalue_input(self, name, ortvalue):
        self._inputs[name] = ortvalue

    def bind_output(self, name, device_type="cpu", device_id=0, element_type=None, shape=None,
                    buffer_ptr=None):
        _check_cpu(device_type)
        self._outputs[name] = (None if buffer_ptr is None
                               else OrtValue(_array_at(buffer_ptr, element_type, shape)))

    def bind_ortvalue_output(self, name, ortvalue):
        self._outputs[name] = ortvalue

    def clear_binding_inputs(self):
        self._inputs = {}

    def clear_binding_outputs(self):
        self._outputs = {}
        self._results = []

    def synchronize_inputs(self):
        pass

    def synchronize_outputs(self):
        pass

    def get_outputs(self):
        return list(self._results)

    def copy_outputs_to_cpu(self):
        return [v.numpy() for v in self._results]

    def _run(self, run_options):
        names = list(self._outputs)
        values = self._session.run(names, self._inputs, run_options)
        results = []
        for name, value in zip(names, values):
            target = self._outputs[name]
            if target is None:
                results.append(OrtValue(value))
                continue
            if target._value.shape != value.shape or target._value.dtype != value.dtype:
                raise InvalidArgument(f"output '{name}' is {value.dtype}{list(value.shape)} but the "
                                      f"bound buffer is {target._value.dtype}{list(target._value.shape)}")
            target._value[...] = value
            results.append(target)
        self._results = results


def _array_at(buffer_ptr, element_type, shape):
    import ctypes
    dtype = numpy.dtype(element_type)
    count = int(numpy.prod(shape, dtype=numpy.int64))
    raw = (ctypes.c_char * (count * dtype.itemsize)).from_address(int(buffer_ptr))
    return numpy.frombuffer(raw, dtype=dtype).reshape(shape)


class InferenceSession:
    """ONNX Runtime's InferenceSession on nxrt.

    providers: names ("CPUExecutionProvider", an ep_name of a registered plugin library,
    "plugin:/path/lib.so[:registration_name]") or (name, options dict) pairs, in priority order;
    names nxrt does not have are skipped with a warning, as ONNX Runtime does. The CPU EP takes
    the nodes no listed EP claims. disabled_optimizers: names of nxrt's graph passes not to run
    (docs/optimizer.md; an unknown name fails, listing the known ones)."""

    def __init__(self, path_or_bytes, sess_options=None, providers=None, provider_options=None,
                 disabled_optimizers=None):
        self._sess_options = sess_options if sess_options is not None else SessionOptions()
        options = self._sess_options
        entries = _provider_entries(providers, provider_options)
        specs = [(kind, dict(config), name) for kind, config, name in options._device_providers]
        for name, opts in entries:
            spec = _ep_spec(name, opts)
            if spec is None:
                warnings.warn(f"Specified provider '{name}' is not in available provider names."
                              f"Available providers: '{', '.join(get_available_providers())}'")
                continue
            specs.append((spec[0], spec[1], name))
        for key, value in options._config.items():
            parts = key.split(".", 2)
            if len(parts) == 3 and parts[0] == "ep":
                for kind, config, name in specs:
                    if kind != "cpu" and config.get("ep_name", name) == parts[1]:
                        config[parts[2]] = value
        severity = _check_severity("SessionOptions.log_severity_level",
                                   options.log_severity_level, -1)
        if severity < 0:
            severity, verbosity = _default_log["severity"], _default_log["verbosity"]
        else:
            verbosity = int(options.log_verbosity_level)
        config = _nxrt._SessionConfig()
        config.providers = [(kind, cfg) for kind, cfg, _ in specs]
        config.intra_op_threads = int(options.intra_op_num_threads)
        level = int(options.graph_optimization_level)
        if level not in _NXRT_LEVEL:
            raise InvalidArgument(f"graph_optimization_level {level} is not a GraphOptimizationLevel")
        config.optimization_level = _NXRT_LEVEL[level]
        config.enable_profiling = bool(options.enable_profiling)
        config.allow_fallback = options._config.get("session.disable_cpu_ep_fallback", "0") != "1"
        config.optimized_model_path = os.fspath(options.optimized_model_filepath or "")
        config.free_dimension_overrides = list(options._free_dims)
        config.disabled_optimizers = [str(n) for n in (disabled_optimizers or [])]
        model = path_or_bytes
        if not isinstance(model, (bytes, bytearray)):
            model = os.fspath(model)
        self._model_path = model if isinstance(model, str) else ""
        self._session = _nxrt._Session(model, config)
        # ONNX Runtime's names for the EPs the session placed, with the options each was given.
        self._providers = []
        self._provider_options = {}
        unused = list(specs)
        for ep in self._session.eps():
            name = CPU_PROVIDER if ep == "cpu" else ep
            for spec in unused:
                kind, cfg, _ = spec
                if (kind == "cpu") == (ep == "cpu") and cfg.get("ep_name", ep) == ep:
                    unused.remove(spec)
                    self._provider_options[name] = {k: v for k, v in cfg.items() if k != "ep_name"}
                    break
            self._providers.append(name)
            self._provider_options.setdefault(name, {})
        self._inputs = [NodeArg(*a) for a in self._session.inputs()]
        self._outputs = [NodeArg(*a) for a in self._session.outputs()]
        self._overridable = [NodeArg(*a) for a in self._session.overridable_initializers()]
        for warning in self._session.warnings():
            _log(2, severity, options.logid, warning)
        if severity == 0:
            self._log_placement(verbosity, options.logid)

    def _log_placement(self, verbosity, logid):
        """ONNX Runtime's verbose "Node placements" lines for the main graph: the node count per
        EP, and with verbosity >= 1 each node as "op_type (name)"."""
        graph = self.placement()["graphs"][0]
        placed = {}
        for claim in graph["claims"]:
            placed.setdefault(claim["ep"], []).extend(claim["nodes"])
        for entry in graph["runtime_nodes"]:
            placed.setdefault(entry["ep"], []).append(entry["node"])
        lines = ["Node placements"]
        for ep, nodes in placed.items():
            head = "All nodes placed on" if len(placed) == 1 else "Node(s) placed on"
            name = CPU_PROVIDER if ep == "cpu" else ep
            lines.append(f" {head} [{name}]. Number of nodes: {len(nodes)}")
            if verbosity >= 1:
                lines.extend(f"  {n['op_type']} ({n['name']})" for n in nodes)
        for line in lines:
            _log(0, 0, logid, line)

    def get_inputs(self):
        return list(self._inputs)

    def get_outputs(self):
        return list(self._outputs)

    def get_overridable_initializers(self):
        return list(self._overridable)

    def get_modelmeta(self):
        return ModelMetadata(self._session.metadata())

    def get_providers(self):
        """The EPs the session runs with, in priority order: "CPUExecutionProvider" for nxrt's
        CPU EP, a plugin EP by its ep_name; a plugin EP dropped under fallback is not listed."""
        return list(self._providers)

    def get_provider_options(self):
        return {k: dict(v) for k, v in self._provider_options.items()}

    def get_session_options(self):
        return self._sess_options

    def run(self, output_names, input_feed, run_options=None):
        """The outputs named (None or []: all, in model order) as numpy arrays (lists for
        sequences, dicts for maps, lists of dicts for sequences of maps, None for an empty
        optional)."""
        if not isinstance(input_feed, dict):
            raise InvalidArgument(f"input_feed is a {type(input_feed).__name__}; pass a dict of "
                                  "input name → numpy array")
        feeds = [_feed(name, v) for name, v in input_feed.items()]
        names = list(output_names) if output_names else []
        flag = run_options._flag if run_options is not None else None
        return self._session.run(names, feeds, flag)

    def run_with_ort_values(self, output_names, input_dict_ort_values, run_options=None):
        names = list(output_names) if output_names else [o.name for o in self._outputs]
        types = {o.name: o.type for o in self._outputs}
        return [OrtValue(v, _ONNX_TYPE_BY_NAME.get(types.get(n, "")))
                for n, v in zip(names, self.run(names, input_dict_ort_values, run_options))]

    def io_binding(self):
        return IOBinding(self)

    def run_with_iobinding(self, iobinding, run_options=None):
        iobinding._run(run_options)

    def end_profiling(self):
        """Writes the spans recorded so far as a Chrome trace to
        <profile_file_prefix>_<date>_<time>.json in the working directory and returns its name;
        "" when profiling is off."""
        if not self._sess_options.enable_profiling:
            return ""
        trace = self._session.end_profiling()
        stamp = datetime.datetime.now().strftime("%Y-%m-%d_%H-%M-%S")
        path = f"{self._sess_options.profile_file_prefix}_{stamp}.json"
        with open(path, "w", encoding="utf-8") as f:
            f.write(trace)
        return path

    def placement(self):
        """nxrt only: the placement the session runs, as `nxrt claims --json` prints it (the
        schema of docs/partitioning.md): per graph each EP's claims, the nodes the runtime
        runs, and every EP's reason for each node it declined."""
        return json.loads(self._session.placement_json())

    def warnings(self):
        """nxrt only: plugin EPs dropped without failing the session, with the reason."""
        return self._session.warnings()

    def close(self):
        """nxrt only: frees the session now; later calls raise Fail."""
        self._session.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _provider_entries(providers, provider_options):
    if providers is None:
        return [(CPU_PROVIDER, {})]
    if provider_options is not None and len(provider_options) != len(providers):
        raise ValueError("'providers' and 'provider_options' should be the same length if both are given.")
    entries = []
    for i, entry in enumerate(providers):
        if isinstance(entry, tuple):
            if len(entry) != 2 or not isinstance(entry[0], str) or not isinstance(entry[1], dict):
                raise ValueError("Only string or (string, dict) tuples can be given as providers; "
                                 f"providers[{i}] is {entry!r}")
            name, opts = entry
        elif isinstance(entry, str):
            name, opts = entry, {}
        else:
            raise ValueError(f"providers[{i}] is a {type(entry).__name__}; give a name or a "
                             "(name, options) tuple")
        if provider_options is not None:
            opts = {**opts, **provider_options[i]}
        entries.append((name, opts))
    return entries
