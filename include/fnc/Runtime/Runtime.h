//===- Runtime.h - The C runtime called by generated code -------*- C++ -*-===//
//
// The small runtime that JIT-compiled fnc code calls for what cannot be
// inlined: printing tensors and text, the stateful random number generator,
// and recording run-time errors (a gather index out of range, ...) in the
// per-call context of the call that made them.
//
// ABI: functions declared with `llvm.emit_c_interface` are called through
// their `_mlir_ciface_NAME` wrapper, which takes pointers to memref
// descriptors (the structs of mlir/ExecutionEngine/CRunnerUtils.h, which is
// header-only); the others are plain C symbols. See docs/Runtime.md.
//
// Lifecycle and thread-safety: run-time errors travel with the call. The
// host gives every call of generated code a fresh fnc::runtime::CallContext
// (the hidden first argument of every lowered function, a memref<3xi64>
// whose `allocated` pointer is the context), and the code reports faults
// into it, so concurrent calls never see each other's errors. The rest of
// the state (the output stream, the global seed, the per-op random counters)
// is process-global and protected by mutexes, so generated code may call
// every function from any thread, including OpenMP workers. No function here
// throws into generated code: a failure inside the runtime itself is
// recorded as an error of the call.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_RUNTIME_RUNTIME_H
#define FNC_RUNTIME_RUNTIME_H

#include "fnc/Error.h"
#include "fnc/Runtime/ErrorCode.h"

#include "mlir/ExecutionEngine/CRunnerUtils.h"

#include <array>
#include <atomic>
#include <csetjmp>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

/// The context argument of generated code, as C-interface functions get it.
using FncContextRef = StridedMemRefType<int64_t, 1>;

namespace fnc::runtime {

/// The state of one call of generated code: the first run-time error it
/// reported. The caller creates one per call (on its stack) and passes it as
/// the function's context argument; generated code sees the three words of
/// `loopError` as a memref<3xi64> and the runtime functions find the context
/// through that memref's `allocated` pointer.
struct CallContext {
  /// {code, a, b} of an error detected inside a (possibly parallel) loop
  /// body, stored by generated code without a call (a call would keep the
  /// loop from vectorizing and from being outlined into OpenMP cleanly).
  /// Concurrent writers of one call may mix their values; some error of
  /// that call is reported.
  int64_t loopError[3] = {0, 0, 0};
  /// The first error reported through a runtime call (0: none): the OpenMP
  /// workers of one call may race for it, and the first one wins.
  std::atomic<int64_t> code{0};
  int64_t a = 0, b = 0;
  /// What failed, for the codes that carry text (check_numerics).
  std::string text;
  /// Where an allocation failure abandons the call (see invoke).
  std::jmp_buf abandon;

  /// Records an error unless one is pending. Thread-safe.
  void raise(int64_t code, int64_t a, int64_t b, std::string text = {});
  /// True if the call reported an error. Read after the call returned.
  bool failed() const;
  /// The user-facing message of the call's error; nullopt if none.
  std::optional<std::string> error() const;
  /// The ErrorCode of that error (0 if none).
  int64_t errorCode() const;
  /// The descriptor generated code receives (for host code that calls the
  /// runtime's functions itself, as the eager API does).
  FncContextRef ref();
};

/// Calls `fn(args)` (a packed `_mlir_NAME` wrapper) with `context` as the
/// calling thread's current call. Returns false if the call was abandoned:
/// an allocation of generated code failed (fncMalloc) or its size
/// overflowed (fncSizeOverflow) on this thread outside a parallel region,
/// and control came straight back here with the error in `context`. The
/// results of an abandoned call are not set, and buffers it had allocated
/// are not freed.
bool invoke(CallContext &context, void (*fn)(void **), void **args);

/// Number of int64 slots of the context's descriptor in a packed call:
/// allocated, aligned, offset, size, stride.
constexpr size_t kContextSlots = 5;
/// Writes the expanded memref<3xi64> descriptor of `context` to `slots`.
void packContext(CallContext &context, int64_t slots[kContextSlots]);

} // namespace fnc::runtime

//===----------------------------------------------------------------------===//
// Called by generated code
//===----------------------------------------------------------------------===//

extern "C" {

// Every function takes the call's context first.

/// Writes the bytes of `text` (a 1-D i8 memref, any offset and stride).
void _mlir_ciface_fncPrintText(FncContextRef *context,
                               StridedMemRefType<int8_t, 1> *text);

/// Write the values of a tensor in the eager format without the wrapper:
/// what `fnc::Tensor::str()` shows inside `fnc.Tensor(...)` (`[1. 2.]`,
/// `4.0`). Any rank, offset and strides.
void _mlir_ciface_fncPrintTensorF32(FncContextRef *context,
                                    UnrankedMemRefType<float> *t);
void _mlir_ciface_fncPrintTensorF64(FncContextRef *context,
                                    UnrankedMemRefType<double> *t);
void _mlir_ciface_fncPrintTensorI1(FncContextRef *context,
                                   UnrankedMemRefType<bool> *t);
void _mlir_ciface_fncPrintTensorI32(FncContextRef *context,
                                    UnrankedMemRefType<int32_t> *t);
void _mlir_ciface_fncPrintTensorI64(FncContextRef *context,
                                    UnrankedMemRefType<int64_t> *t);

/// Writes a newline.
void _mlir_ciface_fncPrintNewline(FncContextRef *context);

/// Fill `out` (contiguous, identity layout) with values uniform in
/// [min, max), from the Philox4x32-10 stream of (global seed, opKey). Each
/// opKey has its own counter that advances across calls.
void _mlir_ciface_fncRandomUniformF32(FncContextRef *context,
                                      UnrankedMemRefType<float> *out,
                                      int64_t opKey, double min, double max);
void _mlir_ciface_fncRandomUniformF64(FncContextRef *context,
                                      UnrankedMemRefType<double> *out,
                                      int64_t opKey, double min, double max);
/// Same with normally distributed values (Box-Muller).
void _mlir_ciface_fncRandomNormalF32(FncContextRef *context,
                                     UnrankedMemRefType<float> *out,
                                     int64_t opKey, double mean, double stddev);
void _mlir_ciface_fncRandomNormalF64(FncContextRef *context,
                                     UnrankedMemRefType<double> *out,
                                     int64_t opKey, double mean, double stddev);

/// Records a run-time error in the call's context unless one is already
/// pending (the first one wins). Generated code continues safely after the
/// call (the lowering clamps); the host reads the context after the call.
/// Codes: see fnc::runtime::ErrorCode.
void _mlir_ciface_fncRaiseError(FncContextRef *context, int64_t code,
                                int64_t a, int64_t b);

/// The `malloc` of generated code. On failure it reports OutOfMemory and
/// abandons the current call (see fnc::runtime::invoke). Where it cannot (an
/// OpenMP worker, or no call of invoke on this thread), it prints the error
/// and exits with status 1: never a write through a null pointer.
void *fncMalloc(size_t bytes);

/// The `calloc` of generated code, which LLVM makes of a `malloc` followed
/// by zeroing: the same allocator and the same failure as fncMalloc.
void *fncCalloc(size_t count, size_t size);

/// A tensor's byte size overflowed 64 bits (`count` is the dim that made
/// it overflow): reports SizeOverflow and abandons the call like fncMalloc.
void _mlir_ciface_fncSizeOverflow(FncContextRef *context, int64_t count);

/// A run-time check of an upstream op failed (`text` says which and
/// where): reports CheckFailed and abandons the call like fncMalloc, since
/// the op would be undefined behaviour.
void _mlir_ciface_fncCheckFailed(FncContextRef *context,
                                 StridedMemRefType<int8_t, 1> *text);

/// fnc.check_numerics failed: `text` names the op that produced a NaN or an
/// Inf. Recorded like fncRaiseError (first error wins).
void _mlir_ciface_fncNumericsError(FncContextRef *context,
                                   StridedMemRefType<int8_t, 1> *text);

/// The profiler's clock (fnc/Profiler.h) for a kernel about to run: the
/// time, or -1 when the profiler is off. Code compiled with the
/// profile-kernels pipeline option calls it before each loop nest.
int64_t fncProfileKernelBegin();

/// Records the span of a kernel that began at `start` (nothing if -1 or the
/// profiler stopped), named `name` (the fnc ops it runs), in function
/// `function` (both NUL-terminated, constant).
void fncProfileKernelEnd(const char *name, const char *function, int64_t start);

} // extern "C"

//===----------------------------------------------------------------------===//
// Host API
//===----------------------------------------------------------------------===//

namespace fnc::runtime {

/// The user-facing message of an error, e.g. "gather index 7 is out of
/// range [0, 5)".
std::string errorMessage(int64_t code, int64_t a, int64_t b);
/// The fnc::ErrorKind of `code`: the kind the eager API throws for the same
/// fault (an out-of-range gather index is OutOfRange in both).
ErrorKind errorKind(int64_t code);

/// Seeds the random generator and resets every op's counter, so that the
/// values drawn from then on are reproducible. Without a call, the seed is
/// drawn from std::random_device at first use.
void setGlobalSeed(uint64_t seed);

/// Where printing goes (std::cout by default; nullptr restores it). The
/// stream must outlive its use; set it while no generated code runs.
void setOutputStream(std::ostream *os);

/// Calls `fn` (once, however often it is registered) when the main thread
/// exits, by returning from main or calling exit(), before the atexit
/// handlers and the destructors of statics: glibc runs the exiting thread's
/// thread_local destructors first. For background threads that use
/// function-local statics of MLIR and LLVM, which exit destroys in reverse
/// order of construction: such a thread must be joined before. Registers
/// nothing when called on another thread. Handlers run in reverse order of
/// registration.
void runAtMainThreadExit(void (*fn)());

/// Every runtime symbol with its address, as generated code names it, for
/// registering with the JIT.
std::vector<std::pair<std::string, void *>> symbols();

/// An OpenMP entry point that generated code's parallel loops call
/// (`__kmpc_fork_call`, ...), the runtime's function that takes its place
/// (lib/Runtime/Parallel.cpp: a pool whose regions never wait for a thread
/// that has not started) and that function's address. symbols() maps the
/// OpenMP names; fnc-compile renames them.
struct ParallelEntry {
  const char *openmpName;
  const char *name;
  void *address;
};
const std::vector<ParallelEntry> &parallelEntries();

/// True while this thread runs its share of a parallel loop that other
/// threads share (a run-time error there cannot abandon the call).
bool inParallelRegion();

/// One Philox4x32-10 block: 10 rounds of `counter` under `key` (exposed for
/// the known-answer tests).
std::array<uint32_t, 4> philox4x32(std::array<uint32_t, 4> counter,
                                   std::array<uint32_t, 2> key);

} // namespace fnc::runtime

#endif // FNC_RUNTIME_RUNTIME_H
