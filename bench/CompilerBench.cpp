//===- CompilerBench.cpp - What the compiler makes of fnc programs --------===//
//
// The figures of the compiler issue, each a ratio measured in this one run:
//   1. the seed expression reduce_mean(x*x*3 + y) on 4096x4096 f32, JIT vs
//      a hand-written fused C++ loop (-O3 -march=native, OpenMP), and GB/s;
//   2. 1024x1024 f32 matmul GFLOP/s vs OpenBLAS cblas_sgemm and the FMA
//      peak measured in the same run (bench::fmaPeakGflops), and 2b. the
//      MLP's shapes (x @ W.T, 10 and 784 columns) vs cblas_sgemm;
//   3. the per-call overhead of a cached tiny function;
//   4. compile time (parse -> callable) of the seed function;
//   5. peak memory of a chain of 10 elementwise ops on 4096x4096 f32.
// Never part of the pass/fail tests: the machines are noisy.
//
//===----------------------------------------------------------------------===//

#include "HandWritten.h"

#include "fnc/JIT/Engine.h"
#include "fnc/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

#include <cblas.h>

// OpenBLAS's own (not in every cblas.h): which kernel it chose for this CPU.
extern "C" char *openblas_get_corename(void);

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <random>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace fnc;
using Clock = std::chrono::steady_clock;

namespace {

double seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

/// Median wall time of `runs` calls of `fn`, in seconds.
double median(int runs, const std::function<void()> &fn) {
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) {
    auto start = Clock::now();
    fn();
    times.push_back(seconds(Clock::now() - start));
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

/// The best of three medians of `runs` calls of `a` and of `b`, measured
/// in alternating rounds with a pause before each: the thread pool of the
/// side that ran last (libomp's, OpenBLAS's) spins for a while after its
/// last call and would take the other side's cores.
std::pair<double, double> pairedMedians(int runs,
                                        const std::function<void()> &a,
                                        const std::function<void()> &b) {
  double ta = 1e30, tb = 1e30;
  for (int round = 0; round < 3; ++round) {
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    ta = std::min(ta, median(runs, a));
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    tb = std::min(tb, median(runs, b));
  }
  return {ta, tb};
}

struct Compiled {
  std::unique_ptr<mlir::MLIRContext> context;
  std::unique_ptr<jit::CompiledModule> module;
  const jit::Entry *entry = nullptr;
};

Compiled compile(const std::string &source, const std::string &name) {
  Compiled c;
  mlir::DialectRegistry registry;
  mlir::fnc::registerPipelineDialects(registry);
  c.context = std::make_unique<mlir::MLIRContext>(registry);
  auto module = mlir::parseSourceString<mlir::ModuleOp>(source, c.context.get());
  if (!module) {
    std::fprintf(stderr, "bench: cannot parse the module of %s\n",
                 name.c_str());
    std::exit(1);
  }
  mlir::fnc::PipelineOptions options;
  // Without the compile cache: the compile figures are the compiler's.
  auto compiled = jit::CompiledModule::compile(*module, options,
                                               /*keepIR=*/false,
                                               /*cache=*/std::string());
  if (!compiled) {
    std::fprintf(stderr, "bench: %s\n",
                 llvm::toString(compiled.takeError()).c_str());
    std::exit(1);
  }
  c.module = std::move(*compiled);
  c.entry = *c.module->lookup(name);
  return c;
}

std::vector<float> randomFloats(int64_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> v(n);
  for (auto &x : v)
    x = dist(rng);
  return v;
}

const char *kSeed = R"(
func.func @seed(%x: tensor<4096x4096xf32>, %y: tensor<4096x4096xf32>) -> tensor<f32> {
  %two = fnc.constant dense<2.0> : tensor<f32>
  %three = fnc.constant dense<3.0> : tensor<f32>
  %0 = fnc.pow %x, %two : tensor<4096x4096xf32>, tensor<f32>
  %1 = fnc.mul %0, %three : tensor<4096x4096xf32>, tensor<f32>
  %2 = fnc.add %1, %y : tensor<4096x4096xf32>, tensor<4096x4096xf32>
  %3 = fnc.mean %2 axes [] : tensor<4096x4096xf32>
  return %3 : tensor<f32>
})";

void seedExpression() {
  const int64_t n = 4096;
  std::vector<float> x = randomFloats(n * n, 1), y = randomFloats(n * n, 2);
  Compiled c = compile(kSeed, "seed");
  std::vector<int64_t> shape = {n, n};
  jit::BufferView views[] = {{DType::f32, shape, x.data()},
                             {DType::f32, shape, y.data()}};
  std::vector<jit::Buffer> results;
  float jitValue = 0, handValue = 0;
  double jitTime = median(11, [&] {
    llvm::cantFail(c.entry->call(views, results));
    jitValue = *static_cast<float *>(results[0].data());
  });
  double handTime =
      median(11, [&] { handValue = bench::seedFused(x.data(), y.data(), n * n); });
  double bytes = 2.0 * n * n * sizeof(float);
  std::printf("1. seed expression reduce_mean(x**2*3+y), 4096x4096 f32\n");
  std::printf("   fnc JIT:             %8.3f ms  %6.1f GB/s  (value %.6f)\n",
              jitTime * 1e3, bytes / jitTime / 1e9, jitValue);
  std::printf("   hand-written fused:  %8.3f ms  %6.1f GB/s  (value %.6f)\n",
              handTime * 1e3, bytes / handTime / 1e9, handValue);
  std::printf("   ratio (hand time / fnc time): %.2fx  (target >= 0.9x)\n\n",
              handTime / jitTime);
}

const char *kMatmul = R"(
func.func @mm(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %0 = fnc.matmul %a, %b : tensor<1024x1024xf32>, tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
})";

void matmul() {
  const int64_t n = 1024;
  std::vector<float> a = randomFloats(n * n, 3), b = randomFloats(n * n, 4),
                     c(n * n);
  Compiled m = compile(kMatmul, "mm");
  std::vector<int64_t> shape = {n, n};
  jit::BufferView views[] = {{DType::f32, shape, a.data()},
                             {DType::f32, shape, b.data()}};
  std::vector<jit::Buffer> results;
  auto [jitTime, blasTime] = pairedMedians(
      7, [&] { llvm::cantFail(m.entry->call(views, results)); },
      [&] {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f,
                    a.data(), n, b.data(), n, 0.0f, c.data(), n);
      });
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  double maxError = 0;
  const float *r = static_cast<const float *>(results[0].data());
  for (int64_t i = 0; i < n * n; ++i)
    maxError = std::max(maxError, (double)std::abs(r[i] - c[i]));
  double flops = 2.0 * n * n * n;
  double peak = bench::fmaPeakGflops();
  std::printf("2. matmul 1024x1024 f32 (FMA peak of this machine, measured "
              "now: %.1f GFLOP/s; OpenBLAS core: %s)\n",
              peak, openblas_get_corename());
  std::printf("   fnc JIT:       %8.2f ms  %7.1f GFLOP/s  %3.0f%% of peak\n",
              jitTime * 1e3, flops / jitTime / 1e9,
              100 * flops / jitTime / 1e9 / peak);
  std::printf("   cblas_sgemm:   %8.2f ms  %7.1f GFLOP/s  %3.0f%% of peak  "
              "(max |diff| %.2g)\n",
              blasTime * 1e3, flops / blasTime / 1e9,
              100 * flops / blasTime / 1e9 / peak, maxError);
  std::printf("   ratio (BLAS time / fnc time): %.2fx  (target >= 0.5x)\n\n",
              blasTime / jitTime);
}

const char *kShapes = R"(
func.func @xwt(%x: tensor<256x784xf32>, %w: tensor<512x784xf32>) -> tensor<256x512xf32> {
  %t = fnc.transpose %w perm [1, 0] : tensor<512x784xf32>
  %0 = fnc.matmul %x, %t : tensor<256x784xf32>, tensor<784x512xf32>
  return %0 : tensor<256x512xf32>
}
func.func @n10(%a: tensor<256x512xf32>, %b: tensor<512x10xf32>) -> tensor<256x10xf32> {
  %0 = fnc.matmul %a, %b : tensor<256x512xf32>, tensor<512x10xf32>
  return %0 : tensor<256x10xf32>
}
func.func @n784(%a: tensor<256x512xf32>, %b: tensor<512x784xf32>) -> tensor<256x784xf32> {
  %0 = fnc.matmul %a, %b : tensor<256x512xf32>, tensor<512x784xf32>
  return %0 : tensor<256x784xf32>
})";

/// The MLP's matmul shapes (issue 17): x @ W.T with the transpose in the
/// program, the classifier's 10 columns, and 784 = 12 x 64 + 16 columns
/// (the gradient of the first layer's input), each against cblas_sgemm
/// with the same transposes, in the same run.
void mlpShapes() {
  struct Shape {
    const char *name, *what;
    int64_t m, k, n;
    bool transB;
  };
  const Shape shapes[] = {
      {"xwt", "x @ W.T, 256x784 . (512x784)^T", 256, 784, 512, true},
      {"n10", "256x512 @ 512x10", 256, 512, 10, false},
      {"n784", "256x512 @ 512x784", 256, 512, 784, false},
  };
  std::printf("2b. the MLP's matmul shapes, f32 (OpenBLAS core: %s)\n",
              openblas_get_corename());
  for (const Shape &s : shapes) {
    std::vector<float> a = randomFloats(s.m * s.k, 5),
                       b = randomFloats(s.k * s.n, 6), c(s.m * s.n);
    Compiled m = compile(kShapes, s.name);
    std::vector<int64_t> aShape = {s.m, s.k};
    std::vector<int64_t> bShape = s.transB ? std::vector<int64_t>{s.n, s.k}
                                           : std::vector<int64_t>{s.k, s.n};
    jit::BufferView views[] = {{DType::f32, aShape, a.data()},
                               {DType::f32, bShape, b.data()}};
    std::vector<jit::Buffer> results;
    auto [jitTime, blasTime] = pairedMedians(
        21, [&] { llvm::cantFail(m.entry->call(views, results)); },
        [&] {
          cblas_sgemm(CblasRowMajor, CblasNoTrans,
                      s.transB ? CblasTrans : CblasNoTrans, s.m, s.n, s.k, 1.0f,
                      a.data(), s.k, b.data(), s.transB ? s.k : s.n, 0.0f,
                      c.data(), s.n);
        });
    double maxError = 0;
    const float *r = static_cast<const float *>(results[0].data());
    for (int64_t i = 0; i < s.m * s.n; ++i)
      maxError = std::max(maxError, (double)std::abs(r[i] - c[i]));
    double flops = 2.0 * s.m * s.n * s.k;
    std::printf("   %-32s fnc %7.3f ms %6.1f GFLOP/s, cblas_sgemm %7.3f ms "
                "%6.1f GFLOP/s: %.2fx (max |diff| %.2g)\n",
                s.what, jitTime * 1e3, flops / jitTime / 1e9, blasTime * 1e3,
                flops / blasTime / 1e9, blasTime / jitTime, maxError);
  }
  std::printf("   (ratio: BLAS time / fnc time; target for x @ W.T >= 0.9x)\n\n");
}

const char *kTiny = R"(
func.func @tiny(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = fnc.add %a, %b : tensor<4xf32>, tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @nothing(%a: tensor<4xf32>) {
  return
})";

void callOverhead() {
  Compiled c = compile(kTiny, "tiny");
  const jit::Entry *nothing = *c.module->lookup("nothing");
  std::vector<float> a(4, 1), b(4, 2);
  std::vector<int64_t> shape = {4};
  jit::BufferView views[] = {{DType::f32, shape, a.data()},
                             {DType::f32, shape, b.data()}};
  std::vector<jit::Buffer> results;
  const int calls = 1000000;
  auto start = Clock::now();
  for (int i = 0; i < calls; ++i)
    llvm::cantFail(nothing->call(llvm::ArrayRef(views, 1), results));
  double empty = seconds(Clock::now() - start) / calls;
  start = Clock::now();
  for (int i = 0; i < calls; ++i)
    llvm::cantFail(c.entry->call(views, results));
  double add = seconds(Clock::now() - start) / calls;
  std::printf("3. per-call overhead of a cached function (1M calls)\n");
  std::printf("   no result:                 %6.1f ns/call  (target < 100 ns)\n",
              empty * 1e9);
  std::printf("   4-element add (+ result malloc/free): %6.1f ns/call\n\n",
              add * 1e9);
}

void compileTime() {
  std::vector<double> times;
  for (int i = 0; i < 11; ++i) {
    auto start = Clock::now();
    Compiled c = compile(kSeed, "seed");
    times.push_back(seconds(Clock::now() - start));
  }
  std::sort(times.begin(), times.end());
  std::printf("4. compile time of the seed function (parse -> callable)\n");
  std::printf("   median %.1f ms, min %.1f ms, max %.1f ms  (target < 50 ms)\n\n",
              times[5] * 1e3, times[0] * 1e3, times.back() * 1e3);
}

/// A chain of 10 elementwise ops; `shared` makes every intermediate feed
/// two ops, so that fusion cannot remove them and buffer reuse must.
std::string chain(bool shared) {
  std::string s = "func.func @chain(%a: tensor<4096x4096xf32>) -> "
                  "tensor<4096x4096xf32> {\n  %t0 = fnc.exp %a : "
                  "tensor<4096x4096xf32>\n";
  const char *ops[] = {"add", "mul", "sub", "maximum", "minimum"};
  for (int i = 1; i < 10; ++i) {
    std::string prev = "%t" + std::to_string(i - 1);
    std::string rhs = shared ? prev : std::string("%a");
    s += "  %t" + std::to_string(i) + " = fnc." + ops[i % 5] + " " + prev +
         ", " + rhs + " : tensor<4096x4096xf32>, tensor<4096x4096xf32>\n";
  }
  s += "  return %t9 : tensor<4096x4096xf32>\n}\n";
  return s;
}

/// Peak resident memory added by one call, measured in a child process
/// (ru_maxrss after the call minus before it), in MiB.
double peakMiB(const std::string &source) {
  int pipefd[2];
  if (pipe(pipefd) != 0)
    return -1;
  pid_t pid = fork();
  if (pid == 0) {
    const int64_t n = 4096;
    std::vector<float> a = randomFloats(n * n, 5);
    Compiled c = compile(source, "chain");
    std::vector<int64_t> shape = {n, n};
    jit::BufferView views[] = {{DType::f32, shape, a.data()}};
    struct rusage before, after;
    getrusage(RUSAGE_SELF, &before);
    auto results = llvm::cantFail(c.entry->call(views));
    getrusage(RUSAGE_SELF, &after);
    double mib = (after.ru_maxrss - before.ru_maxrss) / 1024.0;
    (void)!write(pipefd[1], &mib, sizeof(mib));
    _exit(0);
  }
  double mib = -1;
  (void)!read(pipefd[0], &mib, sizeof(mib));
  waitpid(pid, nullptr, 0);
  return mib;
}

void peakMemory() {
  double buffer = 4096.0 * 4096 * 4 / (1 << 20);
  double fused = peakMiB(chain(false)), shared = peakMiB(chain(true));
  std::printf("5. peak memory of a chain of 10 elementwise ops, 4096x4096 f32 "
              "(one buffer = %.0f MiB)\n",
              buffer);
  std::printf("   fusable chain:            %7.1f MiB = %.2f buffers\n", fused,
              fused / buffer);
  std::printf("   every value used twice:   %7.1f MiB = %.2f buffers  "
              "(target <= 3)\n",
              shared, shared / buffer);
}

} // namespace

int main(int argc, char **argv) {
  std::string only = argc > 1 ? argv[1] : "";
  if (only.empty() || only == "seed")
    seedExpression();
  if (only.empty() || only == "matmul")
    matmul();
  if (only.empty() || only == "shapes")
    mlpShapes();
  if (only.empty() || only == "call")
    callOverhead();
  if (only.empty() || only == "compile")
    compileTime();
  if (only.empty() || only == "memory")
    peakMemory();
  return 0;
}
