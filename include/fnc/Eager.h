//===- Eager.h - How eager ops run their kernels ----------------*- C++ -*-===//
//
// An eager op on big operands runs the code fnc::function would generate for
// it alone: vectorized, parallel above a work threshold, with the
// register-blocked matmul and conv kernels and the vectorized
// transcendentals. Each kernel is compiled once per process (and kept in
// the on-disk compile cache, FunctionOptions::cache_dir) for the op, its
// attributes, the operands' dtypes and ranks and which of their dims are 1;
// the other dims are unknown to it, so a new batch size reuses it. Small
// ops (under about 32K elements or multiply-adds) run the reference
// kernels, which cost less than a call of compiled code.
//
// By default a kernel is compiled on a background thread the first time an
// op needs it, and the reference kernel serves that call and the ones until
// the kernel is ready: the first use never waits for the compiler. Results
// agree with the reference kernels within the error bounds of
// docs/Pipeline.md (the transcendentals differ by a few ulps under fast
// math); errors (an integer division by zero, an index out of range) are
// the reference kernels' own, and so are gradient tapes and check-numerics
// mode. A process linked without the compiler (only the eager library) runs
// the reference kernels. See docs/Eager.md.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_EAGER_H
#define FNC_EAGER_H

#include <cstdint>

namespace fnc {

/// How eager ops run their kernels (a process-wide setting; the environment
/// variable FNC_EAGER_KERNELS=background|blocking|reference sets the
/// initial one).
enum class EagerKernels {
  /// Compiled kernels, compiled on a background thread; the reference
  /// kernels serve until they are ready. The default.
  Background,
  /// Compiled kernels, compiled by the first call that needs one, which
  /// waits for it (tens of milliseconds, a few with a warm compile cache):
  /// every big op then runs the same code, call after call.
  Blocking,
  /// The reference kernels only (single-threaded, plain C++).
  Reference,
};

/// Sets / reads the mode. Thread-safe; kernels already compiled stay.
void set_eager_kernels(EagerKernels mode);
EagerKernels eager_kernels();

/// Waits until every kernel requested so far is compiled (or has failed:
/// its op keeps the reference kernel). For benchmarks that warm up first.
void wait_for_eager_kernels();

/// What the compiled eager kernels have done in this process.
struct EagerKernelStats {
  uint64_t compiled = 0; ///< kernels compiled (or loaded from the cache)
  uint64_t failed = 0;   ///< kernels that could not be compiled
  uint64_t pending = 0;  ///< kernels waiting for or in the compiler
  uint64_t calls = 0;    ///< op calls a compiled kernel served
  double compile_seconds = 0; ///< time spent compiling them
};
EagerKernelStats eager_kernel_stats();

} // namespace fnc

#endif // FNC_EAGER_H
