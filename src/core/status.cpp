#include "core/status.h"

#include <cstdio>
#include <cstdlib>

namespace wick {

const char* error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk: return "Ok";
    case ErrorCode::kInvalidArgument: return "InvalidArgument";
    case ErrorCode::kInvalidProgram: return "InvalidProgram";
    case ErrorCode::kNotFound: return "NotFound";
    case ErrorCode::kNotSupported: return "NotSupported";
    case ErrorCode::kOperatorMissing: return "OperatorMissing";
    case ErrorCode::kOutOfResources: return "OutOfResources";
    case ErrorCode::kDeviceLost: return "DeviceLost";
    case ErrorCode::kInternal: return "Internal";
  }
  return "Unknown";
}

std::string Status::to_string() const {
  if (ok()) return "Ok";
  return std::string(error_code_name(code_)) + ": " + message_;
}

Status Status::with_context(const std::string& context) const {
  if (ok()) return *this;
  return Status(code_, context + ": " + message_);
}

namespace detail {
void value_of_error(const Status& status) {
  std::fprintf(stderr, "wick: Result::value() on an error: %s\n", status.to_string().c_str());
  std::abort();
}
}  // namespace detail

Status make_error(ErrorCode code, const std::string& message) { return Status(code, message); }

}  // namespace wick
