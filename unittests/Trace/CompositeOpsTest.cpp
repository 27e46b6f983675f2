//===- CompositeOpsTest.cpp - stack, split, tile, clipping, scans, bands --===//
//
// The ops built from other ops (lib/API/Composites.cpp, lib/Trace/Scans.cpp):
// eagerly against loops written here on random shapes (zero-size and size-1
// dims, NaN),
// their gradients against central differences (eagerly and staged), and
// their errors. AgreementTest.CompositeOps runs them staged and interpreted.
//
//===----------------------------------------------------------------------===//

#include "FiniteDifferences.h"
#include "Support/ExpectError.h"

#include "fnc/fnc.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

using namespace fnc;
using namespace fnc::testing;

namespace {

int64_t count(const Shape &s) {
  int64_t n = 1;
  for (int64_t d : s)
    n *= d;
  return n;
}

/// The multi-index of flat position `flat` in `shape` (row-major).
std::vector<int64_t> unravel(int64_t flat, const Shape &shape) {
  std::vector<int64_t> idx(shape.size());
  for (int64_t i = static_cast<int64_t>(shape.size()) - 1; i >= 0; --i) {
    idx[i] = flat % shape[i];
    flat /= shape[i];
  }
  return idx;
}

int64_t ravel(const std::vector<int64_t> &idx, const Shape &shape) {
  int64_t flat = 0;
  for (size_t i = 0; i < shape.size(); ++i)
    flat = flat * shape[i] + idx[i];
  return flat;
}

/// Equal values (NaN equal to NaN, infinities exactly), same shape.
void expectSame(const std::string &what, const Tensor &got,
                const std::vector<double> &want, const Shape &shape,
                double tol = 0) {
  ASSERT_EQ(got.shape(), shape) << what;
  std::vector<double> g = cast(got, DType::f64).to_vector<double>();
  ASSERT_EQ(g.size(), want.size()) << what;
  for (size_t i = 0; i < g.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(g[i])) << what << " at " << i << ": " << g[i];
      continue;
    }
    if (std::isinf(want[i])) {
      EXPECT_EQ(g[i], want[i]) << what << " at " << i;
      continue;
    }
    EXPECT_NEAR(g[i], want[i], tol * (1 + std::fabs(want[i])))
        << what << " at " << i;
  }
}

Shape randomShape(std::mt19937 &rng, int minRank = 0) {
  int rank = std::uniform_int_distribution<int>(minRank, 3)(rng);
  Shape s;
  for (int i = 0; i < rank; ++i)
    s.push_back(std::uniform_int_distribution<int>(0, 3)(rng));
  return s;
}

/// Random float64 values with a NaN now and then.
Tensor randomValues(std::mt19937 &rng, const Shape &shape) {
  std::vector<double> v(count(shape));
  for (double &d : v)
    d = std::uniform_int_distribution<int>(0, 15)(rng) == 0
            ? std::numeric_limits<double>::quiet_NaN()
            : std::uniform_real_distribution<double>(-3, 3)(rng);
  return Tensor(v, shape);
}

std::string shapeStr(const Shape &s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i)
    out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

} // namespace

TEST(CompositeOpsTest, EagerMatchesLoops) {
  std::mt19937 rng(2026);
  for (int trial = 0; trial < 60; ++trial) {
    Shape s = randomShape(rng);
    Tensor x = randomValues(rng, s);
    std::vector<double> xv = x.to_vector<double>();
    int64_t r = static_cast<int64_t>(s.size());
    std::string at =
        " of " + shapeStr(s) + " (trial " + std::to_string(trial) + ")";

    // stack of 1-3 tensors at an axis in [-r-1, r].
    int n = std::uniform_int_distribution<int>(1, 3)(rng);
    std::vector<Tensor> values;
    for (int k = 0; k < n; ++k)
      values.push_back(randomValues(rng, s));
    int64_t axis = std::uniform_int_distribution<int64_t>(-r - 1, r)(rng);
    int64_t a = axis < 0 ? axis + r + 1 : axis;
    Shape ss = s;
    ss.insert(ss.begin() + a, n);
    std::vector<double> want(count(ss));
    for (int64_t i = 0; i < count(ss); ++i) {
      std::vector<int64_t> idx = unravel(i, ss);
      int64_t k = idx[a];
      idx.erase(idx.begin() + a);
      want[i] = values[k].to_vector<double>()[ravel(idx, s)];
    }
    expectSame("stack at " + std::to_string(axis) + at, stack(values, axis),
               want, ss);

    // clip_by_value by scalars (lo > hi now and then: lo wins).
    double lo = std::uniform_real_distribution<double>(-2, 1)(rng);
    double hi = std::uniform_real_distribution<double>(-1, 2)(rng);
    want = xv;
    for (double &v : want)
      v = std::isnan(v) ? v : std::max(std::min(v, hi), lo);
    expectSame("clip_by_value" + at, clip_by_value(x, lo, hi), want, s);

    // tile by multiples in 0..2.
    std::vector<int64_t> m;
    Shape ts;
    for (int64_t d : s) {
      m.push_back(std::uniform_int_distribution<int>(0, 2)(rng));
      ts.push_back(d * m.back());
    }
    want.assign(count(ts), 0);
    for (int64_t i = 0; i < count(ts); ++i) {
      std::vector<int64_t> idx = unravel(i, ts);
      for (int64_t k = 0; k < r; ++k)
        idx[k] %= s[k];
      want[i] = xv[ravel(idx, s)];
    }
    expectSame("tile" + at, tile(x, m), want, ts);

    // moments over a random set of axes (none drawn: all), finite values
    // (a NaN fills its results); the mean of nothing is NaN.
    Tensor fx = randomTensor(rng, s, 3);
    std::vector<double> fv = fx.to_vector<double>();
    std::vector<int64_t> axes;
    std::vector<bool> reduced(r, false);
    for (int64_t k = 0; k < r; ++k)
      if (rng() % 2) {
        axes.push_back(rng() % 2 ? k : k - r);
        reduced[k] = true;
      }
    if (axes.empty())
      reduced.assign(r, true);
    Shape kept, squeezed;
    for (int64_t k = 0; k < r; ++k) {
      kept.push_back(reduced[k] ? 1 : s[k]);
      if (!reduced[k])
        squeezed.push_back(s[k]);
    }
    std::vector<double> sum(count(kept), 0), cnt(count(kept), 0);
    auto outAt = [&](int64_t i) {
      std::vector<int64_t> idx = unravel(i, s);
      for (int64_t k = 0; k < r; ++k)
        if (reduced[k])
          idx[k] = 0;
      return ravel(idx, kept);
    };
    for (int64_t i = 0; i < count(s); ++i) {
      sum[outAt(i)] += fv[i];
      cnt[outAt(i)] += 1;
    }
    std::vector<double> mean(count(kept)), var(count(kept), 0);
    for (size_t i = 0; i < mean.size(); ++i)
      mean[i] = cnt[i] ? sum[i] / cnt[i] : std::nan("");
    for (int64_t i = 0; i < count(s); ++i)
      var[outAt(i)] += std::pow(fv[i] - mean[outAt(i)], 2) / cnt[outAt(i)];
    for (size_t i = 0; i < var.size(); ++i)
      if (!cnt[i])
        var[i] = std::nan("");
    bool keepdims = rng() % 2;
    auto [mu, sigma2] = moments(fx, axes, keepdims);
    expectSame("moments' mean" + at, mu, mean, keepdims ? kept : squeezed,
               1e-12);
    expectSame("moments' variance" + at, sigma2, var,
               keepdims ? kept : squeezed, 1e-12);

    // global_norm and clip_by_global_norm of 1-3 tensors of any shapes.
    std::vector<Tensor> list;
    double squares = 0;
    for (int k = std::uniform_int_distribution<int>(1, 3)(rng); k > 0; --k) {
      list.push_back(randomTensor(rng, randomShape(rng), 2));
      for (double v : list.back().to_vector<double>())
        squares += v * v;
    }
    double norm = std::sqrt(squares);
    double clip = std::uniform_real_distribution<double>(0.5, 5)(rng);
    expectSame("global_norm" + at, global_norm(list), {norm}, {}, 1e-12);
    auto [clipped, gotNorm] = clip_by_global_norm(list, clip);
    expectSame("clip_by_global_norm's norm" + at, gotNorm, {norm}, {}, 1e-12);
    ASSERT_EQ(clipped.size(), list.size());
    for (size_t k = 0; k < list.size(); ++k) {
      std::vector<double> c = list[k].to_vector<double>();
      for (double &v : c)
        v *= norm > clip ? clip / norm : 1;
      expectSame("clip_by_global_norm" + at, clipped[k], c, list[k].shape(),
                 1e-12);
    }

    if (r == 0)
      continue;

    // unstack and split along an axis.
    axis = std::uniform_int_distribution<int64_t>(-r, r - 1)(rng);
    a = axis < 0 ? axis + r : axis;
    auto part = [&](int64_t begin, int64_t size) {
      Shape ps = s;
      ps[a] = size;
      std::vector<double> p(count(ps));
      for (int64_t i = 0; i < count(ps); ++i) {
        std::vector<int64_t> idx = unravel(i, ps);
        idx[a] += begin;
        p[i] = xv[ravel(idx, s)];
      }
      return std::pair{p, ps};
    };
    std::vector<Tensor> pieces = unstack(x, axis);
    ASSERT_EQ(static_cast<int64_t>(pieces.size()), s[a]) << at;
    for (int64_t i = 0; i < s[a]; ++i) {
      auto [p, ps] = part(i, 1);
      ps.erase(ps.begin() + a);
      expectSame("unstack" + at, pieces[i], p, ps);
    }
    // Sizes adding up to the dim, one of them -1 half the time.
    std::vector<int64_t> sizes;
    for (int64_t left = s[a]; left > 0;) {
      sizes.push_back(std::uniform_int_distribution<int64_t>(0, left)(rng));
      left -= sizes.back();
    }
    if (sizes.empty())
      sizes.push_back(0);
    std::vector<int64_t> given = sizes;
    if (rng() % 2)
      given[rng() % given.size()] = -1;
    pieces = split(x, given, axis);
    ASSERT_EQ(pieces.size(), sizes.size()) << at;
    for (size_t i = 0, begin = 0; i < sizes.size(); begin += sizes[i++]) {
      auto [p, ps] = part(begin, sizes[i]);
      expectSame("split by sizes" + at, pieces[i], p, ps);
    }
    if (s[a] > 0) {
      int64_t num = s[a] % 3 == 0 ? 3 : s[a] % 2 == 0 ? 2 : 1;
      pieces = split(x, num, axis);
      ASSERT_EQ(static_cast<int64_t>(pieces.size()), num) << at;
      for (int64_t i = 0; i < num; ++i) {
        auto [p, ps] = part(i * (s[a] / num), s[a] / num);
        expectSame("split into " + std::to_string(num) + at, pieces[i], p, ps);
      }
    }
  }
}

// cumsum, cumprod (lib/Trace/Scans.cpp) and the band ops against loops,
// eagerly and traced with every dim unknown (the scans then loop over
// their doubling steps in a staged while_loop, the bands' positions come
// from a scan of ones).
TEST(CompositeOpsTest, ScansAndBandsMatchLoops) {
  std::mt19937 rng(31);
  // On the graph executor (AgreementTest.CompositeOps compiles them).
  FunctionOptions unknown;
  unknown.jit_compile = false;
  for (int trial = 0; trial < 40; ++trial) {
    Shape s = randomShape(rng, 1);
    for (int64_t &d : s)
      d = std::uniform_int_distribution<int>(0, 6)(rng); // several steps
    Tensor x = randomValues(rng, s);
    std::vector<double> xv = x.to_vector<double>();
    int64_t r = static_cast<int64_t>(s.size());
    std::string at =
        " of " + shapeStr(s) + " (trial " + std::to_string(trial) + ")";
    unknown.input_signature =
        std::vector<TensorSpec>{TensorSpec(Shape(r, kUnknownDim), DType::f64)};
    int64_t axis = std::uniform_int_distribution<int64_t>(-r, r - 1)(rng);
    int64_t a = axis < 0 ? axis + r : axis;
    for (int flags = 0; flags < 8; ++flags) {
      bool exclusive = flags & 1, reverse = flags & 2, product = flags & 4;
      std::vector<double> want(xv.size());
      for (int64_t i = 0; i < count(s); ++i) {
        std::vector<int64_t> idx = unravel(i, s);
        int64_t k = idx[a];
        double acc = product ? 1 : 0;
        for (int64_t j = 0; j < s[a]; ++j) {
          bool in = reverse ? (exclusive ? j > k : j >= k)
                            : (exclusive ? j < k : j <= k);
          if (!in)
            continue;
          idx[a] = j;
          double v = xv[ravel(idx, s)];
          acc = product ? acc * v : acc + v;
        }
        want[i] = acc;
      }
      auto op = [=](const Tensor &t) {
        return product ? cumprod(t, axis, exclusive, reverse)
                       : cumsum(t, axis, exclusive, reverse);
      };
      std::string what = std::string(product ? "cumprod" : "cumsum") +
                         " along " + std::to_string(axis) +
                         (exclusive ? ", exclusive" : "") +
                         (reverse ? ", reverse" : "") + at;
      expectSame(what, op(x), want, s, 1e-12);
      if (flags == 1 || flags == 6)
        expectSame(what + ", staged with unknown dims",
                   fnc::function([op](Tensor t) { return op(t); }, unknown)(x),
                   want, s, 1e-12);
    }
    // Integers sum exactly.
    std::vector<int32_t> iv(xv.size());
    for (size_t i = 0; i < iv.size(); ++i)
      iv[i] = std::uniform_int_distribution<int32_t>(-1000, 1000)(rng);
    Tensor xi = Tensor(iv, s);
    std::vector<double> wantInt(iv.size());
    for (int64_t i = 0; i < count(s); ++i) {
      std::vector<int64_t> idx = unravel(i, s);
      int64_t k = idx[a];
      for (int64_t j = 0; j <= k; ++j) {
        idx[a] = j;
        wantInt[i] += iv[ravel(idx, s)];
      }
    }
    Tensor sums = cumsum(xi, axis);
    EXPECT_EQ(sums.dtype(), DType::i32);
    expectSame("cumsum of int32" + at, sums, wantInt, s);

    if (r < 2)
      continue;
    // Bands: keep lo <= column - row <= hi.
    int64_t lower = std::uniform_int_distribution<int64_t>(-1, 3)(rng),
            upper = std::uniform_int_distribution<int64_t>(-1, 3)(rng),
            k = std::uniform_int_distribution<int64_t>(-3, 3)(rng);
    auto band = [&](auto keep) {
      std::vector<double> w(xv.size());
      for (int64_t i = 0; i < count(s); ++i) {
        std::vector<int64_t> idx = unravel(i, s);
        w[i] = keep(idx[r - 1] - idx[r - 2]) ? xv[i] : 0.0;
      }
      return w;
    };
    std::vector<double> wantBand = band([&](int64_t d) {
      return (lower < 0 || -d <= lower) && (upper < 0 || d <= upper);
    });
    std::string bp = "band_part(" + std::to_string(lower) + ", " +
                     std::to_string(upper) + ")" + at;
    expectSame(bp, band_part(x, lower, upper), wantBand, s);
    expectSame(
        bp + ", staged with unknown dims",
        fnc::function([=](Tensor t) { return band_part(t, lower, upper); },
                      unknown)(x),
        wantBand, s);
    std::vector<double> wantTril = band([&](int64_t d) { return d <= k; });
    std::vector<double> wantTriu = band([&](int64_t d) { return d >= k; });
    std::string kk = "(" + std::to_string(k) + ")" + at;
    expectSame("tril" + kk, tril(x, k), wantTril, s);
    expectSame("triu" + kk, triu(x, k), wantTriu, s);
    expectSame("tril" + kk + ", staged with unknown dims",
               fnc::function([=](Tensor t) { return tril(t, k); }, unknown)(x),
               wantTril, s);
  }
}

/// numpy's einsum of an explicit equation of letters, by its definition:
/// for every value of every label, the product of the operands' elements
/// at those labels (a dim of 1 read at 0 against any size) added into the
/// output's element.
std::vector<double> einsumByLoops(const std::string &equation,
                                  const std::vector<Tensor> &inputs,
                                  Shape &outShape) {
  size_t arrow = equation.find("->");
  std::vector<std::string> terms;
  std::string lhs = equation.substr(0, arrow);
  for (size_t start = 0;;) {
    size_t comma = lhs.find(',', start);
    terms.push_back(lhs.substr(start, comma - start));
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  std::string out = equation.substr(arrow + 2), all;
  std::map<char, int64_t> size;
  std::vector<std::vector<double>> values;
  for (size_t i = 0; i < terms.size(); ++i) {
    values.push_back(cast(inputs[i], DType::f64).to_vector<double>());
    for (size_t d = 0; d < terms[i].size(); ++d) {
      char c = terms[i][d];
      int64_t n = inputs[i].shape()[d];
      if (!size.count(c)) {
        all += c;
        size[c] = n;
      } else if (size[c] == 1) {
        size[c] = n;
      }
    }
  }
  outShape.clear();
  for (char c : out)
    outShape.push_back(size[c]);
  std::vector<double> result(count(outShape), 0.0);
  Shape allShape;
  for (char c : all)
    allShape.push_back(size[c]);
  for (int64_t flat = 0; flat < count(allShape); ++flat) {
    std::vector<int64_t> at = unravel(flat, allShape);
    auto valueOf = [&](char c) { return at[all.find(c)]; };
    double product = 1;
    for (size_t i = 0; i < terms.size(); ++i) {
      std::vector<int64_t> idx;
      for (size_t d = 0; d < terms[i].size(); ++d)
        idx.push_back(inputs[i].shape()[d] == 1 ? 0 : valueOf(terms[i][d]));
      product *= values[i][ravel(idx, inputs[i].shape())];
    }
    std::vector<int64_t> o;
    for (char c : out)
      o.push_back(valueOf(c));
    result[ravel(o, outShape)] += product;
  }
  return result;
}

TEST(CompositeOpsTest, EinsumMatchesSums) {
  std::mt19937 rng(34);
  // {equation, the same with letters for '...' and an explicit output,
  //  operand shapes with letters of random sizes}.
  struct Case {
    std::string equation, explicitForm;
    std::vector<std::string> operands; // a letter per dim; '1': size 1
  };
  std::vector<Case> cases = {
      {"ij,jk->ik", "ij,jk->ik", {"ij", "jk"}},
      {"bij,bjk->bik", "bij,bjk->bik", {"bij", "bjk"}},
      {"bqhd,bkhd->bhqk", "bqhd,bkhd->bhqk", {"bqhd", "bkhd"}},
      {"bhqk,bkhd->bqhd", "bhqk,bkhd->bqhd", {"bhqk", "bkhd"}},
      {"abc,cd->abd", "abc,cd->abd", {"abc", "cd"}},
      {"ijk,ikl->jl", "ijk,ikl->jl", {"ijk", "ikl"}},
      {"abcd,cde->abe", "abcd,cde->abe", {"abcd", "cde"}},
      {"ij->ji", "ij->ji", {"ij"}},
      {"ij->", "ij->", {"ij"}},
      {"ijk->kj", "ijk->kj", {"ijk"}},
      {"ii->i", "ii->i", {"ii"}},
      {"ii", "ii->", {"ii"}},
      {"iji->ij", "iji->ij", {"iji"}},
      {"i,j->ij", "i,j->ij", {"i", "j"}},
      {"ij,ij->ij", "ij,ij->ij", {"ij", "ij"}},
      {"a,a", "a,a->", {"a", "a"}},
      {"ba,cb", "ba,cb->ac", {"ba", "cb"}},
      {",ij->ji", ",ij->ji", {"", "ij"}},
      {"ijk,jl,lk->i", "ijk,jl,lk->i", {"ijk", "jl", "lk"}},
      {"ab,bc,cd,da->", "ab,bc,cd,da->", {"ab", "bc", "cd", "da"}},
      {"...ij,...jk->...ik", "xyij,yjk->xyik", {"xyij", "1jk"}},
      {"...ij,...jk", "xyij,yjk->xyik", {"x1ij", "yjk"}},
      {"i...->...", "iab->ab", {"iab"}},
      {"...i,i->...", "abi,i->ab", {"abi", "i"}},
  };
  FunctionOptions eagerGraph;
  eagerGraph.jit_compile = false;
  for (int trial = 0; trial < 4; ++trial) {
    for (const Case &c : cases) {
      std::map<char, int64_t> sizes;
      std::vector<Tensor> inputs;
      for (const std::string &o : c.operands) {
        Shape s;
        for (char d : o) {
          if (d == '1') {
            s.push_back(1);
            continue;
          }
          if (!sizes.count(d))
            sizes[d] = std::uniform_int_distribution<int>(trial == 0, 3)(rng);
          s.push_back(sizes[d]);
        }
        inputs.push_back(randomValues(rng, s));
      }
      Shape outShape;
      std::vector<double> want =
          einsumByLoops(c.explicitForm, inputs, outShape);
      std::string what = "einsum(\"" + c.equation + "\") of";
      for (const Tensor &t : inputs)
        what += " " + shapeStr(t.shape());
      expectSame(what, einsum(c.equation, inputs), want, outShape, 1e-12);
      // Staged with every dim unknown, on the graph executor
      // (AgreementTest.CompositeOps compiles it).
      std::vector<TensorSpec> specs;
      for (const Tensor &t : inputs)
        specs.push_back(TensorSpec(Shape(t.rank(), kUnknownDim), DType::f64));
      eagerGraph.input_signature = specs;
      std::string eq = c.equation;
      Tensor staged;
      bool diagonal = c.equation.find("ii") != std::string::npos ||
                      c.equation.find("iji") != std::string::npos;
      if (diagonal) // needs its size known while tracing
        continue;
      if (inputs.size() == 1)
        staged = fnc::function([eq](Tensor a) { return einsum(eq, a); },
                               eagerGraph)(inputs[0]);
      else if (inputs.size() == 2)
        staged =
            fnc::function([eq](Tensor a, Tensor b) { return einsum(eq, a, b); },
                          eagerGraph)(inputs[0], inputs[1]);
      else if (inputs.size() == 3)
        staged = fnc::function(
            [eq](Tensor a, Tensor b, Tensor d) {
              return einsum(eq, {a, b, d});
            },
            eagerGraph)(inputs[0], inputs[1], inputs[2]);
      if (staged.defined())
        expectSame(what + ", staged with unknown dims", staged, want, outShape,
                   1e-12);
    }
  }
  // Integers multiply exactly.
  Tensor a = Tensor(std::vector<int32_t>{1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor b = Tensor(std::vector<int32_t>{1, -1, 2, 0, 3, 1}, {3, 2});
  Tensor ab = einsum("ij,jk->ik", a, b);
  EXPECT_EQ(ab.dtype(), DType::i32);
  EXPECT_EQ(ab.to_vector<int32_t>(), (std::vector<int32_t>{14, 2, 32, 2}));
}

TEST(CompositeOpsTest, TopKMatchesAStableSort) {
  std::mt19937 rng(35);
  FunctionOptions unknown;
  unknown.jit_compile = false; // AgreementTest.CompositeOps compiles it
  const double inf = std::numeric_limits<double>::infinity();
  for (int trial = 0; trial < 30; ++trial) {
    Shape s = randomShape(rng, 1);
    s.back() = std::uniform_int_distribution<int>(0, 6)(rng);
    // Few distinct values, so that ties are common; NaN and infinities.
    std::vector<double> v(count(s));
    for (double &d : v) {
      int pick = std::uniform_int_distribution<int>(0, 9)(rng);
      d = pick == 0   ? std::numeric_limits<double>::quiet_NaN()
          : pick == 1 ? -inf
          : pick == 2 ? inf
                      : pick - 5.0;
    }
    Tensor x = Tensor(v, s);
    int64_t n = s.back(), rows = n ? count(s) / n : 0;
    int64_t k = std::uniform_int_distribution<int64_t>(0, n)(rng);
    // The reference: each row sorted, NaN first, then descending, equal
    // values in index order.
    std::vector<double> wantValues;
    std::vector<double> wantIndices;
    for (int64_t r = 0; r < rows; ++r) {
      std::vector<int64_t> order(n);
      for (int64_t i = 0; i < n; ++i)
        order[i] = i;
      auto key = [&](int64_t i) { return v[r * n + i]; };
      std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
        double x = key(a), y = key(b);
        if (std::isnan(x) || std::isnan(y))
          return std::isnan(x) != std::isnan(y) ? std::isnan(x) : a < b;
        return x != y ? x > y : a < b; // equal values in index order
      });
      for (int64_t i = 0; i < k; ++i) {
        wantValues.push_back(key(order[i]));
        wantIndices.push_back(static_cast<double>(order[i]));
      }
    }
    Shape out = s;
    out.back() = k;
    std::string what = "top_k(" + std::to_string(k) + ") of " + shapeStr(s);
    auto [values, indices] = top_k(x, k);
    EXPECT_EQ(indices.dtype(), DType::i32);
    expectSame(what + " values", values, wantValues, out);
    expectSame(what + " indices", indices, wantIndices, out);
    // Integers, staged with every dim but the last unknown.
    Tensor xi = cast(select(not_equal(x, x), zeros_like(x), x), DType::i32);
    Shape dims(s.size(), kUnknownDim);
    dims.back() = n;
    unknown.input_signature =
        std::vector<TensorSpec>{TensorSpec(dims, DType::i32)};
    auto staged = fnc::function(
        [k](Tensor a) {
          auto [top, at] = top_k(a, k);
          return std::vector<Tensor>{top, at};
        },
        unknown)(xi);
    auto [eagerTop, eagerAt] = top_k(xi, k);
    expectSame(what + " of int32, staged", staged[0],
               cast(eagerTop, DType::f64).to_vector<double>(), out);
    expectSame(what + " indices of int32, staged", staged[1],
               cast(eagerAt, DType::f64).to_vector<double>(), out);
  }
}

TEST(CompositeOpsTest, ScattersMatchLoops) {
  std::mt19937 rng(36);
  FunctionOptions unknown;
  unknown.jit_compile = false; // AgreementTest.CompositeOps compiles them
  const double inf = std::numeric_limits<double>::infinity();
  for (int trial = 0; trial < 40; ++trial) {
    Shape shape = randomShape(rng, 1);
    int64_t rank = static_cast<int64_t>(shape.size());
    int64_t q = std::uniform_int_distribution<int64_t>(1, rank)(rng);
    bool empty = false;
    for (int64_t d = 0; d < q; ++d)
      empty = empty || shape[d] == 0;
    int64_t rows =
        empty ? 0 : std::uniform_int_distribution<int64_t>(0, 5)(rng);
    std::vector<int64_t> iv;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t d = 0; d < q; ++d)
        iv.push_back(
            std::uniform_int_distribution<int64_t>(0, shape[d] - 1)(rng));
    Tensor indices = Tensor(iv, {rows, q});
    Shape slice(shape.begin() + q, shape.end()), us = {rows};
    us.insert(us.end(), slice.begin(), slice.end());
    Tensor updates = randomValues(rng, us);
    std::vector<double> uv = updates.to_vector<double>();
    if (!uv.empty() && trial % 3 == 0) { // an infinity reaches one position
      uv[0] = trial % 2 ? inf : -inf;
      updates = Tensor(uv, us);
    }
    Tensor tensor = randomValues(rng, shape);
    std::vector<double> tv = tensor.to_vector<double>();
    int64_t r = count(slice);
    std::vector<double> added(count(shape), 0.0), updated = tv;
    for (int64_t n = 0; n < rows; ++n) {
      int64_t at = 0;
      for (int64_t d = 0; d < q; ++d)
        at = at * shape[d] + iv[n * q + d];
      for (int64_t j = 0; j < r; ++j) {
        added[at * r + j] += uv[n * r + j];
        updated[at * r + j] = uv[n * r + j];
      }
    }
    std::vector<double> plus(tv.size());
    for (size_t i = 0; i < tv.size(); ++i)
      plus[i] = tv[i] + added[i];
    std::string what = shapeStr(shape) + " by " + std::to_string(rows) +
                       " rows of " + std::to_string(q) + " (trial " +
                       std::to_string(trial) + ")";
    expectSame("scatter_nd into " + what, scatter_nd(indices, updates, shape),
               added, shape, 1e-12);
    expectSame("tensor_scatter_nd_update of " + what,
               tensor_scatter_nd_update(tensor, indices, updates), updated,
               shape);
    expectSame("tensor_scatter_nd_add of " + what,
               tensor_scatter_nd_add(tensor, indices, updates), plus, shape,
               1e-12);
    // Staged with the number of rows unknown, int32 indices.
    Shape unknownRows = us;
    unknownRows[0] = kUnknownDim;
    unknown.input_signature =
        std::vector<TensorSpec>{TensorSpec({kUnknownDim, q}, DType::i32),
                                TensorSpec(unknownRows, DType::f64)};
    std::vector<Tensor> staged = fnc::function(
        [&](Tensor i, Tensor u) {
          return std::vector<Tensor>{scatter_nd(i, u, shape),
                                     tensor_scatter_nd_update(tensor, i, u)};
        },
        unknown)(cast(indices, DType::i32), updates);
    expectSame("scatter_nd into " + what + ", staged", staged[0], added, shape,
               1e-12);
    expectSame("tensor_scatter_nd_update of " + what + ", staged", staged[1],
               updated, shape);
  }
  // Integers add exactly.
  Tensor hits = scatter_nd(Tensor(std::vector<int32_t>{1, 3, 1}, {3, 1}),
                           Tensor(std::vector<int32_t>{5, 7, -2}, {3}), {4});
  EXPECT_EQ(hits.dtype(), DType::i32);
  EXPECT_EQ(hits.to_vector<int32_t>(), (std::vector<int32_t>{0, 3, 0, 7}));
}

TEST(CompositeOpsTest, GradientsMatchFiniteDifferences) {
  using Op = std::function<Tensor(const Tensor &)>;
  std::mt19937 rng(11);
  Tensor x = randomTensor(rng, {2, 3, 2}, 2);
  std::vector<std::pair<std::string, Op>> ops = {
      {"stack",
       [](const Tensor &a) {
         return stack({a, a * a}, 1);
       }},
      {"unstack", [](const Tensor &a) { return unstack(a, 1)[1] * 3.0; }},
      {"split",
       [](const Tensor &a) {
         return split(a, {2, -1}, 1)[1];
       }},
      {"tile",
       [](const Tensor &a) {
         return tile(a, {2, 1, 3});
       }},
      {"clip_by_value",
       [](const Tensor &a) { return clip_by_value(a, -1, 1); }},
      {"moments' mean",
       [](const Tensor &a) {
         return moments(a, {0, 2}).first;
       }},
      {"moments' variance",
       [](const Tensor &a) { return moments(a, {1}, true).second; }},
      {"clip_by_global_norm",
       [](const Tensor &a) {
         auto [c, norm] = clip_by_global_norm({a, a * 2.0}, 2.0);
         return c[1] + norm;
       }},
      {"cumsum", [](const Tensor &a) { return cumsum(a, 1); }},
      {"cumsum, exclusive and reverse",
       [](const Tensor &a) { return cumsum(a, -1, true, true); }},
      {"cumprod", [](const Tensor &a) { return cumprod(a, 1); }},
      {"cumprod through a zero", // (TF's rule divides by x: NaN)
       [](const Tensor &a) {
         return cumprod(a * Tensor(std::vector<double>{1, 0, 1}, {3, 1}), 1,
                        false, true);
       }},
      {"band_part", [](const Tensor &a) { return band_part(a, 0, 1); }},
      {"tril", [](const Tensor &a) { return tril(a, -1); }},
      {"triu", [](const Tensor &a) { return triu(a); }},
      {"top_k", [](const Tensor &a) { return top_k(a, 2).first; }},
      {"scatter_nd, a position twice",
       [](const Tensor &a) {
         Tensor at = Tensor(std::vector<int32_t>{1, 0, 1}, {3, 1});
         Tensor first = slice(a, {0, 0, 0}, {1, -1, -1});
         return scatter_nd(at, concat({a, first}, 0) * 2.0, {2, 3, 2});
       }},
      {"tensor_scatter_nd_update, the last of a position wins",
       [](const Tensor &a) {
         Tensor at = Tensor(std::vector<int32_t>{1, 2, 0, 0, 1, 2}, {3, 2});
         Tensor rows = reshape(slice(a, {0, 0, 0}, {1, -1, -1}), {3, 2});
         return tensor_scatter_nd_update(a, at, square(rows));
       }},
      {"einsum, attention's scores",
       [](const Tensor &a) { return einsum("bqd,bkd->bqk", a, a * a); }},
      {"einsum, a diagonal and three operands",
       [](const Tensor &a) {
         Tensor first = squeeze(slice(a, {0, 0, 0}, {1, -1, -1}), {0});
         return einsum("iji,jk,kl->il", {a, first, reshape(a, {2, 6})});
       }},
  };
  FunctionOptions unknown;
  unknown.input_signature = std::vector<TensorSpec>{
      TensorSpec({kUnknownDim, kUnknownDim, kUnknownDim}, DType::f64)};
  // Sums of products with random weights: every element of a result counts.
  for (const auto &[name, op] : ops) {
    Tensor w = randomTensor(rng, op(x).shape(), 1);
    auto loss = [op = op, w](Tensor a) { return reduce_sum(op(a) * w); };
    Tensor value = x;
    std::vector<double> numeric = centralDifferences(
        x, [&](const Tensor &t) { value = t; },
        [&] { return loss(value).item<double>(); });
    Tensor eager = fnc::grad(loss)(x);
    expectSame(name + ", eager", eager, numeric, x.shape(), 1e-6);
    Tensor staged = fnc::function(fnc::grad(loss))(x);
    expectSame(name + ", staged", staged, numeric, x.shape(), 1e-6);
    if (name.rfind("cum", 0) == 0 || name == "tril" ||
        name == "einsum, attention's scores") // loops; reads dims at run time
      expectSame(name + ", staged with unknown dims",
                 fnc::function(fnc::grad(loss), unknown)(x), numeric, x.shape(),
                 1e-6);
  }
  // clip_by_value's ties pass the gradient to x, as TensorFlow.
  Tensor at = Tensor(std::vector<double>{-1, 1, -2, 2, 0.5}, {5});
  auto [gx, glo, ghi] = [&] {
    GradientTape tape;
    Tensor lo(-1.0), hi(1.0);
    tape.watch(std::vector<Tensor>{at, lo, hi});
    Tensor y = reduce_sum(clip_by_value(at, lo, hi));
    std::vector<Tensor> g = tape.gradient(y, {at, lo, hi});
    return std::tuple{g[0], g[1], g[2]};
  }();
  expectSame("clip_by_value at its bounds", gx, {1, 1, 0, 0, 1}, {5});
  expectSame("clip_by_value's lo", glo, {1}, {});
  expectSame("clip_by_value's hi", ghi, {1}, {});
}

TEST(CompositeOpsTest, ErrorsNameTheCall) {
  Tensor x = Tensor(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3});
  expectError([] { stack({}); }, ErrorKind::InvalidArgument,
              {"fnc::stack: needs"}, "stack of nothing");
  expectError(
      [&] {
        stack({x, transpose(x)});
      },
      ErrorKind::InvalidArgument, {"same shape, got [2, 3] and [3, 2]"},
      "stack of two shapes");
  expectError(
      [&] {
        stack({x, cast(x, DType::i32)});
      },
      ErrorKind::InvalidArgument, {"fnc::stack"}, "stack of two dtypes");
  expectError([&] { stack({x}, 3); }, ErrorKind::InvalidArgument, {"axis 3"},
              "stack at axis 3");
  expectError([] { unstack(Tensor(1.f)); }, ErrorKind::InvalidArgument,
              {"fnc::unstack: needs a tensor of rank >= 1"},
              "unstack of a scalar");
  expectError([&] { unstack(x, -3); }, ErrorKind::InvalidArgument, {"axis -3"},
              "unstack at axis -3");
  expectError([&] { split(x, 2, 1); }, ErrorKind::InvalidArgument,
              {"does not split into 2 equal parts"}, "split into 2");
  expectError([&] { split(x, 0, 1); }, ErrorKind::InvalidArgument,
              {"must be positive"}, "split into 0");
  expectError(
      [&] {
        split(x, {1, 1}, 1);
      },
      ErrorKind::InvalidArgument, {"do not add up to dim 1 of size 3"},
      "split by sizes");
  expectError(
      [&] {
        split(x, {-1, -1}, 1);
      },
      ErrorKind::InvalidArgument, {"one of them may be -1"},
      "split by two rests");
  expectError(
      [&] {
        split(x, {4, -1}, 1);
      },
      ErrorKind::InvalidArgument, {"do not add up"}, "split with too much");
  expectError([&] { tile(x, {2}); }, ErrorKind::InvalidArgument,
              {"one multiple per dim"}, "tile by 1 multiple");
  expectError(
      [&] {
        tile(x, {2, -1});
      },
      ErrorKind::InvalidArgument, {"must be >= 0"}, "tile by -1");
  expectError(
      [&] {
        clip_by_value(x, zeros({4, 2, 3}), Tensor(1.f));
      },
      ErrorKind::InvalidArgument, {"would stretch x to [4, 2, 3]"},
      "clip_by_value stretching x");
  expectError([&] { global_norm({cast(x, DType::i32)}); },
              ErrorKind::InvalidArgument, {"float"}, "global_norm of ints");
  expectError([] { global_norm({}); }, ErrorKind::InvalidArgument,
              {"at least one"}, "global_norm of nothing");
  expectError([&] { clip_by_global_norm({x}, 0); }, ErrorKind::InvalidArgument,
              {"must be positive"}, "clip_by_global_norm by 0");
  expectError([&] { moments(cast(x, DType::i32)); }, ErrorKind::InvalidArgument,
              {"fnc::moments: needs a float operand"}, "moments of ints");
  expectError([&] { cumsum(x > 2.f); }, ErrorKind::InvalidArgument,
              {"fnc::cumsum: needs a numeric operand, got bool"},
              "cumsum of bools");
  expectError([&] { cumprod(x, 2); }, ErrorKind::InvalidArgument,
              {"fnc::cumprod", "axis 2 is out of range for rank 2"},
              "cumprod along axis 2");
  expectError([] { cumsum(Tensor(1.f)); }, ErrorKind::InvalidArgument,
              {"out of range for rank 0"}, "cumsum of a scalar");
  expectError([] { band_part(ones({3}), 1, 1); }, ErrorKind::InvalidArgument,
              {"fnc::band_part: needs a tensor of rank 2 or more"},
              "band_part of a vector");
  expectError([] { triu(Tensor(1.f)); }, ErrorKind::InvalidArgument,
              {"fnc::triu", "got rank 0"}, "triu of a scalar");
  expectError([&] { einsum("ij,jk->ik", x); }, ErrorKind::InvalidArgument,
              {"fnc::einsum: equation \"ij,jk->ik\": names 2 operands, but "
               "einsum was given 1"},
              "einsum with too few operands");
  expectError([&] { einsum("ijk->i", x); }, ErrorKind::InvalidArgument,
              {"operand 0 has rank 2, but its term names 3 dims"},
              "einsum naming too many dims");
  expectError([&] { einsum("i->i", x); }, ErrorKind::InvalidArgument,
              {"names 1 dims; add '...' for the others"},
              "einsum naming too few dims");
  expectError([&] { einsum("i2->i", x); }, ErrorKind::InvalidArgument,
              {"unexpected '2'"}, "einsum with a digit");
  expectError([&] { einsum("ij,ij->ij", x, transpose(x)); },
              ErrorKind::InvalidArgument,
              {"label 'i' is 2 in operand 0 but 3 in operand 1"},
              "einsum with sizes that disagree");
  expectError([&] { einsum("ij->k", x); }, ErrorKind::InvalidArgument,
              {"the output names label 'k', which no operand has"},
              "einsum of an unknown label");
  expectError([&] { einsum("ij->ii", x); }, ErrorKind::InvalidArgument,
              {"the output names label 'i' twice"},
              "einsum with a label twice in the output");
  expectError([&] { einsum("ii->i", x); }, ErrorKind::InvalidArgument,
              {"label 'i' repeats over dims of sizes 2 and 3"},
              "einsum's diagonal of a non-square matrix");
  expectError([&] { einsum("ij,jk", x, cast(x, DType::i32)); },
              ErrorKind::InvalidArgument, {"fnc::einsum"},
              "einsum of two dtypes");
  expectError([&] { einsum("ij", x > 2.f); }, ErrorKind::InvalidArgument,
              {"needs numeric operands, got bool"}, "einsum of bools");
  expectError([] { top_k(Tensor(1.f)); }, ErrorKind::InvalidArgument,
              {"fnc::top_k: needs a tensor of rank >= 1"}, "top_k of a scalar");
  expectError([&] { top_k(x, 4); }, ErrorKind::InvalidArgument,
              {"k must be in [0, 3] (the last dim), got 4"}, "top_k(4) of 3");
  expectError([&] { top_k(x > 2.f); }, ErrorKind::InvalidArgument,
              {"fnc::top_k: needs a numeric operand, got bool"},
              "top_k of bools");
  Tensor rowsAt = Tensor(std::vector<int32_t>{1, 0}, {2, 1});
  expectError(
      [&] {
        scatter_nd(cast(rowsAt, DType::f32), x, {2, 3});
      },
      ErrorKind::InvalidArgument,
      {"fnc::scatter_nd: indices must be int32 or int64, got float32"},
      "scatter_nd at float indices");
  expectError(
      [&] {
        scatter_nd(Tensor(std::vector<int32_t>{0, 0, 0}, {1, 3}), x, {2, 3});
      },
      ErrorKind::InvalidArgument, {"indices must be [..., q] with q in [1, 2]"},
      "scatter_nd with index rows too long");
  expectError(
      [&] {
        scatter_nd(rowsAt, x, {2, 4});
      },
      ErrorKind::InvalidArgument, {"updates must be [2, 4]", "got [2, 3]"},
      "scatter_nd of updates of the wrong shape");
  expectError(
      [&] {
        scatter_nd(Tensor(std::vector<int32_t>{1, 2}, {2, 1}), x, {2, 3});
      },
      ErrorKind::OutOfRange,
      {"fnc::scatter_nd: index row 1 holds 2 for dim 0 of size 2"},
      "scatter_nd out of range");
  expectError([&] { tensor_scatter_nd_update(x, rowsAt, cast(x, DType::f64)); },
              ErrorKind::InvalidArgument, {"fnc::tensor_scatter_nd_update"},
              "tensor_scatter_nd_update of two dtypes");
  expectError(
      [&] {
        tensor_scatter_nd_add(x, Tensor(std::vector<int32_t>{0, -1}, {1, 2}),
                              Tensor(std::vector<float>{1}, {1}));
      },
      ErrorKind::OutOfRange, {"index row 0 holds -1 for dim 1 of size 3"},
      "tensor_scatter_nd_add at -1");
  {
    // Staged, an index out of range is a run-time error.
    FunctionOptions rowsUnknown;
    rowsUnknown.input_signature =
        std::vector<TensorSpec>{TensorSpec({kUnknownDim, 1}, DType::i32)};
    auto staged = fnc::function(
        [](Tensor i) {
          return scatter_nd(i, ones({2, 3}), {2, 3});
        },
        rowsUnknown);
    expectError(
        [&] {
          staged(Tensor(std::vector<int32_t>{0, 2}, {2, 1}));
        },
        ErrorKind::OutOfRange, {"out of range"},
        "staged scatter_nd out of range");
  }
  // A dim unknown while tracing that the call needs known says so.
  FunctionOptions unknown;
  unknown.input_signature =
      std::vector<TensorSpec>{TensorSpec({kUnknownDim, 3})};
  expectError(
      [&] { fnc::function([](Tensor a) { return unstack(a); }, unknown)(x); },
      ErrorKind::InvalidArgument, {"dim 0 is unknown while tracing"},
      "unstack along an unknown dim");
  expectError(
      [&] { fnc::function([](Tensor a) { return split(a, 2); }, unknown)(x); },
      ErrorKind::InvalidArgument, {"dim 0 is unknown while tracing"},
      "split into 2 along an unknown dim");
  expectError(
      [&] {
        fnc::function([](Tensor a) { return split(a, {-1, 1}); }, unknown)(x);
      },
      ErrorKind::InvalidArgument, {"a size of -1 before the last part"},
      "a rest before the last part along an unknown dim");
  expectError(
      [&] {
        fnc::function([](Tensor a) { return einsum("ii->i", a); },
                      unknown)(ones({3, 3}));
      },
      ErrorKind::InvalidArgument,
      {"the diagonal of label 'i' needs its size known while tracing"},
      "einsum's diagonal along an unknown dim");
  FunctionOptions unknownLast;
  unknownLast.input_signature =
      std::vector<TensorSpec>{TensorSpec({2, kUnknownDim})};
  expectError(
      [&] {
        fnc::function([](Tensor a) { return top_k(a).first; }, unknownLast)(x);
      },
      ErrorKind::InvalidArgument,
      {"fnc::top_k: dim 1 is unknown while tracing, and it is the number of "
       "candidates"},
      "top_k along an unknown dim");
  // A clip_by_global_norm of an inf is NaN everywhere, as TensorFlow's.
  auto [clipped, norm] = clip_by_global_norm(
      {Tensor(std::vector<float>{1, INFINITY}, {2}), Tensor(2.f)}, 1);
  EXPECT_TRUE(std::isinf(norm.item<float>()));
  EXPECT_TRUE(std::isnan(clipped[0].to_vector<float>()[0]));
  EXPECT_TRUE(std::isnan(clipped[1].item<float>()));
}
