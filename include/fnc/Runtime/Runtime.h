//===- Runtime.h - The C runtime called by generated code -------*- C++ -*-===//
//
// The small runtime that JIT-compiled fnc code calls for what cannot be
// inlined: printing tensors and text, the stateful random number generator,
// and recording run-time errors (a gather index out of range, ...).
//
// ABI: functions declared with `llvm.emit_c_interface` are called through
// their `_mlir_ciface_NAME` wrapper, which takes pointers to memref
// descriptors (the structs of mlir/ExecutionEngine/CRunnerUtils.h, which is
// header-only); the others are plain C symbols. See docs/Runtime.md.
//
// Lifecycle and thread-safety: all state (the output stream, the global
// seed, the per-op random counters, the pending error) is process-global and
// protected by mutexes, so generated code may call every function from any
// thread, including OpenMP workers. No function here throws into generated
// code: a failure inside the runtime itself is recorded as an error.
//
// The host side (namespace fnc::runtime) configures the runtime and, after
// each call of generated code, collects the first error it reported.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_RUNTIME_RUNTIME_H
#define FNC_RUNTIME_RUNTIME_H

#include "fnc/Runtime/ErrorCode.h"

#include "mlir/ExecutionEngine/CRunnerUtils.h"

#include <array>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

//===----------------------------------------------------------------------===//
// Called by generated code
//===----------------------------------------------------------------------===//

extern "C" {

/// Writes the bytes of `text` (a 1-D i8 memref, any offset and stride).
void _mlir_ciface_fncPrintText(StridedMemRefType<int8_t, 1> *text);

/// Write the values of a tensor in the eager format without the wrapper:
/// what `fnc::Tensor::str()` shows inside `fnc.Tensor(...)` (`[1. 2.]`,
/// `4.0`). Any rank, offset and strides.
void _mlir_ciface_fncPrintTensorF32(UnrankedMemRefType<float> *t);
void _mlir_ciface_fncPrintTensorF64(UnrankedMemRefType<double> *t);
void _mlir_ciface_fncPrintTensorI1(UnrankedMemRefType<bool> *t);
void _mlir_ciface_fncPrintTensorI32(UnrankedMemRefType<int32_t> *t);
void _mlir_ciface_fncPrintTensorI64(UnrankedMemRefType<int64_t> *t);

/// Writes a newline.
void fncPrintNewline();

/// Fill `out` (contiguous, identity layout) with values uniform in
/// [min, max), from the Philox4x32-10 stream of (global seed, opKey). Each
/// opKey has its own counter that advances across calls.
void _mlir_ciface_fncRandomUniformF32(UnrankedMemRefType<float> *out,
                                      int64_t opKey, double min, double max);
void _mlir_ciface_fncRandomUniformF64(UnrankedMemRefType<double> *out,
                                      int64_t opKey, double min, double max);
/// Same with normally distributed values (Box-Muller).
void _mlir_ciface_fncRandomNormalF32(UnrankedMemRefType<float> *out,
                                     int64_t opKey, double mean, double stddev);
void _mlir_ciface_fncRandomNormalF64(UnrankedMemRefType<double> *out,
                                     int64_t opKey, double mean, double stddev);

/// Records a run-time error unless one is already pending (the first one
/// wins). Generated code continues safely after the call (the lowering
/// clamps); the host checks fnc::runtime::takeError() after the call.
/// Codes: see fnc::runtime::ErrorCode.
void fncRaiseError(int64_t code, int64_t a, int64_t b);

/// {code, a, b} of an error detected inside a (possibly parallel) loop
/// body, stored by generated code without a call (a call would keep the
/// loop from vectorizing and from being outlined into OpenMP cleanly).
/// Concurrent writers may mix their values; some error is reported. The
/// host reads and clears it in takeError(), after fncRaiseError's error.
extern int64_t fncLoopError[3];

/// fnc.check_numerics failed: `text` names the op that produced a NaN or an
/// Inf. Recorded like fncRaiseError (first error wins).
void _mlir_ciface_fncNumericsError(StridedMemRefType<int8_t, 1> *text);

} // extern "C"

//===----------------------------------------------------------------------===//
// Host API
//===----------------------------------------------------------------------===//

namespace fnc::runtime {

/// The user-facing message of an error, e.g. "gather index 7 is out of
/// range [0, 5)".
std::string errorMessage(int64_t code, int64_t a, int64_t b);

/// Seeds the random generator and resets every op's counter, so that the
/// values drawn from then on are reproducible. Without a call, the seed is
/// drawn from std::random_device at first use.
void setGlobalSeed(uint64_t seed);

/// True if an error is pending (a cheap atomic read).
bool hasError();

/// Returns and clears the pending error as a user-facing message.
std::optional<std::string> takeError();

/// Where printing goes (std::cout by default; nullptr restores it). The
/// stream must outlive its use; set it while no generated code runs.
void setOutputStream(std::ostream *os);

/// Every runtime symbol with its address, as generated code names it, for
/// registering with the JIT.
std::vector<std::pair<std::string, void *>> symbols();

/// One Philox4x32-10 block: 10 rounds of `counter` under `key` (exposed for
/// the known-answer tests).
std::array<uint32_t, 4> philox4x32(std::array<uint32_t, 4> counter,
                                   std::array<uint32_t, 2> key);

} // namespace fnc::runtime

#endif // FNC_RUNTIME_RUNTIME_H
