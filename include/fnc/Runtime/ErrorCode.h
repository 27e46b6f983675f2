//===- ErrorCode.h - Codes of the faults generated code reports -*- C++ -*-===//
//
// The `code` argument of the runtime's fncRaiseError and fncLoopError slot:
// shared by the lowering that emits the calls (lib/Conversion) and the
// runtime that turns them into messages (lib/Runtime). No dependencies.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_RUNTIME_ERRORCODE_H
#define FNC_RUNTIME_ERRORCODE_H

#include <cstdint>

namespace fnc::runtime {

/// The `code` argument of fncRaiseError.
enum class ErrorCode : int64_t {
  /// Gather index `a` out of range [0, `b`).
  GatherIndex = 1,
  /// Integer division by zero.
  DivisionByZero = 2,
  /// Dynamic dimension mismatch: `a` vs `b`.
  DimensionMismatch = 3,
  /// Reshape of `a` elements to a shape with `b` elements.
  ReshapeSize = 4,
  /// A failure inside the runtime itself (out of memory while printing).
  Internal = 5,
  /// Integer pow with a negative exponent `a`.
  NegativeExponent = 6,
  /// A slice reading element `a` of a dimension of size `b`.
  SliceOutOfRange = 7,
  /// fnc.check_numerics saw a NaN or an Inf (the message names the op).
  NonFinite = 8,
  /// A shape tensor holding the negative size `a` at index `b`.
  NegativeDimension = 9,
  /// fnc.set_row at row `a` of a tensor with `b` rows.
  RowIndex = 10,
  /// fnc.squeeze of a dim of size `a` (only size-1 dims can be squeezed).
  SqueezeSize = 11,
  /// Out of memory: an allocation of `a` bytes failed. The call was
  /// abandoned at that point.
  OutOfMemory = 12,
  /// The byte size of a tensor with a dim of `a` elements does not fit in
  /// 64 bits. The call was abandoned at that point.
  SizeOverflow = 13,
  /// A run-time check of a hand-written upstream op failed (the message
  /// says which and where). The call was abandoned at that point.
  CheckFailed = 14,
  /// A pooling window of `a` rows or columns with valid padding over an
  /// input dim of `b` (< `a`) elements.
  WindowTooLarge = 15,
  /// fnc.strided_slice (or its gradient) indexing element `a` (negative
  /// counts from the end) of a dimension of size `b`.
  IndexOutOfRange = 16,
  /// argmax / argmin along an axis of size 0 of a tensor with `a` > 0
  /// results.
  EmptyArgAxis = 17,
};

} // namespace fnc::runtime

#endif // FNC_RUNTIME_ERRORCODE_H
