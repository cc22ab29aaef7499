// python/nxrt_module.cpp: `nxrt._nxrt`, the native half of the Python module (docs/python.md).
//
// Layer: a pybind11 extension over libnxrt.so's public C++ API only (include/nxrt). It converts
// values between numpy and nxrt (tensors, sequences as lists, maps as dicts, sequences of maps
// as lists of dicts, empty optionals as None), runs
// sessions with the GIL released, turns Status codes into the exception classes of
// nxrt.capi.onnxruntime_pybind11_state (ORT's names), and lists plugin-EP devices. The
// onnxruntime-shaped classes (InferenceSession, SessionOptions, ...) are Python, in nxrt/.
//
// Ctrl-C: Python runs signal handlers in the main thread only, between bytecodes. A run called
// from the main thread therefore runs on a helper thread while the main thread waits with the
// GIL released and calls PyErr_CheckSignals every 20 ms; when a handler raises
// (KeyboardInterrupt), the run's terminate flag (nxrt::RunOptions::terminate) stops it before
// its next step, the helper is joined and the exception propagates. Runs from other threads
// run in place (no signal can reach them) and stop on the caller's terminate flag alone.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <chrono>
#include <cstring>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "nxrt/data_type.h"
#include "nxrt/ep_devices.h"
#include "nxrt/placement.h"
#include "nxrt/session.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"
#include "nxrt/value.h"
#include "nxrt/version.h"

namespace py = pybind11;

namespace {

// The exception class of each StatusCode, set by nxrt/capi/onnxruntime_pybind11_state.py
// through _set_exception_classes at import.
std::map<int, py::object>& ExceptionClasses() {
  static auto* classes = new std::map<int, py::object>();  // never destroyed: outlives finalizing
  return *classes;
}

[[noreturn]] void Raise(const nxrt::Status& status) {
  auto& classes = ExceptionClasses();
  auto it = classes.find(static_cast<int>(status.code()));
  PyObject* type = it != classes.end() ? it->second.ptr() : PyExc_RuntimeError;
  PyErr_SetString(type, status.message().c_str());
  throw py::error_already_set();
}

template <typename T>
T Check(nxrt::Result<T> result) {
  if (!result.ok()) Raise(result.status());
  return std::move(result).value();
}

[[noreturn]] void InvalidArgument(const std::string& message) {
  Raise(nxrt::Status(nxrt::StatusCode::kInvalidArgument, message));
}

// numpy dtype → nxrt type; nullopt for a dtype with no ONNX tensor type.
std::optional<nxrt::DataType> FromNumpy(const py::dtype& dtype) {
  using nxrt::DataType;
  const char kind = dtype.kind();
  const size_t size = static_cast<size_t>(dtype.itemsize());
  switch (kind) {
    case 'f':
      if (size == 2) return DataType::kFloat16;
      if (size == 4) return DataType::kFloat;
      if (size == 8) return DataType::kDouble;
      break;
    case 'i':
      if (size == 1) return DataType::kInt8;
      if (size == 2) return DataType::kInt16;
      if (size == 4) return DataType::kInt32;
      if (size == 8) return DataType::kInt64;
      break;
    case 'u':
      if (size == 1) return DataType::kUint8;
      if (size == 2) return DataType::kUint16;
      if (size == 4) return DataType::kUint32;
      if (size == 8) return DataType::kUint64;
      break;
    case 'b': return DataType::kBool;
    case 'c':
      if (size == 8) return DataType::kComplex64;
      if (size == 16) return DataType::kComplex128;
      break;
    case 'O':
    case 'U':
    case 'S': return DataType::kString;
    case 'V':  // ml_dtypes.bfloat16 registers as a 2-byte void type named "bfloat16"
      if (size == 2 && py::str(dtype.attr("name")).cast<std::string>() == "bfloat16") {
        return DataType::kBFloat16;
      }
      break;
    default: break;
  }
  return std::nullopt;
}

// nxrt type → numpy dtype: bfloat16 as uint16 and the float8 types as uint8, holding the bits
// (numpy has no such types; ONNX Runtime's Python gives them as the unsigned integer of their
// size), int4/uint4 unpacked to int8/uint8 (one element a byte, as onnx.numpy_helper.to_array
// gives them), strings as object.
py::dtype ToNumpy(nxrt::DataType type) {
  using nxrt::DataType;
  switch (type) {
    case DataType::kFloat: return py::dtype("float32");
    case DataType::kUint8: return py::dtype("uint8");
    case DataType::kInt8: return py::dtype("int8");
    case DataType::kUint16: return py::dtype("uint16");
    case DataType::kInt16: return py::dtype("int16");
    case DataType::kInt32: return py::dtype("int32");
    case DataType::kInt64: return py::dtype("int64");
    case DataType::kString: return py::dtype("object");
    case DataType::kBool: return py::dtype("bool");
    case DataType::kFloat16: return py::dtype("float16");
    case DataType::kDouble: return py::dtype("float64");
    case DataType::kUint32: return py::dtype("uint32");
    case DataType::kUint64: return py::dtype("uint64");
    case DataType::kComplex64: return py::dtype("complex64");
    case DataType::kComplex128: return py::dtype("complex128");
    case DataType::kBFloat16: return py::dtype("uint16");
    case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ:
    case DataType::kUint4: return py::dtype("uint8");
    case DataType::kInt4: return py::dtype("int8");
    case DataType::kUndefined: break;
  }
  return py::dtype("object");
}

// "tensor(float)", "seq(tensor(int64))", "optional(tensor(float))", "map(string,tensor(float))",
// "seq(map(int64,tensor(float)))": ONNX's type strings as ONNX Runtime's NodeArg.type gives them.
std::string TypeString(const nxrt::ValueInfo& info) {
  const std::string elem = info.dtype == nxrt::DataType::kUndefined
                               ? std::string("undefined")
                               : std::string(nxrt::DataTypeName(info.dtype));
  if (info.map_key != nxrt::DataType::kUndefined) {
    const std::string map =
        "map(" + std::string(nxrt::DataTypeName(info.map_key)) + ",tensor(" + elem + "))";
    return info.kind == nxrt::ValueKind::kMap ? map : "seq(" + map + ")";
  }
  switch (info.kind) {
    case nxrt::ValueKind::kTensor: return "tensor(" + elem + ")";
    case nxrt::ValueKind::kSparseTensor: return "sparse_tensor(" + elem + ")";
    case nxrt::ValueKind::kSequence: return "seq(tensor(" + elem + "))";
    case nxrt::ValueKind::kOptional: return "optional(tensor(" + elem + "))";
    case nxrt::ValueKind::kMap: return "map(tensor(" + elem + "))";
    case nxrt::ValueKind::kUnknown:
    case nxrt::ValueKind::kAbsent: break;
  }
  return "";
}

// NodeArg.shape as ONNX Runtime gives it: ints, str for symbolic dims, None for unknown ones;
// [] for a scalar, an unknown rank and a value that is not a tensor.
py::list ShapeList(const nxrt::ValueInfo& info) {
  py::list out;
  if (info.kind != nxrt::ValueKind::kTensor || !info.shape) return out;
  for (const nxrt::DimInfo& dim : *info.shape) {
    switch (dim.kind) {
      case nxrt::DimInfo::Kind::kFixed: out.append(py::int_(dim.value)); break;
      case nxrt::DimInfo::Kind::kSymbolic: out.append(py::str(dim.symbol)); break;
      case nxrt::DimInfo::Kind::kUnknown: out.append(py::none()); break;
    }
  }
  return out;
}

py::list NodeArgs(const std::vector<nxrt::ValueInfo>& values) {
  py::list out;
  for (const nxrt::ValueInfo& v : values) out.append(py::make_tuple(v.name, TypeString(v), ShapeList(v)));
  return out;
}

std::string PythonTypeName(const py::handle& obj) {
  return py::str(py::type::handle_of(obj).attr("__name__")).cast<std::string>();
}

// An int4/uint4 tensor packed from `arr`, an integer array of one element per item (as
// ToNumpyArray gives them back). Errors: kInvalidArgument naming the input, the element and its
// value when it is outside -8..7 (int4) or 0..15 (uint4).
nxrt::Tensor PackFourBit(const std::string& name, const py::array& arr, nxrt::DataType type,
                         const nxrt::Shape& shape) {
  const int64_t lo = type == nxrt::DataType::kInt4 ? -8 : 0;
  const int64_t hi = type == nxrt::DataType::kInt4 ? 7 : 15;
  py::array_t<int64_t, py::array::c_style | py::array::forcecast> wide(arr);
  nxrt::Tensor t = Check(nxrt::Tensor::Allocate(type, shape));
  auto* out = static_cast<uint8_t*>(t.mutable_raw_data());
  std::memset(out, 0, t.byte_size());
  const int64_t* in = wide.data();
  for (py::ssize_t i = 0; i < wide.size(); ++i) {
    if (in[i] < lo || in[i] > hi) {
      InvalidArgument("input '" + name + "' is " + std::string(nxrt::DataTypeName(type)) +
                      ": element " + std::to_string(i) + " is " + std::to_string(in[i]) +
                      ", outside " + std::to_string(lo) + ".." + std::to_string(hi) +
                      "; give values in that range, one element per array item");
    }
    out[i / 2] |= static_cast<uint8_t>((in[i] & 0xF) << (4 * (i % 2)));
  }
  return t;
}

// A numpy array as an nxrt tensor. Numeric arrays that are C-contiguous and in native byte
// order are borrowed (the caller keeps `keep` alive for the run); others are converted first.
// `declared` is the input's declared element type (kUndefined when unknown), or the element
// type an OrtValue was made with (OrtValue.ortvalue_from_numpy_with_onnx_type): a uint16 array
// fed as bfloat16, or a uint8 array fed as a float8 type, is taken as its bits, as ONNX Runtime
// returns them; an integer array fed as int4/uint4 holds one element per item and is packed.
nxrt::Tensor ToTensor(const std::string& name, const py::handle& obj, nxrt::DataType declared,
                      std::vector<py::object>& keep) {
  py::array arr = py::array::ensure(obj);
  if (!arr) {
    PyErr_Clear();
    InvalidArgument("input '" + name + "': a " + PythonTypeName(obj) +
                    " is not an array; pass a numpy array (or a list for a sequence input)");
  }
  std::optional<nxrt::DataType> type = FromNumpy(arr.dtype());
  if (!type) {
    InvalidArgument("input '" + name + "': numpy dtype " + py::str(arr.dtype()).cast<std::string>() +
                    " has no ONNX tensor type; convert it (e.g. .astype(numpy.float32))");
  }
  if ((*type == nxrt::DataType::kUint16 && declared == nxrt::DataType::kBFloat16) ||
      (*type == nxrt::DataType::kUint8 && nxrt::IsFloat8(declared))) {
    type = declared;
  }
  nxrt::Shape shape(arr.shape(), arr.shape() + arr.ndim());
  if (nxrt::IsPacked4Bit(declared) && (arr.dtype().kind() == 'i' || arr.dtype().kind() == 'u')) {
    return PackFourBit(name, arr, declared, shape);
  }
  if (*type == nxrt::DataType::kString) {
    nxrt::Tensor t = Check(nxrt::Tensor::Allocate(nxrt::DataType::kString, shape));
    py::list items = arr.attr("ravel")().attr("tolist")();
    std::string* out = t.mutable_data<std::string>();
    for (size_t i = 0; i < items.size(); ++i) {
      py::handle item = items[i];
      if (py::isinstance<py::str>(item) || py::isinstance<py::bytes>(item)) {
        out[i] = item.cast<std::string>();
      } else {
        InvalidArgument("input '" + name + "': element " + std::to_string(i) + " is a " +
                        PythonTypeName(item) + "; a string tensor holds str or bytes");
      }
    }
    return t;
  }
  if (arr.dtype().byteorder() == '>' || (arr.dtype().byteorder() == '<' && !PY_LITTLE_ENDIAN)) {
    arr = arr.attr("astype")(arr.dtype().attr("newbyteorder")("="));
  }
  if (!(arr.flags() & py::array::c_style)) arr = py::array::ensure(arr, py::array::c_style);
  keep.push_back(arr);
  nxrt::Tensor t = nxrt::Tensor::Borrow(*type, shape, const_cast<void*>(arr.data()));
  if (!t.defined()) InvalidArgument("input '" + name + "': shape " + nxrt::ShapeToString(shape) + " is too large");
  return t;
}

// The dtype of a Python map key or value when the model does not declare it: int → int64,
// float → float, str → string.
nxrt::DataType DictItemType(const std::string& name, const py::handle& item) {
  if (py::isinstance<py::str>(item)) return nxrt::DataType::kString;
  if (py::isinstance<py::int_>(item) && !py::isinstance<py::bool_>(item)) {
    return nxrt::DataType::kInt64;
  }
  if (py::isinstance<py::float_>(item)) return nxrt::DataType::kFloat;
  InvalidArgument("input '" + name + "': a dict holds a " + PythonTypeName(item) +
                  "; map keys are int or str and values int, float or str");
}

// A dict as a map of `key` → `value` dtypes (inferred from the first item when kUndefined).
nxrt::Value MapFromDict(const std::string& name, const py::handle& obj, nxrt::DataType key,
                        nxrt::DataType value) {
  if (!py::isinstance<py::dict>(obj)) {
    InvalidArgument("input '" + name + "': a map is given as a dict, not a " + PythonTypeName(obj));
  }
  py::dict dict = py::reinterpret_borrow<py::dict>(obj);
  const auto n = static_cast<int64_t>(dict.size());
  for (auto item : dict) {
    if (key == nxrt::DataType::kUndefined) key = DictItemType(name, item.first);
    if (value == nxrt::DataType::kUndefined) value = DictItemType(name, item.second);
    break;
  }
  if (key == nxrt::DataType::kUndefined) {
    InvalidArgument("input '" + name + "': an empty dict gives no key or value type");
  }
  nxrt::Tensor keys = Check(nxrt::Tensor::Allocate(key, {n}));
  nxrt::Tensor values = Check(nxrt::Tensor::Allocate(value, {n}));
  int64_t i = 0;
  for (auto item : dict) {
    const auto put = [&](nxrt::Tensor& t, const py::handle& from, const char* what) {
      try {
        switch (t.dtype()) {
          case nxrt::DataType::kInt64:
            if (py::isinstance<py::float_>(from)) throw py::cast_error();
            t.mutable_data<int64_t>()[i] = from.cast<int64_t>();
            break;
          case nxrt::DataType::kFloat: t.mutable_data<float>()[i] = from.cast<float>(); break;
          case nxrt::DataType::kDouble: t.mutable_data<double>()[i] = from.cast<double>(); break;
          case nxrt::DataType::kString:
            if (!py::isinstance<py::str>(from)) throw py::cast_error();
            t.mutable_data<std::string>()[i] = from.cast<std::string>();
            break;
          default: throw py::cast_error();
        }
      } catch (const py::cast_error&) {
        InvalidArgument("input '" + name + "': a map " + what + " is a " + PythonTypeName(from) +
                        " (" + py::repr(from).cast<std::string>() + "), the model declares " +
                        std::string(nxrt::DataTypeName(t.dtype())) + " " + what + "s");
      }
    };
    put(keys, item.first, "key");
    put(values, item.second, "value");
    ++i;
  }
  nxrt::Result<nxrt::Value> map = nxrt::Value::Map(keys, values);
  if (!map.ok()) Raise(map.status().WithContext("input '" + name + "'"));
  return *map;
}

nxrt::Value ToValue(const std::string& name, const py::handle& obj, const nxrt::ValueInfo* declared,
                    std::vector<py::object>& keep) {
  const nxrt::DataType dtype = declared ? declared->dtype : nxrt::DataType::kUndefined;
  if (obj.is_none()) return nxrt::Value::None();
  const nxrt::DataType map_key = declared ? declared->map_key : nxrt::DataType::kUndefined;
  if ((declared && declared->kind == nxrt::ValueKind::kMap) ||
      (!declared && py::isinstance<py::dict>(obj))) {
    return MapFromDict(name, obj, map_key, dtype);
  }
  if (map_key != nxrt::DataType::kUndefined) {  // seq(map(K, V)): a list of dicts
    if (!py::isinstance<py::list>(obj) && !py::isinstance<py::tuple>(obj)) {
      InvalidArgument("input '" + name +
                      "': a sequence of maps is given as a list of dicts, not a " +
                      PythonTypeName(obj));
    }
    py::sequence items = py::reinterpret_borrow<py::sequence>(obj);
    std::vector<nxrt::Value> maps;
    for (size_t i = 0; i < items.size(); ++i) {
      maps.push_back(MapFromDict(name + "[" + std::to_string(i) + "]", items[i], map_key, dtype));
    }
    nxrt::Result<nxrt::Value> seq = nxrt::Value::MapSequence(map_key, dtype, std::move(maps));
    if (!seq.ok()) Raise(seq.status().WithContext("input '" + name + "'"));
    return *seq;
  }
  if (py::isinstance<py::list>(obj) || py::isinstance<py::tuple>(obj)) {
    const bool sequence = declared && (declared->kind == nxrt::ValueKind::kSequence ||
                                       declared->kind == nxrt::ValueKind::kOptional);
    if (sequence || !declared) {
      py::sequence items = py::reinterpret_borrow<py::sequence>(obj);
      std::vector<nxrt::Tensor> tensors;
      for (size_t i = 0; i < items.size(); ++i) {
        tensors.push_back(ToTensor(name + "[" + std::to_string(i) + "]", items[i], dtype, keep));
      }
      nxrt::DataType elem = dtype;
      if (elem == nxrt::DataType::kUndefined && !tensors.empty()) elem = tensors[0].dtype();
      if (elem == nxrt::DataType::kUndefined) {
        InvalidArgument("input '" + name + "': an empty list gives no element type");
      }
      nxrt::Result<nxrt::Value> seq = nxrt::Value::Sequence(elem, std::move(tensors));
      if (!seq.ok()) Raise(seq.status().WithContext("input '" + name + "'"));
      return *seq;
    }
  }
  return nxrt::Value(ToTensor(name, obj, dtype, keep));
}

// The tensor as a numpy array sharing its buffer (strings are copied into str objects).
py::object ToNumpyArray(const nxrt::Tensor& tensor) {
  std::vector<py::ssize_t> shape(tensor.shape().begin(), tensor.shape().end());
  if (tensor.dtype() == nxrt::DataType::kString) {
    py::array out(py::dtype("object"), shape);
    py::list items;
    nxrt::Tensor t = tensor.is_contiguous() ? tensor : Check(tensor.Clone());
    for (const std::string& s : t.span<std::string>()) {
      PyObject* text = PyUnicode_DecodeUTF8(s.data(), static_cast<py::ssize_t>(s.size()), "strict");
      if (text == nullptr) {
        PyErr_Clear();
        items.append(py::bytes(s));
      } else {
        items.append(py::reinterpret_steal<py::object>(text));
      }
    }
    out.attr("reshape")(-1).attr("__setitem__")(py::slice(0, static_cast<py::ssize_t>(t.element_count()), 1), items);
    return out;
  }
  if (nxrt::IsPacked4Bit(tensor.dtype())) {  // one element a byte, sign-extended for int4
    nxrt::Tensor t = tensor.is_contiguous() ? tensor : Check(tensor.Clone());
    py::array out(ToNumpy(t.dtype()), shape);
    const auto* in = static_cast<const uint8_t*>(t.raw_data());
    auto* dst = static_cast<uint8_t*>(out.mutable_data());
    const bool is_signed = t.dtype() == nxrt::DataType::kInt4;
    for (int64_t i = 0; i < t.element_count(); ++i) {
      const uint8_t nibble = (in[i / 2] >> (4 * (i % 2))) & 0xF;
      dst[i] = is_signed && nibble >= 8 ? static_cast<uint8_t>(nibble | 0xF0) : nibble;
    }
    return out;
  }
  auto* holder = new nxrt::Tensor(tensor.is_contiguous() ? tensor : Check(tensor.Clone()));
  py::capsule owner(holder, [](void* p) { delete static_cast<nxrt::Tensor*>(p); });
  return py::array(ToNumpy(holder->dtype()), shape, holder->mutable_raw_data(), owner);
}

// A map as a dict in key order, as ONNX Runtime gives it: int or str keys; int, float or str
// values.
py::dict DictFromMap(const nxrt::Value& map) {
  const auto item = [](const nxrt::Tensor& t, int64_t i) -> py::object {
    switch (t.dtype()) {
      case nxrt::DataType::kInt64: return py::int_(t.data<int64_t>()[i]);
      case nxrt::DataType::kFloat: return py::float_(t.data<float>()[i]);
      case nxrt::DataType::kDouble: return py::float_(t.data<double>()[i]);
      default: return py::str(t.data<std::string>()[i]);
    }
  };
  py::dict out;
  for (int64_t i = 0; i < map.map_keys().element_count(); ++i) {
    out[item(map.map_keys(), i)] = item(map.map_values(), i);
  }
  return out;
}

py::object ToPython(const nxrt::Value& value) {
  if (value.is_none()) return py::none();
  if (value.is_map()) return DictFromMap(value);
  if (value.is_map_sequence()) {
    py::list out;
    for (const nxrt::Value& map : value.maps()) out.append(DictFromMap(map));
    return out;
  }
  if (value.is_sequence()) {
    py::list out;
    for (const nxrt::Tensor& t : value.sequence()) out.append(ToNumpyArray(t));
    return out;
  }
  return ToNumpyArray(value.tensor());
}

// A terminate flag a Python RunOptions holds (RunOptions.terminate).
struct TerminateFlag {
  std::atomic<bool> value{false};
};

struct SessionConfig {
  std::vector<std::tuple<std::string, std::map<std::string, std::string>>> providers;
  int intra_op_threads = 0;
  int optimization_level = 2;
  bool enable_profiling = false;
  bool allow_fallback = true;
  std::string optimized_model_path;
  std::vector<std::pair<std::string, int64_t>> free_dimension_overrides;
  std::vector<std::string> disabled_optimizers;
};

nxrt::SessionOptions MakeOptions(const SessionConfig& config) {
  nxrt::SessionOptions options;
  for (const auto& [type, entries] : config.providers) {
    nxrt::EpSpec spec;
    spec.type = type;
    for (const auto& [key, value] : entries) spec.config.Set(key, value);
    options.providers.push_back(std::move(spec));
  }
  options.intra_op_threads = config.intra_op_threads;
  options.optimization_level = config.optimization_level;
  options.enable_profiling = config.enable_profiling;
  options.allow_fallback = config.allow_fallback;
  options.optimized_model_path = config.optimized_model_path;
  options.free_dimension_overrides = config.free_dimension_overrides;
  options.disabled_optimizers = config.disabled_optimizers;
  return options;
}

// The Python main thread's identifier (threading.main_thread().ident), set at import.
unsigned long& MainThreadIdentSlot() {
  static unsigned long ident = 0;
  return ident;
}
unsigned long MainThreadIdent() { return MainThreadIdentSlot(); }

// One thread that runs the main thread's runs, so that the main thread can wait for signals.
// Only the main thread posts, one job at a time. Never destroyed (it may be waiting when the
// interpreter exits); a forked child makes its own.
class MainRunner {
 public:
  static MainRunner& Get() {
    static MainRunner* runner = nullptr;
    if (runner == nullptr || runner->pid_ != getpid()) runner = new MainRunner();
    return *runner;
  }
  void Post(std::function<void()> job) {
    std::lock_guard<std::mutex> lock(mutex_);
    job_ = std::move(job);
    ready_.notify_one();
  }

 private:
  MainRunner() : pid_(getpid()) { std::thread([this] { Loop(); }).detach(); }
  void Loop() {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        ready_.wait(lock, [&] { return job_ != nullptr; });
        job = std::move(job_);
        job_ = nullptr;
      }
      job();
    }
  }
  const pid_t pid_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::function<void()> job_;
};

class PySession {
 public:
  PySession(const py::object& model, const SessionConfig& config) {
    const nxrt::SessionOptions options = MakeOptions(config);
    nxrt::Result<std::unique_ptr<nxrt::Session>> made = nxrt::Status(nxrt::StatusCode::kInternal, "unset");
    if (py::isinstance<py::bytes>(model) || py::isinstance<py::bytearray>(model)) {
      std::string bytes = py::isinstance<py::bytes>(model) ? model.cast<std::string>()
                                                           : py::bytearray(model).cast<std::string>();
      py::gil_scoped_release release;
      made = nxrt::Session::CreateFromBytes(std::as_bytes(std::span(bytes.data(), bytes.size())),
                                            options);
    } else {
      const std::string path = py::str(model).cast<std::string>();
      py::gil_scoped_release release;
      made = nxrt::Session::Create(path, options);
    }
    session_ = std::shared_ptr<nxrt::Session>(Check(std::move(made)).release());
  }

  py::list inputs() const { return NodeArgs(Get().inputs()); }
  py::list outputs() const { return NodeArgs(Get().outputs()); }
  py::list overridable_initializers() const { return NodeArgs(Get().OverridableInitializers()); }

  py::dict metadata() const {
    const nxrt::ModelMetadata m = Get().Metadata();
    py::dict custom;
    for (const auto& [key, value] : m.custom) custom[py::str(key)] = value;
    py::dict out;
    out["producer_name"] = m.producer_name;
    out["graph_name"] = m.graph_name;
    out["domain"] = m.domain;
    out["description"] = m.description;
    out["graph_description"] = m.graph_description;
    out["version"] = m.version;
    out["custom_metadata_map"] = custom;
    return out;
  }

  // The EPs' instance names in priority order, as placed (a dropped plugin EP is not there).
  std::vector<std::string> eps() const { return Get().Placement().graphs.at(0).eps; }
  std::string placement_json() const { return nxrt::PlacementReportJson(Get().Placement(), -1); }
  std::vector<std::string> warnings() const { return Get().Warnings(); }
  std::string end_profiling() { return Check(Get().EndProfiling()); }

  // Runs with `feeds` ((name, value) or (name, array, ONNX element type) tuples); `terminate`:
  // the caller's RunOptions flag or None.
  py::list run(const std::vector<std::string>& output_names, const py::list& feeds,
               const std::shared_ptr<TerminateFlag>& terminate) {
    std::shared_ptr<nxrt::Session> session = Hold();
    std::vector<py::object> keep;  // the numpy buffers borrowed for the run
    std::vector<nxrt::NamedValue> inputs;
    inputs.reserve(feeds.size());
    for (py::handle feed : feeds) {
      auto pair = feed.cast<py::tuple>();
      const std::string name = pair[0].cast<std::string>();
      const nxrt::ValueInfo* declared = FindInput(*session, name);
      if (pair.size() > 2 && !pair[2].is_none()) {  // an OrtValue made with an ONNX element type
        const int32_t onnx_type = pair[2].cast<int32_t>();
        const std::optional<nxrt::DataType> given = nxrt::DataTypeFromOnnx(onnx_type);
        if (!given) {
          InvalidArgument("input '" + name + "': ONNX element type " + std::to_string(onnx_type) +
                          " is not one nxrt has; give a TensorProto.DataType number from 1 to 22");
        }
        inputs.push_back({name, nxrt::Value(ToTensor(name, pair[1], *given, keep))});
        continue;
      }
      inputs.push_back({name, ToValue(name, pair[1], declared, keep)});
    }
    // The run's own flag: the caller's RunOptions flag is copied into it, and Ctrl-C sets it
    // without leaving the caller's flag set.
    TerminateFlag stop;
    nxrt::RunOptions run_options;
    nxrt::Result<std::vector<nxrt::NamedValue>> result =
        nxrt::Status(nxrt::StatusCode::kInternal, "the run did not finish");
    if (PyThread_get_thread_ident() != MainThreadIdent()) {
      run_options.terminate = terminate ? &terminate->value : nullptr;
      py::gil_scoped_release release;
      result = session->RunValues(inputs, output_names, run_options);
    } else {
      run_options.terminate = &stop.value;
      std::promise<void> finished;
      std::future<void> done = finished.get_future();
      bool interrupted = false;
      {
        py::gil_scoped_release release;
        MainRunner::Get().Post([&] {
          result = session->RunValues(inputs, output_names, run_options);
          finished.set_value();
        });
        while (done.wait_for(std::chrono::milliseconds(20)) != std::future_status::ready) {
          if (terminate && terminate->value.load()) stop.value.store(true);
          if (interrupted) continue;
          py::gil_scoped_acquire acquire;
          if (PyErr_CheckSignals() != 0) {
            interrupted = true;
            stop.value.store(true);
          }
        }
      }
      if (interrupted) throw py::error_already_set();
    }
    if (!result.ok()) Raise(result.status());
    py::list out;
    for (const nxrt::NamedValue& value : *result) out.append(ToPython(value.value));
    return out;
  }

  void close() { session_.reset(); }
  bool closed() const { return session_ == nullptr; }

 private:
  static const nxrt::ValueInfo* FindInput(const nxrt::Session& session, const std::string& name) {
    for (const nxrt::ValueInfo& v : session.inputs()) {
      if (v.name == name) return &v;
    }
    return nullptr;
  }

  std::shared_ptr<nxrt::Session> Hold() const {
    if (!session_) {
      Raise(nxrt::Status(nxrt::StatusCode::kFailedPrecondition,
                         "this InferenceSession was closed; create a new one to run the model"));
    }
    return session_;
  }
  const nxrt::Session& Get() const { return *Hold(); }
  nxrt::Session& Get() { return *Hold(); }

  std::shared_ptr<nxrt::Session> session_;
};

py::dict Pairs(const std::vector<std::pair<std::string, std::string>>& pairs) {
  py::dict out;
  for (const auto& [key, value] : pairs) out[py::str(key)] = value;
  return out;
}

py::dict DeviceDict(const nxrt::EpDevice& d) {
  py::dict hw;
  hw["type"] = d.device.type;
  hw["vendor_id"] = d.device.vendor_id;
  hw["device_id"] = d.device.device_id;
  hw["vendor"] = d.device.vendor;
  hw["metadata"] = Pairs(d.device.metadata);
  py::dict out;
  out["ep_name"] = d.ep_name;
  out["ep_vendor"] = d.ep_vendor;
  out["ep_metadata"] = Pairs(d.ep_metadata);
  out["ep_options"] = Pairs(d.ep_options);
  out["device"] = hw;
  return out;
}

}  // namespace

PYBIND11_MODULE(_nxrt, m) {
  m.doc() = "nxrt's native module; use `import nxrt` (docs/python.md)";

  MainThreadIdentSlot() =
      py::module_::import("threading").attr("main_thread")().attr("ident").cast<unsigned long>();

  m.def("_set_exception_classes", [](const py::dict& classes) {
    for (auto [code, cls] : classes) ExceptionClasses()[code.cast<int>()] = py::reinterpret_borrow<py::object>(cls);
  });

  m.def("version_info", [] {
    const nxrt::VersionInfo v = nxrt::GetVersionInfo();
    py::dict out;
    out["nxrt"] = v.nxrt;
    out["ort_version"] = v.ort_version;
    out["onednn"] = v.onednn;
    return out;
  });

  py::class_<TerminateFlag, std::shared_ptr<TerminateFlag>>(m, "_TerminateFlag")
      .def(py::init<>())
      .def_property(
          "value", [](const TerminateFlag& f) { return f.value.load(); },
          [](TerminateFlag& f, bool v) { f.value.store(v); });

  py::class_<SessionConfig>(m, "_SessionConfig")
      .def(py::init<>())
      .def_readwrite("providers", &SessionConfig::providers)
      .def_readwrite("intra_op_threads", &SessionConfig::intra_op_threads)
      .def_readwrite("optimization_level", &SessionConfig::optimization_level)
      .def_readwrite("enable_profiling", &SessionConfig::enable_profiling)
      .def_readwrite("allow_fallback", &SessionConfig::allow_fallback)
      .def_readwrite("optimized_model_path", &SessionConfig::optimized_model_path)
      .def_readwrite("free_dimension_overrides", &SessionConfig::free_dimension_overrides)
      .def_readwrite("disabled_optimizers", &SessionConfig::disabled_optimizers);

  py::class_<PySession>(m, "_Session")
      .def(py::init<const py::object&, const SessionConfig&>())
      .def("inputs", &PySession::inputs)
      .def("outputs", &PySession::outputs)
      .def("overridable_initializers", &PySession::overridable_initializers)
      .def("metadata", &PySession::metadata)
      .def("eps", &PySession::eps)
      .def("placement_json", &PySession::placement_json)
      .def("warnings", &PySession::warnings)
      .def("end_profiling", &PySession::end_profiling)
      .def("run", &PySession::run)
      .def("close", &PySession::close)
      .def_property_readonly("closed", &PySession::closed);

  py::class_<nxrt::PluginEpLibrary, std::shared_ptr<nxrt::PluginEpLibrary>>(m, "_PluginLibrary")
      .def_property_readonly("path", &nxrt::PluginEpLibrary::path)
      .def_property_readonly("registration_name", &nxrt::PluginEpLibrary::registration_name)
      .def("devices",
           [](const nxrt::PluginEpLibrary& lib) {
             py::list out;
             for (const nxrt::EpDevice& d : lib.devices()) out.append(DeviceDict(d));
             return out;
           })
      .def("spec", [](const nxrt::PluginEpLibrary& lib, const std::string& ep_name) {
        nxrt::EpSpec spec = Check(lib.Spec(ep_name));
        return py::make_tuple(spec.type, spec.config.options());
      });

  m.def("_load_plugin_library", [](const std::string& path, const std::string& name) {
    return Check(nxrt::PluginEpLibrary::Load(path, name));
  });
  m.def("_cpu_ep_device", [] { return DeviceDict(nxrt::CpuEpDevice()); });
}
