//===- DataBench.cpp - Cost of the data pipeline and the file formats -----===//
//
// Measures (a) the cost of one batch of 128 rows of [28, 28, 1] float32
// (a Fashion-MNIST batch) drawn from 60000 rows, shuffled (a gather of
// scattered rows) and in order, (b) an epoch with and without prefetch
// next to a simulated training step, (c) .npz save and load throughput,
// and (d) load_fashion_mnist when the Debian package is installed.
//
// A std::chrono harness; each measurement is repeated and the fastest run
// is reported. Not a test; prints numbers only.
//
//===----------------------------------------------------------------------===//

#include "fnc/fnc.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

template <typename F> double bestOf(int reps, F &&body) {
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    auto start = Clock::now();
    body();
    std::chrono::duration<double> d = Clock::now() - start;
    best = std::min(best, d.count());
  }
  return best;
}

volatile float gSink;

/// Busy-waits `seconds` (a stand-in for a training step that keeps the
/// caller's core busy).
void spin(double seconds) {
  auto end = Clock::now() + std::chrono::duration<double>(seconds);
  while (Clock::now() < end) {
  }
}

} // namespace

int main() {
  const int64_t rows = 60000;
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(0, 1);
  std::vector<float> pixels(rows * 784);
  for (float &p : pixels)
    p = u(rng);
  std::vector<int32_t> labels(rows);
  for (int32_t &l : labels)
    l = static_cast<int32_t>(rng() % 10);
  fnc::Tensor images(pixels, {rows, 28, 28, 1});
  fnc::Tensor classes(labels, {rows});
  using fnc::data::Dataset;

  // (a) One batch: each increment of an epoch's iterator makes the next
  // batch. Timed one by one over 4 epochs (a fresh epoch's first batch
  // also pays the permutation of 60000 rows, timed below); the median and
  // the minimum are reported, the minimum being what an idle machine
  // gives.
  for (bool shuffled : {true, false}) {
    Dataset ds = Dataset::from_tensor_slices({images, classes}).batch(128);
    if (shuffled)
      ds = Dataset::from_tensor_slices({images, classes}).shuffle(7).batch(128);
    std::vector<double> times;
    for (int64_t e = 0; e < 4; ++e) {
      Dataset::Epoch epoch = ds.epoch(e);
      auto it = epoch.begin();
      while (it != epoch.end()) {
        gSink = (*it)[0].data<float>()[0];
        auto start = Clock::now();
        ++it;
        std::chrono::duration<double> d = Clock::now() - start;
        if (it != epoch.end() && (*it)[0].shape()[0] == 128)
          times.push_back(d.count());
      }
    }
    std::sort(times.begin(), times.end());
    std::printf("batch of 128 x [28,28,1] f32 + 128 labels from %lld rows, "
                "%s: median %.1f us, min %.1f us (%zu batches)\n",
                static_cast<long long>(rows),
                shuffled ? "shuffled" : "in order",
                times[times.size() / 2] * 1e6, times.front() * 1e6,
                times.size());
  }
  {
    Dataset ds = Dataset::from_tensor_slices({images, classes}).shuffle(7);
    double best = bestOf(5, [&] { (void)ds.epoch(1).begin(); });
    std::printf("starting a shuffled epoch of %lld rows (the permutation): "
                "%.2f ms\n",
                static_cast<long long>(rows), best * 1e3);
  }

  // (b) An epoch of 469 batches with a 50 us step, without and with
  // prefetch.
  for (int64_t prefetch : {0, 2}) {
    Dataset ds =
        Dataset::from_tensor_slices({images, classes}).shuffle(3).batch(128);
    if (prefetch)
      ds = ds.prefetch(prefetch);
    double best = bestOf(3, [&] {
      for (const auto &batch : ds) {
        gSink = batch[0].data<float>()[0];
        spin(50e-6);
      }
    });
    std::printf("epoch of %lld batches with a 50 us step, prefetch %lld: "
                "%.1f ms (steps alone: %.1f ms)\n",
                static_cast<long long>(ds.size()),
                static_cast<long long>(prefetch), best * 1e3,
                ds.size() * 50e-3);
  }

  // (c) .npz throughput (188 MB of images).
  std::string path =
      "/tmp/fnc-data-bench-" + std::to_string(::getpid()) + ".npz";
  for (bool compressed : {false, true}) {
    fnc::Tensor part =
        fnc::slice(images, {0, 0, 0, 0}, {compressed ? 6000 : rows, 28, 28, 1});
    double mb = part.size() * 4 / 1e6;
    double save = bestOf(2, [&] {
      fnc::save_npz(path, {{"images", part}}, compressed);
    });
    double load = bestOf(2, [&] { (void)fnc::load_npz(path); });
    std::printf(".npz %s, %.0f MB: save %.0f MB/s, load %.0f MB/s\n",
                compressed ? "deflated" : "stored", mb, mb / save, mb / load);
  }
  ::unlink(path.c_str());

  // (d) Fashion-MNIST from the Debian package.
  if (::access("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz",
               R_OK) == 0) {
    double best = bestOf(2, [] { (void)fnc::data::load_fashion_mnist(); });
    std::printf("load_fashion_mnist (4 gzip IDX files, 70000 images): "
                "%.0f ms\n",
                best * 1e3);
  }
  return 0;
}
