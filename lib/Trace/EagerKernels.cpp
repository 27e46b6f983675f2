//===- EagerKernels.cpp - Eager ops on kernels of the staging pipeline ----===//
//
// The KernelProvider of fnc/API/EagerKernels.h. A kernel is one eager op
// traced alone into a function whose arguments have the operands' dtypes
// and ranks, with unknown dims except where a dim is 1 (which keeps the
// broadcasts of the op apart: compiled code never stretches an unknown
// dim), compiled by the same pipeline as fnc::function (and kept in its
// compile cache). Kernels are compiled on one background thread, or by the
// calling thread in the Blocking mode, and live as long as the process.
//
//===----------------------------------------------------------------------===//

#include "fnc/API/EagerKernels.h"

#include "fnc/API/Profile.h"
#include "fnc/API/Tape.h"
#include "fnc/JIT/Engine.h"
#include "fnc/Runtime/Runtime.h"
#include "fnc/Shape/ShapeRules.h"
#include "fnc/Trace/CompiledTrace.h"
#include "fnc/Trace/TraceRecorder.h"

#include "RunTrace.h"

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <thread>
#include <unordered_map>


namespace fnc::trace {
namespace {

struct Kernel {
  std::string name;
  std::vector<DType> dtypes;
  std::vector<std::vector<int64_t>> shapes;
  api::KernelBody body;
  /// Taken (under the mutex) by the thread that compiles it.
  bool claimed = false;
  enum State { Pending, Ready, Failed };
  std::atomic<State> state{Pending};
  /// Set before `state` becomes Ready (release), read after (acquire).
  std::unique_ptr<CompiledTrace> trace;
};

/// Traces `k`'s op on symbolic operands and compiles it; null (with the
/// reason in `error`) if either fails.
std::unique_ptr<CompiledTrace> traceKernel(const Kernel &k,
                                           std::string &error) {
  TraceRequest request;
  request.name = k.name;
  request.dtypes = k.dtypes;
  request.shapes = k.shapes;
  for (size_t i = 0; i < k.dtypes.size(); ++i)
    request.argNames.push_back("x" + std::to_string(i));
  request.body = [&k](const std::vector<Tensor> &symbolic) {
    return std::vector<Tensor>{k.body(symbolic)};
  };
  try {
    return traceAndCompile(request).trace;
  } catch (const Error &e) {
    error = e.what();
    return nullptr;
  }
}

class Kernels final : public api::KernelProvider {
public:
  Tensor run(EagerKernels mode, const std::string &opKey,
             const std::vector<const Tensor *> &operands,
             const api::KernelBody &body, bool exactShapes) override {
    std::string key = opKey;
    for (const Tensor *t : operands) {
      key += '|';
      key += dtypeName(t->dtype());
      for (int64_t d : t->shape())
        key += exactShapes ? "," + std::to_string(d) : d == 1 ? ",1" : ",?";
    }
    std::shared_ptr<Kernel> k;
    bool compileHere = false;
    {
      std::unique_lock<std::mutex> lock(mu_);
      std::shared_ptr<Kernel> &slot = kernels_[key];
      if (!slot) {
        slot = std::make_shared<Kernel>();
        slot->name = "eager_" + opKey.substr(0, opKey.find_first_of("[(|"));
        for (const Tensor *t : operands) {
          slot->dtypes.push_back(t->dtype());
          std::vector<int64_t> shape = t->shape();
          for (int64_t &d : shape)
            if (d != 1 && !exactShapes)
              d = shapes::kDynamic;
          slot->shapes.push_back(std::move(shape));
        }
        slot->body = body;
        ++pending_;
        if (mode == EagerKernels::Background && startWorker()) {
          queue_.push_back(slot);
          changed_.notify_all();
          runtime::runAtMainThreadExit(stopAtExit);
        }
      }
      k = slot;
      if (mode == EagerKernels::Blocking || !workerStarted_) {
        if (!k->claimed) {
          k->claimed = true;
          compileHere = true;
        } else {
          changed_.wait(lock, [&] { return k->state != Kernel::Pending; });
        }
      }
    }
    if (compileHere)
      compile(*k, /*onWorker=*/false);
    if (k->state.load(std::memory_order_acquire) != Kernel::Ready)
      return Tensor();
    Tensor out;
    if (llvm::Error err =
            runTrace(*k->trace, operands.data(), operands.size(), &out)) {
      // The reference kernel reports the fault (e.g. an integer division
      // by zero) in its own words.
      llvm::consumeError(std::move(err));
      return Tensor();
    }
    calls_.fetch_add(1, std::memory_order_relaxed);
    return out;
  }

  void wait() override {
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait(lock, [&] { return pending_ == 0 || stopping_; });
  }

  EagerKernelStats stats() const override {
    std::lock_guard<std::mutex> lock(mu_);
    EagerKernelStats s;
    s.compiled = compiled_;
    s.failed = failed_;
    s.pending = pending_;
    s.calls = calls_.load(std::memory_order_relaxed);
    s.compile_seconds = compileSeconds_;
    return s;
  }

  /// At exit: the kernel being compiled is finished, the queue dropped.
  void stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_)
        return;
      stopping_ = true;
      queue_.clear();
    }
    changed_.notify_all();
    if (worker_.joinable())
      worker_.join();
  }

private:
  /// Starts the compile thread once; false if it cannot be started (the
  /// calling threads then compile, as in the Blocking mode).
  bool startWorker() {
    if (workerStarted_ || workerFailed_)
      return workerStarted_;
    try {
      worker_ = std::thread([this] { workerLoop(); });
      workerStarted_ = true;
      std::atexit(stopAtExit);
    } catch (const std::system_error &) {
      workerFailed_ = true;
    }
    return workerStarted_;
  }

  void workerLoop() {
    fnc::profile::nameThread("fnc compiler (eager kernels)");
    for (;;) {
      std::shared_ptr<Kernel> k;
      {
        std::unique_lock<std::mutex> lock(mu_);
        changed_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
        if (stopping_)
          return;
        k = std::move(queue_.front());
        queue_.pop_front();
        if (k->claimed)
          continue;
        k->claimed = true;
      }
      compile(*k, /*onWorker=*/true);
    }
  }

  void compile(Kernel &k, bool onWorker) {
    auto start = std::chrono::steady_clock::now();
    std::string error;
    std::unique_ptr<CompiledTrace> trace;
    try {
      trace = traceKernel(k, error);
    } catch (const std::exception &) {
      // e.g. out of memory; the op keeps its reference kernel.
    }
    std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    {
      std::lock_guard<std::mutex> lock(mu_);
      k.trace = std::move(trace);
      k.state.store(k.trace ? Kernel::Ready : Kernel::Failed,
                    std::memory_order_release);
      (k.trace ? compiled_ : failed_) += 1;
      --pending_;
      compileSeconds_ += took.count();
    }
    changed_.notify_all();
    // What this compile constructed (the JIT, the pipeline's statics) is
    // destroyed at exit after the join registered now (see stopAtExit).
    if (onWorker)
      std::atexit(stopAtExit);
  }

  /// The compile thread must end before the objects it uses are destroyed
  /// at exit. A compile may construct function-local statics of MLIR and
  /// LLVM, which exit destroys in reverse order of construction, before
  /// anything registered earlier: an atexit handler cannot be sure to come
  /// first. The main thread's exit stops the thread before any of them
  /// (runtime::runAtMainThreadExit), waiting for a compile in flight; the
  /// atexit handlers, registered when the thread starts and after each
  /// compile, serve an exit from another thread.
  static void stopAtExit() { instance().stop(); }

public:
  static Kernels &instance() {
    // Never destroyed: stop() ends the thread at exit.
    static Kernels *kernels = new Kernels;
    return *kernels;
  }

private:
  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::unordered_map<std::string, std::shared_ptr<Kernel>> kernels_;
  std::deque<std::shared_ptr<Kernel>> queue_;
  std::thread worker_;
  bool workerStarted_ = false, workerFailed_ = false, stopping_ = false;
  uint64_t compiled_ = 0, failed_ = 0, pending_ = 0;
  double compileSeconds_ = 0;
  std::atomic<uint64_t> calls_{0};
};

struct Install {
  Install() { api::setKernelProvider(&Kernels::instance()); }
} install;

} // namespace
} // namespace fnc::trace

// Referenced by the link options of FncFunction (lib/Trace/CMakeLists.txt)
// so that every program linking it keeps this file, whose static
// initializer installs the provider.
extern "C" int fncEagerKernelsAnchor;
int fncEagerKernelsAnchor = 0;
