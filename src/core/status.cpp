// core/status.cpp: Status codes, messages and context chaining (nxrt/status.h).
//
// Layer: nxrt_core (standard library only).
#include "nxrt/status.h"

namespace nxrt {

std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kInvalidArgument: return "invalid argument";
    case StatusCode::kInvalidModel: return "invalid model";
    case StatusCode::kNotFound: return "not found";
    case StatusCode::kNotImplemented: return "not implemented";
    case StatusCode::kUnsupported: return "unsupported";
    case StatusCode::kIoError: return "i/o error";
    case StatusCode::kFailedPrecondition: return "failed precondition";
    case StatusCode::kRuntimeError: return "runtime error";
    case StatusCode::kOutOfMemory: return "out of memory";
    case StatusCode::kInternal: return "internal error";
    case StatusCode::kDeadlineExceeded: return "deadline exceeded";
  }
  return "unknown status code";
}

Status::Status(StatusCode code, std::string message) {
  // An error built with kOk would read as success and lose the message; keep it an error.
  if (code == StatusCode::kOk) {
    state_ = std::make_shared<const State>(
        State{StatusCode::kInternal, "error status created with code ok: " + message});
    return;
  }
  state_ = std::make_shared<const State>(State{code, std::move(message)});
}

const std::string& Status::message() const {
  static const std::string kEmpty;
  return state_ ? state_->message : kEmpty;
}

std::string Status::ToString() const {
  if (ok()) return "ok";
  std::string out(StatusCodeName(state_->code));
  out += ": ";
  out += state_->message;
  return out;
}

Status Status::WithContext(std::string_view context) const {
  if (ok()) return *this;
  std::string message(context);
  message += ": ";
  // Already said by the callee (a kernel naming its node, then the runtime naming it again).
  if (std::string_view(state_->message).starts_with(message)) return *this;
  message += state_->message;
  return Status(state_->code, std::move(message));
}

}  // namespace nxrt
