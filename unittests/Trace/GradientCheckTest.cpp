//===- GradientCheckTest.cpp - Random staged programs, four gradients -----===//
//
// A generator of random float64 programs over an input x [B, 3], an
// argument c [3], the variables v1 [3] and v2 [3, 3] and a captured eager
// tensor k [3], that
// reach every way a value enters a staged body: loop variables, captured
// symbolic and eager tensors, variables read inside bodies and branches,
// values returned unchanged from a branch or body, with conds and
// for_range / while_loop nested two deep, a quarter of the loops carrying
// a value that grows by a row each iteration (shapes that change: flat
// histories, of draws too) and a third of the while_loops' conditions
// drawing (a random trip count); updates of the variables by
// constants before, inside and after the regions that read them (every
// evaluation starts from the same values); also random draws
// (multiplicative noise, each of its own seed; the streams are reset
// before every evaluation, so eager, staged and finite differences see
// the same numbers, and a backward must reuse the forward's). Every callable captures the
// program's environment by reference ([&]), and the environment is
// poisoned (its tensors nulled) when the staged callable returns: a
// callable run after its trace would throw.
//
// Each program's gradients with respect to x, c, k, v1 and v2 are computed
// four ways: eagerly under a tape, staged with the tape inside the
// function, staged and called under an outer tape (the forward run once,
// the backward from its record), and by float64 central finite
// differences of the eager program; and, for every third compiled program
// (every 50th on the graph executor), a fifth time (but for k, a constant
// of the file there) saved, loaded by fnc::load and called under a tape,
// whose backward replays the program read back from the IR. Staged and eager must agree to 1e-9
// (relative), finite differences to 1e-5. Half of the programs are staged
// with an unknown batch (input_signature [-1, 3]). The callables must not
// run after the first call traced them.
//
// Compiled (jit_compile = true), each program compiles four to five traces
// (about 2.5 s on 2 cores), so a CI run checks 24; on the graph executor
// (jit_compile = false: nothing compiles but the loaded functions) 2 x 1000
// more, about 16 ms each (0.5 s more with fnc::load). FNC_GRADCHECK_PROGRAMS=N
// and FNC_GRADCHECK_GRAPH_PROGRAMS=N run N (per seed; docs/Testing.md has
// the last long run), FNC_GRADCHECK_SEED picks the seed (33, and 34 and 35
// on the graph executor, by default) and FNC_GRADCHECK_FIRST=K skips to
// program K.
//
//===----------------------------------------------------------------------===//

#include "FiniteDifferences.h"

#include "fnc/Saved.h"
#include "fnc/fnc.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

using namespace fnc;
using fnc::testing::randomTensor;

namespace {

constexpr int64_t kD = 3;
constexpr uint64_t kDrawSeed = 2026;

/// What a program reads: the input x and the argument c, the values in
/// scope (outer values, loop variables), the variables and the captured
/// eager tensor k.
struct Env {
  Tensor x, c, k;
  std::vector<Tensor> scope;
  const Variable *v1 = nullptr, *v2 = nullptr;
  int64_t *calls = nullptr; // callables run
  void poison() {
    x = Tensor();
    c = Tensor();
    k = Tensor();
    for (Tensor &t : scope)
      t = Tensor();
  }
};

using Expr = std::function<Tensor(Env &)>;

/// Builds random programs; `text` describes the one built last.
class Generator {
public:
  Generator(uint32_t seed, const Tensor &x)
      : rng_(seed), updates_(seed ^ 0x5bd1e995u), grows_(seed ^ 0x2545f491u),
        x_(x) {}

  Expr program() {
    text.clear();
    budget_ = 14;
    return gen(0);
  }
  std::string text;

private:
  int pick(int n) { return static_cast<int>(rng_() % n); }

  /// A subexpression written as `head(...)` in the description.
  Expr wrapped(const std::string &head, int depth) {
    text += head + "(";
    Expr a = gen(depth);
    text += ")";
    return a;
  }

  Expr leaf() {
    int k = pick(8);
    text += "s" + std::to_string(k);
    return [k](Env &e) { return e.scope[k % e.scope.size()]; };
  }

  /// A predicate on x decided with a margin of 0.5 for this x, so that
  /// finite differences never flip it.
  Expr predicate() {
    std::vector<double> w(kD);
    for (double &d : w)
      d = std::uniform_real_distribution<double>(-1, 1)(rng_);
    Tensor weights(w, {kD});
    double value = reduce_sum(x_ * weights).item<double>();
    double threshold = value + (pick(2) ? 0.5 : -0.5);
    text += "[x.w>" + std::to_string(threshold) + "]";
    return [weights, threshold](Env &e) {
      return reduce_sum(e.x * weights) > threshold;
    };
  }

  /// A node, now and then followed by an update of a variable by a
  /// constant (which later reads see; its gradient is that of the reads,
  /// as TensorFlow's). Decided by a stream of its own: the other nodes of a
  /// seed's programs are those of a generator without updates.
  Expr gen(int depth) {
    if (updates_() % 6 != 0)
      return node(depth);
    bool first = updates_() % 2;
    text += first ? "upd1(" : "upd2(";
    Expr a = node(depth);
    text += ")";
    std::vector<double> d(first ? kD : kD * kD);
    for (double &v : d)
      v = std::uniform_real_distribution<double>(-0.2, 0.2)(updates_);
    Tensor delta(d, first ? std::vector<int64_t>{kD}
                          : std::vector<int64_t>{kD, kD});
    return [a, first, delta](Env &e) {
      Tensor t = a(e);
      (first ? e.v1 : e.v2)->assign_add(delta);
      return t;
    };
  }

  Expr node(int depth) {
    if (--budget_ <= 0)
      return leaf();
    int choice = pick(depth < 2 ? 14 : 10);
    switch (choice) {
    case 0:
    case 1:
      return leaf();
    case 2: {
      // Also multiplicative noise (dropout's shape): a draw of its own
      // seed, the same values in every evaluation.
      int k = pick(5);
      const char *names[] = {"tanh", "sin", "sigmoid", "sq", "noise"};
      int64_t seed = k == 4 ? ++draws_ : 0;
      Expr a = wrapped(names[k], depth);
      return [a, k, seed](Env &e) {
        Tensor t = a(e);
        switch (k) {
        case 0:
          return tanh(t);
        case 1:
          return sin(t);
        case 2:
          return sigmoid(t);
        case 3:
          return pow(t, 2) * 0.5;
        default:
          return t * random_uniform(fnc::shape(t), 0.5, 1.5, DType::f64,
                                    seed);
        }
      };
    }
    case 3:
    case 4: {
      int k = pick(3);
      text += "(";
      Expr a = gen(depth);
      text += k == 0 ? " + " : k == 1 ? " * " : " - ";
      Expr b = gen(depth);
      text += ")";
      return [a, b, k](Env &e) {
        Tensor l = a(e), r = b(e);
        return k == 0 ? l + r : k == 1 ? tanh(l * r) : l - r;
      };
    }
    case 5: {
      bool read = pick(2);
      Expr a = wrapped(read ? "v1.read*" : "v1*", depth);
      return [a, read](Env &e) {
        Tensor v = read ? e.v1->read_value() : Tensor(*e.v1);
        return a(e) * v;
      };
    }
    case 6: {
      bool t = pick(2);
      Expr a = wrapped(t ? "matmul(.,v2^T)" : "matmul(.,v2)", depth);
      return [a, t](Env &e) {
        Tensor w = *e.v2;
        return matmul(a(e), t ? transpose(w) : w) * 0.5;
      };
    }
    case 7: {
      bool captured = pick(2);
      Expr a = wrapped(captured ? "k*" : "c*", depth);
      return [a, captured](Env &e) { return a(e) * (captured ? e.k : e.c); };
    }
    case 8: {
      Expr a = wrapped("rowsum", depth);
      return [a](Env &e) {
        Tensor t = a(e);
        return t * tanh(reduce_sum(t, {1}, true));
      };
    }
    case 9: {
      text += "c";
      return [](Env &e) { return e.c * 1.0 + e.x * 0.0 + e.c * 0.0; };
    }
    case 10:
    case 11: {
      text += "cond";
      Expr p = predicate();
      text += "{";
      Expr a = pick(4) == 0 ? leaf() : gen(depth + 1); // may pass a value
      text += " | ";
      Expr b = pick(4) == 0 ? leaf() : gen(depth + 1);
      text += "}";
      return [p, a, b](Env &e) {
        ++*e.calls;
        return fnc::cond(
            p(e),
            [&] {
              ++*e.calls;
              return a(e);
            },
            [&] {
              ++*e.calls;
              return b(e);
            });
      };
    }
    default: {
      bool useWhile = pick(2);
      int trips = 1 + pick(3);
      bool second = pick(2); // a second variable returned unchanged
      bool nestedCond = pick(2);
      // A third variable that grows by a row of the state each iteration
      // (shape invariants with an unknown dim: a loop whose shapes change,
      // its history flat), added back as the sum of its rows.
      bool grow = grows_() % 4 == 0;
      // A third of the while_loops' conditions also draw (each evaluation
      // stops the loop with probability 0.2: a trip count the gradient
      // must keep), of seeds apart from the other draws'.
      int64_t conditionSeed =
          useWhile && grows_() % 3 == 0 ? kConditionSeeds + ++conditionDraws_
                                          : 0;
      text += std::string(useWhile ? "while" : "for") + std::to_string(trips) +
              (second ? "+pass" : "") + (grow ? "+grow" : "") +
              (conditionSeed ? "+drawing" : "") + "(";
      Expr init = gen(depth);
      text += "){";
      Expr body = gen(depth + 1);
      Expr inner = nestedCond ? predicate() : Expr();
      text += "}";
      return [init, body, inner, trips, useWhile, second, grow,
              conditionSeed](Env &e) {
        ++*e.calls;
        auto step = [&](const Tensor &s) {
          ++*e.calls;
          e.scope.push_back(s);
          Tensor next = body(e);
          e.scope.pop_back();
          if (inner) // a cond on x inside the body
            next = fnc::cond(
                inner(e), [&] { return next; },
                [&] { return next * 0.5 + s * 0.5; });
          return next;
        };
        Tensor start = init(e);
        // The rows grown, from one row of the start (a state of rank 1 or
        // more): its shape but dim 0, which is unknown.
        bool growing = grow && start.rank() > 0;
        Tensor rows = growing ? reduce_mean(start, {0}, true) : e.c * 0.0;
        LoopOptions options;
        if (growing) {
          Shape grows = rows.shape();
          grows[0] = kUnknownDim;
          options.shape_invariants = {start.shape(), Shape{3}, grows};
        }
        auto grown = [&](const Tensor &r, const Tensor &next) {
          return growing
                     ? concat({r, reduce_mean(tanh(next), {0}, true)}, 0)
                     : r;
        };
        auto withRows = [&](const Tensor &s, const Tensor &r) {
          return growing ? s + reduce_sum(r, {0}, true) * 0.25 : s;
        };
        if (useWhile) {
          if (growing)
            options.shape_invariants.insert(options.shape_invariants.begin(),
                                            Shape{});
          auto [i, s, t, r] = fnc::while_loop(
              [&](const Tensor &i, const Tensor &, const Tensor &,
                  const Tensor &) {
                if (!conditionSeed)
                  return i < trips;
                return logical_and(i < trips,
                                   random_uniform({}, 0.0, 1.0, DType::f64,
                                                  conditionSeed) < 0.8);
              },
              [&](const Tensor &i, const Tensor &s, const Tensor &,
                  const Tensor &r) {
                Tensor next = step(s);
                return std::make_tuple(i + 1, next, e.c * 1.0, grown(r, next));
              },
              std::make_tuple(Tensor(0), start, e.c * 0.0, rows), options);
          (void)i;
          return withRows(second ? s + t : s, r);
        }
        auto [s, t, r] = fnc::for_range(
            Tensor(0), Tensor(trips), Tensor(1),
            [&](const Tensor &, const Tensor &s, const Tensor &t,
                const Tensor &r) {
              Tensor next = step(s);
              return std::make_tuple(next, second ? e.c : t, grown(r, next));
            },
            std::make_tuple(start, e.c * 0.0, rows), options);
        return withRows(second ? s + t : s, r);
      };
    }
    }
  }

  // (The updates, the growing loops and the conditions that draw come
  // from streams of their own, so that the programs of a seed stay what
  // they were without them.)
  std::mt19937 rng_, updates_, grows_;
  Tensor x_;
  int budget_ = 0;
  int64_t draws_ = 0; // seeds given to draws
  // Those given to loop conditions' draws, from kConditionSeeds.
  static constexpr int64_t kConditionSeeds = int64_t{1} << 20;
  int64_t conditionDraws_ = 0;
};

int fromEnvironment(const char *name, int fallback) {
  const char *env = std::getenv(name);
  return env && *env ? std::atoi(env) : fallback;
}

GradientOptions zerosIfNone() {
  GradientOptions options;
  options.unconnected_gradients = UnconnectedGradients::Zero;
  return options;
}

/// Gradients with respect to x, c, k, v1, v2.
using Grads = std::vector<Tensor>;

/// Puts the variables back as they were when it is destroyed: a program
/// may update them, and every evaluation starts from the same values.
struct KeepVariables {
  const Variable &v1, &v2;
  Tensor s1 = v1.read_value(), s2 = v2.read_value();
  ~KeepVariables() {
    v1.assign(s1);
    v2.assign(s2);
  }
};

Grads underTape(const std::function<Tensor(Tensor, Tensor)> &f, Tensor x,
                Tensor c, Tensor k, const Variable &v1, const Variable &v2) {
  KeepVariables keep{v1, v2};
  GradientTape tape(/*persistent=*/true);
  tape.watch(x);
  tape.watch(c);
  tape.watch(k);
  Tensor y = f(x, c);
  Grads g = tape.gradient(y, std::vector<Tensor>{x, c, k}, zerosIfNone());
  std::vector<Tensor> gv =
      tape.gradient(y, std::vector<Variable>{v1, v2}, zerosIfNone());
  g.insert(g.end(), gv.begin(), gv.end());
  return g;
}

void expectClose(const Tensor &a, const std::vector<double> &b, double tol,
                 const std::string &what) {
  ASSERT_TRUE(a.defined()) << what;
  std::vector<double> x = a.to_vector<double>();
  ASSERT_EQ(x.size(), b.size()) << what;
  for (size_t i = 0; i < x.size(); ++i)
    ASSERT_NEAR(x[i], b[i], tol * (1 + std::abs(b[i])))
        << what << " element " << i;
}

/// Checks `count` programs from `seed` (those before `first` generated but
/// not run, to reproduce one), the staged functions in the given mode.
void checkRandomPrograms(int count, uint32_t seed, int first,
                         std::optional<bool> jitCompile) {
  std::mt19937 rng(seed);
  Variable v1(randomTensor(rng, {kD}, 1.0), "v1");
  Variable v2(randomTensor(rng, {kD, kD}, 1.0), "v2");
  for (int n = 0; n < count; ++n) {
    int64_t batch = 1 + n % 3;
    Tensor x = randomTensor(rng, {batch, kD}, 1.0);
    Tensor c = randomTensor(rng, {kD}, 1.0);
    Tensor k = randomTensor(rng, {kD}, 1.0);
    Generator generator(seed * 7919u + n, x);
    Expr expr = generator.program();
    if (n < first)
      continue;
    SCOPED_TRACE("program " + std::to_string(n) + ": " + generator.text);
    int64_t calls = 0;
    // The program as a callable: a fresh environment per call, poisoned
    // when the call returns.
    auto program = [&](Tensor xv, Tensor cv) {
      Env env;
      env.x = xv;
      env.c = cv;
      env.k = k;
      env.v1 = &v1;
      env.v2 = &v2;
      env.calls = &calls;
      env.scope = {xv, tanh(xv) * cv, xv * v1};
      set_random_seed(kDrawSeed); // eagerly: each evaluation draws the same
      struct Poison {
        Env &env;
        ~Poison() { env.poison(); }
      } poison{env};
      return reduce_sum(expr(env));
    };
    FunctionOptions options;
    options.jit_compile = jitCompile;
    if (n % 2)
      options.input_signature = {TensorSpec({-1, kD}, DType::f64),
                                 TensorSpec({kD}, DType::f64)};

    Grads eager = underTape(program, x, c, k, v1, v2);
    auto inner = fnc::function(
        [&](Tensor xv, Tensor cv) {
          GradientTape tape(/*persistent=*/true);
          tape.watch(xv);
          tape.watch(cv);
          tape.watch(k);
          Tensor y = program(xv, cv);
          Grads g =
              tape.gradient(y, std::vector<Tensor>{xv, cv, k}, zerosIfNone());
          std::vector<Tensor> gv = tape.gradient(
              y, std::vector<Variable>{v1, v2}, zerosIfNone());
          return std::make_tuple(g[0], g[1], g[2], gv[0], gv[1]);
        },
        options);
    auto staged = fnc::function(program, options);
    // Staged draws are reproducible from a reset of the streams.
    auto reseeded = [](auto &f) {
      return [&f](Tensor xv, Tensor cv) {
        set_random_seed(kDrawSeed);
        return f(xv, cv);
      };
    };
    set_random_seed(kDrawSeed);
    auto [ix, ic, ik, iv1, iv2] = [&] {
      KeepVariables keep{v1, v2};
      return inner(x, c);
    }();
    Grads innerGrads = {ix, ic, ik, iv1, iv2};
    Grads outerGrads = underTape(reseeded(staged), x, c, k, v1, v2);
    // After the traces, no callable runs again.
    int64_t traced = calls;
    outerGrads = underTape(reseeded(staged), x, c, k, v1, v2);
    auto again = [&] {
      KeepVariables keep{v1, v2};
      return inner(x, c);
    }();
    (void)again;
    EXPECT_EQ(calls, traced) << "a callable ran after its trace";

    // Saved and loaded (every third compiled program, every 50th on the
    // graph executor: a loaded function is compiled, about 0.5 s): no
    // callable exists there, the gradient replays the program read back
    // from the IR (k is a constant of the file there).
    bool viaFile = n % (jitCompile.value_or(true) ? 3 : 50) == 0;
    Grads loadedGrads;
    if (viaFile) {
      std::string path = ::testing::TempDir() + "gradcheck-" +
                         std::to_string(::getpid()) + ".mlir";
      save(path, staged);
      LoadedFunction loaded = load(path);
      std::remove(path.c_str());
      GradientTape tape(/*persistent=*/true);
      tape.watch(x);
      tape.watch(c);
      set_random_seed(kDrawSeed);
      Tensor y = loaded(x, c)[0];
      loadedGrads = tape.gradient(y, std::vector<Tensor>{x, c}, zerosIfNone());
      loadedGrads.push_back(Tensor()); // k
      // (A variable the program does not read is not in the file.)
      for (const Variable *v : {&v1, &v2}) {
        bool saved = false;
        for (const auto &[name, lv] : loaded.variables())
          if (name == v->name()) {
            loadedGrads.push_back(tape.gradient(y, lv, zerosIfNone()));
            saved = true;
          }
        if (!saved)
          loadedGrads.push_back(zeros_like(v->read_value()));
      }
    }

    auto value = [&] {
      KeepVariables keep{v1, v2};
      return program(x, c).item<double>();
    };
    std::vector<std::vector<double>> fd = {
        fnc::testing::centralDifferences(x, [&](const Tensor &t) { x = t; }, value),
        fnc::testing::centralDifferences(c, [&](const Tensor &t) { c = t; }, value),
        fnc::testing::centralDifferences(k, [&](const Tensor &t) { k = t; }, value),
        fnc::testing::centralDifferences(v1.read_value(), [&](const Tensor &t) { v1.assign(t); }, value),
        fnc::testing::centralDifferences(v2.read_value(), [&](const Tensor &t) { v2.assign(t); },
                value)};
    const char *names[] = {"x", "c", "k", "v1", "v2"};

    for (size_t j = 0; j < 5; ++j) {
      std::vector<double> e = eager[j].to_vector<double>();
      expectClose(eager[j], fd[j], 1e-5,
                  std::string("eager vs finite differences, d/d") + names[j]);
      expectClose(innerGrads[j], e, 1e-9,
                  std::string("tape inside vs eager, d/d") + names[j]);
      expectClose(outerGrads[j], e, 1e-9,
                  std::string("outer tape vs eager, d/d") + names[j]);
      if (viaFile && j != 2)
        expectClose(loadedGrads[j], e, 1e-9,
                    std::string("loaded function vs eager, d/d") + names[j]);
    }
    if (::testing::Test::HasFailure())
      return;
  }
}

} // namespace

// Compiled code (jit_compile = true).
TEST(GradientCheckTest, RandomStagedProgramsFourWays) {
  checkRandomPrograms(
      fromEnvironment("FNC_GRADCHECK_PROGRAMS", 24),
      static_cast<uint32_t>(fromEnvironment("FNC_GRADCHECK_SEED", 33)),
      fromEnvironment("FNC_GRADCHECK_FIRST", 0), true);
}

// The graph executor (jit_compile = false; what a call under a tape needs
// compiles then): the gradients' logic on many more programs, since most
// traces are not compiled. Two seeds, which ctest runs in parallel.
class GraphExecutorGradientCheck : public ::testing::TestWithParam<uint32_t> {};

TEST_P(GraphExecutorGradientCheck, RandomStagedPrograms) {
  checkRandomPrograms(
      fromEnvironment("FNC_GRADCHECK_GRAPH_PROGRAMS", 1000),
      static_cast<uint32_t>(fromEnvironment("FNC_GRADCHECK_SEED", 34)) +
          GetParam(),
      fromEnvironment("FNC_GRADCHECK_FIRST", 0), false);
}

INSTANTIATE_TEST_SUITE_P(GradientCheckTest, GraphExecutorGradientCheck,
                         ::testing::Values(0u, 1u));
