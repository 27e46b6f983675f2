//===- Pooling.cpp - Lowering of 2-D pooling and its gradients ------------===//
//
// max_pool2d / avg_pool2d read an input padded with -inf / 0 (same
// padding). Windows of up to kMaxUnrolledTaps taps: a generic over the
// output elements whose body reads the window's taps and combines them in
// registers (avg divides by the number of input elements the window covers
// right away). Larger windows: a generic with loops (n, oh, ow, kh, kw, c),
// innermost along the channels as conv2d, then (avg) a division.
// Elementwise generics carry a unit reduction loop before the channels
// (pixelGeneric), so that -fnc-lower-to-ordered-loops runs the channels as
// the innermost sequential loop rather than one collapsed parallel loop
// that recomputes every index from a flat counter.
//
// The gradients are gathers, not scatters, so that every loop is parallel
// over the input gradient: max_pool2d_grad first finds the tap of each
// window's first maximum (small windows unrolled; larger ones with a
// generic carrying (value, tap) accumulators, as argmax does). Then, for
// both ops, a generic with loops (n, h, w, kh, kw, c) visits, for each
// input element and tap, the window that would hold the element at that
// tap and adds the window's gradient (avg: divided by its count) if that
// window exists (max: and chose that tap). The taps run backwards, so an
// element's windows come in row-major order: the order in which the
// reference kernels add, hence the same sums. When the windows tile the
// input (2x2 windows with stride 2 over an even size), each element has at
// most one window, found through floordiv maps: one elementwise generic.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "fnc/Dialect/Fnc/IR/FncOps.h"
#include "fnc/Shape/ShapeRules.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <limits>

using namespace mlir;
using namespace mlir::fnc;
using namespace mlir::fnc::lowering;

namespace {

constexpr double kMinusInf = -std::numeric_limits<double>::infinity();

/// The windows along one spatial dim (1: rows, 2: columns) of the input.
struct Axis {
  int64_t k = 1, s = 1;
  Value in;                   // input size
  OpFoldResult out;           // number of windows
  OpFoldResult before, after; // padding
  bool padded = false;        // before or after may be non-zero
  bool dynamicOut = false;    // `out` is known only at run time
};

/// The windows of `op` along spatial dim `d` (0 or 1) of `input`; with
/// valid padding, a window larger than a dynamic input dim raises
/// WindowTooLarge and gives no windows.
template <typename OpTy>
Axis axisOf(OpBuilder &b, Location loc, OpTy op, Value input, int d) {
  Axis a;
  a.k = op.getKsize()[d];
  a.s = op.getStrides()[d];
  auto type = cast<RankedTensorType>(input.getType());
  int64_t in = type.getDimSize(1 + d);
  a.in = getValueOrCreateConstantIndexOp(
      b, loc, tensor::getMixedSize(b, loc, input, 1 + d));
  bool same = op.getPadding() == Padding::same;
  if (!ShapedType::isDynamic(in)) {
    int64_t before, after;
    auto padding =
        same ? ::fnc::shapes::Padding::Same : ::fnc::shapes::Padding::Valid;
    ::fnc::shapes::conv2dPadding(in, a.k, a.s, padding, before, after);
    a.before = b.getIndexAttr(before);
    a.after = b.getIndexAttr(after);
    a.padded = before || after;
    a.out = b.getIndexAttr(same ? (in + a.s - 1) / a.s : (in - a.k) / a.s + 1);
    return a;
  }
  a.dynamicOut = true;
  Value k = indexConstant(b, loc, a.k), s = indexConstant(b, loc, a.s);
  Value zero = indexConstant(b, loc, 0), one = indexConstant(b, loc, 1);
  if (same) {
    // TF's SAME: total = max((out - 1) * s + k - in, 0), half before.
    Value out = arith::CeilDivUIOp::create(b, loc, a.in, s);
    Value span = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, arith::SubIOp::create(b, loc, out, one),
                              s),
        k);
    Value total = arith::MaxSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, span, a.in), zero);
    Value before =
        arith::DivUIOp::create(b, loc, total, indexConstant(b, loc, 2));
    a.out = out;
    a.before = before;
    a.after = arith::SubIOp::create(b, loc, total, before).getResult();
    a.padded = true;
    return a;
  }
  Value small =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, a.in, k);
  raiseErrorIf(b, loc, small, ErrorCode::WindowTooLarge, k, a.in);
  Value span = arith::SelectOp::create(b, loc, small, zero,
                                       arith::SubIOp::create(b, loc, a.in, k));
  Value windows = arith::AddIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, span, s), one);
  a.out = arith::SelectOp::create(b, loc, small, zero, windows).getResult();
  a.before = b.getIndexAttr(0);
  a.after = b.getIndexAttr(0);
  return a;
}

/// `input` padded with `value` before and after its windows (itself when
/// no axis is padded).
Value padInput(OpBuilder &b, Location loc, Value input, const Axis (&axes)[2],
               double value) {
  if (!axes[0].padded && !axes[1].padded)
    return input;
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<OpFoldResult> low(4, b.getIndexAttr(0)), high = low;
  SmallVector<int64_t> shape(type.getShape());
  for (int d = 0; d < 2; ++d) {
    low[1 + d] = axes[d].before;
    high[1 + d] = axes[d].after;
    auto lo = getConstantIntValue(low[1 + d]);
    auto hi = getConstantIntValue(high[1 + d]);
    if (type.isDynamicDim(1 + d) || !lo || !hi)
      shape[1 + d] = ShapedType::kDynamic;
    else
      shape[1 + d] += *lo + *hi;
  }
  auto paddedType = RankedTensorType::get(shape, type.getElementType());
  return tensor::PadOp::create(
      b, loc, paddedType, input, low, high,
      scalarConstant(b, loc, type.getElementType(), value));
}

/// The [kh, kw] tensor whose only role is to give the window loops their
/// sizes (as the window operand of linalg.pooling_* does).
Value windowShape(OpBuilder &b, Location loc, const Axis (&axes)[2],
                  Type element) {
  return tensor::EmptyOp::create(
      b, loc, ArrayRef<int64_t>{axes[0].k, axes[1].k}, element);
}

/// Index maps over loops (n, a, b, kh, kw, c): the 4-D operand read at
/// (n, a * sh + kh, b * sw + kw, c) (`strided`), the window (kh, kw) and
/// the 4-D operand at (n, a, b, c).
struct WindowMaps {
  AffineMap strided, window, pixel;
};
WindowMaps windowMaps(MLIRContext *ctx, const Axis (&axes)[2]) {
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  return {AffineMap::get(
              6, 0,
              {d(0), d(1) * axes[0].s + d(3), d(2) * axes[1].s + d(4), d(5)},
              ctx),
          AffineMap::get(6, 0, {d(3), d(4)}, ctx),
          AffineMap::get(6, 0, {d(0), d(1), d(2), d(5)}, ctx)};
}

SmallVector<utils::IteratorType> windowIterators() {
  using utils::IteratorType;
  return {IteratorType::parallel,  IteratorType::parallel,
          IteratorType::parallel,  IteratorType::reduction,
          IteratorType::reduction, IteratorType::parallel};
}

/// A generic over the NHWC elements (n, h, w, c) of `init`, whose inputs
/// are read through `maps` (over those 4 dims). A unit reduction loop sits
/// before c, so that -fnc-lower-to-ordered-loops runs (n, h, w) in
/// parallel and c as the innermost sequential loop over contiguous
/// elements, instead of one collapsed parallel loop that recomputes every
/// index from a flat counter. `body` gets the block arguments (inputs, then
/// the unused accumulator) and the four element indices.
Value pixelGeneric(
    OpBuilder &b, Location loc, Value init, ValueRange inputs,
    ArrayRef<AffineMap> maps,
    function_ref<Value(OpBuilder &, Location, ValueRange, ArrayRef<Value>)>
        body) {
  MLIRContext *ctx = b.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineExpr> dims = {d(0), d(1), d(2), d(4)};
  SmallVector<Value> ins(inputs.begin(), inputs.end());
  SmallVector<AffineMap> all;
  for (AffineMap m : maps)
    all.push_back(m.replaceDimsAndSymbols(dims, {}, 5, 0));
  // The unit loop's size comes from a [1] operand.
  Type element = cast<RankedTensorType>(init.getType()).getElementType();
  ins.push_back(tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{1}, element));
  all.push_back(AffineMap::get(5, 0, {d(3)}, ctx));
  all.push_back(AffineMap::get(5, 0, {d(0), d(1), d(2), d(4)}, ctx));
  using utils::IteratorType;
  SmallVector<IteratorType> iterators = {
      IteratorType::parallel, IteratorType::parallel, IteratorType::parallel,
      IteratorType::reduction, IteratorType::parallel};
  return linalg::GenericOp::create(
             b, loc, init.getType(), ins, ValueRange{init}, all, iterators,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               SmallVector<Value> at;
               for (int64_t i : {0, 1, 2, 4})
                 at.push_back(linalg::IndexOp::create(nb, nl, i));
               SmallVector<Value> operands(args.begin(),
                                           args.begin() + inputs.size());
               linalg::YieldOp::create(nb, nl,
                                       ValueRange{body(nb, nl, operands, at)});
             })
      .getResult(0);
}

/// The number of input elements the window `o` (an index) of `a` covers.
Value windowCount(OpBuilder &b, Location loc, const Axis &a, Value o) {
  if (!a.padded)
    return indexConstant(b, loc, a.k);
  Value before = getValueOrCreateConstantIndexOp(b, loc, a.before);
  Value start = arith::SubIOp::create(
      b, loc, arith::MulIOp::create(b, loc, o, indexConstant(b, loc, a.s)),
      before);
  Value lo = arith::MaxSIOp::create(b, loc, start, indexConstant(b, loc, 0));
  Value hi = arith::MinSIOp::create(
      b, loc, arith::AddIOp::create(b, loc, start, indexConstant(b, loc, a.k)),
      a.in);
  return arith::SubIOp::create(b, loc, hi, lo);
}

/// The number of input elements of the window at element `at` (n, oh, ow,
/// c), as a float of type `element`.
Value windowCountAsFloat(OpBuilder &b, Location loc, const Axis (&axes)[2],
                         ArrayRef<Value> at, Type element) {
  Value count =
      arith::MulIOp::create(b, loc, windowCount(b, loc, axes[0], at[1]),
                            windowCount(b, loc, axes[1], at[2]));
  count = arith::IndexCastOp::create(b, loc, b.getI64Type(), count);
  return arith::SIToFPOp::create(b, loc, element, count);
}

/// `t` (of `type`, NHWC over the windows) with each element divided by
/// the number of input elements of its window, into `dest`.
Value divideByCount(OpBuilder &b, Location loc, Value t, Value dest,
                    const Axis (&axes)[2]) {
  Type element = cast<RankedTensorType>(dest.getType()).getElementType();
  AffineMap id = AffineMap::getMultiDimIdentityMap(4, b.getContext());
  return pixelGeneric(
      b, loc, dest, ValueRange{t}, {id},
      [&](OpBuilder &nb, Location nl, ValueRange args, ArrayRef<Value> at) {
        return arith::DivFOp::create(
                   nb, nl, args[0],
                   windowCountAsFloat(nb, nl, axes, at, element))
            .getResult();
      });
}

/// Windows of at most this many taps are read with the taps unrolled.
constexpr int64_t kMaxUnrolledTaps = 9;

/// The row (column) of the padded input that tap `t` of window `o` (an
/// index) of `a` reads: o * s + t.
Value paddedAt(OpBuilder &b, Location loc, const Axis &a, Value o, int64_t t) {
  return arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, o, indexConstant(b, loc, a.s)),
      indexConstant(b, loc, t));
}

/// The combination of a window's elements (maximum or sum) in row-major
/// window order, starting from `identity`.
Value combine(OpBuilder &b, Location loc, bool isMax, Value acc, Value x) {
  return isMax ? (Value)arith::MaximumFOp::create(b, loc, acc, x)
               : (Value)arith::AddFOp::create(b, loc, acc, x);
}

template <typename OpTy, bool IsMax>
struct Pool2DLowering : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;
  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    RankedTensorType type = op.getType();
    Type element = type.getElementType();
    Axis axes[2] = {axisOf(rewriter, loc, op, input, 0),
                    axisOf(rewriter, loc, op, input, 1)};
    double identity = IsMax ? kMinusInf : 0.0;
    Value padded = padInput(rewriter, loc, input, axes, identity);
    SmallVector<OpFoldResult> sizes = {
        tensor::getMixedSize(rewriter, loc, input, 0), axes[0].out, axes[1].out,
        tensor::getMixedSize(rewriter, loc, input, 3)};
    Value result;
    if (axes[0].k * axes[1].k <= kMaxUnrolledTaps) {
      // Small windows: each output element reads its window's taps and
      // combines them in registers (avg divides right away).
      result = pixelGeneric(
          rewriter, loc, emptyTensor(rewriter, loc, type, sizes), ValueRange{},
          {}, [&](OpBuilder &b, Location l, ValueRange, ArrayRef<Value> at) {
            Value acc = scalarConstant(b, l, element, identity);
            for (int64_t th = 0; th < axes[0].k; ++th)
              for (int64_t tw = 0; tw < axes[1].k; ++tw) {
                Value x = tensor::ExtractOp::create(
                    b, l, padded,
                    ValueRange{at[0], paddedAt(b, l, axes[0], at[1], th),
                               paddedAt(b, l, axes[1], at[2], tw), at[3]});
                acc = combine(b, l, IsMax, acc, x);
              }
            if (!IsMax)
              acc = arith::DivFOp::create(
                  b, l, acc, windowCountAsFloat(b, l, axes, at, element));
            return acc;
          });
    } else {
      Value init = filledTensor(rewriter, loc, type, sizes, identity);
      WindowMaps maps = windowMaps(rewriter.getContext(), axes);
      result =
          linalg::GenericOp::create(
              rewriter, loc, type,
              ValueRange{padded, windowShape(rewriter, loc, axes, element)},
              ValueRange{init},
              SmallVector<AffineMap>{maps.strided, maps.window, maps.pixel},
              windowIterators(),
              [&](OpBuilder &b, Location l, ValueRange a) {
                linalg::YieldOp::create(b, l, combine(b, l, IsMax, a[2], a[0]));
              })
              .getResult(0);
      if (!IsMax)
        result = divideByCount(rewriter, loc, result,
                               emptyTensor(rewriter, loc, type, sizes), axes);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// For the input-gradient generic (loops (n, h, w, kh, kw, c)): whether the
/// window that holds input row/column `i` at window-relative tap `t`
/// exists, and that window's index (clamped to [0, out) so that it can be
/// read whether or not it exists; out >= 1 here).
std::pair<Value, Value> windowAt(OpBuilder &b, Location loc, const Axis &a,
                                 Value i, Value t) {
  Value zero = indexConstant(b, loc, 0);
  Value before = getValueOrCreateConstantIndexOp(b, loc, a.before);
  Value out = getValueOrCreateConstantIndexOp(b, loc, a.out);
  // The window starts at i + before - t in the padded input.
  Value start = arith::SubIOp::create(
      b, loc, arith::AddIOp::create(b, loc, i, before), t);
  Value ok =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, start, zero);
  Value clamped = arith::MaxSIOp::create(b, loc, start, zero);
  Value index = clamped;
  if (a.s > 1) {
    Value s = indexConstant(b, loc, a.s);
    Value aligned =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                              arith::RemUIOp::create(b, loc, clamped, s), zero);
    ok = arith::AndIOp::create(b, loc, ok, aligned);
    index = arith::DivUIOp::create(b, loc, clamped, s);
  }
  Value inRange =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, index, out);
  ok = arith::AndIOp::create(b, loc, ok, inRange);
  Value last = arith::SubIOp::create(b, loc, out, indexConstant(b, loc, 1));
  index = arith::MinUIOp::create(b, loc, index, last);
  return {ok, index};
}

/// The input gradient: for each input element (n, h, w, c) and tap, the
/// window holding it at that tap contributes `read(window indices)` when
/// it exists and `take(window indices, tap)` holds (null: always).
Value gatherGradient(
    OpBuilder &b, Location loc, RankedTensorType type,
    ArrayRef<OpFoldResult> sizes, const Axis (&axes)[2], Value values,
    function_ref<Value(OpBuilder &, Location, ValueRange, Value)> take) {
  Type element = type.getElementType();
  Value init = filledTensor(b, loc, type, sizes, 0.0);
  WindowMaps maps = windowMaps(b.getContext(), axes);
  return linalg::GenericOp::create(
             b, loc, type, ValueRange{windowShape(b, loc, axes, element)},
             ValueRange{init}, SmallVector<AffineMap>{maps.window, maps.pixel},
             windowIterators(),
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               Value acc = args[1];
               // Taps backwards: the windows come in row-major order.
               Value th = arith::SubIOp::create(
                   nb, nl, indexConstant(nb, nl, axes[0].k - 1),
                   linalg::IndexOp::create(nb, nl, 3));
               Value tw = arith::SubIOp::create(
                   nb, nl, indexConstant(nb, nl, axes[1].k - 1),
                   linalg::IndexOp::create(nb, nl, 4));
               auto [rowOk, oh] = windowAt(
                   nb, nl, axes[0], linalg::IndexOp::create(nb, nl, 1), th);
               auto [colOk, ow] = windowAt(
                   nb, nl, axes[1], linalg::IndexOp::create(nb, nl, 2), tw);
               SmallVector<Value> at = {linalg::IndexOp::create(nb, nl, 0), oh,
                                        ow, linalg::IndexOp::create(nb, nl, 5)};
               Value ok = arith::AndIOp::create(nb, nl, rowOk, colOk);
               if (take) {
                 Value tap = arith::AddIOp::create(
                     nb, nl,
                     arith::MulIOp::create(nb, nl, th,
                                           indexConstant(nb, nl, axes[1].k)),
                     tw);
                 ok = arith::AndIOp::create(nb, nl, ok, take(nb, nl, at, tap));
               }
               Value g = tensor::ExtractOp::create(nb, nl, values, at);
               Value sum = arith::AddFOp::create(nb, nl, acc, g);
               linalg::YieldOp::create(
                   nb, nl,
                   ValueRange{arith::SelectOp::create(nb, nl, ok, sum, acc)});
             })
      .getResult(0);
}

/// Whether the windows tile the input: no padding, windows no larger than
/// their strides and together covering every row and column (2x2 windows
/// with stride 2 over an even size, the common case). Then each input
/// element lies in at most one window, at a tap its index gives.
bool windowsTile(const Axis (&axes)[2]) {
  for (const Axis &a : axes) {
    auto in = getConstantIntValue(a.in), out = getConstantIntValue(a.out);
    if (!in || !out || a.padded || a.k > a.s || *in != *out * a.s)
      return false;
  }
  return true;
}

/// The input gradient when the windows tile the input (windowsTile): an
/// elementwise generic over the input gradient that reads the window of
/// each element through floordiv maps; the element gets `values` of its
/// window if it lies inside it and (max: `taps` non-null) is the tap the
/// window chose. No scatter, no accumulation: one write per element.
Value tiledGradient(OpBuilder &b, Location loc, RankedTensorType type,
                    ArrayRef<OpFoldResult> sizes, const Axis (&axes)[2],
                    Value values, Value taps) {
  MLIRContext *ctx = b.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  AffineMap window = AffineMap::get(
      4, 0, {d(0), d(1).floorDiv(axes[0].s), d(2).floorDiv(axes[1].s), d(3)},
      ctx);
  SmallVector<Value> inputs = {values};
  SmallVector<AffineMap> maps = {window};
  if (taps) {
    inputs.push_back(taps);
    maps.push_back(window);
  }
  Type element = type.getElementType();
  return pixelGeneric(
      b, loc, emptyTensor(b, loc, type, sizes), inputs, maps,
      [&](OpBuilder &nb, Location nl, ValueRange args, ArrayRef<Value> at) {
        // The tap of this element in its window.
        Value th = arith::RemUIOp::create(nb, nl, at[1],
                                          indexConstant(nb, nl, axes[0].s));
        Value tw = arith::RemUIOp::create(nb, nl, at[2],
                                          indexConstant(nb, nl, axes[1].s));
        Value ok = arith::AndIOp::create(
            nb, nl,
            arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::ult, th,
                                  indexConstant(nb, nl, axes[0].k)),
            arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::ult, tw,
                                  indexConstant(nb, nl, axes[1].k)));
        if (taps) {
          Value tap = arith::AddIOp::create(
              nb, nl,
              arith::MulIOp::create(nb, nl, th,
                                    indexConstant(nb, nl, axes[1].k)),
              tw);
          tap = arith::IndexCastOp::create(nb, nl, nb.getI32Type(), tap);
          ok = arith::AndIOp::create(
              nb, nl, ok,
              arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::eq, args[1],
                                    tap));
        }
        // 0 + g, as the reference kernels add (a -0.0 becomes +0.0).
        Value zero = scalarConstant(nb, nl, element, 0.0);
        Value g = arith::AddFOp::create(nb, nl, zero, args[0]);
        return arith::SelectOp::create(nb, nl, ok, g, zero).getResult();
      });
}

/// One step of the search for a window's first maximum: whether `x`, at
/// tap `tap` (i32), replaces the best value `cur` found at tap `idx` (-1
/// while none): the first element, a greater one, or the first NaN; never
/// padding (`valid` false; null when there is none).
Value takesOver(OpBuilder &b, Location loc, Value x, Value cur, Value idx,
                Value valid) {
  Value unset = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::slt, idx,
      arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0));
  Value greater =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, cur);
  Value firstNaN = arith::AndIOp::create(
      b, loc, arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x),
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ORD, cur, cur));
  Value take = arith::OrIOp::create(
      b, loc, arith::OrIOp::create(b, loc, unset, greater), firstNaN);
  return valid ? arith::AndIOp::create(b, loc, take, valid).getResult() : take;
}

/// Whether padded row (column) `p` of axis `a` is an input row: p - before
/// in [0, in). Null (always) when the axis has no padding.
Value isInput(OpBuilder &b, Location loc, const Axis &a, Value p) {
  if (!a.padded)
    return nullptr;
  Value row = arith::SubIOp::create(
      b, loc, p, getValueOrCreateConstantIndexOp(b, loc, a.before));
  return arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, row,
                            indexConstant(b, loc, 0)),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, row, a.in));
}

/// The tap (kh * kw_size + kw, i32) of each window's first maximum, as a
/// tensor of `type` (the windows' shape). Small windows: an elementwise
/// generic over the windows that reads each window's elements in order
/// (tensor.extract) and keeps the best in registers. Larger ones: a
/// window generic carrying (value, tap) accumulators, as argmax does.
Value firstMaxTaps(OpBuilder &b, Location loc, Value input,
                   RankedTensorType type, ArrayRef<OpFoldResult> sizes,
                   const Axis (&axes)[2]) {
  Type element = cast<RankedTensorType>(input.getType()).getElementType();
  Type i32 = b.getI32Type();
  Value padded = padInput(b, loc, input, axes, kMinusInf);
  MLIRContext *ctx = b.getContext();
  if (axes[0].k * axes[1].k <= kMaxUnrolledTaps) {
    return pixelGeneric(
        b, loc, emptyTensor(b, loc, type, sizes), ValueRange{}, {},
        [&](OpBuilder &nb, Location nl, ValueRange, ArrayRef<Value> at) {
          Value cur = scalarConstant(nb, nl, element, kMinusInf);
          Value idx = arith::ConstantIntOp::create(nb, nl, i32, -1);
          for (int64_t th = 0; th < axes[0].k; ++th) {
            Value row = paddedAt(nb, nl, axes[0], at[1], th);
            Value rowOk = isInput(nb, nl, axes[0], row);
            for (int64_t tw = 0; tw < axes[1].k; ++tw) {
              Value col = paddedAt(nb, nl, axes[1], at[2], tw);
              Value ok = rowOk, colOk = isInput(nb, nl, axes[1], col);
              if (colOk)
                ok = ok ? arith::AndIOp::create(nb, nl, ok, colOk).getResult()
                        : colOk;
              Value x = tensor::ExtractOp::create(
                  nb, nl, padded, ValueRange{at[0], row, col, at[3]});
              Value take = takesOver(nb, nl, x, cur, idx, ok);
              Value tap = arith::ConstantIntOp::create(nb, nl, i32,
                                                       th * axes[1].k + tw);
              cur = arith::SelectOp::create(nb, nl, take, x, cur);
              idx = arith::SelectOp::create(nb, nl, take, tap, idx);
            }
          }
          return idx;
        });
  }
  auto bestType = RankedTensorType::get(type.getShape(), element);
  Value best = filledTensor(b, loc, bestType, sizes, kMinusInf);
  Value none = filledTensor(b, loc, type, sizes, -1);
  WindowMaps maps = windowMaps(ctx, axes);
  return linalg::GenericOp::create(
             b, loc, TypeRange{bestType, type},
             ValueRange{padded, windowShape(b, loc, axes, element)},
             ValueRange{best, none},
             SmallVector<AffineMap>{maps.strided, maps.window, maps.pixel,
                                    maps.pixel},
             windowIterators(),
             [&](OpBuilder &nb, Location nl, ValueRange a) {
               Value kh = linalg::IndexOp::create(nb, nl, 3);
               Value kw = linalg::IndexOp::create(nb, nl, 4);
               Value tap = arith::AddIOp::create(
                   nb, nl,
                   arith::MulIOp::create(nb, nl, kh,
                                         indexConstant(nb, nl, axes[1].k)),
                   kw);
               tap = arith::IndexCastOp::create(nb, nl, i32, tap);
               // Padded row and column: o * s + k.
               Value valid;
               for (int d = 0; d < 2; ++d) {
                 Value p = arith::AddIOp::create(
                     nb, nl,
                     arith::MulIOp::create(
                         nb, nl, linalg::IndexOp::create(nb, nl, 1 + d),
                         indexConstant(nb, nl, axes[d].s)),
                     d == 0 ? kh : kw);
                 if (Value ok = isInput(nb, nl, axes[d], p))
                   valid = valid ? arith::AndIOp::create(nb, nl, valid, ok)
                                       .getResult()
                                 : ok;
               }
               Value take = takesOver(nb, nl, a[0], a[2], a[3], valid);
               linalg::YieldOp::create(
                   nb, nl,
                   ValueRange{
                       arith::SelectOp::create(nb, nl, take, a[0], a[2]),
                       arith::SelectOp::create(nb, nl, take, tap, a[3])});
             })
      .getResult(1);
}

template <typename OpTy, bool IsMax>
struct Pool2DGradLowering : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;
  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput(), dy = adaptor.getGradOutput();
    RankedTensorType type = op.getType();
    Axis axes[2] = {axisOf(rewriter, loc, op, input, 0),
                    axisOf(rewriter, loc, op, input, 1)};
    SmallVector<OpFoldResult> inSizes = tensorSizes(rewriter, loc, input);
    SmallVector<OpFoldResult> outSizes = {inSizes[0], axes[0].out, axes[1].out,
                                          inSizes[3]};
    // The output gradient must have the pooled shape; a mismatch (of dims
    // unknown when compiling) is an error and reads nothing. Without
    // windows (an error raised, or an empty input) there is nothing to
    // read either.
    SmallVector<OpFoldResult> dySizes = tensorSizes(rewriter, loc, dy);
    Value skip;
    for (int d = 0; d < 4; ++d)
      skip = orElse(rewriter, loc, skip,
                    checkSize(rewriter, loc, dySizes[d], outSizes[d],
                              ErrorCode::DimensionMismatch));
    for (const Axis &a : axes)
      if (a.dynamicOut)
        skip = orElse(rewriter, loc, skip,
                      arith::CmpIOp::create(
                          rewriter, loc, arith::CmpIPredicate::eq,
                          getValueOrCreateConstantIndexOp(rewriter, loc, a.out),
                          indexConstant(rewriter, loc, 0)));
    Value result = guardedBy(
        rewriter, loc, skip, type, inSizes, [&](OpBuilder &b, Location l) {
          return IsMax ? maxGradient(b, l, input, dy, type, inSizes, outSizes,
                                     axes)
                       : avgGradient(b, l, dy, type, inSizes, axes);
        });
    rewriter.replaceOp(op, result);
    return success();
  }

  static Value avgGradient(OpBuilder &b, Location loc, Value dy,
                           RankedTensorType type, ArrayRef<OpFoldResult> sizes,
                           const Axis (&axes)[2]) {
    auto dyType = cast<RankedTensorType>(dy.getType());
    Value scaled = divideByCount(
        b, loc, dy, emptyTensor(b, loc, dyType, tensorSizes(b, loc, dy)), axes);
    if (windowsTile(axes))
      return tiledGradient(b, loc, type, sizes, axes, scaled, nullptr);
    return gatherGradient(b, loc, type, sizes, axes, scaled, nullptr);
  }

  static Value maxGradient(OpBuilder &b, Location loc, Value input, Value dy,
                           RankedTensorType type, ArrayRef<OpFoldResult> sizes,
                           ArrayRef<OpFoldResult> outSizes,
                           const Axis (&axes)[2]) {
    Type i32 = b.getI32Type();
    auto tapsType = RankedTensorType::get(
        cast<RankedTensorType>(dy.getType()).getShape(), i32);
    Value taps = firstMaxTaps(b, loc, input, tapsType, outSizes, axes);
    if (windowsTile(axes))
      return tiledGradient(b, loc, type, sizes, axes, dy, taps);
    return gatherGradient(
        b, loc, type, sizes, axes, dy,
        [&](OpBuilder &nb, Location nl, ValueRange at, Value tap) -> Value {
          Value chosen = tensor::ExtractOp::create(nb, nl, taps, at);
          return arith::CmpIOp::create(
              nb, nl, arith::CmpIPredicate::eq, chosen,
              arith::IndexCastOp::create(nb, nl, i32, tap));
        });
  }
};

} // namespace

void lowering::populatePoolingPatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<Pool2DLowering<MaxPool2DOp, true>,
               Pool2DLowering<AvgPool2DOp, false>,
               Pool2DGradLowering<MaxPool2DGradOp, true>,
               Pool2DGradLowering<AvgPool2DGradOp, false>>(ctx);
}
