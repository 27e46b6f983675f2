//===- BackgroundCompile.cpp - Compiles traces on a background thread -----===//
//
// BackgroundCompile.h. One thread takes queued compiles in order. At exit
// it finishes the compile in flight and drops the queue before anything it
// uses is destroyed, as the eager kernels' compile thread does
// (EagerKernels.cpp explains the order).
//
//===----------------------------------------------------------------------===//

#include "BackgroundCompile.h"

#include "fnc/API/Profile.h"
#include "fnc/Runtime/Runtime.h"

#include <cstdlib>
#include <deque>
#include <system_error>
#include <thread>

namespace fnc::trace {

namespace {

class Worker {
public:
  static Worker &instance() {
    // Never destroyed: stop() ends the thread at exit.
    static Worker *worker = new Worker;
    return *worker;
  }

  bool push(std::shared_ptr<PendingCompile> pending) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stopping_ || !startLocked())
        return false;
      queue_.push_back(std::move(pending));
    }
    changed_.notify_all();
    runtime::runAtMainThreadExit(stopAtExit);
    return true;
  }

  /// Registered again after each compile: what it constructed is destroyed
  /// at exit after this join.
  static void stopAtExit() { instance().stop(); }

  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stopping_)
        return;
      stopping_ = true;
      queue_.clear();
    }
    changed_.notify_all();
    if (thread_.joinable())
      thread_.join();
  }

private:
  bool startLocked() {
    if (started_ || failed_)
      return started_;
    try {
      thread_ = std::thread([this] { loop(); });
      started_ = true;
      std::atexit(stopAtExit);
    } catch (const std::system_error &) {
      failed_ = true;
    }
    return started_;
  }

  void loop() {
    fnc::profile::nameThread("fnc compiler (tiered functions)");
    for (;;) {
      std::shared_ptr<PendingCompile> next;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
        if (stopping_)
          return;
        next = std::move(queue_.front());
        queue_.pop_front();
      }
      std::string error;
      next->wait(error); // compiles unless a caller claimed it first
      next.reset();      // may destroy the trace, here rather than at exit
      std::atexit(stopAtExit);
    }
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::shared_ptr<PendingCompile>> queue_;
  std::thread thread_;
  bool started_ = false, failed_ = false, stopping_ = false;
};

} // namespace

bool PendingCompile::start(const std::shared_ptr<PendingCompile> &pending) {
  return Worker::instance().push(pending);
}

const CompiledTrace *PendingCompile::wait(std::string &error) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!claimed_) {
    claimed_ = true;
    lock.unlock();
    compile();
    lock.lock();
  }
  done_.wait(lock, [&] { return finished_; });
  error = error_;
  return trace_.get();
}

void PendingCompile::abandon() {
  std::unique_ptr<TraceRecorder> dropped;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (claimed_)
      return;
    claimed_ = finished_ = true;
    error_ = "its concrete function was dropped before it compiled";
    dropped = std::move(recorder_);
  }
  done_.notify_all();
}

void PendingCompile::compile() {
  std::string error;
  std::unique_ptr<CompiledTrace> trace;
  try {
    trace = recorder_->compile(error);
  } catch (const std::exception &e) {
    error = e.what(); // e.g. out of memory
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    trace_ = std::move(trace);
    error_ = trace_ ? "" : error;
    recorder_.reset();
    finished_ = true;
    ready_.store(trace_.get(), std::memory_order_release);
  }
  done_.notify_all();
}

} // namespace fnc::trace
