// nxrt/status.h: the one error type of nxrt.
//
// Every fallible function returns `Status` (no value) or `Result<T>` (a value or a Status). No
// exception crosses a public function. Success costs one null pointer; an error carries a code and
// a message that names the thing (file, node, value), the value that was wrong and the fix, e.g.
//   "model 'a.onnx': node 'Conv_12' (Conv, opset 17): input 1 has rank 3, expected 4".
// Context is added on the way out with `WithContext`, outermost first.
#pragma once

#include <cassert>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

namespace nxrt {

// What kind of failure a Status reports. Stable numbers: they may be printed and compared.
enum class StatusCode : int {
  kOk = 0,
  kInvalidArgument = 1,     // a caller-supplied value is wrong (CLI flag, input tensor, option)
  kInvalidModel = 2,        // the ONNX model is malformed or inconsistent
  kNotFound = 3,            // a named thing (file, value, node, EP) does not exist
  kNotImplemented = 4,      // valid request that nxrt does not implement
  kUnsupported = 5,         // no EP can run this node / dtype / attribute combination
  kIoError = 6,             // reading or writing a file failed
  kFailedPrecondition = 7,  // called in the wrong state (e.g. run before load)
  kRuntimeError = 8,        // a kernel or plugin failed while running
  kOutOfMemory = 9,         // an allocation failed
  kInternal = 10,           // a broken nxrt invariant: a bug to report
  kDeadlineExceeded = 11,   // a run went past its time limit (SessionOptions::run_time_limit_ms)
};

// Lower-case name of a code, e.g. "invalid model".
std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  // Success.
  Status() = default;
  // Failure with `code` (must not be kOk) and a message (lower-case start, concrete values).
  Status(StatusCode code, std::string message);

  static Status Ok() { return Status(); }

  bool ok() const { return state_ == nullptr; }
  StatusCode code() const { return state_ ? state_->code : StatusCode::kOk; }
  // The message alone ("" on success).
  const std::string& message() const;
  // "<code name>: <message>", or "ok".
  std::string ToString() const;

  // Returns this status with "<context>: " prefixed to the message, unless the message already
  // starts with it (a callee gave the same context); success stays success.
  Status WithContext(std::string_view context) const;

  // Marks a status as deliberately ignored (tests, best-effort cleanup).
  void IgnoreError() const {}

 private:
  struct State {
    StatusCode code;
    std::string message;
  };
  std::shared_ptr<const State> state_;
};

// A value of type T or an error Status.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design, like absl::StatusOr
  Result(Status status) : v_(std::move(status)) {  // NOLINT
    assert(!std::get<Status>(v_).ok() && "a Result cannot hold an OK status without a value");
  }

  bool ok() const { return std::holds_alternative<T>(v_); }
  // The error; Status::Ok() when a value is held.
  Status status() const { return ok() ? Status::Ok() : std::get<Status>(v_); }

  // The value; only valid when ok().
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> v_;
};

namespace detail {
template <typename... Args>
std::string StrCat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}
inline const Status& AsStatus(const Status& s) { return s; }
template <typename T>
Status AsStatus(const Result<T>& r) { return r.status(); }
}  // namespace detail

// Builds a message from streamable pieces: MakeStatus(kInvalidModel, "node '", name, "' ...").
template <typename... Args>
Status MakeStatus(StatusCode code, const Args&... args) {
  return Status(code, detail::StrCat(args...));
}

}  // namespace nxrt

// Returns from the enclosing function if `expr` (a Status or Result) holds an error.
#define NXRT_RETURN_IF_ERROR(expr)                                   \
  do {                                                               \
    auto&& nxrt_status_tmp_ = (expr);                                \
    if (!nxrt_status_tmp_.ok()) return ::nxrt::detail::AsStatus(nxrt_status_tmp_); \
  } while (0)

#define NXRT_CONCAT_INNER_(a, b) a##b
#define NXRT_CONCAT_(a, b) NXRT_CONCAT_INNER_(a, b)
// `NXRT_ASSIGN_OR_RETURN(auto x, MakeX());` declares x from a Result, or returns its error.
#define NXRT_ASSIGN_OR_RETURN(lhs, expr) \
  NXRT_ASSIGN_OR_RETURN_IMPL_(NXRT_CONCAT_(nxrt_result_, __LINE__), lhs, expr)
#define NXRT_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                \
  if (!tmp.ok()) return tmp.status();               \
  lhs = std::move(tmp).value()
