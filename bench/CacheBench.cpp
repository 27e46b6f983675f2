//===- CacheBench.cpp - The first call of a function, cold vs warm cache --===//
//
// A plain harness (no pass/fail): the first call of the seed function
// reduce_mean(x**2*3+y) under fnc::function in a fresh process (trace,
// compile or load from the compile cache, link, call), with a cold cache
// (an empty directory: the compiler runs and stores the code) and with a
// warm one (the entry the cold run stored). Each run is a new process
// (this program, run again with --child), so nothing of a previous run is
// in memory. Prints the medians of both and the size of the entry.
//
//   ninja fnc-bench-cache && ./bin/fnc-bench-cache [--runs=N]
//
//===----------------------------------------------------------------------===//

#include "fnc/JIT/CompileCache.h"
#include <fnc/fnc.h>

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace fs = llvm::sys::fs;

namespace {

/// One first call in this process, through the cache in `dir`; writes
/// "SECONDS HIT" to `out`.
int child(const std::string &dir, const std::string &out) {
  fnc::Tensor x = {{2.f, 3.f, 4.f}}, y = {{3.f, -2.f, 1.f}};
  fnc::FunctionOptions options;
  options.cache_dir = dir;
  auto f = fnc::function(
      [](fnc::Tensor x, fnc::Tensor y) {
        return fnc::reduce_mean(fnc::pow(x, 2.f) * 3.f + y);
      },
      options);
  auto start = std::chrono::steady_clock::now();
  float r = f(x, y).item<float>();
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  // mean(3 * [4, 9, 16] + [3, -2, 1]) = 89 / 3.
  if (std::abs(r - 89.f / 3.f) > 1e-4f) {
    std::fprintf(stderr, "bench: wrong result %g\n", r);
    return 1;
  }
  bool hit = fnc::jit::CompileCache::get(dir)->stats().hits > 0;
  std::ofstream(out) << seconds << " " << (hit ? 1 : 0) << "\n";
  return 0;
}

/// Runs this program with --child; the seconds of its first call, or -1.
double runChild(const std::string &self, const std::string &dir,
                const std::string &out, bool &hit) {
  std::vector<llvm::StringRef> args = {self, "--child", dir, out};
  std::string error;
  int rc = llvm::sys::ExecuteAndWait(self, args, std::nullopt, {}, 0, 0,
                                     &error);
  if (rc != 0) {
    std::fprintf(stderr, "bench: the child failed (%d) %s\n", rc,
                 error.c_str());
    return -1;
  }
  std::ifstream in(out);
  double seconds = -1;
  int h = 0;
  in >> seconds >> h;
  hit = h != 0;
  return seconds;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

} // namespace

int main(int argc, char **argv) {
  if (argc == 4 && std::strcmp(argv[1], "--child") == 0)
    return child(argv[2], argv[3]);
  int runs = 7;
  if (argc == 2 && std::strncmp(argv[1], "--runs=", 7) == 0)
    runs = std::max(1, std::atoi(argv[1] + 7));
  std::string self = fs::getMainExecutable(argv[0], (void *)&main);
  llvm::SmallString<128> dir;
  if (fs::createUniqueDirectory("fnc-bench-cache", dir)) {
    std::fprintf(stderr, "bench: cannot create a temporary directory\n");
    return 1;
  }
  std::string cache = (dir + "/cache").str();
  std::string out = (dir + "/out").str();
  std::vector<double> cold, warm;
  uint64_t entryBytes = 0;
  for (int i = 0; i < runs; ++i) {
    (void)fs::remove_directories(cache);
    bool hit = false;
    double c = runChild(self, cache, out, hit);
    if (c < 0 || hit) {
      std::fprintf(stderr, "bench: the cold run %s\n",
                   c < 0 ? "failed" : "hit the cache");
      return 1;
    }
    double w = runChild(self, cache, out, hit);
    if (w < 0 || !hit) {
      std::fprintf(stderr, "bench: the warm run %s\n",
                   w < 0 ? "failed" : "missed the cache");
      return 1;
    }
    cold.push_back(c);
    warm.push_back(w);
    std::error_code ec;
    for (fs::directory_iterator it(cache, ec), end; it != end && !ec;
         it.increment(ec))
      (void)fs::file_size(it->path(), entryBytes);
  }
  (void)fs::remove_directories(dir);
  std::printf("first call of reduce_mean(x**2*3+y) in a fresh process, "
              "median of %d runs:\n",
              runs);
  std::printf("  cold cache (trace, compile, store, call): %7.2f ms\n",
              median(cold) * 1e3);
  std::printf("  warm cache (trace, load, link, call):     %7.2f ms\n",
              median(warm) * 1e3);
  std::printf("  one cache entry: %llu bytes\n",
              static_cast<unsigned long long>(entryBytes));
  return 0;
}
