//===- BackgroundCompile.h - Compiles traces on a background thread -*- C++ -*-===//
//
// Private to lib/Trace. A trace whose compile is deferred (tiered or graph
// execution, FunctionOptions::jit_compile) keeps its recorder in a
// PendingCompile: the background compile thread (one per process, started
// on first use) runs it, or the first caller that needs the compiled code
// while nobody has claimed it. Its calls run on the graph executor until
// ready() returns the code.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_LIB_TRACE_BACKGROUNDCOMPILE_H
#define FNC_LIB_TRACE_BACKGROUNDCOMPILE_H

#include "fnc/Trace/CompiledTrace.h"
#include "fnc/Trace/TraceRecorder.h"

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>

namespace fnc::trace {

class PendingCompile {
public:
  /// `recorder` is prepared (TraceRecorder::prepare) and needs the compiler.
  explicit PendingCompile(std::unique_ptr<TraceRecorder> recorder)
      : recorder_(std::move(recorder)) {}

  /// The compiled code once it is ready, else null; never blocks.
  const CompiledTrace *ready() const {
    return ready_.load(std::memory_order_acquire);
  }

  /// Queues the compile on the background thread. False if the thread
  /// cannot run it (it could not start, or the process is exiting): then
  /// the first wait() compiles.
  static bool start(const std::shared_ptr<PendingCompile> &pending);

  /// The compiled code: compiles it on this thread if no thread has
  /// claimed the compile, else waits for it. Null with `error` set if it
  /// failed.
  const CompiledTrace *wait(std::string &error);

  /// Called when nothing will run the code (its concrete function is gone):
  /// a compile nobody has claimed is dropped, so that the background thread
  /// skips it.
  void abandon();

private:
  /// Runs the compile (its claimer only).
  void compile();

  mutable std::mutex mutex_;
  std::condition_variable done_;
  bool claimed_ = false, finished_ = false;
  std::unique_ptr<TraceRecorder> recorder_;
  std::unique_ptr<CompiledTrace> trace_;
  std::string error_;
  std::atomic<const CompiledTrace *> ready_{nullptr};
};

} // namespace fnc::trace

#endif // FNC_LIB_TRACE_BACKGROUNDCOMPILE_H
