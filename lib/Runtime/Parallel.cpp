//===- Parallel.cpp - The thread pool of generated code's parallel loops --===//
//
// Generated code's parallel loops are OpenMP regions: MLIR's
// convert-scf-to-openmp and OpenMP translation emit, for each parallel
// nest, a call of __kmpc_fork_call with an outlined function, in which
// each thread of the team takes its share of the iterations from
// __kmpc_for_static_init (a static schedule) and ends with a barrier. fnc
// runs these calls here instead of in libomp.
//
// libomp's fork-join makes the caller wait at the join for every thread of
// the team. On a machine whose cores are busy with other processes, a
// worker the kernel has not scheduled holds up every region for a time
// slice: a 1459-op train step whose LSTM loop enters small regions every
// iteration ran 0.4-0.7 s a step beside four busy processes, 9 ms with
// OMP_NUM_THREADS=1. Here a region is a set of tasks, one per share of the
// iterations (a virtual thread of the team): the caller runs tasks until
// none is left and then waits only for the ones a worker has started, so a
// worker that wakes late finds nothing to do, and a region never takes
// longer than the caller alone would (TensorFlow's Eigen pool and rayon
// work the same way). Workers spin briefly for the next region (the
// regions of one call follow each other closely), then sleep.
//
// The outlined functions call __kmpc_barrier after their loop: the loop is
// the only work of each region (one omp.wsloop per omp.parallel, the way
// convert-scf-to-openmp builds them), so that barrier is the join's and
// does nothing here. A region entered from inside a task, from a thread
// other than the one using the pool, or with one thread runs on its caller
// as a team of one, as libomp runs a nested region.
//
// The pool has one thread less than the cores the process may use, or than
// OMP_NUM_THREADS if set (the variable that controlled libomp). The JIT
// resolves the __kmpc_* names to the functions below (runtime::symbols());
// fnc-compile renames them to the fnc* names, so that a program built from
// its object needs neither libomp nor an OpenMP compiler.
//
//===----------------------------------------------------------------------===//

#include "fnc/API/Profile.h"
#include "fnc/Runtime/Runtime.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <pthread.h>
#include <sched.h>
#include <thread>
#include <type_traits>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define FNC_PAUSE() _mm_pause()
#else
#define FNC_PAUSE() ((void)0)
#endif

namespace {

/// The outlined function of a region: (global thread id *, bound thread id
/// *, the captured values). MLIR passes one pointer to a struct of them.
using Microtask = void (*)(int32_t *, int32_t *, ...);
constexpr int kMaxArgs = 8;

/// The share of the current region's iterations this thread runs: the task
/// of `team` it runs (0 and 1 outside regions and in regions run whole).
__attribute__((tls_model("initial-exec"))) thread_local int32_t tlsTask = 0;
__attribute__((tls_model("initial-exec"))) thread_local int32_t tlsTeam = 1;
/// True while this thread runs a task of a region shared with workers.
__attribute__((tls_model("initial-exec"))) thread_local bool tlsInRegion =
    false;
/// The team size __kmpc_push_num_threads asked for the next region (0:
/// all threads).
__attribute__((tls_model("initial-exec"))) thread_local int32_t tlsPushed = 0;

/// Calls an outlined function through the variadic type libomp calls it
/// through (its own type has exactly the arguments given), so UBSan's check
/// of the called type is off here: the outlined functions are generated
/// code, which carries no type signature for it.
#if defined(__clang__)
__attribute__((no_sanitize("function")))
#endif
void invoke(Microtask fn, int32_t argc, void *const *args) {
  int32_t gtid = 0, btid = 0;
  switch (argc) {
  case 0:
    return fn(&gtid, &btid);
  case 1:
    return fn(&gtid, &btid, args[0]);
  case 2:
    return fn(&gtid, &btid, args[0], args[1]);
  case 3:
    return fn(&gtid, &btid, args[0], args[1], args[2]);
  case 4:
    return fn(&gtid, &btid, args[0], args[1], args[2], args[3]);
  case 5:
    return fn(&gtid, &btid, args[0], args[1], args[2], args[3], args[4]);
  case 6:
    return fn(&gtid, &btid, args[0], args[1], args[2], args[3], args[4],
              args[5]);
  case 7:
    return fn(&gtid, &btid, args[0], args[1], args[2], args[3], args[4],
              args[5], args[6]);
  default:
    return fn(&gtid, &btid, args[0], args[1], args[2], args[3], args[4],
              args[5], args[6], args[7]);
  }
}

/// Runs a whole region on the calling thread as a team of one.
void runWhole(Microtask fn, int32_t argc, void *const *args) {
  int32_t task = tlsTask, team = tlsTeam;
  tlsTask = 0;
  tlsTeam = 1;
  invoke(fn, argc, args);
  tlsTask = task;
  tlsTeam = team;
}

/// The threads and the one region they may share. The region's fields are
/// written by its caller before it publishes the region in `state` (its
/// generation, task count and next unclaimed task in one word), and read by
/// workers, which then claim a task by a compare-and-swap of `state`. A
/// claim succeeds only while `state` is what the worker saw before reading
/// the fields, when the region still has unclaimed tasks; the caller writes
/// the next region's fields only once every task of its region has run, so
/// a worker never runs a task with fields of another region. The pool is
/// never destroyed: its threads sleep until the process ends.
class Pool {
public:
  explicit Pool(int32_t threads) : threads_(threads) {
    for (int32_t i = 1; i < threads; ++i)
      std::thread([this, i] {
        fnc::profile::nameThread("fnc parallel worker " + std::to_string(i));
        work();
      }).detach();
  }

  int32_t threads() const { return threads_; }

  /// Runs the region with `team` tasks, sharing it with the workers if no
  /// other thread is sharing one; false if it could not.
  bool run(Microtask fn, int32_t argc, void *const *args, int32_t team) {
    if (busy_.exchange(true, std::memory_order_acquire))
      return false;
    fn_.store(fn, std::memory_order_relaxed);
    argc_.store(argc, std::memory_order_relaxed);
    for (int32_t i = 0; i < argc; ++i)
      args_[i].store(args[i], std::memory_order_relaxed);
    done_.store(0, std::memory_order_relaxed);
    // 32 bits of generation, wrapping around.
    uint64_t generation =
        ((state_.load(std::memory_order_relaxed) >> 32) + 1) & 0xffffffffu;
    // seq_cst with the load of sleeping_ (and a worker's increment of it
    // before its last look at state_): one of the two sees the other.
    state_.store(generation << 32 | uint64_t(team) << 16,
                 std::memory_order_seq_cst);
    if (sleeping_.load(std::memory_order_seq_cst) > 0) {
      std::lock_guard<std::mutex> lock(mutex_);
      wake_.notify_all();
    }
    while (claimAndRun(generation))
      ;
    for (unsigned spins = 0; done_.load(std::memory_order_acquire) < team;
         ++spins) {
      if (spins < 4096)
        FNC_PAUSE();
      else
        sched_yield();
    }
    busy_.store(false, std::memory_order_release);
    return true;
  }

private:
  /// Claims the next task of region `generation` and runs it; false if
  /// none is left or the region is another.
  bool claimAndRun(uint64_t generation) {
    uint64_t state = state_.load(std::memory_order_acquire);
    for (;;) {
      if ((state >> 32) != generation)
        return false;
      auto team = static_cast<int32_t>(state >> 16 & 0xffff);
      auto task = static_cast<int32_t>(state & 0xffff);
      if (task >= team)
        return false;
      Microtask fn = fn_.load(std::memory_order_relaxed);
      int32_t argc = argc_.load(std::memory_order_relaxed);
      void *args[kMaxArgs];
      for (int32_t i = 0; i < argc; ++i)
        args[i] = args_[i].load(std::memory_order_relaxed);
      if (!state_.compare_exchange_weak(state, state + 1,
                                        std::memory_order_acq_rel,
                                        std::memory_order_acquire))
        continue;
      tlsTask = task;
      tlsTeam = team;
      tlsInRegion = true;
      invoke(fn, argc, args);
      tlsInRegion = false;
      tlsTask = 0;
      tlsTeam = 1;
      done_.fetch_add(1, std::memory_order_release);
      return true;
    }
  }

  /// A worker: runs the tasks of each new region it sees, spinning for a
  /// while between regions before it sleeps.
  void work() {
    // 0.24 ms of pauses on the AMD EPYC machine of 2026-12-07 (a pause
    // takes 10-140 cycles by CPU): longer than the gaps between the regions
    // of one call, short enough not to take a core from other work long.
    constexpr unsigned kSpins = 20000;
    uint64_t seen = 0;
    for (;;) {
      uint64_t generation = state_.load(std::memory_order_acquire) >> 32;
      for (unsigned spins = 0; generation == seen && spins < kSpins; ++spins) {
        FNC_PAUSE();
        generation = state_.load(std::memory_order_acquire) >> 32;
      }
      if (generation == seen) {
        std::unique_lock<std::mutex> lock(mutex_);
        sleeping_.fetch_add(1, std::memory_order_seq_cst);
        wake_.wait(lock, [&] {
          generation = state_.load(std::memory_order_seq_cst) >> 32;
          return generation != seen;
        });
        sleeping_.fetch_sub(1, std::memory_order_relaxed);
      }
      seen = generation;
      while (claimAndRun(generation))
        ;
    }
  }

  const int32_t threads_;
  std::atomic<bool> busy_{false};
  /// The region's generation (bits 32-63), number of tasks (16-31) and
  /// next unclaimed task (0-15).
  std::atomic<uint64_t> state_{0};
  std::atomic<Microtask> fn_{nullptr};
  std::atomic<int32_t> argc_{0};
  std::atomic<void *> args_[kMaxArgs] = {};
  std::atomic<int32_t> done_{0};
  std::atomic<int32_t> sleeping_{0};
  std::mutex mutex_;
  std::condition_variable wake_;
};

/// The threads generated code may use: OMP_NUM_THREADS if it is a positive
/// number, else the cores this process may run on.
int32_t threadCount() {
  if (const char *env = std::getenv("OMP_NUM_THREADS")) {
    char *end = nullptr;
    long n = std::strtol(env, &end, 10);
    if (end != env && n > 0)
      return static_cast<int32_t>(std::min(n, 1024L)); // < 2^16 tasks
  }
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0)
    return std::max(1, CPU_COUNT(&set));
  return static_cast<int32_t>(
      std::max(1u, std::thread::hardware_concurrency()));
}

/// Set in a child of fork(), which has none of the pool's threads.
std::atomic<bool> gForked{false};

Pool *pool() {
  static Pool *p = [] {
    pthread_atfork(nullptr, nullptr, [] { gForked = true; });
    int32_t threads = threadCount();
    return threads > 1 ? new Pool(threads) : nullptr;
  }();
  return p;
}

[[noreturn]] void internalError(const char *what) {
  std::fprintf(stderr, "fnc: internal error: %s\n", what);
  std::fflush(stderr);
  std::_Exit(1);
}

/// __kmpc_for_static_init: narrows [*lower, *upper] (inclusive, by `incr`)
/// to this task's share, as libomp's static schedules (balanced when
/// unchunked) do.
template <typename T>
void staticInit(int32_t schedule, int32_t *last, T *lower, T *upper,
                std::make_signed_t<T> *stride, std::make_signed_t<T> incr,
                std::make_signed_t<T> chunk) {
  using U = std::make_unsigned_t<T>;
  using S = std::make_signed_t<T>;
  constexpr int32_t kStaticChunked = 33, kStatic = 34;
  if (incr == 0)
    internalError("a parallel loop with a step of 0");
  if (incr > 0 ? *upper < *lower : *lower < *upper) {
    if (last)
      *last = 0;
    *stride = incr;
    return;
  }
  U trip;
  if (incr == 1)
    trip = U(*upper) - U(*lower) + 1;
  else if (incr == -1)
    trip = U(*lower) - U(*upper) + 1;
  else if (incr > 0)
    trip = (U(*upper) - U(*lower)) / U(incr) + 1;
  else
    trip = (U(*lower) - U(*upper)) / U(-incr) + 1;
  auto team = static_cast<U>(tlsTeam), task = static_cast<U>(tlsTask);
  if (team == 1) {
    // The whole range; a chunked loop's next chunk is past its end.
    if (last)
      *last = 1;
    *stride =
        incr > 0 ? S(U(*upper) - U(*lower) + 1) : -S(U(*lower) - U(*upper) + 1);
    return;
  }
  if (schedule == kStaticChunked) {
    U size = chunk < 1 ? 1 : U(chunk);
    U span = size * U(incr);
    *stride = S(span * team);
    *lower = T(U(*lower) + span * task);
    *upper = T(U(*lower) + span - U(incr));
    if (last)
      *last = task == ((trip - 1) / size) % team;
    return;
  }
  if (schedule != kStatic)
    internalError("a parallel loop with a schedule other than static");
  if (trip < team) {
    if (task < trip)
      *upper = *lower = T(U(*lower) + task * U(incr));
    else
      *lower = T(U(*upper) + U(incr));
    if (last)
      *last = task == trip - 1;
  } else {
    U small = trip / team, extras = trip % team;
    *lower = T(U(*lower) +
               U(incr) * (task * small + (task < extras ? task : extras)));
    *upper = T(U(*lower) + small * U(incr) - (task < extras ? 0 : U(incr)));
    if (last)
      *last = task == team - 1;
  }
  *stride = S(trip);
}

/// Runs a region: shared with the pool's threads if `parallel`, else whole
/// on this thread.
void runRegion(bool parallel, Microtask fn, int32_t argc, void *const *args) {
  int32_t pushed = tlsPushed;
  tlsPushed = 0;
  Pool *p = pool();
  if (!parallel || !p || tlsTeam != 1 || tlsInRegion || pushed == 1 ||
      gForked.load(std::memory_order_relaxed)) {
    runWhole(fn, argc, args);
    return;
  }
  int32_t team = pushed > 1 ? std::min(pushed, p->threads()) : p->threads();
  if (!p->run(fn, argc, args, team))
    runWhole(fn, argc, args);
}

} // namespace

bool fnc::runtime::inParallelRegion() { return tlsInRegion; }

extern "C" {

int32_t fncParallelThreadNum(void *) { return tlsTask; }

void fncParallelPushNumThreads(void *, int32_t, int32_t threads) {
  tlsPushed = threads;
}

void fncParallelFork(void *, int32_t argc, Microtask fn, ...) {
  if (argc < 0 || argc > kMaxArgs)
    internalError("a parallel region with more than 8 captured values");
  void *args[kMaxArgs];
  va_list list;
  va_start(list, fn);
  for (int32_t i = 0; i < argc; ++i)
    args[i] = va_arg(list, void *);
  va_end(list);
  runRegion(/*parallel=*/true, fn, argc, args);
}

/// A region with an `if` clause: shared only if `condition` holds. The
/// outlined function takes one pointer (MLIR packs the captured values).
void fncParallelForkIf(void *, int32_t argc, Microtask fn, int32_t condition,
                       void *arg) {
  if (argc > 1)
    internalError("a conditional parallel region with more than one argument");
  runRegion(condition != 0, fn, argc, &arg);
}

void fncParallelStaticInit4(void *, int32_t, int32_t schedule, int32_t *last,
                            int32_t *lower, int32_t *upper, int32_t *stride,
                            int32_t incr, int32_t chunk) {
  staticInit<int32_t>(schedule, last, lower, upper, stride, incr, chunk);
}

void fncParallelStaticInit4u(void *, int32_t, int32_t schedule, int32_t *last,
                             uint32_t *lower, uint32_t *upper, int32_t *stride,
                             int32_t incr, int32_t chunk) {
  staticInit<uint32_t>(schedule, last, lower, upper, stride, incr, chunk);
}

void fncParallelStaticInit8(void *, int32_t, int32_t schedule, int32_t *last,
                            int64_t *lower, int64_t *upper, int64_t *stride,
                            int64_t incr, int64_t chunk) {
  staticInit<int64_t>(schedule, last, lower, upper, stride, incr, chunk);
}

void fncParallelStaticInit8u(void *, int32_t, int32_t schedule, int32_t *last,
                             uint64_t *lower, uint64_t *upper, int64_t *stride,
                             int64_t incr, int64_t chunk) {
  staticInit<uint64_t>(schedule, last, lower, upper, stride, incr, chunk);
}

void fncParallelStaticFini(void *, int32_t) {}

void fncParallelBarrier(void *, int32_t) {}

} // extern "C"

const std::vector<fnc::runtime::ParallelEntry> &
fnc::runtime::parallelEntries() {
  auto fn = [](auto *f) { return reinterpret_cast<void *>(f); };
  static const std::vector<ParallelEntry> entries = {
      {"__kmpc_global_thread_num", "fncParallelThreadNum",
       fn(&fncParallelThreadNum)},
      {"__kmpc_push_num_threads", "fncParallelPushNumThreads",
       fn(&fncParallelPushNumThreads)},
      {"__kmpc_fork_call", "fncParallelFork", fn(&fncParallelFork)},
      {"__kmpc_fork_call_if", "fncParallelForkIf", fn(&fncParallelForkIf)},
      {"__kmpc_for_static_init_4", "fncParallelStaticInit4",
       fn(&fncParallelStaticInit4)},
      {"__kmpc_for_static_init_4u", "fncParallelStaticInit4u",
       fn(&fncParallelStaticInit4u)},
      {"__kmpc_for_static_init_8", "fncParallelStaticInit8",
       fn(&fncParallelStaticInit8)},
      {"__kmpc_for_static_init_8u", "fncParallelStaticInit8u",
       fn(&fncParallelStaticInit8u)},
      {"__kmpc_for_static_fini", "fncParallelStaticFini",
       fn(&fncParallelStaticFini)},
      {"__kmpc_barrier", "fncParallelBarrier", fn(&fncParallelBarrier)},
  };
  return entries;
}
