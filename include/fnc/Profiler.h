//===- Profiler.h - A timeline of what fnc does -----------------*- C++ -*-===//
//
// fnc::profiler records what a program spends its time on and writes it as
// a Chrome trace-event JSON file, which Perfetto (ui.perfetto.dev, "Open
// trace file") and chrome://tracing open: one row per thread, a span per
//   - eager op, named by the op, its operands' shapes in its arguments;
//   - call of a concrete function (fnc::function), and whether compiled
//     code or the graph executor ran it;
//   - trace of a Python-style callable, compile of a trace (MLIR passes,
//     LLVM, link; a compile-cache hit is a span of its own), eager kernel
//     compile;
//   - wait of a data pipeline for its next batch, optimizer step;
//   - scope of the user's own (profiler::Scope);
// and, with Options::kernels, a span per fused kernel of the code compiled
// while it is on, named by the fnc ops fused into it.
//
// Off (the default) it costs one relaxed atomic load per op. The
// environment variable FNC_PROFILE=<path> starts it when the process loads
// fnc and writes the file when it exits (FNC_PROFILE_KERNELS=1 adds the
// kernels). See docs/Profiling.md.
//
// Thread-safety: every function may be called from any thread; spans of
// every thread go into the one timeline.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_PROFILER_H
#define FNC_PROFILER_H

#include <cstdint>
#include <string>

namespace fnc::profiler {

struct Options {
  /// Times each fused kernel of the code compiled while the profiler is on
  /// (its own compile-cache entries: code compiled before stays untimed).
  /// A kernel's span costs two clock reads; a staged step of many small
  /// kernels runs a few percent slower.
  bool kernels = false;
};

/// Starts recording; stop() writes the trace to `path`. Throws
/// FailedPrecondition while recording already, and NotFound / InvalidArgument
/// when `path` cannot be written (checked now, so a run does not end in
/// a lost trace).
void start(const std::string &path, Options options = {});

/// Stops recording and writes the trace file. Throws FailedPrecondition when
/// not recording, InvalidArgument when the file cannot be written (the
/// disk filled, say).
void stop();

/// True while recording.
bool active();

/// A span of the user's own on this thread's row, from construction to
/// destruction (tf.profiler.experimental.Trace): `fnc::profiler::Scope
/// epoch("epoch " + std::to_string(e));`. Records nothing when the profiler
/// is off.
class Scope {
public:
  explicit Scope(std::string name);
  ~Scope();
  Scope(const Scope &) = delete;
  Scope &operator=(const Scope &) = delete;

private:
  std::string name_;
  int64_t start_ = -1;
};

} // namespace fnc::profiler

#endif // FNC_PROFILER_H
