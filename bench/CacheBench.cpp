//===- CacheBench.cpp - The first call of a function, cold vs warm cache --===//
//
// A plain harness (no pass/fail): the first call of the seed function
// reduce_mean(x**2*3+y) in a fresh process, staged by fnc::function (trace,
// compile or load from the compile cache, link, call) and loaded from a
// file fnc::save wrote (fnc::load: parse and compile, or load the file's
// entry from the cache; link, call), each with a cold cache (an empty
// directory: the compiler runs and stores the code) and with a warm one
// (the entries the cold run stored). Each run is a new process (this
// program, run again with --child), so nothing of a previous run is in
// memory. Prints the medians and the sizes of the cache entries and of
// the saved file.
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

auto seedFunction(const std::string &dir) {
  fnc::FunctionOptions options;
  options.cache_dir = dir;
  options.name = "seed";
  return fnc::function(
      [](fnc::Tensor x, fnc::Tensor y) {
        return fnc::reduce_mean(fnc::pow(x, 2.f) * 3.f + y);
      },
      options);
}

/// One first call in this process, through the cache in `dir`, of the seed
/// function staged (`saved` empty) or loaded from `saved`; writes
/// "SECONDS HIT" to `out`.
int child(const std::string &dir, const std::string &out,
          const std::string &saved) {
  fnc::Tensor x = {{2.f, 3.f, 4.f}}, y = {{3.f, -2.f, 1.f}};
  auto start = std::chrono::steady_clock::now();
  float r;
  if (saved.empty()) {
    auto f = seedFunction(dir);
    r = f(x, y).item<float>();
  } else {
    fnc::LoadedFunction g = fnc::load(saved, {.cache_dir = dir});
    r = g(x, y)[0].item<float>();
  }
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
                const std::string &out, const std::string &saved,
                bool &hit) {
  std::vector<llvm::StringRef> args = {self, "--child", dir, out, saved};
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
  if (argc == 5 && std::strcmp(argv[1], "--child") == 0)
    return child(argv[2], argv[3], argv[4]);
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
  // The saved file: the seed function's one signature.
  std::string saved = (dir + "/seed.mlir").str();
  {
    auto f = seedFunction("");
    f(fnc::Tensor{{2.f, 3.f, 4.f}}, fnc::Tensor{{3.f, -2.f, 1.f}});
    fnc::save(saved, f);
  }
  // Per way of getting the function (staged, loaded): cold and warm.
  std::vector<double> times[2][2];
  // The bytes the cache holds after each way's runs.
  uint64_t cachedBytes[2] = {0, 0}, savedBytes = 0;
  (void)fs::file_size(saved, savedBytes);
  for (int i = 0; i < runs; ++i)
    for (int load = 0; load < 2; ++load) {
      std::string file = load ? saved : std::string();
      (void)fs::remove_directories(cache);
      bool hit = false;
      double c = runChild(self, cache, out, file, hit);
      if (c < 0 || hit) {
        std::fprintf(stderr, "bench: the cold run %s\n",
                     c < 0 ? "failed" : "hit the cache");
        return 1;
      }
      double w = runChild(self, cache, out, file, hit);
      if (w < 0 || !hit) {
        std::fprintf(stderr, "bench: the warm run %s\n",
                     w < 0 ? "failed" : "missed the cache");
        return 1;
      }
      times[load][0].push_back(c);
      times[load][1].push_back(w);
      std::error_code ec;
      cachedBytes[load] = 0;
      for (fs::directory_iterator it(cache, ec), end; it != end && !ec;
           it.increment(ec)) {
        uint64_t bytes = 0;
        (void)fs::file_size(it->path(), bytes);
        cachedBytes[load] += bytes;
      }
    }
  (void)fs::remove_directories(dir);
  std::printf("first call of reduce_mean(x**2*3+y) in a fresh process, "
              "median of %d runs:\n",
              runs);
  const char *rows[2][2] = {
      {"fnc::function, cold cache (trace, compile, store, call)",
       "fnc::function, warm cache (trace, load, link, call)    "},
      {"fnc::load,     cold cache (parse, compile, store, call)",
       "fnc::load,     warm cache (read, load, link, call)     "}};
  for (int load = 0; load < 2; ++load)
    for (int warm = 0; warm < 2; ++warm)
      std::printf("  %s: %7.2f ms\n", rows[load][warm],
                  median(times[load][warm]) * 1e3);
  std::printf("  the function's cache entry: %llu bytes; the saved file: %llu "
              "bytes, its cache entries (the function's and the file's): "
              "%llu bytes\n",
              static_cast<unsigned long long>(cachedBytes[0]),
              static_cast<unsigned long long>(savedBytes),
              static_cast<unsigned long long>(cachedBytes[1]));
  return 0;
}
