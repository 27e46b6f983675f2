//===- FncFolds.cpp - Folders and canonicalizations of fnc ops ------------===//
//
// Constant folding of elementwise ops on small (or splat) constants, the
// algebraic identities that are exact (x + 0 and x * 0 for integers, x - 0,
// x * 1, x / 1), no-op shape ops, transpose/reshape chains, and the static
// cases of cond and while. Constant folding computes each element with the
// scalar function of fnc/Reference/Scalar.h in the element's own C++ type,
// as the eager reference kernels do, so the two agree bit for bit.
//
//===----------------------------------------------------------------------===//

#include "fnc/Dialect/Fnc/IR/FncOps.h"
#include "fnc/Reference/Scalar.h"
#include "fnc/Shape/ShapeRules.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/PatternMatch.h"

#include <cmath>
#include <optional>

using namespace mlir;
using namespace mlir::fnc;

/// Non-splat constants fold only up to this many result elements, so that
/// folding never bloats the IR.
static constexpr int64_t kMaxFoldElements = 1024;

//===----------------------------------------------------------------------===//
// Constant evaluation helpers
//===----------------------------------------------------------------------===//

namespace {
/// A constant of `type` (float element type) from double values.
DenseElementsAttr makeElements(ShapedType type, ArrayRef<double> values) {
  Type element = type.getElementType();
  if (!isa<FloatType>(element))
    return {};
  SmallVector<APFloat> out;
  for (double v : values)
    out.push_back(element.isF32() ? APFloat(static_cast<float>(v))
                                  : APFloat(v));
  return DenseElementsAttr::get(type, out);
}

/// A constant of `type` (integer element type) from int64 values, wrapping.
DenseElementsAttr makeElements(ShapedType type, ArrayRef<int64_t> values) {
  Type element = type.getElementType();
  if (!element.isSignlessInteger())
    return {};
  unsigned width = element.getIntOrFloatBitWidth();
  SmallVector<APInt> out;
  for (int64_t v : values)
    out.push_back(width == 1 ? APInt(1, v != 0)
                             : APInt(width, v, /*isSigned=*/true,
                                     /*implicitTrunc=*/true));
  return DenseElementsAttr::get(type, out);
}

/// For each element of the static `to` shape, the linear index of the
/// element of `from` (numpy broadcasting) it reads.
SmallVector<int64_t> broadcastMap(ArrayRef<int64_t> from,
                                  ArrayRef<int64_t> to) {
  int64_t rank = to.size();
  SmallVector<int64_t> strides(rank, 0);
  int64_t stride = 1;
  for (int64_t i = from.size() - 1, j = rank - 1; i >= 0; --i, --j) {
    strides[j] = from[i] == 1 ? 0 : stride;
    stride *= from[i];
  }
  int64_t count = ShapedType::getNumElements(to);
  SmallVector<int64_t> map(count), index(rank, 0);
  for (int64_t k = 0; k < count; ++k) {
    int64_t linear = 0;
    for (int64_t d = 0; d < rank; ++d)
      linear += index[d] * strides[d];
    map[k] = linear;
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < to[d])
        break;
      index[d] = 0;
    }
  }
  return map;
}

/// Calls `fn(T{})` with the C++ type T of the fnc element type `type`.
template <typename Fn> Attribute withElementType(Type type, Fn fn) {
  if (type.isF32())
    return fn(float());
  if (type.isF64())
    return fn(double());
  if (type.isSignlessInteger(1))
    return fn(bool());
  if (type.isSignlessInteger(32))
    return fn(int32_t());
  if (type.isSignlessInteger(64))
    return fn(int64_t());
  return {};
}

/// Evaluates `fn` elementwise over constant operands of element type In
/// with numpy broadcasting; `fn` returns std::optional<Out>, nullopt (an
/// element without a result, such as an integer division by zero: a
/// run-time error, not a constant) meaning "do not fold". Returns null when
/// the operands are not all constants or the result is too large to fold.
template <typename In, typename Out, typename Fn>
Attribute evaluate(Type resultType, ArrayRef<Attribute> operands, Fn fn) {
  auto type = dyn_cast<RankedTensorType>(resultType);
  if (!type || !type.hasStaticShape())
    return {};
  SmallVector<DenseElementsAttr> attrs;
  bool allSplat = true;
  for (Attribute a : operands) {
    auto dense = dyn_cast_or_null<DenseElementsAttr>(a);
    if (!dense)
      return {};
    attrs.push_back(dense);
    allSplat &= dense.isSplat();
  }
  int64_t count = allSplat ? 1 : type.getNumElements();
  if (count > kMaxFoldElements)
    return {};

  SmallVector<SmallVector<In>> values;
  SmallVector<SmallVector<int64_t>> maps;
  for (DenseElementsAttr a : attrs) {
    auto all = a.getValues<In>();
    values.emplace_back(all.begin(),
                        all.begin() + (allSplat ? 1 : a.getNumElements()));
    maps.push_back(allSplat ? SmallVector<int64_t>{0}
                            : broadcastMap(a.getType().getShape(),
                                           type.getShape()));
  }

  SmallVector<Out> results;
  results.reserve(count);
  SmallVector<In> args(attrs.size());
  for (int64_t k = 0; k < count; ++k) {
    for (size_t o = 0; o < attrs.size(); ++o)
      args[o] = values[o][maps[o][k]];
    std::optional<Out> r = fn(ArrayRef<In>(args));
    if (!r)
      return {};
    results.push_back(*r);
  }
  if (allSplat)
    return DenseElementsAttr::get(type, ArrayRef<Out>(results[0]));
  return DenseElementsAttr::get(type, ArrayRef<Out>(results));
}

/// Constant folding of an op of the op table whose operands must be of
/// `D`: `element(x)` computes a result element from the operands' elements
/// x (of their C++ type) with the op's scalar function, the one the
/// reference kernels use, or returns std::nullopt where there is none.
template <::fnc::scalar::DTypes D, typename Element>
Attribute foldTableOp(Type resultType, Type operandType,
                      ArrayRef<Attribute> operands, Element element) {
  return withElementType(getElementTypeOrSelf(operandType), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!::fnc::scalar::accepts<T>(D)) {
      return Attribute();
    } else {
      using Out = typename decltype(element(ArrayRef<T>()))::value_type;
      return evaluate<T, Out>(resultType, operands, element);
    }
  });
}

/// True if `attr` is a splat constant equal to `value`; for floats, -0.0
/// and +0.0 are told apart when `exactZeroSign` is set.
bool isSplat(Attribute attr, double value, bool negativeZero = false) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(attr);
  if (!dense || !dense.isSplat())
    return false;
  if (isa<FloatType>(dense.getElementType())) {
    APFloat v = dense.getSplatValue<APFloat>();
    if (value == 0 && v.isZero())
      return v.isNegative() == negativeZero;
    return v.convertToDouble() == value;
  }
  APInt v = dense.getSplatValue<APInt>();
  return (v.getBitWidth() == 1 ? (int64_t)v.getZExtValue()
                               : v.getSExtValue()) == (int64_t)value;
}

bool isFloat(Type type) { return isa<FloatType>(getElementTypeOrSelf(type)); }

} // namespace

//===----------------------------------------------------------------------===//
// Creation ops
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValueAttr(); }

OpFoldResult FillOp::fold(FoldAdaptor) {
  auto type = getType();
  if (!type.hasStaticShape())
    return {};
  double v = getValue().convertToDouble();
  auto scalar = RankedTensorType::get({}, type.getElementType());
  DenseElementsAttr one =
      isFloat(type) ? makeElements(scalar, ArrayRef<double>{v})
                    : makeElements(scalar, ArrayRef<int64_t>{(int64_t)v});
  return DenseElementsAttr::get(type, one.getSplatValue<Attribute>());
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  Type from = getInput().getType().getElementType();
  Type to = getType().getElementType();
  return withElementType(from, [&](auto fromTag) {
    using From = decltype(fromTag);
    return withElementType(to, [&](auto toTag) {
      using To = decltype(toTag);
      // Compiled code saturates as convert does (NaN gives 0).
      return evaluate<From, To>(getType(), adaptor.getOperands(),
                                [](ArrayRef<From> x) -> std::optional<To> {
                                  return ::fnc::scalar::convert<To>(x[0]);
                                });
    });
  });
}

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

// Every elementwise op of the op table folds constants through its scalar
// function; some also fold an identity first. The identities are exact:
// x + 0 only for integers (for floats only x + (-0.0) is), x - 0, x * 1,
// x / 1, pow(x, 1), and x * 0 -> 0 for integers.

/// No identity (the default).
template <typename OpTy>
static OpFoldResult foldIdentity(OpTy, typename OpTy::FoldAdaptor) {
  return {};
}

/// `value` if it already has `type` (so replacing the op keeps the type).
static OpFoldResult sameTypeOrNull(Value value, Type type) {
  return value.getType() == type ? OpFoldResult(value) : OpFoldResult();
}

static OpFoldResult foldIdentity(AddOp op, AddOp::FoldAdaptor adaptor) {
  if (isSplat(adaptor.getRhs(), 0, /*negativeZero=*/isFloat(op.getType())))
    return sameTypeOrNull(op.getLhs(), op.getType());
  return {};
}

static OpFoldResult foldIdentity(SubOp op, SubOp::FoldAdaptor adaptor) {
  if (isSplat(adaptor.getRhs(), 0))
    return sameTypeOrNull(op.getLhs(), op.getType());
  return {};
}

static OpFoldResult foldIdentity(MulOp op, MulOp::FoldAdaptor adaptor) {
  if (isSplat(adaptor.getRhs(), 1))
    if (OpFoldResult r = sameTypeOrNull(op.getLhs(), op.getType()))
      return r;
  // x * 0 -> 0 only for integers (floats: NaN * 0 is NaN, -x * 0 is -0).
  if (!isFloat(op.getType()) && isSplat(adaptor.getRhs(), 0) &&
      op.getType().hasStaticShape())
    return DenseElementsAttr::get(
        op.getType(),
        cast<DenseElementsAttr>(adaptor.getRhs()).getSplatValue<Attribute>());
  return {};
}

static OpFoldResult foldIdentity(DivOp op, DivOp::FoldAdaptor adaptor) {
  if (isSplat(adaptor.getRhs(), 1))
    return sameTypeOrNull(op.getLhs(), op.getType());
  return {};
}

static OpFoldResult foldIdentity(PowOp op, PowOp::FoldAdaptor adaptor) {
  if (isSplat(adaptor.getRhs(), 1))
    return sameTypeOrNull(op.getLhs(), op.getType());
  return {};
}

#define FNC_BINARY_OP(KIND, CLASS, API, DTYPES, ...)                           \
  OpFoldResult CLASS::fold(FoldAdaptor adaptor) {                              \
    if (OpFoldResult r = foldIdentity(*this, adaptor))                         \
      return r;                                                                \
    return foldTableOp<::fnc::scalar::DTypes::DTYPES>(                         \
        getType(), getLhs().getType(), adaptor.getOperands(), [](auto x) {     \
          ::fnc::scalar::Trap trap;                                            \
          auto r = ::fnc::scalar::KIND::apply(x[0], x[1], trap);               \
          return trap ? std::nullopt : std::optional(r);                       \
        });                                                                    \
  }
#define FNC_UNARY_OP(KIND, CLASS, API, DTYPES, ...)                            \
  OpFoldResult CLASS::fold(FoldAdaptor adaptor) {                              \
    return foldTableOp<::fnc::scalar::DTypes::DTYPES>(                         \
        getType(), getType(), adaptor.getOperands(), [](auto x) {              \
          return std::optional(::fnc::scalar::KIND::apply(x[0]));              \
        });                                                                    \
  }
#include "fnc/Dialect/Fnc/IR/FncOpTable.inc"

OpFoldResult CompareOp::fold(FoldAdaptor adaptor) {
  switch (getPredicate()) {
#define FNC_COMPARE_OP(KIND, PREDICATE, API, DTYPES)                           \
  case ComparePredicate::PREDICATE:                                            \
    return foldTableOp<::fnc::scalar::DTypes::DTYPES>(                         \
        getType(), getLhs().getType(), adaptor.getOperands(), [](auto x) {     \
          return std::optional(::fnc::scalar::KIND::apply(x[0], x[1]));        \
        });
#include "fnc/Dialect/Fnc/IR/FncOpTable.inc"
  }
  return {};
}

/// Whether `cond` cannot stretch a value of type `valueType` at run time:
/// where the value's dim is unknown, cond's (aligned to the right) is
/// absent or 1. (Types alike do not say it: a dim unknown at compile time
/// may be 1 in the value and 3 in cond.)
static bool neverStretchedBy(Type valueType, Type condType) {
  auto value = dyn_cast<RankedTensorType>(valueType);
  auto cond = dyn_cast<RankedTensorType>(condType);
  if (!value || !cond)
    return false;
  int64_t lead = value.getRank() - cond.getRank();
  for (int64_t d = 0; d < value.getRank(); ++d)
    if (value.isDynamicDim(d) && d >= lead && cond.getDimSize(d - lead) != 1)
      return false;
  return true;
}

OpFoldResult SelectOp::fold(FoldAdaptor adaptor) {
  // cond ? x : x is x unless cond broadcasts x.
  if (getLhs() == getRhs() &&
      ((*this)->hasAttr(kSameUnknownDims) ||
       neverStretchedBy(getLhs().getType(), getCond().getType())))
    return sameTypeOrNull(getLhs(), getType());
  if (isSplat(adaptor.getCond(), 1))
    return sameTypeOrNull(getLhs(), getType());
  if (isSplat(adaptor.getCond(), 0))
    return sameTypeOrNull(getRhs(), getType());
  return {};
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  ArrayRef<int64_t> perm = getPerm();
  if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
    return getInput();
  // transpose(transpose(x, inner), perm) == transpose(x, inner o perm).
  auto inner = getInput().getDefiningOp<TransposeOp>();
  if (!inner)
    return {};
  SmallVector<int64_t> composed;
  for (int64_t p : perm)
    composed.push_back(inner.getPerm()[p]);
  if (llvm::equal(composed, llvm::seq<int64_t>(0, composed.size())))
    return inner.getInput();
  getInputMutable().assign(inner.getInput());
  setPerm(composed);
  return getResult();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput()))
    if (getType().hasStaticShape())
      return dense.reshape(getType());
  // reshape(reshape(x)) == reshape(x): only the final shape matters.
  if (auto inner = getInput().getDefiningOp<ReshapeOp>()) {
    if (inner.getInput().getType() == getType())
      return inner.getInput();
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  return {};
}

OpFoldResult BroadcastToOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput());
  if (dense && dense.isSplat() && getType().hasStaticShape())
    return DenseElementsAttr::get(getType(),
                                  dense.getSplatValue<Attribute>());
  return {};
}

OpFoldResult ShapeOfOp::fold(FoldAdaptor) {
  auto in = getInput().getType();
  if (!in.hasStaticShape())
    return {};
  Type element = getType().getElementType();
  SmallVector<APInt> dims;
  for (int64_t d : in.getShape())
    dims.push_back(APInt(element.getIntOrFloatBitWidth(), d));
  return DenseElementsAttr::get(getType(), dims);
}

OpFoldResult BroadcastToShapeOp::fold(FoldAdaptor adaptor) {
  // A constant shape makes it a broadcast_to (or nothing) when every dim of
  // the result is static and equal to the shape's (the run-time checks
  // would pass).
  auto shape = dyn_cast_or_null<DenseIntElementsAttr>(adaptor.getShape());
  if (!shape || !getType().hasStaticShape())
    return {};
  for (auto [value, dim] : llvm::zip(shape.getValues<APInt>(),
                                     getType().getShape()))
    if (value.getSExtValue() != dim)
      return {};
  if (getInput().getType() == getType())
    return getInput();
  auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput());
  if (dense && dense.isSplat())
    return DenseElementsAttr::get(getType(), dense.getSplatValue<Attribute>());
  return {};
}

OpFoldResult SumToShapeOp::fold(FoldAdaptor) {
  // Nothing to sum: the types are equal, and so are the sizes where they
  // are dynamic (the trace knows it, or the shape says so).
  if (getInput().getType() != getType())
    return {};
  if (getType().hasStaticShape() || (*this)->hasAttr(kSameUnknownDims))
    return getInput();
  if (auto shapeOf = getShape().getDefiningOp<ShapeOfOp>())
    if (shapeOf.getInput() == getInput())
      return getInput();
  return {};
}

OpFoldResult SliceOp::fold(FoldAdaptor) {
  if (getInput().getType() != getType())
    return {};
  bool identity = llvm::all_of(getOffsets(), [](int64_t o) { return o == 0; }) &&
                  llvm::all_of(getStrides(), [](int64_t s) { return s == 1; });
  return identity ? OpFoldResult(getInput()) : OpFoldResult();
}

namespace {
namespace rules = ::fnc::shapes;

/// Whether range dim `i` of a strided slice of `inType` reads the whole dim
/// forwards with `stride`, from 0 to the end, whatever its size.
bool takesWholeDim(RankedTensorType inType, int64_t i, int64_t begin,
                   int64_t end, int64_t stride) {
  if (stride <= 0)
    return false;
  if (!inType.isDynamicDim(i)) {
    rules::SliceDim r =
        rules::resolveSliceDim(inType.getDimSize(i), begin, end, stride);
    return r.start == 0;
  }
  return (begin == 0 || begin == rules::kSliceMin) && end == rules::kSliceMax;
}

/// fnc.strided_slice whose dims all resolve while compiling (known sizes,
/// or a whole dynamic dim) with positive strides and no index is the
/// fnc.slice that reads the same window.
struct StridedSliceToSlice : public OpRewritePattern<StridedSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(StridedSliceOp op,
                                PatternRewriter &rewriter) const override {
    auto inType = cast<RankedTensorType>(op.getInput().getType());
    SmallVector<int64_t> offsets, sizes;
    for (int64_t i = 0; i < inType.getRank(); ++i) {
      int64_t begin = op.getBegin()[i], end = op.getEnd()[i],
              stride = op.getStrides()[i];
      if (op.getShrink()[i] || stride <= 0)
        return failure();
      if (!inType.isDynamicDim(i)) {
        rules::SliceDim r =
            rules::resolveSliceDim(inType.getDimSize(i), begin, end, stride);
        offsets.push_back(r.start);
        sizes.push_back(r.count);
      } else if (takesWholeDim(inType, i, begin, end, stride)) {
        offsets.push_back(0);
        sizes.push_back(rules::kSliceToEnd);
      } else {
        return failure();
      }
    }
    rewriter.replaceOpWithNewOp<SliceOp>(
        op, op.getType(), op.getInput(), rewriter.getDenseI64ArrayAttr(offsets),
        rewriter.getDenseI64ArrayAttr(sizes), op.getStridesAttr());
    return success();
  }
};

/// fnc.strided_slice_grad of a static input with positive strides and no
/// index is the fnc.pad that places the gradient: the start before, the
/// stride as interior padding, the rest after.
struct StridedSliceGradToPad : public OpRewritePattern<StridedSliceGradOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(StridedSliceGradOp op,
                                PatternRewriter &rewriter) const override {
    auto inType = cast<RankedTensorType>(op.getInput().getType());
    auto gradType = cast<RankedTensorType>(op.getGrad().getType());
    if (!inType.hasStaticShape() || !gradType.hasStaticShape())
      return failure();
    SmallVector<int64_t> low, high, interior;
    for (int64_t i = 0; i < inType.getRank(); ++i) {
      int64_t stride = op.getStrides()[i];
      if (op.getShrink()[i] || stride <= 0)
        return failure();
      int64_t n = inType.getDimSize(i);
      rules::SliceDim r =
          rules::resolveSliceDim(n, op.getBegin()[i], op.getEnd()[i], stride);
      int64_t span = r.count == 0 ? 0 : (r.count - 1) * stride + 1;
      low.push_back(r.start);
      interior.push_back(r.count == 0 ? 0 : stride - 1);
      high.push_back(n - r.start - span);
    }
    rewriter.replaceOpWithNewOp<PadOp>(
        op, op.getType(), op.getGrad(), rewriter.getDenseI64ArrayAttr(low),
        rewriter.getDenseI64ArrayAttr(high),
        rewriter.getDenseI64ArrayAttr(interior), rewriter.getF64FloatAttr(0.0));
    return success();
  }
};
} // namespace

OpFoldResult StridedSliceOp::fold(FoldAdaptor) {
  // Every dim taken whole, forwards, one by one: the input itself.
  auto inType = cast<RankedTensorType>(getInput().getType());
  if (inType != getType())
    return {};
  for (int64_t i = 0; i < inType.getRank(); ++i)
    if (getShrink()[i] || getStrides()[i] != 1 ||
        !takesWholeDim(inType, i, getBegin()[i], getEnd()[i], 1))
      return {};
  return getInput();
}

void StridedSliceOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                 MLIRContext *context) {
  results.add<StridedSliceToSlice>(context);
}

void StridedSliceGradOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                     MLIRContext *context) {
  results.add<StridedSliceGradToPad>(context);
}

OpFoldResult PadOp::fold(FoldAdaptor) {
  auto zero = [](int64_t a) { return a == 0; };
  if (llvm::all_of(getLow(), zero) && llvm::all_of(getHigh(), zero) &&
      llvm::all_of(getInterior(), zero))
    return getInput();
  return {};
}

OpFoldResult ConcatOp::fold(FoldAdaptor) {
  if (getInputs().size() == 1)
    return sameTypeOrNull(getInputs()[0], getType());
  return {};
}

namespace {
/// pow(x, 2) -> x * x: exact, and no call to pow.
struct PowOfTwo : public OpRewritePattern<PowOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PowOp op,
                                PatternRewriter &rewriter) const override {
    Attribute exponent;
    if (op.getLhs().getType() != op.getType() ||
        !matchPattern(op.getRhs(), m_Constant(&exponent)) ||
        !isSplat(exponent, 2))
      return failure();
    rewriter.replaceOpWithNewOp<MulOp>(op, op.getLhs(), op.getLhs());
    return success();
  }
};
} // namespace

void PowOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                        MLIRContext *context) {
  results.add<PowOfTwo>(context);
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

/// Replaces `op` by the single block of `region` run with `args`; the
/// terminator's operands after the first `skip` replace the op's results.
static void replaceOpWithRegion(PatternRewriter &rewriter, Operation *op,
                                Region &region, ValueRange args,
                                unsigned skip = 0) {
  Block *block = &region.front();
  Operation *terminator = block->getTerminator();
  rewriter.inlineBlockBefore(block, op, args);
  // Read the operands after inlining: uses of block arguments now use `args`.
  SmallVector<Value> results(terminator->getOperands().drop_front(skip));
  rewriter.replaceOp(op, results);
  rewriter.eraseOp(terminator);
}

namespace {
/// fnc.cond on a constant predicate is the branch it takes.
struct InlineConstantCond : public OpRewritePattern<CondOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CondOp op,
                                PatternRewriter &rewriter) const override {
    DenseIntElementsAttr pred;
    if (!matchPattern(op.getPred(), m_Constant(&pred)))
      return failure();
    Region &taken = (*pred.value_begin<APInt>()).getBoolValue()
                        ? op.getThenRegion()
                        : op.getElseRegion();
    replaceOpWithRegion(rewriter, op, taken, {});
    return success();
  }
};

/// fnc.while whose condition is constant false runs its cond region once
/// and never its body.
struct RemoveZeroTripWhile : public OpRewritePattern<WhileOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WhileOp op,
                                PatternRewriter &rewriter) const override {
    auto condition =
        cast<ConditionOp>(op.getCondRegion().front().getTerminator());
    DenseIntElementsAttr value;
    if (!matchPattern(condition.getCondition(), m_Constant(&value)) ||
        (*value.value_begin<APInt>()).getBoolValue())
      return failure();
    replaceOpWithRegion(rewriter, op, op.getCondRegion(), op.getInits(),
                        /*skip=*/1);
    return success();
  }
};
} // namespace

void CondOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                         MLIRContext *context) {
  results.add<InlineConstantCond>(context);
}

void WhileOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                          MLIRContext *context) {
  results.add<RemoveZeroTripWhile>(context);
}
