//===- ApiToOpsTest.cpp - The map from C++ calls to ops is true ----------===//
//
// docs/ApiToOps.md says which ops each call of the C++ API stages. It is
// generated from FncOps.td (the ops' `cppApi`, the op table and the
// Fnc_ApiCall records), as is FncApiTable.inc, the same map as X-macro
// lines, which these tests hold to the code and the headers:
//
//  - Every call of the map has probes here (calls of it inside a traced
//    function), and every probe belongs to a call of the map.
//  - The traces of a call's probes stage every op the map lists for it, and
//    no other op but the incidental ones: constants (captured values, C++
//    numbers), fnc.broadcast_to (scalar broadcasts) and terminators.
//  - Every public function and operator of namespace fnc declared in
//    Ops.h, Control.h, Effects.h, Variable.h, TensorArray.h and Strings.h
//    (outside namespace detail; "strings::join" in namespace fnc::strings),
//    and every public method of fnc::Variable and
//    fnc::TensorArray, is a call of the map, unless kStagesNothing lists it
//    with the reason it stages no op.
//
//===----------------------------------------------------------------------===//

#include "fnc/fnc.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace fnc;

namespace {

/// The map: C++ call -> the ops it stages ("fnc.cast", "fnc.compare ge").
std::map<std::string, std::vector<std::string>> apiMap() {
  std::map<std::string, std::vector<std::string>> map;
  auto split = [](const std::string &list) {
    std::vector<std::string> ops;
    std::stringstream in(list);
    for (std::string op; std::getline(in, op, ',');)
      ops.push_back(op.substr(op.find_first_not_of(' ')));
    return ops;
  };
#define FNC_API_CALL(NAME, OPS) map[NAME] = split(OPS);
#include "fnc/Dialect/Fnc/IR/FncApiTable.inc"
  return map;
}

/// A probe traces one use of a call and returns the fnc IR of the trace.
using Probe = std::function<std::string()>;

template <typename F, typename... Args> Probe probe(F f, Args... args) {
  return [=] {
    auto fn = fnc::function(f);
    return fn.get_concrete_function(args...).ir(IRStage::Fnc);
  };
}

/// The ops of a module in the custom form: "fnc.add", and for
/// fnc.compare, "fnc.compare lt".
std::set<std::string> opsOf(const std::string &ir) {
  static const std::regex opRe(
      R"(^\s*(?:%[^=]*=\s*)?(fnc\.[a-z0-9_]+)(?: (eq|ne|lt|le|gt|ge),)?)");
  std::set<std::string> ops;
  std::stringstream in(ir);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, opRe))
      ops.insert(m[1].str() + (m[2].matched ? " " + m[2].str() : ""));
  }
  return ops;
}

std::string baseOf(const std::string &op) { return op.substr(0, op.find(' ')); }

/// An op of the map matches a staged op: the same, or the map's op without
/// a predicate and the staged op with one.
bool matches(const std::string &listed, const std::string &staged) {
  return listed == staged ||
         (listed.find(' ') == std::string::npos && listed == baseOf(staged));
}

bool incidental(const std::string &op) {
  return op == "fnc.constant" || op == "fnc.broadcast_to" ||
         op == "fnc.yield" || op == "fnc.condition";
}

Tensor sampleOf(const std::string &dtypes) {
  if (dtypes == "Bool")
    return Tensor(std::vector<bool>{true, false, true}, {3});
  return Tensor(std::vector<float>{0.5f, 1.5f, 2.5f}, {3});
}

/// Every probe, by call.
std::multimap<std::string, Probe> probes() {
  std::multimap<std::string, Probe> p;
  auto add = [&](const std::string &name, Probe probe) {
    p.emplace(name, std::move(probe));
  };
  Tensor x = Tensor(std::vector<float>{1, -2, 3, 4, 5, -6}, {2, 3});
  Tensor y = Tensor(std::vector<float>{2, 1, 0.5f, -1, 3, 2}, {2, 3});
  Tensor b = less(x, y);
  Tensor indices = Tensor(std::vector<int64_t>{1, 0}, {2});
  Tensor index = Tensor(int32_t(1));
  Tensor shape23 = Tensor(std::vector<int32_t>{2, 3}, {2});
  TensorSpec unknownRows{{kUnknownDim, 3}, DType::f32};
  Tensor image = random_uniform({1, 4, 4, 2});
  Tensor filter = random_uniform({2, 2, 2, 3});

  // The unary, binary and reduction ops and the comparisons of the op table.
#define FNC_UNARY_OP(KIND, CLASS, API, DTYPES, DIFF)                           \
  add(#API, probe([](Tensor a) { return fnc::API(a); }, sampleOf(#DTYPES)));
#define FNC_BINARY_OP(KIND, CLASS, API, DTYPES, DIFF)                          \
  add(#API, probe([](Tensor a, Tensor c) { return fnc::API(a, c); },           \
                  sampleOf(#DTYPES), sampleOf(#DTYPES)));
#define FNC_COMPARE_OP(KIND, PREDICATE, API, DTYPES)                           \
  add(#API, probe([](Tensor a, Tensor c) { return fnc::API(a, c); },           \
                  sampleOf(#DTYPES), sampleOf(#DTYPES)));
#define FNC_REDUCE_OP(KIND, CLASS, API, DTYPES, DIFF)                          \
  add(#API, probe([](Tensor a) { return fnc::API(a, {1}); }, x));
#include "fnc/Dialect/Fnc/IR/FncOpTable.inc"

  // Operators.
  add("operator+", probe([](Tensor a, Tensor c) { return a + c; }, x, y));
  add("operator-", probe([](Tensor a, Tensor c) { return a - c; }, x, y));
  add("operator-", probe([](Tensor a) { return -a; }, x));
  add("operator*", probe([](Tensor a, Tensor c) { return a * c; }, x, y));
  add("operator/", probe([](Tensor a, Tensor c) { return a / c; }, x, y));
  add("operator%", probe([](Tensor a, Tensor c) { return a % c; }, x, y));
  add("operator==", probe([](Tensor a, Tensor c) { return a == c; }, x, y));
  add("operator!=", probe([](Tensor a, Tensor c) { return a != c; }, x, y));
  add("operator<", probe([](Tensor a, Tensor c) { return a < c; }, x, y));
  add("operator<=", probe([](Tensor a, Tensor c) { return a <= c; }, x, y));
  add("operator>", probe([](Tensor a, Tensor c) { return a > c; }, x, y));
  add("operator>=", probe([](Tensor a, Tensor c) { return a >= c; }, x, y));

  // Creation.
  add("constant", probe([x](Tensor) { return constant(x); }, y));
  add("constant", probe([x](Tensor) { return constant(x, DType::f64); }, y));
  add("zeros", probe([](Tensor) { return zeros({2, 3}); }, x));
  add("zeros", probe([](Tensor s) { return zeros(s); }, shape23));
  add("ones", probe([](Tensor) { return ones({2, 3}, DType::i32); }, x));
  add("ones", probe([](Tensor s) { return ones(s); }, shape23));
  add("fill", probe([](Tensor) { return fill({2, 3}, 2.5, DType::f32); }, x));
  add("fill", probe([](Tensor s) { return fill(s, Tensor(2.5f)); }, shape23));
  add("zeros_like", probe([](Tensor a) { return zeros_like(a); }, x));
  add("zeros_like", probe([](Tensor a) { return zeros_like(a); }, unknownRows));
  add("ones_like", probe([](Tensor a) { return ones_like(a); }, x));
  add("ones_like", probe([](Tensor a) { return ones_like(a); }, unknownRows));
  add("shape", probe([](Tensor a) { return shape(a); }, unknownRows));
  add("range", probe([](Tensor) { return range(0, 5); }, x));
  add("eye", probe([](Tensor) { return eye(3); }, x));
  add("cast", probe([](Tensor a) { return cast(a, DType::i32); }, x));
  add("select",
      probe([](Tensor c, Tensor a, Tensor d) { return select(c, a, d); }, b, x,
            y));

  // Linear algebra, pooling and shapes.
  add("matmul", probe([](Tensor a, Tensor c) { return matmul(a, c); }, x,
                      reshape(y, {3, 2})));
  add("conv2d",
      probe([](Tensor a, Tensor f) { return conv2d(a, f); }, image, filter));
  add("max_pool2d", probe(
                        [](Tensor a) {
                          return max_pool2d(a, {2, 2}, {2, 2});
                        },
                        image));
  add("avg_pool2d", probe(
                        [](Tensor a) {
                          return avg_pool2d(a, {2, 2}, {1, 1}, "SAME");
                        },
                        image));
  add("transpose", probe([](Tensor a) { return transpose(a); }, x));
  add("reshape", probe([](Tensor a) { return reshape(a, {3, -1}); }, x));
  add("broadcast_to", probe(
                          [](Tensor a) {
                            return broadcast_to(a, {4, 2, 3});
                          },
                          x));
  add("broadcast_to",
      probe([](Tensor s) { return broadcast_to(Tensor(2.5f), s); }, shape23));
  add("expand_dims", probe([](Tensor a) { return expand_dims(a, 0); }, x));
  add("squeeze",
      probe([](Tensor a) { return squeeze(a); }, reshape(x, {1, 2, 1, 3})));
  add("slice", probe([](Tensor a) { return slice(a, {0, 1}, {2, -1}); }, x));
  add("strided_slice", probe(
                           [](Tensor a) {
                             return strided_slice(a, {-1, 0}, {0, 3}, {-1, 2});
                           },
                           unknownRows));
  add("pad", probe([](Tensor a) { return pad(a, {{1, 0}, {0, 2}}); }, x));
  add("concat", probe(
                    [](Tensor a, Tensor c) {
                      return concat({a, c}, 1);
                    },
                    x, y));
  add("gather",
      probe([](Tensor a, Tensor i) { return gather(a, i, 1); }, x, indices));
  add("one_hot", probe([](Tensor i) { return one_hot(i, 3); }, indices));

  // Reductions without an op of their own, and the softmaxes.
  add("reduce_any", probe([](Tensor c) { return reduce_any(c, {1}); }, b));
  add("reduce_all", probe([](Tensor c) { return reduce_all(c); }, b));
  add("argmax", probe([](Tensor a) { return argmax(a, 1); }, x));
  add("argmin", probe([](Tensor a) { return argmin(a, 0); }, x));
  add("softmax", probe([](Tensor a) { return softmax(a); }, x));
  add("log_softmax", probe([](Tensor a) { return log_softmax(a, 0); }, x));

  // Ops built from other ops.
  add("stack", probe(
                   [](Tensor a, Tensor c) {
                     return stack({a, c}, 1);
                   },
                   x, y));
  add("unstack", probe([](Tensor a) { return unstack(a, 1); }, unknownRows));
  add("split", probe([](Tensor a) { return split(a, 3, 1); }, x));
  add("split", probe([](Tensor a) { return split(a, {1, -1}); }, unknownRows));
  add("tile", probe([](Tensor a) { return tile(a, {2, 1}); }, x));
  add("tile", probe([](Tensor a) { return tile(a, {2, 3}); }, unknownRows));
  add("clip_by_value",
      probe([](Tensor a) { return clip_by_value(a, -1.f, 2.f); }, x));
  add("global_norm", probe(
                         [](Tensor a, Tensor c) {
                           return global_norm({a, c});
                         },
                         x, y));
  add("clip_by_global_norm", probe(
                                 [](Tensor a, Tensor c) {
                                   return clip_by_global_norm({a, c}, 1).first;
                                 },
                                 x, y));
  add("cumsum", probe([](Tensor a) { return cumsum(a, 1, true); }, x));
  add("cumsum", probe([](Tensor a) { return cumsum(a); }, unknownRows));
  add("cumprod", probe([](Tensor a) { return cumprod(a, 1, false, true); }, x));
  add("band_part", probe([](Tensor a) { return band_part(a, 0, -1); }, x));
  add("band_part",
      probe([](Tensor a) { return band_part(a, 1, 1); }, unknownRows));
  add("cumprod", probe([](Tensor a) { return cumprod(a); }, unknownRows));
  add("tril", probe([](Tensor a) { return tril(a); }, x));
  add("tril", probe([](Tensor a) { return tril(a, -1); }, unknownRows));
  add("triu", probe([](Tensor a) { return triu(a, 1); }, x));
  add("triu", probe([](Tensor a) { return triu(a); }, unknownRows));
  add("moments", probe(
                     [](Tensor a) {
                       auto [mean, variance] = moments(a, {0});
                       return std::vector<Tensor>{mean, variance};
                     },
                     x));
  add("top_k", probe(
                   [](Tensor a) {
                     auto [values, indices] = top_k(a, 2);
                     return std::vector<Tensor>{values, indices};
                   },
                   x));
  add("scatter_nd", probe(
                        [](Tensor i, Tensor u) {
                          return scatter_nd(reshape(i, {2, 1}), u, {3, 3});
                        },
                        indices, x));
  add("tensor_scatter_nd_update",
      probe(
          [](Tensor i, Tensor u) {
            return tensor_scatter_nd_update(ones({3, 3}), reshape(i, {2, 1}),
                                            u);
          },
          indices, x));
  add("tensor_scatter_nd_add",
      probe(
          [](Tensor i, Tensor u) {
            return tensor_scatter_nd_add(ones({3, 3}), reshape(i, {2, 1}), u);
          },
          indices, x));
  for (const char *name :
       {"scatter_nd", "tensor_scatter_nd_update", "tensor_scatter_nd_add"}) {
    std::string op = name;
    add(name, probe(
                  [op](Tensor i, Tensor u) { // rows of two numbers
                    Tensor at = reshape(i, {1, 2});
                    Tensor row = reshape(slice(u, {0, 0}, {1, 1}), {1});
                    return op == "scatter_nd" ? scatter_nd(at, row, {3, 3})
                           : op == "tensor_scatter_nd_add"
                               ? tensor_scatter_nd_add(ones({3, 3}), at, row)
                               : tensor_scatter_nd_update(ones({3, 3}), at,
                                                          row);
                  },
                  indices, x));
  }
  add("einsum", probe([](Tensor a) { return einsum("ij,kj->ik", a, a); }, x));
  add("einsum",
      probe([](Tensor a) { return einsum("ij,ij->", a, a * a); }, unknownRows));
  add("einsum",
      probe([](Tensor a, Tensor c) { return einsum("ij,ik->ijk", a, c); }, x,
            y));
  add("einsum", probe(
                    [](Tensor a) {
                      return einsum("ii->i", slice(a, {0, 0}, {2, 2}));
                    },
                    x));
  add("einsum", probe(
                    [](Tensor a) {
                      return einsum("ij,jk,kl->il", {a, transpose(a), a});
                    },
                    unknownRows));
  add("einsum", probe(
                    [](Tensor a) {
                      Tensor t = reshape(a, {1, 2, 3});
                      return einsum("ijk,ijl->kl", t, t);
                    },
                    x));

  // Control flow, with bodies that stage nothing themselves.
  add("cond", probe(
                  [](Tensor p, Tensor a, Tensor c) {
                    return cond(
                        p, [&] { return a; }, [&] { return c; });
                  },
                  Tensor(true), x, y));
  add("switch_case", probe(
                         [](Tensor k, Tensor a, Tensor c) {
                           return switch_case(
                               k, [&] { return a; }, [&] { return c; },
                               [&] { return a; });
                         },
                         index, x, y));
  add("while_loop",
      probe(
          [](Tensor p) {
            return while_loop([](Tensor go) { return go; },
                              [](Tensor) { return Tensor(false); }, p);
          },
          Tensor(true)));
  add("for_range", probe(
                       [](Tensor n, Tensor a) {
                         return for_range(
                             Tensor(int32_t(0)), n, Tensor(int32_t(1)),
                             [](Tensor, Tensor v) { return v; }, a);
                       },
                       Tensor(int32_t(3)), x));

  // Effects.
  add("print", probe(
                   [](Tensor a) {
                     print("a = {}", a);
                     return a;
                   },
                   x));
  // Strings (Strings.h).
  Tensor words = Tensor({"a b", "c"});
  add("strings::join", probe(
                           [](Tensor a) {
                             return strings::join({a, a}, "-");
                           },
                           words));
  add("strings::format",
      probe([](Tensor a) { return strings::format("<{}>", {a}); }, words));
  add("strings::length",
      probe([](Tensor a) { return strings::length(a); }, words));
  add("strings::upper",
      probe([](Tensor a) { return strings::upper(a); }, words));
  add("strings::lower",
      probe([](Tensor a) { return strings::lower(a); }, words));
  add("strings::split",
      probe([](Tensor a) { return strings::split(a, " "); }, words));
  add("random_uniform", probe(
                            [](Tensor) {
                              return random_uniform({2, 3});
                            },
                            x));
  add("random_uniform",
      probe([](Tensor s) { return random_uniform(s, -1, 1); }, shape23));
  add("random_normal", probe([](Tensor) { return random_normal({2}); }, x));
  add("random_normal",
      probe([](Tensor s) { return random_normal(s); }, shape23));
  add("dropout", probe([](Tensor a) { return dropout(a, 0.25); }, x));

  // Variables.
  Variable v(Tensor(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3}), "v");
  add("Variable::read_value", probe([v](Tensor) { return v.read_value(); }, x));
  add("Variable::value", probe([v](Tensor) { return v.value(); }, x));
  add("Variable::operator Tensor", probe(
                                       [v](Tensor) {
                                         Tensor t = v;
                                         return t;
                                       },
                                       x));
  add("Variable::assign", probe([v](Tensor a) { return v.assign(a); }, x));
  add("Variable::assign_add",
      probe([v](Tensor a) { return v.assign_add(a); }, x));
  add("Variable::assign_sub",
      probe([v](Tensor a) { return v.assign_sub(a); }, x));

  // TensorArray: a run-time index makes the array a tensor; C++ indices
  // keep it a list.
  add("TensorArray::write",
      probe(
          [](Tensor i, Tensor a) {
            return TensorArray(DType::f32, 4, {2, 3}).write(i, a).stack();
          },
          index, x));
  add("TensorArray::read", probe(
                               [](Tensor i, Tensor a) {
                                 TensorArray ta(DType::f32, 2, {2, 3});
                                 return ta.write(0, a).write(1, a).read(i);
                               },
                               index, x));
  add("TensorArray::stack", probe(
                                [](Tensor a) {
                                  TensorArray ta(DType::f32, 2, {2, 3});
                                  return ta.write(0, a).write(1, a).stack();
                                },
                                x));
  return p;
}

TEST(ApiToOpsTest, EveryCallHasProbesAndEveryProbeACall) {
  auto map = apiMap();
  auto all = probes();
  ASSERT_GT(map.size(), 100u);
  for (const auto &[name, ops] : map)
    EXPECT_TRUE(all.count(name))
        << "fnc::" << name << " is in docs/ApiToOps.md but has no probe "
        << "here: add one that calls it in a traced function";
  for (const auto &[name, probe] : all)
    EXPECT_TRUE(map.count(name))
        << "a probe calls fnc::" << name << ", which docs/ApiToOps.md does "
        << "not list: add it to the op's `cppApi` or a Fnc_ApiCall in "
        << "FncOps.td";
}

TEST(ApiToOpsTest, EachCallStagesTheOpsTheMapLists) {
  auto map = apiMap();
  auto all = probes();
  for (const auto &[name, listed] : map) {
    std::set<std::string> staged;
    std::string irs;
    auto [begin, end] = all.equal_range(name);
    for (auto it = begin; it != end; ++it) {
      std::string ir = it->second();
      irs += ir;
      for (const std::string &op : opsOf(ir))
        staged.insert(op);
    }
    if (begin == end)
      continue; // EveryCallHasProbesAndEveryProbeACall reports it.
    for (const std::string &op : listed)
      EXPECT_TRUE(
          std::any_of(staged.begin(), staged.end(),
                      [&](const std::string &s) { return matches(op, s); }))
          << "docs/ApiToOps.md says fnc::" << name << " stages " << op
          << ", but its probes do not:\n"
          << irs;
    for (const std::string &op : staged)
      EXPECT_TRUE(incidental(op) || std::any_of(listed.begin(), listed.end(),
                                                [&](const std::string &l) {
                                                  return matches(l, op);
                                                }))
          << "fnc::" << name << " stages " << op
          << ", which docs/ApiToOps.md does not list for it (FncOps.td: "
          << "the op's `cppApi` or the call's Fnc_ApiCall):\n"
          << irs;
  }
}

TEST(ApiToOpsTest, ProbesSeeStagedOps) {
  // The op parser of these tests: ops with and without results, compare
  // predicates; not types or attributes named fnc.*.
  std::set<std::string> ops = opsOf(R"(
    func.func @f(%arg0: !fnc.variable<tensor<2xf32>> {fnc.bind = @w}) {
      %0 = fnc.var_read %arg0 : !fnc.variable<tensor<2xf32>>
      %1:2 = fnc.while(%0) : tensor<2xf32> cond {
      %2 = fnc.compare lt, %0, %0 : tensor<2xf32>, tensor<2xf32>
      fnc.var_assign %arg0, %0 : !fnc.variable<tensor<2xf32>>)");
  EXPECT_EQ(ops, (std::set<std::string>{"fnc.var_read", "fnc.while",
                                        "fnc.compare lt", "fnc.var_assign"}));
  EXPECT_TRUE(matches("fnc.compare", "fnc.compare lt"));
  EXPECT_FALSE(matches("fnc.compare ge", "fnc.compare lt"));
  EXPECT_FALSE(matches("fnc.add", "fnc.add_n"));
}

//===----------------------------------------------------------------------===//
// The public API in the headers
//===----------------------------------------------------------------------===//

/// Public calls that stage no op, with the reason.
const std::map<std::string, std::string> kStagesNothing = {
    {"set_random_seed", "sets the host-side seed of the generators"},
    {"operator<<", "prints a variable eagerly"},
    {"Variable::Variable", "creates a variable from an eager value"},
    {"Variable::defined", "a query of the handle"},
    {"Variable::dtype", "a query of the handle"},
    {"Variable::shape", "a query of the handle"},
    {"Variable::name", "a query of the handle"},
    {"Variable::id", "a query of the handle"},
    {"Variable::str", "formats the value eagerly"},
    {"TensorArray::TensorArray", "an empty array stages nothing"},
    {"TensorArray::dynamic", "an empty array stages nothing"},
    {"TensorArray::defined", "a query of the array"},
    {"TensorArray::dtype", "a query of the array"},
    {"TensorArray::size", "a query of the array"},
    {"TensorArray::dynamic_size", "a query of the array"},
    {"TensorArray::element_shape", "a query of the array"},
    {"TensorArray::toLoopVars",
     "how while_loop and for_range carry an array (their probes and "
     "TensorArray::write's cover what it stages)"},
    {"TensorArray::fromLoopVars", "the inverse of toLoopVars"},
};

/// The public calls a header declares: functions and operators of
/// namespace fnc outside namespace detail ("reduce_sum", "operator+", from
/// declarations at column 0 and the FNC_OPERATOR / FNC_VARIABLE_OPERATOR /
/// FNC_SCALAR_OVERLOADS lines), and the methods in the public section of
/// class Variable and class TensorArray ("Variable::assign",
/// "Variable::operator Tensor", constructors as "Variable::Variable").
std::set<std::string> publicCalls(const std::string &path) {
  static const std::regex function(
      R"(^(?:template <.*> )?(?:inline )?(?:\[\[nodiscard\]\] )?)"
      R"((?:const )?[A-Za-z_][\w:<>,]*(?:\s*[&*]\s*|\s+)(operator\S+?|\w+)\()");
  static const std::regex macro(
      R"(^FNC_(?:OPERATOR\((\S+), \w+\)|VARIABLE_OPERATOR\((\S+)\)|)"
      R"(SCALAR_OVERLOADS\((\w+)\)))");
  static const std::regex method(
      R"(^  (?:\[\[nodiscard\]\] )?(?:static |explicit |inline )*)"
      R"((?:(?!operator\b)(?:const )?[\w:<>,]+(?:\s*[&*]\s*|\s+))?)"
      R"((operator \w+|operator\S+?|\w+)\()");
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  std::set<std::string> calls;
  bool inDetail = false;
  std::string inClass;   // Variable or TensorArray, while in its body
  bool inPublic = false; // in its public section
  std::string prefix;    // "strings::" in namespace fnc::strings
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, std::regex(R"(^namespace fnc::(\w+) \{)")))
      prefix = m[1].str() + "::";
    else if (line.rfind("namespace detail {", 0) == 0)
      inDetail = true;
    else if (line.rfind("} // namespace detail", 0) == 0)
      inDetail = false;
    else if (inDetail || line.rfind("//", 0) == 0 || line.rfind("#", 0) == 0)
      continue;
    else if (std::regex_search(
                 line, m, std::regex(R"(^class (Variable|TensorArray) \{)")))
      inClass = m[1], inPublic = false;
    else if (!inClass.empty() && line.rfind("};", 0) == 0)
      inClass.clear();
    else if (!inClass.empty()) {
      if (line == "public:" || line == "private:" || line == "protected:")
        inPublic = line == "public:";
      else if (inPublic && std::regex_search(line, m, method))
        calls.insert(inClass + "::" + m[1].str());
    } else if (std::regex_search(line, m, macro))
      calls.insert(m[1].matched   ? "operator" + m[1].str()
                   : m[2].matched ? "operator" + m[2].str()
                                  : m[3].str());
    else if (std::regex_search(line, m, function))
      calls.insert(prefix + m[1].str());
  }
  return calls;
}

std::set<std::string> headerCalls() {
  std::set<std::string> calls;
  for (const char *header : {"Ops.h", "Control.h", "Effects.h", "Variable.h",
                             "TensorArray.h", "Strings.h"})
    for (const std::string &call :
         publicCalls(std::string(FNC_SOURCE_DIR) + "/include/fnc/" + header))
      calls.insert(call);
  return calls;
}

TEST(ApiToOpsTest, TheHeaderScanFindsTheApi) {
  // What the scan is relied on to find, from each header and each form of
  // declaration; and nothing of namespace detail.
  std::set<std::string> calls = headerCalls();
  for (const char *call :
       {"reduce_sum", "zeros", "operator+", "operator-",
        "operator>=", "floor_div", "cond", "while_loop", "for_range",
        "switch_case", "print", "dropout", "random_uniform", "Variable::assign",
        "Variable::operator Tensor", "Variable::Variable", "TensorArray::write",
        "TensorArray::element_shape"})
    EXPECT_TRUE(calls.count(call)) << call;
  for (const char *internal :
       {"fillFromShapeTensor", "scalarLike", "condImpl", "printImpl",
        "randomFromShapeTensor", "Variable::scalar", "TensorArray::make"})
    EXPECT_FALSE(calls.count(internal)) << internal;
  EXPECT_GT(calls.size(), 120u);
}

TEST(ApiToOpsTest, EveryPublicCallIsInTheMap) {
  auto map = apiMap();
  std::set<std::string> calls = headerCalls();
  for (const std::string &call : calls)
    EXPECT_TRUE(map.count(call) || kStagesNothing.count(call))
        << "fnc::" << call << " is public but docs/ApiToOps.md does not "
        << "list it: add it to the `cppApi` of the op it stages or a "
        << "Fnc_ApiCall in FncOps.td (or, if it stages nothing, to "
        << "kStagesNothing here)";
  for (const auto &[call, reason] : kStagesNothing) {
    EXPECT_TRUE(calls.count(call))
        << call << " is listed as staging nothing but no header declares it";
    EXPECT_FALSE(map.count(call))
        << call << " is listed as staging nothing (" << reason
        << ") but docs/ApiToOps.md lists ops for it";
  }
}

} // namespace
