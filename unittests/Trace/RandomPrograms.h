//===- RandomPrograms.h - Random tensor programs for differential tests ---===//
//
// Generators of random programs over the public API, shared by the
// eager-vs-staged differential test and the fnc::function fuzz target:
// straight-line programs of elementwise, broadcasting, reduction, shape and
// indexing ops (`Program`, `run`), and programs over a float32 state and a variable
// that mix cond, while_loop, for_range and variable updates
// (`StateProgram`, `runState`). The generators take any uniform random bit
// generator, so a fuzzer can drive them with its input bytes.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_UNITTESTS_TRACE_RANDOMPROGRAMS_H
#define FNC_UNITTESTS_TRACE_RANDOMPROGRAMS_H

#include "fnc/fnc.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <tuple>
#include <vector>

namespace fnc::testing {

struct Instr {
  int op;     // which op
  int a, b;   // operand slots
  int64_t axis;
};

struct Program {
  DType dtype;
  std::vector<Shape> inputShapes;
  std::vector<Instr> body;
};

constexpr int kNumOps = 19;

/// A random program of 3 to 12 instructions over 2 or 3 inputs of
/// broadcast-compatible shapes.
template <typename Rng> Program randomProgram(Rng &rng) {
  Program p;
  std::uniform_int_distribution<int> dt(0, 2);
  const DType dtypes[] = {DType::i32, DType::f64, DType::f32};
  p.dtype = dtypes[dt(rng)];
  std::uniform_int_distribution<int> rankD(1, 3), dimD(1, 4), coin(0, 3);
  Shape base;
  int rank = rankD(rng);
  for (int i = 0; i < rank; ++i)
    base.push_back(dimD(rng));
  int inputs = 2 + coin(rng) % 2;
  for (int i = 0; i < inputs; ++i) {
    Shape s = base;
    for (auto &d : s)
      if (coin(rng) == 0)
        d = 1;
    if (coin(rng) == 0 && !s.empty())
      s.erase(s.begin());
    p.inputShapes.push_back(s);
  }
  std::uniform_int_distribution<int> opD(0, kNumOps - 1), lenD(3, 12);
  int len = lenD(rng);
  for (int i = 0; i < len; ++i) {
    int slots = inputs + i;
    std::uniform_int_distribution<int> slotD(0, slots - 1);
    p.body.push_back({opD(rng), slotD(rng), slotD(rng), 0});
  }
  return p;
}

/// Runs the program on `in` with the public ops (eagerly or while tracing).
inline Tensor run(const Program &p, const std::vector<Tensor> &in) {
  std::vector<Tensor> v = in;
  bool isInt = p.dtype == DType::i32;
  for (const Instr &i : p.body) {
    const Tensor &a = v[i.a], &b = v[i.b];
    Tensor r;
    switch (i.op) {
    case 0: r = a + b; break;
    case 1: r = a - b; break;
    case 2: r = a * b; break;
    case 3: r = maximum(a, b); break;
    case 4: r = minimum(a, b); break;
    case 5: r = -a; break;
    case 6: r = abs(a); break;
    case 7: r = isInt ? a * 2 : tanh(a); break;
    case 8: r = isInt ? relu(a) : sigmoid(a); break;
    case 9: r = relu(a); break;
    case 10: r = select(a > b, a, b * 2); break;
    case 11: // Keep magnitudes bounded: square of a clipped value.
      r = square(minimum(maximum(a, -3), 3));
      break;
    case 12: // Reduce the last axis, keeping dims so shapes still broadcast.
      r = a.rank() ? reduce_sum(a, {-1}, true) : a;
      break;
    case 13: r = a.rank() ? reduce_max(a, {0}, true) : a; break;
    case 14: r = isInt ? floor_div(a, 3) : floor(a); break;
    case 15: r = cast(cast(a, DType::f64) * 0.5, p.dtype); break;
    case 16: r = a - ones_like(b) + zeros(shape(a), p.dtype); break;
    case 17: r = fill(shape(a, DType::i64), reduce_max(b, {}, false)); break;
    case 18: // numpy's a[..., ::-1]: same shape, read backwards.
      r = a.rank() ? a.index({Ellipsis, Slice(None, None, -1)}) : a;
      break;
    }
    v.push_back(r);
  }
  // Return the last value plus a reduction over everything.
  Tensor total = v.back();
  for (size_t k = in.size(); k + 1 < v.size(); ++k)
    total = total + reduce_sum(v[k]);
  return total;
}

/// A tensor of `shape` with values in [-2, 2] (integers in [-6, 6]).
template <typename Rng>
Tensor randomTensor(Rng &rng, DType dtype, const Shape &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  std::uniform_real_distribution<double> u(-2, 2);
  std::vector<double> vals(n);
  for (auto &x : vals)
    x = dtype == DType::i32 ? std::round(u(rng) * 3) : u(rng);
  return cast(Tensor(vals, shape), dtype);
}

/// Inputs for one call of `p` with new dims: a random broadcast base (a
/// third of its dims 1), each input the base's trailing dims, where the
/// input's traced dim is 1, or at random, 1.
template <typename Rng>
std::vector<Tensor> randomCallInputs(Rng &rng, const Program &p) {
  std::uniform_int_distribution<int> dimD(1, 4), coin(0, 2);
  size_t rank = 0;
  for (const Shape &s : p.inputShapes)
    rank = std::max(rank, s.size());
  Shape base(rank);
  for (int64_t &d : base)
    d = coin(rng) == 0 ? 1 : dimD(rng);
  std::vector<Tensor> in;
  for (const Shape &s : p.inputShapes) {
    Shape t(base.end() - s.size(), base.end());
    for (size_t k = 0; k < s.size(); ++k)
      if (s[k] == 1 || coin(rng) == 0)
        t[k] = 1;
    in.push_back(randomTensor(rng, p.dtype, t));
  }
  return in;
}

/// A random program over a float32 state `x` and a variable `v` of the same
/// shape that mixes staged control flow and variable updates; `n` (an int32
/// scalar argument) sets the trip counts and is only known at run time.
struct StateProgram {
  Shape shape;
  std::vector<int> steps; // kinds of run(), below
  std::vector<float> consts;
};

template <typename Rng> StateProgram randomStateProgram(Rng &rng) {
  StateProgram p;
  std::uniform_int_distribution<int> rankD(0, 2), dimD(1, 3), kindD(0, 7),
      lenD(2, 6);
  std::uniform_real_distribution<float> c(-1, 1);
  for (int r = rankD(rng); r > 0; --r)
    p.shape.push_back(dimD(rng));
  for (int i = lenD(rng); i > 0; --i) {
    p.steps.push_back(kindD(rng));
    p.consts.push_back(c(rng));
  }
  return p;
}

inline Tensor runState(const StateProgram &p, const Variable &v, Tensor x,
                const Tensor &n) {
  for (size_t s = 0; s < p.steps.size(); ++s) {
    float k = p.consts[s];
    switch (p.steps[s]) {
    case 0:
      x = x * k + 0.5f;
      break;
    case 1:
      x = cond(reduce_sum(x) > k, [&] { return tanh(x); },
               [&] { return x * 0.5f - 1.f; });
      break;
    case 2:
      x = for_range(0, n, 1,
                    [&](Tensor i, Tensor y) {
                      return y * 0.9f + cast(i, DType::f32) * k;
                    },
                    x);
      break;
    case 3:
      v.assign_add(x * 0.1f);
      x = x + v.read_value();
      break;
    case 4:
      x = std::get<1>(while_loop(
          [&](Tensor c, Tensor) { return c < n; },
          [&](Tensor c, Tensor y) {
            return std::make_tuple(c + 1, tanh(y) + k);
          },
          std::make_tuple(Tensor(0), x)));
      break;
    case 5: // A variable updated in either branch.
      x = cond(reduce_max(x) > k,
               [&] {
                 v.assign(v.read_value() * 0.5f);
                 return x + 1.f;
               },
               [&] {
                 v.assign_sub(x * 0.2f);
                 return x - 1.f;
               });
      break;
    case 6: // Side effects only, once per iteration.
      for_range(0, n, 1, [&](Tensor i) {
        v.assign_add(cast(i, DType::f32) * 0.01f + k);
      });
      x = x - v.read_value() * 0.1f;
      break;
    case 7: // A cond inside a loop body.
      x = for_range(0, n, 1,
                    [&](Tensor i, Tensor y) {
                      return cond(equal(floor_mod(i, 2), 0),
                                  [&] { return y + k; },
                                  [&] { return y * 0.5f; });
                    },
                    x);
      break;
    }
  }
  return x;
}

} // namespace fnc::testing

#endif // FNC_UNITTESTS_TRACE_RANDOMPROGRAMS_H
