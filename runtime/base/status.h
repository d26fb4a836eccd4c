// Status and StatusOr<T>: how errors travel inside gpurun.
//
// A Status is a result code (the public grResult_t) plus a message. Functions
// that can fail return Status or StatusOr<T>; two macros propagate them:
//   GR_RETURN_IF_ERROR(expr);            // return the error of a Status
//   GR_ASSIGN_OR_RETURN(lhs, expr);      // unwrap a StatusOr or return its error
// No exception crosses a C API boundary, a callback or a thread; the C API
// turns a Status into a grResult_t and the thread's last-error message.
#ifndef GPURUN_RUNTIME_BASE_STATUS_H_
#define GPURUN_RUNTIME_BASE_STATUS_H_

#include <cassert>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "gpurun/gpurun.h"

namespace gpurun {

// The message lives on the heap, and only when there is one: a success (and
// an error without text) is a code and a null pointer, so the hot paths that
// return, copy and destroy successes through several layers per call move
// two words and test one (an inline std::string was 32 bytes copied
// character by character per move: a tenth of an 8-byte host broadcast's
// instructions; issue 4).
class [[nodiscard]] Status {
 public:
  Status() = default;  // success
  Status(grResult_t code, std::string message)
      : code_(code), message_(message.empty() ? nullptr : std::make_unique<std::string>(std::move(message))) {}
  Status(const Status& other) : code_(other.code_), message_(CopyOf(other.message_)) {}
  Status& operator=(const Status& other) {
    if (this != &other) {
      code_ = other.code_;
      message_ = CopyOf(other.message_);
    }
    return *this;
  }
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;
  ~Status() = default;

  bool ok() const { return code_ == grSuccess; }
  grResult_t code() const { return code_; }
  const std::string& message() const { return message_ ? *message_ : EmptyMessage(); }
  // "invalid argument: GPURUN_TIMEOUT: ..." — code name then message.
  std::string ToString() const;
  // Returns a copy whose message is "context: message".
  Status WithContext(std::string_view context) const;

 private:
  static const std::string& EmptyMessage();
  static std::unique_ptr<std::string> CopyOf(const std::unique_ptr<std::string>& m) {
    return m ? std::make_unique<std::string>(*m) : nullptr;
  }

  grResult_t code_ = grSuccess;
  std::unique_ptr<std::string> message_;
};

inline Status OkStatus() { return Status(); }
Status InvalidArgument(std::string message);
Status InvalidUsage(std::string message);
Status RemoteError(std::string message);
Status TimeoutError(std::string message);
Status InternalError(std::string message);
Status Unsupported(std::string message);
// A failed OS call: "what: strerror(err)".
Status SystemError(std::string message);
Status ErrnoError(std::string_view what, int err);

template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(Status status) : status_(std::move(status)) { assert(!status_.ok()); }  // NOLINT: implicit by design
  StatusOr(T value) : value_(std::move(value)) {}                                  // NOLINT: implicit by design
  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() & {
    assert(ok());
    return *value_;
  }
  const T& value() const& {
    assert(ok());
    return *value_;
  }
  T&& value() && {
    assert(ok());
    return std::move(*value_);
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  Status status_;
  std::optional<T> value_;
};

namespace internal {
inline const Status& GetStatus(const Status& s) { return s; }
template <typename T>
const Status& GetStatus(const StatusOr<T>& s) {
  return s.status();
}
}  // namespace internal

}  // namespace gpurun

#define GR_STATUS_CONCAT_INNER(a, b) a##b
#define GR_STATUS_CONCAT(a, b) GR_STATUS_CONCAT_INNER(a, b)

// Returns the error of a Status-returning expression from the enclosing function.
#define GR_RETURN_IF_ERROR(expr)                                             \
  do {                                                                       \
    const ::gpurun::Status gr_status_ = ::gpurun::internal::GetStatus(expr); \
    if (!gr_status_.ok()) return gr_status_;                                 \
  } while (0)

// `lhs` = value of a StatusOr expression, or return its error.
#define GR_ASSIGN_OR_RETURN(lhs, expr) GR_ASSIGN_OR_RETURN_IMPL(GR_STATUS_CONCAT(gr_statusor_, __LINE__), lhs, expr)
#define GR_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                             \
  if (!tmp.ok()) return tmp.status();            \
  lhs = std::move(tmp).value()

#endif  // GPURUN_RUNTIME_BASE_STATUS_H_
