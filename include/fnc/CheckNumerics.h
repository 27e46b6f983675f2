//===- CheckNumerics.h - The check-numerics debugging mode ------*- C++ -*-===//
//
// A process-wide switch, off by default, that makes fnc report the first op
// whose float result holds a NaN or an Inf. The eager ops read it on every
// call; fnc::function reads it when it traces (fnc/Function.h).
//
//===----------------------------------------------------------------------===//

#ifndef FNC_CHECKNUMERICS_H
#define FNC_CHECKNUMERICS_H

namespace fnc {

/// Check-numerics mode, for debugging (off by default; a process-wide
/// setting like run_functions_eagerly). While it is on, every eager op
/// checks its float result and throws fnc::Error (FailedPrecondition)
/// naming the op if it holds a NaN or an Inf; a function traced while it is
/// on is compiled with the same check after every float op, and a call
/// reports the first op that produced one. Concrete functions traced while
/// it was off keep running without checks. Thread-safe.
void enable_check_numerics(bool enable);
bool check_numerics_enabled();

} // namespace fnc

#endif // FNC_CHECKNUMERICS_H
