//===- FuzzFunction.cpp - libFuzzer target: eager vs fnc::function --------===//
//
// Random programs (the generators of the differential tests,
// unittests/Trace/RandomPrograms.h) drawn with the fuzzer's bytes as the
// source of randomness, run eagerly and staged through fnc::function. The
// first byte picks the kind: straight-line programs on static shapes, the
// same traced once with every dim unknown and called on two shapes, or
// programs over a state and a variable with cond, while_loop and for_range.
//
// An fnc::Error from the eager run is a clear error and ends the input. A
// finding (__builtin_trap) is: staged results that differ from the eager
// ones, a staged call that throws where the eager run did not, an error of
// kind Internal, or any other exception.
//
//===----------------------------------------------------------------------===//

#include "RandomPrograms.h"

#include "fnc/fnc.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <limits>
#include <random>
#include <string>

using namespace fnc;
using namespace fnc::testing;

namespace {

/// A uniform random bit generator that returns the fuzzer's bytes, four at
/// a time, so that a mutation of the input changes the program locally;
/// when they run out it continues with a generator seeded by the input.
class ByteRng {
public:
  using result_type = uint32_t;
  ByteRng(const uint8_t *data, size_t size) : data_(data), size_(size) {
    uint32_t seed = 2166136261u;
    for (size_t i = 0; i < size; ++i)
      seed = (seed ^ data[i]) * 16777619u;
    tail_.seed(seed);
  }
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() {
    return std::numeric_limits<uint32_t>::max();
  }
  result_type operator()() {
    if (pos_ + 4 > size_)
      return tail_();
    uint32_t v = uint32_t(data_[pos_]) | uint32_t(data_[pos_ + 1]) << 8 |
                 uint32_t(data_[pos_ + 2]) << 16 |
                 uint32_t(data_[pos_ + 3]) << 24;
    pos_ += 4;
    return v;
  }

private:
  const uint8_t *data_;
  size_t size_, pos_ = 0;
  std::mt19937 tail_;
};

[[noreturn]] void finding(const std::string &what) {
  std::fprintf(stderr, "fnc-fuzz-function: %s\n", what.c_str());
  __builtin_trap();
}

/// Staged and eager results must agree: the same shape and dtype, equal
/// integers, floats within `tol` relative to the largest eager magnitude
/// (the staged code fuses and reassociates), NaN where eager has NaN.
void expectSame(const Tensor &got, const Tensor &want, double tol,
                const char *what) {
  if (got.shape() != want.shape() || got.dtype() != want.dtype())
    finding(std::string(what) + ": staged shape or dtype differs from eager");
  std::vector<double> g = cast(got, DType::f64).to_vector<double>(),
                      w = cast(want, DType::f64).to_vector<double>();
  double scale = 1;
  for (double x : w)
    if (std::isfinite(x))
      scale = std::max(scale, std::abs(x));
  for (size_t i = 0; i < w.size(); ++i) {
    if (std::isnan(w[i]) && std::isnan(g[i]))
      continue;
    if (std::isinf(w[i]) && g[i] == w[i])
      continue;
    if (!(std::abs(g[i] - w[i]) <= tol * scale))
      finding(std::string(what) + ": element " + std::to_string(i) +
              " is " + std::to_string(g[i]) + " staged, " +
              std::to_string(w[i]) + " eager");
  }
}

double toleranceOf(DType dtype) {
  return dtype == DType::i32 ? 0 : dtype == DType::f32 ? 1e-4 : 1e-9;
}

/// A straight-line program, traced on static shapes, called twice.
void staticShapes(ByteRng &rng) {
  Program p = randomProgram(rng);
  std::vector<Tensor> in;
  for (const Shape &s : p.inputShapes)
    in.push_back(randomTensor(rng, p.dtype, s));
  Tensor eager = run(p, in); // an Error here ends the input
  auto staged =
      fnc::function([&p](std::vector<Tensor> xs) { return run(p, xs); });
  expectSame(staged(in), eager, toleranceOf(p.dtype), "first call");
  std::vector<Tensor> in2;
  for (const Shape &s : p.inputShapes)
    in2.push_back(randomTensor(rng, p.dtype, s));
  Tensor eager2 = run(p, in2);
  expectSame(staged(in2), eager2, toleranceOf(p.dtype), "second call");
  if (staged.tracing_count() != 1)
    finding("a second call with the same shapes traced again");
}

/// A straight-line program traced once with every dim unknown, then called
/// on two random shapes of those ranks (size-1 dims included).
void unknownDims(ByteRng &rng) {
  Program p = randomProgram(rng);
  while (p.inputShapes.size() < 3)
    p.inputShapes.push_back(p.inputShapes.back());
  FunctionOptions options;
  std::vector<TensorSpec> sig;
  for (const Shape &s : p.inputShapes)
    sig.emplace_back(Shape(s.size(), kUnknownDim), p.dtype);
  options.input_signature = sig;
  auto staged = fnc::function(
      [&p](Tensor a, Tensor b, Tensor c) { return run(p, {a, b, c}); },
      options);
  for (int call = 0; call < 2; ++call) {
    std::vector<Tensor> in = randomCallInputs(rng, p);
    Tensor eager;
    try {
      eager = run(p, in);
    } catch (const Error &) {
      continue; // shapes that do not broadcast: nothing to compare
    }
    Tensor got;
    try {
      got = staged(in[0], in[1], in[2]);
    } catch (const Error &e) {
      finding(std::string("eager ran, staged threw: ") + e.what());
    }
    expectSame(got, eager, toleranceOf(p.dtype), "unknown dims");
  }
}

/// A program over a state and a variable with control flow, called twice
/// (the variable carries its value from one call to the next).
void stateful(ByteRng &rng) {
  StateProgram p = randomStateProgram(rng);
  Tensor x0 = randomTensor(rng, DType::f32, p.shape);
  Tensor v0 = randomTensor(rng, DType::f32, p.shape);
  Variable eagerVar(v0), stagedVar(v0);
  auto staged = fnc::function([&p, &stagedVar](Tensor x, Tensor n) {
    return runState(p, stagedVar, x, n);
  });
  std::uniform_int_distribution<int> tripD(0, 5);
  for (int call = 0; call < 2; ++call) {
    Tensor n(tripD(rng));
    Tensor want = runState(p, eagerVar, x0, n);
    Tensor got;
    try {
      got = staged(x0, n);
    } catch (const Error &e) {
      finding(std::string("eager ran, staged threw: ") + e.what());
    }
    expectSame(got, want, 1e-4, "stateful result");
    expectSame(stagedVar.read_value(), eagerVar.read_value(), 1e-4,
               "stateful variable");
  }
}

} // namespace

// Staged functions compile before their first call returns (the default,
// tiered, runs a trace of 24 ops or more on the graph executor until its
// background compile is done: compiled code would seldom be fuzzed).
extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  ::setenv("FNC_JIT_COMPILE", "1", /*overwrite=*/0);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  ByteRng rng(data + 1, size - 1);
  try {
    switch (data[0] % 3) {
    case 0:
      staticShapes(rng);
      break;
    case 1:
      unknownDims(rng);
      break;
    default:
      stateful(rng);
      break;
    }
  } catch (const Error &e) {
    if (e.kind() == ErrorKind::Internal)
      finding(std::string("internal error: ") + e.what());
  } catch (const std::exception &e) {
    finding(std::string("unexpected exception: ") + e.what());
  } catch (...) {
    finding("unexpected exception of unknown type");
  }
  return 0;
}
