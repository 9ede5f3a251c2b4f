// Errors are values: every fallible call returns Status or Result<T>.
// Messages name the file, the operator or the value, and the reason.
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace wick {

enum class ErrorCode {
  kOk = 0,
  kInvalidArgument,   // caller gave something wrong (shape, dtype, count)
  kInvalidProgram,    // the .pte / blob is malformed or inconsistent
  kNotFound,          // method, key, backend not present
  kNotSupported,      // well-formed but outside what Wick runs
  kOperatorMissing,   // no kernel for an operator
  kOutOfResources,    // allocation too large
  kDeviceLost,        // GPU device lost or unavailable
  kInternal,
};

const char* error_code_name(ErrorCode code);

class Status;
namespace detail {
// Prints "Result::value() on an error: <status>" to stderr and aborts. Not an assert():
// release builds (-DNDEBUG) would otherwise read an empty optional, undefined behaviour.
[[noreturn]] void value_of_error(const Status& status);
}  // namespace detail

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status ok_status() { return {}; }

  bool ok() const { return code_ == ErrorCode::kOk; }
  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "InvalidProgram: segment 3 ends past the end of the file"
  std::string to_string() const;
  // Prefixes context, e.g. with("method 'forward'") -> "method 'forward': <message>".
  Status with_context(const std::string& context) const;

 private:
  ErrorCode code_ = ErrorCode::kOk;
  std::string message_;
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {}  // NOLINT
  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  // Reading the value of an error is a bug in the caller: checked in every build type
  // (one branch), never undefined.
  T& value() & { return checked(); }
  const T& value() const& { return checked(); }
  T&& value() && { return std::move(checked()); }
  T* operator->() { return &checked(); }
  const T* operator->() const { return &checked(); }
  T& operator*() { return checked(); }
  const T& operator*() const { return checked(); }

 private:
  T& checked() {
    if (!value_.has_value()) [[unlikely]] detail::value_of_error(status_);
    return *value_;
  }
  const T& checked() const {
    if (!value_.has_value()) [[unlikely]] detail::value_of_error(status_);
    return *value_;
  }

  std::optional<T> value_;
  Status status_;
};

Status make_error(ErrorCode code, const std::string& message);

}  // namespace wick

// Return early from the enclosing function when a Status is an error.
#define WICK_RETURN_IF_ERROR(expr)            \
  do {                                        \
    ::wick::Status wick_status_ = (expr);     \
    if (!wick_status_.ok()) return wick_status_; \
  } while (0)

#define WICK_CONCAT_INNER(a, b) a##b
#define WICK_CONCAT(a, b) WICK_CONCAT_INNER(a, b)
// `WICK_ASSIGN_OR_RETURN(auto x, f());` — unwraps a Result or returns its error.
#define WICK_ASSIGN_OR_RETURN(lhs, expr) \
  WICK_ASSIGN_OR_RETURN_IMPL(WICK_CONCAT(wick_result_, __LINE__), lhs, expr)
#define WICK_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                               \
  if (!tmp.ok()) return tmp.status();              \
  lhs = std::move(tmp).value()
