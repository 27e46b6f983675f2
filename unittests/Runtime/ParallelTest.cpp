//===- ParallelTest.cpp - Tests of the runtime's parallel loops -----------===//
//
// Calls the OpenMP entry points of lib/Runtime/Parallel.cpp through the
// addresses the JIT links generated code to, the way MLIR's OpenMP
// translation calls them: a region forked with one pointer to its captured
// values, in which each task asks __kmpc_for_static_init for its share of
// the iterations. Every iteration must run exactly once, for every kind of
// bound, step and schedule, from several callers at once, nested and with
// the region's `if` false.
//
//===----------------------------------------------------------------------===//

#include "fnc/Runtime/Runtime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdarg>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sched.h>
#include <sys/wait.h>
#include <thread>
#include <tuple>
#include <unistd.h>
#include <vector>

using namespace fnc::runtime;

namespace {

using Microtask = void (*)(int32_t *, int32_t *, ...);
using Fork = void (*)(void *, int32_t, Microtask, ...);
using ForkIf = void (*)(void *, int32_t, Microtask, int32_t, void *);
using PushNumThreads = void (*)(void *, int32_t, int32_t);
template <typename T, typename S>
using StaticInit = void (*)(void *, int32_t, int32_t, int32_t *, T *, T *, S *,
                            S, S);

/// The runtime's function generated code calls as `openmpName`.
template <typename F> F entry(const char *openmpName) {
  for (const ParallelEntry &e : parallelEntries())
    if (std::strcmp(e.openmpName, openmpName) == 0)
      return reinterpret_cast<F>(e.address);
  ADD_FAILURE() << "no parallel entry " << openmpName;
  return nullptr;
}

constexpr int32_t kStaticChunked = 33, kStatic = 34;

/// A loop as the outlined function of a region runs it: its inclusive
/// bounds and step, the schedule, and how often each iteration ran.
template <typename T> struct Loop {
  using S = std::make_signed_t<T>;
  T lower, upper;
  S incr;
  int32_t schedule = kStatic;
  S chunk = 0;
  std::vector<std::atomic<int>> counts;
  std::atomic<int> tasks{0};
  std::atomic<int> inRegion{0};

  Loop(T lower, T upper, S incr) : lower(lower), upper(upper), incr(incr) {
    counts = std::vector<std::atomic<int>>(size());
  }
  size_t size() const {
    if (incr > 0 ? upper < lower : lower < upper)
      return 0;
    using U = std::make_unsigned_t<T>;
    U span = incr > 0 ? U(upper) - U(lower) : U(lower) - U(upper);
    return size_t(span / U(incr > 0 ? incr : -incr)) + 1;
  }
  size_t index(T i) const {
    using U = std::make_unsigned_t<T>;
    U span = incr > 0 ? U(i) - U(lower) : U(lower) - U(i);
    return size_t(span / U(incr > 0 ? incr : -incr));
  }
};

const char *initName(int32_t) { return "__kmpc_for_static_init_4"; }
const char *initName(uint32_t) { return "__kmpc_for_static_init_4u"; }
const char *initName(int64_t) { return "__kmpc_for_static_init_8"; }
const char *initName(uint64_t) { return "__kmpc_for_static_init_8u"; }

/// The one captured value of an outlined function, as MLIR passes it. (The
/// functions here are variadic, as Microtask is: UBSan's -fsanitize=function
/// checks the type a function is called through.)
void *onlyArgument(va_list list) { return va_arg(list, void *); }

/// The outlined function of a region running `Loop<T>`.
template <typename T> void body(int32_t *, int32_t *bound, ...) {
  va_list list;
  va_start(list, bound);
  auto &loop = *static_cast<Loop<T> *>(onlyArgument(list));
  va_end(list);
  using S = typename Loop<T>::S;
  static auto init = entry<StaticInit<T, S>>(initName(T()));
  loop.tasks.fetch_add(1);
  if (inParallelRegion())
    loop.inRegion.fetch_add(1);
  int32_t last = 0;
  T lo = loop.lower, up = loop.upper;
  S stride = 0;
  init(nullptr, 0, loop.schedule, &last, &lo, &up, &stride, loop.incr,
       loop.chunk);
  // In iteration numbers: a share's bounds are iterations, except a
  // team of one's upper bound, the loop's own.
  auto number = [&](T v) {
    return (static_cast<__int128>(v) - static_cast<__int128>(loop.lower)) /
           loop.incr;
  };
  if (loop.schedule == kStatic) {
    if (loop.incr > 0 ? up < lo : lo < up)
      return;
    for (__int128 k = number(lo); k <= number(up); ++k)
      loop.counts[size_t(k)].fetch_add(1);
    return;
  }
  // Chunked: the chunk [lo, up], then one every `stride` further.
  __int128 first = number(lo), length = number(up) - first + 1,
           step = static_cast<__int128>(stride) / loop.incr;
  auto n = static_cast<__int128>(loop.size());
  for (__int128 k = first; k < n; k += step)
    for (__int128 j = k; j < k + length && j < n; ++j)
      loop.counts[size_t(j)].fetch_add(1);
}

template <typename T> Microtask microtask() { return &body<T>; }

template <typename T> void expectEachOnce(const Loop<T> &loop) {
  for (size_t i = 0; i < loop.counts.size(); ++i)
    ASSERT_EQ(loop.counts[i].load(), 1)
        << "iteration " << i << " of " << loop.counts.size();
}

template <typename T> void runAndCheck(Loop<T> &loop) {
  static Fork fork = entry<Fork>("__kmpc_fork_call");
  fork(nullptr, 1, microtask<T>(), &loop);
  expectEachOnce(loop);
  // A region shared with other threads says so to the runtime's errors.
  if (loop.tasks.load() > 1)
    EXPECT_EQ(loop.inRegion.load(), loop.tasks.load());
}

template <typename T>
void check(int64_t lo, int64_t up, int64_t incr, int32_t schedule,
           int64_t chunk) {
  using S = std::make_signed_t<T>;
  Loop<T> loop{T(lo), T(up), S(incr)};
  loop.schedule = schedule;
  loop.chunk = S(chunk);
  runAndCheck(loop);
}

TEST(RuntimeParallel, StaticSharesCoverEachIterationOnce) {
  for (int32_t schedule : {kStatic, kStaticChunked})
    for (int64_t chunk : {1, 3}) {
      if (schedule == kStatic && chunk != 1)
        continue;
      for (auto [lo, up, incr] :
           std::vector<std::tuple<int64_t, int64_t, int64_t>>{{0, 0, 1},
                                                              {0, 1, 1},
                                                              {0, 99999, 1},
                                                              {5, 4, 1},
                                                              {-7, 1000, 3},
                                                              {1000, -7, -3},
                                                              {10, 0, -1},
                                                              {3, 17, 5}}) {
        SCOPED_TRACE(testing::Message()
                     << "schedule " << schedule << " chunk " << chunk << " ["
                     << lo << ", " << up << "] by " << incr);
        check<int64_t>(lo, up, incr, schedule, chunk);
        check<int32_t>(lo, up, incr, schedule, chunk);
        if (lo >= 0 && up >= 0) {
          check<uint64_t>(lo, up, incr, schedule, chunk);
          check<uint32_t>(lo, up, incr, schedule, chunk);
        }
      }
    }
}

TEST(RuntimeParallel, ARegionIsSharedByEveryCore) {
  cpu_set_t set;
  ASSERT_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
  int cores = CPU_COUNT(&set);
  if (const char *env = std::getenv("OMP_NUM_THREADS"))
    if (std::atoi(env) > 0)
      cores = std::atoi(env);
  Loop<int64_t> loop(0, 99999, 1);
  runAndCheck(loop);
  EXPECT_EQ(loop.tasks.load(), std::max(cores, 1));
}

TEST(RuntimeParallel, CallersOnManyThreadsEachGetTheirLoop) {
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int r = 0; r < 300; ++r) {
        Loop<uint64_t> loop(0, 999 + t * 7 + r, 1);
        static Fork fork = entry<Fork>("__kmpc_fork_call");
        fork(nullptr, 1, microtask<uint64_t>(), &loop);
        for (auto &c : loop.counts)
          if (c.load() != 1)
            failures.fetch_add(1);
      }
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(failures.load(), 0);
}

/// A region whose tasks each fork another region over `inner`.
struct Nested {
  Loop<int64_t> outer{0, 63, 1};
  std::vector<std::unique_ptr<Loop<int64_t>>> inner;
};

void nestedBody(int32_t *, int32_t *bound, ...) {
  va_list list;
  va_start(list, bound);
  auto &n = *static_cast<Nested *>(onlyArgument(list));
  va_end(list);
  // The outer loop's share, each iteration forking a region of its own.
  static auto init =
      entry<StaticInit<int64_t, int64_t>>("__kmpc_for_static_init_8");
  static Fork fork = entry<Fork>("__kmpc_fork_call");
  int32_t last = 0;
  int64_t lo = 0, up = 63, stride = 0;
  init(nullptr, 0, kStatic, &last, &lo, &up, &stride, 1, 0);
  for (int64_t i = lo; i <= up; ++i) {
    n.outer.counts[size_t(i)].fetch_add(1);
    fork(nullptr, 1, microtask<int64_t>(), n.inner[size_t(i)].get());
  }
}

TEST(RuntimeParallel, NestedRegionsRunWholeOnTheirTask) {
  auto n = std::make_unique<Nested>();
  for (int64_t i = 0; i < 64; ++i)
    n->inner.push_back(std::make_unique<Loop<int64_t>>(0, 100 + i, 1));
  static Fork fork = entry<Fork>("__kmpc_fork_call");
  fork(nullptr, 1, &nestedBody, n.get());
  expectEachOnce(n->outer);
  for (int64_t i = 0; i < 64; ++i) {
    expectEachOnce(*n->inner[size_t(i)]);
    EXPECT_EQ(n->inner[size_t(i)]->tasks.load(), 1) << "inner region " << i;
  }
}

TEST(RuntimeParallel, ConditionAndNumThreadsOfOneRunOnTheCaller) {
  static ForkIf forkIf = entry<ForkIf>("__kmpc_fork_call_if");
  static Fork fork = entry<Fork>("__kmpc_fork_call");
  static PushNumThreads push = entry<PushNumThreads>("__kmpc_push_num_threads");
  Loop<int64_t> off(0, 99999, 1);
  forkIf(nullptr, 1, microtask<int64_t>(), 0, &off);
  expectEachOnce(off);
  EXPECT_EQ(off.tasks.load(), 1);
  EXPECT_EQ(off.inRegion.load(), 0);
  Loop<int64_t> on(0, 99999, 1);
  forkIf(nullptr, 1, microtask<int64_t>(), 1, &on);
  expectEachOnce(on);
  Loop<int64_t> one(0, 99999, 1);
  push(nullptr, 0, 1);
  fork(nullptr, 1, microtask<int64_t>(), &one);
  expectEachOnce(one);
  EXPECT_EQ(one.tasks.load(), 1);
  // The request holds for one region only.
  Loop<int64_t> after(0, 99999, 1);
  fork(nullptr, 1, microtask<int64_t>(), &after);
  expectEachOnce(after);
  EXPECT_FALSE(inParallelRegion());
}

TEST(RuntimeParallel, AForkedChildRunsRegionsAlone) {
  // The pool's threads are started in the parent first.
  Loop<int64_t> warm(0, 999, 1);
  runAndCheck(warm);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    Loop<int64_t> loop(0, 99999, 1);
    static Fork run = entry<Fork>("__kmpc_fork_call");
    run(nullptr, 1, microtask<int64_t>(), &loop);
    for (auto &c : loop.counts)
      if (c.load() != 1)
        _exit(2);
    _exit(loop.tasks.load() == 1 ? 0 : 3);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

} // namespace
