//===- Error.h - The exception type of the fnc public API -------*- C++ -*-===//
//
// Every user mistake detected by the fnc C++ API (a bad shape, a dtype
// mismatch, an index out of range, ...) is reported by throwing fnc::Error.
// Its message says what was wrong and what to do about it; its kind lets a
// program react to a class of errors without parsing the message.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_ERROR_H
#define FNC_ERROR_H

#include <exception>
#include <string>

namespace fnc {

/// The class of an fnc::Error, modelled on TensorFlow's error codes.
enum class ErrorKind {
  /// An argument is wrong regardless of the state of the program: shapes
  /// that do not broadcast, a dtype mismatch, a bad axis, an integer
  /// division by zero, a slice past the end.
  InvalidArgument,
  /// An index or a size is outside the valid range: a gather index, a
  /// TensorArray row, an allocation too large for memory.
  OutOfRange,
  /// The operation is not allowed in the current state (for example reading
  /// the data of a tensor that has no buffer).
  FailedPrecondition,
  /// The operation is valid but not implemented for these arguments.
  Unimplemented,
  /// A file or a named entity (a saved variable) that does not exist.
  NotFound,
  /// A bug in fnc itself; please report it.
  Internal,
};

/// Name of an ErrorKind ("InvalidArgument", ...).
inline const char *errorKindName(ErrorKind kind) {
  switch (kind) {
  case ErrorKind::InvalidArgument:
    return "InvalidArgument";
  case ErrorKind::OutOfRange:
    return "OutOfRange";
  case ErrorKind::FailedPrecondition:
    return "FailedPrecondition";
  case ErrorKind::Unimplemented:
    return "Unimplemented";
  case ErrorKind::NotFound:
    return "NotFound";
  case ErrorKind::Internal:
    return "Internal";
  }
  return "Unknown";
}

/// The exception thrown by every function of the fnc public API.
///
/// A value type: cheap to copy, immutable after construction, safe to read
/// from several threads at once.
class Error : public std::exception {
public:
  Error(ErrorKind kind, std::string message)
      : kind_(kind), message_(std::move(message)) {}

  /// The class of the error.
  ErrorKind kind() const noexcept { return kind_; }

  /// The full message (what was wrong and what to do). Valid for the
  /// lifetime of this Error.
  const char *what() const noexcept override { return message_.c_str(); }

  /// The message as a std::string.
  const std::string &message() const noexcept { return message_; }

private:
  ErrorKind kind_;
  std::string message_;
};

} // namespace fnc

#endif // FNC_ERROR_H
