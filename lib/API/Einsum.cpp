//===- Einsum.cpp - tf.einsum from transposes, reshapes and matmul --------===//
//
// einsum(equation, inputs) as TensorFlow and numpy define it, built from
// other ops so that it runs eagerly, stages, interprets and differentiates
// as they do: a label repeated in one operand takes the diagonal, a label
// that no other operand and not the output names is summed, and the
// operands are then contracted left to right, each pair as one batched
// matmul [batch..., M, K] x [batch..., K, N] (the labels both share and
// keep, those only the left keeps, the summed ones, those only the right
// keeps) or, with nothing to sum, one broadcasting multiply. `...` stands
// for the leading dims not named, broadcast against each other as numpy
// does. Dims unknown while tracing are read at run time where a reshape
// needs them.
//
//===----------------------------------------------------------------------===//

#include "fnc/API/OpSupport.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace fnc {

using namespace api;

namespace {

constexpr const char *kOp = "einsum";
/// Labels: a letter is its character; the dims `...` stands for are
/// kEllipsis + (its number of dims - 1 - position), so the last is
/// kEllipsis in every operand (numpy aligns them from the right).
constexpr int kEllipsis = 256;
using Labels = std::vector<int>;

std::string labelName(int label) {
  if (label < kEllipsis)
    return std::string("'") + static_cast<char>(label) + "'";
  return "dim " + std::to_string(label - kEllipsis) + " from the end of '...'";
}

[[noreturn]] void bad(const std::string &equation, const std::string &why,
                      Operands operands = {}) {
  fail(ErrorKind::InvalidArgument, kOp, "equation \"" + equation + "\": " + why,
       operands);
}

/// One term of the equation: its letters, and where `...` stands (-1: none).
struct Term {
  std::string letters;
  int64_t ellipsisAt = -1;
};

Term parseTerm(const std::string &equation, const std::string &text) {
  Term t;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (std::isalpha(static_cast<unsigned char>(c))) {
      t.letters += c;
    } else if (text.compare(i, 3, "...") == 0 && t.ellipsisAt < 0) {
      t.ellipsisAt = static_cast<int64_t>(t.letters.size());
      i += 2;
    } else {
      bad(equation, std::string("unexpected '") + c +
                        "'; a term holds letters and at most one '...'");
    }
  }
  return t;
}

/// The labels of `t` for an operand (or result) of `rank` dims.
Labels labelsOf(const Term &t, int64_t rank) {
  Labels out;
  for (int64_t i = 0; i < static_cast<int64_t>(t.letters.size()); ++i) {
    if (i == t.ellipsisAt)
      for (int64_t e = rank - 1; e >= 0; --e)
        out.push_back(kEllipsis + static_cast<int>(e));
    out.push_back(t.letters[i]);
  }
  if (t.ellipsisAt == static_cast<int64_t>(t.letters.size()))
    for (int64_t e = rank - 1; e >= 0; --e)
      out.push_back(kEllipsis + static_cast<int>(e));
  return out;
}

int64_t indexOf(const Labels &labels, int label) {
  return std::find(labels.begin(), labels.end(), label) - labels.begin();
}

bool has(const Labels &labels, int label) {
  return std::find(labels.begin(), labels.end(), label) != labels.end();
}

/// An operand with the label of each of its dims.
struct Labeled {
  Tensor t;
  Labels labels;
};

/// x with its dims permuted into `order` (a permutation of its labels).
Labeled arranged(const Labeled &x, const Labels &order) {
  std::vector<int64_t> perm;
  for (int label : order)
    perm.push_back(indexOf(x.labels, label));
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i)
    identity = identity && perm[i] == static_cast<int64_t>(i);
  return {identity ? x.t : transpose(x.t, perm), order};
}

/// x summed over the labels `keep` does not hold.
Labeled summedTo(const Labeled &x, const Labels &keep) {
  std::vector<int64_t> axes;
  Labels left;
  for (size_t i = 0; i < x.labels.size(); ++i) {
    if (has(keep, x.labels[i]))
      left.push_back(x.labels[i]);
    else
      axes.push_back(static_cast<int64_t>(i));
  }
  if (axes.empty())
    return x;
  return {reduce_sum(x.t, axes), left};
}

/// The diagonal of x along every label it repeats (sizes known while
/// tracing): the other elements replaced by zeros (a select, so a NaN off
/// the diagonal stays there), then summed over the repeated dim.
Labeled diagonal(const std::string &equation, const Tensor &x, Labels labels) {
  Tensor t = x;
  for (size_t q = 0; q < labels.size(); ++q) {
    int64_t p = indexOf(labels, labels[q]);
    if (p == static_cast<int64_t>(q))
      continue;
    int64_t n = t.shape()[p], m = t.shape()[q];
    if (shapes::isDynamic(n) || shapes::isDynamic(m))
      bad(equation,
          "the diagonal of label " + labelName(labels[q]) +
              " needs its size known while tracing; give it in the "
              "input_signature",
          {&x});
    if (n != m)
      bad(equation,
          "label " + labelName(labels[q]) + " repeats over dims of sizes " +
              std::to_string(n) + " and " + std::to_string(m),
          {&x});
    Shape maskShape(t.rank(), 1);
    maskShape[p] = maskShape[q] = n;
    Tensor mask = reshape(cast(eye(n), DType::i1), maskShape);
    t = reduce_sum(select(mask, t, zeros_like(t)), {static_cast<int64_t>(q)});
    labels.erase(labels.begin() + static_cast<int64_t>(q));
    --q;
  }
  return {t, labels};
}

/// x's dims [from, from + count) as one dim (a dim of 1 when count is 0),
/// read at run time where unknown while tracing.
Tensor merged(const Tensor &x, int64_t from, int64_t count) {
  if (count == 1)
    return x;
  if (count == 0)
    return expand_dims(x, from);
  const Shape &s = x.shape();
  Shape known(s.begin(), s.begin() + from);
  int64_t size = 1;
  for (int64_t i = from; i < from + count; ++i)
    size = shapes::isDynamic(s[i]) || shapes::isDynamic(size) ? shapes::kDynamic
                                                              : size * s[i];
  known.push_back(size);
  known.insert(known.end(), s.begin() + from + count, s.end());
  if (std::none_of(known.begin(), known.end(), shapes::isDynamic))
    return reshape(x, known);
  Tensor dims = shape(x, DType::i64);
  int64_t rank = x.rank();
  Tensor group = reshape(reduce_prod(slice(dims, {from}, {count})), {1});
  return reshapeToShape(
      x,
      concat({slice(dims, {0}, {from}), group,
              slice(dims, {from + count}, {rank - from - count})},
             0),
      known);
}

/// tf.einsum's contraction of two operands, keeping the labels `keep`
/// holds (the result's labels: those both share, then the left's, then the
/// right's).
Labeled contract(Labeled a, Labeled b, const Labels &keep) {
  Labels keepA = keep, keepB = keep;
  keepA.insert(keepA.end(), b.labels.begin(), b.labels.end());
  keepB.insert(keepB.end(), a.labels.begin(), a.labels.end());
  a = summedTo(a, keepA);
  b = summedTo(b, keepB);
  Labels batch, left, summed, right;
  for (int label : a.labels)
    (has(b.labels, label) ? has(keep, label) ? batch : summed : left)
        .push_back(label);
  for (int label : b.labels)
    if (!has(a.labels, label))
      right.push_back(label);
  Labels out = batch;
  out.insert(out.end(), left.begin(), left.end());
  out.insert(out.end(), right.begin(), right.end());
  auto cat = [](Labels x, const Labels &y, const Labels &z) {
    x.insert(x.end(), y.begin(), y.end());
    x.insert(x.end(), z.begin(), z.end());
    return x;
  };
  int64_t nb = static_cast<int64_t>(batch.size());
  int64_t nl = static_cast<int64_t>(left.size());
  int64_t nr = static_cast<int64_t>(right.size());
  if (summed.empty()) {
    // An outer product over the labels one side lacks: a broadcasting mul.
    Tensor x = arranged(a, cat(batch, left, {})).t;
    for (int64_t i = 0; i < nr; ++i)
      x = expand_dims(x, nb + nl);
    Tensor y = arranged(b, cat(batch, right, {})).t;
    for (int64_t i = 0; i < nl; ++i)
      y = expand_dims(y, nb);
    return {x * y, out};
  }
  int64_t ns = static_cast<int64_t>(summed.size());
  Tensor x = arranged(a, cat(batch, left, summed)).t;
  Tensor y = arranged(b, cat(batch, summed, right)).t;
  Tensor product =
      matmul(merged(merged(x, nb + nl, ns), nb, nl),
             merged(merged(y, nb + ns, nr), nb, ns)); // [batch..., M, N]
  if (nl == 1 && nr == 1)
    return {product, out};
  // [batch..., M, N] back to [batch..., left..., right...]: the batch dims
  // of the product (broadcast), the others of x and y.
  const Shape &ps = product.shape(), &xs = x.shape(), &ys = y.shape();
  Shape known(ps.begin(), ps.begin() + nb);
  known.insert(known.end(), xs.begin() + nb, xs.begin() + nb + nl);
  known.insert(known.end(), ys.begin() + nb + ns, ys.end());
  if (std::none_of(known.begin(), known.end(), shapes::isDynamic))
    return {reshape(product, known), out};
  Tensor dims = concat({slice(shape(product, DType::i64), {0}, {nb}),
                        slice(shape(x, DType::i64), {nb}, {nl}),
                        slice(shape(y, DType::i64), {nb + ns}, {nr})},
                       0);
  return {reshapeToShape(product, dims, known), out};
}

} // namespace

Tensor einsum(const std::string &equation, const std::vector<Tensor> &inputs) {
  std::string eq;
  for (char c : equation)
    if (c != ' ')
      eq += c;
  size_t arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow);
  std::vector<Term> terms;
  for (size_t start = 0;;) {
    size_t comma = lhs.find(',', start);
    terms.push_back(parseTerm(equation, lhs.substr(start, comma - start)));
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  if (terms.size() != inputs.size())
    bad(equation, "names " + std::to_string(terms.size()) +
                      " operands, but einsum was given " +
                      std::to_string(inputs.size()));
  std::vector<Labeled> operands;
  int64_t ellipsisRank = 0;
  std::map<int, int> uses; // the times each letter is written
  for (const Term &t : terms)
    for (char c : t.letters)
      ++uses[c];
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor &x = inputs[i];
    if (!x.defined())
      bad(equation, "operand " + std::to_string(i) + " is an empty Tensor()");
    requireSameDType(kOp, inputs[0], x);
    if (x.dtype() == DType::i1)
      fail(ErrorKind::InvalidArgument, kOp,
           "needs numeric operands, got bool; cast them first with "
           "fnc::cast(x, fnc::DType::i32)",
           {&x});
    int64_t named = static_cast<int64_t>(terms[i].letters.size());
    if (terms[i].ellipsisAt < 0 ? named != x.rank() : named > x.rank())
      bad(equation,
          "operand " + std::to_string(i) + " has rank " +
              std::to_string(x.rank()) + ", but its term names " +
              std::to_string(named) + " dims" +
              (terms[i].ellipsisAt < 0 ? "; add '...' for the others" : ""),
          {&x});
    ellipsisRank = std::max(ellipsisRank, x.rank() - named);
    Labeled d = diagonal(
        equation, x,
        labelsOf(terms[i], terms[i].ellipsisAt < 0 ? 0 : x.rank() - named));
    operands.push_back(std::move(d));
  }
  // Every label's size agrees (a '...' dim may be 1 against any size).
  std::map<int, std::pair<int64_t, size_t>> sizes;
  for (size_t i = 0; i < operands.size(); ++i)
    for (size_t d = 0; d < operands[i].labels.size(); ++d) {
      int label = operands[i].labels[d];
      int64_t n = operands[i].t.shape()[d];
      auto [it, fresh] = sizes.try_emplace(label, n, i);
      int64_t seen = it->second.first;
      if (fresh || shapes::isDynamic(n) || n == seen ||
          (label >= kEllipsis && (n == 1 || seen == 1)))
        continue;
      if (shapes::isDynamic(seen)) {
        it->second = {n, i};
        continue;
      }
      bad(equation,
          "label " + labelName(label) + " is " + std::to_string(seen) +
              " in operand " + std::to_string(it->second.second) + " but " +
              std::to_string(n) + " in operand " + std::to_string(i),
          {&inputs[it->second.second], &inputs[i]});
    }
  Labels result;
  if (arrow == std::string::npos) {
    // numpy's implicit output: the '...' dims, then every label named
    // once, in alphabetical order.
    for (int64_t e = ellipsisRank - 1; e >= 0; --e)
      result.push_back(kEllipsis + static_cast<int>(e));
    for (auto [label, n] : uses)
      if (label < kEllipsis && n == 1)
        result.push_back(label);
  } else {
    Term out = parseTerm(equation, eq.substr(arrow + 2));
    result = labelsOf(out, out.ellipsisAt < 0 ? 0 : ellipsisRank);
    for (size_t i = 0; i < result.size(); ++i) {
      if (indexOf(result, result[i]) != static_cast<int64_t>(i))
        bad(equation,
            "the output names label " + labelName(result[i]) + " twice");
      if (result[i] < kEllipsis && !uses.count(result[i]))
        bad(equation, "the output names label " + labelName(result[i]) +
                          ", which no operand has");
    }
  }
  // Left to right, each contraction keeping the labels of the output and
  // of the operands still to come.
  Labeled acc = operands[0];
  for (size_t i = 1; i < operands.size(); ++i) {
    Labels keep = result;
    for (size_t j = i + 1; j < operands.size(); ++j)
      keep.insert(keep.end(), operands[j].labels.begin(),
                  operands[j].labels.end());
    acc = contract(acc, operands[i], keep);
  }
  return arranged(summedTo(acc, result), result).t;
}

} // namespace fnc
